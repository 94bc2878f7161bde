"""What a language model may do for Hearth: its capability profile.

Why: the built-in model (SmolLM2-135M) phrases a reply well enough, but measured on twenty
realistic first messages (``python -m benchmarks --only small_model``) its fact extraction
stored keys nobody said ("lisbon_city: Lisbon"), and the dream took fifty one-letter
summaries from it. What it writes into memory outlives the chat, so a model may only run
the jobs its size has been measured to do well; the others wait, queued and visible, for a
capable model (Ollama, or a larger GGUF file), and the deterministic rules go on learning
what the user states outright on any model.

The size is read, not guessed: the GGUF file's tensors (``core.llm.gguf``) or Ollama's
``/api/show`` (``general.parameter_count``, else ``details.parameter_size``). The line is
``CAPABLE_PARAMETERS``: the only model measured below it is the built-in 135M one, and
every job Hearth gives a model was written for and tried with the recommended Ollama model
(llama3.2:3b) above it. A model between the two has not been measured, so it is kept on the
safe side; ``model_jobs`` (a setting) lets the user decide otherwise, and a model whose size
cannot be read (an Ollama server that does not say) is trusted with every job, since the
quality gates (``core.learning.quality_gate``) still stand between its output and memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from core.config import ModelJobs
from core.llm.protocol import LLMProvider

CAPABLE_PARAMETERS = 1_000_000_000
"""From this many parameters a model runs every job (see the module docstring)."""


class Job(StrEnum):
    """A kind of work Hearth gives a language model."""

    REPLY = "reply"
    TOOLS = "tools"
    FACTS = "facts"
    SUMMARIES = "summaries"
    CONSOLIDATION = "consolidation"
    REFLECTION = "reflection"


JOB_WORDS: dict[Job, str] = {
    Job.REPLY: "phrase replies",
    Job.TOOLS: "use tools (search your memory, hold reminders and tasks)",
    Job.FACTS: "learn facts beyond what you state plainly",
    Job.SUMMARIES: "sum up chats, journal entries and saved reading",
    Job.CONSOLIDATION: "combine and tidy memories",
    Job.REFLECTION: "reflect on your day",
}
"""Each job in the words Settings and `hearth status` use."""

HOW_TO_GET_ONE = ("For more, install Ollama (ollama.com) and pull llama3.2:3b, "
                  "or choose a larger model file in Settings.")


@dataclass(frozen=True)
class CapabilityProfile:
    """Which jobs one model may run, and why."""

    model: str
    parameters: int | None
    basis: Literal["size", "unknown size", "setting"]
    allowed: frozenset[Job]

    @property
    def limited(self) -> bool:
        """Only replies: they are then kept short and cleaned (``core.conversation.
        small_reply``), since nothing checks a small model's claims otherwise."""
        return self.allowed == frozenset({Job.REPLY})

    def may(self, job: Job) -> bool:
        return job in self.allowed

    @property
    def waiting(self) -> tuple[Job, ...]:
        """The jobs (other than tools, which a model may simply not have) that wait for
        another model."""
        return tuple(job for job in Job if job not in self.allowed and job is not Job.TOOLS)

    @property
    def size_words(self) -> str:
        """``135 million parameters``, ``3.2 billion parameters`` or ``size unknown``."""
        return parameter_words(self.parameters)

    def summary(self) -> str:
        """One sentence: what this model does for Hearth and what it leaves."""
        name = f"{self.model} ({self.size_words})"
        if not self.waiting:
            return f"{name} runs every job: it phrases replies, learns, sums up and reflects."
        cannot = _listed([JOB_WORDS[job] for job in self.waiting])
        reason = ("you chose replies only" if self.basis == "setting"
                  else "it is too small to do them reliably")
        return (f"{name} can {JOB_WORDS[Job.REPLY]} but will not {cannot} ({reason}); "
                "those wait for a capable model, and what you state plainly is still "
                "learned.")

    def waits_because(self, job: Job) -> str:
        """Why ``job`` is not run now, for a run record or a status line."""
        return (f"Waits for a capable model: {self.model} ({self.size_words}) does not "
                f"{JOB_WORDS[job]}.")


def profile_for(model: str, parameters: int | None, *, supports_tools: bool,
                choice: ModelJobs = "auto") -> CapabilityProfile:
    """The profile of a model of ``parameters`` (None: unknown) under the ``model_jobs``
    setting."""
    every = frozenset(Job) if supports_tools else frozenset(Job) - {Job.TOOLS}
    if choice == "all":
        return CapabilityProfile(model, parameters, "setting", every)
    if choice == "replies_only":
        return CapabilityProfile(model, parameters, "setting", frozenset({Job.REPLY}))
    if parameters is None:
        return CapabilityProfile(model, None, "unknown size", every)
    if parameters < CAPABLE_PARAMETERS:
        return CapabilityProfile(model, parameters, "size", frozenset({Job.REPLY}))
    return CapabilityProfile(model, parameters, "size", every)


def profile_of(provider: LLMProvider, choice: ModelJobs = "auto") -> CapabilityProfile:
    """The profile of the model ``provider`` runs."""
    return profile_for(provider.model, provider.parameter_count,
                       supports_tools=provider.supports_tools, choice=choice)


def parameter_words(parameters: int | None) -> str:
    if parameters is None:
        return "size unknown"
    if parameters >= 1_000_000_000:
        return f"{parameters / 1e9:.1f} billion parameters".replace(".0 ", " ")
    return f"{max(1, round(parameters / 1e6))} million parameters"


def parse_parameter_size(text: str) -> int | None:
    """Ollama's ``details.parameter_size`` (``"3.2B"``, ``"135M"``, ``"8x7B"``) as a
    number; None when it cannot be read."""
    text = text.strip().upper()
    multiplier = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}.get(text[-1:])
    if multiplier is None:
        return None
    experts, _, size = text[:-1].rpartition("X")
    try:
        count = float(size) * multiplier * (int(experts) if experts else 1)
    except ValueError:
        return None
    return int(count) if count > 0 else None


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"
