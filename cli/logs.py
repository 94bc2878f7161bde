"""The CLI's log file: warnings and errors from Hearth's own code (``core``, and the
command line's own, ``cli``: ``output.OWN_LOGGERS``), with their tracebacks, appended to
``<home>/logs/hearth.log``; by ids, counts and kinds, never the user's words, and an
exception by its type (``core.log_privacy``).

The terminal gets one line per warning (``output.notices_shown``); the traceback a warning
may carry (``log.exception``) belongs in this file, where a bug report can point to it. The
file and its folder are made only when a record comes, so a command that has nothing to
report writes nothing; a folder that cannot be written (read-only, full) costs the record,
said once on stderr, never the command.
"""

from __future__ import annotations

import logging
from io import TextIOWrapper
from pathlib import Path

from cli import output
from core.log_privacy import LogFormat, announce

LOG_NAME = "hearth.log"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _LogFile(logging.FileHandler):
    """A ``FileHandler`` that makes its folder on first use and says once that it could not
    write, instead of printing logging's own traceback on stderr."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8", delay=True)
        self.setFormatter(LogFormat(LOG_FORMAT))
        self.setLevel(logging.WARNING)
        self._failed = False

    def _open(self) -> TextIOWrapper:
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 (logging's name)
        if not self._failed:
            self._failed = True
            output.print_warning(f"Could not write the log file {self.baseFilename}.")


def log_core_to(home: Path) -> Path:
    """From now on, Hearth's warnings and errors (tracebacks included) go to the log file
    of the data folder ``home`` (replacing the file of an earlier run in this process),
    never quoting the user's words (``core.log_privacy``)."""
    forget_log_file()
    path = home / "logs" / LOG_NAME
    handler = _LogFile(path)
    for name in output.OWN_LOGGERS:
        logging.getLogger(name).addHandler(handler)
    announce(logging.getLogger("core"))
    return path


def forget_log_file() -> None:
    """Hearth logs to no data folder's file any more (closing the one it had)."""
    closing: dict[_LogFile, None] = {}  # one handler serves every logger: closed once
    for logger in map(logging.getLogger, output.OWN_LOGGERS):
        for handler in [h for h in logger.handlers if isinstance(h, _LogFile)]:
            logger.removeHandler(handler)
            closing[handler] = None
    for log_file in closing:
        log_file.close()
