"""The assistant: one open ``Hearth`` with its model, its conversation and its learning.

Front ends (the CLI's ``chat``/``ask``, the desktop window) build exactly this, so a turn
behaves the same wherever it is typed. Closing it finishes the queued learning first;
stopping it (the window's quit) does not wait, and leaves the rest in the database for the
next start's ``learning.resume()``. Either way nothing a user said is lost.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from core.app import Hearth
from core.conversation import Confirm, ConversationService
from core.learning.pipeline import LearningPipeline
from core.llm import LLMProvider
from core.llm.capability import CapabilityProfile, profile_of
from core.llm.turns_first import TurnsFirst
from core.llm.selection import build_provider, describe_active


@dataclass
class Assistant:
    hearth: Hearth
    provider: LLMProvider
    conversation: ConversationService
    learning: LearningPipeline

    @classmethod
    def start(cls, hearth: Hearth, *, confirm: Confirm | None = None, channel: str = "desktop",
              provider: LLMProvider | None = None) -> Assistant:
        """Pick the model (``build_provider``) unless one is given, and wire the rest."""
        provider = provider or build_provider(hearth.settings)
        turns = TurnsFirst()  # one model for both: the learning gives way to the replies
        learning = LearningPipeline(hearth.learning(), provider, turns=turns)
        conversation = hearth.conversation(provider, listener=learning, confirm=confirm,
                                           channel=channel, turns=turns)
        return cls(hearth, provider, conversation, learning)

    @property
    def model_description(self) -> str:
        """``ollama · llama3.2:3b``: which provider and model answer."""
        return describe_active(self.provider)

    @property
    def profile(self) -> CapabilityProfile:
        """What the model may do (``core.llm.capability``; the setting is read each time)."""
        return profile_of(self.provider, self.hearth.settings.model_jobs)

    @property
    def status_line(self) -> str:
        """``ollama · llama3.2:3b · learning idle``: what answers and what learning does."""
        return f"{self.model_description} · learning {self.learning.state}"

    def close(self, *, close_sessions: bool = True, timeout: float | None = 120.0) -> bool:
        """Finish queued learning (closing open sessions unless told not to, and then
        deleting incognito chats), then release the model. False if learning did not finish
        within ``timeout``."""
        finished = self.learning.shutdown(timeout=timeout, close_sessions=close_sessions)
        if close_sessions:
            self.conversation.sessions.discard_incognito()
        self.provider.close()
        return finished

    def stop(self, timeout: float = 1.0) -> bool:
        """Stop without waiting for learning (``LearningPipeline.stop``), and release the
        model on a thread of its own: an embedded model may need seconds to notice a
        cancel while it reads a long prompt, and the caller (the window quitting) must not
        wait for that; the process ends once it has. False when learning was still inside
        a model call after ``timeout``: the model is then left to the end of the process
        rather than freed under it."""
        stopped = self.learning.stop(timeout)
        if stopped:
            threading.Thread(target=self.provider.close, name="hearth-release-model").start()
        return stopped
