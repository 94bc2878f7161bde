"""What every command shares: the ``--home`` chosen on the command line, and opening it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.app import Hearth
from core.config import HearthPaths, Settings, load_settings, resolve_home


class State:
    home: Path | None = None


state = State()


def paths() -> HearthPaths:
    return HearthPaths(resolve_home(state.home))


def settings() -> Settings:
    return load_settings(paths())


@contextmanager
def opened() -> Iterator[Hearth]:
    with Hearth.open(state.home) as hearth:
        yield hearth
