"""What the model answering now may do, and what waits for a capable one, in plain words.

Settings, the chat's first-run notice and `hearth status` show the same sentence and the
same counts, read here: the model's capability profile (``core.llm.capability``), the
learning a smaller model left (``core.learning.waiting``) and, while the model may not tidy
memories, the observations still to be consolidated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from core.config import Settings
from core.learning import waiting
from core.llm.capability import HOW_TO_GET_ONE as HOW_TO_GET_ONE  # the status line's advice
from core.llm.capability import JOB_WORDS, Job, profile_of
from core.llm.protocol import LLMProvider
from core.storage.orm import ContextEvent

if TYPE_CHECKING:
    from core.app import Hearth


@dataclass(frozen=True)
class WaitingWork:
    """Work left for a capable model."""

    facts: int = 0
    """Messages whose facts beyond the plain statements are still to be looked for."""
    summaries: int = 0
    """Finished chats still to be summed up."""
    observations: int = 0
    """Things learned that are still to be combined into memories."""

    @property
    def total(self) -> int:
        return self.facts + self.summaries + self.observations

    def lines(self) -> tuple[str, ...]:
        """``2 messages to look for facts in``, ``1 chat to sum up``, …"""
        found = []
        if self.facts:
            found.append(f"{_counted(self.facts, 'message')} to look for facts in")
        if self.summaries:
            found.append(f"{_counted(self.summaries, 'chat')} to sum up")
        if self.observations:
            found.append(f"{_counted(self.observations, 'thing')} learned to combine into "
                         "memories")
        return tuple(found)


@dataclass(frozen=True)
class ModelCapability:
    """The answering model's profile, as a person reads it."""

    model: str
    size: str
    summary: str
    """One sentence: what it does and what it leaves (``CapabilityProfile.summary``)."""
    can: tuple[str, ...]
    cannot: tuple[str, ...]
    limited: bool
    """Only replies, kept short and cleaned."""
    how_to_get_more: str
    """Where a capable model comes from ("" when this one runs every job)."""
    waiting: WaitingWork


def model_capability(hearth: Hearth, provider: LLMProvider) -> ModelCapability:
    """What ``provider``'s model may do under the settings, and what waits."""
    profile = profile_of(provider, hearth.settings.model_jobs)
    counted = waiting.counts(hearth.storage)
    observations = 0
    if not profile.may(Job.CONSOLIDATION):
        with hearth.storage.read() as session:
            observations = session.scalar(select(func.count()).select_from(ContextEvent).where(
                ContextEvent.processed.is_(False),
                ContextEvent.attempts < hearth.settings.event_max_attempts)) or 0
    return ModelCapability(
        model=profile.model, size=profile.size_words, summary=profile.summary(),
        can=tuple(JOB_WORDS[job] for job in Job if profile.may(job)),
        cannot=tuple(JOB_WORDS[job] for job in profile.waiting),
        limited=profile.limited,
        how_to_get_more=HOW_TO_GET_ONE if profile.waiting else "",
        waiting=WaitingWork(counted.get(Job.FACTS, 0), counted.get(Job.SUMMARIES, 0),
                            observations))


def built_in_model(settings: Settings) -> str:
    """One sentence on the model built in (``embedded_model_path``): what it can and cannot
    do, for a first run without a capable model. Reads the file's header, never loads it."""
    from core.llm.embedded import EmbeddedProvider

    return profile_of(EmbeddedProvider.from_settings(settings), settings.model_jobs).summary()


def _counted(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
