"""What an agent may do with Hearth's memory, each call checked and audited.

The tools: ``search_memory`` (``as_of``: asked at a moment), ``read_memory``,
``list_facts``, ``recall_facts`` and ``read_profile`` need read access; ``remember_fact``,
``record_observation`` and ``forget_fact`` need write access, and what they write is held
for the user's review unless the agent is trusted (a change to a fact the user set, and
every forget, always). Every call, in this order: its arguments are bounded
(``core.agents.limits``, before the grant), the agent is looked up afresh
(``AgentRegistry.seen``: a changed grant applies to the next call), its grant and scope are
checked (categories kept from it are as if they did not exist), writes pass the chat's
gates (learning paused, exclusions), and the call is audited as ``mcp.<tool>`` with a
content-free summary (``core.agents.refusals`` for the refused).

See docs/mcp.md, "Tools", "Consent" and "What is audited".
"""

from __future__ import annotations

import builtins
import enum
import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select

from core.agents import reading
from core.agents.limits import check_sizes
from core.agents.refusals import RefusalLog
from core.agents.registry import AgentRegistry, actor
from core.agents.writes import AgentWrites
from core.agents.services import AgentServices
from core.storage.port import StoragePort
from core.conversation.audit import SUMMARY_CHARS, redact_arguments, redact_text
from core.errors import HearthError, InvalidInputError
from core.knowledge.facts import CATEGORIES, key_words, normalise_key
from core.learning.consent import learns_from
from core.learning.exclusions import ExclusionGate
from core.recall.as_of import HINT, as_of
from core.recall.search import search
from core.storage.orm import Agent, AuditEntry
from core.user_input import readable_text

log = logging.getLogger(__name__)

READ_TOOLS = ("search_memory", "read_memory", "list_facts", "recall_facts", "read_profile")
SEARCH_TOOLS = ("search_memory", "read_memory")
"""What an agent limited to searching may use: a search, and the whole of what it found."""
WRITE_TOOLS = ("remember_fact", "record_observation", "forget_fact")
MAX_RESULTS = 20
KEPT_MARGIN = 3
"""For an agent some categories are kept from, recall is asked for this many times the
results wanted, so that leaving those memories out still leaves enough."""

Result = dict[str, Any]


class AccessDenied(HearthError):
    """The agent lacks the grant the tool needs (or learning is off, or the topic is
    excluded): it is told, in a sentence, what the user can do."""


def _plain(value: Any) -> Any:
    """A JSON-ready copy: times as ISO text, enums as their value."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _text(arguments: Mapping[str, Any], name: str, *, default: str | None = None) -> str:
    value = arguments.get(name, default)
    if not isinstance(value, str) or (not value.strip() and default is None):
        raise InvalidInputError(f"The argument {name!r} needs some text.",
                                f"Pass {name} as a non-empty string.")
    return readable_text(value, f"The argument {name!r}").strip()


def _number(arguments: Mapping[str, Any], name: str, *, smallest: int,
            default: int | None = None) -> int:
    value = arguments.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < smallest:
        raise InvalidInputError(f"The argument {name!r} needs a whole number of at least "
                                f"{smallest}, not {value!r}.", f"Pass {name} as a number.")
    return value


class AgentTools:
    """The tools of one connection, for the agent named ``name``."""

    def __init__(self, services: AgentServices, name: str) -> None:
        self._services = services
        self._registry = AgentRegistry(services.storage)
        self._writes = AgentWrites(services)
        self._name = self._registry.seen(name).name
        self._refusals = RefusalLog(services.storage, self._name)
        self._handlers: dict[str, Callable[[Agent, Mapping[str, Any]], tuple[Result, str]]] = {
            "search_memory": self._search_memory, "read_memory": self._read_memory,
            "list_facts": self._list_facts,
            "recall_facts": self._recall_facts, "read_profile": self._read_profile,
            "remember_fact": self._remember_fact,
            "record_observation": self._record_observation, "forget_fact": self._forget_fact,
        }

    @property
    def name(self) -> str:
        return self._name

    def call(self, tool: str, arguments: Mapping[str, Any]) -> Result:
        """Run ``tool`` for this agent and audit it; a refusal or bad input raises
        ``HearthError`` (after the refusal is audited)."""
        handler = self._handlers.get(tool)
        if handler is None:
            raise InvalidInputError(f"There is no tool named {tool!r}.",
                                    f"Available: {', '.join(self._handlers)}.")
        try:
            check_sizes(tool, arguments)
            agent = self._registry.seen(self._name)
            self._check_access(agent, tool)
            result, summary = handler(agent, arguments)
        except HearthError as refused:
            self._refusals.record(tool, arguments, f"error: {refused.message}")
            raise
        except Exception as exc:
            log.exception("the agent tool %s failed", tool)
            self._refusals.record(tool, arguments, f"error: {type(exc).__name__}")
            raise
        self._audit(tool, arguments, summary)
        return result

    def _audit(self, tool: str, arguments: Mapping[str, Any], summary: str) -> None:
        with self._services.storage.write() as session:
            session.add(AuditEntry(action=f"mcp.{tool}", actor=actor(self._name),
                                   arguments=redact_arguments(arguments, tool),
                                   result_summary=redact_text(summary)[:SUMMARY_CHARS]))

    def _check_access(self, agent: Agent, tool: str) -> None:
        needed = "write" if tool in WRITE_TOOLS else "read"
        if agent.access not in ("write", needed):
            if agent.access == "none":
                self._registry.asked(agent.name)
            have = ("no access to Hearth's memory yet" if agent.access == "none"
                    else "read-only access to Hearth's memory")
            raise AccessDenied(
                f"The agent “{agent.name}” has {have}, so it cannot use {tool}.",
                f"The user can allow it in Hearth (Agents) or with `hearth mcp grant "
                f"{agent.name} {needed}`.")
        if agent.scope == "search" and tool in READ_TOOLS and tool not in SEARCH_TOOLS:
            raise AccessDenied(f"The user let “{agent.name}” only search their memories, so "
                               f"it cannot use {tool}.", "Use search_memory.")
        if tool == "read_profile" and agent.hidden_categories:
            raise AccessDenied(
                f"The user keeps some topics ({', '.join(agent.hidden_categories)}) from "
                f"“{agent.name}”, and the profile touches every part of their life, so it "
                "cannot be read.", "Use search_memory or list_facts.")

    @staticmethod
    def _kept_from(agent: Agent, category: str | None) -> bool:
        """Whether a fact or memory of ``category`` is kept from the agent."""
        return (category or "").strip().lower() in agent.hidden_categories

    def _refuse_kept(self, agent: Agent, category: str) -> None:
        if self._kept_from(agent, category):
            raise AccessDenied(f"The user keeps {category} facts and memories from "
                               f"“{agent.name}”.", "Leave that topic to the user.")

    # --- reads ---------------------------------------------------------------------------

    def _search_memory(self, agent: Agent, arguments: Mapping[str, Any]) -> tuple[Result, str]:
        limit = arguments.get("limit", 5)
        if not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
            raise InvalidInputError(f"A limit of {limit!r} results cannot be used.",
                                    f"Ask for 1 to {MAX_RESULTS} results.")
        wanted = limit * KEPT_MARGIN if agent.hidden_categories else limit
        query = _text(arguments, "query")
        moment = arguments.get("as_of")
        if moment is not None and not isinstance(moment, str):
            raise InvalidInputError(f"The argument 'as_of' needs a date as text, not "
                                    f"{moment!r}.", HINT)
        at = as_of(moment) if moment and moment.strip() else None  # empty: now
        results = [r for r in search(self._services.recall, query, wanted, as_of=at)
                   if not self._kept_from(agent, r.provenance.get("category"))][:limit]
        names = ", ".join(f"{r.kind.value} {r.id}" for r in results)
        return (reading.search_results(results, query, self._services.settings),
                f"{len(results)} results: {names}")

    def _read_memory(self, agent: Agent, arguments: Mapping[str, Any]) -> tuple[Result, str]:
        kind = _text(arguments, "kind").lower()
        if kind not in reading.READABLE:
            raise InvalidInputError(f"{kind!r} is not a kind read_memory reads.",
                                    f"Use one of: {', '.join(reading.READABLE)}.")
        item_id = _number(arguments, "item_id", smallest=1)
        offset = _number(arguments, "offset", smallest=0, default=0)
        return reading.read_record(self._services.storage, self._services.settings, kind, item_id,
                                   offset, lambda category: self._kept_from(agent, category))

    def _list_facts(self, agent: Agent, arguments: Mapping[str, Any]) -> tuple[Result, str]:
        category = _text(arguments, "category", default="").lower() or None
        if category is not None and category not in CATEGORIES:
            raise InvalidInputError(f"{category!r} is not a fact category.",
                                    f"Use one of: {', '.join(CATEGORIES)}.")
        if category is not None:
            self._refuse_kept(agent, category)
        return self._facts(agent, self._services.facts.list(category))

    def _recall_facts(self, agent: Agent, arguments: Mapping[str, Any]) -> tuple[Result, str]:
        return self._facts(agent, self._services.facts.search(_text(arguments, "query")))

    def _facts(self, agent: Agent, facts: builtins.list[Any]) -> tuple[Result, str]:
        facts = [f for f in facts if not self._kept_from(agent, f.category)]
        listed = [{"key": f.key, "value": f.value, "category": f.category,
                   "source": f.source, "updated_at": _plain(f.updated_at)} for f in facts]
        keys = ", ".join(f.key for f in facts)
        return {"facts": listed}, f"{len(listed)} facts: {keys}" if keys else "0 facts"

    def _read_profile(self, _agent: Agent, _arguments: Mapping[str, Any]) -> tuple[Result, str]:
        current = self._services.about_you.current()
        if current is None:
            return {"profile": None}, "no profile yet"
        return ({"profile": current.content, "version": current.id,
                 "written_at": _plain(current.created_at)}, f"profile version {current.id}")

    # --- writes --------------------------------------------------------------------------

    def _remember_fact(self, agent: Agent, arguments: Mapping[str, Any]) -> tuple[Result, str]:
        key = normalise_key(_text(arguments, "key"))
        value = _text(arguments, "value")
        category = _text(arguments, "category", default="general").lower() or "general"
        if category not in CATEGORIES:
            raise InvalidInputError(f"{category!r} is not a fact category.",
                                    f"Use one of: {', '.join(CATEGORIES)}.")
        self._refuse_kept(agent, category)
        self._check_learning(f"{key_words(key)} {value}")
        known = self._services.facts.get(key)
        if known is not None:
            self._refuse_kept(agent, known.category)
        preview = (f"Remember {key_words(key)}: {value} ({category})" if known is None
                   else f"Change {key_words(key)} from {known.value} to {value} ({category})")
        return self._write(agent, "remember_fact",
                           {"key": key, "value": value, "category": category}, preview,
                           f"fact {key}")

    def _record_observation(self, agent: Agent,
                            arguments: Mapping[str, Any]) -> tuple[Result, str]:
        content = _text(arguments, "content")
        category = _text(arguments, "category", default="general")[:32] or "general"
        self._refuse_kept(agent, category)
        self._check_learning(content)
        return self._write(agent, "record_observation",
                           {"content": content, "category": category},
                           f"Note for consolidation: {content}", "an observation")

    def _forget_fact(self, agent: Agent, arguments: Mapping[str, Any]) -> tuple[Result, str]:
        key = normalise_key(_text(arguments, "key"))
        known = self._services.facts.get(key)
        if known is None or self._kept_from(agent, known.category):
            raise InvalidInputError(f"There is no fact named {key}.",
                                    "Use list_facts or recall_facts to find the right key.")
        row = self._writes.hold(agent, "forget_fact", {"key": key},
                                f"Forget the fact “{key_words(key)}”")
        return ({"status": "held", "write_id": row.id,
                 "message": f"Forgetting {key} needs the user's confirmation in Hearth; "
                            "nothing was deleted yet."}, f"held forget {key} as write {row.id}")

    def _write(self, agent: Agent, action: str, arguments: dict[str, Any], preview: str,
               what: str) -> tuple[Result, str]:
        if agent.trusted:
            row = self._writes.apply_now(agent, action, arguments, preview)
            if row.status == "accepted":
                return ({"status": "accepted", "write_id": row.id, "message": row.result},
                        f"applied {what} as write {row.id}")
            return ({"status": "held", "write_id": row.id,
                     "message": "The user set this fact themselves, so changing it waits for "
                                "their review in Hearth; it keeps its value until they accept "
                                "the change."}, f"held {what} as write {row.id}: set by the user")
        row = self._writes.hold(agent, action, arguments, preview)
        return ({"status": "held", "write_id": row.id,
                 "message": "Held for the user's review in Hearth; it is not part of the "
                            "memory until they accept it."}, f"held {what} as write {row.id}")

    def _check_learning(self, text: str) -> None:
        with self._services.storage.read() as session:
            if not learns_from(self._services.settings, session, None):
                raise AccessDenied("The user has paused learning, so nothing new is stored.",
                                   "Try again after they resume it.")
        if ExclusionGate(self._services.settings.exclusions).drop(text):
            raise AccessDenied("This touches a topic the user asked never to be stored.",
                               "It was not stored; do not send it again.")


def history(storage: StoragePort, name: str, limit: int = 200) -> builtins.list[AuditEntry]:
    """What the agent ``name`` did (its audited calls), newest first."""
    with storage.read() as session:
        return builtins.list(session.scalars(
            select(AuditEntry).where(AuditEntry.actor == actor(name))
            .order_by(AuditEntry.id.desc()).limit(limit)))
