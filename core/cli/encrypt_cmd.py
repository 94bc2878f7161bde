"""``hearth encrypt`` / ``hearth decrypt``: convert the data folder, with a progress bar
(``core.storage.folder_cipher``); the passphrase is asked as every command asks it
(``core.cli.context.ask_passphrase``)."""

from __future__ import annotations

from typing import Annotated

import typer

from core.cli import context, output
from core.cli.context import ask_passphrase
from core.cli.progress import progress_bar
from core.home import encryption


def encrypt(use_keyring: Annotated[bool, typer.Option(
        "--keyring", help="Keep a random key in the system keyring instead of asking for a "
                          "passphrase.")] = False) -> None:
    """Encrypt the data folder (database, backups) with a passphrase or a keyring key."""
    from core.storage.folder_cipher import encrypt_folder
    from core.home.instance_lock import FolderLock

    paths = context.paths()
    passphrase = None
    marker = encryption.read_marker(paths.home)
    needs_passphrase = (marker.source == "passphrase" if marker else not use_keyring)
    if needs_passphrase:
        passphrase = ask_passphrase("New passphrase for the data folder: ",
                                    confirm=marker is None)
    with FolderLock(paths.home, exclusive=True), progress_bar("encrypting") as progress:
        converted = encrypt_folder(context.settings(), paths, passphrase=passphrase,
                                   use_keyring=use_keyring, progress=progress)
    output.stdout.print(f"encrypted {paths.home} ({converted} database files converted)",
                        highlight=False, markup=False)
    if needs_passphrase:
        output.print_warning("Without this passphrase the data cannot be read by anyone, "
                             "you included: keep it somewhere safe.")


def decrypt() -> None:
    """Decrypt the data folder back to plain SQLite files (the passphrase is checked first:
    a wrong one changes nothing)."""
    from core.storage.folder_cipher import decrypt_folder
    from core.home.instance_lock import FolderLock

    paths = context.paths()
    marker = encryption.read_marker(paths.home)
    passphrase = (ask_passphrase("Passphrase of the encrypted data folder: ")
                  if marker is not None and marker.source == "passphrase" else None)
    with FolderLock(paths.home, exclusive=True), progress_bar("decrypting") as progress:
        converted = decrypt_folder(context.settings(), paths, passphrase=passphrase,
                                   progress=progress)
    output.stdout.print(f"decrypted {paths.home} ({converted} database files converted)",
                        highlight=False, markup=False)
