"""The daily views (Today, Notes, Journal, Read later) driven as a user drives them: typing
in the quick-add line, Space on a task, the editors' Save, the filters; checked against the
real database through ``core.operations``."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any, TypeVar

import pytest
from PySide6.QtCore import QTime, QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from core import clock
from core.daily import when
from core.operations import journal, notes, read_later, reminders, tasks
from core.operations.quick_add import day_words
from desktop.context import AppContext
from desktop.daily.journal import JournalPage
from desktop.daily.notes import NotesPage
from desktop.daily.read_later import ReadLaterPage
from desktop.daily.reminder_dialog import ReminderDialog
from desktop.daily.task_dialog import TaskDialog
from desktop.daily.today import RECORD, TodayPage
from desktop import confirm
from desktop.inspector.base import InspectorPage
from support.qt_waits import settle
from support.scripted_llm import ScriptedLLM

P = TypeVar("P", bound=InspectorPage)


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every confirmation is answered yes, and its question recorded."""
    asked: list[str] = []

    def ask(_parent: Any, title: str, text: str, action: str = "Delete") -> bool:
        asked.append(text)
        return True

    monkeypatch.setattr(confirm, "ask", ask)
    return asked


def open_page(qtbot, ctx: AppContext, cls: type[P]) -> P:
    page = cls(ctx)
    qtbot.addWidget(page)
    page.resize(1100, 650)
    page.show()
    page.activate()
    settle(qtbot, ctx)
    return page


def sections(page: TodayPage) -> dict[str, list[str]]:
    """Section key → the titles of its rows, as the tree shows them."""
    shown: dict[str, list[str]] = {}
    for index in range(page.tree.topLevelItemCount()):
        head = page.tree.topLevelItem(index)
        assert head is not None
        rows = [head.child(n) for n in range(head.childCount())]
        shown[head.data(0, RECORD)] = [row.text(0) for row in rows
                                       if row is not None and row.data(0, RECORD) is not None]
    return shown


def row_of(page: TodayPage, title: str) -> Any:
    return next(item for item in page._rows() if item.text(0) == title)


def quick_add(qtbot, page: TodayPage, text: str) -> None:
    page.quick.setFocus()
    qtbot.keyClicks(page.quick, text)
    qtbot.waitUntil(lambda: page.hint.text() != "", timeout=30_000)
    qtbot.keyClick(page.quick, Qt.Key.Key_Return)
    settle(qtbot, page.ctx)


def test_quick_add_reads_the_due_day_says_it_and_files_the_task(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, TodayPage)
    assert page.empty.isVisible() and "Type a task" in page.empty.text()
    tomorrow = when.today() + timedelta(days=1)
    quick_add(qtbot, page, "pay the rent tomorrow")
    assert page.hint.text() == f"Added. Task: pay the rent — due {day_words(tomorrow)}"
    assert page.quick.text() == ""
    [stored] = tasks.list_tasks(ctx.hearth)
    assert (stored.title, stored.due_date) == ("pay the rent", tomorrow)
    assert sections(page)["coming"] == ["pay the rent"]
    assert page.selected().id == stored.id  # the new row is selected

    quick_add(qtbot, page, "water the plants")
    assert sections(page)["undated"] == ["water the plants"]
    assert not page.empty.isVisible()


def test_dentist_next_tuesday_3pm_is_a_dated_task(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, TodayPage)
    quick_add(qtbot, page, "dentist next Tuesday 3pm")
    [stored] = tasks.list_tasks(ctx.hearth)
    assert stored.title == "dentist" and stored.due_date is not None
    assert stored.due_date.weekday() == 1 and stored.due_time == "15:00"
    assert page.hint.text() == (f"Added. Task: dentist — due {day_words(stored.due_date)} "
                                "at 15:00")
    assert "dentist" in sections(page)["coming"] or "dentist" in sections(page)["today"]


def test_a_line_core_refuses_stays_typed_with_the_reason_under_it(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, TodayPage)
    line = "word " * 80  # longer than a task's title may be
    page.quick.setText(line)
    qtbot.keyClick(page.quick, Qt.Key.Key_Return)
    settle(qtbot, ctx)
    assert page.notice.isVisibleTo(page) and "title" in page.notice.text()
    assert page.quick.text() == line
    assert tasks.list_tasks(ctx.hearth) == ()


def test_a_quick_reminder_shows_under_reminders(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, TodayPage)
    quick_add(qtbot, page, "remind me in 2 hours to call mum")
    assert page.hint.text().startswith("Added. Reminder: call mum — ")
    [reminder] = reminders.list_reminders(ctx.hearth, "pending")
    assert reminder.message == "call mum"
    assert abs(reminder.remind_at - clock.now() - timedelta(hours=2)) < timedelta(minutes=2)
    assert sections(page)["reminders"] == ["call mum"]
    assert tasks.list_tasks(ctx.hearth) == ()


def test_space_ticks_a_task_done_and_ctrl_z_reopens_it(qtbot, ctx) -> None:
    today = when.today()
    tasks.add(ctx.hearth, "book the physio", due_date=today)
    tasks.add(ctx.hearth, "lease", due_date=today - timedelta(days=2))
    page = open_page(qtbot, ctx, TodayPage)
    assert sections(page)["overdue"] == ["lease"]
    assert sections(page)["today"] == ["book the physio"]
    page.tree.setFocus()
    page.tree.setCurrentItem(row_of(page, "book the physio"))
    qtbot.keyClick(page.tree.viewport(), Qt.Key.Key_Space)
    settle(qtbot, ctx)
    assert [t.title for t in tasks.list_tasks(ctx.hearth, "done")] == ["book the physio"]
    assert sections(page)["done"] == ["book the physio"]
    assert sections(page)["today"] == []
    done_row = row_of(page, "book the physio")
    assert done_row.font(0).strikeOut()
    assert done_row.checkState(0) == Qt.CheckState.Checked

    qtbot.keyClick(page.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    settle(qtbot, ctx)
    assert tasks.list_tasks(ctx.hearth, "done") == ()
    assert sections(page)["today"] == ["book the physio"]

    page.tree.setCurrentItem(row_of(page, "book the physio"))
    qtbot.keyClick(page.tree.viewport(), Qt.Key.Key_Space)
    settle(qtbot, ctx)
    page.tree.setCurrentItem(row_of(page, "book the physio"))
    qtbot.keyClick(page.tree.viewport(), Qt.Key.Key_Space)  # unticking reopens too
    settle(qtbot, ctx)
    assert {t.title for t in tasks.list_tasks(ctx.hearth, "todo")} == {"book the physio",
                                                                       "lease"}
    assert sections(page)["today"] == ["book the physio"]


def test_ctrl_n_in_the_window_goes_to_quick_add_on_today(qtbot, ctx) -> None:
    from desktop.main_window import MainWindow

    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    page = window.show_page("today")
    assert isinstance(page, TodayPage)
    settle(qtbot, ctx)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(page.quick.hasFocus, timeout=5_000)
    assert window.current_page() is page  # not a new chat


def test_delete_asks_then_deletes_and_a_change_from_elsewhere_shows(qtbot, ctx,
                                                                     answers) -> None:
    page = open_page(qtbot, ctx, TodayPage)
    tasks.add(ctx.hearth, "made by the chat", due_date=when.today())
    assert sections(page).get("today") in (None, [])
    settle(qtbot, ctx)  # the change feed told the view
    assert sections(page)["today"] == ["made by the chat"]
    page.tree.setFocus()
    page.tree.setCurrentItem(row_of(page, "made by the chat"))
    qtbot.keyClick(page.tree, Qt.Key.Key_Delete)
    settle(qtbot, ctx)
    assert answers == ["Delete the task “made by the chat”?\n\nIt cannot be brought back."]
    assert tasks.list_tasks(ctx.hearth) == ()


def test_the_task_editor_saves_a_due_day_and_says_why_a_title_is_refused(qtbot, ctx) -> None:
    item = tasks.add(ctx.hearth, "renew passport").value
    dialog = TaskDialog(ctx, item)
    qtbot.addWidget(dialog)
    dialog.fields.title.setText("   ")
    dialog.save()
    settle(qtbot, ctx)
    assert dialog.error.isVisibleTo(dialog) and dialog.error.text()
    assert tasks.list_tasks(ctx.hearth)[0].title == "renew passport"  # nothing lost
    dialog.fields.title.setText("renew passport and ID")
    dialog.fields.has_due.setChecked(True)
    dialog.fields.due.setDate(dialog.fields.due.date().addDays(3))
    dialog.fields.has_time.setChecked(True)
    dialog.fields.time.setTime(QTime(18, 0))
    dialog.save()
    settle(qtbot, ctx)
    [stored] = tasks.list_tasks(ctx.hearth)
    assert stored.title == "renew passport and ID"
    assert (stored.due_date, stored.due_time) == (when.today() + timedelta(days=3), "18:00")


def test_the_reminder_editor_rewords_and_moves_a_reminder(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, TodayPage)
    item = reminders.add(ctx.hearth, "call mum", clock.now() + timedelta(hours=1)).value
    page.reload()
    settle(qtbot, ctx)
    dialog = ReminderDialog(ctx, item, page)
    qtbot.addWidget(dialog)
    assert dialog.fields.message.text() == "call mum"
    dialog.fields.message.setText("   ")
    dialog.save()
    settle(qtbot, ctx)
    assert dialog.error.isVisibleTo(dialog) and "cannot be empty" in dialog.error.text()
    assert reminders.list_reminders(ctx.hearth)[0].message == "call mum"  # nothing lost

    dialog.fields.message.setText("call mum about Sunday lunch")
    dialog.save()
    settle(qtbot, ctx)
    [stored] = reminders.list_reminders(ctx.hearth)
    assert (stored.message, stored.remind_at, stored.snooze_count) == (
        "call mum about Sunday lunch", item.remind_at, 0)  # the time was not touched
    assert sections(page)["reminders"] == ["call mum about Sunday lunch"]

    moved = ReminderDialog(ctx, stored, page)
    qtbot.addWidget(moved)
    moved.fields.when.setDateTime(moved.fields.when.dateTime().addSecs(3600))
    moved.save()
    settle(qtbot, ctx)
    [again] = reminders.list_reminders(ctx.hearth)
    assert abs(again.remind_at - item.remind_at - timedelta(hours=1)) < timedelta(seconds=1)
    assert again.snooze_count == 1
    assert again.message == "call mum about Sunday lunch"


def test_notes_search_pin_edit_and_delete(qtbot, ctx, answers) -> None:
    summary = ctx.hearth.notes.save_summary("Training", "Long runs on Sundays.",
                                            session_id=None)
    assert summary.title.startswith("Summary:")
    page = open_page(qtbot, ctx, NotesPage)
    page.new_item()
    page.editor.title.setText("Porto apartments")
    page.editor.content.setPlainText("Bonfim is near the metro.")
    page.editor.save.click()
    settle(qtbot, ctx)
    assert {n.title for n in notes.list_notes(ctx.hearth)} == {"Porto apartments",
                                                               "Summary: Training"}
    assert page.selected().title == "Porto apartments"

    page.search.setText("metro")
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=10_000)
    settle(qtbot, ctx)
    assert page.model.record(0).title == "Porto apartments"
    page.search.clear()
    qtbot.waitUntil(lambda: page.model.rowCount() == 2, timeout=10_000)
    settle(qtbot, ctx)

    page.select(next(n.id for n in notes.list_notes(ctx.hearth)
                     if n.title == "Porto apartments"))
    page.toggle_pin()
    settle(qtbot, ctx)
    assert page.model.record(0).title == "Porto apartments" and page.model.record(0).pinned
    assert page.pin_button.text() == "Un&pin"

    page.editor.content.setPlainText("Bonfim is near the metro. Cedofeita is loud.")
    assert page.editor.dirty
    page.editor.save.click()
    settle(qtbot, ctx)
    stored = next(n for n in notes.list_notes(ctx.hearth) if n.title == "Porto apartments")
    assert stored.content.endswith("Cedofeita is loud.") and stored.edited_at is not None

    asked = len(answers)
    page.editor.delete.click()  # asks nothing: the bar above the list offers Undo
    settle(qtbot, ctx)
    assert len(answers) == asked
    assert [n.title for n in notes.list_notes(ctx.hearth)] == ["Summary: Training"]
    assert page.undo_bar.label.text().startswith("Deleted the note “Porto apartments”.")
    page.undo_bar.undo_button.click()
    settle(qtbot, ctx)
    assert sorted(n.title for n in notes.list_notes(ctx.hearth)) == [
        "Porto apartments", "Summary: Training"]


def test_a_note_refused_by_core_keeps_the_text_and_says_why(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, NotesPage)
    assert "No notes yet" in page.empty.text() and page.empty.isVisible()
    page.new_item()
    page.editor.title.setText("")
    page.editor.content.setPlainText("")
    page.editor.content.setPlainText(" ")
    page.editor.save.click()
    settle(qtbot, ctx)
    assert page.editor.notice.isVisibleTo(page) and page.editor.notice.text()
    assert notes.list_notes(ctx.hearth) == ()


def test_journal_add_edit_search_and_the_week(qtbot, make_ctx) -> None:
    answers = iter([json.dumps({"summary": "You found a flat and ran by the river."}),
                    "no summary here", "nor here"])
    ctx = make_ctx(lambda: ScriptedLLM(lambda _kind, _messages, _extra: next(answers)))
    page = open_page(qtbot, ctx, JournalPage)
    page.new_item()
    page.editor.content.setPlainText("Saw the Bonfim apartment; loved the light.")
    page.editor.save.click()
    settle(qtbot, ctx)
    [entry] = journal.list_entries(ctx.hearth)
    assert entry.content.startswith("Saw the Bonfim")
    assert page.model.rowCount() == 1 and page.model.record(0).reflected_at is None
    assert "Not read by a reflection yet" in page.editor.heading.text()

    page.editor.content.setPlainText("Saw the Bonfim apartment; loved the light. Booked it.")
    page.editor.save.click()
    settle(qtbot, ctx)
    assert journal.list_entries(ctx.hearth)[0].content.endswith("Booked it.")

    journal.add(ctx.hearth, "A long run by the river.")
    ctx.hub.changed.emit(journal.JOURNAL)
    settle(qtbot, ctx)
    assert page.model.rowCount() == 2
    page.search.setText("river")
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=10_000)
    assert "river" in page.model.record(0).content

    page.show_week()
    settle(qtbot, ctx)
    from desktop.daily.week_dialog import WeekDialog
    [dialog] = page.findChildren(WeekDialog)
    shown = dialog.text.toPlainText()
    assert shown.startswith("The week in short\nYou found a flat and ran by the river.")
    assert "Booked it." in shown and "river" in shown
    dialog.close()
    dialog.deleteLater()
    settle(qtbot, ctx)

    page.show_week()  # the model's answer is unusable: the entries alone, and why
    settle(qtbot, ctx)
    [dialog] = [d for d in page.findChildren(WeekDialog) if d.isVisible()]
    shown = dialog.text.toPlainText()
    assert shown.startswith("The model's summary was not usable (")
    assert "Booked it." in shown and "A long run by the river." in shown
    dialog.close()


def test_read_later_add_with_tags_mark_read_and_filter(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, ReadLaterPage)
    assert page.empty.isVisible()
    page.new_item()
    page.editor.url.setText("https://example.org/knee")
    page.editor.title.setText("Knee pain in runners")
    page.editor.note.setText("for the physio")
    page.editor.text.setPlainText("Strength training for the hips helps runners' knees.")
    page.editor.save.click()
    settle(qtbot, ctx)
    [item] = read_later.list_items(ctx.hearth)
    assert item.note == "for the physio" and "knee" in item.tags
    assert page.model.rowCount() == 1
    assert "knee" in page.editor.tags.text()
    assert 'href="https://example.org/knee"' in page.editor.link.text()

    page.select(item.id)
    page.read_button.click()
    settle(qtbot, ctx)
    assert read_later.list_items(ctx.hearth)[0].status == "read"
    assert page.model.rowCount() == 0  # the filter shows unread ones
    page.filter.setCurrentIndex(1)  # Read
    settle(qtbot, ctx)
    assert [page.model.record(0).title] == ["Knee pain in runners"]


def test_a_dropped_link_starts_a_new_article(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, ReadLaterPage)
    data = QMimeData()
    data.setUrls([QUrl("https://example.org/porto")])
    drop = QDropEvent(QPointF(QPoint(50, 50)), Qt.DropAction.CopyAction, data,
                      Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    page.dropEvent(drop)
    assert page.editor.record is None
    assert page.editor.url.text() == "https://example.org/porto" and page.editor.dirty


def test_choosing_another_note_asks_before_dropping_what_was_typed(qtbot, ctx,
                                                                    monkeypatch) -> None:
    first = notes.add(ctx.hearth, "First", "one").value
    second = notes.add(ctx.hearth, "Second", "two").value
    page = open_page(qtbot, ctx, NotesPage)
    assert page.select(first.id)
    page.editor.content.setPlainText("one, and more")
    asked: list[str] = []
    monkeypatch.setattr(confirm, "ask", lambda *_args, **_kw: asked.append("?") and False)
    assert page.select(second.id)
    qtbot.waitUntil(lambda: page.selected().id == first.id, timeout=5_000)
    assert asked and page.editor.content.toPlainText() == "one, and more"
    ctx.hub.changed.emit(notes.NOTES)  # a reload elsewhere keeps the typing too
    settle(qtbot, ctx)
    assert page.editor.content.toPlainText() == "one, and more" and page.editor.dirty


def test_a_reminder_snoozes_and_cancels_from_today(qtbot, ctx, answers) -> None:
    reminder = reminders.add(ctx.hearth, "stretch", clock.now() + timedelta(hours=1)).value
    page = open_page(qtbot, ctx, TodayPage)
    page.tree.setFocus()
    page.tree.setCurrentItem(row_of(page, "stretch"))
    assert page.snooze_button.isEnabled() and page.delete_button.text() == "Cance&l reminder…"
    later_on = clock.now() + timedelta(hours=3)
    page.snooze_until(later_on)
    settle(qtbot, ctx)
    [moved] = reminders.list_reminders(ctx.hearth, "pending")
    assert abs(moved.remind_at - later_on) < timedelta(seconds=2) and moved.snooze_count == 1
    page.tree.setCurrentItem(row_of(page, "stretch"))
    qtbot.keyClick(page.tree, Qt.Key.Key_Delete)
    settle(qtbot, ctx)
    assert answers == ["Cancel the reminder “stretch”?"]
    assert reminders.list_reminders(ctx.hearth, "cancelled")[0].id == reminder.id
    assert "reminders" not in sections(page) or sections(page)["reminders"] == []
