r"""The bounded output shapes the learning pipeline asks models for.

Small local models need tight schemas: every list has ``max_length``, every choice an enum,
and every free-text string a ``plain_text`` pattern. ``maxLength`` alone does not bound
tokens: measured with SmolLM2-135M, the model sometimes writes every character as a
``\uXXXX`` escape (~4 tokens each) and runs out of ``max_tokens`` mid-JSON; forbidding
quotes, backslashes and control characters in the grammar stopped that (0 of 80 runs cut
off). A ``.`` pattern breaks llama.cpp's own output parser, so the class is spelled out.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

def plain_text(max_chars: int, min_chars: int = 1) -> str:
    """A JSON-schema pattern for one line of text without quotes or backslashes."""
    return rf'^[^"\\\x00-\x1f]{{{min_chars},{max_chars}}}$'


FactCategory = Literal["location", "personal", "preference", "work", "health", "general"]


class ExtractedFact(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True)  # "age": 42 is still a fact

    key: str = Field(min_length=1, max_length=60, pattern=plain_text(60))
    value: str = Field(min_length=1, max_length=200, pattern=plain_text(200))
    category: FactCategory = "general"


class FactExtraction(BaseModel):
    facts: list[ExtractedFact] = Field(default_factory=list, max_length=5)


class TopicSummary(BaseModel):
    topic: str = Field(min_length=1, max_length=60, pattern=plain_text(60))
    summary: str = Field(min_length=1, max_length=600, pattern=plain_text(600))


class MemoryCandidate(BaseModel):
    """A durable memory proposed for consolidation (typed, prioritised, namespaced)."""

    content: str = Field(min_length=1, max_length=300, pattern=plain_text(300))
    memory_type: Literal["semantic", "episodic", "procedural"] = "semantic"
    priority: Literal["high", "medium", "low"] = "medium"
    namespace: str = Field(default="user", max_length=80, pattern=r"^[a-z0-9_/-]{1,80}$")


class SessionDigest(BaseModel):
    summaries: list[TopicSummary] = Field(default_factory=list, max_length=3)
    candidates: list[MemoryCandidate] = Field(default_factory=list, max_length=8)


FACT_EXTRACTION_MAX_TOKENS = 400
SESSION_DIGEST_MAX_TOKENS = 1200
