"""``hearth prompts`` and ``hearth alerts`` end to end through the CLI's entry point: real
database, JSON out, a bad cron or kind as a sentence with a non-zero exit."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from test_cli_daily import hearth, ok


def test_a_scheduled_prompt_from_add_to_delete(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    added = ok(capsys, home, "prompts", "add", "Morning plan", "What is on today?",
               "--cron", "0 8 * * mon-fri", "--zone", "Europe/Lisbon", "--json")
    assert (added["name"], added["cron"], added["zone"], added["enabled"]) == (
        "Morning plan", "0 8 * * mon-fri", "Europe/Lisbon", True)
    upcoming = datetime.fromisoformat(added["next_run_at"])
    assert upcoming.weekday() < 5 and upcoming.minute == 0  # a weekday at 08:00 in Lisbon

    paused = ok(capsys, home, "prompts", "pause", str(added["id"]), "--json")
    assert (paused["enabled"], paused["next_run_at"]) == (False, None)
    assert "paused" in ok(capsys, home, "prompts", "list")
    edited = ok(capsys, home, "prompts", "edit", str(added["id"]), "--cron", "30 7 * * *",
                "--json")
    assert edited["cron"] == "30 7 * * *" and edited["enabled"] is False
    assert ok(capsys, home, "prompts", "resume", str(added["id"]), "--json")["enabled"]

    code, _, err = hearth(capsys, home, "prompts", "add", "Bad", "x", "--cron", "every day")
    assert code != 0 and "cron" in err.lower()
    ok(capsys, home, "prompts", "delete", str(added["id"]), "--yes")
    assert ok(capsys, home, "prompts", "list", "--json") == []


def test_alerts_are_listed_with_defaults_and_changed_by_hand(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    listed = ok(capsys, home, "alerts", "list", "--json")
    assert {(a["kind"], a["enabled"]) for a in listed} == {("task_due_today", True),
                                                          ("task_overdue", True)}
    changed = ok(capsys, home, "alerts", "set", "task_overdue", "--off", "--cooldown", "120",
                 "--json")
    assert (changed["enabled"], changed["cooldown_minutes"]) == (False, 120)
    again = {a["kind"]: a for a in ok(capsys, home, "alerts", "list", "--json")}
    assert again["task_overdue"]["enabled"] is False
    assert again["task_due_today"]["enabled"] is True

    code, _, err = hearth(capsys, home, "alerts", "set", "task_forgotten", "--on")
    assert code != 0 and "task_forgotten" in err
