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
  window's dialog (``unlock``). The entry points take the variable out of the environment
  at start (``passphrase_taken_from_environment``): no child process inherits it. The
  marker's scrypt cost is bounded (``check_cost``) before anything is derived.
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
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
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
MAX_SCRYPT_N, MAX_SCRYPT_R, MAX_SCRYPT_P = 2**20, 32, 16
MAX_SCRYPT_MEMORY = 256 * 2**20
"""The most memory a marker may ask of scrypt (``128 * n * r``): 8 times what Hearth
writes. A marker is a file anyone with access to the folder can change; its cost is read
before the passphrase is even asked for."""
MAX_SCRYPT_WORK = 1024 * 2**20
"""The most work (``128 * n * r * p``, scrypt's memory passes) one key may cost: 32 times
what Hearth writes, a few seconds."""
MIN_SALT_BYTES, MAX_SALT_BYTES = 8, 64
MARKER_HINT = ("Put back the encryption.json this folder was encrypted with; without it "
               "the database cannot be opened.")
Source = Literal["passphrase", "keyring"]

_unlocked: dict[Path, str] = {}
_lock = threading.Lock()
_given: str | None = None
"""The passphrase an entry point took out of ``HEARTH_PASSPHRASE`` for its run."""


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
    """The folder's marker, or None for a plain folder; a damaged one, a missing or
    ill-typed field, or an scrypt cost beyond ``check_cost``'s bounds is a sentence naming
    the file and the field (``InvalidInputError``), before any key is derived."""
    path = marker_path(home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise InvalidInputError(f"{path} cannot be read ({error}).", MARKER_HINT) from error
    if not isinstance(data, dict):
        raise _bad_marker(path, "it does not hold a JSON object")
    if data.get("key") == "keyring":
        return Marker("keyring")
    if data.get("key") != "passphrase":
        raise _bad_marker(path, 'its "key" is neither "passphrase" nor "keyring"')
    kdf = data.get("kdf")
    if not isinstance(kdf, dict):
        raise _bad_marker(path, 'it has no "kdf" object saying how the key is derived')
    if kdf.get("name") != "scrypt":
        raise _bad_marker(path, '"kdf.name" is not "scrypt"')
    salt = kdf.get("salt")
    if not isinstance(salt, str) or not _is_hex(salt) or not (
            MIN_SALT_BYTES <= len(salt) // 2 <= MAX_SALT_BYTES):
        raise _bad_marker(path, f'"kdf.salt" is not {MIN_SALT_BYTES} to {MAX_SALT_BYTES} '
                                "bytes written in hexadecimal")
    cost: dict[str, int] = {}
    for field in ("n", "r", "p"):
        if field not in kdf:
            raise _bad_marker(path, f'"kdf.{field}" is missing')
        value = kdf[field]
        if not isinstance(value, int) or isinstance(value, bool):
            raise _bad_marker(path, f'"kdf.{field}" is not a whole number')
        cost[field] = value
    problem = check_cost(cost["n"], cost["r"], cost["p"])
    if problem:
        raise _bad_marker(path, problem)
    return Marker("passphrase", salt, cost["n"], cost["r"], cost["p"])


def _bad_marker(path: Path, problem: str) -> InvalidInputError:
    return InvalidInputError(f"{path} is not a valid encryption marker: {problem}.",
                             MARKER_HINT)


def _is_hex(text: str) -> bool:
    return re.fullmatch(r"(?:[0-9a-fA-F]{2})+", text) is not None


def scrypt_memory(n: int, r: int) -> int:
    """The bytes scrypt's working array takes for cost ``n`` and block size ``r``."""
    return 128 * n * r


def check_cost(n: int, r: int, p: int) -> str | None:
    """What is wrong with the scrypt cost (``n``, ``r``, ``p``), or None when it is within
    bounds: ``n`` a power of two from 2 to 2^20, ``r`` 1 to 32, ``p`` 1 to 16, at most
    ``MAX_SCRYPT_MEMORY`` of memory and ``MAX_SCRYPT_WORK`` of work in all (what Hearth
    writes, ``SCRYPT_N``/``R``/``P``, is 32 MiB, well within both). Checked before anything
    is allocated: a marker changed to ask for gigabytes is refused, not obeyed."""
    if not 2 <= n <= MAX_SCRYPT_N or n & (n - 1):
        return f'"kdf.n" is {n}, not a power of two from 2 to 2^{MAX_SCRYPT_N.bit_length() - 1}'
    if not 1 <= r <= MAX_SCRYPT_R:
        return f'"kdf.r" is {r}, not from 1 to {MAX_SCRYPT_R}'
    if not 1 <= p <= MAX_SCRYPT_P:
        return f'"kdf.p" is {p}, not from 1 to {MAX_SCRYPT_P}'
    memory = scrypt_memory(n, r)
    if memory > MAX_SCRYPT_MEMORY:
        return (f"its scrypt cost (n={n}, r={r}) would take {memory // 2**20} MiB of memory, "
                f"more than the {MAX_SCRYPT_MEMORY // 2**20} MiB Hearth allows")
    if memory * p > MAX_SCRYPT_WORK:
        return (f"its scrypt cost (n={n}, r={r}, p={p}) is more than {MAX_SCRYPT_WORK // 2**20} "
                "MiB of work, which Hearth does not spend on one key")
    return None


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
    problem = check_cost(marker.n, marker.r, marker.p)
    if problem:  # read_marker refuses it first; a Marker made in code is held to it too
        raise InvalidInputError(f"The encryption marker's key derivation is refused: "
                                f"{problem}.", MARKER_HINT)
    raw = hashlib.scrypt(passphrase.encode("utf-8"), salt=bytes.fromhex(marker.salt),
                         n=marker.n, r=marker.r, p=marker.p, dklen=KEY_BYTES,
                         maxmem=2 * scrypt_memory(marker.n, marker.r))
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


@contextmanager
def passphrase_taken_from_environment() -> Iterator[None]:
    """For an entry point (the ``hearth`` command, the window), around its whole run: take
    ``HEARTH_PASSPHRASE`` out of the environment and keep it in this module instead, so
    that no process Hearth starts inherits it (a dream's child, ``pg_dump``, ``notify-send``,
    whatever a library starts). A child that needs the folder's key is given the key itself
    over a pipe (``core.operations.folder_lock.child_key``). At the end the variable is put
    back, for a caller in the same process (a test); a real process has ended by then."""
    global _given
    previous = _given
    taken = os.environ.pop(PASSPHRASE_ENV, None)
    _given = taken or None
    try:
        yield
    finally:
        _given = previous
        if taken is not None and PASSPHRASE_ENV not in os.environ:
            os.environ[PASSPHRASE_ENV] = taken


def given_passphrase() -> str | None:
    """The passphrase given for a script: the one the entry point took out of
    ``HEARTH_PASSPHRASE``, else the variable itself (Hearth used as a library)."""
    return _given or os.environ.get(PASSPHRASE_ENV) or None


def environment_for_child() -> dict[str, str]:
    """This process's environment without ``HEARTH_PASSPHRASE``: what a program Hearth
    runs (``pg_dump``, ``notify-send``) is given, also when Hearth is used as a library and
    no entry point took the variable out."""
    return {name: value for name, value in os.environ.items() if name != PASSPHRASE_ENV}


def folder_key(home: Path, marker: Marker, passphrase: str | None) -> str:
    """The key ``marker`` says to use: from the keyring, or derived from ``passphrase``
    (the given one, ``given_passphrase``, when None)."""
    if marker.source == "keyring":
        return _keyring_key(home)
    passphrase = passphrase if passphrase is not None else given_passphrase()
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
