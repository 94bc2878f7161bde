"""A dream you can review, in the window: the run dialog lists what a dream changed, the
next start shows "While you were away…" once, Activity keeps each run's changelog, and
Undo there really puts the memories (and a reflection's facts) back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from support.dream_folder import dreaming_model, merge_line, prepare
from support.qt_waits import wait_for_task, wait_idle
from support.scripted_llm import ScriptedLLM

from core.consolidation import changelog
from core.consolidation.dream import DreamCycle
from core.consolidation.reflection import ReflectionEngine
from core.storage.orm import Interaction, utcnow
from desktop.app import DesktopApp
from desktop.dialogs.changes_view import ChangesView
from desktop.inspector.activity import ActivityPage
from desktop.inspector.facts import FactsPage
from desktop.main_window import MainWindow
from desktop.runs import DREAM



@pytest.fixture
def dreamt(make_ctx):
    """A data folder where the nightly dream ran while the window was closed."""
    ctx = make_ctx(provider_factory=dreaming_model)
    ids = prepare(ctx.hearth)
    report = DreamCycle(ctx.hearth.consolidation(), dreaming_model()).run(trigger="scheduled")
    return ctx, ids, report.run_id


def start(qtbot, ctx, monkeypatch) -> DesktopApp:
    """The window's start as ``hearth-desktop`` does it, without a model or a schedule."""
    monkeypatch.setattr(ctx, "start_assistant", lambda: None)
    monkeypatch.setattr(ctx, "start_scheduler", lambda: None)
    ctx.hearth.settings.welcome_shown = True
    app = DesktopApp(ctx, start_background=False)
    qtbot.addWidget(app.window)
    app.window.show()
    app.start_background()
    wait_idle(qtbot, ctx)
    return app


def row(view, text_start: str):
    (found,) = [r for r in view.rows if r.change.text.startswith(text_start)]
    return found


def test_the_next_start_shows_what_the_dream_changed_once_and_undo_works(
        qtbot, dreamt, monkeypatch) -> None:
    ctx, ids, run_id = dreamt
    merge = merge_line(ids["marathon"])
    app = start(qtbot, ctx, monkeypatch)
    away = app.window.runs.away
    assert away is not None and away.isVisible()
    assert away.windowTitle() == "While you were away…"
    (view,) = away.views
    assert merge in view.texts()
    assert "Set aside 1 new note as not worth keeping, such as “Hello there!”" in view.texts()
    assert "Changed the Goals & Values section of About you" in view.texts()

    merge_row = row(view, "Combined 3 memories")
    merge_row.undo_button.click()
    wait_idle(qtbot, ctx)
    assert all(ctx.hearth.memories.get(i).tier == "recall" for i in ids["marathon"])
    merge_row = row(view, "Combined 3 memories")
    assert merge_row.undo_button.text() == "Undone" and not merge_row.undo_button.isEnabled()
    assert view.result.text() == f"Undone: {merge}"
    assert changelog.changes_of(ctx.hearth.storage, run_id).reviewed

    app.window.close()
    again = start(qtbot, ctx, monkeypatch)
    assert again.window.runs.away is None  # shown once


def test_undo_the_whole_night_from_the_away_dialog(qtbot, dreamt, monkeypatch) -> None:
    ctx, ids, _run_id = dreamt
    (view,) = start(qtbot, ctx, monkeypatch).window.runs.away.views
    view.undo_all_button.click()
    wait_idle(qtbot, ctx)
    assert view.result.text() == "Undid 3 changes."
    assert ctx.hearth.memories.get(ids["greeting"]).is_valid
    assert all(ctx.hearth.memories.get(i).tier == "recall" for i in ids["marathon"])
    assert "piano" in ctx.hearth.about_you.current().content
    assert not view.undo_all_button.isEnabled()


def test_activity_keeps_each_runs_changelog_with_undo(qtbot, dreamt) -> None:
    ctx, ids, run_id = dreamt
    page = ActivityPage(ctx)
    qtbot.addWidget(page)
    page.show()
    page.tabs.setCurrentIndex(1)  # Runs
    page.reload()
    wait_idle(qtbot, ctx)
    assert page.select_run(run_id)
    wait_idle(qtbot, ctx)
    assert page.changes.isVisible() and merge_line(ids["marathon"]) in page.changes.texts()
    run = page.selected_run()
    assert (run.kind, run.status) == ("dream", "done")
    assert page.runs.index(page.runs.row_of(run_id), 6).data() == \
        f"{run.change_count} changes"
    row(page.changes, "Set aside").undo_button.click()
    wait_idle(qtbot, ctx)
    assert ctx.hearth.memories.get(ids["greeting"]).is_valid
    assert row(page.changes, "Set aside").change.undone


def test_a_dream_from_the_menu_lists_its_changes_in_its_dialog(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=dreaming_model)
    ids = prepare(ctx.hearth)
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    task = window.runs.dream_now()
    wait_for_task(qtbot, task, timeout=120_000)
    wait_idle(qtbot, ctx)
    dialog = window.runs.dialogs[DREAM]
    assert "Dream finished" in dialog.state.text()
    assert "All 10 steps done. 3 changes to review." in dialog.state.text()
    assert merge_line(ids["marathon"]) in dialog.changes.texts()
    assert changelog.unreviewed(ctx.hearth.storage) == []  # seen here, not again at start


def test_undo_of_a_fact_a_reflection_changed_shows_the_old_value_in_facts(
        qtbot, make_ctx) -> None:
    ctx = make_ctx()
    ctx.hearth.facts.remember("home_city", "Lisbon", source="chat")
    with ctx.hearth.storage.write() as session:
        session.add(Interaction(user_message="We moved!", agent_response="Noted.",
                                created_at=utcnow() - timedelta(hours=1)))
    reply = ("---PROFILE---\n(keep)\n---FACTS---\n"
             '[{"key": "home_city", "value": "Porto"}]\n'
             "---INTENTIONS---\n[]\n---LEARNINGS---\n[]\n")
    run_id = ReflectionEngine(ctx.hearth.consolidation(), ScriptedLLM([reply])).run().run_id
    facts = FactsPage(ctx)
    qtbot.addWidget(facts)
    facts.show()
    facts.activate()
    wait_idle(qtbot, ctx)
    assert [(f.key, f.value) for f in facts.model.records()] == [("home_city", "Porto")]
    view, stale = ChangesView(ctx), ChangesView(ctx)  # the run shown in two places
    for shown in (view, stale):
        qtbot.addWidget(shown)
        shown.load(run_id)
    wait_idle(qtbot, ctx)

    line = "Changed your home city from “Lisbon” to “Porto”"
    row(view, line).undo_button.click()
    wait_idle(qtbot, ctx)
    assert view.result.text() == f"Undone: {line}"
    assert row(view, line).undo_button.text() == "Undone"
    qtbot.waitUntil(lambda: [(f.key, f.value) for f in facts.model.records()]
                    == [("home_city", "Lisbon")])
    assert [entry.value for entry in ctx.hearth.facts.history("home_city")] == [
        "Lisbon", "Porto"]

    row(stale, line).undo_button.click()  # still offered there: a second undo
    wait_idle(qtbot, ctx)
    assert stale.result.text() == f"Already undone: {line}"
    assert ctx.hearth.facts.get("home_city").value == "Lisbon"
