"""One delivery process for the racing-processes test
(``tests/core/daily/test_delivery.py``): opens the database given (``sqlite PATH`` or
``postgresql URL``), says ``READY``, waits for ``GO_FILE`` so both processes start at once,
runs a delivery pass for each minute of the morning given, and prints the keys it was
handed, one JSON list.

Usage: ``python delivery_child.py BACKEND TARGET GO_FILE MOMENT...`` (ISO moments).
"""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project

from core.config import Settings
from core.daily.alerts import AlertService
from core.daily.delivery import claim_due
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService
from core.daily.tasks import TaskService
from core.knowledge.follow_ups import FollowUpService


def main(backend: str, target: str, go_file: str, moments: list[str]) -> None:
    if backend == "postgresql":
        from core.storage.postgres.adapter import PostgresStorage

        storage = PostgresStorage(target)
    else:
        from core.storage.sqlite.adapter import SqliteStorage

        storage = SqliteStorage(Path(target))
    daily = SimpleNamespace(reminders=ReminderService(storage), tasks=TaskService(storage),
                            alerts=AlertService(storage),
                            follow_ups=FollowUpService(storage, Settings()),
                            scheduled_prompts=ScheduledPromptService(storage))
    print("READY", flush=True)
    while not Path(go_file).exists():
        time.sleep(0.01)
    seen: list[str] = []
    for moment in moments:
        due = claim_due(daily, datetime.fromisoformat(moment))
        seen.extend(n.key for n in due.notifications)
        seen.extend(f"prompt:{p.id}" for p in due.prompts)
    storage.close()
    print(json.dumps(seen), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
