"""File → Import history…: the runs listed off the UI thread, and "Remove this import…"
deletes what one added after a confirmation; importing the same file again says what was
left out because the user deleted it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.operations.imports import ImportSource, import_history
from core.transfer import batches
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from desktop.dialogs.import_dialog import ImportDialog, describe
from desktop.dialogs.import_history import ImportHistoryDialog
from desktop import confirm
from support.qt_waits import wait_idle

EXPORT = Path(__file__).parents[2] / "data" / "chat_exports" / "chatgpt-conversations.json"


def test_a_run_is_listed_and_removed_only_after_a_yes(qtbot, ctx, monkeypatch) -> None:
    import_history(ctx.hearth, ImportSource.CHATGPT, EXPORT)
    asked: list[str] = []

    def ask(_parent: Any, title: str, text: str, action: str = "Delete") -> bool:
        asked.append(text)
        return len(asked) > 1  # no the first time, yes after

    monkeypatch.setattr(confirm, "ask", ask)
    dialog = ImportHistoryDialog(ctx)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.runs.count() == 1)
    assert "ChatGPT export · 13 memories added" in dialog.runs.item(0).text()
    dialog.runs.setCurrentRow(0)
    assert dialog.remove.isEnabled()

    assert dialog.remove_selected() is None  # the user said no
    assert ctx.hearth.memories.count() == 13 and "13 memories" in asked[0]
    dialog.remove_selected()
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(lambda: dialog.outcome.text() == "Removed 13 memories and 3 imported chats.")
    qtbot.waitUntil(lambda: dialog.runs.count() == 1
                    and dialog.runs.item(0).text().endswith("· removed"))
    assert ctx.hearth.memories.count() == 0

    again = import_history(ctx.hearth, ImportSource.CHATGPT, EXPORT)
    assert describe(again).endswith("13 messages left out because you deleted them before "
                                    "(Import them too brings them back).")
    assert ctx.hearth.memories.count() == 0


def test_an_import_removed_before_can_be_brought_back_from_the_history(
        qtbot, ctx, monkeypatch) -> None:
    """Deleted things stay out by default; "Import again, including what I removed…"
    asks for the file again and brings them back, once."""
    import_history(ctx.hearth, ImportSource.CHATGPT, EXPORT)
    monkeypatch.setattr(confirm, "ask", lambda *_a, **_k: True)
    history = ImportHistoryDialog(ctx)
    qtbot.addWidget(history)
    qtbot.waitUntil(lambda: history.runs.count() == 1)
    history.runs.setCurrentRow(0)
    history.remove_selected()
    wait_idle(qtbot, ctx)
    assert ctx.hearth.memories.count() == 0
    left_out = import_history(ctx.hearth, ImportSource.CHATGPT, EXPORT)
    assert left_out.forgotten == 13 and ctx.hearth.memories.count() == 0

    asked_for: list[str] = []

    def chosen(_parent: Any, caption: str, *_args: Any) -> tuple[str, str]:
        asked_for.append(caption)
        return str(EXPORT), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", chosen)
    history.load()
    qtbot.waitUntil(lambda: history.runs.count() == 2)
    history.runs.setCurrentRow(1)  # the first run, removed
    assert history.again.isEnabled()
    dialog = history.import_again()
    assert dialog is not None and asked_for == ["Import a ChatGPT export"]
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(lambda: ctx.hearth.memories.count() == 13)
    dialog.close()
    assert not dialog.again_button.isVisible()  # nothing left out this time
    dialog.close()
    import_history(ctx.hearth, ImportSource.CHATGPT, EXPORT)
    assert ctx.hearth.memories.count() == 13  # back once, never twice


def test_the_import_dialog_offers_what_was_left_out(qtbot, ctx) -> None:
    import_history(ctx.hearth, ImportSource.CHATGPT, EXPORT)
    ids = batches.memories_of(ctx.hearth.storage, batches.runs(ctx.hearth.storage)[0].id)
    ctx.hearth.forgetting.delete_memories(ids[:2])
    dialog = ImportDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.import_from(ImportSource.CHATGPT, EXPORT)
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(dialog.again_button.isVisible)
    qtbot.mouseClick(dialog.again_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(lambda: ctx.hearth.memories.count() == 13)


def test_the_file_menu_offers_the_import_history(qtbot, make_ctx) -> None:
    from desktop.main_window import MainWindow

    window = MainWindow(make_ctx())
    qtbot.addWidget(window)
    file_menu = window.menuBar().actions()[0].menu()
    next(a for a in file_menu.actions() if a.text() == "Import &history…").trigger()

    (dialog,) = window.findChildren(ImportHistoryDialog)
    assert dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.outcome.text() == "Nothing has been imported yet.")
    assert not dialog.remove.isEnabled()
    dialog.reject()


def test_show_memories_opens_the_memories_view_on_the_run_and_removes_it(
        qtbot, make_ctx, monkeypatch) -> None:
    from desktop.inspector.memories import MemoriesPage
    from desktop.main_window import MainWindow

    ctx = make_ctx()
    ctx.hearth.memories.add("I water the tomatoes every morning", namespace="user")
    chatgpt = import_history(ctx.hearth, ImportSource.CHATGPT, EXPORT)
    claude = import_history(ctx.hearth, ImportSource.CLAUDE, EXPORT.with_name(
        "claude-conversations.json"))
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    window.open_import_history()
    (dialog,) = window.findChildren(ImportHistoryDialog)
    qtbot.waitUntil(lambda: dialog.runs.count() == 2)
    dialog.runs.setCurrentRow(1)  # the older run: ChatGPT's
    assert dialog.show_memories.isEnabled()
    dialog.show_memories.click()

    page = window.current_page()
    assert isinstance(page, MemoriesPage) and not dialog.isVisible()
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(lambda: page.summary.text() == "13 memories")
    shown = {page.model.record(row).id for row in range(page.model.rowCount())}
    assert shown == set(batches.memories_of(ctx.hearth.storage, 1))
    assert page.run_bar.isVisible() and page.run_text.text().startswith(
        "What import #1 (ChatGPT export, ")
    assert page.filters.import_run.currentText() == "Import #1: ChatGPT export"
    assert page.filters.import_run.count() == 3  # any, and the two runs

    asked: list[str] = []
    monkeypatch.setattr(confirm, "ask", lambda _p, _t, text, _a="Delete": not asked.append(
        text))
    page.remove_run.click()
    assert asked[0].startswith("Delete for good the 13 memories that import #1 (ChatGPT export")
    wait_idle(qtbot, ctx)
    qtbot.waitUntil(lambda: page.summary.text() == "0 memories")
    assert page.run_text.text() == "Import #1: nothing it added is kept."
    assert not page.remove_run.isEnabled()
    assert ctx.hearth.memories.count() == 1 + claude.added and chatgpt.added == 13

    page.filters.import_run.setCurrentIndex(0)  # every memory again
    qtbot.waitUntil(lambda: page.summary.text() == f"{1 + claude.added} memories")
    assert not page.run_bar.isVisible()


def test_a_run_that_did_not_finish_says_how_it_ended() -> None:
    from datetime import datetime, timezone

    from core.operations.imports import ImportRunInfo
    from desktop.dialogs.import_history import line

    started = datetime(2026, 11, 29, 9, 30, tzinfo=timezone.utc)

    def ended(outcome: str | None) -> str:
        return line(ImportRunInfo(1, "notes", started, None, 64, 64, None, outcome))

    assert ended("finished") == "2026-11-29 09:30 · notes folder · 64 memories added"
    assert [ended(outcome).rsplit(" · ", 1)[1] for outcome in (
        "cancelled", "interrupted", "failed", None)] == [
        "stopped", "interrupted", "failed", "unfinished"]
