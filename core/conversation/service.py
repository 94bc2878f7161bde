"""``ConversationService``: one turn of the conversation, for every front end.

The CLI (``hearth chat`` / ``hearth ask``) and the desktop window call the same code::

    service = hearth.conversation(provider, listener=pipeline, confirm=ask_user)
    session_id = service.sessions.new_session()
    for event in service.send(session_id, "Where do I live again?"):
        ...  # TextDelta, ToolActivity, Compacted, then TurnFinished or TurnFailed

The user's message is saved before the model is asked anything, and the reply, what was
used and the context log are written in one transaction when the turn ends, however it
ends: a model error or any ``HearthError`` ends it with ``TurnFailed`` (the message and
any partial reply stay saved, marked failed); a bug is saved the same way, then raised;
cancelling keeps the partial reply, marked stopped. The listener and the access marking
cannot break a turn. One turn per session at a time; the exchange is claimed by this
process while the reply is produced (``core.storage.liveness``). ``answer_again`` reruns
the last exchange in place. With a model that has no tools, an explicit request is held by
the rules (``core.daily.explicit``) and answered with ``held_reply``, without the model.
The chats themselves (listing, renaming, deleting, reading) are ``service.sessions``
(``core.conversation.sessions``).

See docs/conversation.md ("A turn", "Answering again") and docs/assistant.md ("Which path
holds a request").
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core import clock
from core.conversation import assembly
from core.conversation.assembly import Draft, LeftOut, Prompt
from core.conversation.audit import redact_arguments
from core.conversation.compaction import Compactor, needs_compaction
from core.conversation.services import ConversationServices
from core.conversation.sessions import CHAT_SOURCE, ChatSessions, require_session
from core.conversation.daily_tools import hold_once
from core.conversation import memory_answer
from core.conversation.events import (
    Compacted,
    ExchangeListener,
    FromMemory,
    TextDelta,
    ToolActivity,
    TurnEvent,
    TurnFailed,
    TurnFinished,
)
from core.conversation.small_reply import REPLY_TOKENS, SmallReply
from core.llm.token_estimates import clip, estimate_tokens
from core.conversation.tools import TOOL_SPECS, Confirm, ToolBox, ToolOutcome
from core.conversation.user_turn import Clock, local_now
from core.daily import when
from core.daily.explicit import explicit_request
from core.errors import HearthError, InvalidInputError
from core.forgetting.service import Forgotten
from core.learning.consent import learns_from
from core.learning.exclusions import ExclusionGate
from core.storage.liveness import INTERACTION, Claim, claim_new_row
from core.llm import CancelToken, LLMCancelled, LLMProvider, Message, ToolCall
from core.llm.capability import CapabilityProfile, Job, profile_of
from core.llm.turns_first import TurnsFirst
from core.storage.orm import (
    AuditEntry,
    ChatSession,
    ContextLog,
    Interaction,
    PendingAction,
    utcnow,
)
from core.user_input import readable_text

log = logging.getLogger(__name__)

MAX_TOOL_ROUNDS = 4
"""Rounds in which tools are offered; one more round without tools forces an answer."""
TITLE_CHARS = 60
HELD_REPLY = "This waits for you: {what}. It is not done yet: {how}."
"""The reply to a request the rules held (docs/assistant.md): fixed, so it can never
claim the request is already done."""
HOW_TO_ANSWER = {
    "desktop": "press Confirm on the card below to do it, Edit to change it, or Cancel to "
               "drop it"}
"""How each front end answers a held request. The window shows a card under the reply;
anywhere else (``hearth ask``, ``hearth chat``, a scheduled prompt) there is none, so the
reply names the command, with the request's number."""
HOW_IN_A_TERMINAL = ("confirm it with `hearth pending confirm {id}`, or drop it with "
                     "`hearth pending cancel {id}`")


def held_reply(preview: str, action_id: int, channel: str) -> str:
    """The fixed reply naming a held request and how this front end answers it."""
    how = HOW_TO_ANSWER.get(channel, HOW_IN_A_TERMINAL).format(id=action_id)
    return HELD_REPLY.format(what=f"{preview[:1].lower()}{preview[1:]}".rstrip("."), how=how)


@dataclass
class _Turn:
    """What one turn has produced so far (kept even when the turn fails)."""

    interaction_id: int
    started: float
    claim: Claim
    reply: list[str] = field(default_factory=list)
    tools: list[ToolOutcome] = field(default_factory=list)
    prompt: Prompt | None = None
    stopped: bool = False
    error: HearthError | None = None
    forgotten: list[Forgotten] = field(default_factory=list)
    """Facts forgotten during the turn: the reply is saved without their values."""
    learn: bool = True
    """Whether the learner hears of the exchange (not for a regenerated reply)."""

    @property
    def text(self) -> str:
        return "".join(self.reply)

    def saved_text(self) -> str:
        """The reply as stored: what the assistant said with any value forgotten during
        this turn replaced, as it was everywhere else."""
        text = self.text
        for forgotten in self.forgotten:
            text = forgotten.redact(text)
        return text

    def tools_used(self) -> list[dict[str, Any]]:
        """``Interaction.tools_used``: each tool call, arguments redacted."""
        return [{"type": "tool", "name": t.name,
                 "arguments": redact_arguments(t.arguments, t.name),
                 "summary": t.summary, "ok": t.ok} for t in self.tools]

    @property
    def status(self) -> str:
        if self.error is not None:
            return "failed"
        return "stopped" if self.stopped else "completed"


class ConversationService:
    """The turns of the chats over one open ``Hearth`` and one provider; the chats
    themselves are ``sessions``."""

    def __init__(self, services: ConversationServices, provider: LLMProvider, *,
                 listener: ExchangeListener | None = None, clock: Clock | None = None,
                 confirm: Confirm | None = None, channel: str = "desktop",
                 turns: TurnsFirst | None = None) -> None:
        self._services = services
        self.sessions = ChatSessions(services.storage)
        """Starting, listing, renaming, deleting and reading the chats."""
        self._provider = provider
        self._turns = turns or TurnsFirst()
        """Shared with the learning: background model work gives way to a reply."""
        self._listener = listener
        self._clock = clock or local_now
        self._confirm = confirm
        self._channel = channel
        self._compactor = Compactor(services.storage, provider)
        self._gate_lock = threading.Lock()
        self._gate_terms = tuple(services.settings.exclusions)
        self._gate = ExclusionGate(self._gate_terms)
        self._dropped_by_earlier_gates = 0

    @property
    def provider(self) -> LLMProvider:
        """The model answering (its ``name`` and ``model`` are shown to the user)."""
        return self._provider

    @property
    def profile(self) -> CapabilityProfile:
        """What the model may do (``core.llm.capability``): tools, compaction, and whether
        its replies are kept short and cleaned (``core.conversation.small_reply``)."""
        return profile_of(self._provider, self._services.settings.model_jobs)

    @property
    def dropped_by_exclusion(self) -> int:
        """Tool writes and compaction candidates the exclusion gate refused."""
        with self._gate_lock:
            return self._dropped_by_earlier_gates + self._gate.dropped

    def _current_gate(self) -> ExclusionGate:
        """The gate for the exclusions in force now: a term the user adds while Hearth runs
        applies from the next turn on."""
        with self._gate_lock:
            terms = tuple(self._services.settings.exclusions)
            if terms != self._gate_terms:
                self._dropped_by_earlier_gates += self._gate.dropped
                self._gate_terms, self._gate = terms, ExclusionGate(terms)
            return self._gate

    def send(self, session_id: str, text: str, *,
             cancel: CancelToken | None = None) -> Iterator[TurnEvent]:
        """Run one turn (docs/conversation.md, "A turn"). Raises at once (before any event) for an
        empty message, one that is not valid text, or an unknown session."""
        if not text.strip():
            raise InvalidInputError("The message is empty.", "Type something to send.")
        readable_text(text, "The message")
        with self._services.storage.read() as session:
            self._require_chat(session, session_id)
        return self._turn(session_id, text, cancel or CancelToken())

    def answer_again(self, session_id: str, interaction_id: int, *, text: str | None = None,
                     cancel: CancelToken | None = None) -> Iterator[TurnEvent]:
        """Run the chat's last exchange again in place: a new reply to the same message
        (``text`` None), or to ``text``, the user's edit of it. Raises at once for an
        exchange that is not the last of the chat, or an empty edit."""
        if text is not None:
            if not text.strip():
                raise InvalidInputError("The message is empty.", "Type something to send.")
            readable_text(text, "The message")
        with self._services.storage.read() as session:
            self._require_chat(session, session_id)
            original = self._require_last(session, session_id, interaction_id)
        edited = text is not None and text != original
        message = text if text is not None else original
        start = partial(self._reset_exchange, session_id=session_id,
                        interaction_id=interaction_id, text=message, edited=edited)
        return self._turn(session_id, message, cancel or CancelToken(), start=start,
                          learn=edited)

    def answer_without(self, session_id: str, interaction_id: int, left_out: LeftOut, *,
                       cancel: CancelToken | None = None) -> Iterator[TextDelta]:
        """What the model answers to an exchange's message when one context item (a fact,
        memory, note or summary) is left out: streamed, and never saved or learned from.

        It shows the user whether the item mattered. The prompt is drafted now (the
        memory and chat as they are today) and no tools are offered, so the comparison
        changes nothing."""
        if left_out.kind not in assembly.LEAVABLE:
            raise InvalidInputError("Only a fact, memory, note or summary can be left out.",
                                    "Choose one of those in the list.")
        with self._services.storage.read() as session:
            row = session.get(Interaction, interaction_id)
            if row is None or row.session_id != session_id:
                raise InvalidInputError("That reply is no longer in this chat.",
                                        "It may have been deleted.")
            text = row.user_message
        return self._without(session_id, interaction_id, text, left_out, cancel or CancelToken())

    def _without(self, session_id: str, interaction_id: int, text: str, left_out: LeftOut,
                 cancel: CancelToken) -> Iterator[TextDelta]:
        services = self._services
        prepared = assembly.draft(services.storage, services.recall, services.settings,
                                  self._provider, text, self._clock(), left_out=left_out)
        prompt = assembly.complete(services.storage, services.recall, services.settings,
                                   self._provider, prepared, session_id=session_id, text=text,
                                   exclude_id=interaction_id)
        try:
            for chunk in self._provider.chat_stream(
                    prompt.messages, cancel=cancel,
                    max_tokens=assembly.reply_reserve(self._provider.context_window),
                    temperature=services.settings.temperature):
                if chunk.text:
                    yield TextDelta(chunk.text)
        except LLMCancelled:
            return

    def _turn(self, session_id: str, text: str, cancel: CancelToken, *,
              start: Callable[[Session], int] | None = None,
              learn: bool = True) -> Iterator[TurnEvent]:
        create = start or (lambda session: self._add_user_message(session, session_id, text))
        interaction_id, claim = claim_new_row(self._services.storage, INTERACTION, create)
        turn = _Turn(interaction_id, time.perf_counter(), claim, learn=learn)
        try:
            held = self._hold_explicit(session_id, turn, text)
            if held is not None:
                turn.reply.append(held_reply(held.preview, held.id, self._channel))
                yield TextDelta(turn.text)
            else:
                with self._turns.turn():  # the learning's model calls wait meanwhile
                    yield from self._answer(session_id, turn, text, cancel)
        except LLMCancelled:
            turn.stopped = True
        except HearthError as exc:  # the model failed, or the database refused: say so
            turn.error = exc
        except (GeneratorExit, KeyboardInterrupt):  # stopped listening: keep what was said
            turn.stopped = True
            self._finish(session_id, turn)
            raise
        except Exception:  # a bug: keep what the turn had, then let it surface
            log.exception("turn %s failed unexpectedly; saving what it had", turn.interaction_id)
            turn.error = HearthError("The turn failed unexpectedly.", "See the log for details.")
            self._finish(session_id, turn)
            raise
        context_log_id = self._finish(session_id, turn)
        if turn.error is not None:
            yield TurnFailed(turn.error.message, turn.error.hint, turn.interaction_id)
        else:
            yield TurnFinished(turn.interaction_id, turn.text, context_log_id,
                               dict(turn.prompt.tokens) if turn.prompt else {}, turn.stopped)

    def _answer(self, session_id: str, turn: _Turn, text: str,
                cancel: CancelToken) -> Iterator[TurnEvent]:
        """What memory answers (``FromMemory``), then the model's reply: draft the prompt,
        compact the conversation if it has grown too long, then converse."""
        known = memory_answer.answers(self._services.facts, text)
        if known:
            yield FromMemory(tuple(known))
        prepared = assembly.draft(self._services.storage, self._services.recall,
                                  self._services.settings, self._provider, text, self._clock())
        compaction = self._compact_if_needed(session_id, turn.interaction_id, prepared, cancel)
        if compaction is not None:
            yield compaction
        turn.prompt = assembly.complete(
            self._services.storage, self._services.recall, self._services.settings,
            self._provider, prepared, session_id=session_id, text=text,
            exclude_id=turn.interaction_id)
        yield from self._converse(session_id, turn, cancel)

    def _hold_explicit(self, session_id: str, turn: _Turn, text: str) -> PendingAction | None:
        """With a model without tools, hold the reminder, task or note ``text`` asks for
        outright (docs/assistant.md, "Which path holds a request") and return it. One the
        actions refuse (a task that no longer exists, a moment gone by) is left to the
        model's answer."""
        if self.profile.may(Job.TOOLS):
            return None
        request = explicit_request(text, now=clock.now(), zone=when.zone())
        if request is None:
            return None
        try:
            row, already = hold_once(self._services.daily, request.action, request.arguments,
                                     source_message=text, session_id=session_id,
                                     interaction_id=turn.interaction_id)
        except InvalidInputError as refused:
            log.info("the request in exchange %s was not held: %s", turn.interaction_id,
                     refused)  # logged by its type: its sentence may repeat the request
            return None
        if not already:
            with self._services.storage.write() as session:
                session.add(AuditEntry(
                    action=f"explicit.{request.action}", actor="assistant",
                    arguments={"pending_action": row.id, "given": sorted(row.arguments)},
                    result_summary=f"held pending action {row.id}"))
        return row

    def _add_user_message(self, session: Session, session_id: str, text: str) -> int:
        """The message is stored before the model is asked anything: nothing can lose it.
        A message in a closed session reopens it (the conversation simply goes on). The
        pending exchange is claimed by this process until ``_finish``."""
        chat = require_session(session, session_id)
        chat.last_message_at = utcnow()
        chat.closed_at = None
        if not chat.title:
            chat.title = clip(" ".join(text.split()), TITLE_CHARS)
        interaction = Interaction(session_id=session_id, user_message=text,
                                  agent_response="", channel=self._channel,
                                  provider=self._provider.name, model=self._provider.model,
                                  tools_used=[], status="pending")
        session.add(interaction)
        session.flush()
        return interaction.id

    def _reset_exchange(self, session: Session, session_id: str, interaction_id: int,
                        text: str, *, edited: bool) -> int:
        """Make the last exchange pending again, with ``text`` as the user's message: its
        reply, tools, error and context log are cleared (the new ones replace them)."""
        chat = require_session(session, session_id)
        self._require_last(session, session_id, interaction_id)
        chat.last_message_at = utcnow()
        chat.closed_at = None
        row = session.get(Interaction, interaction_id)
        assert row is not None  # _require_last found it
        row.user_message, row.agent_response, row.tools_used = text, "", []
        row.status, row.error, row.latency_ms = "pending", None, None
        row.provider, row.model = self._provider.name, self._provider.model
        session.execute(delete(ContextLog).where(ContextLog.interaction_id == interaction_id))
        session.add(AuditEntry(
            action="chat.edit" if edited else "chat.regenerate", actor="user",
            arguments={"session_id": session_id, "interaction_id": interaction_id},
            result_summary="the message was edited and answered again" if edited
            else "the reply was written again"))
        return interaction_id

    def _compact_if_needed(self, session_id: str, interaction_id: int, prepared: Draft,
                           cancel: CancelToken) -> Compacted | None:
        settings, window = self._services.settings, self._provider.context_window
        if not self.profile.may(Job.SUMMARIES):  # the history budget drops the oldest
            return None
        size = assembly.conversation_tokens(self._services.storage, session_id, interaction_id,
                                            prepared)
        if not needs_compaction(size, window, settings.compaction_threshold):
            return None
        try:
            with self._services.storage.read() as session:
                learn = learns_from(settings, session, session_id)
            done = self._compactor.compact(session_id, gate=self._current_gate(),
                                           exclude_id=interaction_id, cancel=cancel,
                                           learn=learn)
        except LLMCancelled:
            raise
        except Exception:  # compaction is an optimisation: the budget still bounds history
            log.exception("compaction of session %s failed; continuing without it", session_id)
            return None
        if done is None:
            return None
        return Compacted(done.through_id, done.folded, done.events)

    def _converse(self, session_id: str, turn: _Turn,
                  cancel: CancelToken) -> Iterator[TurnEvent]:
        """Stream the reply, running tool calls between rounds."""
        assert turn.prompt is not None
        messages = list(turn.prompt.messages)
        profile = self.profile
        tools = TOOL_SPECS if profile.may(Job.TOOLS) else ()
        max_tokens = assembly.reply_reserve(self._provider.context_window)
        small = None
        if profile.limited:
            small = SmallReply("\n".join(message.content for message in messages))
            max_tokens = min(max_tokens, REPLY_TOKENS)
        toolbox = ToolBox(self._services, session_id=session_id,
                          interaction_id=turn.interaction_id, gate=self._current_gate(),
                          confirm=self._confirm, reply_so_far=lambda: turn.text,
                          on_forgotten=turn.forgotten.append)
        for round_index in range(MAX_TOOL_ROUNDS + 1):
            offered = tools if round_index < MAX_TOOL_ROUNDS else ()
            said: list[str] = []
            calls: list[ToolCall] = []
            for chunk in self._provider.chat_stream(
                    messages, tools=offered, cancel=cancel, max_tokens=max_tokens,
                    temperature=self._services.settings.temperature):
                shown = small.feed(chunk.text) if small is not None else chunk.text
                if shown:
                    if not said and turn.text and not turn.text[-1].isspace():
                        turn.reply.append("\n\n")
                        yield TextDelta("\n\n")
                    said.append(shown)
                    turn.reply.append(shown)
                    yield TextDelta(shown)
                calls.extend(chunk.tool_calls)
            if cancel.cancelled:
                turn.stopped = True
                return
            rest = small.finish() if small is not None else ""
            if rest:
                turn.reply.append(rest)
                yield TextDelta(rest)
            if not calls or not offered:
                if calls:
                    log.warning("the model asked for tools after %d rounds; ignored",
                                MAX_TOOL_ROUNDS)
                return
            messages.append(Message("assistant", "".join(said), tool_calls=tuple(calls)))
            for call in calls:
                outcome = toolbox.run(call)
                turn.tools.append(outcome)
                yield ToolActivity(outcome.name, redact_arguments(outcome.arguments, outcome.name),
                                   outcome.summary, outcome.ok)
                messages.append(Message("tool", outcome.result, tool_name=outcome.name))

    def _finish(self, session_id: str, turn: _Turn) -> int | None:
        """Write the exchange and its context log together, then the follow-ups."""
        latency_ms = (time.perf_counter() - turn.started) * 1000
        try:
            with self._services.storage.write() as session:
                interaction = session.get(Interaction, turn.interaction_id)
                if interaction is None:  # the session was deleted meanwhile
                    return None
                interaction.agent_response = turn.saved_text()
                interaction.tools_used = turn.tools_used()
                interaction.status = turn.status
                interaction.error = turn.error.message if turn.error is not None else None
                interaction.latency_ms = round(latency_ms, 1)
                # in the same commit as the final state: the exchange cannot end up saved
                # yet forgotten by learning, whenever the process stops
                interaction.learning_due = self._listener is not None
                log_id = None
                if turn.prompt is not None:
                    tokens = {**turn.prompt.tokens, "reply": estimate_tokens(turn.text)}
                    entry = ContextLog(interaction_id=turn.interaction_id,
                                       session_id=session_id,
                                       system_prompt_sha256=turn.prompt.system_sha256,
                                       items=list(turn.prompt.items), tokens=tokens)
                    session.add(entry)
                    session.flush()
                    log_id = entry.id
        finally:
            turn.claim.release()  # only now: the final state is committed (or never will be)
        if turn.prompt is not None and turn.prompt.memory_ids:
            try:
                self._services.recall.mark_accessed(turn.prompt.memory_ids)
            except Exception:  # reinforcement is bookkeeping; the exchange is saved
                log.exception("marking injected memories accessed failed")
        if self._listener is not None and turn.learn:
            try:
                self._listener.exchange_completed(turn.interaction_id, session_id)
            except Exception:  # the learner must never break a reply
                log.exception("the exchange listener failed for interaction %s",
                              turn.interaction_id)
        return log_id

    @staticmethod
    def _require_chat(session: Session, session_id: str) -> ChatSession:
        """A session that can go on: an imported conversation is only read."""
        chat = require_session(session, session_id)
        if chat.source != CHAT_SOURCE:
            raise InvalidInputError("An imported conversation cannot be continued.",
                                    "Start a new chat instead.")
        return chat

    @staticmethod
    def _require_last(session: Session, session_id: str, interaction_id: int) -> str:
        """The user's message of ``interaction_id``, which must be the chat's last
        exchange (only the last one can be answered again: later ones built on it)."""
        last = session.execute(
            select(Interaction.id, Interaction.user_message)
            .where(Interaction.session_id == session_id)
            .order_by(Interaction.id.desc()).limit(1)).first()
        if last is None or last.id != interaction_id:
            raise InvalidInputError("Only the chat's last message can be answered again.",
                                    "Send a new message instead.")
        return str(last.user_message)
