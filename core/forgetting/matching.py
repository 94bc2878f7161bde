"""Where a forgotten value is in a text, and what replaces it: the matching rule, in one place.

The rule:

* a value matches as a whole word or phrase, ignoring case: it must not have a letter or a
  digit right before or after it, so forgetting "Ana" redacts "Ana", "ANA" and "Ana's" but
  not "Banana" or "Anabel", and forgetting "4471" redacts "pin=4471" and "pin_4471" but not
  "44712" (in scripts written without spaces, Chinese, Japanese, Thai, any occurrence
  matches: "東京都" in "住所は東京都です");
* whitespace inside a value matches any run of whitespace ("12 Rua  Nova" across a line
  break too);
* each match becomes ``[forgotten]``, so the text around it still reads ("my passport is
  [forgotten]");
* in JSON (event metadata, notes about you, audit arguments) every string and every key is read
  the same way, so a value is found however the JSON escaped it.

Spelling variants (diacritics dropped, digits regrouped: "Sao Paulo", "44 71") are other
strings and are not matched. A value too short or too common to tell apart from ordinary
words (fewer than ``MIN_DISTINCTIVE_CHARS`` characters, or a word such as "yes" or "the")
would shred unrelated text; ``is_distinctive`` says which values are safe to search for
everywhere, and the caller searches the others only where the fact itself was recorded.

Bytes: the same values are looked for in raw files (the database file, backups, logs) by
``byte_forms``, lower-cased and also as JSON escapes them, because a file keeps text as
UTF-8 or as JSON's ``\\uXXXX``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from core.user_input import FORGOTTEN

PLACEHOLDER = FORGOTTEN

MIN_DISTINCTIVE_CHARS = 3
"""Values shorter than this ("7", "O", "no") are searched only where the fact was recorded."""

COMMON_WORDS = frozenset("""
a about all am an and any are as at be been but by can could did do does for from had has
have he her him his how i if in into is it its me more my no none nor not of off ok okay on
once one only or other our out over own same she so some such than that the their them then
there these they this those to too true false under up very was we were what when where which
while who why will with would yes you your maybe unknown n/a na nothing never always
""".split())
"""Values that are ordinary words: searched, like short ones, only where the fact was."""

MIN_SCAN_BYTES = 4
"""Shorter values are not looked for in raw bytes: 1-3 bytes occur by chance inside binary
data (vector blobs), so a search would prove nothing."""

_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")

_UNSPACED = "\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Thai, kana and CJK ideographs: scripts written without spaces between words, where a
neighbouring character says nothing about where a word ends."""
_WORD_CHAR = f"[^\\W_{_UNSPACED}]"  # a letter or a digit of a script that spaces its words


def normalised(value: str) -> str:
    """A value as matched and compared: trimmed, inner whitespace collapsed."""
    return " ".join(value.split())


def is_distinctive(value: str) -> bool:
    """Whether ``value`` can be searched for everywhere without shredding unrelated words."""
    folded = normalised(value).casefold()
    return len(folded) >= MIN_DISTINCTIVE_CHARS and folded not in COMMON_WORDS


def _pattern(value: str) -> str:
    """A whole-word, whitespace-tolerant pattern for one value."""
    body = r"\s+".join(re.escape(part) for part in value.split())
    before = f"(?<!{_WORD_CHAR})" if value[0].isalnum() else ""
    after = f"(?!{_WORD_CHAR})" if value[-1].isalnum() else ""
    return f"{before}{body}{after}"


class ValueMatcher:
    """Finds and redacts a set of values in text and in JSON-like data.

    It holds the values in memory only, for as long as the caller keeps it: nothing here
    writes them anywhere.
    """

    def __init__(self, values: Iterable[str]) -> None:
        unique = {normalised(value) for value in values if value and value.strip()}
        self._values = tuple(sorted(unique, key=lambda v: (-len(v), v)))  # longest first
        self._regex = (re.compile("|".join(f"(?:{_pattern(v)})" for v in self._values),
                                  re.IGNORECASE) if self._values else None)

    def __bool__(self) -> bool:
        return self._regex is not None

    def __len__(self) -> int:
        return len(self._values)

    def joined(self, other: ValueMatcher) -> ValueMatcher:
        """A matcher for the values of both."""
        return ValueMatcher((*self._values, *other._values))

    # --- text ----------------------------------------------------------------------------

    def found(self, text: str | None) -> bool:
        return bool(text and self._regex is not None and self._regex.search(text) is not None)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the values are in ``text``, as (start, end) character offsets."""
        if self._regex is None or not text:
            return []
        return [match.span() for match in self._regex.finditer(text)]

    def redact(self, text: str) -> str:
        """``text`` with every match replaced by ``PLACEHOLDER``."""
        if self._regex is None or not text:
            return text
        return self._regex.sub(PLACEHOLDER, text)

    def anchors(self) -> tuple[str, ...] | None:
        """For each value its longest run of ASCII letters and digits, which any text
        holding the value holds too (in some case): a cheap filter for the database to apply
        before the exact match. None when a value has no such run (every row must be read)."""
        found = []
        for value in self._values:
            runs = _ASCII_WORD.findall(value)
            if not runs:
                return None
            found.append(max(runs, key=len))
        return tuple(dict.fromkeys(found))

    # --- JSON-like data ------------------------------------------------------------------

    def found_in(self, data: Any) -> bool:
        """Whether any string or key inside ``data`` (text, list, mapping) matches."""
        if isinstance(data, str):
            return self.found(data)
        if isinstance(data, Mapping):
            return any(self.found(str(key)) or self.found_in(value)
                       for key, value in data.items())
        if isinstance(data, (list, tuple)):
            return any(self.found_in(item) for item in data)
        return False

    def redact_data(self, data: Any) -> Any:
        """A copy of ``data`` with every string and key redacted; other values as they are."""
        if isinstance(data, str):
            return self.redact(data)
        if isinstance(data, Mapping):
            return {self.redact(str(key)): self.redact_data(value) for key, value in data.items()}
        if isinstance(data, (list, tuple)):
            return [self.redact_data(item) for item in data]
        return data

    # --- bytes ---------------------------------------------------------------------------

    @property
    def verifiable(self) -> bool:
        """Whether every value is long enough for a byte search to mean something."""
        return all(len(value.encode("utf-8")) >= MIN_SCAN_BYTES for value in self._values)

    def byte_forms(self) -> tuple[bytes, ...]:
        """Lower-cased byte strings a file holding one of the values would contain: its
        UTF-8 in the usual cases, and the same as JSON escapes it."""
        forms: set[bytes] = set()
        for value in self._values:
            for variant in {value, value.lower(), value.upper(), value.casefold()}:
                forms.add(variant.encode("utf-8").lower())
                forms.add(json.dumps(variant)[1:-1].encode("ascii").lower())
        return tuple(sorted(forms, key=len, reverse=True))
