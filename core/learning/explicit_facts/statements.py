""""my X is Y", "the X is Y", "Tom's X is Y", and what the user asked to remember that no
rule understands (``as_note``: kept as written).

Without "remember", "my X is Y" counts only for an attribute-like X (a name, a birthday, a
favourite anything: ``_BARE_HEADS``), because "my day is going well" is not a fact; "the X
is Y" and "Tom's X is Y" count only inside "remember that"."""

from __future__ import annotations

import re

from core.learning.explicit_facts.engine import Context, ExplicitFact, Found, category_for_key, rule
from core.learning.explicit_facts.identity import name_of
from core.learning.explicit_facts.values import NOT_A_VALUE, clean, key_of, words_of

_BARE_HEADS = {"nickname", "birthday", "birthdate", "age", "pronouns", "email", "phone",
               "number", "anniversary", "username", "nationality", "star sign", "city",
               "hometown", "country", "address", "postcode", "zip", "zip code",
               "neighbourhood", "neighborhood", "timezone", "time zone", "job title",
               "employer", "profession", "occupation", "allergy", "allergies", "blood type",
               "medication", "medications", "dietary restrictions"}
"""Heads that make "my X is Y" a fact on its own (preferences need "favourite")."""

_NOTE_WORTHY = re.compile(
    r"\b(?:i|i'm|i've|me|my|we|our|is|are|was|were|has|have|had|will|needs?|likes|hates|"
    r"loves|prefers|lives|works)\b|\d", re.I)

_NON_FACT_SUBJECT = {"said", "says", "told", "tells", "thinks", "thought", "believes", "is",
                     "was", "and", "that", "who", "which", "she", "he", "they", "her", "his",
                     "their", "if", "when", "not", "point", "guess", "question", "problem",
                     "plan", "concern", "fault", "mistake", "turn", "opinion", "idea",
                     "impression", "feeling", "worry", "hope", "issue", "answer", "excuse",
                     "day", "week", "life", "head", "pleasure", "god", "bad"}

_X = r"(?P<x>[\w'-]+(?:\s+[\w'-]+){0,3}?)"


@rule("my_x_is_called", r"(?:my|our)\s+" + _X + r"(?:\s+is|'s)\s+(?:called|named)\s+(?P<y>.+)")
def is_called(match: re.Match[str], context: Context) -> Found:
    subject = _subject(match["x"])
    if subject is None:
        return []
    return name_of(key_of(*subject, "name"), match["y"])


@rule("my_x_is_y", r"(?:my|our)\s+" + _X + r"(?:\s+is|\s+are|'s|\s*[:=])\s+(?P<y>.+)")
def my_x_is_y(match: re.Match[str], context: Context) -> Found:
    subject = _subject(match["x"])
    if subject is None or not (context.explicit or _is_attribute(subject)):
        return []
    key = key_of(*subject)
    if key in ("name", "first_name", "preferred_name", "nickname"):
        return name_of(key, match["y"])
    value = clean(match["y"], NOT_A_VALUE)
    return [(key, value, category_for_key(key))] if value else []


@rule("the_x_is_y", r"(?:the|our)\s+" + _X + r"\s+(?:is|are)\s+(?P<y>.+)")
def the_x_is_y(match: re.Match[str], context: Context) -> Found:
    if not context.explicit:
        return []   # "the weather is nice": only facts the user asked to keep
    subject = _subject(match["x"])
    value = clean(match["y"], NOT_A_VALUE)
    if subject is None or value is None:
        return []
    key = key_of(*subject)
    return [(key, value, category_for_key(key))]


@rule("someones_x_is_y", r"(?P<owner>[\w-]+)'s\s+" + _X + r"\s+(?:is|are)\s+(?P<y>.+)")
def someones_x_is_y(match: re.Match[str], context: Context) -> Found:
    """ "remember that Tom's birthday is May 3" -> tom_birthday."""
    owner = match["owner"].lower()
    if not context.explicit or owner in ("it", "that", "what", "there", "here", "he", "she",
                                         "who", "let", "where", "this"):
        return []
    subject = _subject(match["x"])
    value = clean(match["y"], NOT_A_VALUE)
    if subject is None or value is None:
        return []
    key = key_of(owner, *subject)
    return [(key, value, category_for_key(key))]


def as_note(clause: str, context: Context) -> list[ExplicitFact]:
    """What the user asked to remember, kept as written when no rule understands it."""
    value = clean(clause, NOT_A_VALUE)
    words = [w for w in words_of(clause) if w not in ("i", "we", "my", "our", "that")]
    if value is None or not words or not _NOTE_WORTHY.search(clause):
        return []   # "remember that trip to Paris" reminisces; it states nothing
    key = key_of(*words[:4])
    return [ExplicitFact(key, value, category_for_key(key), "remember_that", context.correction)]


def _subject(raw: str) -> list[str] | None:
    """ "sister's name" -> ["sister", "name"]; ``None`` when it reads like a clause."""
    words = words_of(raw.replace("'s", " "))
    if not words or any(word in _NON_FACT_SUBJECT for word in words):
        return None
    return words


def _is_attribute(subject: list[str]) -> bool:
    """Is "my <subject> is ..." a fact without "remember"? ("my day is..." is not.)"""
    if subject[0] in ("favourite", "favorite") or subject[-1] in ("name", "names"):
        return True
    return " ".join(subject[-2:]) in _BARE_HEADS or subject[-1] in _BARE_HEADS
