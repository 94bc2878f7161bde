"""The Schedule view driven as a user drives it: a scheduled prompt written in the editor and
saved, its timetable picked in words (the cron behind Details), a bad cron refused with
core's sentence and the typing kept, an edit, a pause, a delete; the task alerts switched
off and given another quiet time. Checked against the real database through
``core.operations.prompts``."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt, QTime

from core.operations import prompts
from desktop.daily.schedule import SchedulePage, quiet_words
from desktop import confirm
from support.qt_waits import settle


@pytest.fixture
def page(qtbot, ctx) -> SchedulePage:
    shown = SchedulePage(ctx)
    qtbot.addWidget(shown)
    shown.resize(1100, 650)
    shown.show()
    shown.activate()
    settle(qtbot, ctx)
    return shown


def fill(qtbot, page: SchedulePage, *, name: str, prompt: str, cron: str,
         zone: str = "") -> None:
    editor = page.editor
    for field, text in ((editor.name, name), (editor.timetable.cron, cron),
                        (editor.zone, zone)):
        field.clear()
        qtbot.keyClicks(field, text)
    editor.prompt.setPlainText(prompt)


def save(qtbot, page: SchedulePage) -> None:
    page.editor.save.click()
    settle(qtbot, page.ctx)


def test_a_prompt_written_in_the_editor_is_scheduled_and_listed(qtbot, ctx, page) -> None:
    assert page.empty.isVisible() and "No scheduled prompts" in page.empty.text()
    fill(qtbot, page, name="Morning plan", prompt="What is on my plate today?",
         cron="0 9 * * 1-5", zone="Europe/Lisbon")
    save(qtbot, page)
    [stored] = prompts.list_prompts(ctx.hearth)
    assert (stored.name, stored.prompt, stored.cron, stored.zone, stored.enabled) == (
        "Morning plan", "What is on my plate today?", "0 9 * * 1-5", "Europe/Lisbon", True)
    assert page.model.rowCount() == 1 and page.selected().id == stored.id
    assert stored.next_run_at is not None
    assert page.model.index(0, 2).data() != "paused"
    assert "next run" in page.editor.heading.text()


def test_a_timetable_is_picked_in_words_and_listed_in_words(qtbot, ctx, page) -> None:
    """No cron to write: "Once a week on Sunday at 18:30" is chosen from lists, stored as
    the cron ``hearth prompts`` shows, listed as "Sundays at 18:30"; the cron waits behind
    Details, and one the picker has no words for reads "Custom" with Details open."""
    editor = page.editor
    picker = editor.timetable
    assert not picker.details.is_open and not picker.cron.isVisibleTo(page)
    assert picker.repeat.currentText() == "Weekdays (Monday to Friday)"  # a new prompt
    editor.name.setText("Sunday review")
    editor.prompt.setPlainText("How did the week go?")
    picker.repeat.setCurrentIndex(picker.repeat.findData("weekly"))
    picker.day.setCurrentIndex(picker.day.findText("Sunday"))
    picker.time.setTime(QTime(18, 30))
    assert picker.cron.text() == "30 18 * * 0" and editor.dirty
    save(qtbot, page)
    [stored] = prompts.list_prompts(ctx.hearth)
    assert stored.cron == "30 18 * * 0"
    assert page.model.index(0, 1).data() == "Sundays at 18:30"

    picker.details.set_open(True)
    picker.cron.setText("0 */2 * * *")
    assert picker.repeat.currentText() == "Custom (see Details)" and picker.details.is_open
    assert not picker.time.isVisibleTo(page)
    save(qtbot, page)
    assert page.model.index(0, 1).data() == "A custom timetable"
    picker.cron.setText("0 7 1 * *")
    assert picker.repeat.currentData() == "monthly" and picker.date.text() == "1st"


def test_a_bad_cron_is_refused_with_a_sentence_and_the_typing_stays(qtbot, ctx, page) -> None:
    fill(qtbot, page, name="Weekly", prompt="How did the week go?", cron="every sunday")
    save(qtbot, page)
    assert prompts.list_prompts(ctx.hearth) == ()
    notice = page.editor.notice
    assert notice.isVisibleTo(page) and "is not a 5-field cron schedule" in notice.text()
    assert "minute hour" in notice.text()  # the hint says how to write one
    assert page.editor.timetable.cron.text() == "every sunday" and page.editor.dirty

    page.editor.timetable.cron.setText("0 18 * * 0")
    save(qtbot, page)
    [stored] = prompts.list_prompts(ctx.hearth)
    assert stored.cron == "0 18 * * 0" and not page.editor.notice.isVisibleTo(page)


def test_edit_pause_and_delete_a_prompt(qtbot, ctx, page, monkeypatch) -> None:
    first = prompts.add(ctx.hearth, "Evening", "Anything left for today?", "0 20 * * *").value
    page.reload()
    settle(qtbot, page.ctx)
    assert page.select(first.id)
    assert page.editor.name.text() == "Evening" and not page.editor.dirty

    page.editor.timetable.cron.setText("30 21 * * *")
    page.editor.enabled.setChecked(False)
    save(qtbot, page)
    stored = prompts.list_prompts(ctx.hearth)[0]
    assert (stored.cron, stored.enabled, stored.next_run_at) == ("30 21 * * *", False, None)
    assert page.model.index(0, 2).data() == "paused"
    assert "paused" in page.editor.heading.text()

    asked: list[str] = []
    monkeypatch.setattr(confirm, "ask", lambda _p, _t, text, action="Delete": (
        asked.append(text) or True))
    page.editor.delete.click()
    settle(qtbot, page.ctx)
    assert asked == ["Delete the scheduled prompt “Evening”?\n\nIt cannot be brought back."]
    assert prompts.list_prompts(ctx.hearth) == ()
    assert page.model.rowCount() == 0


def test_a_disabled_new_prompt_is_stored_paused(qtbot, ctx, page) -> None:
    fill(qtbot, page, name="Later", prompt="Ping", cron="0 7 1 * *")
    page.editor.enabled.setChecked(False)
    save(qtbot, page)
    [stored] = prompts.list_prompts(ctx.hearth)
    assert not stored.enabled and stored.next_run_at is None


def test_task_alerts_are_switched_and_their_quiet_time_changed(qtbot, ctx, page) -> None:
    due, overdue = page.alert_rows["task_due_today"], page.alert_rows["task_overdue"]
    assert due.enabled.isChecked() and overdue.enabled.isChecked()
    assert due.cooldown.value() == 24 * 60 and due.words.text() == "(1 day)"
    assert due.last.text() == "never fired"

    overdue.enabled.click()
    settle(qtbot, ctx)
    rules = {item.kind: item for item in prompts.list_alerts(ctx.hearth)}
    assert not rules["task_overdue"].enabled and rules["task_due_today"].enabled

    due.cooldown.setFocus()
    due.cooldown.selectAll()
    qtbot.keyClicks(due.cooldown, "90")
    qtbot.keyClick(due.cooldown, Qt.Key.Key_Return)
    settle(qtbot, ctx)
    rules = {item.kind: item for item in prompts.list_alerts(ctx.hearth)}
    assert rules["task_due_today"].cooldown_minutes == 90
    assert due.words.text() == "(1 h 30 min)"
    assert not overdue.enabled.isChecked()  # the reload showed what is stored


def test_an_alert_changed_elsewhere_shows_without_a_click(qtbot, ctx, page) -> None:
    prompts.set_alert(ctx.hearth, "task_due_today", enabled=False, cooldown_minutes=45)
    settle(qtbot, ctx)  # the change feed told the view
    row: Any = page.alert_rows["task_due_today"]
    assert not row.enabled.isChecked() and row.cooldown.value() == 45
    assert prompts.list_alerts(ctx.hearth)[0].cooldown_minutes == 45  # nothing written back


@pytest.mark.parametrize(("minutes", "words"), [(1440, "1 day"), (90, "1 h 30 min"),
                                                (2 * 1440 + 5, "2 days 5 min"), (1, "1 min")])
def test_quiet_words(minutes: int, words: str) -> None:
    assert quiet_words(minutes) == words
