"""An encrypted data folder: how it is marked, where its key comes from, and connecting to it.

A folder is encrypted when it holds ``encryption.json`` (``Marker``): it says that every
SQLite file in the folder or below it (the database, its write-ahead log, backups, copies
set aside by a restore) is a SQLCipher database, and how the key is obtained. It never
holds the key.

Two key sources:

* ``passphrase``: the key is derived from a passphrase with ``hashlib.scrypt`` and the salt
  in the marker, once per process, and given to SQLCipher as a raw key (``x'...'``).
  SQLCipher would also derive a key from a passphrase itself (PBKDF2, 256,000 rounds), but
  it does so on *every* connection: a pooled engine, each backup, verification and health
  check would pay ~0.1 s each. scrypt is also memory-hard, which PBKDF2 is not. The
  passphrase comes from ``HEARTH_PASSPHRASE`` (scripts, tests), the CLI's prompt, or the
  window's dialog (``unlock``).
* ``keyring``: a random 256-bit key kept in the system keyring (the ``keyring`` package:
  Secret Service on Linux), service ``Hearth``, the folder's path as the user name.

``unlock`` checks a key against the folder's database before keeping it, so a wrong
passphrase is one sentence (``WrongPassphraseError``) and nothing is opened or changed.
``key_for`` is what every connection to a file asks (``core.storage.sqlite.engine``):
None for a plain folder, the kept key, or a key found without asking (the keyring, the
environment), else ``PassphraseNeededError`` for the caller to ask the person.

SQLCipher's C library logs a failed decryption to stderr; ``connect`` turns that log off
(``cipher_log_level=NONE``), since the wrong passphrase is already said in a sentence.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from core.errors import (
    DatabaseError,
    InvalidInputError,
    PassphraseNeededError,
    WrongPassphraseError,
)

MARKER = "encryption.json"
PASSPHRASE_ENV = "HEARTH_PASSPHRASE"
KEYRING_SERVICE = "Hearth"
DATABASE = "hearth.db"
SQLITE_HEADER = b"SQLite format 3\x00"
KEY_BYTES = 32
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1
"""~32 MiB and ~0.1 s per derivation: costly to guess at, paid once per process."""
Source = Literal["passphrase", "keyring"]

_unlocked: dict[Path, str] = {}
_lock = threading.Lock()


@dataclass(frozen=True)
class Marker:
    """What ``encryption.json`` says: the key's source, and for a passphrase the salt and
    scrypt cost it is derived with."""

    source: Source
    salt: str = ""
    n: int = SCRYPT_N
    r: int = SCRYPT_R
    p: int = SCRYPT_P

    @classmethod
    def new(cls, source: Source) -> Marker:
        return cls(source, secrets.token_hex(16) if source == "passphrase" else "")

    def to_json(self) -> str:
        data: dict[str, Any] = {"encrypted": True, "cipher": "sqlcipher 4",
                                "key": self.source}
        if self.source == "passphrase":
            data["kdf"] = {"name": "scrypt", "salt": self.salt, "n": self.n, "r": self.r,
                           "p": self.p}
        return json.dumps(data, indent=2) + "\n"


def marker_path(home: Path) -> Path:
    return home / MARKER


def read_marker(home: Path) -> Marker | None:
    """The folder's marker, or None for a plain folder; a damaged one is a sentence."""
    path = marker_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise InvalidInputError(f"{path} cannot be read ({error}).",
                                "Put back the encryption.json this folder was encrypted "
                                "with; without it the database cannot be opened.") from error
    if data.get("key") == "keyring":
        return Marker("keyring")
    kdf = data.get("kdf") or {}
    if data.get("key") != "passphrase" or kdf.get("name") != "scrypt" or not kdf.get("salt"):
        raise InvalidInputError(f"{path} does not say how the key is obtained.",
                                "Put back the encryption.json this folder was encrypted "
                                "with.")
    return Marker("passphrase", str(kdf["salt"]), int(kdf["n"]), int(kdf["r"]),
                  int(kdf["p"]))


def write_marker(home: Path, marker: Marker) -> None:
    """Written to a temporary file, flushed and renamed: never half a marker."""
    path = marker_path(home)
    partial = path.with_name(path.name + ".partial")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(handle, marker.to_json().encode("utf-8"))
        os.fsync(handle)
    finally:
        os.close(handle)
    os.replace(partial, path)


def derive_key(passphrase: str, marker: Marker) -> str:
    """The raw key (hex) for ``passphrase`` under the marker's salt and cost."""
    if not passphrase:
        raise InvalidInputError("The passphrase is empty.", "Type a passphrase.")
    raw = hashlib.scrypt(passphrase.encode("utf-8"), salt=bytes.fromhex(marker.salt),
                         n=marker.n, r=marker.r, p=marker.p, dklen=KEY_BYTES,
                         maxmem=256 * marker.n * marker.r)
    return raw.hex()


def new_keyring_key(home: Path) -> str:
    """A random key, stored in the system keyring for ``home``."""
    import keyring
    from keyring.errors import KeyringError

    key = secrets.token_hex(KEY_BYTES)
    try:
        keyring.set_password(KEYRING_SERVICE, str(home.resolve()), key)
    except KeyringError as error:
        raise InvalidInputError(f"The system keyring cannot keep a key ({error}).",
                                "Nothing was changed; encrypt with a passphrase instead "
                                "(without --keyring).") from error
    return key


def _keyring_key(home: Path) -> str:
    import keyring
    from keyring.errors import KeyringError

    try:
        key = keyring.get_password(KEYRING_SERVICE, str(home.resolve()))
    except KeyringError as error:
        raise PassphraseNeededError(
            f"The data folder {home} is encrypted with a key kept in the system keyring, "
            f"which cannot be read ({error}).",
            "Unlock the keyring (log in to the desktop session) and try again.") from error
    if not key:
        raise PassphraseNeededError(
            f"The data folder {home} is encrypted with a key kept in the system keyring, "
            "and the keyring has none for it.",
            "Unlock the keyring (log in to the desktop session) and try again.")
    return key


def folder_key(home: Path, marker: Marker, passphrase: str | None) -> str:
    """The key ``marker`` says to use: from the keyring, or derived from ``passphrase``
    (``HEARTH_PASSPHRASE`` when None)."""
    if marker.source == "keyring":
        return _keyring_key(home)
    passphrase = passphrase if passphrase is not None else os.environ.get(PASSPHRASE_ENV)
    if not passphrase:
        raise PassphraseNeededError.at(home)
    return derive_key(passphrase, marker)


def unlock(home: Path, passphrase: str | None = None) -> None:
    """Keep the key of the encrypted folder ``home`` for this process, after checking it
    opens the folder's database. A plain folder needs nothing."""
    home = home.resolve()
    marker = read_marker(home)
    if marker is None:
        return
    key = folder_key(home, marker, passphrase)
    if not opens(home / DATABASE, key):
        raise WrongPassphraseError.at(home)
    with _lock:
        _unlocked[home] = key


def forget_keys() -> None:
    """Drop every kept key (a test, or a window that locks again)."""
    with _lock:
        _unlocked.clear()


def remember(home: Path, key: str | None) -> None:
    """Keep (or with None, drop) the key of ``home`` once a conversion set it."""
    with _lock:
        if key is None:
            _unlocked.pop(home.resolve(), None)
        else:
            _unlocked[home.resolve()] = key


def encrypted_folder(file: Path) -> Path | None:
    """The encrypted folder ``file`` lies in (its own folder or one above), or None."""
    for folder in file.absolute().parents:
        if marker_path(folder).is_file():
            return folder.resolve()
    return None


def key_for(file: Path) -> str | None:
    """The key of the SQLite file ``file``: None when it is in no encrypted folder."""
    home = encrypted_folder(file)
    if home is None:
        return None
    with _lock:
        key = _unlocked.get(home)
    if key is None:
        unlock(home)
        with _lock:
            key = _unlocked[home]
    return key


def is_locked(home: Path) -> bool:
    """Whether ``home`` is encrypted and this process has no key for it yet, nor can find
    one without asking (keyring, ``HEARTH_PASSPHRASE``): a window asks for a passphrase."""
    database = home / DATABASE
    if encrypted_folder(database) is None:
        return False
    try:
        key_for(database)
    except PassphraseNeededError:
        return True
    except WrongPassphraseError:
        return True  # a stale HEARTH_PASSPHRASE: the person types the right one
    return False


def connect(target: str, key: str | None, **kwargs: Any) -> Any:
    """A SQLCipher connection to ``target`` (a path or a ``file:`` URI with ``uri=True``),
    keyed with the raw ``key`` (hex) before anything else is read; None: a plain file."""
    import sqlcipher3

    connection = sqlcipher3.connect(target, **kwargs)
    try:
        connection.execute("PRAGMA cipher_log_level = NONE")
        if key is not None:
            bytes.fromhex(key)  # only hex digits ever reach the statement
            connection.execute(f"PRAGMA key = \"x'{key}'\"")
    except BaseException:
        connection.close()
        raise
    return connection


def opens(database: Path, key: str) -> bool:
    """Whether ``key`` decrypts ``database`` (a missing or empty one takes any key).

    Called before the database is opened in this process (reading its header with a
    plain ``open`` is then harmless: see ``core.storage.sqlite.engine``)."""
    if not database.is_file() or database.stat().st_size == 0:
        return True
    if is_plain(database):
        raise DatabaseError(
            f"{database} is not encrypted, but its folder says it should be: an "
            "encryption or decryption was cut short.",
            "Run `hearth encrypt` (or `hearth decrypt`) again to finish it.")
    import sqlcipher3

    connection = connect(f"{database.absolute().as_uri()}?mode=ro", key, uri=True)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlcipher3.DatabaseError as error:
        if "not a database" in str(error):
            return False
        raise
    finally:
        connection.close()
    return True


def is_plain(path: Path) -> bool:
    """Whether ``path`` is an unencrypted SQLite file: an encrypted one starts with its
    random salt, not SQLite's header."""
    with path.open("rb") as handle:
        return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def driver_errors() -> tuple[type[BaseException], ...]:
    """SQLCipher's DB-API error class, for code that translates driver errors."""
    import sqlcipher3

    return (sqlcipher3.Error,)
