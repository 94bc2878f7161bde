"""Learning you can see: the note under a reply when learning remembered or changed a fact,
its Undo (the fact really goes, or gets its old value back) and Edit, and the note still
there when the chat is opened again. The model is scripted; storage, embeddings, the
learning pipeline and its rules are real."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from support.hub_changes import touching
from support.chat_turns import chatty, facts, note_lines, open_page, say
from support.qt_waits import wait_for_task, wait_idle

from core.operations import facts as facts_ops

from desktop.chat import learning_note
from desktop.chat.learning_note import LearningNote


def test_a_learned_fact_shows_under_the_reply_and_undo_removes_it(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=chatty())
    page = open_page(qtbot, ctx)
    reply = say(qtbot, page, "My sister Priya lives in Lisbon")
    qtbot.waitUntil(lambda: len(note_lines(reply)) == 2, timeout=60_000)
    assert note_lines(reply) == ["Remembered: your sister's name is Priya",
                                 "Remembered: your sister lives in Lisbon"]
    assert facts(ctx.hearth) == {"sister_name": "Priya", "sister_home_city": "Lisbon"}

    note = reply.findChild(LearningNote)
    with qtbot.waitSignal(ctx.hub.changed, timeout=30_000, check_params_cb=touching()):
        qtbot.mouseClick(note.button("sister_home_city", "Undo"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Undone: your sister lives in Lisbon" in note_lines(reply),
                    timeout=30_000)
    assert facts(ctx.hearth) == {"sister_name": "Priya"}
    assert ctx.hearth.facts.history("sister_home_city") == []
    wait_idle(qtbot, ctx)

    # opened again (another chat first), the note is read back from the database
    session_id = page.current_session
    page.new_conversation()
    qtbot.waitUntil(lambda: page.current_session != session_id, timeout=30_000)
    wait_idle(qtbot, ctx)
    page.open_session(session_id)
    qtbot.waitUntil(lambda: len(page.transcript.messages) == 2
                    and note_lines(page.transcript.messages[1]) != [], timeout=30_000)
    assert note_lines(page.transcript.messages[1]) == [
        "Remembered: your sister's name is Priya"]


def test_undo_of_a_correction_restores_the_old_value_and_edit_saves_yours(
        qtbot, make_ctx, monkeypatch) -> None:
    ctx = make_ctx(provider_factory=chatty())
    ctx.hearth.facts.remember("home_city", "Lisbon", category="location")
    page = open_page(qtbot, ctx)
    reply = say(qtbot, page, "I moved to Porto.")
    qtbot.waitUntil(lambda: note_lines(reply) != [], timeout=60_000)
    assert note_lines(reply) == ["Updated: you live in Porto (was Lisbon)"]
    assert facts(ctx.hearth) == {"home_city": "Porto"}

    note = reply.findChild(LearningNote)
    qtbot.mouseClick(note.button("home_city", "Undo"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: note_lines(reply) == ["Undone: back to you live in Lisbon"],
                    timeout=30_000)
    assert facts(ctx.hearth) == {"home_city": "Lisbon"}
    assert ctx.hearth.facts.get("home_city").category == "location"
    assert [h.value for h in ctx.hearth.facts.history("home_city")] == ["Lisbon", "Porto"]

    later = say(qtbot, page, "My brother Tom works at Google")
    qtbot.waitUntil(lambda: len(note_lines(later)) == 2, timeout=60_000)
    asked: list[str] = []
    monkeypatch.setattr(learning_note, "ask_value",
                        lambda _parent, item: asked.append(item.current) or "Alphabet")
    qtbot.mouseClick(later.findChild(LearningNote).button("brother_employer", "Edit"),
                     Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: facts(ctx.hearth).get("brother_employer") == "Alphabet",
                    timeout=30_000)
    assert asked == ["Google"]
    qtbot.waitUntil(lambda: any("since changed to Alphabet" in line
                                for line in note_lines(later)), timeout=30_000)
    assert ctx.hearth.facts.get("brother_employer").source == "user"
    assert [h.value for h in ctx.hearth.facts.history("brother_employer")] == ["Google"]


def edited(hearth) -> None:
    facts_ops.correct(hearth, "sister_home_city", "Porto")


def deleted(hearth) -> None:
    facts_ops.delete(hearth, "sister_home_city")


NOTE_AFTER = {
    edited: ["Remembered: your sister's name is Priya",
             "Remembered: your sister lives in Lisbon, since changed to Porto"],
    deleted: ["Remembered: your sister's name is Priya"],  # its record went with it
}


@pytest.mark.parametrize("change", [edited, deleted], ids=["edited", "deleted"])
def test_a_change_in_facts_reaches_the_open_chats_note_and_why_panel(qtbot, make_ctx,
                                                                      change) -> None:
    """Seen: after an edit or a delete in Facts, the open chat still offered Undo on the
    fact and the Why? panel still listed it as it was. Both follow the change feed now."""
    ctx = make_ctx(provider_factory=chatty())
    page = open_page(qtbot, ctx)
    reply = say(qtbot, page, "My sister Priya lives in Lisbon")
    qtbot.waitUntil(lambda: len(note_lines(reply)) == 2, timeout=60_000)
    note = reply.findChild(LearningNote)
    assert note.button("sister_home_city", "Undo")  # offered: the fact holds what was learned
    asked = say(qtbot, page, "Where does she live?")
    assert asked.interaction_id is not None
    page.show_why(asked.interaction_id)

    def city_given() -> list:
        return [item for item in page.why_panel.items if item.kind == "fact"
                and item.id is not None and item.text.startswith("sister_home_city")
                or item.kind == "fact" and not item.exists]

    qtbot.waitUntil(lambda: [i.text for i in city_given()] == ["sister_home_city: Lisbon"],
                    timeout=30_000)
    wait_idle(qtbot, ctx)

    hearth = ctx.hearth
    wait_for_task(qtbot, ctx.workers.start(  # what the Facts view runs
        "Changing it in Facts", lambda _task: change(hearth), writes=True))
    qtbot.waitUntil(lambda: note_lines(reply) == NOTE_AFTER[change], timeout=1_000)
    with pytest.raises(LookupError):
        note.button("sister_home_city", "Undo")
    now = ([("sister_home_city: Porto", True, True)] if change is edited
           else [("", False, False)])
    qtbot.waitUntil(lambda: [(i.text, i.exists, i.changed) for i in city_given()] == now,
                    timeout=1_000)
