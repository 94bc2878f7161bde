"""``hearth encrypt`` and ``hearth decrypt``: converting every SQLite file of a data folder.

The files are the database, every backup, and every database a restore set aside
(``database_files``). Encrypting writes the marker first (its salt fixes the key), then
converts file after file (``core.storage.factory.convert_database_file``: each replaced
only once its converted copy is checked); decrypting converts the files and removes the
marker last. So a conversion cut short (a crash, a full disk) leaves every file whole,
each either old or new, and running the same command again finishes it: files already
converted are recognised by their header and skipped.

Before anything changes, a copy of the database is taken beside it
(``hearth.db.before-encrypt``, in the database's current form) and removed only once
every file is converted and checked; if a conversion fails it stays, and the message says
where it is.

The ANN index files (``hearth.db.vector-index/``) hold an int8 copy of every vector,
from which text can be approximated: they are converted too, once the database files are
(``core.storage.factory.convert_derived_index_files``: sealed with AES-GCM under a subkey
of the folder's key, or opened again), each committed by its header only once written, so
a run cut short leaves each in one form or the other and the next run finishes it. One
that cannot be read is dropped and rebuilt from the rows by the next dream. The full-text
index folders (``hearth.db.text-index/``) hold every term in the clear and are not sealed:
encrypting deletes them, and FTS5 answers every text search in an encrypted folder.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from core.config import Settings
from core.home.paths import HearthPaths
from core.errors import InvalidInputError, WrongPassphraseError
from core.home import encryption
from core.storage.backups import list_backups
from core.storage.factory import convert_database_file, convert_derived_index_files

SAFETY_COPY = ".before-encrypt"
ASIDE = ".before-restore-"
Progress = Callable[[int, int], None]


def database_files(paths: HearthPaths) -> list[Path]:
    """Every SQLite file the folder keeps: the database, backups, databases set aside."""
    database = paths.database
    files = [database] if database.is_file() and database.stat().st_size else []
    files += [backup.path for backup in list_backups(paths, ".db")]
    files += sorted(path for path in paths.home.glob(f"{database.name}{ASIDE}*")
                    if path.is_file() and not path.name.endswith(("-wal", "-shm", "-journal")))
    return files


def encrypt_folder(settings: Settings, paths: HearthPaths, *, passphrase: str | None,
                   use_keyring: bool = False, progress: Progress = lambda _d, _t: None
                   ) -> int:
    """Encrypt the folder with a key derived from ``passphrase`` (or a new random key kept
    in the system keyring); returns how many files were converted. The caller holds the
    folder's exclusive lock."""
    _refuse_other_database(settings)
    marker = encryption.read_marker(paths.home)
    if marker is None:
        marker = encryption.Marker.new("keyring" if use_keyring else "passphrase")
        key = (encryption.new_keyring_key(paths.home) if use_keyring
               else encryption.derive_key(passphrase or "", marker))
        _safety_copy(paths)
        encryption.write_marker(paths.home, marker)
    else:  # finishing one cut short: the passphrase must open what is converted already
        key = encryption.folder_key(paths.home, marker, passphrase)
        _check_key(paths, key)
    converted = _convert_all(paths, key, plain_target=False, progress=progress)
    encryption.remember(paths.home, key)
    _remove_copy(_safety_path(paths))  # also the plain one an earlier, cut-short run took
    return converted


def decrypt_folder(settings: Settings, paths: HearthPaths, *, passphrase: str | None,
                   progress: Progress = lambda _d, _t: None) -> int:
    """Decrypt the folder (the passphrase must open it: a wrong one changes nothing);
    returns how many files were converted."""
    _refuse_other_database(settings)
    marker = encryption.read_marker(paths.home)
    if marker is None:
        raise InvalidInputError(f"The data folder {paths.home} is not encrypted.",
                                "Nothing to decrypt.")
    key = encryption.folder_key(paths.home, marker, passphrase)
    _check_key(paths, key)
    _safety_copy(paths)
    converted = _convert_all(paths, key, plain_target=True, progress=progress)
    encryption.marker_path(paths.home).unlink()
    encryption.remember(paths.home, None)
    _remove_copy(_safety_path(paths))
    if marker.source == "keyring":
        _drop_keyring_key(paths.home)
    return converted


def _convert_all(paths: HearthPaths, key: str, *, plain_target: bool,
                 progress: Progress) -> int:
    files = [file for file in database_files(paths)
             if encryption.is_plain(file) != plain_target]
    progress(0, len(files))
    for done, file in enumerate(files, start=1):
        if plain_target:
            convert_database_file(file, key, None)
        else:
            convert_database_file(file, None, key)
        progress(done, len(files))
    if plain_target:
        convert_derived_index_files(paths.database, key, None)
    else:
        convert_derived_index_files(paths.database, None, key)
    return len(files)


def _check_key(paths: HearthPaths, key: str) -> None:
    """Refuse a key that does not open the folder's encrypted files (any one of them)."""
    for file in database_files(paths):
        if not encryption.is_plain(file):
            if not encryption.opens(file, key):
                raise WrongPassphraseError.at(paths.home)
            return


def _safety_path(paths: HearthPaths) -> Path:
    return paths.database.with_name(paths.database.name + SAFETY_COPY)


def _safety_copy(paths: HearthPaths) -> None:
    """A copy of the database as it is now, kept until every file is converted."""
    database = paths.database
    if not database.is_file() or not database.stat().st_size:
        return
    copy = _safety_path(paths)
    _remove_copy(copy)
    shutil.copy2(database, copy)
    wal = database.with_name(database.name + "-wal")
    if wal.is_file() and wal.stat().st_size:
        shutil.copy2(wal, copy.with_name(copy.name + "-wal"))


def _remove_copy(copy: Path) -> None:
    for file in (copy, copy.with_name(copy.name + "-wal")):
        file.unlink(missing_ok=True)


def _drop_keyring_key(home: Path) -> None:
    """The key of a folder no longer encrypted is of no use: leave nothing behind."""
    import keyring

    if keyring.get_password(encryption.KEYRING_SERVICE, str(home.resolve())) is not None:
        keyring.delete_password(encryption.KEYRING_SERVICE, str(home.resolve()))


def _refuse_other_database(settings: Settings) -> None:
    if settings.database_url:
        raise InvalidInputError(
            "Encryption covers the data folder's own SQLite database, and this folder uses "
            "another database (database_url).",
            "Clear database_url to encrypt the folder, or encrypt that database's disk.")
