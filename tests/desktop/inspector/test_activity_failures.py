"""A dream step that raises: the Activity view says so in a sentence on the first screen and
keeps where it raised (the traceback stored with the run) one click away."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from support.qt_waits import wait_idle
from support.scripted_llm import ScriptedLLM

from core.consolidation.dream import DreamCycle
from desktop.context import AppContext
from desktop.inspector.activity import ActivityPage


def _broken_decay(*_: Any) -> dict[str, Any]:
    raise RuntimeError("disk on fire")


def test_a_failed_dream_step_shows_its_traceback_after_a_click(qtbot, ctx: AppContext) -> None:
    cycle = DreamCycle(ctx.hearth.consolidation(), ScriptedLLM(),
                       stages={"decay": _broken_decay})
    report = cycle.run(only="decay")
    assert report.status == "partial"
    page = ActivityPage(ctx)
    qtbot.addWidget(page)
    page.resize(1100, 700)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)

    assert page.selected_run().id == report.run_id
    page.tabs.setCurrentIndex(1)  # the Runs tab
    details = page.failure_details
    assert details.isVisible() and not details.is_open  # one click away, not on the first screen
    assert not page.failure_text.isVisible()
    assert "Traceback" not in page.run_summary.text()

    qtbot.mouseClick(details.toggle, Qt.MouseButton.LeftButton)
    assert page.failure_text.isVisible()
    shown = page.failure_text.toPlainText()
    assert "Traceback (most recent call last):" in shown
    assert "in _broken_decay" in shown and "RuntimeError: disk on fire" in shown


def test_a_run_without_a_failure_offers_no_error_details(qtbot, ctx: AppContext) -> None:
    report = DreamCycle(ctx.hearth.consolidation(), ScriptedLLM()).run(only="decay")
    assert report.status == "done"
    page = ActivityPage(ctx)
    qtbot.addWidget(page)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)
    assert page.selected_run().id == report.run_id
    page.tabs.setCurrentIndex(1)
    assert page.stage_details.isVisible() and not page.failure_details.isVisible()


def test_a_dream_that_went_on_without_its_backup_says_so_in_the_warning_colour(
        qtbot, ctx: AppContext, monkeypatch) -> None:
    """``dream_without_backup`` on, and the backup cannot be taken (as with a pg_dump older
    than the server): the run finished, and the view says plainly that it had no backup."""
    from core.errors import DatabaseError
    from desktop.inspector.notice import WARNING

    def no_pg_dump() -> None:
        raise DatabaseError("pg_dump 9.6.0 (/usr/bin/pg_dump) is older than the server "
                            "(PostgreSQL 16.2 at postgresql://hearth:***@db/hearth), so "
                            "Hearth cannot back the database up with it.", "Install …")

    monkeypatch.setattr(ctx.hearth, "backup", no_pg_dump)
    monkeypatch.setattr(ctx.hearth, "settings",
                        ctx.hearth.settings.model_copy(update={"dream_without_backup": True}))
    report = DreamCycle(ctx.hearth.consolidation(), ScriptedLLM()).run(only="decay")
    assert report.status == "done" and report.backup is None
    page = ActivityPage(ctx)
    qtbot.addWidget(page)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)

    assert page.selected_run().id == report.run_id
    assert ("What went wrong: No backup was taken before this dream: pg_dump 9.6.0"
            in page.run_summary.text())
    backup_row = page.stages.index(0, 0)
    assert page.stages.data(backup_row) == "Backup"
    assert page.stages.data(page.stages.index(0, 1)) == "skipped"
    assert page.stages.data(backup_row, Qt.ItemDataRole.ForegroundRole) == QColor(WARNING)
