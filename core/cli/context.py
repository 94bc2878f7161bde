"""What every command shares: the ``--home`` chosen on the command line, and opening it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: `hearth --help` needs neither the engine nor settings
    from core.app import Hearth
    from core.config import HearthPaths, Settings


class State:
    home: Path | None = None


state = State()


def paths() -> HearthPaths:
    from core.config import HearthPaths, resolve_home

    return HearthPaths(resolve_home(state.home))


def settings() -> Settings:
    from core.config import load_settings

    return load_settings(paths())


@contextmanager
def opened(*, only_reads: bool = False) -> Iterator[Hearth]:
    """The data folder, opened. ``only_reads``: the command changes nothing, so a folder
    this process cannot write is opened read-only instead of refused."""
    from core.app import Hearth

    read_only = only_reads and not paths().writable()
    with Hearth.open(state.home, read_only=read_only) as hearth:
        yield hearth
