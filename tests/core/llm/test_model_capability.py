"""A model's capability profile: its size read from the model itself, and what it may do.

The built-in GGUF file is counted from its tensors; Ollama's size comes from ``/api/show``
(the scripted Ollama server); the ``model_jobs`` setting overrides the size.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from core.config import DEFAULT_EMBEDDED_LLM
from core.llm.capability import (
    CAPABLE_PARAMETERS,
    Job,
    parse_parameter_size,
    profile_for,
    profile_of,
)
from core.llm.embedded import EmbeddedProvider
from core.llm.gguf import GgufUnreadable, parameter_count
from core.llm.ollama import OllamaProvider
from support.fake_ollama import FakeModel, FakeOllama
from support.scripted_llm import ScriptedLLM


def _string(text: str) -> bytes:
    data = text.encode()
    return struct.pack("<Q", len(data)) + data


def tiny_gguf(path: Path, shapes: list[tuple[int, ...]]) -> Path:
    """A GGUF header with one string, one array and one integer of metadata, and tensors
    of ``shapes`` (no weights: the count needs none)."""
    header = b"GGUF" + struct.pack("<IQQ", 3, len(shapes), 3)
    header += _string("general.name") + struct.pack("<I", 8) + _string("tiny")
    header += (_string("tokenizer.tokens") + struct.pack("<IIQ", 9, 8, 2)
               + _string("a") + _string("b"))
    header += _string("general.alignment") + struct.pack("<II", 4, 32)
    for number, shape in enumerate(shapes):
        header += _string(f"t{number}") + struct.pack("<I", len(shape))
        header += b"".join(struct.pack("<Q", size) for size in shape)
        header += struct.pack("<IQ", 0, 0)
    path.write_bytes(header)
    return path


def test_a_gguf_file_is_counted_from_its_tensors(tmp_path: Path) -> None:
    assert parameter_count(tiny_gguf(tmp_path / "m.gguf", [(4, 3), (5,), (2, 2, 2)])) == 25


def test_a_file_that_is_not_gguf_or_is_cut_short_is_unreadable(tmp_path: Path) -> None:
    other = tmp_path / "other.gguf"
    other.write_bytes(b"not a model")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_gguf(tmp_path / "whole.gguf", [(4, 4)]).read_bytes()[:-10])
    for path in (other, cut):
        with pytest.raises(GgufUnreadable):
            parameter_count(path)
    assert EmbeddedProvider(other).parameter_count is None


def test_the_built_in_model_may_only_phrase_replies() -> None:
    provider = EmbeddedProvider(DEFAULT_EMBEDDED_LLM)
    assert 130_000_000 < (provider.parameter_count or 0) < 140_000_000
    profile = profile_of(provider)
    assert profile.limited and profile.may(Job.REPLY)
    assert profile.waiting == (Job.FACTS, Job.SUMMARIES, Job.CONSOLIDATION, Job.REFLECTION)
    sentence = profile.summary()
    assert "135 million parameters" in sentence
    assert "can phrase replies but will not learn facts beyond what you state plainly" \
        in sentence
    assert "wait for a capable model" in sentence
    assert not profile_of(provider, "all").limited  # the user may decide otherwise


def test_ollama_says_how_large_its_model_is() -> None:
    small = FakeModel("smollm2:135m", parameter_size="135M")
    large = FakeModel("llama3.2:3b", parameter_count=3_212_749_888, parameter_size="3B")
    with FakeOllama(models=[small, large]) as server:
        tiny = OllamaProvider(server.url, "smollm2:135m", timeout=5.0)
        capable = OllamaProvider(server.url, "llama3.2:3b", timeout=5.0)
        try:
            assert tiny.parameter_count == 135_000_000
            assert profile_of(tiny).waiting  # small on Ollama too
            assert capable.parameter_count == 3_212_749_888  # the exact count first
            assert profile_of(capable).allowed == frozenset(Job)
            assert "3.2 billion parameters" in profile_of(capable).summary()
        finally:
            tiny.close()
            capable.close()


@pytest.mark.parametrize(("text", "count"), [
    ("3.2B", 3_200_000_000), ("135M", 135_000_000), ("8x7B", 56_000_000_000),
    ("360m", 360_000_000), ("", None), ("big", None), ("0B", None)])
def test_parameter_sizes_as_ollama_writes_them(text: str, count: int | None) -> None:
    assert parse_parameter_size(text) == count


def test_a_model_of_unknown_size_runs_every_job_but_tools_only_when_it_has_them() -> None:
    assert profile_of(ScriptedLLM()).allowed == frozenset(Job)
    without_tools = profile_of(ScriptedLLM(supports_tools=False))
    assert not without_tools.may(Job.TOOLS) and without_tools.waiting == ()
    assert profile_for("m", CAPABLE_PARAMETERS, supports_tools=True).allowed == frozenset(Job)
    replies = profile_for("m", None, supports_tools=True, choice="replies_only")
    assert replies.limited and "you chose replies only" in replies.summary()
