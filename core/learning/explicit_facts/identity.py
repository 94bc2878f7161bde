"""What the user is called ("call me Sam", "I go by Sam") and how old they are ("I'm 34",
"I just turned 40"). ``name_of`` and ``age_of`` also read the names and ages of others."""

from __future__ import annotations

import re

from core.learning.explicit_facts.engine import I_AM, Context, Found, fact_about, rule
from core.learning.explicit_facts.values import NOT_A_NAME, clean

@rule("call_me", r"(?:(?:please|just|you\s+can|you\s+may|feel\s+free\s+to|everyone|people|"
      r"friends)\s+)*call\s+me\s+(?P<y>.+)")
def call_me(match: re.Match[str], context: Context) -> Found:
    return name_of("preferred_name", match["y"])


@rule("call_me", r"i\s+go\s+by\s+(?P<y>.+)")
def go_by(match: re.Match[str], context: Context) -> Found:
    return name_of("preferred_name", match["y"])


def name_of(key: str, raw: str) -> Found:
    value = clean(raw.split(",")[0], NOT_A_NAME)
    if value is None or len(value.split()) > 4 or not re.fullmatch(r"[\w.'\- ]+", value):
        return []
    if value.split()[0].lower() in NOT_A_NAME:
        return []
    return [(key, value, "personal")]


def age_of(who: list[str], number: str, unit: str | None) -> Found:
    if not 0 < int(number) <= 120:
        return []
    unit_word = (unit or "").split()
    value = number if not unit_word or unit_word[0].startswith(("year", "y")) else (
        f"{number} {unit_word[0]}")
    return [fact_about(who, "age", value=value)]


@rule("age", r"(?:" + I_AM + r"|i(?:'ve)?\s+(?:just\s+)?turned)\s+(?P<y>\d{1,3})"
      r"(?P<unit>\s+(?:years?\s+old|years\s+young|yo|y/o))?(?:\s+(?:today|this\s+year|"
      r"last\s+(?:week|month)|yesterday|now|already))?")
def my_age(match: re.Match[str], context: Context) -> Found:
    return age_of([], match["y"], None)
