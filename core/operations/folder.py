"""The data folder itself, before anything opens it, for the front ends: where it is, and
keeping it private (``core.home.paths``, ``core.home.private_files``).

Light on purpose: every ``hearth`` command resolves and secures the folder first, and
``hearth --help`` imports this module, so it loads neither settings nor the engine.
"""

from __future__ import annotations

from pathlib import Path

from core.home.paths import HearthPaths, resolve_home
from core.home.private_files import restrict_new_files, secure_home

__all__ = ["HearthPaths", "folder_paths", "restrict_new_files", "secure_home"]


def folder_paths(home: Path | None) -> HearthPaths:
    """Where the data folder ``home`` keeps each of its files (None: ``$HEARTH_HOME`` or
    the platform's user data folder)."""
    return HearthPaths(resolve_home(home))
