"""The Memories, Activity and Stats views against a real data folder: what they list, what
their actions change in core, and what their plots draw."""

from __future__ import annotations

import json

from core.operations.data import backup_words
from core.operations.changes import Changes

from collections.abc import Callable

import numpy as np
from support.qt_waits import wait_idle
import pytest
from PySide6.QtCore import QItemSelectionModel, Qt, QUrl
from PySide6.QtWidgets import QInputDialog

from core.app import Hearth
from core.consolidation.processor import MemoryProcessor
from core.consolidation.runs import RunRecorder
from core.learning.events import add_event
from core.recall import RecallQuery
from core.views import memory_browse
from desktop.context import AppContext
from desktop.inspector.activity import ActivityPage
from desktop.inspector.memories import MemoriesPage
from desktop.inspector.memory_detail import DETAILS_LINK
from desktop.inspector.stats import StatsPage
from desktop.registry import PAGES
from support.scripted_llm import ScriptedLLM, failing
from test_views import NOW, Seeded, seed



def shown(qtbot, ctx: AppContext, page_class: Callable[[AppContext], object]):
    page = page_class(ctx)
    qtbot.addWidget(page)
    page.resize(1100, 700)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)
    return page


def recalled(hearth: Hearth, text: str) -> list[int]:
    return [r.id for r in hearth.recall.recall(RecallQuery(text=text, graph=0))]


# --- Memories -----------------------------------------------------------------------------


@pytest.fixture
def seeded(ctx: AppContext) -> Seeded:
    return seed(ctx.hearth)


def test_the_pages_are_registered_in_order() -> None:
    mine = [spec for spec in PAGES if spec.split(":")[0].split(".")[-1]
            in ("memories", "activity", "stats")]
    assert mine == ["desktop.inspector.memories:MemoriesPage",
                    "desktop.inspector.activity:ActivityPage",
                    "desktop.inspector.stats:StatsPage"]


def test_browsing_lists_valid_memories_newest_first(qtbot, ctx: AppContext,
                                                    seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    assert [row.id for row in page.model.records()] == [
        seeded.pinned, seeded.episode, seeded.new_job, seeded.cat, seeded.cello]
    assert page.summary.text() == "5 memories"
    assert page.view.isColumnHidden(0)  # no score without a search


def test_search_shows_scored_results_with_their_signals(qtbot, ctx: AppContext,
                                                        seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.search_box.setText("cello")
    page.reload()
    wait_idle(qtbot, ctx)
    first = page.model.record(0)
    assert first.id == seeded.cello and first.score is not None and first.score > 0
    assert not page.view.isColumnHidden(0)
    assert page.model.index(0, 0).data() == f"{first.score:.3f}"
    assert page.model.index(0, 2).data().startswith("its words · its meaning")
    page.select(seeded.cello)
    wait_idle(qtbot, ctx)
    plain = page.detail_pane.browser.toPlainText()
    assert "Found by its words and its meaning." in plain and "BM25" not in plain
    page.detail_pane.toggle_details()
    details = page.detail_pane.browser.toPlainText()
    assert "Why it matched" in details and "Found by its meaning" in details


def test_filters_narrow_the_list(qtbot, ctx: AppContext, seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.filters.types.setCurrentIndex(page.filters.types.findData("episodic"))
    page.reload()
    wait_idle(qtbot, ctx)
    assert [row.id for row in page.model.records()] == [seeded.episode]

    page.filters.types.setCurrentIndex(0)
    page.filters.validity.setCurrentIndex(
        page.filters.validity.findData(memory_browse.Validity.SUPERSEDED))
    page.reload()
    wait_idle(qtbot, ctx)
    assert [row.id for row in page.model.records()] == [seeded.old_job, seeded.oldest_job]
    assert page.filters.namespace.findText("user/trips") >= 0  # offered from the data


def test_a_backwards_time_range_is_explained_and_loads_nothing(qtbot, ctx: AppContext,
                                                               seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    before = page.model.records()
    page.filters.period.setCurrentIndex(page.filters.period.count() - 1)  # Between…
    page.filters.since.setDate(page.filters.until.date().addDays(3))
    assert page.reload() is None
    assert "ends before it starts" in page.notice.text() and not page.notice.isHidden()
    assert page.model.records() == before


def test_the_list_reads_further_pages_as_it_scrolls(qtbot, ctx: AppContext, seeded: Seeded,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_browse, "PAGE_SIZE", 2)
    page = shown(qtbot, ctx, MemoriesPage)
    assert page.model.rowCount() == 2 and page.model.canFetchMore()
    page.model.fetchMore()
    wait_idle(qtbot, ctx)
    page.model.fetchMore()
    wait_idle(qtbot, ctx)
    assert [row.id for row in page.model.records()] == [
        seeded.pinned, seeded.episode, seeded.new_job, seeded.cat, seeded.cello]
    assert not page.model.canFetchMore()


def test_the_detail_shows_edges_and_the_supersede_chain_and_links_jump(
        qtbot, ctx: AppContext, seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.show_memory(seeded.old_job)  # superseded: not in the valid list, shown alone
    wait_idle(qtbot, ctx)
    detail = page.detail_pane.detail
    assert detail is not None and detail.id == seeded.old_job
    assert [link.memory.id for link in detail.replaced_by] == [seeded.new_job]
    assert [link.memory.id for link in detail.replaced] == [seeded.oldest_job]
    text = page.detail_pane.browser.toPlainText()
    assert "Replaced by (newer)" in text and f"#{seeded.new_job}" in text

    page.detail_pane.browser.anchorClicked.emit(QUrl(f"memory:{seeded.cello}"))
    wait_idle(qtbot, ctx)
    assert page.selected().id == seeded.cello
    edges = [(e.kind, e.other.id) for e in page.detail_pane.detail.edges]
    assert edges == [("knn", seeded.episode), ("dream", seeded.cat)]
    assert "Related memories (2)" in page.detail_pane.browser.toPlainText()
    assert "knn 0.71 →" not in page.detail_pane.browser.toPlainText()  # behind Details
    page.detail_pane.browser.anchorClicked.emit(QUrl(DETAILS_LINK))
    assert "knn 0.71 →" in page.detail_pane.browser.toPlainText()


def test_invalidate_asks_why_and_restore_brings_it_back(qtbot, ctx: AppContext,
                                                        seeded: Seeded,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    assert seeded.cello in recalled(ctx.hearth, "cello")
    page.select(seeded.cello)
    wait_idle(qtbot, ctx)

    monkeypatch.setattr(QInputDialog, "getText", lambda *_a, **_k: ("   ", True))
    page.detail_pane.invalidate_button.click()
    assert "only invalidated with a reason" in page.notice.text()
    assert ctx.hearth.memories.get(seeded.cello).is_valid

    monkeypatch.setattr(QInputDialog, "getText",
                        lambda *_a, **_k: ("They gave up the cello.", True))
    page.detail_pane.invalidate_button.click()
    wait_idle(qtbot, ctx)
    stored = ctx.hearth.memories.get(seeded.cello)
    assert (stored.is_valid, stored.invalid_reason) == (False, "They gave up the cello.")
    assert seeded.cello not in recalled(ctx.hearth, "cello")
    assert seeded.cello not in [row.id for row in page.model.records()]
    assert page.detail_pane.detail.state == "invalid"  # still shown, with its new state
    assert page.detail_pane.restore_button.isEnabled()

    page.detail_pane.restore_button.click()
    wait_idle(qtbot, ctx)
    assert seeded.cello in recalled(ctx.hearth, "cello")
    assert seeded.cello in [row.id for row in page.model.records()]


def test_pin_moves_a_memory_to_the_core_tier(qtbot, ctx: AppContext, seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(seeded.cat)
    wait_idle(qtbot, ctx)
    page.detail_pane.pin_button.click()
    wait_idle(qtbot, ctx)
    assert ctx.hearth.memories.get(seeded.cat).tier == "core"
    assert page.detail_pane.detail.tier == "core"
    assert not page.detail_pane.pin_button.isEnabled()


def test_memory_changes_elsewhere_reload_the_list(qtbot, ctx: AppContext,
                                                  seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    added = ctx.hearth.memories.add("The user started learning the violin.")
    ctx.hub.changed.emit(Changes.knowledge())
    wait_idle(qtbot, ctx)
    assert page.model.record(0).id == added.id


def test_search_results_give_the_text_column_the_room(qtbot, ctx: AppContext,
                                                     seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.search_box.setText("cello")
    page.reload()
    wait_idle(qtbot, ctx)
    width = page.view.viewport().width()
    assert page.view.columnWidth(1) >= width // 2
    assert all(page.view.isColumnHidden(column) for column in (3, 4, 5, 7))  # internals

    page.set_column_shown(5, True)  # asked for from the header's menu
    assert not page.view.isColumnHidden(5)
    page.reload()
    wait_idle(qtbot, ctx)
    assert not page.view.isColumnHidden(5)  # the choice outlives a reload


def test_the_detail_clears_when_its_memory_leaves_the_list(qtbot, ctx: AppContext,
                                                           seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(seeded.new_job)
    wait_idle(qtbot, ctx)
    pane = page.detail_pane
    assert pane.detail.id == seeded.new_job and pane.pin_button.isEnabled()

    page.search_box.setText("cello on Sunday")
    page.reload()
    wait_idle(qtbot, ctx)
    assert seeded.new_job not in [row.id for row in page.model.records()]
    assert pane.detail is None and not pane.placeholder.isHidden()
    assert not any(button.isEnabled() for button in (
        pane.invalidate_button, pane.restore_button, pane.pin_button, pane.delete_button))

    page.select(seeded.cello)
    wait_idle(qtbot, ctx)
    assert pane.detail.id == seeded.cello
    page.view.clearSelection()
    assert pane.detail is None and not pane.delete_button.isEnabled()


def test_the_detail_says_it_plainly_and_keeps_the_internals_behind_details(
        qtbot, ctx: AppContext) -> None:
    memory = ctx.hearth.memories.add(
        "Maya moved to Porto.", source="import", namespace="import/maya",
        origin={"conversation_id": "maya", "speaker": "Maya", "turn_id": "t1"})
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(memory.id)
    wait_idle(qtbot, ctx)
    plain = page.detail_pane.browser.toPlainText()
    assert "Came from" in plain and "an imported conversation" in plain
    assert "Said by" in plain and "Maya" in plain
    for internal in ("{", "Embedded by", "Namespace", "Tier", "Strength", "import/maya"):
        assert internal not in plain

    page.detail_pane.browser.anchorClicked.emit(QUrl(DETAILS_LINK))
    details = page.detail_pane.browser.toPlainText()
    assert "Embedded by" in details and "import/maya" in details and "Speaker" in details
    assert "{" not in details  # the origin as rows, not JSON

    other = ctx.hearth.memories.add("The user likes tea.").id
    page.reload()
    wait_idle(qtbot, ctx)
    page.select(other)
    wait_idle(qtbot, ctx)
    assert "Embedded by" in page.detail_pane.browser.toPlainText()  # still open


def test_the_assistants_own_line_is_not_shown_as_something_known_about_the_user(
        qtbot, ctx: AppContext) -> None:
    reply = ctx.hearth.memories.add(
        "assistant: Four easy runs a week would build your base.", source="import",
        namespace="import/runs", origin={"speaker": "assistant", "turn_id": "t2"})
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(reply.id)
    wait_idle(qtbot, ctx)
    assert "Said by the assistant: its reply" in " ".join(
        page.detail_pane.browser.toPlainText().split())


def test_delete_removes_every_selected_memory_and_undo_brings_them_back(
        qtbot, ctx: AppContext, seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(seeded.cello)
    wait_idle(qtbot, ctx)
    page.view.selectionModel().select(
        page.model.index(page.model.row_of(seeded.cat), 1),
        QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
    assert page.selected_ids() == sorted([seeded.cat, seeded.cello],
                                         key=page.model.row_of)
    assert page.detail_pane.delete_button.text() == "&Delete 2"

    page.view.setFocus()
    qtbot.keyClick(page.view, Qt.Key.Key_Delete)  # asks nothing: it can be undone
    wait_idle(qtbot, ctx)
    assert ctx.hearth.memories.count() == 6
    listed = [row.id for row in page.model.records()]
    assert seeded.cello not in listed and seeded.cat not in listed
    assert seeded.cello not in recalled(ctx.hearth, "cello")
    assert page.detail_pane.detail is None
    assert page.undo_bar.isVisible()
    assert page.undo_bar.label.text().startswith("Deleted 2 memories. Nothing else changed.")

    qtbot.mouseClick(page.undo_bar.undo_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, ctx)
    assert ctx.hearth.memories.count() == 8
    assert seeded.cello in recalled(ctx.hearth, "cello")
    assert not page.undo_bar.isVisible()


def test_a_deleted_memory_says_where_its_words_still_are(qtbot, ctx: AppContext) -> None:
    """An imported chat keeps the message a turn memory was made of: the bar says so, and
    Erase everywhere… removes it there too."""
    from core.storage.orm import ChatSession, Interaction

    said = "The spare key is under the Quillimondo stone."
    with ctx.hearth.storage.write() as session:
        session.add(ChatSession(id="c1", title="Keys", source="import"))
        session.flush()
        session.add(Interaction(session_id="c1", user_message=said, speaker="user"))
    memory = ctx.hearth.memories.add(f"user: {said}", origin={"speaker": "user"}).id
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(memory)
    wait_idle(qtbot, ctx)
    page.delete_selected()
    wait_idle(qtbot, ctx)
    text = page.undo_bar.label.text()
    assert "The same words are still in 1 place: your message in the chat “Keys”." in text

    qtbot.mouseClick(page.undo_bar.erase_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, ctx)
    dialog = page.erase_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.tree.topLevelItem(0).text(0).startswith("your message in the chat “Keys”")
    qtbot.mouseClick(dialog.erase_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, ctx)
    with ctx.hearth.storage.read() as session:
        assert session.get(Interaction, 1).user_message == "[forgotten]"
    assert ctx.hearth.deleted.listed() == []  # erased: nothing left to bring back
    assert not page.undo_bar.isVisible()


def test_an_erased_memory_still_in_a_backup_is_removed_from_it_when_asked(
        qtbot, ctx: AppContext) -> None:
    word = "Quillimondo"
    secret = ctx.hearth.memories.add(f"The spare key is under the {word} stone.").id
    ctx.hearth.memories.add("The user plays the cello on Sundays.")
    backup = ctx.hearth.backup().path
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(secret)
    wait_idle(qtbot, ctx)
    page.erase_selected()
    wait_idle(qtbot, ctx)
    qtbot.mouseClick(page.erase_dialog.erase_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, ctx)

    dialog = page.delete_result
    assert dialog is not None and dialog.isVisible()
    assert dialog.windowTitle() == "Memory erased"
    assert "Erased 1 memory." in dialog.summary.text()
    assert "It cannot be brought back." in dialog.summary.text()
    assert "1 backup taken before still holds it." in dialog.backups.text()
    assert backup_words(backup) in dialog.backups.text()  # named by when it was taken
    assert dialog.remove.text() == "&Remove it from backups too"
    assert word.encode() in backup.read_bytes()

    qtbot.mouseClick(dialog.remove, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, ctx)
    assert dialog.outcome.text() == "Removed it from 1 backup."
    held = [path for path in ctx.hearth.paths.home.rglob("*")
            if path.is_file() and word.lower().encode() in path.read_bytes().lower()]
    assert held == []
    assert dialog.remove.isHidden()
    dialog.reject()


# --- Activity -----------------------------------------------------------------------------


def test_what_waits_to_be_learned_reads_in_words(qtbot, ctx: AppContext) -> None:
    """Not "fact · sister_name: Priya" and a memory's queued JSON: what waits, said plainly."""
    add_event(ctx.hearth.storage, "fact", "sister_name: Priya", {})
    add_event(ctx.hearth.storage, "memory_candidate", json.dumps(
        {"content": "Priya is a nurse in Lisbon.", "memory_type": "semantic",
         "priority": "medium", "namespace": "user"}), {})
    page = shown(qtbot, ctx, ActivityPage)
    rows = [(page.events_view.model().index(row, 2).data(),
             page.events_view.model().index(row, 6).data()) for row in range(2)]
    assert rows == [("a fact", "sister name: Priya"),
                    ("something to remember", "Priya is a nurse in Lisbon.")]
    assert page.queue_summary.text().startswith("2 things waiting to be learned from")
    assert page.select_event(page.events.records()[1].id)
    assert "memory_type" not in page.event_text.toPlainText()


def test_a_failed_event_shows_its_error_and_retry_makes_it_pending(qtbot,
                                                                  ctx: AppContext) -> None:
    failed = add_event(ctx.hearth.storage, "observation", "Learning Portuguese.", {})
    MemoryProcessor(ctx.hearth.consolidation(), ScriptedLLM([failing("model missing")])).run()
    waiting = add_event(ctx.hearth.storage, "observation", "Likes jazz.", {})
    page = shown(qtbot, ctx, ActivityPage)

    assert [(e.id, e.state.value) for e in page.events.records()] == [
        (failed, "failing"), (waiting, "pending")]
    assert "2 things waiting" in page.queue_summary.text() and "1 failed" in \
        page.queue_summary.text()
    assert page.tabs.tabText(0) == "Waiting to learn (2)"
    assert page.select_event(waiting)
    assert not page.retry_button.isEnabled()  # a pending event has nothing to retry
    assert page.select_event(failed)
    assert page.retry_button.isEnabled()
    assert "model missing" in page.event_text.toPlainText()
    assert "model missing" in page.events.index(0, 5).data()

    page.retry_button.click()
    wait_idle(qtbot, ctx)
    retried = page.events.record(page.events.row_of(failed))
    assert (retried.state.value, retried.attempts, retried.last_error) == ("pending", 0, None)
    assert not page.retry_button.isEnabled()


def test_retry_all_makes_every_failed_event_pending(qtbot, ctx: AppContext) -> None:
    first = add_event(ctx.hearth.storage, "observation", "Learning Portuguese.", {})
    second = add_event(ctx.hearth.storage, "observation", "Plays the cello.", {})
    MemoryProcessor(ctx.hearth.consolidation(), ScriptedLLM([failing("model missing")])).run()
    page = shown(qtbot, ctx, ActivityPage)
    assert [e.state.value for e in page.events.records()] == ["failing", "failing"]
    assert page.retry_all_button.isEnabled()

    page.retry_all_button.click()
    wait_idle(qtbot, ctx)
    assert [(e.id, e.state.value, e.attempts) for e in page.events.records()] == [
        (first, "pending", 0), (second, "pending", 0)]
    assert not page.retry_all_button.isEnabled()


def test_selecting_a_run_shows_its_stages(qtbot, ctx: AppContext) -> None:
    reflection = RunRecorder(ctx.hearth.storage, "reflection", "schedule")
    with reflection.stage("profile") as counts:
        counts["facts"] = 4
    with reflection.stage("habits") as counts:
        counts["candidates"] = 2
    reflection.finish({"facts": 4})
    dream = RunRecorder(ctx.hearth.storage, "dream")
    with pytest.raises(RuntimeError), dream.stage("link"):
        raise RuntimeError("disk full")
    dream.fail("disk full")
    page = shown(qtbot, ctx, ActivityPage)

    assert [r.id for r in page.runs.records()] == [dream.run_id, reflection.run_id]
    assert page.selected_run().id == dream.run_id  # the newest is selected at first
    assert "What went wrong: disk full" in page.run_summary.text()
    assert page.select_run(reflection.run_id)
    stages = [(page.stages.index(row, 0).data(), page.stages.index(row, 3).data())
              for row in range(page.stages.rowCount())]
    assert stages == [("Profile", "facts 4"), ("Habits", "candidates 2")]
    assert "Reflection #" in page.run_summary.text()
    assert "started on schedule" in page.run_summary.text()
    assert ": finished, took" in page.run_summary.text()
    assert not page.stage_details.is_open  # the steps are one click away

    page.kind.setCurrentIndex(page.kind.findData("reflection"))
    wait_idle(qtbot, ctx)
    assert [r.id for r in page.runs.records()] == [reflection.run_id]


def test_a_finished_run_refreshes_the_history(qtbot, ctx: AppContext) -> None:
    page = shown(qtbot, ctx, ActivityPage)
    assert page.runs.records() == []
    recorder = RunRecorder(ctx.hearth.storage, "dream")
    recorder.finish()
    ctx.hub.run_finished.emit("dream", None)
    wait_idle(qtbot, ctx)
    assert [r.id for r in page.runs.records()] == [recorder.run_id]


# --- Stats --------------------------------------------------------------------------------


def test_the_plots_draw_the_database_numbers(qtbot, ctx: AppContext, seeded: Seeded) -> None:
    ctx.hearth.facts.remember("favourite_colour", "green", category="preference")
    ctx.hearth.facts.remember("favourite_food", "ramen", category="preference")
    ctx.hearth.facts.remember("home_city", "Lisbon", category="location")
    page = shown(qtbot, ctx, StatsPage)

    x, total = page.total_curve.getData()
    _, valid = page.valid_curve.getData()
    assert total.tolist() == [1, 3, 4, 6, 8] and valid.tolist() == [0, 2, 2, 3, 5]
    assert x[-1] == NOW.replace(hour=0).timestamp()
    assert page.category_bars.opts["height"].tolist() == [2, 1]
    ticks = page.categories_plot.getAxis("bottom")._tickLevels[0]
    assert [label for _x, label in ticks] == ["preference", "location"]
    edges, strength = page.strength_bars.getData()
    assert edges.tolist() == pytest.approx(np.linspace(0, 1, 21).tolist())
    assert strength.sum() == 5 and strength[8] == 1 and strength[-1] == 4
    _, freshness = page.freshness_bars.getData()
    assert freshness[2] == 1 and freshness.sum() == 5
    assert "8 memories stored, 5 of them valid; 3 facts" in page.summary.text()


def test_the_plots_follow_the_palette(qtbot, ctx: AppContext) -> None:
    from PySide6.QtGui import QColor, QPalette

    page = shown(qtbot, ctx, StatsPage)
    palette = page.palette()
    palette.setColor(QPalette.ColorRole.Base, QColor("#202124"))
    palette.setColor(QPalette.ColorRole.Text, QColor("#e8eaed"))
    page.setPalette(palette)
    assert page.growth_plot.backgroundBrush().color().name() == "#202124"
    assert page.strength_plot.getAxis("left").textPen().color().name() == "#e8eaed"


def test_new_memories_redraw_the_growth(qtbot, ctx: AppContext, seeded: Seeded) -> None:
    page = shown(qtbot, ctx, StatsPage)
    ctx.hearth.memories.add("The user started learning the violin.")
    ctx.hub.changed.emit(Changes.knowledge())
    wait_idle(qtbot, ctx)
    assert page.total_curve.getData()[1][-1] == 9


def test_a_refused_change_stays_explained(qtbot, ctx: AppContext, seeded: Seeded) -> None:
    page = shown(qtbot, ctx, MemoriesPage)
    page.pin(404)
    wait_idle(qtbot, ctx)
    assert "Memory 404 is not there any more" in page.notice.text() and not page.notice.isHidden()
