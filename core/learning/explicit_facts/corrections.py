"""Corrections of the fact last discussed: "no, it's Lisbon", "I meant Porto", and a bare
"no, Lisbon" (only a capitalised name or a number). Both need the caller's
``last_fact_key``; what they find keeps that fact's key and category."""

from __future__ import annotations

import re

from core.learning.explicit_facts.engine import Context, Found, category_for_key, rule
from core.learning.explicit_facts.values import NOT_A_NAME, clean

_NOT_A_CORRECTION = {"fine", "ok", "okay", "all right", "alright", "good", "great",
                     "nothing", "true", "false", "right", "wrong", "correct", "raining",
                     "late", "early", "cold", "hot", "weird", "fun", "funny", "nice", "cool",
                     "a joke", "my fault", "your fault", "over", "done", "time", "me",
                     "thanks", "thank you", "never", "never mind", "nevermind", "worse",
                     "better", "been", "fine thanks", "i", "i'm", "we", "you", "he", "she",
                     "they", "yes", "yeah", "sure", "please"}


@rule("it_is_correction",
      r"(?:it's|it\s+is|it\s+was|it\s+should\s+be|that's|that\s+is|i\s+meant|i\s+mean|"
      r"make\s+that|rather)\s+(?P<y>.+)", corrects=True)
def it_is(match: re.Match[str], context: Context) -> Found:
    meant = match.group().lower().startswith(("i mean", "make that", "rather"))
    if context.last_key is None or not (context.correction or meant):
        return []
    value = clean(match["y"], _NOT_A_CORRECTION)
    if value is None or len(value.split()) > 6:
        return []
    if not context.correction and not re.match(r"[A-Z0-9]", value):
        return []   # a bare "I mean ..." is only trusted with a name or a number
    return [(context.last_key, value, category_for_key(context.last_key))]


@rule("value_correction", r"(?P<y>[A-Z0-9][\w.'\- ]{0,40})", corrects=True)
def bare_value(match: re.Match[str], context: Context) -> Found:
    """"No, Lisbon." after a fact was stated: a capitalised name or a number, up to 3 words."""
    if not (context.correction and context.last_key) or len(match["y"].split()) > 3:
        return []
    value = clean(match["y"], _NOT_A_CORRECTION | NOT_A_NAME)
    if value is None or not re.match(r"[A-Z0-9]", value):
        return []
    return [(context.last_key, value, category_for_key(context.last_key))]
