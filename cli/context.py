"""What every command shares: the ``--home`` chosen on the command line, and opening it.

An encrypted folder's passphrase comes from ``HEARTH_PASSPHRASE`` when set (scripts,
tests; ``run`` takes it out of the environment at start, so no child process inherits it),
otherwise from a prompt on the terminal (``getpass``: nothing is echoed, nothing
is kept in the shell's history). Without a terminal and without the variable, a command
says the folder needs its passphrase instead of waiting for input that cannot come.
"""

from __future__ import annotations

import getpass
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import InvalidInputError, PassphraseNeededError
from core.operations import folder_lock

if TYPE_CHECKING:  # imported where used: `hearth --help` needs neither the engine nor settings
    from core.app import Hearth
    from core.config import Settings
    from core.operations.folder import HearthPaths


class State:
    home: Path | None = None


state = State()


def paths() -> HearthPaths:
    from core.operations.folder import folder_paths

    return folder_paths(state.home)


def settings() -> Settings:
    from core.config import load_settings

    return load_settings(paths())


@contextmanager
def opened(*, only_reads: bool = False) -> Iterator[Hearth]:
    """The data folder, opened. ``only_reads``: the command changes nothing, so a folder
    this process cannot write is opened read-only instead of refused."""
    from core.app import Hearth

    unlock_folder()
    read_only = only_reads and not paths().writable()
    with Hearth.open(state.home, read_only=read_only) as hearth:
        yield hearth


def ask_passphrase(prompt: str, *, confirm: bool = False) -> str:
    """The passphrase from ``HEARTH_PASSPHRASE``, or typed (twice when ``confirm``)."""
    given = folder_lock.given_passphrase()
    if given:
        return given
    if not sys.stdin.isatty():
        raise PassphraseNeededError(
            f"Hearth needs a passphrase for the data folder {paths().home}, and there is "
            "no terminal to ask for it on.",
            f"Set {folder_lock.PASSPHRASE_ENV} for a script.")
    passphrase = getpass.getpass(prompt)
    if not passphrase:
        raise InvalidInputError("The passphrase is empty.", "Type a passphrase.")
    if confirm and getpass.getpass("Type it again: ") != passphrase:
        raise InvalidInputError("The two passphrases differ.", "Nothing was changed; try "
                                "again.")
    return passphrase


def unlock_folder() -> None:
    """Make the data folder's key known before it is opened: found without asking (the
    keyring, ``HEARTH_PASSPHRASE``) or asked for on the terminal."""
    home = paths().home
    if not folder_lock.needs_passphrase(home):
        return
    folder_lock.unlock(home, ask_passphrase("Passphrase of the encrypted data folder: "))
