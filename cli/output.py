"""How the CLI speaks: tables for people, JSON for scripts, errors and warnings as sentences on
stderr."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import date, datetime
from enum import Enum
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from core.log_privacy import LogFormat

stdout = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)

OWN_LOGGERS = ("core", "cli")
"""The loggers of Hearth's own code: the engine's, and the command line's (the daemon's,
its notifications'), which is no part of ``core``."""


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot serialise {type(value).__name__}")


def to_json(data: Any) -> str:
    return json.dumps(data, default=_default, ensure_ascii=False)


def print_json(data: Any) -> None:
    sys.stdout.write(to_json(data) + "\n")
    sys.stdout.flush()


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    table = Table(title=title, show_lines=False)
    for column in columns:
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("" if cell is None else str(cell) for cell in row))
    stdout.print(table)


def print_warning(message: str) -> None:
    """Something the user should know about a command that still succeeded."""
    stderr.print(f"[bold yellow]warning:[/] {escape(message)}", highlight=False)


def print_error(message: str, hint: str = "") -> None:
    stderr.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    if hint:
        stderr.print(hint, highlight=False, markup=False)


class _Notice(logging.Handler):
    """A log record as a dim line on stderr, for what a person at the terminal should know
    while a command runs (that it is waiting for another process's write, not hung). Only
    the message: a traceback attached to the record goes to the log file (``logs``), never
    to the terminal; an exception in it by its type, as in the file (stderr may be kept:
    an MCP client logs a server's)."""

    def emit(self, record: logging.LogRecord) -> None:
        stderr.print(f"[dim]{escape(LogFormat.message(record))}[/]", highlight=False)


def _notices(logger: logging.Logger) -> list[logging.Handler]:
    return [handler for handler in logger.handlers if isinstance(handler, _Notice)]


@contextmanager
def notices_shown(*logger_names: str) -> Iterator[None]:
    """Show warnings from ``logger_names`` (and below) on stderr as they happen, for the
    block only: the process (a test, a caller of ``run``) keeps no handler of the CLI's
    afterwards. Nested blocks add no second handler."""
    loggers = [logger for logger in map(logging.getLogger, logger_names)
               if not _notices(logger)]
    handler = _Notice(logging.WARNING)
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


@contextmanager
def notices_paused(*logger_names: str) -> Iterator[None]:
    """No notice lines from ``logger_names`` meanwhile: for a command that logs to stderr in
    its own format (the daemon), so nothing is said twice."""
    notices = list(dict.fromkeys(handler for logger in map(logging.getLogger, logger_names)
                                 for handler in _notices(logger)))
    levels = [handler.level for handler in notices]
    for handler in notices:
        handler.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for handler, level in zip(notices, levels, strict=True):
            handler.setLevel(level)
