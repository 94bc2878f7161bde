"""What an operation changed, named by domain, so a view reloads only when its part moved.

One value carries it from an operation to every view (the window's ``hub.changed``): the
Facts view reloads on ``FACTS``, the chat list on ``CHATS``, and a chat turn that learned
nothing reloads no inspector view at all."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Domain(StrEnum):
    """The parts of Hearth a view can show."""

    FACTS = "facts"
    MEMORIES = "memories"
    PROFILE = "profile"            # the profile text, the scaffold and working memory
    HABITS = "habits"              # the assistant's learnings about how to help
    FOLLOW_UPS = "follow_ups"      # intentions
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


KNOWLEDGE = frozenset({Domain.FACTS, Domain.MEMORIES, Domain.PROFILE, Domain.HABITS,
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
