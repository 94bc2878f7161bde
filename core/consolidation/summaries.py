"""The dream's summaries stage: a title for each untitled journal entry and a summary for
each saved article whose text the user pasted.

Both are the model's work on the user's own writing, done at night rather than while the
user types: a small local model takes seconds per call, and a journal entry or a pasted
article is saved the moment the user asks (``core.daily.journal``, ``core.daily.read_later``)
whether or not a model is running. Nothing here decides what is remembered: a title and a
summary only help the user find their own entries in the Journal and Read later views.

Each result is written only if the field is still empty when the answer arrives (the user
may have typed a title meanwhile: theirs wins), one short transaction per item, so a
cancelled or failed run keeps what it wrote and the next night does the rest. An answer the
model botched (empty, not JSON, too long) leaves the item as it was, counted ``failed``; a
model that is down makes the stage fail without writing anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, Field

from core.consolidation.triage import report_progress
from core.daily import journal, read_later
from core.llm.prompts import load_prompt
from core.llm.protocol import (
    CancelToken,
    LLMCancelled,
    LLMProvider,
    LLMUnavailableError,
    Message,
)
from core.llm.structured import CANCELLED, ask_structured

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices

PER_NIGHT = 50
"""Entries and articles handled per night, each: a backlog (an imported journal) is worked
off over a few nights instead of keeping a slow model busy until morning."""
SHOWN_CHARS = 6_000
"""Of an entry or article shown to the model (the start says what it is about)."""
TITLE_MAX_TOKENS = 60
SUMMARY_MAX_TOKENS = 400


class Titled(BaseModel):
    title: str = Field(min_length=1, max_length=journal.MAX_TITLE)


class Summarised(BaseModel):
    summary: str = Field(min_length=1, max_length=read_later.MAX_SUMMARY)


Answer = TypeVar("Answer", Titled, Summarised)


def run(services: ConsolidationServices, provider: LLMProvider, *,
        progress: Callable[[int, int], None] | None = None,
        cancel: CancelToken | None = None) -> dict[str, int]:
    """Title and summarise what waits; counts ``titled``, ``summarised``, ``failed``."""
    untitled = services.journal.untitled(PER_NIGHT)
    unsummarised = services.read_later.unsummarised(PER_NIGHT)
    counts = {"titled": 0, "summarised": 0, "failed": 0}
    total = len(untitled) + len(unsummarised)
    for done, entry in enumerate(untitled, start=1):
        titled = _ask(provider, "journal_title", entry.content, Titled, TITLE_MAX_TOKENS,
                      cancel, "Titling journal entries")
        if titled is None:
            counts["failed"] += 1
        else:
            counts["titled"] += services.journal.set_title_if_untitled(
                entry.id, _one_line(titled.title))
        report_progress(progress, done, total)
    for done, item in enumerate(unsummarised, start=len(untitled) + 1):
        shown = f"{item.title}\n\n{item.text}" if item.title else item.text
        summarised = _ask(provider, "read_later_summary", shown, Summarised,
                          SUMMARY_MAX_TOKENS, cancel, "Summing up saved reading")
        if summarised is None:
            counts["failed"] += 1
        else:
            counts["summarised"] += services.read_later.set_summary_if_missing(
                item.id, summarised.summary.strip())
        report_progress(progress, done, total)
    return counts


def _ask(provider: LLMProvider, prompt: str, text: str, output: type[Answer], max_tokens: int,
         cancel: CancelToken | None, stage: str) -> Answer | None:
    """The model's answer, or None when it botched it (logged by ``ask_structured``); a
    model that is not there raises, so the stage fails and the next night tries again."""
    messages: Sequence[Message] = [
        Message("system", load_prompt(prompt)),
        Message("user", f"<text>\n{text[:SHOWN_CHARS]}\n</text>")]
    outcome = ask_structured(provider, messages, output, max_tokens=max_tokens, cancel=cancel)
    if outcome.error == CANCELLED:
        raise LLMCancelled(f"{stage} was cancelled.", "The next dream does the rest.")
    if isinstance(outcome.failure, LLMUnavailableError):
        raise outcome.failure
    return outcome.value


def _one_line(title: str) -> str:
    """The title as one line without the quotes small models like to add."""
    return " ".join(title.split()).strip("\"'“”‘’ ")
