"""What every test must leave as it found it, checked by the autouse fixtures in
``tests/conftest.py`` (see "Test hygiene" in ``docs/testing.md``).

Qt is looked up in ``sys.modules`` rather than imported: a ``core`` test never loads Qt, and
these checks have nothing to do until a desktop test has.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any


def qt_application() -> Any | None:
    """The running ``QApplication``, or None when no test has made one."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    return None if widgets is None else widgets.QApplication.instance()


def top_level_widgets() -> list[Any]:
    """Every top-level widget alive now (none without a ``QApplication``)."""
    app = qt_application()
    return [] if app is None else list(app.topLevelWidgets())


def stray_widgets(before: list[Any]) -> list[str]:
    """The top-level widgets alive now that were not in ``before``, described, after the
    deletions the test asked for (``deleteLater``) have been carried out."""
    app = qt_application()
    if app is None:
        return []
    from PySide6.QtCore import QCoreApplication, QEvent

    app.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    known = {id(widget) for widget in before}
    return [f"{type(widget).__name__} {widget.objectName() or widget.windowTitle()!r}"
            f" (visible: {widget.isVisible()})"
            for widget in app.topLevelWidgets() if id(widget) not in known]


def redirect_user_folders(root: Path) -> dict[str, str]:
    """HOME and the XDG configuration, data, state and cache folders below ``root`` (made
    here): the environment variables to set so that nothing reads the real user's."""
    folders = {"HOME": root / "home", "XDG_CONFIG_HOME": root / "config",
               "XDG_DATA_HOME": root / "data", "XDG_STATE_HOME": root / "state",
               "XDG_CACHE_HOME": root / "cache"}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return {name: str(folder) for name, folder in folders.items()}


def redirect_qsettings(folder: Path) -> None:
    """Every ``QSettings`` file (INI and native, user and system scope) below ``folder``,
    when Qt is loaded; ``QSettings`` caches its folders, so the environment alone is not
    enough once a settings object was made."""
    if "PySide6.QtCore" not in sys.modules:
        return
    from PySide6.QtCore import QSettings

    for fmt in (QSettings.Format.IniFormat, QSettings.Format.NativeFormat):
        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            QSettings.setPath(fmt, scope, str(folder / scope.name))


class CliState:
    """What a CLI run in the test's process changes process-wide: the umask
    (``restrict_new_files``), the handlers on the ``core`` logger (the log file, the
    notices) and its level. ``restore`` puts back what ``__init__`` saw."""

    def __init__(self) -> None:
        self._umask = os.umask(0)
        os.umask(self._umask)
        logger = logging.getLogger("core")
        self._handlers = list(logger.handlers)
        self._level = logger.level

    def restore(self) -> list[str]:
        """Undo the changes; returns the handlers that were left behind, described."""
        os.umask(self._umask)
        logger = logging.getLogger("core")
        logger.setLevel(self._level)
        left = [handler for handler in logger.handlers if handler not in self._handlers]
        for handler in left:
            logger.removeHandler(handler)
            handler.close()
        return [type(handler).__name__ for handler in left]
