"""What a log record may hold: never the user's words, unless someone debugging asks.

Hearth's log files (``<home>/logs/``) and the daemon's stderr (the journal, under systemd)
are plain text, also in an encrypted data folder (``docs/encryption.md``): what a record
quotes is readable on a copied disk. So a record names what happened by ids, counts, kinds
and lengths, never by the text of a message, fact, memory, reminder, title or model
answer: all of these quote the user. Two things make that hold:

* A call site that has such text at hand passes it through ``quoted``, which shows as
  ``<N characters>``; most leave it out altogether.
* ``LogFormat``, the formatter of every handler Hearth installs (``hearth``'s
  ``logs/hearth.log``, the daemon's ``logs/daemon.log`` and stderr, the window's
  ``logs/window.log`` and stderr; ``hearth``'s warning lines on the terminal through
  ``LogFormat.message``), writes an exception by its type, never its message:
  as an argument of the record, as its traceback (``log.exception``, ``exc_info``) and its
  causes. A message is free text from anywhere: a validation error repeats its input, a
  subprocess error its command line (a notification's text), a ``HearthError`` the name
  the person typed. The traceback's frames say where it happened; an ``OSError`` keeps
  its errno and the system's words for it, which hold nothing of the user's.

``HEARTH_LOG_USER_TEXT=1`` turns both off, for the run of one process that has it in its
environment: quoted text and exception messages are written as they are. It is for
debugging one problem, never a setting (``settings.json`` would keep it on); each process
that logs to the data folder with it says so once at WARNING, and the logs it wrote should
be deleted afterwards (``docs/reliability.md``, "What the logs hold").
"""

from __future__ import annotations

import logging
import os
import traceback
from collections.abc import Mapping
from typing import Any

USER_TEXT_ENV = "HEARTH_LOG_USER_TEXT"
"""Set to 1 (or true, yes, on) to let log records quote the user's words, for one run."""
_ON = frozenset({"1", "true", "yes", "on"})
NOTICE = (f"{USER_TEXT_ENV} is set: this run's log records quote your words (messages, "
          "facts, model answers). Unset it when you are done and delete the log files it "
          "wrote.")

def user_text_logged() -> bool:
    """Whether log records of this process may quote the user's words (``USER_TEXT_ENV``),
    read each time, so a test or a debugging session may turn it on and off."""
    return os.environ.get(USER_TEXT_ENV, "").strip().lower() in _ON


class _Quoted:
    """Text a record may show only with ``USER_TEXT_ENV``: formatted when the record is,
    as its length otherwise."""

    __slots__ = ("_text",)

    def __init__(self, text: object) -> None:
        self._text = text

    def __str__(self) -> str:
        return str(self._text) if user_text_logged() else self._length()

    def __repr__(self) -> str:
        return repr(self._text) if user_text_logged() else self._length()

    def _length(self) -> str:
        return f"<{len(str(self._text))} characters>"


def quoted(text: object) -> object:
    """``text`` as a log argument: the user's words (or a model's answer, a title, a
    key) shown as ``<N characters>`` unless ``USER_TEXT_ENV`` is set."""
    return _Quoted(text)


def described(error: BaseException) -> str:
    """``error`` as a log record may show it: its type, with the system's words for an
    ``OSError``'s errno; its whole message with ``USER_TEXT_ENV``."""
    name = type(error).__name__
    if user_text_logged():
        return f"{name}: {error}" if str(error) else name
    if isinstance(error, OSError) and error.errno is not None and error.strerror:
        return f"{name} [Errno {error.errno}] {error.strerror}"
    return name


class LogFormat(logging.Formatter):
    """The formatter of Hearth's log handlers: exceptions by their type and traceback,
    never their message (see the module docstring), unless ``USER_TEXT_ENV`` is set.

    The record is copied before it is changed, since every handler gets the same one; and
    the traceback is formatted anew, never taken from the text another handler's
    formatter left on the record (``exc_text``), which holds the messages."""

    def format(self, record: logging.LogRecord) -> str:
        if user_text_logged():
            return super().format(record)
        return super().format(_without_messages(record))

    @staticmethod
    def message(record: logging.LogRecord) -> str:
        """The record's message alone, with exceptions as ``format`` writes them: for a
        line on a terminal, which leaves the traceback to the log file."""
        if user_text_logged():
            return record.getMessage()
        return _without_messages(record).getMessage()

    def formatException(self, ei: Any) -> str:  # noqa: N802 (logging's name)
        if user_text_logged() or not isinstance(ei, tuple) or ei[1] is None:
            return super().formatException(ei)
        return "".join(_traceback_lines(ei[1])).rstrip("\n")


def _without_messages(record: logging.LogRecord) -> logging.LogRecord:
    """A copy of ``record`` whose exceptions (the message itself, an argument) are
    ``described``, and whose traceback is formatted anew (see ``LogFormat``)."""
    shown = logging.makeLogRecord(record.__dict__)
    shown.exc_text = None
    if isinstance(shown.msg, BaseException):
        shown.msg = described(shown.msg)
    if isinstance(shown.args, Mapping):
        shown.args = {key: _shown(value) for key, value in shown.args.items()}
    elif isinstance(shown.args, tuple):
        shown.args = tuple(_shown(value) for value in shown.args)
    return shown


def _shown(value: object) -> object:
    return described(value) if isinstance(value, BaseException) else value


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def _traceback_lines(error: BaseException) -> list[str]:
    """``traceback.format_exception``'s lines, causes and contexts included, with each
    exception as ``described`` gives it instead of its message."""
    chain: list[tuple[BaseException, str]] = []
    seen: set[int] = set()
    current: BaseException | None = error
    joint = ""
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        chain.append((current, joint))
        if current.__cause__ is not None:
            current, joint = current.__cause__, _CAUSE
        elif current.__context__ is not None and not current.__suppress_context__:
            current, joint = current.__context__, _CONTEXT
        else:
            current = None
    lines: list[str] = []
    for exc, _joint in reversed(chain):
        if exc.__traceback__ is not None:
            lines.append("Traceback (most recent call last):\n")
            lines.extend(traceback.format_tb(exc.__traceback__))
        lines.append(f"{described(exc)} (message withheld: {USER_TEXT_ENV}=1 shows it)\n")
        lines.extend(_group_lines(exc))
        lines.append(_joint)
    return lines[:-1]


def _group_lines(error: BaseException) -> list[str]:
    """An exception group's members, by type."""
    if not isinstance(error, BaseExceptionGroup):
        return []
    return [f"  +-- {described(member)}\n" for member in error.exceptions]


def announce(logger: logging.Logger) -> None:
    """Say once on ``logger``, at WARNING, that its records quote the user's words, when
    ``USER_TEXT_ENV`` is set: a person who turned it on to debug is reminded to turn it off
    and clean up."""
    if user_text_logged():
        logger.warning(NOTICE)


def log_to_stderr(level: int = logging.INFO) -> None:
    """Records of ``level`` and up from every logger to stderr, through ``LogFormat``: a
    front end's own stream (a desktop launcher may keep it in the journal, on disk)."""
    handler = logging.StreamHandler()
    handler.setFormatter(LogFormat("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler])
