"""Enrich (dream stage 0.6): memories without entities get their people, places, topics.

A valid, current memory whose ``entities`` is empty is shown to the LLM in a numbered batch
of ``BATCH``; the answer gives each one bounded lists of short names. Every memory the
answer covers is written as ``{"people": [...], "places": [...], "topics": [...]}``, even
when all three lists are empty: the three keys are the "enriched" mark, so a memory with
nothing to extract is not asked about again. A failed or garbled answer leaves the whole
batch as it was, and a memory the answer skips stays unenriched, for the next run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, field_validator
from sqlalchemy import String, cast, or_, select

from core.consolidation.triage import ask_or_none, check_cancel, report_progress
from core.learning.schemas import plain_text
from core.llm.protocol import CancelToken, LLMProvider, Message
from core.llm.prompts import load_prompt
from core.storage.orm import Memory, utcnow

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices

BATCH = 8
NAMES = 4
NAME_CHARS = 40
MEMORY_CHARS = 300
ENRICH_MAX_TOKENS = 40 + BATCH * 3 * NAMES * (NAME_CHARS // 3 + 3) // 2
"""Half the worst case: most memories name one or two things."""
KEYS = ("people", "places", "topics")

Progress = Callable[[int, int], None]
Name = Field(max_length=NAME_CHARS, pattern=plain_text(NAME_CHARS))


class Entities(BaseModel):
    number: int = Field(ge=1, le=BATCH)
    people: list[str] = Field(default_factory=list, max_length=NAMES)
    places: list[str] = Field(default_factory=list, max_length=NAMES)
    topics: list[str] = Field(default_factory=list, max_length=NAMES)

    @field_validator("people", "places", "topics")
    @classmethod
    def _names(cls, values: list[str]) -> list[str]:
        """Each name once, trimmed, at most ``NAME_CHARS``, no quotes (the grammar's rule,
        enforced here too for providers that ignore patterns)."""
        cleaned: list[str] = []
        for value in values:
            name = " ".join(str(value).replace('"', " ").replace("\\", " ").split())
            if name and name.lower() not in {seen.lower() for seen in cleaned}:
                cleaned.append(name[:NAME_CHARS])
        return cleaned


class EnrichAnswer(BaseModel):
    memories: list[Entities] = Field(default_factory=list, max_length=BATCH)


def run(services: ConsolidationServices, provider: LLMProvider, *, progress: Progress | None = None,
        cancel: CancelToken | None = None) -> dict[str, int]:
    """Enrich every current memory without entities; counts ``memories``, ``enriched``,
    ``with_entities`` (enriched with at least one name) and ``undecided``."""
    with services.storage.read() as session:
        pending = session.execute(
            select(Memory.id, Memory.content).where(
                Memory.is_valid.is_(True), Memory.superseded_by.is_(None),
                or_(Memory.entities.is_(None),
                    cast(Memory.entities, String).in_(["{}", "null"])))
            .order_by(Memory.id)).all()
    counts = {"memories": len(pending), "enriched": 0, "with_entities": 0, "undecided": 0}
    for start in range(0, len(pending), BATCH):
        check_cancel(cancel, "Enriching memories")
        batch = [(row.id, row.content) for row in pending[start:start + BATCH]]
        found = _ask(provider, batch, cancel)
        if found:
            _apply(services, found, counts)
        counts["undecided"] += len(batch) - len(found)
        report_progress(progress, min(start + BATCH, len(pending)), len(pending))
    return counts


def _ask(provider: LLMProvider, batch: Sequence[tuple[int, str]],
         cancel: CancelToken | None) -> dict[int, dict[str, list[str]]]:
    shown = "\n".join(f"{number}. {' '.join(content.split())[:MEMORY_CHARS]}"
                      for number, (_, content) in enumerate(batch, start=1))
    messages = [Message("system", load_prompt("enrich")),
                Message("user", f"<memories>\n{shown}\n</memories>")]
    answer = ask_or_none(provider, messages, EnrichAnswer, ENRICH_MAX_TOKENS, cancel,
                         "Enriching memories")
    if answer is None:
        return {}
    return {batch[item.number - 1][0]: {key: getattr(item, key) for key in KEYS}
            for item in answer.memories if item.number <= len(batch)}


def _apply(services: ConsolidationServices, found: dict[int, dict[str, list[str]]],
           counts: dict[str, int]) -> None:
    """One transaction per batch; a memory given entities meanwhile keeps them."""
    with services.storage.write() as session:
        for memory_id, entities in found.items():
            memory = session.get(Memory, memory_id)
            if memory is None or memory.entities:
                continue
            memory.entities = entities
            memory.updated_at = utcnow()
            counts["enriched"] += 1
            counts["with_entities"] += any(entities.values())
