"""Delivery's every-minute pass when nothing is due: what it costs on an empty database and
on a full one (years of sent reminders, done tasks, open ones due later).

Run alone: ``python -m benchmarks.delivery``; in the table: ``--only delivery``."""

from __future__ import annotations

import tempfile
from datetime import date, timedelta
from pathlib import Path
from types import SimpleNamespace

from benchmarks.stats import percentiles, timed_ms
from core import clock
from core.config import Settings
from core.daily.alerts import AlertService
from core.daily.delivery import claim_due
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService
from core.daily.tasks import TaskService
from core.knowledge.follow_ups import FollowUpService
from core.storage.orm import FollowUp, Reminder, ScheduledPrompt, Task
from core.storage.sqlite.adapter import SqliteStorage

PASSES = 200
SENT, PENDING, DONE_TASKS, OPEN_TASKS, INTENTIONS, PROMPTS = (
    20_000, 200, 5_000, 500, 50, 20)
TARGET_MS = 50.0
"""A pass a minute: far under a second keeps it invisible on a busy machine."""


def _services(storage: SqliteStorage) -> SimpleNamespace:
    return SimpleNamespace(reminders=ReminderService(storage), tasks=TaskService(storage),
                           alerts=AlertService(storage),
                           follow_ups=FollowUpService(storage, Settings()),
                           scheduled_prompts=ScheduledPromptService(storage))


def _fill(storage: SqliteStorage) -> None:
    now = clock.now()
    later = date.today() + timedelta(days=30)
    with storage.write() as session:
        session.add_all(Reminder(message=f"sent {n}", remind_at=now - timedelta(hours=n),
                                 zone="UTC", status="sent", sent_at=now)
                        for n in range(SENT))
        session.add_all(Reminder(message=f"later {n}", remind_at=now + timedelta(hours=n + 1),
                                 zone="UTC") for n in range(PENDING))
        session.add_all(Task(title=f"done {n}", status="done", due_date="2024-01-01",
                             done_at=now) for n in range(DONE_TASKS))
        session.add_all(Task(title=f"open {n}", due_date=later.isoformat())
                        for n in range(OPEN_TASKS))
        session.add_all(FollowUp(text=f"meant {n}",
                                         follow_up_at=now + timedelta(days=n + 1))
                        for n in range(INTENTIONS))
        session.add_all(ScheduledPrompt(name=f"prompt {n}", prompt="plan", cron="0 9 1 1 *",
                                        zone="UTC", last_run_at=now, created_at=now)
                        for n in range(PROMPTS))


def _passes(storage: SqliteStorage) -> list[float]:
    daily = _services(storage)
    samples = []
    for _ in range(PASSES):
        samples.append(timed_ms(lambda: claim_due(daily)))
    assert claim_due(daily).empty, "the benchmark is of passes with nothing due"
    return samples


def bench_delivery() -> list[dict[str, str]]:
    """Rows of ``{"benchmark", "value", "target"}``: an empty pass, empty and full store."""
    rows = []
    medians = {}
    with tempfile.TemporaryDirectory(prefix="hearth-delivery-") as folder:
        for label, filled in (("empty database", False), ("full database", True)):
            storage = SqliteStorage(Path(folder) / f"{label.split()[0]}.db")
            try:
                if filled:
                    _fill(storage)
                p50, p95 = percentiles(_passes(storage))
            finally:
                storage.close()
            medians[label] = p50
            rows.append({"benchmark": f"delivery pass, nothing due ({label}), p50 / p95 of "
                                      f"{PASSES}",
                         "value": f"{p50:.1f} / {p95:.1f} ms", "target": f"≤ {TARGET_MS:.0f} ms"})
    ratio = medians["full database"] / medians["empty database"]
    rows.append({"benchmark": f"full ({SENT:,} sent reminders, {DONE_TASKS:,} done tasks) / "
                              "empty, medians", "value": f"{ratio:.2f}×", "target": ""})
    return rows


if __name__ == "__main__":
    for row in bench_delivery():
        print(f"{row['benchmark']}: {row['value']} (target {row['target'] or '-'})")
