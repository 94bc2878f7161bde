"""What a word becomes in a full-text index: one definition for every engine that ranks words.

SQLite's FTS5 used to tokenize and stem with its own ``porter`` tokenizer, and a second
engine would stem with another (tantivy's Snowball), so the same question could match other
rows on each side of an index threshold. Here Python makes the terms once, for the index
and for the question alike: FTS5 receives them through the SQL function ``hearth_terms``
that its triggers call (migration 0024), and any derived index reads them from here.

A term is a word (``[^\\W_]+``, as ``core.storage.query_words`` splits user text),
lower-cased, with Latin diacritics folded ("café" is "cafe", as FTS5's
``remove_diacritics 2`` folded it; other scripts keep their marks, which change meaning
there), and stemmed by the original Porter algorithm (the one FTS5's ``porter`` ran, so
"moved" still finds "moving") when it is 3 to 64 ASCII characters. One exception: a word
whose stem is a function word but which is not one itself keeps its whole form. Porter
turns the name "Ines" into "in" and "Andes" into "and"; stemmed, a question about Ines
matched every row with "in" in it (3 of the top 10 at 100k rows mentioned her), so names
must match as names.

The Porter algorithm is frozen (Snowball keeps it unchanged as ``porter``), so the terms
of a row written today are the terms a question makes tomorrow.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import Stemmer

from core.storage.query_words import STOPWORDS, query_words

TERMS_FUNCTION = "hearth_terms"
"""The SQL function that gives FTS5 ``index_terms`` (registered on every connection)."""

_WORD = re.compile(r"[^\W_]+")
_STEMMER = Stemmer.Stemmer("porter")
MIN_STEMMED = 3
MAX_STEMMED = 64
"""Words shorter or longer than this are kept whole, as FTS5's porter tokenizer kept them."""

_LATIN = (*range(0x00C0, 0x0250), *range(0x1E00, 0x1F00))
"""Latin-1 Supplement, Latin Extended-A and -B, Latin Extended Additional."""


def _folding_table() -> dict[int, str]:
    """Each accented Latin letter mapped to its base letters ("é" → "e", "ǆ" → "dz")."""
    table: dict[int, str] = {}
    for code in _LATIN:
        letter = chr(code)
        base = "".join(part for part in unicodedata.normalize("NFKD", letter)
                       if not unicodedata.combining(part))
        if base and base != letter:
            table[code] = base
    return table


_FOLD = _folding_table()


@lru_cache(maxsize=1 << 16)
def term(word: str) -> str:
    """The index term of one word (letters and digits only, as ``_WORD`` finds them)."""
    folded = word.lower().translate(_FOLD)
    if not (folded.isascii() and MIN_STEMMED <= len(folded) <= MAX_STEMMED):
        return folded
    stem: str = _STEMMER.stemWord(folded)
    return folded if stem in STOPWORDS and folded not in STOPWORDS else stem


def index_terms(text: str | None) -> str | None:
    """The terms of ``text``, separated by single spaces, for FTS5 to index as they are
    (its ``ascii`` tokenizer splits them at the spaces and changes nothing else: every
    term is letters and digits, already lower-cased). None stays None (a NULL column)."""
    if text is None:
        return None
    return " ".join(term(word) for word in _WORD.findall(text))


def query_terms(user_text: str) -> list[str]:
    """The distinct terms a full-text search looks for in ``user_text``, in order: the
    terms of its ``query_words`` (function words dropped, at most ``MAX_QUERY_TERMS``)."""
    return terms_of(query_words(user_text))


def terms_of(words: list[str]) -> list[str]:
    """The distinct terms of ``words`` (already ``query_words``), in order."""
    return list(dict.fromkeys(term(word) for word in words))
