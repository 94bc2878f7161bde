"""Proxy variables in the environment change nothing: Hearth talks to the configured Ollama
host alone, never through a proxy, and a proxy it could not even use (SOCKS, an unknown
scheme) is no reason to fail (``core.llm.ollama_library``). A SOCKS proxy made almost every
command exit 70 with an ``ImportError`` from the ``ollama`` package's import."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fake_ollama import FakeOllama

from reliability.conftest import CliRunner

MODEL = "llama3.2:3b"
PROXIES = [
    {"ALL_PROXY": "socks5://127.0.0.1:1080"},
    {"all_proxy": "socks5h://127.0.0.1:1080", "HTTPS_PROXY": "http://127.0.0.1:9"},
    {"HTTP_PROXY": "gopher://nowhere:70", "https_proxy": "bogus://x"},
]


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=[MODEL]) as server:
        yield server


@pytest.mark.parametrize("proxies", PROXIES, ids=["socks", "socks-and-http", "odd-schemes"])
def test_commands_work_whatever_proxy_the_environment_names(
        isolated_home: Path, hearth_cli: CliRunner, proxies: dict[str, str]) -> None:
    for args in (["status"], ["facts", "set", "home_city", "Lisbon"], ["facts", "list"],
                 ["search", "Lisbon", "--k", "3"], ["doctor"]):
        run = hearth_cli(isolated_home, *args, env=proxies)
        run.assert_ok()
        assert "proxy" not in run.err.lower(), (args, run.err)
    assert "Lisbon" in hearth_cli(isolated_home, "facts", "list", env=proxies).out


def test_the_loopback_ollama_is_reached_directly_past_a_proxy(
        isolated_home: Path, hearth_cli: CliRunner, ollama: FakeOllama) -> None:
    ollama.script("Hello from the scripted model.")
    run = hearth_cli(isolated_home, "ask", "Say hello.", env={
        **PROXIES[1], "HEARTH_LLM_PROVIDER": "ollama", "HEARTH_OLLAMA_HOST": ollama.url,
        "HEARTH_OLLAMA_MODEL": MODEL, "HEARTH_LLM_RETRIES": "0"})
    run.assert_ok()
    assert "Hello from the scripted model." in run.out
    assert ollama.chat_requests(), "the reply came from the configured host itself"
