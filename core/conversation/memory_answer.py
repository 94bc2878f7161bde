"""Answer from memory: the facts that answer a question the user asks about themselves.

Why: a small model given "sister_home_city: Lisbon" in its prompt still answered "Where
does my sister live?" with an invented town. When Hearth knows the answer, the front ends
show it, with where it came from, above the model's phrasing, so the true answer is on
screen whatever the model writes.

Why rules rather than recall's scores: facts are short ("sister job title: nurse"), and
for "Where does my sister live?" fused recall ranked the sister's job first and found
nothing for "Where do I live?". A question is matched to facts the way the explicit-fact
rules name them (``core.learning.explicit_facts``): who it is about (a relation or pet
before the attribute, "sister_home_city"; none for the user's own facts) must be who the
question asks about, and the attribute must be one the question's words ask for ("where …
live" → ``home_city``), or every word of it must be in the question ("favourite colour").
A question about someone else ("Where does Paris lie?") or a statement matches nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.knowledge.facts import FactService
from core.learning.grounding import content_words
from core.learning.vocabulary import PETS, RELATION_MODIFIERS, RELATIONS
from core.storage.orm import UserFact

MAX_ANSWERS = 3

_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|where|when|who|whom|which|how|do|does|did|is|are|am|was|were|have|"
    r"has|can|could|tell me|remind me)\b", re.IGNORECASE)
_ABOUT_ME = re.compile(r"\b(?:my|me|i|mine|i'm|im)\b", re.IGNORECASE)

_CUES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), frozenset(attributes)) for pattern, attributes in (
        (r"\bwhere\b.*\b(?:live|lives|living|based|stay|stays|staying|reside|resides)\b"
         r"|\bhome\b", ("home_city", "home", "lives_in", "city")),
        (r"\bwhere\b.*\bfrom\b|\borigin", ("origin", "hometown", "birthplace")),
        (r"\bgr[eo]w up\b", ("hometown",)),
        (r"\bborn\b|\bbirthday\b|\bhow old\b|\bage\b",
         ("birthplace", "birth_year", "birthday", "age")),
        (r"\bwork|\bjob\b|\bemploy|\bfor a living\b|\boccupation|\bcompany\b",
         ("employer", "job_title", "occupation", "workplace")),
        (r"\ballerg", ("allergies", "allergy", "allergic_to")),
        (r"\bname\b|\bcalled\b|\bcall\b", ("name", "preferred_name", "first_name")),
        (r"\bstud(?:y|ies|ying)\b|\bschool\b|\buniversit|\bcollege\b|\bdegree\b",
         ("school", "field_of_study", "degree", "alma_mater")),
        (r"\bkids?\b|\bchildren\b", ("number_of_kids", "kids_names")),
        (r"\bmarried\b|\bspouse\b", ("spouse_name",)),
        (r"\bdiet\b|\bvegetarian\b|\bvegan\b|\beat\b",
         ("diet", "dietary_restrictions", "doesnt_eat")),
    ))
"""What a question's words ask for, as the attributes the rules key facts by."""

_WHO = sorted({word.replace(" ", "_") for word in RELATIONS | PETS}, key=len, reverse=True)
_MODIFIERS = tuple(f"{word}_" for word in RELATION_MODIFIERS)
_SOURCE_WORDS = {"user": "you told me", "agent": "learned from a chat",
                 "reflection": "from Hearth's reflection", "import": "from an import"}


@dataclass(frozen=True)
class KnownAnswer:
    """A fact that answers the question, in plain words, with where it came from."""

    fact_id: int
    key: str
    what: str
    """``Your sister's home city``."""
    value: str
    source: str
    """``you told me on 3 May 2026``."""


def is_question_about_user(text: str) -> bool:
    """A question ("…?", or one starting with a question word) that speaks of the user."""
    return bool(_QUESTION.search(text)) and bool(_ABOUT_ME.search(text))


def answers(facts: FactService, question: str) -> list[KnownAnswer]:
    """The facts that answer ``question`` (at most ``MAX_ANSWERS``), or [] when it is not a
    question about the user or nothing known answers it."""
    if not is_question_about_user(question):
        return []
    asked_about = _asked_about(question)
    wanted = frozenset().union(*(attributes for cue, attributes in _CUES
                                 if cue.search(question)))
    words = _stems(question)
    found = [fact for fact in facts.list()
             if _matches(fact.key, asked_about, wanted, words)]
    return [_answer(fact) for fact in found[:MAX_ANSWERS]]


def plain_key(key: str) -> str:
    """``sister_home_city`` → ``Your sister's home city``; ``allergies`` → ``Your
    allergies``."""
    who, attribute = split_key(key)
    if who is None:
        return f"Your {attribute.replace('_', ' ')}"
    return f"Your {who.replace('_', ' ')}'s {attribute.replace('_', ' ')}"


def split_key(key: str) -> tuple[str | None, str]:
    """Who a fact is about (a relation or pet, with its modifier: ``older_sister``) and
    its attribute; None for the user's own facts."""
    rest, modifier = key, ""
    for prefix in _MODIFIERS:
        if rest.startswith(prefix):
            rest, modifier = rest[len(prefix):], prefix
            break
    for who in _WHO:
        if rest.startswith(f"{who}_") and len(rest) > len(who) + 1:
            return f"{modifier}{who}", rest[len(who) + 1:]
    return None, key


def _asked_about(question: str) -> str | None:
    """The relation or pet the question names after "my" ("my older sister"), if any."""
    lowered = " ".join(question.casefold().replace("'s", " ").split())
    for who in _WHO:
        spoken = who.replace("_", " ")
        found = re.search(rf"\bmy (?:(\w+) )?{re.escape(spoken)}\b", lowered)
        if found:
            modifier = found.group(1)
            if modifier in RELATION_MODIFIERS:
                return f"{modifier}_{who}"
            return who
    return None


def _matches(key: str, asked_about: str | None, wanted: frozenset[str],
             words: frozenset[str]) -> bool:
    who, attribute = split_key(key)
    if who != asked_about:
        return False
    if attribute in wanted or _stems(attribute.replace("_", " ")) <= words:
        return True
    return asked_about is not None and not wanted  # "tell me about my sister"


def _stems(text: str) -> frozenset[str]:
    return frozenset(word.rstrip("s") for word in content_words(text))


def _answer(fact: UserFact) -> KnownAnswer:
    said = _SOURCE_WORDS.get(fact.source, f"from {fact.source}")
    return KnownAnswer(fact.id, fact.key, plain_key(fact.key), fact.value,
                       f"{said} on {fact.updated_at:%-d %b %Y}")
