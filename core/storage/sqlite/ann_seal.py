"""Sealing a vector index file of an encrypted data folder: AES-256-GCM under a subkey.

Why
---
An index file (``core.storage.sqlite.ann``) holds an int8 copy of every memory's vector,
and embeddings can be inverted to approximate text: in an encrypted folder the files must
be as unreadable as the database. SQLCipher encrypts only SQLite pages, so the index is
sealed here, whole, with authenticated encryption from the ``cryptography`` package
(AES-GCM: a changed byte, a file of another table or one sealed under another key fails
to open, rather than feeding garbage to usearch's loader).

The key is not the database's own: a separate 256-bit subkey is derived from SQLCipher's
raw key with HKDF-SHA256 (``subkey``), so the same key never serves two ciphers. Each
file gets a fresh random 96-bit nonce (a file is written once, under a fresh name, and
never changed in place), and its name is the associated data: a sealed file renamed to
pose as another table's fails to open.

A sealed file starts with ``MAGIC``, which no usearch file does (a usearch file starts
with its vector count), so either form is recognised by its first bytes alone.
"""

from __future__ import annotations

import os

MAGIC = b"HEARTH-ANN-AESGCM-1\n"
NONCE_BYTES = 12
_INFO = b"hearth vector index v1"


class SealError(ValueError):
    """The bytes are not a file sealed with this key under this name (tampered, another
    key, another file, or a plain file where a sealed one belongs)."""


def subkey(database_key: str) -> bytes:
    """The index key of a folder whose SQLCipher key is ``database_key`` (hex)."""
    from cryptography.hazmat.primitives.hashes import SHA256
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=SHA256(), length=32, salt=None,
                info=_INFO).derive(bytes.fromhex(database_key))


def is_sealed(data: bytes) -> bool:
    """Whether ``data`` (a file's bytes, or at least its first ``len(MAGIC)``) is sealed."""
    return data[:len(MAGIC)] == MAGIC


def seal(plain: bytes, key: bytes, name: str) -> bytes:
    """``plain`` encrypted and authenticated under ``key``, bound to the file ``name``."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    nonce = os.urandom(NONCE_BYTES)
    return MAGIC + nonce + AESGCM(key).encrypt(nonce, plain, MAGIC + name.encode())


def unseal(data: bytes, key: bytes, name: str) -> bytes:
    """The plain bytes ``seal`` sealed; ``SealError`` if they are not what it wrote."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if not is_sealed(data):
        raise SealError(f"{name} is not encrypted, but its folder is")
    view = memoryview(data)  # slices without copying a file of tens of megabytes
    nonce = bytes(view[len(MAGIC):len(MAGIC) + NONCE_BYTES])
    try:
        return AESGCM(key).decrypt(nonce, view[len(MAGIC) + NONCE_BYTES:],
                                   MAGIC + name.encode())
    except InvalidTag as error:
        raise SealError(f"{name} does not open with the folder's key (changed, or "
                        "sealed under another key)") from error
