"""BM25 with a length normalisation of one's choosing, for measuring it (issue: FTS5 has no b).

FTS5's ``bm25()`` fixes ``b = 0.75`` (and ``k1 = 1.2``). To see what a weaker length
normalisation would do, this scores the memories of a data folder exactly as FTS5 does but
with any ``b``: the term statistics come from the folder's own full-text index through an
``fts5vocab`` table of type ``instance`` (every term of every row), and a question's terms
are ``core.storage.search_terms.query_terms``, the function that made the index's. It
reads the whole index into memory, which is fine for the labelled sets (a few thousand
turns) and is why it is a benchmark tool, not a search path.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from pathlib import Path

from core.storage.search_terms import query_terms
from core.storage.sqlite.engine import dbapi_module
K1 = 1.2
IDF_FLOOR = 1e-6
"""FTS5 gives a word in more than half the rows this IDF instead of a negative one."""


class LengthNormalisedBm25:
    """The memories of one SQLite data folder, scored by BM25 with a chosen ``b``."""

    def __init__(self, database: Path) -> None:
        with dbapi_module().connect(f"file:{database}?mode=ro", uri=True) as connection:
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

    def scores(self, text: str, b: float) -> dict[int, float]:
        """Every memory holding one of ``text``'s words, with its BM25 at ``b``."""
        scored: dict[int, float] = defaultdict(float)
        for stem in query_terms(text):
            found = self._postings.get(stem)
            if not found:
                continue
            idf = math.log((self._rows - len(found) + 0.5) / (len(found) + 0.5))
            idf = idf if idf > 0 else IDF_FLOOR
            for doc, frequency in found.items():
                norm = 1 - b + b * self._lengths[doc] / self._average
                scored[doc] += idf * frequency * (K1 + 1) / (frequency + K1 * norm)
        return dict(scored)
