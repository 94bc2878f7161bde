"""How many parameters a GGUF model file holds, read from the file itself.

Why read it rather than trust a name: what a model may do for Hearth (``core.llm.capability``)
depends on its size, and a file name ("my-model.gguf") says nothing reliable. GGUF lists
every tensor with its dimensions before the weights, so the count is exact and costs one
pass over the header (the tokenizer's vocabulary is the bulk of it: a few MB), never the
weights. Only what the count needs is parsed; every other metadata value is skipped.

Layout (GGUF v2 and v3, little-endian): magic ``GGUF``, version (u32), tensor count (u64),
metadata count (u64), the metadata key/value pairs, then per tensor its name, number of
dimensions (u32), the dimensions (u64 each), its type (u32) and offset (u64).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

MAGIC = b"GGUF"
SUPPORTED_VERSIONS = (2, 3)
_SCALARS: dict[int, int] = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
"""Metadata value types of a fixed size (bytes): the integers, floats and bool."""
_STRING, _ARRAY = 8, 9
MAX_DIMENSIONS = 8
"""GGML tensors have at most 4 dimensions; a larger number means the file is not GGUF."""


class GgufUnreadable(ValueError):
    """The file is not a GGUF file this reader understands (or is cut short)."""


def parameter_count(path: Path) -> int:
    """The number of parameters in the model file at ``path`` (the sum over its tensors of
    the product of their dimensions). Raises ``GgufUnreadable`` or ``OSError``."""
    with path.open("rb") as handle:
        if handle.read(4) != MAGIC:
            raise GgufUnreadable(f"{path.name} is not a GGUF file")
        version = _u32(handle)
        if version not in SUPPORTED_VERSIONS:
            raise GgufUnreadable(f"GGUF version {version} is not supported")
        tensors, entries = _u64(handle), _u64(handle)
        for _ in range(entries):
            _skip_string(handle)
            _skip_value(handle, _u32(handle))
        total = 0
        for _ in range(tensors):
            _skip_string(handle)
            dimensions = _u32(handle)
            if dimensions > MAX_DIMENSIONS:
                raise GgufUnreadable(f"a tensor with {dimensions} dimensions")
            size = 1
            for _ in range(dimensions):
                size *= _u64(handle)
            _read(handle, 12)  # type (u32) and offset (u64)
            total += size
        return total


def _read(handle: BinaryIO, size: int) -> bytes:
    data = handle.read(size)
    if len(data) != size:
        raise GgufUnreadable("the file ends inside its header")
    return data


def _u32(handle: BinaryIO) -> int:
    value: int = struct.unpack("<I", _read(handle, 4))[0]
    return value


def _u64(handle: BinaryIO) -> int:
    value: int = struct.unpack("<Q", _read(handle, 8))[0]
    return value


def _skip_string(handle: BinaryIO) -> None:
    handle.seek(_u64(handle), 1)


def _skip_value(handle: BinaryIO, kind: int) -> None:
    if kind in _SCALARS:
        handle.seek(_SCALARS[kind], 1)
    elif kind == _STRING:
        _skip_string(handle)
    elif kind == _ARRAY:
        item_kind, count = _u32(handle), _u64(handle)
        if item_kind in _SCALARS:
            handle.seek(_SCALARS[item_kind] * count, 1)
        else:
            for _ in range(count):
                _skip_value(handle, item_kind)
    else:
        raise GgufUnreadable(f"unknown metadata type {kind}")
