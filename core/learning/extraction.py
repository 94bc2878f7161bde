"""Fact extraction after every exchange: deterministic rules first, then the model.

Rules catch explicit statements ("my sister's name is Ines", "I moved to Lisbon", "no, it's
Ana") with no model at all, so even the tiny embedded model never misses them. The model
then looks for the rest, through a bounded schema. Because small models invent things, a
model-proposed fact is kept only if it is *grounded*: every content word of its value
appears in the user's own message. Rule facts win over model facts for the same key.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass

from core.errors import InvalidInputError
from core.facts import normalise_key
from core.learning.explicit_facts import extract_explicit_facts
from core.learning.schemas import FACT_EXTRACTION_MAX_TOKENS, FactExtraction
from core.llm import LLMProvider, Message
from core.llm.structured import ask_structured
from core.prompts import load_prompt

log = logging.getLogger(__name__)

MAX_EXCHANGE_CHARS = 1000
"""Each side of the exchange is capped before it goes to the model (000)."""


@dataclass(frozen=True)
class FactCandidate:
    """A fact proposed for ``FactService.remember``."""

    key: str
    value: str
    category: str
    source: str  # "user" (explicit rule) or "agent" (model extraction)
    rule: str | None = None
    is_correction: bool = False


def _words(text: str) -> set[str]:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return {w for w in re.findall(r"\w+", folded) if len(w) >= 3 or w.isdigit()}


def is_grounded(value: str, user_message: str) -> bool:
    """True when every content word of ``value`` occurs in what the user wrote."""
    wanted = _words(value)
    return bool(wanted) and wanted <= _words(user_message)


def rule_facts(user_message: str, last_fact_key: str | None = None) -> list[FactCandidate]:
    return [FactCandidate(f.key, f.value, f.category, "user", f.rule, f.is_correction)
            for f in extract_explicit_facts(user_message, last_fact_key=last_fact_key)]


def model_facts(provider: LLMProvider, user_message: str,
                agent_response: str) -> list[FactCandidate]:
    """Facts the model finds in the exchange, grounded in the user's words; [] on failure."""
    exchange = (f"User: {user_message[:MAX_EXCHANGE_CHARS]}\n"
                f"Assistant: {agent_response[:MAX_EXCHANGE_CHARS]}")
    outcome = ask_structured(
        provider,
        [Message("system", load_prompt("fact_extraction")), Message("user", exchange)],
        FactExtraction, max_tokens=FACT_EXTRACTION_MAX_TOKENS)
    if outcome.value is None:
        log.warning("fact extraction gave no usable output: %s", outcome.error)
        return []
    extraction = outcome.value
    assert isinstance(extraction, FactExtraction)
    kept = []
    for fact in extraction.facts:
        if not is_grounded(fact.value, user_message):
            log.info("dropped ungrounded fact %s=%r", fact.key, fact.value)
            continue
        try:
            key = normalise_key(fact.key)
        except InvalidInputError:
            log.info("dropped a fact with an unusable key %r", fact.key)
            continue
        kept.append(FactCandidate(key, fact.value.strip(), fact.category, "agent"))
    return kept


def merge(rules: list[FactCandidate], model: list[FactCandidate]) -> list[FactCandidate]:
    """Rule facts first; a model fact for a key a rule already set is dropped."""
    taken = {fact.key for fact in rules}
    return rules + [fact for fact in model if fact.key not in taken]
