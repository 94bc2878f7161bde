"""Turns of an imported conversation in plain words wherever the window lists memories:
a named speaker keeps their name ("Maya: …"), the two sides of a chat exported by role
read "You said: …" and "Hearth replied: …" (never "user: …" / "assistant: …")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from sqlalchemy import select
from support.qt_waits import wait_idle
from test_chat_page import open_page, scripted, type_and_send, wait_reply
from test_graph_snapshot import add_edges
from test_graph_view import open_page as open_graph
from test_memories_activity_stats import shown

from core.storage.orm import Memory
from core.transfer.transcript import import_transcript
from desktop.chat.transcript import SpokenTurn
from desktop.context import AppContext
from desktop.graph.scene import node_text
from desktop.inspector.memories import MemoriesPage
from desktop.words import speaker_name, spoken

TRANSCRIPT = {
    "conversation_id": "porto", "participants": ["user", "assistant", "Maya"],
    "sessions": [{"session_id": "s1", "started_at": "2024-03-02T18:30:00+01:00",
                  "turns": [{"turn_id": "t1", "speaker": "user",
                             "text": "I moved to Porto last week."},
                            {"turn_id": "t2", "speaker": "assistant",
                             "text": "Congratulations on the move to Porto!"},
                            {"turn_id": "t3", "speaker": "Maya",
                             "text": "I moved to Porto too, in May."}]}]}

PLAIN = {"You said: I moved to Porto last week.",
         "Hearth replied: Congratulations on the move to Porto!",
         "Maya: I moved to Porto too, in May."}


def test_a_turn_reads_in_plain_words_and_other_text_is_left_alone() -> None:
    assert spoken("user: I moved", "user") == "You said: I moved"
    assert spoken("Assistant: Welcome", "Assistant") == "Hearth replied: Welcome"
    assert spoken("Maya: I moved", "Maya") == "Maya: I moved"
    assert spoken("user: I moved", None) == "user: I moved"  # not an imported turn
    assert spoken("The user likes tea", "user") == "The user likes tea"  # no label to read
    assert [speaker_name(s) for s in ("USER", "assistant", "Maya")] == ["You", "Hearth", "Maya"]


def imported(ctx: AppContext) -> dict[str, int]:
    """The turns' memory ids, by speaker."""
    import_transcript(TRANSCRIPT, ctx.hearth.storage, ctx.hearth.memories)
    with ctx.hearth.storage.read() as session:
        return {memory.origin["speaker"]: memory.id
                for memory in session.scalars(select(Memory))}


def test_the_memories_list_and_detail_name_who_said_each_turn(qtbot, ctx: AppContext) -> None:
    ids = imported(ctx)
    page = shown(qtbot, ctx, MemoriesPage)
    previews = {page.model.index(row, 1).data(Qt.ItemDataRole.DisplayRole)
                for row in range(page.model.rowCount())}
    assert previews == PLAIN

    page.select(ids["assistant"])
    wait_idle(qtbot, ctx)
    assert "Hearth replied: Congratulations" in page.detail_pane.browser.toPlainText()
    assert "assistant: Congratulations" not in page.detail_pane.browser.toPlainText()
    add_edges(ctx.hearth.storage, [(ids["assistant"], ids["user"], "knn", 0.8)])
    page.select(ids["Maya"])
    wait_idle(qtbot, ctx)
    page.select(ids["assistant"])  # read again: its link to the user's turn
    wait_idle(qtbot, ctx)
    assert f"#{ids['user']} You said: I moved to Porto" in page.detail_pane.browser.toPlainText()


def test_the_memory_map_names_who_said_each_turn(qtbot, ctx: AppContext) -> None:
    ids = imported(ctx)
    add_edges(ctx.hearth.storage, [(ids["user"], ids["Maya"], "knn", 0.8)])
    page = open_graph(qtbot, ctx)
    snapshot = page.snapshot
    assert {node_text(snapshot, position) for position in range(snapshot.node_count)} == PLAIN
    labels = page.view.labels()
    assert labels  # the plot names them, each by the start of its plain words
    assert all(any(text.startswith(label.rstrip("…")) for text in PLAIN)
               for label in labels.values())

    page.select_node(snapshot.position(ids["user"]))
    qtbot.waitUntil(lambda: page.details.model.rowCount() == 1)
    assert page.details.content.toPlainText() == "You said: I moved to Porto last week."
    linked = page.details.model.index(0, 2).data(Qt.ItemDataRole.DisplayRole)
    assert linked == "Maya: I moved to Porto too, in May."


def test_an_imported_chat_shows_you_and_hearth_as_its_speakers(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Hello!"))
    import_transcript(TRANSCRIPT, ctx.hearth.storage, ctx.hearth.memories)
    page = open_page(qtbot, ctx)
    wait_idle(qtbot, ctx)
    page.list_view.setCurrentIndex(page.list_model.index(0))
    qtbot.waitUntil(lambda: len(page.transcript.messages) == 3, timeout=10_000)
    turns = page.transcript.messages
    assert all(isinstance(turn, SpokenTurn) for turn in turns)
    assert [turn.who.text() for turn in turns] == ["You", "Hearth", "Maya"]


def test_the_why_panel_names_who_said_a_recalled_turn(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("You moved to Porto last week."))
    import_transcript(TRANSCRIPT, ctx.hearth.storage, ctx.hearth.memories)
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "When did I move to Porto?")
    wait_reply(qtbot, page).why_button.click()
    panel = page.why_panel
    qtbot.waitUntil(lambda: bool(panel.items), timeout=10_000)
    memories = next(panel.model.item(row) for row in range(panel.model.rowCount())
                    if panel.model.item(row).text().startswith("Memories"))
    lines = {memories.child(n).text() for n in range(memories.rowCount())}
    assert "You said: I moved to Porto last week." in lines
    assert not any(line.startswith(("user: ", "assistant: ")) for line in lines)
    turn = next(n for n in range(memories.rowCount())
                if memories.child(n).text().startswith("You said"))
    panel.tree.setCurrentIndex(memories.child(turn).index())
    assert panel.detail.text().startswith("You said: I moved to Porto")
