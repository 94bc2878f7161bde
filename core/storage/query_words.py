"""The words a full-text search looks for in user text, whatever the database.

User text is never query syntax: it is split into words (letters and digits; any quote,
operator, bracket, colon, caret or emoji is a separator), and each adapter searches for
those words in its own way (FTS5 quoted strings, PostgreSQL lexemes), ORed so a row
matching more of them ranks higher. Common English function words are dropped when the
query has other words: each matches most rows, which adds nothing to the ranking but makes
BM25 score nearly the whole table (and turns every sentence containing "my" into a hit).
"""

from __future__ import annotations

import re

MAX_QUERY_TERMS = 32
"""A pasted page of text searches by its first words instead of ORing hundreds."""

STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours yourself yourselves
s t d ll m re ve
""".split())

_WORD = re.compile(r"[^\W_]+")


def query_words(user_text: str) -> list[str]:
    """The distinct lower-cased words of ``user_text`` to search for, in order, at most
    ``MAX_QUERY_TERMS``; function words only when nothing else is left ("who is it")."""
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(user_text)))
    content = [word for word in words if word not in STOPWORDS]
    return (content or words)[:MAX_QUERY_TERMS]
