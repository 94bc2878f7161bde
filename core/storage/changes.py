"""What a change touched, named by domain, so a view reloads only when its part moved.

Every write transaction's change set is derived from the tables it wrote
(``TABLE_DOMAINS``, by ``core.storage.change_feed``), and one value carries it to every view
(the window's ``hub.changed``): the Facts view reloads on ``FACTS``, the chat list on
``CHATS``, and a chat turn that learned nothing reloads no inspector view at all."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Domain(StrEnum):
    """The parts of Hearth a view can show."""

    FACTS = "facts"
    MEMORIES = "memories"
    ABOUT_YOU = "about_you"        # About you, the notes about you, what is on their mind
    HABITS = "habits"              # the assistant's habits about how to help
    FOLLOW_UPS = "follow_ups"      # what the user meant to do
    CHATS = "chats"                # sessions and their exchanges
    RUNS = "runs"                  # dream and reflection runs, their changelogs, events
    SETTINGS = "settings"
    SCHEDULE = "schedule"          # the scheduler's jobs, and the scheduled prompts
    TASKS = "tasks"
    REMINDERS = "reminders"
    NOTES = "notes"
    JOURNAL = "journal"
    READ_LATER = "read_later"
    PENDING = "pending"            # changes a model asked for, awaiting the user's answer
    AGENTS = "agents"              # programs using the memory over MCP, and their writes


KNOWLEDGE = frozenset({Domain.FACTS, Domain.MEMORIES, Domain.ABOUT_YOU, Domain.HABITS,
                       Domain.FOLLOW_UPS})
"""What learning, a dream or a reflection may move: everything Hearth knows about the user."""


@dataclass(frozen=True)
class Changes:
    """The domains one operation changed (empty: it changed nothing)."""

    domains: frozenset[Domain] = frozenset()

    @classmethod
    def of(cls, *domains: Domain) -> Changes:
        return cls(frozenset(domains))

    @classmethod
    def knowledge(cls) -> Changes:
        """Learning, a dream or a reflection ran: any of the user's knowledge may have moved."""
        return cls(KNOWLEDGE)

    def touches(self, *domains: Domain) -> bool:
        """True when any of ``domains`` changed."""
        return not self.domains.isdisjoint(domains)

    def __or__(self, other: Changes) -> Changes:
        return Changes(self.domains | other.domains)

    def __bool__(self) -> bool:
        return bool(self.domains)


NOTHING = Changes()


TABLE_DOMAINS: dict[str, frozenset[Domain]] = {
    "chat_sessions": frozenset({Domain.CHATS}),
    "interactions": frozenset({Domain.CHATS}),
    "context_logs": frozenset({Domain.CHATS}),  # what a reply was given: the Why? panel
    "user_facts": frozenset({Domain.FACTS}),
    "fact_history": frozenset({Domain.FACTS}),
    "about_you_versions": frozenset({Domain.ABOUT_YOU}),
    "notes_about_you_versions": frozenset({Domain.ABOUT_YOU}),
    "working_memory_versions": frozenset({Domain.ABOUT_YOU}),
    "notes": frozenset({Domain.NOTES}),
    "memories": frozenset({Domain.MEMORIES}),
    "memory_edges": frozenset({Domain.MEMORIES}),
    "import_runs": frozenset({Domain.MEMORIES}),  # Import history, the Memories filter
    "context_events": frozenset({Domain.RUNS}),  # what learning noted: its notes in the chat
    "runs": frozenset({Domain.RUNS}),
    "habits": frozenset({Domain.HABITS}),
    "follow_ups": frozenset({Domain.FOLLOW_UPS}),
    "tasks": frozenset({Domain.TASKS}),
    "reminders": frozenset({Domain.REMINDERS}),
    "scheduled_prompts": frozenset({Domain.SCHEDULE}),
    "alert_rules": frozenset({Domain.SCHEDULE}),
    "journal_entries": frozenset({Domain.JOURNAL}),
    "read_later": frozenset({Domain.READ_LATER}),
    "pending_actions": frozenset({Domain.PENDING}),
    "agents": frozenset({Domain.AGENTS}),
    "agent_writes": frozenset({Domain.AGENTS}),
    "agent_tokens": frozenset({Domain.AGENTS}),
    "audit_log": frozenset({Domain.AGENTS}),  # an agent's calls are listed from it
    "forgotten_imports": frozenset(),  # bookkeeping no view shows
    "deleted_entries": frozenset(),  # what an Undo brings back; no view lists it
}
"""Which domains a write to each of the models' tables touches: one map, checked by a test
to name every table of ``core.storage.orm``. Tables that are not models (the search
index, the link queue, the job store, the change log itself) hold derived data or
bookkeeping written beside a model's rows, and touch nothing of their own."""


def written(tables: Iterable[str]) -> Changes:
    """The change set of a transaction that wrote ``tables``."""
    return Changes(frozenset().union(*(TABLE_DOMAINS.get(table, ()) for table in tables)))
