"""Where the user lives, comes from, grew up and was born, and the home they bought or
rent ("I live in Lisbon", "I'm from Ghana", "we bought a flat in Graça").

Places are taken as written, but a description without a name ("I live in a flat") and an
idiom ("I live in hope") are not places. ``named_place`` also reads where someone close to
the user lives (``core.learning.explicit_facts.people``)."""

from __future__ import annotations

import re

from core.learning import vocabulary as vocab
from core.learning.explicit_facts.engine import I_AM, Context, Found, alternation, fact_about, rule
from core.learning.explicit_facts.values import EDGE_JUNK, MONTHS, NOT_A_VALUE, clean, has_capital

_NOT_A_PLACE = {"fear", "hope", "denial", "peace", "sin", "poverty", "luxury", "comfort",
                "chaos", "dread", "harmony", "hell", "heaven", "a bubble", "a dream",
                "the past", "the present", "the future", "the moment", "my head"}

_WE = r"(?:i|we|my\s+(?:wife|husband|partner|family|girlfriend|boyfriend|kids)\s+and\s+i)"


@rule("lives_in", _WE + r"\s+(?:now\s+|currently\s+|still\s+|also\s+|both\s+|all\s+)?"
      r"(?:live|are\s+living|am\s+living|'m\s+living|'re\s+living)\s+in\s+(?P<y>.+)")
def lives_in(match: re.Match[str], context: Context) -> Found:
    return _home(match["y"])


@rule("lives_in", r"(?:i'm|im|i\s+am|we're|we\s+are)\s+(?:now\s+|currently\s+)?based\s+in\s+"
      r"(?P<y>.+)")
def based_in(match: re.Match[str], context: Context) -> Found:
    return _home(match["y"])


@rule("moved_to", _WE + r"(?:\s+have|'ve)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?"
      r"(?:moved|relocated)\s+(?:back\s+)?(?:to|in\s+to|into)\s+(?P<y>.+)")
def moved_to(match: re.Match[str], context: Context) -> Found:
    if re.search(r"\b(?:but|and)\s+(?:then\s+)?(?:left|moved\s+(?:away|back|out|on)|"
                 r"came\s+back|returned)\b", match["y"], re.I):
        return []   # "moved to Berlin in 2010 but left in 2015" is the past
    return _home(match["y"])


@rule("lives_in", r"(?:i|we)(?:'ve|\s+have)\s+been\s+living\s+in\s+(?P<y>.+)")
def been_living_in(match: re.Match[str], context: Context) -> Found:
    return _home(match["y"])


@rule("lives_in", r"(?:i|we)(?:'ve|\s+have)\s+lived\s+in\s+(?P<y>.+?)\s+(?:for|since)\s+"
      r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|many|several|years|ages|"
      r"over|almost|nearly|about|the\s+past|the\s+last)\b.*")
def have_lived_in(match: re.Match[str], context: Context) -> Found:
    """ "I've lived in Lisbon for ten years" (still there); "I lived in Rome" is the past."""
    return _home(match["y"])


def _home(raw: str) -> Found:
    value = clean(raw, _NOT_A_PLACE)
    if value is None:
        return []
    if re.match(r"(?:a|an|the|my|our|some)\s", value, re.I) and not re.search(
            r"\b[A-Z]", value):
        return []   # "a flat", "the countryside": not a place name
    return [("home_city", value, "location")]


_NOT_A_NAMED_PLACE = _NOT_A_PLACE | vocab.NOT_A_PLACE_EXTRA | {
    "here", "there", "nowhere", "everywhere", "around here", "all over", "work", "home",
    "around", "over",  # what "around here", "over there" leave once "here", "there" go
    "school", "abroad", "another planet", "outer space", "mars", "the internet", "a family",
    "a long line", "money", "nothing", "scratch", "the start"}


def named_place(who: list[str], key: str, raw: str, context: Context) -> Found:
    """A place name: refused when it is an idiom ("lives in fear"), a description without
    a name ("a small town"), or lower case in a message that uses capitals."""
    value = clean(raw, _NOT_A_NAMED_PLACE, more=True)
    if value is None:
        return []
    if re.match(r"(?:a|an|the|my|our|some|his|her|their)\s", value, re.I) and not has_capital(
            value):
        return []
    if context.cased and not has_capital(value):
        return []
    return [fact_about(who, key, value=value)]


@rule("from", r"(?:" + I_AM + r"\s+(?:originally\s+)?from|i\s+(?:originally\s+)?come\s+from)"
      r"\s+(?P<y>.+)")
def comes_from(match: re.Match[str], context: Context) -> Found:
    """ "I'm from Ghana"."""
    return named_place([], "origin", match["y"], context)


@rule("grew_up_in", r"(?:i|we)\s+(?:grew\s+up|was\s+raised|were\s+raised|was\s+brought\s+up|"
      r"were\s+brought\s+up)\s+in\s+(?P<y>.+)")
def grew_up_in(match: re.Match[str], context: Context) -> Found:
    return named_place([], "hometown", match["y"], context)


@rule("born", r"i\s+was\s+born\s+(?P<prep>in|on)\s+(?P<y>.+)")
def born(match: re.Match[str], context: Context) -> Found:
    """ "I was born in Leeds" / "in 1990" / "on 14 March"."""
    raw = match["y"].strip(EDGE_JUNK)
    if match["prep"].lower() == "on":
        value = clean(raw, NOT_A_VALUE)
        if value and re.search(r"\d|" + MONTHS, value, re.I):
            return [("birthday", value, "personal")]
        return []
    if re.fullmatch(r"(?:19|20)\d\d", raw):
        return [("birth_year", raw, "personal")]
    if re.fullmatch(MONTHS + r"(?:\s+(?:19|20)\d\d)?", raw, re.I):
        return []
    return named_place([], "birthplace", raw, context)


@rule("home", r"(?:i|we)(?:'ve|\s+have)?\s+(?:(?:just|recently|finally|also)\s+)?(?:bought|"
      r"purchased|rent|are\s+renting|'re\s+renting|am\s+renting|'m\s+renting)\s+(?:a|an|our|"
      r"my|the|this)\s+(?P<y>(?:[\w'-]+\s+){0,2}?(?:" + alternation(vocab.PROPERTY)
      + r")\s+in\s+.+)")
def bought_a_home(match: re.Match[str], context: Context) -> Found:
    """ "we bought a flat in Graça" -> home = "flat in Graça"."""
    value = clean(match["y"], NOT_A_VALUE, more=True)
    if value is None:
        return []
    place = re.split(r"\sin\s", value, maxsplit=1, flags=re.I)[-1]
    if place.lower() in _NOT_A_NAMED_PLACE or (context.cased and not has_capital(place)):
        return []
    return [("home", value, "location")]
