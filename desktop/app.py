"""``hearth-desktop``: open the data folder, show the window, run the schedule in the tray.

The window is shown first; the assistant (which may ask Ollama, seconds when it is down) and
the schedule start right after, in the background, so the window appears at once. What
the program writes is readable by its user alone (``data.restrict_new_files``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from collections.abc import Sequence
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import NoReturn, cast

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QSystemTrayIcon

from core.app import Hearth
from core.operations.settings import data_folder
from core.errors import HearthError
from core.operations.data import LogFormat, announce, log_to_stderr, restrict_new_files
from core.operations.folder_lock import passphrase_taken_from_environment
from desktop import icons
from desktop.context import AppContext
from desktop.dialogs.locations import startup_home
from desktop.dialogs.passphrase import ask_to_unlock
from desktop.main_window import MainWindow
from desktop.theme import apply_scheme

log = logging.getLogger(__name__)


def make_application(argv: Sequence[str] = ()) -> QApplication:
    """The QApplication with Hearth's names, icon and a palette that follows the system's
    light or dark scheme (icons are re-tinted when it changes)."""
    app = cast(QApplication, QApplication.instance() or QApplication([sys.argv[0], *argv]))
    app.setApplicationName("Hearth")
    app.setOrganizationName("Hearth")
    app.setDesktopFileName("hearth")
    app.setStyle("Fusion")
    app.setWindowIcon(icons.icon("hearth"))
    app.setQuitOnLastWindowClosed(False)  # the tray keeps the schedule; Quit quits
    app.styleHints().colorSchemeChanged.connect(lambda _scheme: icons.clear_cache())
    return app


class DesktopApp:
    """The running program: context, window and tray, and an orderly quit."""

    def __init__(self, ctx: AppContext, *, start_background: bool = True) -> None:
        from desktop.tray import Tray

        self.ctx = ctx
        self.window = MainWindow(ctx)
        self.window.quit_requested.connect(self.quit)
        self.tray: Tray | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = Tray(ctx, self.window)
        self.window.tray_available = self.tray is not None
        self.closed = False
        if start_background:
            QTimer.singleShot(0, self.start_background)

    def start_background(self) -> None:
        self.ctx.start_assistant()
        self.ctx.start_scheduler()
        self.window.search_index.check()
        if not self.ctx.settings.welcome_shown:
            QTimer.singleShot(0, self.window.open_welcome)
        else:  # a first start has no runs to review
            self.window.runs.offer_review()

    def quit(self) -> None:
        """The window and the tray icon go at once; the rest stops within about two
        seconds, leaving unfinished learning in the database (``AppContext.close``)."""
        if self.closed:
            return
        self.closed = True
        self.window.hide()
        if self.tray is not None:
            self.tray.icon.hide()
        self.ctx.close()
        QApplication.quit()

    def run(self, app: QApplication) -> NoReturn:
        """Show the window and run until Quit, then end the process (``end_process``)."""
        self.window.show()
        code = app.exec()
        self.quit()  # the event loop may also end without Quit (the desktop session ends)
        end_process(code)


def end_process(code: int) -> NoReturn:
    """End the process as soon as the window has closed (``DesktopApp.quit``).

    By then everything Hearth keeps is committed to the database and the database is
    closed, learning not done is marked due for the next start, and a dream in its child
    process has been told to stop (it ends itself at its next safe point). What may still
    run cannot be stopped from here: a language model reading a long prompt in native code
    (llama.cpp notices a cancel only at its next token) on a reply's or learning's thread.
    A normal interpreter exit waits for it, in the thread pool's destructor and the
    model's, and under load the process outlived its window by 12 seconds. So the logs
    are flushed and the process ends here, without that wait."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed or gone: nothing to flush
            stream.flush()
    os._exit(code)


WINDOW_LOG = "window.log"
LOG_BYTES, LOG_FILES_KEPT = 1_000_000, 3


def log_to_data_folder(home: Path) -> Path:
    """Keep the window's warnings and errors, tracebacks included, in ``<home>/logs``: a
    sentence the window showed can then be traced, also when Hearth was started from a menu
    with nowhere to print. Bounded (a few rotated files), private like the rest of the
    folder, and masked with it when a fact is forgotten; by ids, counts and kinds, never
    the user's words, and an exception by its type (``core.log_privacy``)."""
    path = home / "logs" / WINDOW_LOG
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=LOG_BYTES, backupCount=LOG_FILES_KEPT,
                                  encoding="utf-8", delay=True)
    handler.setLevel(logging.WARNING)
    handler.setFormatter(LogFormat("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)
    announce(log)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    restrict_new_files()
    with passphrase_taken_from_environment():  # no child process inherits HEARTH_PASSPHRASE
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="hearth-desktop", description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="the data folder (default: HEARTH_HOME or the "
                                       "platform's data folder)")
    parser.add_argument("--theme", choices=("system", "light", "dark"), default="system")
    parser.add_argument("--quit-after", type=float, metavar="SECONDS",
                        help="quit by itself after this long (checking that a build starts)")
    args, qt_args = parser.parse_known_args(argv)
    log_to_stderr()
    app = make_application(qt_args)
    apply_scheme(app, args.theme)
    try:
        home = data_folder(startup_home(args.home))
        if not ask_to_unlock(home):
            return 1
        hearth = Hearth.open(home, check_now=True)  # a damaged database: said here, at once
    except HearthError as exc:
        log.error("%s %s", exc.message, exc.hint)
        QMessageBox.critical(None, "Hearth cannot open its data",
                             f"{exc.message}\n\n{exc.hint or ''}".strip())
        return 1
    log_to_data_folder(hearth.paths.home)
    desktop = DesktopApp(AppContext(hearth))
    if args.quit_after is not None:
        QTimer.singleShot(int(args.quit_after * 1000), desktop.quit)
    desktop.run(app)


if __name__ == "__main__":
    sys.exit(main())
