"""Pending intentions: soft commitments the user made ("I should call the dentist").

The reflection finds them and gives each a ``follow_up_at`` some days ahead; when that time
has come the intention is *due*, and Hearth may bring it up. Bringing things up is rationed:
``follow_ups`` hands out at most ``settings.intention_followups_per_day`` due intentions per
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
from core.storage.orm import AuditEntry, PendingIntention, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

STATUSES: tuple[str, ...] = ("open", "resolved", "dismissed")
MAX_TEXT_CHARS = 300
MAX_CONTEXT_CHARS = 1000
_CLOSING_STATUS = {"resolve": "resolved", "dismiss": "dismissed"}


def _local_day(moment: datetime) -> date:
    """The user's calendar day at ``moment``: "once a day" means the user's day, not UTC's."""
    return moment.astimezone().date()


class IntentionService:
    """Add, list and answer intentions; ration the follow-ups."""

    def __init__(self, storage: StoragePort, settings: Settings) -> None:
        self._storage = storage
        self._settings = settings

    def add(self, text: str, *, context: str = "", follow_up_at: datetime | None = None
            ) -> tuple[PendingIntention, bool]:
        """Store an open intention; returns it and whether it is new. An open intention
        with the same text (ignoring case and spacing) is returned instead of a twin,
        because reflection sees the same commitment mentioned on several days."""
        text = " ".join(text.split())
        if not text:
            raise InvalidInputError("An intention needs a text.", "Say what you meant to do.")
        if len(text) > MAX_TEXT_CHARS:
            raise InvalidInputError(f"The intention is {len(text)} characters long.",
                                    f"Keep it under {MAX_TEXT_CHARS} characters.")
        with self._storage.write() as session:
            twin = session.scalars(select(PendingIntention).where(
                PendingIntention.status == "open",
                func.lower(PendingIntention.text) == text.lower())).first()
            if twin is not None:
                session.expunge(twin)
                return twin, False
            intention = PendingIntention(text=text, context=context.strip()[:MAX_CONTEXT_CHARS],
                                         follow_up_at=follow_up_at)
            session.add(intention)
            session.flush()
            session.expunge(intention)
        return intention, True

    def get(self, intention_id: int) -> PendingIntention:
        with self._storage.read() as session:
            intention = self._find(session, intention_id)
            session.expunge(intention)
        return intention

    def list(self, status: str | None = None) -> builtins.list[PendingIntention]:
        """Intentions (of one status, or all), soonest follow-up first, undated last."""
        if status is not None and status not in STATUSES:
            raise InvalidInputError(f"{status!r} is not an intention status.",
                                    f"Use one of: {', '.join(STATUSES)}.")
        query = select(PendingIntention).order_by(
            PendingIntention.follow_up_at.is_(None), PendingIntention.follow_up_at,
            PendingIntention.id)
        if status is not None:
            query = query.where(PendingIntention.status == status)
        with self._storage.read() as session:
            rows = builtins.list(session.scalars(query))
            session.expunge_all()
        return rows

    def due(self, now: datetime | None = None) -> builtins.list[PendingIntention]:
        """Open intentions whose follow-up time has come, oldest due first."""
        now = now or utcnow()
        return [item for item in self.list("open")
                if item.follow_up_at is not None and item.follow_up_at <= now]

    def follow_ups(self, now: datetime | None = None) -> builtins.list[PendingIntention]:
        """The due intentions to bring up now, marked as followed up.

        At most ``intention_followups_per_day`` per local day, counting those already
        followed up earlier that day, and none twice on one day. Read and mark happen in
        one write transaction, so two callers cannot hand out the same day's quota twice;
        a read first skips that write lock when nothing is due (delivery asks every minute).
        """
        now = now or utcnow()
        today = _local_day(now)
        with self._storage.read() as session:  # most calls (a minute's delivery) find none
            waiting = session.scalars(select(PendingIntention.last_followed_up_at).where(
                PendingIntention.status == "open", PendingIntention.follow_up_at <= now))
            if not any(last is None or _local_day(last) != today for last in waiting):
                return []
        with self._storage.write() as session:
            rows = builtins.list(session.scalars(select(PendingIntention).where(
                PendingIntention.status == "open").order_by(
                PendingIntention.follow_up_at, PendingIntention.id)))
            done_today = [row for row in rows if row.last_followed_up_at is not None
                          and _local_day(row.last_followed_up_at) == today]
            room = max(0, self._settings.intention_followups_per_day - len(done_today))
            chosen = [row for row in rows
                      if row.follow_up_at is not None and row.follow_up_at <= now
                      and row not in done_today][:room]
            for row in chosen:
                row.last_followed_up_at = now
            session.flush()
            session.expunge_all()
        return chosen

    def snooze(self, intention_id: int, until: datetime) -> PendingIntention:
        """Bring an open intention up again at ``until`` instead of now."""
        if until.tzinfo is None:
            raise InvalidInputError("A snooze time needs a time zone.",
                                    "Pass an aware datetime.")
        return self._change(intention_id, "snooze", until=until)

    def resolve(self, intention_id: int) -> PendingIntention:
        """The user did it."""
        return self._change(intention_id, "resolve")

    def dismiss(self, intention_id: int) -> PendingIntention:
        """The user does not want it followed up (kept, not deleted)."""
        return self._change(intention_id, "dismiss")

    def _change(self, intention_id: int, action: str,
                until: datetime | None = None) -> PendingIntention:
        with self._storage.write() as session:
            intention = self._find(session, intention_id)
            if intention.status != "open":
                raise InvalidInputError(
                    f"Intention {intention_id} is already {intention.status}.",
                    "Only open intentions can be snoozed, resolved or dismissed.")
            if until is not None:
                intention.follow_up_at = until
            else:
                intention.status = _CLOSING_STATUS[action]
            intention.updated_at = utcnow()
            session.add(AuditEntry(action=f"intention.{action}",
                                   actor="user", arguments={"id": intention_id},
                                   result_summary=intention.status))
            session.flush()
            session.expunge(intention)
        return intention

    @staticmethod
    def _find(session: Session, intention_id: int) -> PendingIntention:
        return require(session, PendingIntention, intention_id,
                       f"There is no intention {intention_id}.",
                       "List them with `hearth intentions`.")
