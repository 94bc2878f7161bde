"""The tools offered to a model that can call them, and their execution.

============================  =======================================================
remember_fact(key, value,     upsert a permanent fact (source "agent"); unchanged values
category)                     are not rewritten
recall_facts(query="")        all facts, or those whose key or value contains ``query``
forget_fact(key)              forget a fact everywhere (``core.forgetting``), only after
                              the user confirms it through the interface (``confirm``,
                              which is told how many places hold its value); without a way
                              to ask, refuse. What the assistant says in the rest of the
                              turn is redacted the same way before it is saved
                              (``on_forgotten``)
search_memory(query)          hybrid recall over memories and notes
search_history(query)         keyword search over past exchanges (all chats)
record_observation(content,   a context event for consolidation (``observation``)
category)
============================  =======================================================

The daily tools (tasks, reminders, notes, journal, read-later, ``find_everything``) are in
``core.conversation.daily_tools``: the changes among them are held for the user's Confirm.

A tool never raises into the turn: bad arguments, unknown tools, refused writes and
failures all become a result starting with ``error:`` that the model reads and can
recover from. Writes pass the exclusion gate first: a fact or observation that
matches the user's exclusions is not stored, and the model is told so. They must also be
the user's own words (``core.learning.grounding``): a fact's value must be in what the user
wrote in this session, and neither a fact's key nor an observation may rest on words only
the assistant used (its replies in this session and what it has said so far this turn);
otherwise nothing is stored and the model is told to ask the user. Every call leaves
an audit entry (``tool.<name>``, actor ``assistant``) with redacted arguments and a
content-free summary (see ``core.conversation.audit``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from core.conversation.audit import record_tool_call
from core.conversation.daily_tools import DAILY_TOOL_SPECS, DailyTools
from core.llm.token_estimates import clip
from core.conversation.tool_arguments import ToolRefused, text_argument
from core.conversation.services import ConversationServices
from core.errors import HearthError
from core.knowledge.facts import CATEGORIES, key_words, normalise_key
from core.forgetting import wording
from core.forgetting.matching import PLACEHOLDER
from core.forgetting.service import Forgotten
from core.learning.consent import learns_from
from core.learning.events import add_event
from core.learning.exclusions import ExclusionGate
from core.learning.grounding import Said, is_grounded
from core.llm import ToolCall, ToolSpec
from core.recall.service import RecallQuery
from core.storage.orm import Interaction
from core.storage.port import IndexedKind, SearchFilters

log = logging.getLogger(__name__)

Confirm = Callable[[str], bool]
"""Asks the user a yes/no question (the CLI prompts, the desktop shows a dialog)."""

SEARCH_RESULTS = 5
RESULT_CHARS = 300
GROUNDING_EXCHANGES = 200
"""How many of the session's latest exchanges ground a fact or an observation."""

_STRING = {"type": "string"}
TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec("remember_fact",
             "Save a permanent fact about the user (an address, a name, a preference, a "
             "health detail). Overwrites the previous value of the same key.",
             {"type": "object", "properties": {
                 "key": {**_STRING, "description": "snake_case name, e.g. home_city"},
                 "value": {**_STRING, "description": "the fact, in a few words"},
                 "category": {"type": "string", "enum": list(CATEGORIES)}},
              "required": ["key", "value"]}),
    ToolSpec("recall_facts",
             "Search the user's permanent facts by key or value; an empty query lists all.",
             {"type": "object", "properties": {"query": _STRING}, "required": []}),
    ToolSpec("forget_fact",
             "Delete a permanent fact by key. The user is asked to confirm first.",
             {"type": "object", "properties": {"key": _STRING}, "required": ["key"]}),
    ToolSpec("search_memory",
             "Search memories and notes about the user by meaning and keywords.",
             {"type": "object", "properties": {"query": _STRING}, "required": ["query"]}),
    ToolSpec("search_history",
             "Find past conversations with the user that contain these words.",
             {"type": "object", "properties": {"query": _STRING}, "required": ["query"]}),
    ToolSpec("record_observation",
             "Note something worth remembering about the user that is not a simple fact.",
             {"type": "object", "properties": {"content": _STRING, "category": _STRING},
              "required": ["content"]}),
    *DAILY_TOOL_SPECS,
)


@dataclass(frozen=True)
class ToolOutcome:
    """What a call did: ``result`` goes to the model, ``summary`` to the log and the UI."""

    name: str
    arguments: dict[str, Any]
    result: str
    summary: str
    ok: bool


class ToolBox:
    """Runs the tools for one turn of one session."""

    def __init__(self, services: ConversationServices, *, session_id: str, interaction_id: int,
                 gate: ExclusionGate, confirm: Confirm | None,
                 reply_so_far: Callable[[], str] | None = None,
                 on_forgotten: Callable[[Forgotten], None] | None = None) -> None:
        self._services = services
        self._session_id = session_id
        self._interaction_id = interaction_id
        self._gate = gate
        self._confirm = confirm
        self._reply_so_far = reply_so_far
        self._on_forgotten = on_forgotten
        self._handlers: dict[str, Callable[[Mapping[str, Any]], tuple[str, str]]] = {
            "remember_fact": self._remember_fact, "recall_facts": self._recall_facts,
            "forget_fact": self._forget_fact, "search_memory": self._search_memory,
            "search_history": self._search_history,
            "record_observation": self._record_observation,
            **DailyTools(services.daily, session_id=session_id, interaction_id=interaction_id,
                         said=self._said).handlers(),
        }

    def run(self, call: ToolCall) -> ToolOutcome:
        """Execute one call and audit it; never raises for anything the model sent."""
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        handler = self._handlers.get(call.name)
        ok = False
        if handler is None:
            result = summary = (f"error: there is no tool named {call.name!r}; available: "
                                f"{', '.join(self._handlers)}")
        else:
            try:
                result, summary = handler(arguments)
                ok = True
            except ToolRefused as refused:
                result, summary = refused.result, refused.summary
            except HearthError as exc:
                result = f"error: {exc.message} {exc.hint}".strip()
                summary = f"error: {exc.message}"
            except Exception as exc:  # a broken tool must not break the reply
                log.exception("tool %s failed", call.name)
                result = summary = f"error: the tool failed ({type(exc).__name__})"
        with self._services.storage.write() as session:
            record_tool_call(session, call.name, arguments, summary)
        return ToolOutcome(call.name, dict(arguments), result, summary, ok)

    # --- facts ---------------------------------------------------------------------------

    def _remember_fact(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        key = normalise_key(text_argument(arguments, "key"))
        value = text_argument(arguments, "value")
        category = text_argument(arguments, "category", required=False, default="general").lower()
        self._refuse_if_not_learning()
        self._refuse_if_excluded(f"{key_words(key)} {value}")
        user, said = self._said()
        if not is_grounded(value, user) or not said.key_is_users_own(key):
            raise ToolRefused(
                "not stored: a fact about the user is stored only in the user's own words, "
                "and the user has not said this; ask them, and store what they answer",
                f"refused {key}: not in the user's words")
        change = self._services.facts.remember(key, value, category=category, source="agent")
        was = f" (was: {change.old_value})" if change.action == "updated" else ""
        return f"{change.action}: {key} = {value}{was}", f"{change.action} fact {key}"

    def _recall_facts(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        query = text_argument(arguments, "query", required=False)
        facts = self._services.facts.search(query)
        if not facts:
            return (f"no facts match {query!r}" if query else "no facts are stored yet"), \
                "0 facts"
        lines, category = [], None
        for fact in sorted(facts, key=lambda f: (f.category, f.key)):
            if fact.category != category:
                lines.append(f"*{fact.category.capitalize()}*")
                category = fact.category
            lines.append(f"- {fact.key}: {fact.value}")
        keys = ", ".join(fact.key for fact in facts)
        return "\n".join(lines), clip(f"{len(facts)} facts: {keys}", 200)

    def _forget_fact(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        key = normalise_key(text_argument(arguments, "key"))
        fact = self._services.facts.get(key)
        if fact is None:
            raise ToolRefused(f"error: there is no fact named {key}; use recall_facts to "
                              "find the right key", f"no fact {key}")
        if self._confirm is None:
            raise ToolRefused(
                f"not deleted: deleting {key} needs the user's confirmation, which cannot be "
                "asked here. Tell the user they can delete it themselves with "
                f"`hearth facts forget {key}`.", f"refused: no way to confirm {key}")
        preview = self._services.forgetting.preview(key)
        elsewhere = f" {wording.redactions(preview, done=False)}" if preview.total else ""
        if not self._confirm(f"Forget the fact “{key_words(key)}: {fact.value}”?{elsewhere}"):
            raise ToolRefused(f"not deleted: the user did not confirm; {key} was kept",
                              f"kept {key}: user declined")
        forgotten = self._services.forgetting.forget(key)
        if self._on_forgotten is not None:
            self._on_forgotten(forgotten)
        report = forgotten.report
        backups = (f" {wording.backups_held(len(report.backups))} Tell the user they can "
                   f"remove it from them with `hearth facts forget {key} --from-backups`."
                   if report.backups else "")
        return (f"deleted: {key}; its value was replaced by {PLACEHOLDER} in {report.total} "
                f"places.{backups} Do not repeat the value.", f"deleted fact {key}")

    # --- searches ------------------------------------------------------------------------

    def _search_memory(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        results = self._services.recall.recall(RecallQuery(
            text=text_argument(arguments, "query"), k=SEARCH_RESULTS,
            kinds=(IndexedKind.MEMORY, IndexedKind.NOTE), mark_accessed=True))
        lines = []
        for r in results:
            title = r.provenance.get("title")
            date = f", {r.created_at:%Y-%m-%d}" if r.created_at else ""
            label = f"{r.kind.value} {r.id}{date}"
            text = f"{title}: {r.text}" if title else r.text
            lines.append(f"- [{label}] {clip(' '.join(text.split()), RESULT_CHARS)}")
        found = ", ".join(f"{r.kind.value} {r.id}" for r in results)
        return ("\n".join(lines) or "nothing found"), clip(f"{len(results)} results: {found}", 200)

    def _search_history(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        results = self._services.recall.recall(RecallQuery(
            text=text_argument(arguments, "query"), k=SEARCH_RESULTS,
            kinds=(IndexedKind.INTERACTION,),
            signals=frozenset({"text"}),
            filters=SearchFilters(exclude_ids=frozenset({self._interaction_id}))))
        lines = []
        for r in results:
            when = f"{r.created_at:%Y-%m-%d %H:%M}" if r.created_at else "undated"
            lines.append(f"- [{when}] {clip(' '.join(r.text.split()), RESULT_CHARS)}")
        found = ", ".join(str(r.id) for r in results)
        return ("\n".join(lines) or "no past conversation contains these words"), \
            clip(f"{len(results)} exchanges: {found}", 200)

    # --- observations --------------------------------------------------------------------

    def _record_observation(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        content = text_argument(arguments, "content")
        category = clip(text_argument(arguments, "category", required=False, default="general"), 32)
        self._refuse_if_not_learning()
        self._refuse_if_excluded(content)
        if not self._said()[1].users_own(content):
            raise ToolRefused(
                "not recorded: this rests on what you (the assistant) said, not on what the "
                "user said; observations are about the user, in their words",
                "refused: not in the user's words")
        event_id = add_event(self._services.storage, "observation", content,
                             {"source": "tool", "session_id": self._session_id,
                              "category": category, "interaction_id": self._interaction_id})
        return "recorded", f"event {event_id} recorded"

    def _said(self) -> tuple[str, Said]:
        """The user's words in this session (this turn's message included), and what each
        side said, the assistant's reply so far included."""
        with self._services.storage.read() as session:
            rows = session.execute(
                select(Interaction.user_message, Interaction.agent_response)
                .where(Interaction.session_id == self._session_id)
                .order_by(Interaction.id.desc()).limit(GROUNDING_EXCHANGES)).all()
        user = "\n".join(row.user_message or "" for row in rows)
        replies = [row.agent_response or "" for row in rows]
        if self._reply_so_far is not None:
            replies.append(self._reply_so_far())
        return user, Said.of(user, replies)

    def _refuse_if_not_learning(self) -> None:
        with self._services.storage.read() as session:
            if learns_from(self._services.settings, session, self._session_id):
                return
        raise ToolRefused("not stored: the user turned learning off (for this chat or "
                          "everywhere); answer without storing anything",
                          "refused: learning is off")

    def _refuse_if_excluded(self, text: str) -> None:
        if self._gate.drop(text):
            raise ToolRefused("not stored: this touches a topic the user asked never to be "
                              "stored", "dropped by the exclusion list")
