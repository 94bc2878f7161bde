"""The window's words: plurals that agree ("1 fact", not "1 facts"), the learning state in
the status bar, the views' plain names, the event queue's states, and the profile's changes
as readable paragraphs."""

from __future__ import annotations

import time

from PySide6.QtWidgets import QListWidget
from sqlalchemy import update
from support.qt_waits import wait_idle

from core.consolidation.reflection import ReflectionReport
from core.learning.events import add_event
from core.storage.orm import ContextEvent
from desktop.dialogs.settings_data_page import contents
from desktop.inspector.activity import ActivityPage
from desktop.inspector.stats import StatsPage
from desktop.inspector.text_changes import compare, summary
from desktop.main_window import MainWindow
from desktop.registry import page_classes
from desktop.run_summary import reflection_line
from desktop.status import learning_text
from desktop.words import count, listing


def test_counts_agree_with_their_number() -> None:
    assert count(1, "fact") == "1 fact"
    assert count(2, "fact") == "2 facts"
    assert count(0, "memory", "memories") == "0 memories"
    assert count(12_400, "link") == "12,400 links"
    assert listing(["a"]) == "a" and listing(["a", "b", "c"]) == "a, b and c"


def test_an_export_is_told_in_things_a_person_counts() -> None:
    assert contents({"chat_sessions": 1, "interactions": 2, "memories": 1, "audit_log": 12,
                     "runs": 1}) == "1 chat, 2 exchanges, 1 memory and 13 other records"
    assert contents({"user_facts": 0}) == "nothing (the data folder was empty)"


def test_the_status_bar_says_what_learning_does_in_words() -> None:
    assert learning_text("learning", 0) == "learning…"  # was "learning learning"
    assert learning_text("idle", 1) == "learning on (1 fact learned)"  # was "1 facts"
    assert learning_text("paused", 3) == "learning paused (3 facts learned)"


def test_no_view_is_named_by_an_internal_word() -> None:
    titles = [cls.title for cls in page_classes()]
    assert titles == ["Chat", "Today", "Notes", "Journal", "Read later", "Schedule", "Facts",
                      "About you",
                      "Notes about you", "Habits I keep", "Follow-ups", "Memories", "Activity",
                      "Stats", "Memory map", "Agents"]
    for cls in page_classes():
        assert cls.about, f"{cls.__name__} has no sidebar tooltip"
    abouts = {cls.key: cls.about for cls in page_classes()}
    assert not any("Internally" in abouts[key] for key in  # the same name inside and out
                   ("about_you", "notes_about_you", "habits", "follow_ups"))


def test_the_sidebar_and_view_menu_use_the_plain_names(qtbot, ctx) -> None:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    sidebar = window.findChild(QListWidget, "sidebar")
    shown = {sidebar.item(row).text(): sidebar.item(row).toolTip()
             for row in range(sidebar.count())}
    assert shown["Habits I keep"].startswith("Rules Hearth drew about how to work with you")
    assert shown["Notes about you"].startswith("Structured notes Hearth keeps about you")
    assert not {"Profile", "Scaffold", "Learnings", "Intentions", "Graph"} & set(shown)
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert "Follow-ups" in [action.text() for action in view.actions()]


def test_changes_are_paragraphs_with_the_words_that_moved() -> None:
    old = "# Work\nDesign lead at a studio in Porto.\n\n# Health\nKnee physio."
    new = "# Work\nDesign lead at a bank in Porto.\n\n# Health\nKnee physio.\nRuns at 6."
    paragraphs = compare(old, new)
    assert [p.change for p in paragraphs] == ["same", "changed", "same", "same", "added"]
    assert [(piece.text, piece.change) for piece in paragraphs[1].pieces] == [
        ("Design lead at a ", "same"), ("studio", "removed"), (" ", "same"), ("bank", "added"),
        (" in Porto.", "same")]
    assert summary(paragraphs) == "1 paragraph changed and 1 paragraph added"
    assert summary(compare(old, old)) == ""


def test_an_edited_stretch_reads_removed_then_added_not_word_by_word() -> None:
    """Each replaced word used to sit beside its replacement: "~~product~~design
    ~~designer~~lead"; a stretch of edits is one removal and one addition."""
    [edited] = compare("Maya is a product designer in Lisbon who likes tea.",
                       "Maya is a design lead who moved to Porto who likes tea.")
    assert [(piece.text, piece.change) for piece in edited.pieces] == [
        ("Maya is a ", "same"), ("product designer in Lisbon", "removed"), (" ", "same"),
        ("design lead who moved to Porto", "added"), (" who likes tea.", "same")]
    [dropped] = compare("Runs early and swims.", "Runs and swims.")
    assert dropped.text == "Runs early and swims."  # the spaces around "early" kept


def test_a_rewritten_paragraph_is_removed_and_added_not_mixed_word_by_word() -> None:
    paragraphs = compare("Likes tea in the morning.", "Plans the week on Sunday evenings.")
    assert [(p.change, p.text) for p in paragraphs] == [
        ("removed", "Likes tea in the morning."),
        ("added", "Plans the week on Sunday evenings.")]


def test_the_event_queue_says_stuck_not_poisoned(qtbot, ctx) -> None:
    stuck = add_event(ctx.hearth.storage, "observation", "Learning Portuguese.", {})
    with ctx.hearth.storage.write() as session:
        session.execute(update(ContextEvent).where(ContextEvent.id == stuck).values(
            attempts=ctx.hearth.settings.event_max_attempts, last_error="unusable output"))
    page = ActivityPage(ctx)
    qtbot.addWidget(page)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)
    assert page.events.records()[0].state.value == "poisoned"
    assert page.events.index(0, 1).data() == "stuck: press Retry"


def test_empty_plots_count_from_zero_over_the_last_week(qtbot, ctx) -> None:
    """An empty folder's plots read "memories (x0.001)" and days "00.250"."""
    page = StatsPage(ctx)
    qtbot.addWidget(page)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)
    for plot in (page.growth_plot, page.strength_plot, page.freshness_plot):
        assert "x0.001" not in plot.getAxis("left").labelString()
        assert plot.getViewBox().viewRange()[1][0] >= 0  # no negative counts
    start, end = page.growth_plot.getViewBox().viewRange()[0]
    assert 6 * 86_400 <= end - start <= 9 * 86_400
    assert abs(end - time.time()) < 3 * 86_400


def test_a_reflection_says_how_many_journal_entries_it_read() -> None:
    report = ReflectionReport(run_id=1, journal_entries=2, facts_added=1)
    assert reflection_line(report) == "Read 2 journal entries and learned 1 new fact."
