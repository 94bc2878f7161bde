"""The rule machinery every family of rules shares: what a rule finds (``ExplicitFact``),
how a clause is read (``Context``), a rule itself (``Rule``, made with ``rule``), the pieces
of patterns several families use, and the category a fact key belongs to.

A rule is a pattern anchored at the start of a clause and a builder that turns its match
into (key, value, category) triples; an empty list means "not mine", and the next rule in
``RULES`` (``core.learning.explicit_facts.rules``) is tried."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from core.knowledge.facts import normalise_key
from core.learning import vocabulary as vocab
from core.learning.explicit_facts.values import key_of


@dataclass(frozen=True)
class ExplicitFact:
    """A fact the user stated, found by ``rule``; ``category`` is one of
    ``core.knowledge.facts.CATEGORIES``. ``rule`` is prefixed ``remember_that:`` when the user asked
    for it to be remembered (a plain ``remember_that`` is a statement kept as written)."""

    key: str
    value: str
    category: str
    rule: str
    is_correction: bool = False


@dataclass(frozen=True)
class Context:
    """How a clause is read: inside "remember that" (explicit) and/or as a correction."""

    explicit: bool
    correction: bool
    last_key: str | None
    cased: bool = True   # the message uses capitals, so a name or place without one is not
    as_written: bool = True   # an explicit clause no rule reads is kept as written: not
    # after "note:", which asks for a note (core.daily.explicit), not for a fact


Found = list[tuple[str, str, str]]   # (key, value, category)
Builder = Callable[[re.Match[str], Context], Found]


@dataclass(frozen=True)
class Rule:
    name: str
    pattern: re.Pattern[str]
    build: Builder
    corrects: bool   # what it finds is always a correction of the last fact


def rule(name: str, pattern: str, *, corrects: bool = False) -> Callable[[Builder], Rule]:
    """Make ``build`` the rule ``name``, for clauses matching ``pattern`` (anchored); it is
    tried where ``RULES`` lists it."""
    def make(build: Builder) -> Rule:
        return Rule(name, re.compile(pattern + r"$", re.I), build, corrects)
    return make


I_AM = r"(?:i'm|im|i\s+am)"


def alternation(words: frozenset[str]) -> str:
    """A regex alternative for each word list entry, longest first; "half-sister" also
    matches "half sister" and "halfsister"."""
    def one(word: str) -> str:
        return r"\s".join(re.escape(part).replace(r"\-", "[- ]?") for part in word.split())
    return "|".join(one(word) for word in sorted(words, key=len, reverse=True))


def fact_about(who: list[str], *attribute: str, value: str) -> tuple[str, str, str]:
    key = key_of(*who, *attribute)
    return key, value, category_for_key(key)


# --- categories -------------------------------------------------------------------------

def category_for_key(key: str) -> str:
    """The category a fact key most likely belongs to (``"general"`` when unsure)."""
    words = key.split("_")
    if words[0] in ("favourite", "favorite", "prefers", "likes", "dislikes"):
        return "preference"
    if _about_someone_close(words):
        return "personal"   # sister_home_city, dog_name, number_of_kids
    for size in (2, 1):
        head = " ".join(words[-size:])
        if head in HEAD_CATEGORY:
            return HEAD_CATEGORY[head]
    return "general"


HEAD_CATEGORY: dict[str, str] = {
    **dict.fromkeys(("name", "names", "nickname", "birthday", "birthdate", "age", "pronouns",
                     "email", "phone", "number", "anniversary", "username", "handle",
                     "nationality", "star sign"), "personal"),
    **dict.fromkeys(("city", "hometown", "town", "country", "address", "postcode", "zip",
                     "zip code", "neighbourhood", "neighborhood", "timezone", "time zone",
                     "home"), "location"),
    **dict.fromkeys(("job", "title", "job title", "role", "employer", "company",
                     "profession", "occupation", "boss", "manager", "team"), "work"),
    **dict.fromkeys(("colour", "color", "food", "drink", "dish", "cuisine", "movie", "film",
                     "book", "band", "song", "artist", "genre", "sport", "game", "season"),
                    "preference"),
    **dict.fromkeys(("allergy", "allergies", "diet", "blood type", "medication",
                     "medications", "restrictions", "dietary restrictions", "doctor",
                     "dentist", "gp"), "health"),
    **dict.fromkeys(("origin", "birthplace", "home city"), "location"),
    **dict.fromkeys(("birth year", "spouse name", "fiance name"), "personal"),
    **dict.fromkeys(("school", "university", "college", "alma mater", "degree", "study",
                     "major"), "work"),
}
ATTRIBUTE_WORDS: frozenset[str] = frozenset(
    word for head in HEAD_CATEGORY for word in head.split())
"""The words that name an attribute in a fact key ("home", "city", "name", "employer")."""

_CLOSE_KEYS = frozenset(normalise_key(word) for word in (
    vocab.RELATIONS | vocab.RELATIONS_PLURAL | vocab.PETS_PLURAL | {
        "dog", "cat", "puppy", "kitten", "hamster", "rabbit", "bunny", "guinea pig", "parrot",
        "budgie", "tortoise", "turtle", "snake", "lizard", "gecko", "horse", "pony",
        "goldfish", "ferret", "rat", "chinchilla", "hedgehog", "greyhound", "labrador"}))
"""Key prefixes that say a fact is about someone close: "sister", "guinea_pig"."""
_MODIFIER_KEYS = frozenset(vocab.RELATION_MODIFIERS)


def _about_someone_close(words: list[str]) -> bool:
    """Is a key about a person or pet close to the user ("sister_home_city",
    "older_brother_name", "number_of_kids")?"""
    counted = words[:2] == ["number", "of"]
    words = words[2:] if counted else words
    if words and words[0] in _MODIFIER_KEYS:
        words = words[1:]
    return any("_".join(words[:size]) in _CLOSE_KEYS
               for size in (3, 2, 1) if len(words) > size or (counted and len(words) == size))
