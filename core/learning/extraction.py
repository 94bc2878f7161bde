"""Fact extraction after every exchange: deterministic rules first, then the model.

Rules catch explicit statements ("my sister's name is Ines", "I moved to Lisbon", "no, it's
Ana") with no model at all, so even the tiny embedded model never misses them. The model
then looks for the rest, through a bounded schema. It sees the assistant's reply too (it
helps to read "Lisbon" as the answer to "where do you live?"), but a model-proposed fact is
kept only if it is *grounded* in the user's own message: every content word of its value
appears there, and who the key is about ("brother" in ``brother_name``) is not something
only the assistant said (``core.learning.grounding``). So small models can neither invent a
fact nor turn the assistant's words into one. Rule facts win over model facts for the same
key.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from core.errors import InvalidInputError
from core.knowledge.facts import normalise_key
from core.learning.explicit_facts import extract_explicit_facts
from core.learning.grounding import Said, is_grounded
from core.learning.schemas import FACT_EXTRACTION_MAX_TOKENS, FactExtraction
from core.log_privacy import quoted
from core.llm import CancelToken, LLMCancelled, LLMProvider, Message
from core.llm.structured import CANCELLED, ask_structured
from core.llm.prompts import load_prompt

__all__ = ["FactCandidate", "extract_model_facts", "is_grounded", "merge", "model_facts",
           "rule_facts"]

log = logging.getLogger(__name__)

MAX_EXCHANGE_CHARS = 1000
"""Each side of the exchange is capped before it goes to the model."""


@dataclass(frozen=True)
class FactCandidate:
    """A fact proposed for ``FactService.remember``."""

    key: str
    value: str
    category: str
    source: str  # "user" (explicit rule) or "agent" (model extraction)
    rule: str | None = None
    is_correction: bool = False


def rule_facts(user_message: str, last_fact_key: str | None = None) -> list[FactCandidate]:
    return [FactCandidate(f.key, f.value, f.category, "user", f.rule, f.is_correction)
            for f in extract_explicit_facts(user_message, last_fact_key=last_fact_key)]


def model_facts(provider: LLMProvider, user_message: str,
                agent_response: str) -> list[FactCandidate]:
    """Facts the model finds in the exchange, grounded in the user's words; [] on failure."""
    return extract_model_facts(provider, user_message, agent_response)[0]


def extract_model_facts(provider: LLMProvider, user_message: str, agent_response: str, *,
                        cancel: CancelToken | None = None) -> tuple[list[FactCandidate], int]:
    """The grounded facts the model finds, and how many it proposed that were not the
    user's (a value not in the user's words, a key about someone only the assistant named).
    The model is shown the reply as context; only the user's message can ground a fact.
    Raises ``LLMCancelled`` when ``cancel`` stopped the request (Hearth is quitting: the
    exchange is learned from again at the next start), unlike a failure, which is final."""
    exchange = (f"User: {user_message[:MAX_EXCHANGE_CHARS]}\n"
                f"Assistant: {agent_response[:MAX_EXCHANGE_CHARS]}")
    outcome = ask_structured(
        provider,
        [Message("system", load_prompt("fact_extraction")), Message("user", exchange)],
        FactExtraction, max_tokens=FACT_EXTRACTION_MAX_TOKENS, cancel=cancel)
    if outcome.error == CANCELLED:
        raise LLMCancelled("Fact extraction was cancelled.", "It runs again at the next start.")
    if outcome.value is None:
        log.warning("fact extraction gave no usable output: %s", outcome.problem)
        return [], 0
    extraction = outcome.value
    assert isinstance(extraction, FactExtraction)
    said = Said.of(user_message, agent_response)
    kept, ungrounded = [], 0
    for fact in extraction.facts:
        if not is_grounded(fact.value, user_message):
            log.info("dropped an ungrounded fact (a value of %d characters)", len(fact.value))
            ungrounded += 1
            continue
        if not said.key_is_users_own(fact.key):
            log.info("dropped a fact whose key rests on the assistant's words")
            ungrounded += 1
            continue
        try:
            key = normalise_key(fact.key)
        except InvalidInputError:
            log.info("dropped a fact with an unusable key %r", quoted(fact.key))
            continue
        kept.append(FactCandidate(key, fact.value.strip(), fact.category, "agent"))
    return kept, ungrounded


def merge(rules: list[FactCandidate], model: list[FactCandidate]) -> list[FactCandidate]:
    """Rule facts first; a model fact for a key a rule already set is dropped."""
    taken = {fact.key for fact in rules}
    return rules + [fact for fact in model if fact.key not in taken]
