"""An encrypted data folder, for the window (``core.home.encryption``): whether it needs a
passphrase before it can be opened, unlocking it with one, and handing its key to a child
process the window starts (a dream, a reflection), which cannot ask the person itself.

The key travels to a child through ``multiprocessing``'s pipe (the arguments of a spawned
process are pickled over it), never on a command line or in the environment; and the
window's ``main`` takes ``HEARTH_PASSPHRASE`` out of its environment before anything starts
(``passphrase_taken_from_environment``), so no child inherits the passphrase either.
"""

from __future__ import annotations

from pathlib import Path

from core.errors import WrongPassphraseError
from core.home import encryption

__all__ = ["WrongPassphraseError", "child_key", "is_encrypted", "needs_passphrase",
           "passphrase_taken_from_environment", "unlock", "use_key"]

passphrase_taken_from_environment = encryption.passphrase_taken_from_environment
"""For the window's entry point: ``HEARTH_PASSPHRASE`` kept in this process, out of the
environment every child inherits (``core.home.encryption``)."""


def is_encrypted(home: Path) -> bool:
    """Whether ``home`` is an encrypted data folder (locked or not)."""
    return encryption.encrypted_folder(home / encryption.DATABASE) is not None


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
