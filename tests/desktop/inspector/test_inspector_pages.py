"""The inspector views Facts, Profile, Scaffold, Habits and Follow-ups, driven like a user
drives them (edits through the models' edit path, buttons, dialogs), checked against core:
what the view saved is what the database, recall and the next system prompt say."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QComboBox, QDialog, QLineEdit

from core.conversation.system_prompt import build_system_prompt, read_snapshot
from core.knowledge.habits import HabitService
from core.recall import RecallQuery
from core.knowledge.notes_about_you import current_version, save_notes_about_you
from core.operations.changes import Changes, Domain
from core.storage.port import IndexedKind
from desktop.context import AppContext
from desktop import confirm
from desktop.inspector.base import InspectorPage
from desktop.inspector.fact_dialog import FactDialog
from desktop.inspector.facts import FactsPage
from desktop.inspector.follow_ups import FollowUpsPage
from desktop.inspector.json_tree import KEY, TYPE, VALUE
from desktop.inspector.habits import HabitsPage
from desktop.inspector.about_you import AboutYouPage
from desktop.inspector.notes_about_you import NotesAboutYouPage
from support.qt_waits import settle, wait_idle

P = TypeVar("P", bound=InspectorPage)


@pytest.fixture
def answers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every confirmation is answered yes and its question recorded; a test that wants a no
    appends "no" before acting."""
    asked: list[str] = []

    def ask(_parent: Any, title: str, text: str, action: str = "Delete") -> bool:
        asked.append(text)
        return "no" not in asked[:-1]

    monkeypatch.setattr(confirm, "ask", ask)
    return asked


def open_page(qtbot, ctx: AppContext, cls: type[P]) -> P:
    page = cls(ctx)
    qtbot.addWidget(page)
    page.resize(1000, 600)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)
    return page


def edit_cell(page: FactsPage, key: str, column: int, text: str) -> None:
    """What the view's editor does on Enter: set the cell's text through the proxy."""
    assert page.select(key_id(page, key))
    row = page.view.selectionModel().selectedRows()[0].row()
    assert page.proxy.setData(page.proxy.index(row, column), text, Qt.ItemDataRole.EditRole)


def key_id(page: FactsPage, key: str) -> int:
    return next(f.id for f in page.model.records() if f.key == key)


def shown_keys(page: FactsPage) -> list[str]:
    return sorted(page.proxy.index(row, 0).data() for row in range(page.proxy.rowCount()))


def system_prompt_text(ctx: AppContext) -> str:
    """The system prompt the next turn would send (it is rebuilt from memory each turn)."""
    with ctx.hearth.storage.read() as session:
        snapshot = read_snapshot(session)
    return build_system_prompt(snapshot, supports_tools=True, about_you_char_cap=4000,
                               max_tokens=4000).text


def answer_dialog(act: Callable[[QDialog], None]) -> None:
    """Answer the next modal dialog as a user would, once it is open."""

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, answer)
            return
        assert isinstance(dialog, QDialog)
        act(dialog)

    QTimer.singleShot(0, answer)


# --- facts ------------------------------------------------------------------------------------


def test_editing_a_value_persists_and_reaches_the_next_prompt(qtbot, ctx) -> None:
    ctx.hearth.facts.remember("home_city", "Lisbon", "location")
    page = open_page(qtbot, ctx, FactsPage)
    assert "- home_city: Lisbon" in system_prompt_text(ctx)
    changes: list[Changes] = []
    ctx.hub.changed.connect(changes.append)

    edit_cell(page, "home_city", 1, "Porto")
    assert page.proxy.index(0, 1).data() == "Porto"  # shown while it saves
    settle(qtbot, ctx)

    fact = ctx.hearth.facts.get("home_city")
    assert fact is not None and (fact.value, fact.source) == ("Porto", "user")
    prompt = system_prompt_text(ctx)
    assert "- home_city: Porto" in prompt and "Lisbon" not in prompt
    assert changes and changes[-1].touches(Domain.FACTS), "other views are told facts changed"
    assert page.model.records()[0].value == "Porto"


def test_an_empty_value_is_refused_with_a_reason_and_loses_nothing(qtbot, ctx) -> None:
    ctx.hearth.facts.remember("home_city", "Lisbon", "location")
    page = open_page(qtbot, ctx, FactsPage)
    edit_cell(page, "home_city", 1, "   ")
    settle(qtbot, ctx)
    assert ctx.hearth.facts.get("home_city").value == "Lisbon"
    assert page.proxy.index(0, 1).data() == "Lisbon"
    assert not page.notice.isHidden() and "needs a value" in page.notice.text()


def test_delete_removes_the_fact_alone_and_undo_brings_it_back(qtbot, ctx) -> None:
    """The junk fact "priya: Lisbon" beside the right one: Delete (the key) asks nothing,
    leaves the right fact and the user's message as they were, and the bar's Undo brings
    it back."""
    from core.storage.orm import ChatSession, Interaction

    with ctx.hearth.storage.write() as session:
        session.add(ChatSession(id="chat-1", title="Priya in Lisbon"))
        session.flush()
        session.add(Interaction(session_id="chat-1", user_message=(
            "My sister Priya lives in Lisbon and works as a nurse.")))
    ctx.hearth.facts.remember("priya", "Lisbon", source="learning")
    ctx.hearth.facts.remember("sister_home_city", "Lisbon", "location", source="learning")
    query = RecallQuery(text="priya Lisbon", kinds=(IndexedKind.FACT,))
    junk = ctx.hearth.facts.get("priya").id
    page = open_page(qtbot, ctx, FactsPage)
    page.select(junk)

    page.view.setFocus()
    qtbot.keyClick(page.view, Qt.Key.Key_Delete)
    settle(qtbot, ctx)
    assert ctx.hearth.facts.get("priya") is None
    assert junk not in [r.id for r in ctx.hearth.recall.recall(query)]
    assert ctx.hearth.facts.get("sister_home_city").value == "Lisbon"
    with ctx.hearth.storage.read() as session:
        assert session.get(Interaction, 1).user_message.startswith("My sister Priya lives in "
                                                                   "Lisbon")
    assert shown_keys(page) == ["sister home city"]
    bar = page.undo_bar
    assert bar.isVisible()
    assert bar.label.text().startswith("Deleted the fact “priya: Lisbon”. Nothing else "
                                       "changed.")

    qtbot.mouseClick(bar.undo_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctx)
    assert ctx.hearth.facts.get("priya").value == "Lisbon"
    assert sorted(shown_keys(page)) == ["priya", "sister home city"]
    assert not bar.isVisible()


def test_erase_everywhere_lists_each_place_and_keeps_what_is_unticked(
        qtbot, ctx) -> None:
    value = "ZQX-passport-93817446"
    ctx.hearth.facts.remember("passport", value, "personal")
    ctx.hearth.facts.remember("old_passport", value, "personal")
    held = ctx.hearth.memories.add(f"My passport {value} is in the blue drawer.")
    noted = ctx.hearth.memories.add(f"Renew passport {value} before May.")
    kept = ctx.hearth.memories.add("The tomatoes need water.")
    backup = ctx.hearth.backup().path
    page = open_page(qtbot, ctx, FactsPage)
    page.select(key_id(page, "passport"))

    page.erase_selected()
    settle(qtbot, ctx)
    dialog = page.erase_dialog
    assert dialog is not None and dialog.isVisible()
    assert "cannot be undone" in dialog.explain.text()
    lines = {dialog.tree.topLevelItem(i).text(0): dialog.tree.topLevelItem(i)
             for i in range(dialog.tree.topLevelItemCount())}
    other = next(item for text, item in lines.items() if "old passport" in text)
    assert other.checkState(0) == Qt.CheckState.Unchecked  # another fact: not ticked
    assert other.child(0).text(0) == f"«{value}»"
    dialog.tick(f"memories:{noted.id}", False)  # the person keeps this one
    qtbot.mouseClick(dialog.erase_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctx)

    assert ctx.hearth.facts.get("passport") is None
    assert ctx.hearth.facts.get("old_passport").value == value
    assert ctx.hearth.memories.get(held.id).content == (
        "My passport [forgotten] is in the blue drawer.")
    assert ctx.hearth.memories.get(noted.id).content == noted.content
    assert ctx.hearth.memories.get(kept.id).content == kept.content
    result = page.forget_result
    assert result is not None and result.isVisible()
    summary = result.summary.text()
    assert "It cannot be brought back." in summary and "memories 1" in summary
    assert "Left as they were: 2 places" in summary and "no copy is left" not in summary
    assert "1 backup taken before still holds it" in result.backups.text()
    assert "the backup of " in result.backups.text()  # named by when, not by file name
    assert backup.name not in result.backups.text()

    qtbot.mouseClick(result.remove, Qt.MouseButton.LeftButton)
    assert not result.buttons.isEnabled()  # the outcome has to be seen: no closing meanwhile
    settle(qtbot, ctx)
    assert result.outcome.text() == "Removed it from 1 backup."
    assert b"93817446" not in backup.read_bytes()
    result.reject()
    assert not result.isVisible()


def test_adding_a_fact_through_the_dialog(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, FactsPage)

    def fill(dialog: QDialog) -> None:
        assert isinstance(dialog, FactDialog)
        dialog.key.setText("Partner's name")
        assert "partner_s_name" in dialog.hint.text()
        dialog.value.setText("Ana")
        dialog.category.setCurrentText("personal")
        dialog.accept()

    answer_dialog(fill)
    page.add_fact()
    settle(qtbot, ctx)
    fact = ctx.hearth.facts.get("partner_s_name")
    assert fact is not None and (fact.value, fact.category, fact.source) == (
        "Ana", "personal", "user")
    assert shown_keys(page) == ["partner s name"]  # as words, not partner_s_name


def test_the_fact_dialog_refuses_a_key_without_letters(qapp) -> None:
    dialog = FactDialog(["home_city"])
    save = dialog.buttons.button(dialog.buttons.StandardButton.Save)
    dialog.key.setText("!!!")
    dialog.value.setText("x")
    assert not save.isEnabled() and "no letters or digits" in dialog.hint.text()
    dialog.key.setText("Home city")
    assert save.isEnabled() and "will be replaced" in dialog.hint.text()


def test_keyboard_f2_edits_the_value_and_ctrl_f_finds(qtbot, ctx) -> None:
    ctx.hearth.facts.remember("home_city", "Lisbon", "location")
    page = open_page(qtbot, ctx, FactsPage)
    page.activateWindow()
    page.select(key_id(page, "home_city"))  # the current cell is the key: not editable
    page.view.setFocus()
    qtbot.keyClick(page.view, Qt.Key.Key_F2)
    editor = next(e for e in page.view.viewport().findChildren(QLineEdit) if e.isVisible())
    assert editor.text() == "Lisbon"
    editor.setText("Porto")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: ctx.hearth.facts.get("home_city").value == "Porto")
    settle(qtbot, ctx)

    qtbot.keyClick(page.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert page.search.hasFocus()


def test_a_reload_waits_for_the_open_editor(qtbot, ctx) -> None:
    ctx.hearth.facts.remember("home_city", "Lisbon", "location")
    page = open_page(qtbot, ctx, FactsPage)
    page.select(key_id(page, "home_city"))
    page.edit_current()
    editor = next(e for e in page.view.viewport().findChildren(QLineEdit) if e.isVisible())
    editor.setText("Por")  # half typed when a chat turn stores another fact
    ctx.hearth.facts.remember("coffee", "black", "preference")
    ctx.hub.changed.emit(Changes.knowledge())
    settle(qtbot, ctx)
    assert editor.isVisible() and editor.text() == "Por"
    assert shown_keys(page) == ["home city"]
    qtbot.keyClick(editor, Qt.Key.Key_Escape)  # given up: now the new rows come in
    qtbot.waitUntil(lambda: shown_keys(page) == ["coffee", "home city"])


def test_category_filter_and_search(qtbot, ctx) -> None:
    facts = ctx.hearth.facts
    facts.remember("home_address", "12 Rua Nova, Lisbon", "location")
    facts.remember("work_address", "Avenida da Liberdade 3", "work")
    facts.remember("coffee", "black", "preference")
    page = open_page(qtbot, ctx, FactsPage)
    assert shown_keys(page) == ["coffee", "home address", "work address"]

    page.filter.setCurrentIndex(page.filter.findData("work"))
    settle(qtbot, ctx)
    assert shown_keys(page) == ["work address"]

    page.filter.setCurrentIndex(0)
    page.search.setText("address")  # core's search: key with spaces for underscores
    qtbot.waitUntil(lambda: shown_keys(page) == ["home address", "work address"])
    page.search.setText("home address")
    qtbot.waitUntil(lambda: shown_keys(page) == ["home address"])
    page.filter.setCurrentIndex(page.filter.findData("work"))
    qtbot.waitUntil(lambda: shown_keys(page) == [])


def test_the_selected_fact_shows_its_earlier_values(qtbot, ctx) -> None:
    facts = ctx.hearth.facts
    facts.remember("home_city", "Lisbon", "location")
    facts.remember("home_city", "Porto", "location")
    facts.remember("home_city", "Braga", "location", source="agent")
    page = open_page(qtbot, ctx, FactsPage)
    page.select(key_id(page, "home_city"))
    qtbot.waitUntil(lambda: page.detail.history.rowCount() == 2)
    history = page.detail.history
    assert [history.index(row, 0).data() for row in range(2)] == ["Porto", "Lisbon"]
    assert page.detail.value.text() == "Braga"
    assert page.detail.heading.text() == "home city"  # in words; stored as home_city
    assert "home_city" in page.detail.heading.toolTip()
    assert "Earlier values (2)" in page.detail.history_caption.text()
    # who set each value, in words: "agent" is Hearth, "user" is you
    assert "from Hearth" in page.detail.meta.text()
    assert [history.index(row, 1).data() for row in range(2)] == ["you", "you"]
    row = page.model.row_of(key_id(page, "home_city"))
    assert page.model.index(row, 3).data() == "Hearth"


# --- profile ----------------------------------------------------------------------------------


def test_profile_edit_makes_a_version_shows_the_diff_and_restores(
        qtbot, ctx, answers) -> None:
    first = ctx.hearth.about_you.save("# Personal\nLives in Lisbon.", "reflection")
    page = open_page(qtbot, ctx, AboutYouPage)
    qtbot.waitUntil(lambda: "Lisbon" in page.viewer.toPlainText())
    assert page.viewer.document().toMarkdown().startswith("# Personal")  # rendered

    page.start_editing()
    qtbot.waitUntil(lambda: page.stack.currentIndex() == 1)
    page.editor.setPlainText("# Personal\nLives in Porto.")
    page.save_edit()
    settle(qtbot, ctx)
    current = ctx.hearth.about_you.current()
    assert current.id != first.id and current.source == "user"
    assert "Porto" in current.content and page.stack.currentIndex() == 0
    assert page.versions.rowCount() == 2
    # Changes reads as the text with the edit marked, not as diff syntax
    qtbot.waitUntil(lambda: "Porto" in page.changes.toPlainText())
    page.tabs.setCurrentIndex(1)
    assert page.changes.isVisible() and not page.diff.isVisible()
    shown = page.changes.toPlainText()
    assert "@@" not in shown and "+Lives" not in shown and "# Personal" not in shown
    edited = [p for p in page.changes.paragraphs if p.change == "changed"]
    assert [(piece.text, piece.change) for piece in edited[0].pieces] == [
        ("Lives in ", "same"), ("Lisbon.", "removed"), (" ", "same"), ("Porto.", "added")]
    assert "line-through" in page.changes.toHtml()
    assert shown.startswith("1 paragraph changed.")
    page.as_diff.setChecked(True)  # the unified diff, one tick away
    assert page.diff.isVisible() and not page.changes.isVisible()
    assert "+Lives in Porto." in page.diff.toPlainText()
    assert "-Lives in Lisbon." in page.diff.toPlainText()

    page.select_versions([first.id])
    qtbot.waitUntil(lambda: page.restore_button.isEnabled())
    page.restore_selected()
    settle(qtbot, ctx)
    restored = ctx.hearth.about_you.current()
    assert restored.source == "restore" and restored.content == first.content
    assert answers and f"v{first.id}" in answers[0]
    assert page.versions.rowCount() == 3


def test_two_selected_versions_are_compared(qtbot, ctx) -> None:
    profile = ctx.hearth.about_you
    one = profile.save("# Notes\nalpha", "reflection")
    profile.save("# Notes\nbeta", "reflection")
    three = profile.save("# Notes\ngamma", "reflection")
    page = open_page(qtbot, ctx, AboutYouPage)
    page.select_versions([one.id, three.id])
    qtbot.waitUntil(lambda: "alpha" in page.changes.toPlainText())
    assert [(p.change, p.text) for p in page.changes.paragraphs] == [
        ("same", "# Notes"), ("removed", "alpha"), ("added", "gamma")]
    text = page.diff.toPlainText()
    assert "+gamma" in text and "beta" not in text
    assert f"About you v{one.id}" in text and f"About you v{three.id}" in text


def test_an_empty_profile_says_how_one_comes_about_whole(qtbot, ctx) -> None:
    """The text used to be a text box's placeholder, cut off at the box's edge."""
    page = open_page(qtbot, ctx, AboutYouPage)
    assert page.empty.isVisible() and not page.tabs.isVisible()
    assert "Reflect now" in page.empty.text() and page.empty.wordWrap()
    assert page.empty.height() >= page.empty.heightForWidth(page.empty.width())
    page.start_editing()
    qtbot.waitUntil(lambda: page.tabs.isVisible() and page.stack.currentIndex() == 1)
    assert not page.empty.isVisible()
    page.stop_editing()
    assert page.empty.isVisible()


# --- scaffold ---------------------------------------------------------------------------------


def test_scaffold_edits_are_saved_as_a_new_user_version(qtbot, ctx, answers) -> None:
    storage = ctx.hearth.storage
    first = save_notes_about_you(storage, {"Running": {"weekly_km": 25, "goal": "10k"},
                                    "Projects": ["shed", "guitar"]}, "processor")
    page = open_page(qtbot, ctx, NotesAboutYouPage)
    model = page.model
    running = model.index(0, 0)
    assert model.index(0, 0, running).data() == "weekly km"  # in words; stored weekly_km

    assert not model.setData(model.index(0, VALUE, running), "lots")  # not a number
    assert "not a number" in page.notice.text()
    assert model.setData(model.index(0, VALUE, running), "30")
    assert model.setData(model.index(1, 0, running), "target race")  # rename a key
    assert not model.setData(model.index(1, 0, running), "weekly_km")  # duplicate key
    assert model.setData(model.index(0, TYPE, running), "text")  # 30 → "30"
    projects = model.index(1, 0)
    page.tree.setCurrentIndex(model.index(0, 0, projects))  # "shed"
    page.remove_selected()
    page.tree.setCurrentIndex(projects)
    page.add_entry()  # into a list: a new empty item, its editor open
    editor = next(e for e in page.tree.viewport().findChildren(QLineEdit) if e.isVisible())
    editor.setText("garden")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the view commits it on the next turn
    qtbot.waitUntil(lambda: model.index(1, VALUE, projects).data() == "garden")
    assert page.save_button.isEnabled()

    page.save()
    settle(qtbot, ctx)
    newest = current_version(storage)
    assert newest.id != first.id and newest.source == "user"
    assert newest.data == {"Running": {"weekly_km": "30", "target race": "10k"},
                           "Projects": ["guitar", "garden"]}
    assert not page.save_button.isEnabled()
    assert f"Version {newest.id}" in page.caption.text()


def test_unsaved_scaffold_edits_are_not_overwritten_by_a_reload(qtbot, ctx) -> None:
    storage = ctx.hearth.storage
    save_notes_about_you(storage, {"mood": "calm"}, "processor")
    page = open_page(qtbot, ctx, NotesAboutYouPage)
    assert page.model.setData(page.model.index(0, VALUE), "tired")
    save_notes_about_you(storage, {"mood": "calm", "sleep": "poor"}, "processor")
    ctx.hub.changed.emit(Changes.knowledge())
    settle(qtbot, ctx)
    assert page.model.to_data() == {"mood": "tired"}
    assert "newer version" in page.caption.text()
    page.revert()
    settle(qtbot, ctx)
    assert page.model.to_data() == {"mood": "calm", "sleep": "poor"}


def test_tab_after_a_new_key_goes_to_its_value(qtbot, ctx) -> None:
    """Typing key, Tab, value: the value used to land in the key (Qt reopened the key)."""
    page = open_page(qtbot, ctx, NotesAboutYouPage)
    page.add_entry()
    editor = next(e for e in page.tree.viewport().findChildren(QLineEdit) if e.isVisible())
    editor.selectAll()
    qtbot.keyClicks(editor, "hobby")
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: page.tree.currentIndex().column() == VALUE)
    editor = next(e for e in page.tree.viewport().findChildren(QLineEdit) if e.isVisible())
    qtbot.keyClicks(editor, "chess")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.model.to_data() == {"hobby": "chess"})


def test_the_type_column_names_types_in_words_and_fits_its_picker(qtbot, ctx) -> None:
    save_notes_about_you(ctx.hearth.storage, {"Running": {"goal": "10k", "races": 2, "ok": True},
                                       "Projects": ["shed"]}, "processor")
    page = open_page(qtbot, ctx, NotesAboutYouPage)
    model, running = page.model, page.model.index(0, 0)
    assert model.index(0, VALUE).data() == "3 entries"
    assert model.index(1, VALUE).data() == "1 item"  # not "[1 items]"
    assert model.index(0, KEY, model.index(1, 0)).data() == "item 1"  # not "[0]"
    assert [model.index(row, TYPE, running).data() for row in range(3)] == [
        "text", "number", "yes/no"]
    assert model.index(0, TYPE).data() == "group"
    cell = model.index(1, TYPE, running)  # races: 2
    page.tree.setCurrentIndex(cell)
    page.tree.edit(cell)
    picker = next(c for c in page.tree.viewport().findChildren(QComboBox) if c.isVisible())
    assert picker.currentData() == "number"
    assert picker.width() >= picker.sizeHint().width()  # not clipped to "te▾"
    assert page.tree.columnWidth(TYPE) >= picker.sizeHint().width()
    picker.setCurrentIndex(picker.findData("text"))
    picker.activated.emit(picker.currentIndex())  # what a click on the choice does
    qtbot.waitUntil(lambda: model.to_data()["Running"]["races"] == "2")
    assert model.index(1, TYPE, running).data() == "text"


def test_a_key_reads_as_words_and_is_edited_as_stored(qtbot, ctx) -> None:
    save_notes_about_you(ctx.hearth.storage, {"sister_name": "Priya"}, "processor")
    page = open_page(qtbot, ctx, NotesAboutYouPage)
    key = page.model.index(0, KEY)
    assert key.data() == "sister name"  # not sister_name
    assert key.data(Qt.ItemDataRole.EditRole) == "sister_name"
    assert "sister_name" in key.data(Qt.ItemDataRole.ToolTipRole)
    page.model.setData(page.model.index(0, VALUE), "Priya Rao")
    assert page.model.to_data() == {"sister_name": "Priya Rao"}  # the key is kept as stored


# --- habits --------------------------------------------------------------------------------


def _learning(service: HabitService, rule: str) -> int:
    return service.observe(rule, "style", run_started_at=datetime.now(UTC)).habit.id


def test_learnings_promote_demote_delete(qtbot, ctx, answers) -> None:
    habits = ctx.hearth.habits
    brief = _learning(habits, "Keep answers short")
    confirm_first = _learning(habits, "Confirm before deleting anything")
    page = open_page(qtbot, ctx, HabitsPage)
    assert page.model.rowCount() == 2

    page.select(brief)
    assert page.promote.isEnabled() and not page.demote.isEnabled()
    page.promote.click()
    settle(qtbot, ctx)
    assert habits.get(brief).status == "active"
    assert "- keep answers short" in system_prompt_text(ctx)
    assert page.demote.isEnabled() and not page.promote.isEnabled()  # still selected

    page.demote.click()
    settle(qtbot, ctx)
    assert habits.get(brief).status == "candidate"
    assert "keep answers short" not in system_prompt_text(ctx)

    page.filter.setCurrentIndex(page.filter.findData("active"))
    settle(qtbot, ctx)
    assert page.model.rowCount() == 0
    page.filter.setCurrentIndex(0)
    settle(qtbot, ctx)

    page.select(confirm_first)
    page.delete_selected()
    settle(qtbot, ctx)
    assert "confirm before deleting anything" in answers[0]
    assert [item.id for item in habits.list()] == [brief]
    assert [page.model.record(row).id for row in range(page.model.rowCount())] == [brief]


# --- follow_ups -------------------------------------------------------------------------------


def test_intentions_resolve_snooze_dismiss(qtbot, ctx, answers) -> None:
    follow_ups = ctx.hearth.follow_ups
    yesterday = datetime.now(UTC) - timedelta(days=1)
    dentist, _ = follow_ups.add("Call the dentist", context="tooth ache", follow_up_at=yesterday)
    taxes, _ = follow_ups.add("File the taxes", follow_up_at=yesterday)
    gym, _ = follow_ups.add("Join a gym")
    page = open_page(qtbot, ctx, FollowUpsPage)
    assert page.model.rowCount() == 3
    due = page.model.index(page.model.row_of(dentist.id), 3).data()
    assert due.endswith("· due")

    page.select(dentist.id)
    page.resolve.click()
    settle(qtbot, ctx)
    assert follow_ups.get(dentist.id).status == "resolved"
    assert page.model.row_of(dentist.id) is None  # the filter shows open ones

    until = datetime.now(UTC) + timedelta(days=3)
    page.select(taxes.id)
    page.snooze_until(until)
    settle(qtbot, ctx)
    snoozed = follow_ups.get(taxes.id)
    assert snoozed.status == "open" and abs(snoozed.follow_up_at - until) < timedelta(seconds=1)
    assert not follow_ups.due()

    page.select(gym.id)
    page.view.setFocus()
    qtbot.keyClick(page.view, Qt.Key.Key_Delete)
    settle(qtbot, ctx)
    assert "Join a gym" in answers[0]
    assert follow_ups.get(gym.id).status == "dismissed"

    page.filter.setCurrentIndex(page.filter.findData(None))
    settle(qtbot, ctx)
    assert page.model.rowCount() == 3  # nothing is deleted


def test_the_snooze_menu_offers_times_from_now(qtbot, ctx) -> None:
    follow_up, _ = ctx.hearth.follow_ups.add("Water the plants")
    page = open_page(qtbot, ctx, FollowUpsPage)
    page.select(follow_up.id)
    page.snooze_menu.aboutToShow.emit()  # what opening the menu does
    labels = [action.text() for action in page.snooze_menu.actions() if action.text()]
    assert labels[0].startswith("In an hour") and labels[-1] == "Pick a date and time…"
    page.snooze_menu.actions()[1].trigger()  # tomorrow morning
    settle(qtbot, ctx)
    follow_up = ctx.hearth.follow_ups.get(follow_up.id).follow_up_at.astimezone()
    assert (follow_up.hour, follow_up.minute) == (9, 0)
    assert follow_up.date() == (datetime.now().astimezone() + timedelta(days=1)).date()


def test_a_category_edit_moves_the_fact_and_keeps_its_value(qtbot, ctx) -> None:
    ctx.hearth.facts.remember("coffee", "black", "general")
    page = open_page(qtbot, ctx, FactsPage)
    edit_cell(page, "coffee", 2, "preference")
    settle(qtbot, ctx)
    fact = ctx.hearth.facts.get("coffee")
    assert (fact.category, fact.value) == ("preference", "black")
    assert page.proxy.index(0, 2).data() == "preference"  # the table shows what is stored
    assert ctx.hearth.facts.history("coffee") == []  # the value did not change


def test_the_tree_converts_types_only_where_nothing_is_lost(qapp) -> None:
    from desktop.inspector.json_tree import JsonTreeModel

    model = JsonTreeModel()
    model.set_data({"age": "41", "pets": ["cat"], "note": "hi"})
    refusals: list[str] = []
    model.refused.connect(refusals.append)
    assert model.setData(model.index(0, TYPE), "number")  # "41" reads as a number
    assert not model.setData(model.index(2, TYPE), "number")  # "hi" does not
    assert not model.setData(model.index(1, TYPE), "text")  # would drop the list's items
    assert model.setData(model.index(2, TYPE), "boolean") is False
    assert model.to_data() == {"age": 41, "pets": ["cat"], "note": "hi"}
    assert len(refusals) == 3 and "Remove the entries" in refusals[1]


def test_with_no_facts_the_detail_says_how_they_come(qtbot, ctx) -> None:
    page = open_page(qtbot, ctx, FactsPage)
    assert page.detail.heading.text() == "No facts yet"
    assert "Add…" in page.detail.value.text()
    ctx.hearth.facts.remember("home_city", "Porto", "location")
    page.reload()
    settle(qtbot, ctx)
    assert page.detail.heading.text() == "No fact selected"
    page.filter.setCurrentIndex(page.filter.findData("work"))
    settle(qtbot, ctx)
    assert page.detail.heading.text() == "No fact matches"
