"""The Ollama provider, through the real ``ollama`` client, against a scripted HTTP server.

Nothing here mocks the client: every test is a real HTTP exchange with
``tests/support/fake_ollama.py`` on 127.0.0.1, so wire formats, streaming, timeouts and
dropped connections are the real ones.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ollama._client import _parse_host
from support.fake_ollama import FakeModel, FakeOllama, FakeReply
from typer.testing import CliRunner

from core.config import PROJECT_ROOT, Settings
from core.operations.doctor import check_ollama
from core.errors import InvalidInputError
from core.llm import (
    CancelToken,
    ChatChunk,
    LLMCancelled,
    LLMError,
    LLMModelMissingError,
    LLMOutage,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
    Message,
    ToolCall,
    ToolSpec,
)
from core.llm.host import DEFAULT_OLLAMA_HOST, normalise_ollama_host, resolve_ollama_host
from core.llm.ollama import OllamaProvider
from core.llm.retry import call_with_retries

MODEL = "llama3.2:3b"
HELLO = [Message("system", "You are Hearth."), Message("user", "Hello")]
REMEMBER = ToolSpec("remember_fact", "Store a permanent fact about the user.", {
    "type": "object",
    "properties": {"key": {"type": "string", "description": "snake_case name"},
                   "value": {"type": "string"},
                   "category": {"type": "string", "enum": ["personal", "location"]}},
    "required": ["key", "value"]})


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=[MODEL]) as fake:
        yield fake


def make_provider(url: str, **options) -> OllamaProvider:
    return OllamaProvider(url, options.pop("model", MODEL), **{
        "timeout": 5.0, "backoff": 0.01, **options})


@pytest.fixture
def provider(server: FakeOllama) -> Iterator[OllamaProvider]:
    ollama = make_provider(server.url)
    yield ollama
    ollama.close()


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def text_of(chunks: list[ChatChunk]) -> str:
    return "".join(c.text for c in chunks)


def wait_for(condition, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


# --- host resolution -----------------------------------------------------------------------


def test_the_setting_beats_the_environment_which_beats_the_default(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:7000")
    assert resolve_ollama_host("192.168.1.9") == "http://192.168.1.9:11434"
    assert resolve_ollama_host(None) == "http://10.0.0.5:7000"
    assert resolve_ollama_host("   ") == "http://10.0.0.5:7000"
    monkeypatch.delenv("OLLAMA_HOST")
    assert resolve_ollama_host(None) == DEFAULT_OLLAMA_HOST == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "  ")
    assert resolve_ollama_host(None) == DEFAULT_OLLAMA_HOST


@pytest.mark.parametrize(("raw", "expected"), [
    ("localhost", "http://localhost:11434"),
    ("0.0.0.0", "http://127.0.0.1:11434"),
    ("0.0.0.0:8080", "http://127.0.0.1:8080"),
    (":5000", "http://127.0.0.1:5000"),
    ("[::]:11434", "http://[::1]:11434"),
    ("http://0.0.0.0", "http://127.0.0.1:80"),
    ("  127.0.0.1:11434/  ", "http://127.0.0.1:11434"),
    ("HTTPS://Example.COM", "https://example.com:443"),
])
def test_addresses_are_normalised_like_ollama_with_wildcards_made_loopback(raw, expected):
    assert normalise_ollama_host(raw) == expected


@pytest.mark.parametrize("raw", [
    "1.2.3.4", "1.2.3.4:56789", "http://1.2.3.4", "https://1.2.3.4:56789",
    "example.com/", "example.com:56789/path/", "https://example.com:56789/path",
    "[0001:002:003:0004::1]:56789", "http://[0001:002:003:0004::1]",
])
def test_ordinary_addresses_agree_with_the_ollama_client(raw):
    assert normalise_ollama_host(raw) == _parse_host(raw)


@pytest.mark.parametrize(("raw", "reason"), [
    ("localhost:abc", "port"), ("localhost:99999", "port"), ("ftp://example.com", "scheme"),
    ("not a url", "not a computer's name"), ("http://my server", "not a computer's name"),
    ("local host:11434", "not a computer's name")])
def test_an_unusable_address_names_the_value_and_the_source(raw, reason, monkeypatch):
    with pytest.raises(InvalidInputError) as caught:
        resolve_ollama_host(raw)
    assert raw in caught.value.message and reason in caught.value.message
    assert "ollama_host setting" in caught.value.message
    monkeypatch.setenv("OLLAMA_HOST", raw)
    with pytest.raises(InvalidInputError, match="OLLAMA_HOST"):
        resolve_ollama_host(None)


def test_doctor_checks_the_configured_host_and_model(server: FakeOllama):
    assert check_ollama(Settings(ollama_host=server.url, ollama_model=MODEL)).ok
    assert server.requests_to("/api/version")
    missing = check_ollama(Settings(ollama_host=server.url, ollama_model="absent:1b"))
    assert not missing.ok and "hearth models pull absent:1b" in missing.detail
    failed = check_ollama(Settings(ollama_host=closed_port_url()))
    assert not failed.ok and "not running" in failed.detail


# --- streaming chat and tools --------------------------------------------------------------


def test_a_streamed_reply_arrives_in_chunks_and_joins(server, provider):
    server.script(FakeReply(chunks=["Hel", "lo, ", "Ana", "!"], prompt_eval_count=17))
    chunks = list(provider.chat_stream(HELLO, max_tokens=64))
    assert [c.text for c in chunks if not c.done] == ["Hel", "lo, ", "Ana", "!"]
    assert text_of(chunks) == "Hello, Ana!"
    final = chunks[-1]
    assert final.done and final.prompt_tokens == 17 and final.completion_tokens == 4
    assert not any(c.done for c in chunks[:-1])
    body = server.chat_requests()[0]
    assert body["model"] == MODEL and body["stream"] is True
    assert body["messages"] == [{"role": "system", "content": "You are Hearth."},
                                {"role": "user", "content": "Hello"}]
    assert body["options"] == {"num_ctx": provider.context_window, "num_predict": 64}


def test_tools_go_out_in_ollama_function_format_and_calls_come_back(server, provider):
    server.script(FakeReply(text="Noted.", tool_calls=[
        {"name": "remember_fact", "arguments": {"key": "home_city", "value": "Lyon"}},
        {"name": "recall_facts", "arguments": {}}]))
    chunks = list(provider.chat_stream(HELLO, tools=[REMEMBER]))
    assert chunks[-1].done
    assert chunks[-1].tool_calls == (
        ToolCall("remember_fact", {"key": "home_city", "value": "Lyon"}),
        ToolCall("recall_facts", {}))
    assert not any(c.tool_calls for c in chunks[:-1])  # all calls arrive once, at the end
    assert text_of(chunks) == "Noted."
    [tool] = server.chat_requests()[0]["tools"]
    assert tool == {"type": "function", "function": {
        "name": "remember_fact", "description": REMEMBER.description,
        "parameters": REMEMBER.parameters}}


def test_tool_results_and_earlier_calls_are_sent_back_in_ollama_form(server, provider):
    server.script("Your home is Lyon.")
    history = [*HELLO,
               Message("assistant", "", tool_calls=(ToolCall("recall_facts", {"query": "home"}),)),
               Message("tool", "home_city: Lyon", tool_name="recall_facts")]
    assert text_of(list(provider.chat_stream(history))) == "Your home is Lyon."
    sent = server.chat_requests()[0]["messages"]
    assert sent[2] == {"role": "assistant", "tool_calls": [
        {"function": {"name": "recall_facts", "arguments": {"query": "home"}}}]}
    assert sent[3] == {"role": "tool", "content": "home_city: Lyon", "tool_name": "recall_facts"}


def test_a_model_that_refuses_tools_is_asked_again_without_them(server, provider):
    server.script(FakeReply.failure(400, f"registry.ollama.ai/library/{MODEL} does not support "
                                         "tools"), "Plain answer.")
    assert text_of(list(provider.chat_stream(HELLO, tools=[REMEMBER]))) == "Plain answer."
    first, second = server.chat_requests()
    assert first["tools"] and not second.get("tools")
    assert provider.supports_tools is False


def test_tool_support_comes_from_capabilities_or_the_template_of_older_servers():
    old_with_tools = FakeModel("old-tools:1b", capabilities=None,
                               template="{{ if .Tools }}tools{{ end }}{{ .Prompt }}")
    old_without = FakeModel("old-plain:1b", capabilities=None)
    no_tools = FakeModel("embedder:1b", capabilities=("completion",))
    with FakeOllama(models=[MODEL, old_with_tools, old_without, no_tools]) as fake:
        answers = {name: make_provider(fake.url, model=name).supports_tools
                   for name in (MODEL, "old-tools:1b", "old-plain:1b", "embedder:1b")}
        shows = len(fake.requests_to("/api/show"))
        provider = make_provider(fake.url)
        assert provider.supports_tools and provider.supports_tools
        assert len(fake.requests_to("/api/show")) == shows + 1  # read once, then cached
    assert answers == {MODEL: True, "old-tools:1b": True, "old-plain:1b": False,
                       "embedder:1b": False}
    assert make_provider(closed_port_url(), retries=0).supports_tools is False


@pytest.mark.parametrize(("spec", "configured", "expected"), [
    (FakeModel(MODEL), None, 4096),                              # Ollama's small default
    (FakeModel(MODEL, num_ctx=8192), None, 8192),                # the Modelfile's num_ctx
    (FakeModel(MODEL, num_ctx=8192), 16384, 16384),              # the caller's choice wins
    (FakeModel(MODEL, context_length=2048), None, 2048),         # never beyond training
    (FakeModel(MODEL, context_length=2048), 16384, 2048),
])
def test_the_context_window_is_the_one_ollama_is_told_to_use(spec, configured, expected):
    with FakeOllama(models=[spec]) as fake:
        provider = make_provider(fake.url, context_window=configured)
        assert provider.context_window == expected
        fake.script("ok")
        list(provider.chat_stream(HELLO))
        assert fake.chat_requests()[0]["options"]["num_ctx"] == expected
    assert make_provider(closed_port_url(), context_window=9000).context_window == 9000


# --- structured output -----------------------------------------------------------------------


SCHEMA = {"type": "object", "properties": {"facts": {"type": "array", "maxItems": 3, "items": {
    "type": "object", "properties": {"key": {"type": "string", "maxLength": 40}}}}},
    "required": ["facts"]}


def test_structured_output_sends_the_schema_as_format_and_returns_the_raw_text(server, provider):
    raw = '```json\n{"facts": [{"key": "home_city"}]}\n```'
    server.script(FakeReply(chunks=[raw[:9], raw[9:20], raw[20:]]))
    assert provider.structured(HELLO, SCHEMA, max_tokens=200) == raw
    body = server.chat_requests()[0]
    assert body["format"] == SCHEMA
    assert body["options"]["num_predict"] == 200
    assert not body.get("tools")


def test_cancelling_structured_output_raises_cancelled(server, provider):
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(LLMCancelled):
        provider.structured(HELLO, SCHEMA, cancel=cancel)
    assert server.chat_requests() == []  # not even sent
    later = CancelToken()
    server.script(FakeReply(chunks=["{", '"facts"', ": []}"], delay=0.05))
    threading.Timer(0.08, later.cancel).start()
    with pytest.raises(LLMCancelled):
        provider.structured(HELLO, SCHEMA, cancel=later)


# --- cancellation ----------------------------------------------------------------------------


def test_cancel_mid_stream_stops_early_and_closes_the_connection(server, provider):
    server.script(FakeReply(chunks=[f"w{i} " for i in range(40)], delay=0.02))
    cancel = CancelToken()
    received = []
    for chunk in provider.chat_stream(HELLO, cancel=cancel):
        received.append(chunk)
        if len(received) == 3:
            cancel.cancel()
    assert [c.text for c in received] == ["w0 ", "w1 ", "w2 "]
    assert not any(c.done for c in received)
    assert wait_for(lambda: server.disconnects == 1)  # the server saw the client leave


def test_cancel_mid_pull_raises_cancelled_and_does_not_install():
    with FakeOllama(models=[MODEL], pull_steps=50, pull_delay=0.02) as fake:
        ollama = make_provider(fake.url)
        cancel = CancelToken()
        seen: list[tuple[str, int | None, int | None]] = []

        def progress(status: str, completed: int | None, total: int | None) -> None:
            seen.append((status, completed, total))
            if len(seen) == 4:
                cancel.cancel()

        with pytest.raises(LLMCancelled, match="qwen3:0.6b"):
            ollama.pull("qwen3:0.6b", progress, cancel)
        assert len(seen) == 4 and fake.installed("qwen3:0.6b") is None
        assert wait_for(lambda: fake.disconnects == 1)


# --- models ----------------------------------------------------------------------------------


def test_list_models_reports_names_sizes_and_details(server, provider):
    server.add_model(FakeModel("qwen3:0.6b", size=522_000_000, family="qwen3"))
    models = {m.name: m for m in provider.list_models()}
    assert set(models) == {MODEL, "qwen3:0.6b"}
    assert models["qwen3:0.6b"].size_bytes == 522_000_000
    assert models["qwen3:0.6b"].details["family"] == "qwen3"
    assert models[MODEL].details["parameter_size"] == "3.2B"


def test_pull_reports_growing_progress_and_installs_the_model(server, provider):
    seen: list[tuple[str, int | None, int | None]] = []
    provider.pull("qwen3:0.6b", lambda *step: seen.append(step))
    byte_steps = [completed for _status, completed, total in seen if total]
    assert len(byte_steps) == 4 and byte_steps == sorted(byte_steps)
    assert byte_steps[-1] == server.pull_total
    assert seen[0][0] == "pulling manifest" and seen[-1][0] == "success"
    assert "qwen3:0.6b" in {m.name for m in provider.list_models()}
    assert server.requests_to("/api/pull")[0].body["model"] == "qwen3:0.6b"


def test_a_pull_ollama_refuses_says_so(server, provider):
    server.unpullable.add("nosuch:1b")
    with pytest.raises(LLMError, match="could not pull nosuch:1b: pull model manifest"):
        provider.pull("nosuch:1b", lambda *_: None)


# --- failures become plain errors ------------------------------------------------------------


def test_a_server_that_is_not_running_gives_a_plain_error():
    url = closed_port_url()
    provider = make_provider(url)
    status = provider.status()
    assert not status.available and "not running" in status.detail and url in status.detail
    with pytest.raises(LLMUnavailableError) as caught:
        list(provider.chat_stream(HELLO))
    assert caught.value.message == f"Ollama is not running at {url}."
    assert "ollama serve" in caught.value.hint
    with pytest.raises(LLMUnavailableError):
        provider.structured(HELLO, SCHEMA)
    with pytest.raises(LLMUnavailableError):
        provider.list_models()
    with pytest.raises(LLMUnavailableError):
        provider.pull(MODEL, lambda *_: None)


def test_a_missing_model_says_how_to_pull_it(server):
    provider = make_provider(server.url, model="mistral:7b")
    status = provider.status()
    assert not status.available
    assert "not installed" in status.detail and "hearth models pull mistral:7b" in status.detail
    with pytest.raises(LLMModelMissingError) as caught:
        list(provider.chat_stream(HELLO))
    assert "mistral:7b" in caught.value.message
    assert "hearth models pull mistral:7b" in caught.value.hint
    assert len(server.chat_requests()) == 1  # a 404 is not retried


def test_status_names_version_host_and_model_and_accepts_an_implicit_latest_tag(server):
    assert make_provider(server.url).status().detail == (
        f"Ollama 0.6.8 at {server.url}, model {MODEL}")
    server.add_model("phi4")
    assert make_provider(server.url, model="phi4:latest").status().available
    assert make_provider(server.url, model="phi4").status().available


def test_a_slow_server_times_out_with_a_plain_error(server):
    provider = make_provider(server.url, timeout=0.3)
    server.script(FakeReply(chunks=["late"], delay=1.0))
    with pytest.raises(LLMTimeoutError, match="did not answer within 0.3 seconds"):
        list(provider.chat_stream(HELLO))
    server.script(FakeReply(text="late", delay=1.0))
    with pytest.raises(LLMTimeoutError):
        provider.structured(HELLO, SCHEMA)
    assert len(server.chat_requests()) == 2  # a slow model is not asked twice


def test_a_stream_that_stalls_midway_keeps_what_arrived(server):
    provider = make_provider(server.url, timeout=0.3)
    server.script(FakeReply(chunks=["The ", "answer ", "is"], delay=[0.0, 0.0, 1.0]))
    received: list[str] = []
    with pytest.raises(LLMTimeoutError) as caught:
        for chunk in provider.chat_stream(HELLO):
            received.append(chunk.text)
    assert received == ["The ", "answer "]
    assert "cut off" in caught.value.message and "kept" in caught.value.hint
    assert len(server.chat_requests()) == 1


def test_a_connection_dropped_mid_stream_keeps_the_streamed_chunks(server, provider):
    server.script(FakeReply(chunks=["The ", "answer ", "is ", "42"], drop_after=2))
    received: list[str] = []
    with pytest.raises(LLMError) as caught:
        for chunk in provider.chat_stream(HELLO):
            received.append(chunk.text)
    assert received == ["The ", "answer "]
    assert "cut off" in caught.value.message and "kept" in caught.value.hint
    assert type(caught.value) is LLMServerError  # an outage: the server went away
    assert len(server.chat_requests()) == 1  # never repeated once streaming began


def test_a_server_error_is_retried_until_it_answers(server, provider):
    server.script(FakeReply.failure(500, "model runner crashed"), "Recovered.")
    assert text_of(list(provider.chat_stream(HELLO))) == "Recovered."
    assert len(server.chat_requests()) == 2


def test_a_hang_up_before_any_answer_is_retried(server, provider):
    server.script(FakeReply(text="lost", drop_after=0), "Second try.")
    assert text_of(list(provider.chat_stream(HELLO))) == "Second try."
    server.script(FakeReply(text="lost", drop_after=0), '{"facts": []}')
    assert provider.structured(HELLO, SCHEMA) == '{"facts": []}'
    assert len(server.chat_requests()) == 4


def test_retries_end_with_a_plain_error(server):
    provider = make_provider(server.url, retries=2)
    server.script(*[FakeReply.failure(503, "overloaded")] * 3, "never reached")
    with pytest.raises(LLMError, match=r"Ollama failed to answer \(overloaded\)"):
        list(provider.chat_stream(HELLO))
    assert len(server.chat_requests()) == 3 and server.pending_replies() == 1


def test_other_refusals_are_not_retried(server, provider):
    server.script(FakeReply.failure(400, "invalid options"), "never reached")
    with pytest.raises(LLMError, match=r"refused the request: invalid options \(HTTP 400\)"):
        list(provider.chat_stream(HELLO))
    assert len(server.chat_requests()) == 1


def test_failures_of_the_server_are_outages_and_refusals_are_not(server):
    """Queued work waits out an ``LLMOutage`` without counting it against itself; a refusal
    of the request itself is a plain ``LLMError``."""
    provider = make_provider(server.url, retries=0)
    outages = {
        "5xx": FakeReply.failure(503, "model is loading"),
        "hang-up": FakeReply(text="lost", drop_after=0),
        "cut off": FakeReply(chunks=["{", '"facts"'], drop_after=1),
        "slow": FakeReply(text="late", delay=1.0),
    }
    for label, reply in outages.items():
        server.script(reply)
        with pytest.raises(LLMOutage) as caught:
            make_provider(server.url, retries=0, timeout=0.3).structured(HELLO, SCHEMA)
        assert caught.value.message, label
    with pytest.raises(LLMOutage):
        make_provider(server.url, model="mistral:7b").structured(HELLO, SCHEMA)
    with pytest.raises(LLMOutage):
        make_provider(closed_port_url(), retries=0).structured(HELLO, SCHEMA)
    server.script(FakeReply.failure(400, "invalid format"))
    with pytest.raises(LLMError) as refused:
        provider.structured(HELLO, SCHEMA)
    assert not isinstance(refused.value, LLMOutage)


def test_proxy_settings_cannot_route_prompts_elsewhere(server, provider, monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, closed_port_url())
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    fresh = make_provider(server.url)
    server.script("Direct.")
    assert text_of(list(fresh.chat_stream(HELLO))) == "Direct."
    assert fresh.status().available


# --- the retry helper ------------------------------------------------------------------------


def test_backoff_doubles_up_to_the_cap_and_the_last_error_propagates():
    waits: list[float] = []
    calls = []

    def flaky() -> str:
        calls.append(1)
        raise ConnectionError(f"attempt {len(calls)}")

    with pytest.raises(ConnectionError, match="attempt 5"):
        call_with_retries(flaky, retries=4, retryable=lambda e: True, base_delay=0.5,
                          max_delay=1.5, sleep=waits.append)
    assert waits == [0.5, 1.0, 1.5, 1.5]


def test_a_non_retryable_failure_is_raised_at_once_and_success_returns():
    waits: list[float] = []
    with pytest.raises(ValueError):
        call_with_retries(lambda: int("x"), retries=3,
                          retryable=lambda e: isinstance(e, ConnectionError), sleep=waits.append)
    assert waits == []
    outcomes = iter([ConnectionError("down"), "up"])

    def recovering() -> str:
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    assert call_with_retries(recovering, retries=1, retryable=lambda e: True,
                             sleep=waits.append) == "up"
    assert waits == [0.5]


# --- the fake server itself ------------------------------------------------------------------


def test_the_fake_server_leaves_no_threads_and_stops_while_answering_slowly():
    before = set(threading.enumerate())
    fake = FakeOllama(models=[MODEL]).start()
    fake.script(FakeReply(chunks=["a", "b"], delay=30.0))
    failures: list[Exception] = []

    def ask() -> None:
        try:
            list(make_provider(fake.url, retries=0).chat_stream(HELLO))
        except LLMError as exc:
            failures.append(exc)

    asking = threading.Thread(target=ask)
    asking.start()
    assert wait_for(lambda: len(fake.chat_requests()) == 1)
    started = time.monotonic()
    fake.stop()
    asking.join(5)
    assert time.monotonic() - started < 3 and not asking.is_alive()
    assert len(failures) == 1  # the client was told, not left hanging
    assert set(threading.enumerate()) <= before


# --- hearth models ---------------------------------------------------------------------------


@pytest.fixture
def cli_env(server: FakeOllama, monkeypatch) -> FakeOllama:
    monkeypatch.setenv("HEARTH_OLLAMA_HOST", server.url)
    monkeypatch.setenv("HEARTH_OLLAMA_MODEL", MODEL)
    return server


def test_models_list_prints_json_with_the_configured_model_marked(cli_env):
    import json

    from cli.models_cmd import models_app

    cli_env.add_model("qwen3:0.6b")
    result = CliRunner().invoke(models_app, ["list", "--json"])
    assert result.exit_code == 0, result.output
    listed = {m["name"]: m for m in json.loads(result.stdout)}
    assert listed[MODEL]["configured"] is True and listed["qwen3:0.6b"]["configured"] is False
    table = CliRunner().invoke(models_app, ["list"])
    assert table.exit_code == 0 and "qwen3:0.6b" in table.stdout


def test_models_pull_downloads_the_named_or_configured_model(cli_env):
    from cli.models_cmd import models_app

    result = CliRunner().invoke(models_app, ["pull", "qwen3:0.6b"])
    assert result.exit_code == 0, result.output
    assert "pulled qwen3:0.6b" in result.stdout
    assert cli_env.installed("qwen3:0.6b") is not None
    CliRunner().invoke(models_app, ["pull"])
    assert cli_env.requests_to("/api/pull")[-1].body["model"] == MODEL


def test_models_list_when_ollama_is_down_raises_the_plain_error(monkeypatch):
    from cli.models_cmd import models_app

    monkeypatch.setenv("HEARTH_OLLAMA_HOST", closed_port_url())
    monkeypatch.setenv("HEARTH_LLM_RETRIES", "0")
    result = CliRunner().invoke(models_app, ["list"])
    assert isinstance(result.exception, LLMUnavailableError)


def test_ctrl_c_stops_a_pull_cleanly(tmp_path: Path):
    with FakeOllama(models=[MODEL], pull_steps=200, pull_delay=0.05) as fake:
        env = {**os.environ, "HEARTH_HOME": str(tmp_path / "home"),
               "HEARTH_OLLAMA_HOST": fake.url, "PYTHONPATH": str(PROJECT_ROOT)}
        process = subprocess.Popen(
            [sys.executable, "-c", "from cli.models_cmd import models_app; "
             "models_app(['pull', 'big:70b'], prog_name='hearth models')"],
            cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
            # a test run started in the background of a non-interactive shell ignores
            # SIGINT, and a child inherits that (Python then installs no Ctrl+C handler)
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            assert wait_for(lambda: bool(fake.requests_to("/api/pull")), seconds=30)
            process.send_signal(signal.SIGINT)  # the pull is streaming: 200 steps of 50 ms
            _out, err = process.communicate(timeout=60)  # a loaded machine is slow to exit
        finally:
            if process.poll() is None:
                process.kill()
        assert process.returncode == 130
        assert "Stopped pulling big:70b" in err and "Traceback" not in err
        assert fake.installed("big:70b") is None
        assert wait_for(lambda: fake.disconnects == 1)
