"""Pending follow_ups: soft commitments the user made ("I should call the dentist").

The reflection finds them and gives each a ``follow_up_at`` some days ahead; when that time
has come the follow-up is *due*, and Hearth may bring it up. Bringing things up is rationed:
``follow_ups`` hands out at most ``settings.follow_ups_per_day`` due follow-ups per
local day, each at most once a day, and stamps ``last_followed_up_at`` so a restart does
not repeat them. The user answers with snooze (a new ``follow_up_at``), resolve (done) or
dismiss (not wanted); nothing is deleted, so "what did I mean to do?" stays answerable.

Statuses: ``open`` (snoozing keeps it open with a later date), ``resolved``, ``dismissed``.
"""

from __future__ import annotations

import builtins
from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.config import Settings
from core.errors import InvalidInputError
from core.storage.orm import AuditEntry, FollowUp, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

STATUSES: tuple[str, ...] = ("open", "resolved", "dismissed")
MAX_TEXT_CHARS = 300
MAX_CONTEXT_CHARS = 1000
_CLOSING_STATUS = {"resolve": "resolved", "dismiss": "dismissed"}


def _local_day(moment: datetime) -> date:
    """The user's calendar day at ``moment``: "once a day" means the user's day, not UTC's."""
    return moment.astimezone().date()


class FollowUpService:
    """Add, list and answer follow_ups; ration the follow-ups."""

    def __init__(self, storage: StoragePort, settings: Settings) -> None:
        self._storage = storage
        self._settings = settings

    def add(self, text: str, *, context: str = "", follow_up_at: datetime | None = None
            ) -> tuple[FollowUp, bool]:
        """Store an open follow-up; returns it and whether it is new. An open follow-up
        with the same text (ignoring case and spacing) is returned instead of a twin,
        because reflection sees the same commitment mentioned on several days."""
        text = " ".join(text.split())
        if not text:
            raise InvalidInputError("A follow-up needs a text.", "Say what you meant to do.")
        if len(text) > MAX_TEXT_CHARS:
            raise InvalidInputError(f"The follow-up is {len(text)} characters long.",
                                    f"Keep it under {MAX_TEXT_CHARS} characters.")
        with self._storage.write() as session:
            twin = session.scalars(select(FollowUp).where(
                FollowUp.status == "open",
                func.lower(FollowUp.text) == text.lower())).first()
            if twin is not None:
                session.expunge(twin)
                return twin, False
            follow_up = FollowUp(text=text, context=context.strip()[:MAX_CONTEXT_CHARS],
                                         follow_up_at=follow_up_at)
            session.add(follow_up)
            session.flush()
            session.expunge(follow_up)
        return follow_up, True

    def get(self, follow_up_id: int) -> FollowUp:
        with self._storage.read() as session:
            follow_up = self._find(session, follow_up_id)
            session.expunge(follow_up)
        return follow_up

    def list(self, status: str | None = None) -> builtins.list[FollowUp]:
        """Follow-ups (of one status, or all), soonest follow-up first, undated last."""
        if status is not None and status not in STATUSES:
            raise InvalidInputError(f"{status!r} is not a follow-up status.",
                                    f"Use one of: {', '.join(STATUSES)}.")
        query = select(FollowUp).order_by(
            FollowUp.follow_up_at.is_(None), FollowUp.follow_up_at,
            FollowUp.id)
        if status is not None:
            query = query.where(FollowUp.status == status)
        with self._storage.read() as session:
            rows = builtins.list(session.scalars(query))
            session.expunge_all()
        return rows

    def due(self, now: datetime | None = None) -> builtins.list[FollowUp]:
        """Open follow-ups whose time has come, oldest due first."""
        now = now or utcnow()
        return [item for item in self.list("open")
                if item.follow_up_at is not None and item.follow_up_at <= now]

    def to_deliver(self, now: datetime | None = None) -> builtins.list[FollowUp]:
        """The due follow-ups to bring up now, marked as followed up.

        At most ``follow_ups_per_day`` per local day, counting those already
        followed up earlier that day, and none twice on one day. Read and mark happen in
        one write transaction, so two callers cannot hand out the same day's quota twice;
        a read first skips that write lock when nothing is due (delivery asks every minute).
        """
        now = now or utcnow()
        today = _local_day(now)
        with self._storage.read() as session:  # most calls (a minute's delivery) find none
            waiting = session.scalars(select(FollowUp.last_followed_up_at).where(
                FollowUp.status == "open", FollowUp.follow_up_at <= now))
            if not any(last is None or _local_day(last) != today for last in waiting):
                return []
        with self._storage.write() as session:
            rows = builtins.list(session.scalars(select(FollowUp).where(
                FollowUp.status == "open").order_by(
                FollowUp.follow_up_at, FollowUp.id)))
            done_today = [row for row in rows if row.last_followed_up_at is not None
                          and _local_day(row.last_followed_up_at) == today]
            room = max(0, self._settings.follow_ups_per_day - len(done_today))
            chosen = [row for row in rows
                      if row.follow_up_at is not None and row.follow_up_at <= now
                      and row not in done_today][:room]
            for row in chosen:
                row.last_followed_up_at = now
            session.flush()
            session.expunge_all()
        return chosen

    def snooze(self, follow_up_id: int, until: datetime) -> FollowUp:
        """Bring an open follow-up up again at ``until`` instead of now."""
        if until.tzinfo is None:
            raise InvalidInputError("A snooze time needs a time zone.",
                                    "Pass an aware datetime.")
        return self._change(follow_up_id, "snooze", until=until)

    def resolve(self, follow_up_id: int) -> FollowUp:
        """The user did it."""
        return self._change(follow_up_id, "resolve")

    def dismiss(self, follow_up_id: int) -> FollowUp:
        """The user does not want it followed up (kept, not deleted)."""
        return self._change(follow_up_id, "dismiss")

    def _change(self, follow_up_id: int, action: str,
                until: datetime | None = None) -> FollowUp:
        with self._storage.write() as session:
            follow_up = self._find(session, follow_up_id)
            if follow_up.status != "open":
                raise InvalidInputError(
                    f"Follow-up {follow_up_id} is already {follow_up.status}.",
                    "Only open follow-ups can be snoozed, resolved or dismissed.")
            if until is not None:
                follow_up.follow_up_at = until
            else:
                follow_up.status = _CLOSING_STATUS[action]
            follow_up.updated_at = utcnow()
            session.add(AuditEntry(action=f"follow_up.{action}",
                                   actor="user", arguments={"id": follow_up_id},
                                   result_summary=follow_up.status))
            session.flush()
            session.expunge(follow_up)
        return follow_up

    @staticmethod
    def _find(session: Session, follow_up_id: int) -> FollowUp:
        return require(session, FollowUp, follow_up_id,
                       f"There is no follow-up {follow_up_id}.",
                       "List them with `hearth follow_ups`.")
