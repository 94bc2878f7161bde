"""Answering the last message again (regenerate, edit and resend) and finding chats (search,
imported sessions), through ``ConversationService`` on a real database and embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.conversation import TurnFinished
from core.conversation.assembly import LeftOut
from core.errors import InvalidInputError
from core.storage.orm import AuditEntry, ContextLog, Interaction, UserFact
from core.storage.port import IndexedKind, SearchFilters
from core.transfer.transcript import import_transcript


class Listener:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def exchange_completed(self, interaction_id: int, session_id: str) -> None:
        self.calls.append(interaction_id)


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    opened = Hearth.open(migrated_home, embedder=embedder)
    yield opened
    opened.close()


def finished(events: list) -> TurnFinished:
    assert isinstance(events[-1], TurnFinished), events[-1]
    return events[-1]


def rows(hearth: Hearth, model: type) -> list:
    with hearth.storage.read() as session:
        found = list(session.scalars(select(model).order_by(model.id)))
        session.expunge_all()
        return found


def test_regenerate_replaces_the_reply_in_place_and_is_not_learned_twice(hearth) -> None:
    llm = ScriptedLLM(["Lisbon is lovely.", "Lisbon has seven hills."])
    heard = Listener()
    conversation = hearth.conversation(llm, listener=heard)
    chat = conversation.sessions.new_session()
    first = finished(list(conversation.send(chat, "My sister lives in Lisbon")))

    again = finished(list(conversation.answer_again(chat, first.interaction_id)))

    assert again.interaction_id == first.interaction_id
    (saved,) = conversation.sessions.session_history(chat)
    assert (saved.user_message, saved.agent_response, saved.status) == (
        "My sister lives in Lisbon", "Lisbon has seven hills.", "completed")
    assert len(rows(hearth, ContextLog)) == 1  # the new reply's record replaced the old one
    assert heard.calls == [first.interaction_id]  # the same words are not learned again
    found = hearth.storage.search
    with hearth.storage.read() as session:  # the full-text index holds the new reply only
        assert [h.id for h in found.text_search(session, IndexedKind.INTERACTION, "hills",
                                                SearchFilters(), 5)] == [saved.interaction_id]
        assert found.text_search(session, IndexedKind.INTERACTION, "lovely",
                                 SearchFilters(), 5) == []
    assert [a.action for a in rows(hearth, AuditEntry)][-1] == "chat.regenerate"
    # the second request asked the same question, without the first reply as history
    last_request = [r for r in llm.requests if r.kind == "chat"][-1]
    assert "Lisbon is lovely." not in " ".join(m.content for m in last_request.messages)


def test_an_edited_message_replaces_the_original_and_is_learned_from(hearth) -> None:
    llm = ScriptedLLM(["Noted.", "Porto, then."])
    heard = Listener()
    conversation = hearth.conversation(llm, listener=heard)
    chat = conversation.sessions.new_session()
    first = finished(list(conversation.send(chat, "I live in Lisbon")))

    finished(list(conversation.answer_again(chat, first.interaction_id,
                                            text="I live in Porto")))

    (saved,) = conversation.sessions.session_history(chat)
    assert (saved.user_message, saved.agent_response) == ("I live in Porto", "Porto, then.")
    assert heard.calls == [first.interaction_id, first.interaction_id]
    asked = [r for r in llm.requests if r.kind == "chat"][-1].messages[-1].content
    assert "I live in Porto" in asked and "Lisbon" not in asked
    assert [a.action for a in rows(hearth, AuditEntry)][-1] == "chat.edit"


def test_only_the_last_exchange_can_be_answered_again(hearth) -> None:
    conversation = hearth.conversation(ScriptedLLM(["A.", "B."]))
    chat = conversation.sessions.new_session()
    first = finished(list(conversation.send(chat, "One")))
    finished(list(conversation.send(chat, "Two")))
    with pytest.raises(InvalidInputError, match="last message"):
        conversation.answer_again(chat, first.interaction_id)
    with pytest.raises(InvalidInputError, match="empty"):
        conversation.answer_again(chat, first.interaction_id + 1, text="   ")
    assert [r.agent_response for r in rows(hearth, Interaction)] == ["A.", "B."]


TRANSCRIPT = {
    "conversation_id": "maya-and-sam", "participants": ["Maya", "Sam"],
    "sessions": [{"session_id": "s1", "started_at": "2024-03-02T18:30:00+01:00",
                  "turns": [{"turn_id": "t1", "speaker": "Maya",
                             "text": "I moved to Porto last week."}]}]}


def test_search_finds_chats_by_title_and_message_and_imported_sessions(hearth) -> None:
    conversation = hearth.conversation(ScriptedLLM(["Sure.", "Ok."]))
    marathon = conversation.sessions.new_session("Marathon plan")
    dinner = conversation.sessions.new_session()
    list(conversation.send(dinner, "A recipe with aubergine please"))
    list(conversation.send(marathon, "Ten weeks left"))
    import_transcript(TRANSCRIPT, hearth.storage, hearth.memories)

    assert [s.id for s in conversation.sessions.search_sessions("marathon")] == [marathon]
    assert [s.id for s in conversation.sessions.search_sessions("AUBERGINE")] == [dinner]
    (imported,) = conversation.sessions.search_sessions("porto")
    assert imported.imported and imported.conversation_id == "maya-and-sam"
    # FTS syntax typed by the user is only words: no error, and nothing odd matches
    for text in ('"unclosed', "NEAR(marathon", "title:plan*", "-)(^", "NOT marathon*"):
        found = conversation.sessions.search_sessions(text)
        assert all(s.id == marathon for s in found), text
    assert conversation.sessions.search_sessions("   ") == []
    # the list of chats shows imported sessions only when asked; their turns keep speakers
    assert imported.id not in [s.id for s in conversation.sessions.recent_sessions()]
    listed = conversation.sessions.recent_sessions(include_imported=True)
    assert imported.id in [s.id for s in listed]
    (turn,) = conversation.sessions.session_history(imported.id)
    assert (turn.speaker, turn.user_message) == ("Maya", "I moved to Porto last week.")
    with pytest.raises(InvalidInputError, match="imported conversation"):
        conversation.send(imported.id, "Can I add to it?")
    assert len(conversation.sessions.session_history(imported.id)) == 1


def test_an_answer_without_a_fact_leaves_it_out_and_saves_nothing(hearth) -> None:
    hearth.facts.remember("home_city", "Lisbon", category="location")
    (fact,) = rows(hearth, UserFact)
    llm = ScriptedLLM(["You live in Lisbon.", "I am not sure where you live."])
    heard = Listener()
    conversation = hearth.conversation(llm, listener=heard)
    chat = conversation.sessions.new_session()
    first = finished(list(conversation.send(chat, "Where do I live?")))
    logs_before = len(rows(hearth, ContextLog))

    other = "".join(d.text for d in conversation.answer_without(
        chat, first.interaction_id, LeftOut("fact", fact.id)))

    assert other == "I am not sure where you live."
    original, without = [r for r in llm.requests if r.kind == "chat"]
    assert "Lisbon" in original.messages[0].content
    assert "Lisbon" not in " ".join(m.content for m in without.messages)
    assert without.tools == []
    (saved,) = conversation.sessions.session_history(chat)
    assert saved.agent_response == "You live in Lisbon."
    assert len(rows(hearth, ContextLog)) == logs_before and heard.calls == [first.interaction_id]
    with pytest.raises(InvalidInputError, match="fact, memory, note or summary"):
        conversation.answer_without(chat, first.interaction_id, LeftOut("about_you", 1))
