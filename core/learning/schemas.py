"""The bounded output shapes the learning pipeline asks models for.

Small local models need tight schemas: every list has ``max_length``, every string a
``max_length``, every choice an enum. The same bounds give the matching ``max_tokens``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FactCategory = Literal["location", "personal", "preference", "work", "health", "general"]


class ExtractedFact(BaseModel):
    model_config = ConfigDict(coerce_numbers_to_str=True)  # "age": 42 is still a fact

    key: str = Field(min_length=1, max_length=60)
    value: str = Field(min_length=1, max_length=200)
    category: FactCategory = "general"


class FactExtraction(BaseModel):
    facts: list[ExtractedFact] = Field(default_factory=list, max_length=5)


class TopicSummary(BaseModel):
    topic: str = Field(min_length=1, max_length=60)
    summary: str = Field(min_length=1, max_length=600)


class MemoryCandidate(BaseModel):
    """A durable memory proposed for consolidation (typed, prioritised, namespaced: 001)."""

    content: str = Field(min_length=1, max_length=300)
    memory_type: Literal["semantic", "episodic", "procedural"] = "semantic"
    priority: Literal["high", "medium", "low"] = "medium"
    namespace: str = Field(default="user", max_length=80)


class SessionDigest(BaseModel):
    summaries: list[TopicSummary] = Field(default_factory=list, max_length=3)
    candidates: list[MemoryCandidate] = Field(default_factory=list, max_length=8)


FACT_EXTRACTION_MAX_TOKENS = 400
SESSION_DIGEST_MAX_TOKENS = 1200
