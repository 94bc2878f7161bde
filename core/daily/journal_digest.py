"""The weekly journal digest: the week's entries, with a short summary the configured model
writes when one is there.

The entries are the digest; the summary is a reading aid on top of them. So the entries are
always returned, and the summary is None, with the reason in one sentence, when there is no
model, the model cannot be reached, or its answer is unusable (empty, not JSON, too long,
after one retry: ``core.llm.structured``); the reason is logged too. Nothing is stored: a
digest is asked for when the user opens the week, and the week's entries may still change.
Why not at night, like the entries' titles: a digest is read at most a few times a week, and
one made ahead would be stale as soon as an entry is written or edited.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from core.daily import when
from core.llm.prompts import load_prompt
from core.llm.protocol import CancelToken, LLMCancelled, LLMProvider, Message
from core.llm.structured import CANCELLED, ask_structured
from core.storage.orm import JournalEntry

log = logging.getLogger(__name__)

MAX_SUMMARY = 1_500
SHOWN_CHARS = 12_000
"""Of the week's entries shown to the model (the newest are cut when a week is longer)."""
SUMMARY_MAX_TOKENS = 500


class WeekSummary(BaseModel):
    summary: str = Field(min_length=1, max_length=MAX_SUMMARY)


@dataclass(frozen=True)
class Summary:
    """The model's summary (None when there is none) and, then, why not."""

    text: str | None
    why_not: str | None = None


def summarise(entries: Sequence[JournalEntry], provider: LLMProvider | None, *,
              zone: str | None = None, cancel: CancelToken | None = None) -> Summary:
    """A short summary of ``entries`` (oldest first) by ``provider``; never raises for the
    model's failures (see the module docstring), only for a cancel."""
    if not entries:
        return Summary(None, "There are no entries in the last seven days.")
    if provider is None:
        return Summary(None, "No model is set up, so the week is listed without a summary.")
    outcome = ask_structured(provider, [
        Message("system", load_prompt("journal_week")),
        Message("user", f"<entries>\n{_shown(entries, zone)}\n</entries>")],
        WeekSummary, max_tokens=SUMMARY_MAX_TOKENS, cancel=cancel)
    if outcome.error == CANCELLED:
        raise LLMCancelled("The weekly summary was cancelled.", "The entries are listed.")
    if outcome.value is None or not outcome.value.summary.strip():
        why = (f"The model could not be reached ({outcome.failure.message.rstrip('.')})"
               if outcome.failure is not None else
               f"The model's summary was not usable ({outcome.error or 'empty'})")
        log.warning("Weekly journal digest without a summary: %s",
                    "the model could not be reached" if outcome.failure is not None
                    else "the model's summary was not usable")
        return Summary(None, f"{why}, so the week is listed without one.")
    return Summary(outcome.value.summary.strip())


def _shown(entries: Sequence[JournalEntry], zone: str | None) -> str:
    parts, used = [], 0
    for entry in entries:
        local = entry.created_at.astimezone(when.zone(zone))
        title = f" — {entry.title}" if entry.title else ""
        part = f"[{local:%A %d %B}{title}]\n{entry.content.strip()}\n"
        if used + len(part) > SHOWN_CHARS:
            part = part[:max(0, SHOWN_CHARS - used)]
        parts.append(part)
        used += len(part)
        if used >= SHOWN_CHARS:
            break
    return "\n".join(parts)
