"""The exclusion gate: words and topics the user never wants stored.

It runs first, before any write a learning step makes (a fact, a memory, a context event, a
session summary): whatever mentions an excluded term is dropped, and the drop is counted so
the user can see the gate working without seeing what it dropped.

Matching is on whole words and phrases, after Unicode normalisation (NFKC, then casefold):
"art" blocks "Art class" but not "party"; "ﬁnance" (with a ligature) blocks "FINANCE";
a multi-word topic such as "mental health" matches whatever punctuation or spacing separates
its words in the text ("mental-health", "Mental  health"). Accents are kept as written:
"café" and "cafe" are different words here.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Sequence

log = logging.getLogger(__name__)

_WORD = re.compile(r"[^\W_]+")          # letters and digits of any script
_SEPARATOR = r"[\W_]+"                  # anything between two words
_NOT_AFTER_WORD = r"(?<![^\W_])"
_NOT_BEFORE_WORD = r"(?![^\W_])"


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


class ExclusionGate:
    """Decides whether a text mentions an excluded term; counts what it drops. Thread-safe."""

    def __init__(self, terms: Sequence[str]) -> None:
        self._terms: dict[str, str] = {}   # folded words joined by one space -> term as given
        for number, term in enumerate(terms, start=1):
            words = _WORD.findall(_fold(term))
            if not words:
                log.warning("Ignoring exclusion number %d: it has no letters or digits to "
                            "match.", number)
                continue
            self._terms.setdefault(" ".join(words), term.strip())
        self._pattern = self._compile(self._terms)
        self._lock = threading.Lock()
        self._dropped = 0

    @staticmethod
    def _compile(terms: dict[str, str]) -> re.Pattern[str] | None:
        if not terms:
            return None
        # Longest first, so "mental health" wins over "mental" and the right term is named.
        phrases = sorted(terms, key=len, reverse=True)
        alternatives = "|".join(_SEPARATOR.join(map(re.escape, phrase.split(" ")))
                                for phrase in phrases)
        return re.compile(f"{_NOT_AFTER_WORD}(?:{alternatives}){_NOT_BEFORE_WORD}")

    @property
    def terms(self) -> tuple[str, ...]:
        """The terms in force, as the user wrote them (empty or duplicate ones removed)."""
        return tuple(self._terms.values())

    def blocks(self, text: str) -> str | None:
        """The excluded term ``text`` mentions (the first one in the text), else ``None``."""
        if self._pattern is None:
            return None
        match = self._pattern.search(_fold(text))
        if match is None:
            return None
        return self._terms[" ".join(_WORD.findall(match.group()))]

    def drop(self, text: str) -> bool:
        """True (and counted) when ``text`` must not be stored."""
        if self.blocks(text) is None:
            return False
        with self._lock:
            self._dropped += 1
        return True

    @property
    def dropped(self) -> int:
        """How many items this gate has dropped since it was made."""
        with self._lock:
            return self._dropped
