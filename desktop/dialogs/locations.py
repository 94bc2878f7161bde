"""Which data folder the desktop app opens, chosen in the settings.

The choice cannot live in ``settings.json``, because that file is inside the data folder it
would point to; it is kept in the desktop's own per-user preferences (``QSettings``, an INI
file under the platform's configuration folder) and read once at start-up, so a new folder
is used from the next start. Nothing is moved: the old folder stays as it was.

Precedence at start-up (``startup_home``): ``--home`` on the command line, then the
``HEARTH_HOME`` environment variable, then the folder chosen here, then the platform's
default (``core.config.resolve_home``).
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings

DATA_FOLDER_KEY = "locations/data_folder"


def _preferences() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Hearth", "Hearth")


def chosen_home() -> Path | None:
    """The data folder chosen in the settings, or None for the default."""
    value = _preferences().value(DATA_FOLDER_KEY, "")
    return Path(str(value)) if value else None


def choose_home(folder: Path | None) -> None:
    """Use ``folder`` from the next start (None: back to the default)."""
    preferences = _preferences()
    if folder is None:
        preferences.remove(DATA_FOLDER_KEY)
    else:
        preferences.setValue(DATA_FOLDER_KEY, str(folder))
    preferences.sync()


def overridden_by() -> str | None:
    """What makes the chosen folder irrelevant in this run's environment, if anything."""
    return "the HEARTH_HOME environment variable" if os.environ.get("HEARTH_HOME") else None


def startup_home(command_line: str | None) -> Path | str | None:
    """What ``Hearth.open`` should get (see the module docstring for the order)."""
    if command_line:
        return command_line
    if overridden_by() is not None:
        return None  # resolve_home reads HEARTH_HOME itself
    return chosen_home()


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot hold Hearth's data, or None. A missing folder is fine when its
    parent is writable (Hearth creates it at start)."""
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a folder."
    existing = folder if folder.exists() else next(
        (parent for parent in folder.parents if parent.exists()), None)
    if existing is None or not os.access(existing, os.W_OK | os.X_OK):
        return f"Hearth cannot write in {existing or folder}."
    return None
