"""The formatter every Hearth log handler uses (``core.log_privacy``): a record never
carries the user's words, unless ``HEARTH_LOG_USER_TEXT`` is set for one run.

The log files are not encrypted with the folder (``docs/encryption.md``), so whatever a
record quotes stays readable on a stolen disk.
"""

from __future__ import annotations

import io
import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.cli.main import run
from core.log_privacy import NOTICE, USER_TEXT_ENV, LogFormat, described, quoted

SECRET = "zebra-locker-7731"
"""In no model, fixture or schema: a file holds it only if it holds the user's words."""


def hearth(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str]:
    """One ``hearth`` command in this process; its exit code and what it wrote on stderr
    (where the daemon logs too: under systemd that is the journal, on disk)."""
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.err


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
