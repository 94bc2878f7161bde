"""A forgotten value in raw files: finding its bytes, and masking it in logs.

A database file keeps more than its rows: a page freed or a cell overwritten keeps its old
bytes until something writes over them, and a backup copies every page. So whether a file
still holds a value is answered from its bytes, not only from its tables. The search is
case-insensitive and whole-word, like the matching rule (``core.forgetting.matching``),
reading a few megabytes at a time.

Logs are masked in place: each match is overwritten by as many ``*`` as it has bytes, so a
process still appending to the log (the daemon) loses nothing and the file never shrinks
under it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from core.forgetting.matching import ValueMatcher

log = logging.getLogger(__name__)

CHUNK_BYTES = 8 * 1024 * 1024
MASK = b"*"


def _is_word_byte(byte: int) -> bool:
    """An ASCII letter or digit (a byte of a multi-byte character counts as a boundary)."""
    return byte < 128 and chr(byte).isalnum()


def _whole_word_at(data: bytes, start: int, form: bytes) -> bool:
    before_ok = (start == 0 or not _is_word_byte(form[0])
                 or not _is_word_byte(data[start - 1]))
    end = start + len(form)
    after_ok = end >= len(data) or not _is_word_byte(form[-1]) or not _is_word_byte(data[end])
    return before_ok and after_ok


def _holds(data: bytes, forms: Sequence[bytes]) -> bool:
    """Whether lower-cased ``data`` contains one of ``forms`` as a whole word."""
    for form in forms:
        start = data.find(form)
        while start != -1:
            if _whole_word_at(data, start, form):
                return True
            start = data.find(form, start + 1)
    return False


def file_holds(path: Path, matcher: ValueMatcher) -> bool:
    """Whether the bytes of ``path`` contain one of the matcher's values (any case)."""
    forms = matcher.byte_forms()
    if not forms or not path.is_file():
        return False
    overlap = max(len(form) for form in forms) + 1
    with path.open("rb") as handle:
        tail = b""
        while chunk := handle.read(CHUNK_BYTES):
            data = tail + chunk.lower()
            if _holds(data, forms):
                return True
            tail = data[-overlap:]
    return False


def files_holding(paths: Iterable[Path], matcher: ValueMatcher) -> list[Path]:
    return [path for path in paths if file_holds(path, matcher)]


def mask_in_logs(folder: Path, matcher: ValueMatcher) -> tuple[int, list[Path]]:
    """Overwrite the values in every file under ``folder`` in place; returns how many files
    changed and those that could not be read or written (the caller says so). A log is
    UTF-8 text; undecodable bytes are kept as they are."""
    if not matcher or not folder.is_dir():
        return 0, []
    masked, failed = 0, []
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        try:
            masked += _mask_file(path, matcher)
        except OSError:
            log.warning("could not mask a forgotten value in %s", path, exc_info=True)
            failed.append(path)
    return masked, failed


def _mask_file(path: Path, matcher: ValueMatcher) -> bool:
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    spans = matcher.spans(text)
    if not spans:
        return False
    with path.open("r+b") as handle:
        offset, position = 0, 0
        for start, end in spans:
            offset += len(text[position:start].encode("utf-8", "surrogateescape"))
            length = len(text[start:end].encode("utf-8", "surrogateescape"))
            handle.seek(offset)
            handle.write(MASK * length)
            offset += length
            position = end
    return True
