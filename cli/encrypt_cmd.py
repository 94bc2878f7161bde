"""``hearth encrypt`` / ``hearth decrypt``: convert the data folder, with a progress bar
(``core.operations.folder_lock``); the passphrase is asked as every command asks it
(``cli.context.ask_passphrase``)."""

from __future__ import annotations

from typing import Annotated

import typer

from cli import context, output
from cli.context import ask_passphrase
from cli.progress import progress_bar
from core.operations import folder_lock


def encrypt(use_keyring: Annotated[bool, typer.Option(
        "--keyring", help="Keep a random key in the system keyring instead of asking for a "
                          "passphrase.")] = False) -> None:
    """Encrypt the data folder (database, backups) with a passphrase or a keyring key."""
    paths = context.paths()
    passphrase = None
    source = folder_lock.protection(paths.home)
    needs_passphrase = (source == "passphrase" if source else not use_keyring)
    if needs_passphrase:
        passphrase = ask_passphrase("New passphrase for the data folder: ",
                                    confirm=source is None)
    with folder_lock.held_alone(paths.home), progress_bar("encrypting") as progress:
        converted = folder_lock.encrypt(context.settings(), paths, passphrase=passphrase,
                                        use_keyring=use_keyring, progress=progress)
    output.stdout.print(f"encrypted {paths.home} ({converted} database files converted)",
                        highlight=False, markup=False)
    if needs_passphrase:
        output.print_warning("Without this passphrase the data cannot be read by anyone, "
                             "you included: keep it somewhere safe.")


def decrypt() -> None:
    """Decrypt the data folder back to plain SQLite files (the passphrase is checked first:
    a wrong one changes nothing)."""
    paths = context.paths()
    passphrase = (ask_passphrase("Passphrase of the encrypted data folder: ")
                  if folder_lock.protection(paths.home) == "passphrase" else None)
    with folder_lock.held_alone(paths.home), progress_bar("decrypting") as progress:
        converted = folder_lock.decrypt(context.settings(), paths, passphrase=passphrase,
                                        progress=progress)
    output.stdout.print(f"decrypted {paths.home} ({converted} database files converted)",
                        highlight=False, markup=False)
