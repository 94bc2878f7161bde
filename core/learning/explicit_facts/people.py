"""People and pets close to the user: "my sister Priya lives in Lisbon", "my husband Marco
is a chef", "I have two kids, Ana and Leo", "we adopted a greyhound called Bolt", "I'm
married to Sam".

A fact about someone close is keyed by who it is about plus the key the user's own fact
would have (``sister_name``, ``sister_home_city``, ``number_of_kids``) and is read by the
same helpers as the user's own (``places``, ``work``, ``identity``). A name after a
relation must be capitalised ("my sister Priya"), unless "called" or "named" says it is one."""

from __future__ import annotations

import re

from core.learning import vocabulary as vocab
from core.learning.explicit_facts.engine import I_AM, Context, Found, alternation, fact_about, rule
from core.learning.explicit_facts.identity import age_of
from core.learning.explicit_facts.places import named_place
from core.learning.explicit_facts.values import EDGE_JUNK, NOT_A_NAME
from core.learning.explicit_facts.work import employment_of, job_of, school_of, study_of

_CLOSE = (vocab.RELATIONS | vocab.RELATIONS_PLURAL | vocab.PETS | vocab.PETS_PLURAL)

_PLURAL_CLOSE = vocab.RELATIONS_PLURAL | vocab.PETS_PLURAL
_CLOSE_RE = (r"(?P<rel>(?:(?:" + alternation(vocab.RELATION_MODIFIERS) + r")\s)?(?:"
             + alternation(_CLOSE) + r"))(?![\w-])")
_COUNT = r"(?P<count>a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})"
_NOT_A_NAME_WORD = {
    "i", "i'm", "i've", "i'd", "i'll", "im", "the", "a", "an", "and", "but", "or", "so", "who",
    "which", "that", "is", "was", "has", "had", "have", "just", "also", "lives", "works",
    "said", "says", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    "sunday", "january", "february", "march", "july", "september", "october", "november",
    "december", "christmas", "easter", "today", "tomorrow", "yesterday", "tonight", "ok",
    "okay", "lol", "omg", "btw", "hearth", "english", "french", "spanish", "portuguese",
    "german", "italian", "chinese", "japanese", "after", "named", "called", "too", "here",
    "there", "still", "now", "who's", "it", "it's", "he", "she", "they", "his", "her",
}


_KEY_SPELLING = {"fiancé": "fiance", "fiancée": "fiance", "fiancee": "fiance"}


def _close_words(raw: str) -> list[str]:
    """ "Older  Sister" -> ["older", "sister"]; "half sister" stays two words; one spelling
    of "fiancé" in keys."""
    return [_KEY_SPELLING.get(word.lower(), word.lower()) for word in raw.split()]


def _is_plural(words: list[str]) -> bool:
    return " ".join(words[-2:]) in _PLURAL_CLOSE or words[-1] in _PLURAL_CLOSE


def _name_word(word: str, lowercase_ok: bool) -> bool:
    lowered = word.lower().rstrip(".")
    if lowered in _NOT_A_NAME_WORD or lowered in NOT_A_NAME or lowered in _CLOSE:
        return False
    if word[0].isupper():
        return not (word.isupper() and len(word) > 4)   # "DEFINITELY" is shouting
    return lowercase_ok


def _names_at(text: str, *, plural: bool, lowercase_ok: bool = False) -> tuple[str, str]:
    """ "Priya lives in Lisbon" -> ("Priya", "lives in Lisbon"); ("", text) without a name.

    A name is one to three capitalised words ("Mary Anne Silva"); several names ("Ana and
    Leo", "Ana, Leo and Mia") only after a plural ("my kids"). ``lowercase_ok`` after
    "called" or "named", where the word cannot be anything but a name."""
    rest = text.lstrip(" ,")
    names: list[str] = []
    while len(names) < (6 if plural else 1):
        words: list[str] = []
        while len(words) < 3:
            match = re.match(r"([^\W\d_][\w.'-]*)(?=[\s,;:!?)]|$)", rest)
            if match is None or not _name_word(match[1], lowercase_ok and not words):
                break
            word = match[1]
            contraction = re.search(r"'(?:s|re)$", word, re.I)
            if contraction:   # "Marco's a chef", "Priya's husband"
                words.append(word[:contraction.start()])
                rest = rest[match.end() - len(contraction.group()):]
                break
            words.append(word.rstrip("."))
            rest = rest[match.end():].lstrip(" ")
        if not words:
            break
        names.append(" ".join(words))
        joiner = re.match(r"(?:,\s?(?:and\s|&\s)?|and\s|&\s)", rest) if plural else None
        following = rest[joiner.end():] if joiner else ""
        nxt = re.match(r"[^\W\d_][\w.'-]*", following)
        if joiner is None or nxt is None or not _name_word(nxt.group(), False):
            break
        rest = following
    if not names:
        return "", text
    value = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return value, rest


_PREDICATE_SPLIT = re.compile(
    r"\s?(?:,\s?(?:and\s)?|\band\s)(?:also\s|now\s)?(?=(?:lives|live|is|are|works|work|"
    r"moved|has|have|just|recently|now|currently|turned|goes|go|attends|studies|study|"
    r"still)\b)", re.I)
_PREDICATES: list[tuple[re.Pattern[str], str]] = [(re.compile(pattern, re.I), kind) for
                                                  pattern, kind in (
    (r"(?:(?:now|currently|still|also)\s)?(?:lives|live|is\sliving|are\sliving|'s\sliving|"
     r"'re\sliving|(?:is|are|'s|'re)\s(?:now\s|currently\s)?based)\sin\s(?P<y>.+)", "home"),
    (r"(?:(?:has|have|'s|'ve)\s)?(?:(?:just|recently|finally|now|also)\s)?(?:moved|relocated)"
     r"\s(?:back\s)?(?:to|into|in\sto)\s(?P<y>.+)", "home"),
    (r"(?:(?:now|currently|also|still)\s)?(?:works?|is\sworking|'s\sworking|are\sworking)\s"
     r"(?:(?:now|currently|also|still)\s)?as\s(?:an?\s|the\s)?(?P<y>.+)", "works_as"),
    (r"(?:(?:now|currently|also|still)\s)?(?:works?|is\sworking|'s\sworking|are\sworking)\s"
     r"(?:(?:now|currently|also|still)\s)?(?:at|for)\s(?P<y>.+)", "works_at"),
    (r"(?:(?:has|'s)\s)?(?:just\s)?turned\s(?P<y>\d{1,3})(?P<unit>\s(?:years?|months?|weeks?)"
     r"(?:\sold)?)?", "age"),
    (r"(?:is|'s|are)\s(?:now\s|only\s|just\s)?(?P<y>\d{1,3})(?P<unit>\s(?:years?|months?|weeks?)"
     r"(?:\sold)?|\sy/?o)?", "age"),
    (r"(?:is|are|'s|'re)\s(?:(?:now|currently|also|still|actually)\s)?(?:an?|the)\s(?P<y>.+)",
     "job"),
    (r"(?:(?:now|currently|still|also)\s)?(?:goes\sto|go\sto|attends|attend|is\sat|'s\sat|"
     r"are\sat|'re\sat)\s(?P<y>.+)", "school"),
    (r"(?:(?:now|currently|still|also)\s)?(?:studies|study|is\sstudying|'s\sstudying|"
     r"are\sstudying)\s(?P<y>.+)", "study"),
)]
_TIME_WORDS = re.compile(
    r"(?:\s(?:today|yesterday|this\s(?:year|week|month)|last\s(?:week|month|year)|now|"
    r"already|recently|lol|btw))+$", re.I)


def _about(who: list[str], text: str, context: Context) -> Found:
    """What a clause says about ``who`` after the name: "lives in Lisbon and is a chef"."""
    text = re.sub(r"^[ ,]*(?:who's\s|who\sis\s|'s\s)", "is ", text, flags=re.I)
    text = re.sub(r"^[ ,]*(?:who're\s|who\sare\s|'re\s)", "are ", text, flags=re.I)
    text = re.sub(r"^[ ,]*(?:who\s)?", "", text, flags=re.I)
    found: Found = []
    for part in _PREDICATE_SPLIT.split(text.strip(EDGE_JUNK + " ")):
        part = part.strip(EDGE_JUNK + " ")
        for pattern, kind in _PREDICATES:
            match = pattern.fullmatch(_TIME_WORDS.sub("", part) if kind == "age" else part)
            if match is None:
                continue
            if kind == "home":
                found += named_place(who, "home_city", match["y"], context)
            elif kind == "age":
                found += age_of(who, match["y"], match["unit"])
            elif kind == "job":
                found += job_of(who, match["y"], context)
            elif kind == "works_as":
                found += job_of(who, match["y"], context, known_only=False)
            elif kind == "works_at":
                found += employment_of(who, match["y"], context)
            elif kind == "school":
                found += school_of(who, "school", match["y"], context)
            else:
                found += study_of(who, match["y"], context)
            break
    return found


@rule("relation", r"(?:my|our)\s" + _CLOSE_RE + r"(?P<rest>.*)")
def relation(match: re.Match[str], context: Context) -> Found:
    """ "my sister Priya lives in Lisbon", "my husband is a chef", "our dog Biscuit"."""
    rest = match["rest"]
    if rest.startswith("'"):
        return []   # "my sister's name is ...": the possessive rules
    who = _close_words(match["rel"])
    plural = _is_plural(who)
    title_case = all(word[0].isupper() for word in re.findall(r"[^\W\d_]+", match.group()))
    names, after = ("", rest) if title_case else _names_at(rest, plural=plural)
    found = [fact_about(who, "names" if plural else "name", value=names)] if names else []
    return found + _about(who, after, context)


@rule("has_relation", r"(?:i|we)(?:\shave|\shave\sgot|'ve\sgot|'ve|\sgot)\s" + _COUNT + r"\s"
      + _CLOSE_RE + r"(?P<rest>.*)")
def has_relation(match: re.Match[str], context: Context) -> Found:
    """ "I have two kids, Ana and Leo", "I have a cat named Miso"."""
    return _counted(match, context)


@rule("has_relation", r"(?:i|we)(?:'ve|\shave)?\s(?:(?:just|recently|finally|also)\s)?"
      r"(?:adopted|rescued|got|brought\shome|took\sin|welcomed)\s" + _COUNT
      + r"\s(?:(?:new|little|rescue)\s)?" + _CLOSE_RE + r"(?P<rest>.*)")
def adopted(match: re.Match[str], context: Context) -> Found:
    """ "we adopted a greyhound called Bolt"."""
    return _counted(match, context)


def _counted(match: re.Match[str], context: Context) -> Found:
    who = _close_words(match["rel"])
    count = match["count"].lower()
    number = int(count) if count.isdigit() else vocab.NUMBERS.get(count, 0)
    plural = number > 1 or _is_plural(who)
    lead = re.match(r"[ ,]*(?:[:-]\s?)?(?:(?:who(?:'s|\sis)|which\sis)\s)?(?P<called>(?:called|"
                    r"named)\s)?", match["rest"], re.I)
    assert lead is not None
    names, after = _names_at(match["rest"][lead.end():], plural=plural,
                             lowercase_ok=bool(lead["called"]))
    found: Found = []
    if number > 1:
        found.append(fact_about(["number", "of"], *who, value=count))
    if names:
        found.append(fact_about(who, "names" if plural else "name", value=names))
        found += _about(who, after, context)
    return found


@rule("married_to", I_AM + r"\s(?:(?:now|happily|also|newly)\s)?(?P<verb>married|engaged)\s"
      r"to\s(?P<y>.+)")
def married_to(match: re.Match[str], context: Context) -> Found:
    names, _ = _names_at(match["y"], plural=False, lowercase_ok=not context.cased)
    key = "spouse_name" if match["verb"].lower() == "married" else "fiance_name"
    return [(key, names, "personal")] if names else []
