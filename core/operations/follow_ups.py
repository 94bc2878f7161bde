"""Follow-ups (a table of their own, `follow_ups`): what the user meant to do, and their answers to
it: done (resolve), later (snooze), not wanted (dismiss). Nothing is deleted.

Wraps ``core.knowledge.follow_ups``; a follow-up comes back as ``FollowUp``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage import orm

FOLLOW_UPS = Changes.of(Domain.FOLLOW_UPS)


@dataclass(frozen=True)
class FollowUp:
    """One follow-up. ``status``: "open", "resolved" or "dismissed"."""

    id: int
    text: str
    context: str
    status: str
    follow_up_at: datetime | None
    last_followed_up_at: datetime | None
    created_at: datetime
    updated_at: datetime


def _follow_up(row: orm.FollowUp) -> FollowUp:
    return FollowUp(row.id, row.text, row.context, row.status, row.follow_up_at,
                    row.last_followed_up_at, row.created_at, row.updated_at)


def list_follow_ups(hearth: Hearth, status: str | None = None) -> tuple[FollowUp, ...]:
    """Follow-ups (of ``status``, if given), soonest first, undated last."""
    return tuple(_follow_up(row) for row in hearth.follow_ups.list(status))


def snooze(hearth: Hearth, follow_up_id: int, until: datetime) -> Done[FollowUp]:
    """Bring an open follow-up up again at ``until`` (an aware time)."""
    return Done(_follow_up(hearth.follow_ups.snooze(follow_up_id, until)), FOLLOW_UPS)


def resolve(hearth: Hearth, follow_up_id: int) -> Done[FollowUp]:
    """The user did it: it is not brought up again."""
    return Done(_follow_up(hearth.follow_ups.resolve(follow_up_id)), FOLLOW_UPS)


def dismiss(hearth: Hearth, follow_up_id: int) -> Done[FollowUp]:
    """Not wanted: never brought up, kept listed as dismissed."""
    return Done(_follow_up(hearth.follow_ups.dismiss(follow_up_id)), FOLLOW_UPS)
