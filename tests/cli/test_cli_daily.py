"""``hearth tasks|reminders|notes|journal|later`` end to end through the CLI's entry point:
real database, JSON out, bad input as a sentence on stderr with a non-zero exit."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from core import clock
from cli.main import run


def hearth(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def ok(capsys, home: Path, *args: str):
    code, out, err = hearth(capsys, home, *args)
    assert code == 0, err
    return json.loads(out) if "--json" in args else out


def test_tasks_from_add_to_delete(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    added = ok(capsys, home, "tasks", "add", "Renew passport", "--due", "2026-11-28",
               "--at", "9:30", "--json")
    assert (added["title"], added["due_date"], added["due_time"]) == (
        "Renew passport", "2026-11-28", "09:30")
    ok(capsys, home, "tasks", "add", "Read the manual")
    assert "Renew passport" in ok(capsys, home, "tasks", "list")
    listed = ok(capsys, home, "tasks", "today", "--day", "2026-11-28", "--json")
    assert [t["id"] for t in listed] == [added["id"]]
    assert ok(capsys, home, "tasks", "done", str(added["id"]), "--json")["status"] == "done"
    assert [t["title"] for t in ok(capsys, home, "tasks", "list", "--status", "todo",
                                   "--json")] == ["Read the manual"]
    assert ok(capsys, home, "tasks", "reopen", str(added["id"]), "--json")["done_at"] is None
    edited = ok(capsys, home, "tasks", "edit", str(added["id"]), "--no-due", "--json")
    assert (edited["due_date"], edited["due_time"]) == (None, None)
    code, _, err = hearth(capsys, home, "tasks", "delete", str(added["id"]))
    assert code == 1 and "Add --yes" in err  # not a terminal: never deleted unasked
    assert ok(capsys, home, "tasks", "delete", str(added["id"]), "--yes", "--json")["id"] == \
        added["id"]
    assert len(ok(capsys, home, "tasks", "list", "--json")) == 1


@pytest.mark.parametrize(("args", "message"), [
    (("tasks", "add", "  "), "A task's title cannot be empty."),
    (("tasks", "add", "Pay", "--due", "friday"), "'friday' is not a date."),
    (("tasks", "done", "99"), "There is no task 99."),
    (("reminders", "add", "Call", "--at", "2020-01-01T09:00"), "has already passed."),
    (("reminders", "add", "Call", "--at", "2099-01-01T09:00", "--zone", "Mars/Base"),
     "not a time zone"),
    (("read-later", "add", "example.org"), "is not a full web address."),
    (("journal", "add", " "), "A journal entry cannot be empty."),
    (("reminders", "edit", "7", "--message", "x"), "There is no reminder 7."),
])
def test_bad_input_is_a_sentence(capsys, tmp_path: Path, args, message) -> None:
    code, _, err = hearth(capsys, tmp_path / "h", *args)
    assert code == 1 and message in err


def test_reminders_notes_journal_and_later(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    at = (clock.now() + timedelta(days=1)).strftime("%Y-%m-%dT09:00")
    reminder = ok(capsys, home, "reminders", "add", "Call Ana", "--at", at, "--zone", "UTC",
                  "--json")
    assert reminder["remind_at"].startswith(at) and reminder["zone"] == "UTC"
    assert ok(capsys, home, "reminders", "snooze", str(reminder["id"]), "--minutes", "30",
              "--json")["snooze_count"] == 1
    edited = ok(capsys, home, "reminders", "edit", str(reminder["id"]), "--message",
                "Call Ana about the lease", "--json")
    assert (edited["message"], edited["snooze_count"]) == ("Call Ana about the lease", 1)
    assert ok(capsys, home, "reminders", "edit", str(reminder["id"]), "--at", at,
              "--json")["remind_at"].startswith(at)
    assert ok(capsys, home, "reminders", "cancel", str(reminder["id"]), "--json")["status"] == \
        "cancelled"
    assert "Call Ana" in ok(capsys, home, "reminders", "list")

    note = ok(capsys, home, "notes", "add", "Oil the bike chain.", "--title", "Bike", "--json")
    ok(capsys, home, "notes", "edit", str(note["id"]), "--text", "Oil the chain and brakes.")
    assert ok(capsys, home, "notes", "pin", str(note["id"]), "--json")["pinned"] is True
    found = ok(capsys, home, "notes", "search", "brakes", "--json")
    assert [n["id"] for n in found] == [note["id"]] and found[0]["edited_at"]
    gone = ok(capsys, home, "notes", "delete", str(note["id"]), "--json")  # asks nothing
    assert ok(capsys, home, "notes", "list", "--json") == []
    ok(capsys, home, "deleted", "restore", str(gone["id"]), "--json")  # it can be undone
    assert [n["id"] for n in ok(capsys, home, "notes", "list", "--json")] == [note["id"]]

    entry = ok(capsys, home, "journal", "add", "A quiet Sunday by the river.", "--json")
    assert ok(capsys, home, "journal", "search", "river", "--json")[0]["id"] == entry["id"]
    assert [e["id"] for e in ok(capsys, home, "journal", "week", "--json")] == [entry["id"]]
    assert ok(capsys, home, "journal", "edit", str(entry["id"]), "--title", "Sunday",
              "--json")["title"] == "Sunday"
    ok(capsys, home, "journal", "delete", str(entry["id"]), "--yes")

    page = tmp_path / "page.txt"
    page.write_text("Sourdough starters need feeding. A starter doubles when healthy.",
                    encoding="utf-8")
    item = ok(capsys, home, "read-later", "add", "https://example.org/bread", "--title",
              "Sourdough basics", "--note", "weekend", "--text-file", str(page), "--json")
    assert item["tags"][:2] == ["sourdough", "basics"] and item["status"] == "unread"
    assert ok(capsys, home, "read-later", "read", str(item["id"]), "--json")["status"] == "read"
    assert ok(capsys, home, "read-later", "list", "--status", "unread", "--json") == []
    assert [i["id"] for i in ok(capsys, home, "read-later", "search", "weekend", "--json")] == [
        item["id"]]
    assert "Sourdough" in ok(capsys, home, "read-later", "list")
    assert "Sourdough" in ok(capsys, home, "later", "list")  # the former name, for old scripts
    ok(capsys, home, "read-later", "delete", str(item["id"]), "--yes")
