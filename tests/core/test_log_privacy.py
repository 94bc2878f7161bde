"""Log records never carry the user's words: an encrypted data folder, end to end, and the
formatter every Hearth log handler uses (``core.log_privacy``).

The log files are not encrypted with the folder (``docs/encryption.md``), so whatever a
record quotes stays readable on a stolen disk. The proof: a distinctive string in the
user's words goes through everything that logs on the way in an encrypted folder — a chat
whose model echoes it and whose learning gets malformed answers quoting it, the chat's
summary when it closes, a ChatGPT import, a dream over all of it on the same model
(through the daemon, which logs at INFO), and the daemon's delivery of a reminder that
carries it to a notification service that does not answer — with logging set up as the
programs set it up (``hearth``'s ``logs/hearth.log``, the daemon's ``logs/daemon.log`` and
stderr, the window's ``logs/window.log``) and a DEBUG log beside them. Then no file of the
folder holds it, in any byte, though the database does, encrypted.
"""

from __future__ import annotations

import io
import itertools
import json
import logging
import os
import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from core import clock
from core.app import Hearth
from cli import notify
from cli.main import run
from core.home import encryption
from core.log_privacy import NOTICE, USER_TEXT_ENV, LogFormat, described, quoted
from desktop.app import log_to_data_folder
from support.fake_ollama import FakeOllama, FakeReply

SECRET = "zebra-locker-7731"
"""In no model, fixture or schema: a file holds it only if it holds the user's words."""
PASSPHRASE = "correct horse battery staple"
MODEL = "llama3.2:3b"


def files_holding(folder: Path, text: str) -> list[str]:
    """Every file under ``folder`` whose bytes hold ``text`` in any case (UTF-8 or
    UTF-16), as paths relative to it."""
    needles = [text.lower().encode("utf-8"), text.lower().encode("utf-16-le")]
    return [str(path.relative_to(folder)) for path in sorted(folder.rglob("*"))
            if path.is_file() and any(n in path.read_bytes().lower() for n in needles)]


def malformed() -> Callable[[dict[str, Any]], FakeReply]:
    """A model that echoes the user's words in every answer: chat replies say them back;
    structured answers (learning, summaries, the dream's stages) are, in turn, prose that
    holds no JSON and prose around JSON of the wrong shape for every schema, both quoting
    the words, so every failure path has them at hand."""
    answers = itertools.count()

    def respond(body: dict[str, Any]) -> FakeReply:
        if body.get("format") is None:
            return FakeReply(text=f"Noted: your {SECRET} code is 4417. "
                                  f'{{"profile": "{SECRET}"')
        if next(answers) % 2 == 0:
            return FakeReply(text=f"Your locker {SECRET} has the code 4417, I think.")
        return FakeReply(text=f'Sure! ["The {SECRET} code is 4417", "{SECRET}"]')

    return respond


def chatgpt_export(path: Path) -> Path:
    """A ChatGPT export of one conversation whose title and message carry the words."""
    def message(node: str, role: str, text: str, at: float) -> dict[str, Any]:
        return {"id": node, "author": {"role": role, "name": None, "metadata": {}},
                "create_time": at, "update_time": None,
                "content": {"content_type": "text", "parts": [text]},
                "status": "finished_successfully", "end_turn": None, "weight": 1.0,
                "metadata": {}, "recipient": "all", "channel": None}
    conversation = {
        "title": f"The {SECRET} question", "create_time": 1714600000.0,
        "update_time": 1714600050.0, "conversation_id": "9903c3d4-2e5f-4a71-8c1d-2e3f4a5b6c7d",
        "current_node": "m2",
        "mapping": {
            "root": {"id": "root", "message": None, "parent": None, "children": ["m1"]},
            "m1": {"id": "m1", "parent": "root", "children": ["m2"],
                   "message": message("m1", "user", f"Which locker is {SECRET}?", 1714600001.0)},
            "m2": {"id": "m2", "parent": "m1", "children": [],
                   "message": message("m2", "assistant", f"{SECRET} is by the pool.",
                                      1714600002.0)}}}
    path.write_text(json.dumps([conversation]), encoding="utf-8")
    return path


@pytest.fixture
def window_log(isolated_home: Path) -> Iterator[Path]:
    """The window's log file, as ``hearth-desktop`` sets it up (on the root logger), for
    the records every part of this test makes; taken away afterwards."""
    root = logging.getLogger()
    before = list(root.handlers)
    path = log_to_data_folder(isolated_home)
    yield path
    for handler in [h for h in root.handlers if h not in before]:
        root.removeHandler(handler)
        handler.close()


@pytest.fixture
def debug_log(isolated_home: Path) -> Iterator[Path]:
    """Everything ``core`` logs, DEBUG up, in ``logs/debug.log`` through the formatter of
    Hearth's log files: what a developer who turned the level down would keep (the levels
    the programs set stay as they are; the daemon sets ``core`` to INFO while it runs)."""
    path = isolated_home / "logs" / "debug.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(LogFormat("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    loggers = [logging.getLogger(name) for name in ("core", "apscheduler")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    yield path
    for logger, level in zip(loggers, levels, strict=True):
        logger.removeHandler(handler)
        logger.setLevel(level)
    handler.close()


def hearth(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str]:
    """One ``hearth`` command in this process; its exit code and what it wrote on stderr
    (where the daemon logs too: under systemd that is the journal, on disk)."""
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.err


@pytest.mark.slow
def test_no_file_of_an_encrypted_folder_holds_the_users_words_after_everything_logged(
        capsys, isolated_home: Path, tmp_path: Path, window_log: Path, debug_log: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = isolated_home
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "status")[0] == 0
    assert hearth(capsys, home, "encrypt")[0] == 0
    encryption.forget_keys()
    stderr: list[str] = []

    with FakeOllama(models=[MODEL], responder=malformed()) as server:
        server.configure(monkeypatch, MODEL)
        # a chat of two turns: the rules learn a fact (an event for the dream), the model's
        # extraction fails on its answers, and /quit closes the chat, whose summary fails
        monkeypatch.setattr("sys.stdin", io.StringIO(
            f"Remember that my locker code is {SECRET}.\nThe {SECRET} locker is by the "
            "pool.\n/quit\n"))
        code, err = hearth(capsys, home, "chat")
        assert code == 0, err
        stderr.append(err)
        assert "was not valid" in (home / "logs" / "hearth.log").read_text(encoding="utf-8")

        # an import whose conversation title and messages carry the words
        export = chatgpt_export(tmp_path / "conversations.json")
        code, err = hearth(capsys, home, "import", "chatgpt", str(export))
        assert code == 0, err
        stderr.append(err)

        # the nightly dream over all of it, as the daemon runs it (its log takes INFO)
        code, err = hearth(capsys, home, "daemon", "--once", "dream")
        assert code == 0, err
        stderr.append(err)
        assert "Consolidating 1 event(s) failed" in (home / "logs" / "daemon.log").read_text(
            encoding="utf-8")

    # two reminders delivered to a notification service that does not answer in time, then
    # refuses, repeating what it was given
    real = datetime.now(UTC).replace(microsecond=0)
    with Hearth.open(home) as opened, clock.shifted(timedelta(hours=-2)):
        for minutes in (60, 30):
            opened.reminders.create(f"Empty locker {SECRET}", real - timedelta(minutes=minutes),
                                    zone="UTC")
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "notify-send").write_text(
        f"#!/bin/sh\nif [ ! -e {tmp_path}/asked ]; then touch {tmp_path}/asked; sleep 10; fi\n"
        'echo "cannot show $3" >&2\nexit 1\n')
    (tools / "notify-send").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(notify, "TIMEOUT_S", 0.3)
    code, err = hearth(capsys, home, "daemon", "--once", "delivery")
    assert code == 0, err
    stderr.append(err)
    daemon_log = (home / "logs" / "daemon.log").read_text(encoding="utf-8")
    assert "notify-send could not show reminder:1: TimeoutExpired" in daemon_log
    assert "notify-send could not show reminder:2 (exit 1): <" in daemon_log

    logs = sorted(path.name for path in (home / "logs").iterdir())
    assert {"hearth.log", "daemon.log", "window.log", "debug.log"} <= set(logs), logs
    assert " DEBUG " in debug_log.read_text(encoding="utf-8")
    assert files_holding(home, SECRET) == []
    assert [err for err in stderr if SECRET.lower() in err.lower()] == []
    with Hearth.open(home) as opened:  # it is there, for the key's holder
        assert {r.message for r in opened.reminders.list()} == {f"Empty locker {SECRET}"}


# --- the formatter ---------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def own_loggers_emptied() -> Iterator[None]:
    """The loggers ``logged`` makes keep no handler after the test."""
    yield
    for handlers_first in range(2):
        logger = logging.getLogger(f"test_log_privacy.{handlers_first}")
        logger.handlers.clear()
        logger.propagate = True


def logged(*handlers_first: logging.Handler) -> tuple[logging.Logger, io.StringIO]:
    """A logger of its own whose records go to ``handlers_first`` and then to a stream
    through ``LogFormat``, as Hearth's files get them."""
    stream = io.StringIO()
    ours = logging.StreamHandler(stream)
    ours.setFormatter(LogFormat("%(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger(f"test_log_privacy.{len(handlers_first)}")
    logger.propagate = False
    logger.handlers = [*handlers_first, ours]
    logger.setLevel(logging.DEBUG)
    return logger, stream


def test_an_exception_is_written_by_its_type_and_place_never_its_message() -> None:
    """As an argument, with its traceback, as the cause of another: the frames say where,
    the type says what; the message, which may repeat a model's answer or a command line,
    is left out, also when another handler already formatted the record with it."""
    plain = logging.StreamHandler(io.StringIO())  # a handler without LogFormat goes first
    logger, stream = logged(plain)
    try:
        try:
            raise ValueError(f"invalid literal: {SECRET!r}")
        except ValueError as cause:
            raise KeyError(SECRET) from cause
    except KeyError as error:
        logger.warning("the job failed: %s", error, exc_info=True)
        logger.exception(error)
    written = stream.getvalue()
    assert SECRET in plain.stream.getvalue()  # the record itself is left as it was
    assert SECRET not in written
    assert "the job failed: KeyError\n" in written
    assert "Traceback (most recent call last):" in written
    assert "raise KeyError(SECRET) from cause" in written  # where: the code, never its data
    assert "ValueError (message withheld: HEARTH_LOG_USER_TEXT=1 shows it)" in written
    assert "The above exception was the direct cause of the following exception" in written
    assert written.index("ValueError (message") < written.index("KeyError (message")


def test_an_os_error_keeps_the_systems_words_and_quoted_text_its_length() -> None:
    logger, stream = logged()
    logger.warning("could not write %s: %s; said %s", "hearth.log",
                   PermissionError(13, "Permission denied", f"/tmp/{SECRET}"),
                   quoted(f"your {SECRET}"))
    assert stream.getvalue() == ("WARNING test_log_privacy.0: could not write hearth.log: "
                                 "PermissionError [Errno 13] Permission denied; said "
                                 "<22 characters>\n")
    assert described(subprocess.TimeoutExpired(["notify-send", SECRET], 5)) == "TimeoutExpired"


def test_the_switch_lets_records_quote_the_users_words_for_one_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    logger, stream = logged()
    monkeypatch.setenv(USER_TEXT_ENV, "1")
    try:
        raise ValueError(SECRET)
    except ValueError as error:
        logger.exception("failed on %s (%s)", quoted(SECRET), error)
    monkeypatch.delenv(USER_TEXT_ENV)
    logger.warning("again on %s", quoted(SECRET))
    lines = stream.getvalue().splitlines()
    assert lines[0] == f"ERROR test_log_privacy.0: failed on {SECRET} ({SECRET})"
    assert lines[-2] == f"ValueError: {SECRET}"
    assert lines[-1] == f"WARNING test_log_privacy.0: again on <{len(SECRET)} characters>"


def test_hearths_log_file_says_when_the_switch_is_on(
        capsys, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(USER_TEXT_ENV, "yes")
    assert hearth(capsys, isolated_home, "status")[0] == 0
    assert NOTICE in (isolated_home / "logs" / "hearth.log").read_text(encoding="utf-8")
    monkeypatch.delenv(USER_TEXT_ENV)
    before = (isolated_home / "logs" / "hearth.log").read_text(encoding="utf-8")
    assert hearth(capsys, isolated_home, "status")[0] == 0
    assert (isolated_home / "logs" / "hearth.log").read_text(encoding="utf-8") == before
