"""An encrypted data folder, for the front ends (``core.home.encryption``): whether it needs
a passphrase before it can be opened, unlocking it with one, handing its key to a child
process the window starts (a dream, a reflection), which cannot ask the person itself, and
turning the folder's encryption on and off (``hearth encrypt``, ``hearth decrypt``).

The key travels to a child through ``multiprocessing``'s pipe (the arguments of a spawned
process are pickled over it), never on a command line or in the environment; and each
entry point takes ``HEARTH_PASSPHRASE`` out of its environment before anything starts
(``passphrase_taken_from_environment``), so no child inherits the passphrase either.

Light on purpose (the engine is imported only by what converts a folder): ``hearth --help``
imports this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import WrongPassphraseError
from core.home import encryption
from core.home.encryption import PASSPHRASE_ENV

if TYPE_CHECKING:
    from core.config import Settings
    from core.home.paths import HearthPaths

__all__ = ["PASSPHRASE_ENV", "WrongPassphraseError", "child_key", "decrypt", "encrypt",
           "environment_for_child", "forget_keys", "given_passphrase", "held_alone",
           "is_encrypted", "needs_passphrase", "passphrase_taken_from_environment",
           "protection", "unlock", "use_key"]

passphrase_taken_from_environment = encryption.passphrase_taken_from_environment
"""For an entry point: ``HEARTH_PASSPHRASE`` kept in this process, out of the environment
every child inherits (``core.home.encryption``)."""
given_passphrase = encryption.given_passphrase
"""The passphrase given for a script (``HEARTH_PASSPHRASE``), or None."""
environment_for_child = encryption.environment_for_child
"""This process's environment without ``HEARTH_PASSPHRASE``, for a program Hearth runs."""
forget_keys = encryption.forget_keys
"""Drop every folder key this process kept (an entry point's run is over)."""

Progress = Callable[[int, int], None]
"""``(files converted, files in all)``."""


def is_encrypted(home: Path) -> bool:
    """Whether ``home`` is an encrypted data folder (locked or not)."""
    return encryption.encrypted_folder(home / encryption.DATABASE) is not None


def protection(home: Path) -> str | None:
    """Where the key of the encrypted folder ``home`` comes from: ``"passphrase"`` or
    ``"keyring"``; None for a plain folder."""
    marker = encryption.read_marker(home)
    return None if marker is None else marker.source


def needs_passphrase(home: Path) -> bool:
    """Whether ``home`` is encrypted and its key is neither known to this process nor found
    without asking (the keyring, ``HEARTH_PASSPHRASE``)."""
    return encryption.is_locked(home)


def unlock(home: Path, passphrase: str) -> None:
    """Check ``passphrase`` against ``home`` and keep its key for this process; raises
    ``WrongPassphraseError`` (one sentence) and keeps nothing when it does not open it."""
    encryption.unlock(home, passphrase)


def child_key(home: Path) -> str | None:
    """The key a child process needs to open ``home`` (None for a plain folder)."""
    return encryption.key_for(home / encryption.DATABASE)


def use_key(home: Path, key: str | None) -> None:
    """In a child process: the key its parent already checked."""
    if key is not None:
        encryption.remember(home, key)


# --- converting the folder ---------------------------------------------------------------------


@contextmanager
def held_alone(home: Path) -> Iterator[None]:
    """The data folder ``home`` held by this process alone: no window, daemon or other
    command has it open meanwhile, and one that tries is refused at once (as is this one
    when another holds it). What rewrites the folder's database runs inside."""
    from core.home.instance_lock import FolderLock

    with FolderLock(home, exclusive=True):
        yield


def encrypt(settings: Settings, paths: HearthPaths, *, passphrase: str | None,
            use_keyring: bool = False, progress: Progress = lambda _d, _t: None) -> int:
    """Encrypt the folder (database, backups) with a key derived from ``passphrase``, or a
    new random key kept in the system keyring; how many files were converted. Inside
    ``held_alone``."""
    from core.storage.folder_cipher import encrypt_folder

    return encrypt_folder(settings, paths, passphrase=passphrase, use_keyring=use_keyring,
                          progress=progress)


def decrypt(settings: Settings, paths: HearthPaths, *, passphrase: str | None,
            progress: Progress = lambda _d, _t: None) -> int:
    """Decrypt the folder back to plain SQLite files (a wrong passphrase changes nothing);
    how many files were converted. Inside ``held_alone``."""
    from core.storage.folder_cipher import decrypt_folder

    return decrypt_folder(settings, paths, passphrase=passphrase, progress=progress)
