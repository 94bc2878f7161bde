"""What a small model makes Hearth learn and show: junk facts per 20 first messages, and
the time to the first useful answer.

**Junk facts.** Twenty realistic first messages (``data/first_messages.jsonl``, each with
the facts a careful reader would write down) are learned from one by one, each in a fresh
memory, with the model Hearth would use (the embedded one unless ``HEARTH_LLM_PROVIDER``
and friends say otherwise). Scored by rules: a learned fact is **junk** when its value is
not in the message (a content word of it missing) or its key is not (neither one of the
message's expected keys nor made of words of the message). "Unexpected" counts the facts
that are not junk yet not what the reader wrote down either (a value cut wrong).
``before`` runs the unchanged path (``model_jobs="all"``: the model extracts whatever its
size), ``after`` the capability profile (``model_jobs="auto"``).

**Time to the first useful answer.** A fresh memory is told "My sister Priya lives in
Lisbon."; then "Where does my sister live?" is sent and the seconds until the answer is on
screen are measured: the answer from memory (``FromMemory``) when there is one, otherwise
the end of a reply that contains "Lisbon" (a reply without it is not useful: "never").
Run with ``python -m benchmarks --only small_model`` on a quiet machine; the embedded
model always, Ollama when it answers at the configured address with its model.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import delete

from core.app import Hearth
from core.assistant import Assistant
from core.config import Settings
from core.conversation import FromMemory, TextDelta, TurnFailed, TurnFinished
from core.learning.grounding import content_words, is_grounded
from core.learning.pipeline import LearningPipeline
from core.llm.embedded import EmbeddedProvider
from core.llm.ollama import OllamaProvider
from core.llm.protocol import LLMProvider
from core.storage.orm import ChatSession, ContextEvent, FactHistory, Interaction, UserFact

MESSAGES = Path(__file__).with_name("data") / "first_messages.jsonl"
TOLD = "My sister Priya lives in Lisbon."
ASKED = "Where does my sister live?"
ANSWER = "Lisbon"


def load_messages() -> list[dict[str, Any]]:
    return [json.loads(line) for line in MESSAGES.read_text().splitlines() if line.strip()]


def is_junk(key: str, value: str, message: str, expected: dict[str, str]) -> bool:
    """The benchmark's rule: the value, or the key, is not in the message."""
    key_in_message = key in expected or content_words(key.replace("_", " ")) <= \
        content_words(message)
    value_in_message = is_grounded(value, message) or bool(
        re.search(rf"\b{re.escape(value)}\b", message, re.IGNORECASE))  # "Jo": too short
    return not (value_in_message and key_in_message)


def learned_facts(hearth: Hearth, provider: LLMProvider, message: str) -> dict[str, str]:
    """What learning from ``message`` (as a first message) stores, from an empty memory."""
    with hearth.storage.write() as session:
        for table in (FactHistory, UserFact, ContextEvent, Interaction, ChatSession):
            session.execute(delete(table))
        session.add(ChatSession(id="first", title="first"))
        row = Interaction(session_id="first", user_message=message,
                          agent_response="Thanks for telling me.")
        session.add(row)
        session.flush()
        interaction_id = row.id
    pipeline = LearningPipeline(hearth.learning(), provider)
    pipeline.exchange_completed(interaction_id, "first")
    pipeline.shutdown(timeout=None, close_sessions=False)
    return {fact.key: fact.value for fact in hearth.facts.list()}


@contextmanager
def fresh_home() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as folder:
        yield Path(folder) / "home"


def bench_junk_facts(provider: LLMProvider) -> list[dict[str, str]]:
    rows = []
    messages = load_messages()
    with fresh_home() as home, Hearth.open(home) as hearth:
        for mode in ("before", "after"):
            hearth.settings.model_jobs = "all" if mode == "before" else "auto"
            junk = unexpected = found = 0
            for item in messages:
                facts = learned_facts(hearth, provider, item["message"])
                expected = item["expected"]
                for key, value in facts.items():
                    if is_junk(key, value, item["message"], expected):
                        junk += 1
                    elif expected.get(key) != value:
                        unexpected += 1
                found += sum(1 for key, value in expected.items() if facts.get(key) == value)
            wanted = sum(len(item["expected"]) for item in messages)
            rows.append({"benchmark": f"junk facts per {len(messages)} first messages, "
                                      f"{mode} ({provider.model})",
                         "value": f"{junk} junk, {unexpected} unexpected, "
                                  f"{found}/{wanted} expected learned",
                         "target": "0 junk"})
    return rows


def first_useful_answer(provider: LLMProvider) -> str:
    """Seconds from sending the question to the answer on screen (see the docstring)."""
    with fresh_home() as home, Hearth.open(home) as hearth:
        assistant = Assistant.start(hearth, provider=provider, channel="bench")
        try:
            session_id = assistant.conversation.sessions.new_session()
            for _ in assistant.conversation.send(session_id, TOLD):
                pass
            assistant.learning.drain(timeout=None)
            started = time.perf_counter()
            reply = ""
            for event in assistant.conversation.send(session_id, ASKED):
                if isinstance(event, FromMemory) and any(
                        ANSWER in known.value for known in event.answers):
                    return f"{time.perf_counter() - started:.2f} s (from memory)"
                if isinstance(event, TextDelta):
                    reply += event.text
                if isinstance(event, (TurnFinished, TurnFailed)):
                    break
            seconds = time.perf_counter() - started
            return f"{seconds:.2f} s (the reply)" if ANSWER in reply else "never (the reply " \
                "did not say it)"
        finally:
            assistant.close(close_sessions=False)


def providers(settings: Settings) -> list[LLMProvider]:
    """The embedded model, and Ollama when it answers with its model."""
    found: list[LLMProvider] = [EmbeddedProvider.from_settings(settings)]
    ollama = OllamaProvider.from_settings(settings)
    if ollama.status().available:
        found.append(ollama)
    else:
        ollama.close()
    return found


def bench_small_model() -> list[dict[str, str]]:
    settings = Settings()
    rows = []
    for provider in providers(settings):
        rows.extend(bench_junk_facts(provider))
        rows.append({"benchmark": f"time to the first useful answer ({provider.name} · "
                                  f"{provider.model})",
                     "value": first_useful_answer(provider), "target": ""})
        provider.close()
    return rows
