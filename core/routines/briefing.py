"""The daily briefing: today's tasks, reminders and follow-ups in one notification and one
chat message.

Optional (the settings ``daily_briefing`` and ``daily_briefing_time``, off by default); the
schedule runs it once a day at that local time (job ``daily_briefing``; a morning slept
through is briefed once at wake, like the dream cycle). It is written from the stored
lists, not by a model, so it is there with no model at all. The chat message is one
exchange in the "Daily briefing" conversation (created the first time), its user side the
day ("Briefing for Wed 25 Nov"), its reply the briefing.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import select

from core import clock
from core.conversation.sessions import CHAT_SOURCE
from core.daily import when
from core.daily.delivery import BRIEFING, Notification
from core.daily.reminders import ReminderService
from core.daily.tasks import TaskService
from core.knowledge.follow_ups import FollowUpService
from core.storage.orm import ChatSession, Interaction
from core.storage.port import StoragePort

TITLE = "Daily briefing"
CHANNEL = "scheduled"


def compose(now: datetime | None = None, *, tasks: TaskService, reminders: ReminderService,
            follow_ups: FollowUpService) -> Notification:
    """Today's briefing at ``now``: open tasks due today or overdue, reminders still to
    come today, follow-ups open and due by the end of the day."""
    now = now or clock.now()
    zone = when.zone()
    today = when.today(now=now)
    day_end = when.moment(datetime(today.year, today.month, today.day, tzinfo=zone)
                          + timedelta(days=1))
    due = tasks.due_today(today)
    overdue = tasks.overdue(today)
    coming = [row for row in reminders.list("pending") if row.remind_at < day_end]
    open_now = [row for row in follow_ups.list("open")
                if row.follow_up_at is not None and row.follow_up_at < day_end]
    lines = [f"Tasks due today: {len(due)}"] + [f"• {task.title}" for task in due]
    if overdue:
        lines += [f"Overdue: {len(overdue)}"] + [
            f"• {task.title} (due {task.due_date})" for task in overdue]
    lines += [f"Reminders today: {len(coming)}"] + [
        f"• {row.remind_at.astimezone(when.zone(row.zone)).strftime('%H:%M')} {row.message}"
        for row in coming]
    lines += [f"Follow-ups: {len(open_now)}"] + [f"• {row.text}" for row in open_now]
    return Notification(BRIEFING, 0, f"{TITLE} for {today.strftime('%a %d %b')}",
                        "\n".join(lines))


def post(storage: StoragePort, briefing: Notification) -> int:
    """Save ``briefing`` as one exchange in the "Daily briefing" chat; returns its id."""
    with storage.write() as session:
        session_id = session.scalar(
            select(ChatSession.id).where(ChatSession.title == TITLE,
                                         ChatSession.source == CHAT_SOURCE,
                                         ChatSession.incognito.is_(False))
            .order_by(ChatSession.started_at.desc()).limit(1))
        if session_id is None:
            session_id = uuid.uuid4().hex
            session.add(ChatSession(id=session_id, title=TITLE, source=CHAT_SOURCE,
                                    learn_from=False))
        exchange = Interaction(session_id=session_id, user_message=briefing.title,
                               agent_response=briefing.body, channel=CHANNEL)
        session.add(exchange)
        chat = session.get(ChatSession, session_id)
        if chat is not None:
            chat.last_message_at = clock.now()
        session.flush()
        return exchange.id
