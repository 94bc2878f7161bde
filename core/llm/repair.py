"""Turning what a language model wrote into JSON data, or a clear refusal.

Models asked for JSON, small local ones especially, wrap it in code fences, talk around it
("Sure! Here is the JSON: ..."), leave trailing commas, write Python literals, run out of
tokens half-way through a list, and stringify nested values (``{"facts": "[{\\"key\\"..."}``).
Each of those is repaired here, in one place, before anything is validated; what cannot be
repaired raises :class:`RepairFailed` with a reason that is fed back to the model on retry.

Order of attempts, for each candidate text (the contents of code fences first, then the
whole output):

1. the whole text as strict JSON (also catches a JSON string holding JSON);
2. each balanced ``{...}`` / ``[...]`` span, outermost first: strict JSON, then quotes
   straightened when that is unambiguous, then a Python literal (``ast.literal_eval``), then
   syntax repair by the ``json_repair`` library in its *strict* mode (missing commas,
   unquoted keys, comments, trailing commas; it refuses to invent empty values);
3. a span cut off by the end of the text: the complete elements before the cut are kept,
   an element that was cut is dropped (never completed with guesses).

Several values separated only by whitespace or commas (JSON lines) become one list; when
prose separates them, the longest span wins. Stringified JSON inside values is then
unwrapped recursively, and ``expect`` fits the shape (a single object where a list was asked
is wrapped; a one-key object wrapping the list is unwrapped).

Before all that, a byte-order mark and zero-width spaces are removed, and HTML-escaped JSON
(``&quot;`` and not one real double quote) is unescaped.

Limits, on purpose: input longer than :data:`MAX_INPUT_CHARS` is refused rather than cut
(a cut would lose content silently); data nested deeper than :data:`MAX_NESTING` is refused;
at most :data:`MAX_SPAN_STARTS` brackets that lead nowhere are tried, so prose full of
brackets cannot make this slow; truncation recovery reads strict JSON only.
"""

from __future__ import annotations

import ast
import html
import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Literal

import json_repair

from core.user_input import nesting_depth

log = logging.getLogger(__name__)

MAX_INPUT_CHARS = 200_000
"""Longer output is refused: a model that wrote this much is looping, not answering."""

MAX_SPAN_STARTS = 64
"""How many opening brackets that lead nowhere are tried before giving up."""

MAX_UNWRAP_DEPTH = 8
"""How many times a string may hold JSON-encoded JSON before we stop decoding it."""

MAX_NESTING = 32
"""Deeper data is refused: no schema Hearth asks for nests like that, and validating it
would only risk the interpreter's recursion limit."""

Expect = Literal["object", "array"]


class RepairFailed(ValueError):
    """The output holds no JSON that can be recovered without guessing."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def repair_json(raw: str, *, expect: Expect | None = None, unwrap: bool = True) -> Any:
    """Return the JSON data in ``raw``, repaired, or raise :class:`RepairFailed`.

    ``expect`` fits the result to the shape the caller asked for (see
    :func:`coerce_shape`); ``unwrap=False`` leaves stringified JSON inside values as strings
    (for callers whose schema really wants a string that happens to look like JSON).
    """
    text = _clean(raw)
    try:
        data = _parse(text)
    except RecursionError:
        data = _NOTHING
    if data is _NOTHING or nesting_depth(data) > MAX_NESTING:
        raise RepairFailed(f"the JSON is nested more than {MAX_NESTING} levels deep")
    if unwrap:
        data = unwrap_stringified(data)
    return coerce_shape(data, expect) if expect else data


def coerce_shape(data: Any, expect: Expect) -> Any:
    """Fit parsed data to the shape that was asked for, when that needs no guessing.

    ``"array"``: a list stays; an object with one key holding a list (``{"facts": [...]}``)
    becomes that list; any other object becomes a one-item list. ``"object"``: an object
    stays; a list holding exactly one object becomes that object. Anything else fails.
    """
    if expect == "array":
        if isinstance(data, list):
            return data
        if isinstance(data, dict):
            if len(data) == 1:
                (only,) = data.values()
                if isinstance(only, list):
                    return only
            return [data]
        raise RepairFailed(f"expected a JSON array, got {_describe(data)}")
    if isinstance(data, dict):
        return data
    if isinstance(data, list) and len(data) == 1 and isinstance(data[0], dict):
        return data[0]
    raise RepairFailed(f"expected a JSON object, got {_describe(data)}")


def unwrap_stringified(data: Any) -> Any:
    """Replace strings that hold JSON objects or arrays with the decoded data, at any depth.

    A string is decoded only when it is, in full, a JSON object or array (or a JSON string
    that is one, for doubly encoded output); ``"42"``, ``'"Ines"'`` and ``"[citation
    needed]"`` stay strings, and so does one whose decoding would nest the data deeper than
    :data:`MAX_NESTING`.
    """
    return _unwrap(data, 0)


def _unwrap(data: Any, level: int) -> Any:
    if level > MAX_NESTING:
        return data
    if isinstance(data, dict):
        return {key: _unwrap(value, level + 1) for key, value in data.items()}
    if isinstance(data, list):
        return [_unwrap(item, level + 1) for item in data]
    if isinstance(data, str):
        decoded = _decode_stringified(data)
        if decoded is not None and level + nesting_depth(decoded) <= MAX_NESTING:
            return _unwrap(decoded, level)
    return data


# --- cleaning -------------------------------------------------------------------------

_INVISIBLE = re.compile("[\ufeff\u200b\u2060\u00ad]")
"""BOM, zero-width space, word joiner, soft hyphen: never meaningful in JSON. (Zero-width
(non-)joiners are left alone: emoji sequences and several scripts need them in strings.)"""

_EDGE_JOINERS = "\u200c\u200d"


def _clean(raw: str) -> str:
    text = _INVISIBLE.sub("", raw).strip().strip(_EDGE_JOINERS).strip()
    if not text:
        raise RepairFailed("the model returned nothing")
    if len(text) > MAX_INPUT_CHARS:
        raise RepairFailed(
            f"the output is {len(text):,} characters long, more than the {MAX_INPUT_CHARS:,} "
            "Hearth reads (a smaller max_tokens or a bounded schema keeps it short)")
    if '"' not in text and re.search(r"&(?:quot|#34|#x22);", text):
        # HTML-escaped JSON, and unambiguously so: no real double quote anywhere.
        text = html.unescape(text)
    return text


# --- finding and parsing --------------------------------------------------------------

_FENCE = re.compile(r"(```|~~~)[ \t]*[A-Za-z0-9_+.-]*[ \t]*\n?(.*?)(?:\1|\Z)", re.S)
_DECODER = json.JSONDecoder(strict=False)  # raw newlines inside strings are common and harmless


class _Nothing:
    """Marks "no value found" (``None`` is a valid JSON value)."""


_NOTHING = _Nothing()


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    value: Any


def _parse(text: str) -> Any:
    candidates = [match.group(2).strip() for match in _FENCE.finditer(text)]
    reasons: list[str] = []
    for candidate in [*(c for c in candidates if c), text]:
        value = _parse_candidate(candidate, reasons)
        if value is not _NOTHING:
            return value
    raise RepairFailed(reasons[0] if reasons else "no JSON object or array in the output")


def _parse_candidate(text: str, reasons: list[str]) -> Any:
    whole = _strict(text)
    if whole is not _NOTHING:
        return whole
    found: list[_Found] = []
    cut_start: int | None = None
    position, misses = 0, 0
    while misses < MAX_SPAN_STARTS:
        start = _next_opener(text, position)
        if start is None:
            break
        end = _balanced_end(text, start)
        if end == _TOO_DEEP:
            reasons.append(f"the JSON is nested more than {MAX_NESTING} levels deep")
            break
        if end == _CUT:
            if cut_start is None and not found and (start == 0 or _looks_like_json(text[start:])):
                cut_start = start
            position, misses = start + 1, misses + 1
            continue
        if end != _MISMATCHED:
            span = text[start:end]
            value = _parse_span(span, is_whole=(start == 0 and end == len(text)))
            if value is not _NOTHING:
                found.append(_Found(start, end, value))
                position = end
                continue
        position, misses = start + 1, misses + 1
    if cut_start is not None:
        recovered = _recover_truncated(text, cut_start)
        if recovered is not _NOTHING:
            log.warning("LLM output was cut off; kept the complete part before the cut "
                        "(%d top-level item(s))", len(recovered))
            return recovered
        reasons.append("the output was cut off (or broken) before the first complete element")
    return _combine(text, found)


def _combine(text: str, found: list[_Found]) -> Any:
    """One value, a JSON-lines sequence as a list, or the longest of prose-separated values."""
    if not found:
        return _NOTHING
    if len(found) == 1:
        return found[0].value
    gaps = (text[a.end:b.start] for a, b in zip(found, found[1:], strict=False))
    if all(not gap.strip(" \t\r\n,") for gap in gaps):
        return [item.value for item in found]
    longest = max(found, key=lambda item: item.end - item.start)
    log.info("LLM output held %d JSON values separated by prose; used the longest",
             len(found))
    return longest.value


def _strict(text: str) -> Any:
    try:
        value, end = _DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        return _NOTHING
    return value if end == len(text) else _NOTHING


def _parse_span(span: str, *, is_whole: bool) -> Any:
    """Strict first, then ever more lenient readings; the container type must not change."""
    value = _strict(span)
    if value is not _NOTHING:
        return value
    if not (is_whole or _looks_like_json(span)):
        return _NOTHING  # "[the conversation]" in prose is not data
    kind = dict if span[0] == "{" else list
    for reader in (_straightened, _python_literal, _syntax_repaired):
        value = reader(span)
        if isinstance(value, kind) and value:
            return value
    return _NOTHING


def _looks_like_json(span: str) -> bool:
    return any(mark in span for mark in ':"\'\u201c\u201d')


_BAD_PYTHON_ESCAPE = re.compile(r"\\[^\\'\"abfnrtvxNuU0-7\n]")
_SMART_DOUBLE = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"'})
_SMART_SINGLE = str.maketrans({"\u2018": "'", "\u2019": "'"})


def _straightened(span: str) -> Any:
    """“Smart” double quotes become straight ones, only when no straight one exists."""
    if '"' in span or not any(q in span for q in "\u201c\u201d\u201e"):
        return _NOTHING
    return _strict(span.translate(_SMART_DOUBLE))


def _python_literal(span: str) -> Any:
    """``{'a': True, 'b': None}``: what a model trained on Python sometimes writes."""
    source = span if "'" in span else span.translate(_SMART_SINGLE)
    if _BAD_PYTHON_ESCAPE.search(source):
        return _NOTHING   # Python would warn about it, and JSON repair reads it better
    try:
        value = ast.literal_eval(source)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOTHING  # not a Python literal: the next reader gets its turn
    return _jsonable(value)


def _syntax_repaired(span: str) -> Any:
    """``json_repair`` in strict mode: fixes syntax, refuses to invent missing values."""
    try:
        return json_repair.loads(span, skip_json_loads=True, strict=True)
    except (ValueError, TypeError, RecursionError):
        return _NOTHING  # json_repair's strict mode found it ambiguous: not repairable


def _jsonable(value: Any) -> Any:
    """A Python literal as JSON data, or nothing when it holds non-JSON types."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        items = [_jsonable(item) for item in value]
        return _NOTHING if any(item is _NOTHING for item in items) else items
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        members = {key: _jsonable(item) for key, item in value.items()}
        return _NOTHING if any(item is _NOTHING for item in members.values()) else members
    return _NOTHING


def _decode_stringified(text: str) -> Any:
    current = text.strip()
    for _ in range(MAX_UNWRAP_DEPTH):
        if current[:1] not in ("{", "[", '"'):
            return None
        value = _strict(current)
        if isinstance(value, (dict, list)):
            return value
        if not isinstance(value, str):
            return None
        current = value.strip()
    return None


def _describe(data: Any) -> str:
    if isinstance(data, list):
        return f"a list of {len(data)} item(s)"
    if isinstance(data, dict):
        return "an object"
    return f"a {type(data).__name__} ({str(data)[:40]!r})"


# --- bracket matching -----------------------------------------------------------------

_OPENER = re.compile(r"[\[{]")
_STRUCTURAL = re.compile(r"[\"'\[\]{}]")
_STRING_REST = {'"': re.compile(r'(?:[^"\\]|\\.)*"', re.S),
                "'": re.compile(r"(?:[^'\\]|\\.)*'", re.S)}
_PAIRS = {"[": "]", "{": "}"}
_CUT = -1          # the text ended inside the span
_MISMATCHED = -2   # a closer of the wrong kind: not a JSON span
_TOO_DEEP = -3     # brackets nest deeper than MAX_NESTING: refused, not scanned further


def _next_opener(text: str, position: int) -> int | None:
    match = _OPENER.search(text, position)
    return match.start() if match else None


def _balanced_end(text: str, start: int) -> int:
    """Index just after the bracket closing the one at ``start``, or ``_CUT``,
    ``_MISMATCHED``, ``_TOO_DEEP``.

    Strings in double or single quotes are skipped, so brackets inside them do not count.
    """
    stack: list[str] = []
    position = start
    while True:
        match = _STRUCTURAL.search(text, position)
        if match is None:
            return _CUT
        char, position = match.group(), match.end()
        if char in _STRING_REST:
            rest = _STRING_REST[char].match(text, position)
            if rest is None:
                return _CUT
            position = rest.end()
        elif char in _PAIRS:
            stack.append(_PAIRS[char])
            if len(stack) > MAX_NESTING:
                return _TOO_DEEP
        elif not stack or stack.pop() != char:
            return _MISMATCHED
        elif not stack:
            return position


# --- truncation recovery --------------------------------------------------------------

class _Cut(Exception):
    """The text ended inside a value; ``partial`` holds what was complete."""

    def __init__(self, partial: Any = _NOTHING) -> None:
        super().__init__("cut")
        self.partial = partial


class _Malformed(Exception):
    """Not a cut-off JSON text but a broken one: recovery does not apply."""


_WS = re.compile(r"\s*")
_LITERAL_PREFIXES = ("true", "false", "null")


def _recover_truncated(text: str, start: int) -> Any:
    """The complete part of a container cut off by the end of the text, or nothing.

    In arrays an element that was cut is dropped; in objects a member whose value was cut
    is dropped, except a container value, which keeps its own complete part (so
    ``{"facts": [{...}, {"ke`` keeps the complete facts).
    """
    try:
        value, _ = _read_value(text, start)
    except _Cut as cut:
        value = cut.partial
    except (_Malformed, RecursionError):
        return _NOTHING
    if isinstance(value, (dict, list)) and value:
        return value
    return _NOTHING


def _skip_ws(text: str, position: int) -> int:
    return _WS.match(text, position).end()  # type: ignore[union-attr]  # \s* always matches


def _read_value(text: str, position: int) -> tuple[Any, int]:
    position = _skip_ws(text, position)
    if position >= len(text):
        raise _Cut()
    char = text[position]
    if char == "[":
        return _read_array(text, position + 1)
    if char == "{":
        return _read_object(text, position + 1)
    return _read_scalar(text, position)


def _read_scalar(text: str, position: int) -> tuple[Any, int]:
    try:
        value, end = _DECODER.raw_decode(text, position)
    except json.JSONDecodeError as exc:
        rest = text[position:].strip()
        if exc.msg.startswith("Unterminated string") or any(
                literal.startswith(rest) for literal in _LITERAL_PREFIXES) or (
                re.fullmatch(r"-?[\d.eE+-]*", rest)):
            raise _Cut() from None
        raise _Malformed() from None
    except ValueError:  # an integer longer than Python converts (4,300 digits): not data
        raise _Malformed() from None
    if end >= len(text.rstrip()) and isinstance(value, (int, float)) \
            and not isinstance(value, bool):
        raise _Cut()  # a number at the very end may have lost digits
    return value, end


def _read_array(text: str, position: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    while True:
        position = _skip_ws(text, position)
        if position >= len(text):
            raise _Cut(items)
        if text[position] == "]":
            return items, position + 1
        try:
            item, position = _read_value(text, position)
        except _Cut:
            raise _Cut(items) from None
        items.append(item)
        position = _skip_ws(text, position)
        if position >= len(text):
            raise _Cut(items)
        if text[position] == "]":
            return items, position + 1
        if text[position] != ",":
            raise _Malformed()
        position += 1


def _read_object(text: str, position: int) -> tuple[dict[str, Any], int]:
    members: dict[str, Any] = {}
    while True:
        position = _skip_ws(text, position)
        if position >= len(text):
            raise _Cut(members)
        if text[position] == "}":
            return members, position + 1
        if text[position] != '"':
            raise _Malformed()
        try:
            key, position = _read_scalar(text, position)
        except _Cut:
            raise _Cut(members) from None
        position = _skip_ws(text, position)
        if position >= len(text):
            raise _Cut(members)
        if text[position] != ":":
            raise _Malformed()
        try:
            value, position = _read_value(text, position + 1)
        except _Cut as cut:
            if isinstance(cut.partial, (dict, list)) and cut.partial:
                members[key] = cut.partial
            raise _Cut(members) from None
        members[key] = value
        position = _skip_ws(text, position)
        if position >= len(text):
            raise _Cut(members)
        if text[position] == "}":
            return members, position + 1
        if text[position] != ",":
            raise _Malformed()
        position += 1
