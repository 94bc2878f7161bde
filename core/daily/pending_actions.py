"""The approval gate: a change a model asks for waits here until the user confirms it.

``hold`` checks the action and its arguments (``core.daily.actions``) and stores it with its
preview, the user's message that led to it (so "Edit" can run the request again) and an
expiry ``EXPIRY`` later. Life cycle: ``pending`` → ``confirmed`` (applied), ``cancelled``
(the user said no) or ``expired`` (nobody answered in time; ``pending()`` and ``expire()``
mark them). ``confirm`` applies the action and records the outcome in one write
transaction, after checking there that it is still pending and unexpired: a second
confirm, or one after expiry, says so and changes nothing, and an action that fails to
apply stays pending (nothing is half done). Every answer is in the audit log
(content-free: ``_audit``).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core import clock
from core.daily import checks
from core.daily.actions import Actions
from core.errors import InvalidInputError
from core.storage.orm import AuditEntry, PendingAction
from core.storage.port import StoragePort
from core.storage.rows import require

EXPIRY = timedelta(minutes=30)
MAX_SOURCE_MESSAGE = 20_000
RESULT_CHARS = 500


def _find(session: Session, action_id: int) -> PendingAction:
    return require(session, PendingAction, action_id, f"There is no pending action {action_id}.",
                   "It may have been answered from another window.")


def _not_pending(row: PendingAction) -> InvalidInputError:
    if row.status == "expired":
        return InvalidInputError(f"The request to {row.preview[:1].lower()}{row.preview[1:]} "
                                 "expired unanswered after 30 minutes, so nothing was done.",
                                 "Ask again if you still want it.")
    return InvalidInputError(f"That request was already {row.status}.",
                             "Nothing more was done.")


def _audit(row: PendingAction) -> AuditEntry:
    """The user's answer, content-free like a tool call's entry: which action, which
    arguments were given (names only), and the answer."""
    return AuditEntry(action=f"pending.{row.action}", actor="user",
                      arguments={"pending_action": row.id, "given": sorted(row.arguments)},
                      result_summary=row.status)


class PendingActionService:
    """Hold, list, confirm, cancel and expire the changes a model asked for."""

    def __init__(self, storage: StoragePort, actions: Actions) -> None:
        self._storage = storage
        self._actions = actions

    def hold(self, action: str, arguments: Mapping[str, Any], *, source_message: str = "",
             session_id: str | None = None, interaction_id: int | None = None
             ) -> PendingAction:
        """Check ``action`` and hold it for the user's answer; refused (one sentence) when
        the action or its arguments cannot be accepted, so no unappliable request waits."""
        cleaned, preview = self._actions.check(action, arguments)
        now = clock.now()
        row = PendingAction(action=action, arguments=cleaned, preview=preview,
                            source_message=checks.body(source_message, "the message",
                                                       MAX_SOURCE_MESSAGE),
                            session_id=session_id, interaction_id=interaction_id,
                            created_at=now, expires_at=now + EXPIRY)
        with self._storage.write() as session:
            session.add(row)
            session.flush()
            return row

    def get(self, action_id: int) -> PendingAction:
        with self._storage.read() as session:
            return _find(session, action_id)

    def pending(self, session_id: str | None = None) -> builtins.list[PendingAction]:
        """The actions still waiting (of one chat, if given), oldest first; the expired
        ones are marked expired first."""
        self.expire()
        query = select(PendingAction).where(PendingAction.status == "pending").order_by(
            PendingAction.created_at, PendingAction.id)
        if session_id is not None:
            query = query.where(PendingAction.session_id == session_id)
        with self._storage.read() as session:
            return builtins.list(session.scalars(query))

    def of_session(self, session_id: str) -> builtins.list[PendingAction]:
        """Every request of one chat, answered or not, oldest first (the chat shows each
        with its outcome). Only reads: a row still "pending" past ``expires_at`` is one
        nobody has marked yet (``expire``), and can no longer be confirmed."""
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(PendingAction).where(
                PendingAction.session_id == session_id).order_by(
                    PendingAction.created_at, PendingAction.id)))

    def expire(self, now: datetime | None = None) -> int:
        """Mark the pending actions whose time is up as expired; returns how many."""
        now = now or clock.now()
        overdue = (PendingAction.status == "pending", PendingAction.expires_at <= now)
        with self._storage.read() as session:  # listing stays a read when nothing expired
            if session.scalar(select(PendingAction.id).where(*overdue).limit(1)) is None:
                return 0
        with self._storage.write() as session:
            result = session.execute(update(PendingAction).where(*overdue).values(
                status="expired", decided_at=now))
            return int(getattr(result, "rowcount", 0) or 0)

    def confirm(self, action_id: int, revised: Mapping[str, Any] | None = None
                ) -> PendingAction:
        """Apply the action and mark it confirmed, together (see the module docstring).
        ``revised``: arguments the user changed in the action's own form (the title, the
        day); checked as a new request is, and kept with the action, preview and all."""
        row = self.get(action_id)
        if row.status != "pending":
            raise _not_pending(row)
        arguments, preview = row.arguments, row.preview
        if revised is not None:
            arguments, preview = self._actions.check(row.action, {**arguments, **revised})
        step = self._actions.prepare(row.action, arguments)
        with self._storage.write() as session:
            row = self._locked(session, action_id)
            now = clock.now()
            if row.status == "pending" and row.expires_at <= now:
                row.status, row.decided_at = "expired", now  # kept: the with block commits
            elif row.status == "pending":
                row.arguments, row.preview = arguments, preview
                result = step(session)
                row.status, row.decided_at = "confirmed", now
                row.result = result[:RESULT_CHARS]
                session.add(_audit(row))
                return row
        raise _not_pending(row)

    def cancel(self, action_id: int) -> PendingAction:
        """The user said no: nothing is applied."""
        with self._storage.write() as session:
            row = self._locked(session, action_id)
            if row.status == "pending":
                row.status, row.decided_at = "cancelled", clock.now()
                session.add(_audit(row))
                return row
        raise _not_pending(row)

    @staticmethod
    def _locked(session: Session, action_id: int) -> PendingAction:
        """The row, locked against a concurrent answer (PostgreSQL; SQLite's write
        transaction holds the whole database already)."""
        row = session.scalars(select(PendingAction).where(
            PendingAction.id == action_id).with_for_update()).first()
        if row is None:
            return _find(session, action_id)
        return row
