"""Tags for a read-later item, extracted from its title and text, the same every time.

No model and no corpus: the words of the title and text (letters only, at least
``MIN_CHARS`` long, lower-cased), minus English function words (``STOPWORDS`` of
``core.storage.query_words``) and a few words every web page has ("click", "share"...), are
scored by how often they occur, a title word counting ``TITLE_WEIGHT`` times (a title names
the subject); the ``MAX_TAGS`` best are the tags, ties going to the word seen first. A word
must occur at least twice (or be in the title) to be a tag, so one passing mention is not.

A word is whole: "long-term" and "e-bikes" are one word each, not "long", "term" and
"bikes"; a possessive is its word ("sleep's" is "sleep") and a contraction ("can't",
"isn't") a function word; addresses ("https://example.org/sleep") are no words; and a plural
counts with its singular when both occur, under the form seen more often. Splitting at every
hyphen and apostrophe gave tags such as "long", "term", "isn" and "org".
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
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
_ADDRESS = re.compile(r"\b(?:https?://|www\.)\S+|\S+@\S+\.\w+", re.I)


def _word(found: str) -> str | None:
    """A found word as a tag could be: a possessive as its word, a contraction not."""
    word = found.lower().replace("\u2019", "'")
    if "'" in word:
        base, _, ending = word.partition("'")
        if ending != "s":
            return None  # can't, isn't, you're: function words
        word = base
    if len(word) < MIN_CHARS or word in STOPWORDS or word in PAGE_WORDS:
        return None
    return word


def _words(text: str) -> list[str]:
    plain = _ADDRESS.sub(" ", text[:MAX_SCANNED_CHARS])
    return [word for word in map(_word, _WORD.findall(plain)) if word is not None]


def _with_singulars(scores: Counter[str]) -> Counter[str]:
    """A plural and its singular counted as one, under the form seen more often."""
    merged = Counter(scores)
    for word in list(scores):
        single = word[:-1]
        if word.endswith("s") and single in scores:
            keep, drop = (word, single) if scores[word] > scores[single] else (single, word)
            merged[keep] = scores[word] + scores[single]
            del merged[drop]
    return merged


def extract_tags(title: str, text: str) -> list[str]:
    """Up to ``MAX_TAGS`` tags for a page titled ``title`` with ``text`` (see the module
    docstring), best first."""
    title_words = _words(title)
    scores: Counter[str] = Counter()
    for word in title_words:
        scores[word] += TITLE_WEIGHT
    text_words = _words(text)
    for word in text_words:
        scores[word] += 1
    scores = _with_singulars(scores)
    order = {word: index for index, word in enumerate(dict.fromkeys(title_words + text_words))}
    kept = [word for word in scores if scores[word] >= 2]
    kept.sort(key=lambda word: (-scores[word], order[word]))
    return kept[:MAX_TAGS]
