"""Renaming and deleting chats (``ChatSessions.rename_session`` / ``delete_session``)
on a real database with the real embedder, and the "why" view of a reply
(``core.views.reply_context``) over a real turn's context log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select, text
from support.long_text import diary_with
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.config import Settings
from core.conversation import ConversationService, TurnFinished
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.memories import MemorySpec
from core.embedding.reembed import backfill_embeddings
from core.storage.orm import AuditEntry, ChatSession, ContextLog, Interaction, Memory, Note
from core.storage.port import IndexedKind
from core.views.reply_context import reply_context


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    opened = Hearth.open(migrated_home, settings=Settings(), embedder=embedder)
    yield opened
    opened.close()


def turn(conversation: ConversationService, session_id: str, text_: str) -> TurnFinished:
    events = list(conversation.send(session_id, text_))
    assert isinstance(events[-1], TurnFinished), events[-1]
    return events[-1]


def count(hearth: Hearth, model: type, *where) -> int:
    with hearth.storage.read() as session:
        return session.scalar(select(func.count()).select_from(model).where(*where))


def test_rename_persists_and_refuses_an_empty_title(hearth: Hearth, tmp_path: Path,
                                                     embedder) -> None:
    conversation = hearth.conversation(ScriptedLLM())
    session_id = conversation.sessions.new_session("First")

    stored = conversation.sessions.rename_session(session_id, "  Trip   to\nPorto ")

    assert stored == "Trip to Porto"
    with pytest.raises(InvalidInputError, match="needs a title"):
        conversation.sessions.rename_session(session_id, " \n ")
    with pytest.raises(NotFoundError):
        conversation.sessions.rename_session("no-such-chat", "Anything")
    hearth.close()
    reopened = Hearth.open(tmp_path / "home", embedder=embedder)
    try:
        titles = [s.title for s in reopened.conversation(ScriptedLLM())
                  .sessions.recent_sessions()]
    finally:
        reopened.close()
    assert titles == ["Trip to Porto"]


def test_delete_removes_the_chat_its_exchanges_logs_and_summaries_but_keeps_what_was_learned(
        hearth: Hearth) -> None:
    llm = ScriptedLLM(["Porto is lovely in May.", "Take the train from Lisbon."])
    conversation = hearth.conversation(llm)
    doomed, kept = conversation.sessions.new_session(), conversation.sessions.new_session()
    turn(conversation, doomed, "I am planning a trip to Porto in May")
    turn(conversation, kept, "How do I get to Porto?")
    backfill_embeddings(hearth.storage, hearth.embedder, kinds=[IndexedKind.INTERACTION])
    hearth.notes.save_summary("Porto trip", "The user plans a trip to Porto in May.",
                              session_id=doomed)
    hearth.notes.save("Packing list", "Umbrella, walking shoes.", session_id=doomed)
    hearth.facts.remember("next_trip", "Porto", category="general")
    memory = hearth.memories.add("The user is going to Porto in May.", session_id=doomed)

    removed = conversation.sessions.delete_session(doomed)

    assert (removed.exchanges, removed.context_logs, removed.summaries) == (1, 1, 1)
    assert [s.id for s in conversation.sessions.recent_sessions()] == [kept]
    assert count(hearth, ChatSession, ChatSession.id == doomed) == 0
    assert count(hearth, Interaction) == 1
    assert count(hearth, ContextLog) == 1
    with hearth.storage.read() as session:  # the exchange left the full-text and vector index
        assert session.scalar(text("SELECT count(*) FROM interactions_fts")) == 1
        assert session.scalar(text("SELECT count(*) FROM interactions_vec")) == 1
        notes = [(n.title, n.session_id) for n in session.scalars(select(Note))]
        stored = session.get(Memory, memory.id)
        audit = session.scalars(select(AuditEntry).where(
            AuditEntry.action == "chat.delete")).one()
    assert notes == [("Packing list", None)]  # the user's own note stays, unlinked
    assert stored is not None and stored.session_id is None
    assert hearth.facts.get("next_trip") is not None
    assert audit.arguments == {"session_id": doomed}
    assert "Porto" not in audit.result_summary and "1 exchanges" in audit.result_summary
    with pytest.raises(NotFoundError):
        conversation.sessions.delete_session(doomed)


def test_the_why_of_a_reply_lists_the_fact_and_memory_it_was_given(hearth: Hearth) -> None:
    hearth.facts.remember("home_city", "Lisbon", category="location")
    memory = hearth.memories.add("The user is training for the Lisbon half marathon in May.")
    conversation = hearth.conversation(ScriptedLLM(["Keep the long run easy."]))
    session_id = conversation.sessions.new_session()
    reply = turn(conversation, session_id, "How should I train for the half marathon?")

    used = reply_context(hearth.storage, reply.interaction_id)

    assert used is not None
    kinds = [item.kind for item in used]
    assert kinds.index("fact") < kinds.index("memory")  # grouped, facts first
    fact = next(item for item in used if item.kind == "fact")
    assert fact.text == "home_city: Lisbon" and "location" in fact.provenance
    assert fact.score is None and fact.tokens > 0
    recalled = next(item for item in used if item.kind == "memory")
    assert recalled.id == memory.id and "half marathon" in recalled.text
    assert recalled.score is not None and recalled.score > 0
    assert "recall tier" in recalled.provenance
    assert "user_message" not in kinds and "meta" not in kinds

    hearth.forgetting.forget("home_city")
    after = reply_context(hearth.storage, reply.interaction_id)
    assert after is not None
    gone = next(item for item in after if item.kind == "fact")
    assert not gone.exists and gone.text == "" and "home_city deleted" in gone.provenance


def test_a_reply_without_a_context_log_has_no_why(hearth: Hearth) -> None:
    assert reply_context(hearth.storage, 12345) is None


OTHER_MEMORIES = ("I prefer green tea over coffee.", "My sister lives in Porto.",
                  "The boiler service is due in October.")


def test_why_shows_the_part_of_a_long_memory_a_reply_was_given(hearth: Hearth) -> None:
    rent = ("My landlord wrote about the flat today: he is putting the rent up by ninety "
            "pounds from March, so the rent for the flat will be 1,190 pounds a month.")
    content = diary_with(rent)
    memory = hearth.memories.add(content)
    hearth.memories.add_many([MemorySpec(text_) for text_ in OTHER_MEMORIES])
    conversation = hearth.conversation(ScriptedLLM(["Ninety pounds more a month."]))
    session_id = conversation.sessions.new_session()
    reply = turn(conversation, session_id, "Is my rent going up?")

    used = reply_context(hearth.storage, reply.interaction_id)

    assert used is not None
    recalled = next(item for item in used if item.kind == "memory" and item.id == memory.id)
    assert recalled.passage is not None and rent in recalled.passage
    assert len(recalled.passage) < len(content)
    with hearth.storage.read() as session:  # the log keeps where, not a copy of the words
        logged = session.scalars(select(ContextLog)).one().items
    entry = next(item for item in logged if item.get("id") == memory.id)
    assert rent in content[slice(*entry["passage"])] and rent not in str(logged)

    hearth.memories.update_content(memory.id, content.replace("ninety", "eighty"))
    edited = reply_context(hearth.storage, reply.interaction_id)
    assert edited is not None
    changed = next(item for item in edited if item.kind == "memory")
    assert changed.changed and changed.passage is None
