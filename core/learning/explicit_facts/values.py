"""A value cut out of a clause, the same way for every rule: up to the first connector
("because", "but", "with my", ", not"), without trailing time words, filler, emoji and
punctuation, and refused when it is empty, longer than ``MAX_VALUE_CHARS``, garbled, or
starts like a clause ("that", "not", "when", a pronoun). Also the small helpers every
family uses to build a fact key."""

from __future__ import annotations

import re
import unicodedata

from core.knowledge.facts import normalise_key

MAX_VALUE_CHARS = 80

_CONNECTOR = re.compile(
    r"(?:\s*[,;]\s*(?:and|but|so|because|since|which|who|where|when|as|though|although|"
    r"not|everyone|everybody|people|if|or)\b"
    r"|\s+(?:because|since|but|if|unless|until|although|though|whereas|which|who|so|when|"
    r"where|while|as\s+(?:an?|the|my|our|i|we|it)|"
    r"and\s+(?:i|we|my|our|it|he|she|they|you|then|now)|"
    r"with\s+(?:my|our|the|his|her|their|a|an|some|two|three)|"
    r"for\s+(?:work|my|our|the|a|an|now|good|a\s+while|\d+|some|two|three|several|many|"
    r"years|months|weeks)|from\s+now\s+on|instead|not|rather\s+than|or\s+so)\b"
    r"|\s+[-\u2014\u2013(]\s*|\s*\()", re.I)
_TRAILING = re.compile(
    r"(?<![\s,])(?:[\s,]++(?:(?:last|this|next)\s+(?:week|month|year|summer|winter|spring|"
    r"autumn|fall|weekend)|(?:\d+|a|an|one|two|three|four|five|a\s+few|a\s+couple\s+of|several)\s+"
    r"(?:days?|weeks?|months?|years?)\s+ago|in\s+(?:19|20)\d\d|recently|lately|yesterday|"
    r"today|already|again|finally|now|these\s+days|nowadays|at\s+the\s+moment|currently|"
    r"right\s+now|for\s+now|a\s+while\s+(?:ago|back)|btw|by\s+the\s+way|lol|haha+|hehe|fyi|"
    r"though|too|as\s+well|anymore|thanks|thank\s+you|please|ok|okay))+\s*$", re.I)
"""Only a run's first character can start a match, and the run is never given back: linear
on ", , , , ..." (it was quadratic)."""
MONTHS = (r"(?:january|february|march|april|may|june|july|august|september|october|november|"
          r"december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)")
_WEEKDAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_TRAILING_MORE = re.compile(
    r"(?<![\s,])(?:[\s,]++(?:(?:in|on|since|from|back\s+in|last|this|next|in\s+early|"
    r"in\s+late)\s+(?:" + MONTHS + r"|" + _WEEKDAYS + r")(?:\s+\d{1,2}(?:st|nd|rd|th)?)?"
    r"(?:\s+(?:19|20)\d\d)?|"
    r"(?:this|tomorrow|yesterday)\s+(?:morning|afternoon|evening|night)|tonight|tomorrow|"
    r"originally|full[- ]time|part[- ]time|as\s+of\s+(?:now|today)|officially|"
    r"(?:over\s+)?there|here|"
    r"(?:at\s+the\s+)?(?:start|end|beginning)\s+of\s+(?:the\s+)?(?:month|year|week|"
    + MONTHS + r")|by\s+(?:trade|training|profession)|(?:last|this)\s+(?:summer|autumn|fall|"
    r"spring|winter|term|semester)))+\s*$", re.I)
"""More time words, for the work, study and place rules only ("my birthday is in May" must
keep its "in May")."""
EDGE_JUNK = " \t.,!?;:\u2026\"'`*_~"
_EMOTICON = re.compile(r"\s*(?:[:;]-?[)(DPp]|<3|xD|\^\^)\s*$")

NOT_A_VALUE = {"that", "this", "these", "those", "it", "not", "to", "so", "very", "really",
               "too", "going", "being", "gonna", "still", "no", "none", "nothing", "them",
               "him", "her", "what", "when", "where", "why", "how", "if", "whether", "just",
               "kind", "sort", "pretty", "quite", "a bit", "also", "like", "about", "all",
               "unknown", "secret", "private", "irrelevant", "the same", "same"}
NOT_A_NAME = {"later", "back", "tomorrow", "tonight", "now", "anytime", "again", "crazy",
              "maybe", "sometime", "soon", "after", "before", "on", "at", "please", "by",
              "if", "when", "a", "an", "the", "whatever", "anything", "old", "stupid"}


def has_capital(value: str) -> bool:
    return any(ch.isupper() for ch in value)


def words_of(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def key_of(*words: str) -> str:
    return normalise_key("_".join(words))


def _garbled(value: str) -> bool:
    """No letter or digit at all, or more combining marks than letters ("Z̸̢a̷l̶g̷o̸")."""
    alnum = sum(ch.isalnum() for ch in value)
    marks = sum(unicodedata.category(ch) == "Mn" for ch in value)
    return alnum == 0 or marks > alnum


def _strip_symbols(text: str) -> str:
    """Drop trailing emoji (with their joiners and variation selectors)."""
    end = len(text)
    while end and (unicodedata.category(text[end - 1]) in ("So", "Sk", "Mn", "Cf")):
        end -= 1
    return text[:end]


def clean(raw: str, refused: set[str] | frozenset[str], *, more: bool = False) -> str | None:
    """The value in ``raw``: cut at the first connector, trimmed; ``None`` if unusable.
    ``more`` also trims the time words of ``_TRAILING_MORE`` ("in March", "originally")."""
    value = _CONNECTOR.split(raw, maxsplit=1)[0]
    if len(value) > MAX_VALUE_CHARS + 120:
        return None   # no trimming of trailing words gets this under the cap
    previous = None
    while previous != value:
        previous = value
        value = _strip_symbols(_EMOTICON.sub("", value))
        value = _TRAILING.sub("", value).strip(EDGE_JUNK)
        if more:
            value = _TRAILING_MORE.sub("", value).strip(EDGE_JUNK)
    value = " ".join(value.split())
    if not value or len(value) > MAX_VALUE_CHARS or _garbled(value):
        return None
    lowered = value.lower()
    first_word = lowered.split()[0]
    if lowered in refused or first_word in refused or first_word in (
            "that", "not", "to", "when", "if", "because", "it", "this", "it's", "that's",
            "i'm"):
        return None
    return value
