"""The approval gate: the changes a model asked for, and the user's Confirm or Cancel.

Wraps ``core.daily.pending_actions``; a held action comes back as ``PendingItem``. A
confirm reports the domain it changed (a task, a reminder, a note, a scheduled prompt) as
well as the pending list, so the views showing them reload."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from core import clock
from core.app import Hearth
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import PendingAction

PENDING = Changes.of(Domain.PENDING)
ACTION_DOMAINS = {"task": Domain.TASKS, "reminder": Domain.REMINDERS, "note": Domain.NOTES,
                  "scheduled_prompt": Domain.SCHEDULE}
"""What an action's first word changes."""


@dataclass(frozen=True)
class PendingItem:
    """One held request. ``status``: "pending", "confirmed", "cancelled" or "expired";
    ``source_message``: the user's message that led to it (what "Edit" sends again);
    ``result``: what applying it did, in words."""

    id: int
    action: str
    preview: str
    source_message: str
    session_id: str | None
    status: str
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None
    result: str | None
    interaction_id: int | None = None
    """The exchange whose message led to it (the chat shows it under that reply)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    """The action's arguments as held (JSON: dates as ISO text), which its form edits."""


def _item(row: PendingAction) -> PendingItem:
    return PendingItem(row.id, row.action, row.preview, row.source_message, row.session_id,
                       row.status, row.created_at, row.expires_at, row.decided_at, row.result,
                       row.interaction_id, dict(row.arguments))


def list_pending(hearth: Hearth, session_id: str | None = None) -> tuple[PendingItem, ...]:
    """The requests still waiting (of one chat, if given), oldest first."""
    return tuple(_item(row) for row in hearth.pending.pending(session_id))


def of_session(hearth: Hearth, session_id: str) -> tuple[PendingItem, ...]:
    """Every request of one chat with its status and outcome, oldest first; one whose 30
    minutes are up reads "expired" (opening a chat writes nothing to say so)."""
    now = clock.now()
    return tuple(replace(item, status="expired")
                 if item.status == "pending" and item.expires_at <= now else item
                 for item in map(_item, hearth.pending.of_session(session_id)))


def confirm(hearth: Hearth, action_id: int, revised: Mapping[str, Any] | None = None
            ) -> Done[PendingItem]:
    """Apply it (once), with the arguments the user ``revised`` in its form if any; an
    expired or answered request, or a revision that cannot apply, is refused in a
    sentence."""
    item = _item(hearth.pending.confirm(action_id, revised))
    changed = ACTION_DOMAINS.get(item.action.split(".")[0])
    return Done(item, PENDING | (Changes.of(changed) if changed else Changes()))


def cancel(hearth: Hearth, action_id: int) -> Done[PendingItem]:
    return Done(_item(hearth.pending.cancel(action_id)), PENDING)
