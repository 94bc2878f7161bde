"""Text and files from the user that Hearth cannot read: one sentence, never a traceback,
and nothing in the data folder lost or changed.

Arguments are passed as a Linux shell passes them, as bytes: ``os.fsdecode(b"caf\\xe9")``
is how Python holds the Latin-1 ``café`` it received, and ``subprocess`` turns it back into
those bytes for the child. Chat input is piped as bytes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from core.home.paths import HearthPaths
from core.errors import InvalidInputError
from support.fake_ollama import FakeOllama, FakeReply
from support.folder_contents import contents

LATIN1_CAFE = os.fsdecode(b"caf\xe9")
MODEL = "llama3.2:3b"
NO_OLLAMA = {"HEARTH_LLM_PROVIDER": "ollama", "HEARTH_OLLAMA_HOST": "http://127.0.0.1:9"}


# --- command-line arguments --------------------------------------------------------------


CAFE = "is not valid UTF-8 text: byte 0xE9 after 'caf' cannot be read"


@pytest.mark.parametrize("args, expected", [
    (("facts", "set", LATIN1_CAFE, "Rua Nova 3"), f"KEY {CAFE}"),  # overwrote the fact `caf`
    (("facts", "set", "home_city", os.fsdecode(b"P\xf4rto")),
     "VALUE is not valid UTF-8 text: byte 0xF4 after 'P' cannot be read"),
    (("facts", "forget", LATIN1_CAFE), f"KEY {CAFE}"),              # forgot the fact `caf`
    (("facts", "list", LATIN1_CAFE), f"QUERY {CAFE}"),
    (("search", LATIN1_CAFE), f"QUERY {CAFE}"),
    (("search", "olive tree", "--namespace", LATIN1_CAFE), f"--namespace {CAFE}"),
    (("ask", f"{LATIN1_CAFE} au lait, please"), f"MESSAGE {CAFE}"),
    (("ask", "hello", "--session", LATIN1_CAFE), f"--session {CAFE}"),
], ids=["facts set KEY", "facts set VALUE", "facts forget", "facts list", "search",
        "search --namespace", "ask", "ask --session"])
def test_an_argument_that_is_not_utf8_is_refused_and_changes_nothing(
        hearth_cli, home, args, expected) -> None:
    before = contents(home)

    run = hearth_cli(home, *args, env=NO_OLLAMA)

    run.assert_sentence()
    assert run.code == InvalidInputError.exit_code
    assert expected in run.err
    assert contents(home) == before


def test_a_path_that_is_not_utf8_is_still_a_path(hearth_cli, home, tmp_path) -> None:
    """File names are bytes on Linux: only text arguments are held to UTF-8."""
    queries = tmp_path / os.fsdecode(b"requ\xeates.txt")
    queries.write_text("olive tree\n", encoding="utf-8")

    run = hearth_cli(home, "search", "--batch", str(queries))

    run.assert_ok()
    assert json.loads(run.out)["query"] == "olive tree"


# --- chat on stdin -------------------------------------------------------------------------


@pytest.fixture
def echo_server() -> Iterator[FakeOllama]:
    """Answers every chat turn with ``echo: <the message>``; learning requests find nothing."""

    def respond(body: dict) -> FakeReply:
        if body.get("format") is not None:
            return FakeReply(text=json.dumps({"facts": []}))
        message = body["messages"][-1]["content"].splitlines()[-1]
        return FakeReply(text=f"echo: {message}")

    with FakeOllama(models=[MODEL], responder=respond) as server:
        yield server


def cli_messages(home: Path) -> list[tuple[str, str, str]]:
    with closing(sqlite3.connect(HearthPaths(home).database)) as db:
        return db.execute("SELECT user_message, agent_response, status FROM interactions "
                          "WHERE channel = 'cli' ORDER BY id").fetchall()


@pytest.mark.parametrize("stdin_errors", [None, "utf-8:strict"],
                         ids=["default stdin", "strict stdin"])
def test_a_chat_line_that_is_not_utf8_is_sent_with_a_note_and_the_session_goes_on(
        hearth_cli, home, echo_server, stdin_errors) -> None:
    env = {"HEARTH_LLM_PROVIDER": "ollama", "HEARTH_OLLAMA_HOST": echo_server.url,
           "HEARTH_OLLAMA_MODEL": MODEL}
    if stdin_errors:
        env["PYTHONIOENCODING"] = stdin_errors  # what a UTF-8 locale other than C.UTF-8 sets
    facts_before = contents(home)["facts"]

    run = hearth_cli(home, "chat", input=b"hello there\nun caf\xe9 au lait\nthanks\n/quit\n",
                     env=env)

    run.assert_ok()
    assert "1 byte in that line was not UTF-8 text and became \ufffd" in run.err
    assert cli_messages(home) == [
        ("hello there", "echo: hello there", "completed"),
        ("un caf\ufffd au lait", "echo: un caf\ufffd au lait", "completed"),
        ("thanks", "echo: thanks", "completed"),
    ]
    assert "echo: thanks" in run.out
    assert contents(home)["facts"] == facts_before


# --- files the user names ------------------------------------------------------------------


@pytest.mark.parametrize("data, expected", [
    (b'{"exclusions": ["caf\xe9"]}', "is not UTF-8 text (byte 0xE9 on line 1"),
    (b"[" * 100_000, "nests lists or objects too deeply to be read"),
    (b'{"recall_k": ' + b"9" * 5000 + b"}", "holds a number longer than 4,300 digits"),
    (b'["recall_k", 5]', "does not hold settings (a JSON object)"),
], ids=["Latin-1", "deeply nested", "5,000 digits", "not an object"])
def test_an_unreadable_settings_file_is_named_and_nothing_changes(
        hearth_cli, home, data, expected) -> None:
    before = contents(home)
    settings = HearthPaths(home).settings_file
    settings.write_bytes(data)

    run = hearth_cli(home, "facts", "list")

    run.assert_sentence()
    assert run.code == InvalidInputError.exit_code
    assert f"{settings} {expected}" in run.err
    assert contents(home) == before


def test_a_batch_file_that_is_not_utf8_is_named(hearth_cli, home, tmp_path) -> None:
    queries = tmp_path / "queries.txt"
    queries.write_bytes(b"olive tree\nun caf\xe9\n")

    run = hearth_cli(home, "search", "--batch", str(queries))

    run.assert_sentence()
    assert run.code == InvalidInputError.exit_code
    assert f"{queries} is not UTF-8 text (byte 0xE9 on line 2 cannot be read)" in run.err


def test_a_batch_file_with_a_byte_order_mark_is_read_without_it(
        hearth_cli, home, tmp_path) -> None:
    """Notepad writes a BOM; it used to become part of the first query."""
    queries = tmp_path / "queries.txt"
    queries.write_bytes(b"\xef\xbb\xbfolive tree\n")

    run = hearth_cli(home, "search", "--batch", str(queries))

    run.assert_ok()
    assert json.loads(run.out)["query"] == "olive tree"
