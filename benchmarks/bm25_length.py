"""BM25 with a length normalisation of one's choosing, for measuring it (issue: FTS5 has no b).

FTS5's ``bm25()`` fixes ``b = 0.75`` (and ``k1 = 1.2``). To see what a weaker length
normalisation would do, this scores the memories of a data folder exactly as FTS5 does but
with any ``b``: the term statistics come from the folder's own full-text index through an
``fts5vocab`` table of type ``instance`` (every token of every row, after the table's
tokenizer), and a question's words go through the same tokenizer in a private in-memory
table, so stems agree. It reads the whole index into memory, which is fine for the labelled
sets (a few thousand turns) and is why it is a benchmark tool, not a search path.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

from core.storage.query_words import query_words

TOKENIZER = "porter unicode61 remove_diacritics 2"
"""The memories' full-text tokenizer (``core/storage/migrations/versions/0002_…``)."""
K1 = 1.2
IDF_FLOOR = 1e-6
"""FTS5 gives a word in more than half the rows this IDF instead of a negative one."""


class LengthNormalisedBm25:
    """The memories of one SQLite data folder, scored by BM25 with a chosen ``b``."""

    def __init__(self, database: Path) -> None:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
            connection.execute("CREATE VIRTUAL TABLE temp.tokens USING "
                               "fts5vocab(main, memories_fts, instance)")
            postings: dict[str, Counter[int]] = defaultdict(Counter)
            lengths: Counter[int] = Counter()
            for term, doc in connection.execute("SELECT term, doc FROM temp.tokens"):
                postings[term][doc] += 1
                lengths[doc] += 1
            rows = connection.execute("SELECT count(*) FROM memories").fetchone()[0]
        self._postings = dict(postings)
        self._lengths = lengths
        self._rows = max(1, rows)
        self._average = sum(lengths.values()) / self._rows
        self._stemmer = sqlite3.connect(":memory:")
        self._stemmer.execute(f"CREATE VIRTUAL TABLE words USING fts5(t, tokenize='{TOKENIZER}')")
        self._stemmer.execute("CREATE VIRTUAL TABLE stems USING fts5vocab(words, row)")

    def stems(self, text: str) -> list[str]:
        """The stems the index holds for the words full-text search looks for in ``text``."""
        self._stemmer.execute("DELETE FROM words")
        self._stemmer.execute("INSERT INTO words(t) VALUES (?)", (" ".join(query_words(text)),))
        return [term for (term,) in self._stemmer.execute("SELECT term FROM stems")]

    def scores(self, text: str, b: float) -> dict[int, float]:
        """Every memory holding one of ``text``'s words, with its BM25 at ``b``."""
        scored: dict[int, float] = defaultdict(float)
        for stem in self.stems(text):
            found = self._postings.get(stem)
            if not found:
                continue
            idf = math.log((self._rows - len(found) + 0.5) / (len(found) + 0.5))
            idf = idf if idf > 0 else IDF_FLOOR
            for doc, frequency in found.items():
                norm = 1 - b + b * self._lengths[doc] / self._average
                scored[doc] += idf * frequency * (K1 + 1) / (frequency + K1 * norm)
        return dict(scored)
