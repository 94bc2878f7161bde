"""Provider selection against a real HTTP server speaking Ollama's API (tests/support).

No model is loaded here: selection must stay cheap, and the embedded provider loads lazily.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_ollama import FakeOllama

from core.config import Settings
from core.errors import InvalidInputError
from core.llm.embedded import EmbeddedProvider
from core.llm.ollama import OllamaProvider
from core.llm.selection import build_provider, describe_active


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=["llama3.2:3b"]) as server:
        yield server


def closed_port_address() -> str:
    """A loopback address where nothing listens (the port was just released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_auto_picks_ollama_when_it_answers_with_the_model(ollama: FakeOllama) -> None:
    provider = build_provider(Settings(ollama_host=ollama.url, ollama_model="llama3.2:3b"))
    assert isinstance(provider, OllamaProvider)
    assert describe_active(provider) == "ollama · llama3.2:3b"
    asked = [r.path for r in ollama.requests]
    assert "/api/version" in asked and "/api/tags" in asked
    assert ollama.chat_requests() == []
    provider.close()


def test_auto_accepts_a_model_named_without_its_tag(ollama: FakeOllama) -> None:
    ollama.add_model("qwen2.5")
    provider = build_provider(Settings(ollama_host=ollama.url, ollama_model="qwen2.5"))
    assert describe_active(provider) == "ollama · qwen2.5"
    provider.close()


def test_auto_honours_the_ollama_host_environment_variable(
        ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", ollama.url.removeprefix("http://"))
    provider = build_provider(Settings(ollama_model="llama3.2:3b"))
    assert provider.name == "ollama"
    assert ollama.requests_to("/api/version")
    provider.close()


def test_auto_falls_back_to_embedded_when_ollama_is_not_running() -> None:
    provider = build_provider(Settings(ollama_host=closed_port_address()))
    assert isinstance(provider, EmbeddedProvider)
    assert describe_active(provider) == "embedded · SmolLM2-135M-Instruct.Q4_1"
    assert not provider.loaded


def test_auto_falls_back_to_embedded_when_the_model_is_missing(ollama: FakeOllama) -> None:
    provider = build_provider(Settings(ollama_host=ollama.url, ollama_model="mistral:7b"))
    assert provider.name == "embedded"
    assert ollama.requests_to("/api/tags")
    assert ollama.chat_requests() == []


def test_auto_falls_back_when_the_address_is_not_ollama(ollama: FakeOllama) -> None:
    provider = build_provider(Settings(ollama_host=f"{ollama.url}/not-ollama"))
    assert provider.name == "embedded"


def test_explicit_ollama_is_honoured_even_when_it_is_down() -> None:
    address = closed_port_address()
    provider = build_provider(Settings(llm_provider="ollama", ollama_host=address,
                                       ollama_model="llama3.2:3b"))
    assert isinstance(provider, OllamaProvider)
    assert provider.host == address and not provider.status().available
    provider.close()


def test_explicit_ollama_is_not_probed_at_selection(ollama: FakeOllama) -> None:
    provider = build_provider(Settings(llm_provider="ollama", ollama_host=ollama.url,
                                       ollama_model="mistral:7b"))
    assert describe_active(provider) == "ollama · mistral:7b"
    assert ollama.requests == []
    provider.close()


def test_explicit_embedded_never_contacts_ollama(ollama: FakeOllama, tmp_path: Path) -> None:
    provider = build_provider(Settings(
        llm_provider="embedded", ollama_host=ollama.url,
        embedded_model_path=tmp_path / "Tiny-Chat.Q4_0.gguf", embedded_context_tokens=2048))
    assert isinstance(provider, EmbeddedProvider)
    assert describe_active(provider) == "embedded · Tiny-Chat.Q4_0"
    assert provider.context_window == 2048
    assert ollama.requests == []


@pytest.mark.parametrize("mode", ["auto", "ollama"])
def test_an_unusable_ollama_address_is_reported_not_bypassed(mode: str) -> None:
    with pytest.raises(InvalidInputError, match="ollama_host"):
        build_provider(Settings(llm_provider=mode, ollama_host="127.0.0.1:notaport"))
