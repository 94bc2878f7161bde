"""Text and files that come from a person, checked at the door.

Two things can reach Hearth that Python reads without complaint but that break much later,
deep in SQLite or a tokenizer, as a traceback:

* **text that is not Unicode.** On Linux a command-line argument or a line of stdin is
  bytes; bytes that are not UTF-8 (``caf\\xe9`` typed in a Latin-1 terminal) arrive as
  *surrogate escapes* (``\\udce9``), and a JSON file can spell a lone surrogate
  (``"\\ud800"``) outright. Neither can be stored or encoded.
* **JSON that Python cannot hold**: nesting deep enough to exhaust the interpreter's
  recursion limit, integers longer than its 4,300-digit conversion limit, ``NaN``.

The rule, applied here and nowhere else: Hearth does not guess what unreadable bytes meant.
Where the person can simply try again (a command-line argument, a file), the input is
refused with a sentence that says where the problem is, and nothing is stored. In a chat,
where the line is one message of a conversation in flight, the unreadable bytes become
U+FFFD (�) and the caller says so (:func:`replace_unreadable`).
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from core.errors import InvalidInputError

MAX_JSON_NESTING = 100
"""Deeper JSON is refused: no file Hearth reads or writes nests beyond a dozen levels, and
data this deep could exhaust the recursion limit wherever it is serialised again."""

REPLACEMENT = "\ufffd"
ENCODING_HINT = ("Hearth reads UTF-8: set your terminal (or the program the text comes "
                 "from) to UTF-8, for example LANG=C.UTF-8, and try again.")
FILE_ENCODING_HINT = ("Save the file as UTF-8 (in most editors: Save As, then Encoding) "
                      "and try again.")

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_CONTEXT_CHARS = 20


# --- text -----------------------------------------------------------------------------


FORGOTTEN = "[forgotten]"
"""What an erase leaves in place of the words it removed (``core.forgetting``): text that
holds it is never taken as a value the user gave (a fact "I live in [forgotten]")."""

def unreadable_part(text: str, *, decoded: bool = True) -> str | None:
    """Where ``text`` stops being Unicode, in words (``byte 0xE9 after 'caf'``), or None.

    In ``decoded`` bytes (argv, stdin) a surrogate U+DC80..U+DCFF stands for one byte that
    was not UTF-8; any other surrogate (and every one in parsed JSON, where only a ``\\u``
    escape can make one) is half of a UTF-16 pair that lost its other half.
    """
    match = _SURROGATE.search(text)
    if match is None:
        return None
    code = ord(match.group())
    what = (f"byte 0x{code - 0xDC00:02X}" if decoded and 0xDC80 <= code <= 0xDCFF
            else f"a lone surrogate (U+{code:04X})")
    before = text[:match.start()][-_CONTEXT_CHARS:]
    return f"{what} after {before!r}" if before else f"{what} at the start"


def readable_text(text: str, what: str, hint: str = ENCODING_HINT) -> str:
    """``text`` unchanged, or :class:`InvalidInputError` naming ``what`` and the bad spot."""
    problem = unreadable_part(text)
    if problem is not None:
        raise InvalidInputError(f"{what} is not valid UTF-8 text: {problem} cannot be read.",
                                hint)
    return text


def replace_unreadable(text: str) -> tuple[str, int]:
    """``text`` with each unreadable character replaced by U+FFFD, and how many there were."""
    return _SURROGATE.subn(REPLACEMENT, text)


# --- files ----------------------------------------------------------------------------


def read_text_file(path: Path) -> str:
    """The text of a file the user named, as UTF-8 (a byte-order mark is dropped; UTF-16
    with a BOM, which Windows tools write, is read too), or a sentence naming the file."""
    return decode_text(_read_bytes(path), str(path))


def decode_text(data: bytes, name: str) -> str:
    """A file's bytes as text, read as :func:`read_text_file` reads them, or a sentence
    naming it as ``name`` (for bytes read some other way than by path)."""
    encoding = "utf-16" if data.startswith(_UTF16_BOMS) else "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start:exc.start + 1].hex().upper()
        raise InvalidInputError(
            f"{name} is not {'UTF-16' if encoding == 'utf-16' else 'UTF-8'} text "
            f"(byte 0x{byte} on line {line} cannot be read).", FILE_ENCODING_HINT) from exc


def load_json_file(path: Path, hint: str) -> Any:
    """Parse a JSON file the user named; every way it can be unreadable becomes one
    :class:`InvalidInputError` naming the file (``hint`` says what the file should be)."""
    text = read_text_file(path)
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}).",
            hint) from exc
    except _NotJson as exc:
        raise InvalidInputError(f"{path} is not valid JSON ({exc}).", hint) from exc
    except RecursionError as exc:
        raise InvalidInputError(f"{path} nests lists or objects too deeply to be read.",
                                hint) from exc
    except ValueError as exc:  # json's only other ValueError: int() refusing the length
        raise InvalidInputError(
            f"{path} holds a number longer than {sys.get_int_max_str_digits():,} digits.",
            hint) from exc
    _check_json_data(path, text, data, hint)
    return data


def open_binary_file(path: Path) -> BinaryIO:
    """A file the user named, open for reading bytes (for a file too large to read whole),
    or a sentence naming the file."""
    with _open_errors_explained(path):
        return path.open("rb")


def _read_bytes(path: Path) -> bytes:
    with _open_errors_explained(path):
        return path.read_bytes()


@contextmanager
def _open_errors_explained(path: Path) -> Iterator[None]:
    """Each way a named file cannot be opened, as one sentence naming it."""
    try:
        yield
    except FileNotFoundError as exc:
        raise InvalidInputError(f"{path} does not exist.", "Check the file name.") from exc
    except IsADirectoryError as exc:
        raise InvalidInputError(f"{path} is a folder, not a file.",
                                "Give the path of the file itself.") from exc
    except PermissionError as exc:
        raise InvalidInputError(f"Hearth may not read {path}.",
                                "Check the file's permissions.") from exc
    except OSError as exc:
        raise InvalidInputError(f"Cannot read {path}: {exc.strerror or exc}.",
                                "Check the path.") from exc


class _NotJson(ValueError):
    """``NaN``, ``Infinity``: Python's json reads them, JSON does not have them."""


def _refuse_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON value")


def _check_json_data(path: Path, text: str, data: Any, hint: str) -> None:
    """What parsing accepts but nothing after it can use: deep nesting, lone surrogates."""
    if nesting_depth(data) > MAX_JSON_NESTING:
        raise InvalidInputError(
            f"{path} nests lists or objects more than {MAX_JSON_NESTING} levels deep.", hint)
    if not _ESCAPED_SURROGATE.search(text):
        return  # a lone surrogate can only come from a \uD8xx..\uDFxx escape
    for where, value in _strings(data):
        problem = unreadable_part(value, decoded=False)
        if problem is not None:
            raise InvalidInputError(f"{path}: {where} is not valid text: {problem}.",
                                    "Fix or remove that \\u escape; JSON text must be Unicode.")


def _strings(data: Any) -> Iterator[tuple[str, str]]:
    """Every key and string value with its position (``sessions[2].turns[0].text``), in
    file order; iterative, so the depth of the data does not matter."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, str):
            yield where or "the top level", node
        elif isinstance(node, dict):
            prefix = f"{where}." if where else ""
            yield from ((f"a key of {where or 'the top level'}", key) for key in node)
            stack.extend(reversed([(prefix + key, value) for key, value in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(f"{where}[{index}]", item)
                                   for index, item in enumerate(node)]))


def nesting_depth(data: Any) -> int:
    """How deeply containers nest in ``data`` (0 for a scalar); iterative, so never deep."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            children = list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest
