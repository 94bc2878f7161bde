"""Tags for a read-later item, extracted from its title and text, the same every time.

No model and no corpus: the words of the title and text (letters only, at least
``MIN_CHARS`` long, lower-cased), minus English function words (``STOPWORDS`` of
``core.storage.query_words``) and a few words every web page has ("click", "share"...), are
scored by how often they occur, a title word counting ``TITLE_WEIGHT`` times (a title names
the subject); the ``MAX_TAGS`` best are the tags, ties going to the word seen first. A word
must occur at least twice (or be in the title) to be a tag, so one passing mention is not.
"""

from __future__ import annotations

import re
from collections import Counter

from core.storage.query_words import STOPWORDS

MAX_TAGS = 5
MIN_CHARS = 3
TITLE_WEIGHT = 3
MAX_SCANNED_CHARS = 200_000
"""Words past this many characters of text are not read: a book pasted whole still gets
tags from its beginning, in bounded time."""
PAGE_WORDS = frozenset("""
also article click cookie cookies could email get like make may menu might new one read
share sign subscribe two use used using via way would www http https com html
""".split())
_WORD = re.compile(r"[^\W\d_]+")


def _words(text: str) -> list[str]:
    return [word for word in (w.lower() for w in _WORD.findall(text[:MAX_SCANNED_CHARS]))
            if len(word) >= MIN_CHARS and word not in STOPWORDS and word not in PAGE_WORDS]


def extract_tags(title: str, text: str) -> list[str]:
    """Up to ``MAX_TAGS`` tags for a page titled ``title`` with ``text`` (see the module
    docstring), best first."""
    title_words = _words(title)
    scores: Counter[str] = Counter()
    for word in title_words:
        scores[word] += TITLE_WEIGHT
    for word in _words(text):
        scores[word] += 1
    order = {word: index for index, word in enumerate(dict.fromkeys(
        title_words + _words(text)))}
    kept = [word for word in scores if scores[word] >= 2]
    kept.sort(key=lambda word: (-scores[word], order[word]))
    return kept[:MAX_TAGS]
