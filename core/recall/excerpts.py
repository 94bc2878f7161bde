"""The part of a long text that answers a question, within a number of characters.

A search result handed to an agent cannot be the whole record: five imported conversations
of 10,000 to 60,000 characters each filled an agent's context in one ``search_memory``
call. What it gets instead, per result, is the stretch that matched:

* the **window that matched** when recall found the record by one of its further windows
  (a sentence of a turn, a 160-token stretch of a long text: ``core.embedding.chunking``,
  ``RecallResult.excerpt``);
* otherwise the **sentence with the most of the question's words** (rarer words weigh
  more: a word in every sentence says nothing of where the answer is), or, when no word
  of the question is in the text (found by meaning through its whole-text vector, which
  reads the head of a long text), the text's beginning;

grown by whole sentences around it, alternately after and before, while they fit; a
stretch longer than the room left is cut at word boundaries around its first matching
word. ``shares`` splits one budget between several texts.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.embedding.chunking import sentence_spans
from core.storage.query_words import query_words

_WORD = re.compile(r"[^\W_]+")
STEM_CHARS = 5
"""Words are compared by their first five letters ("flowerpot" finds "flowerpots", "ride"
finds "rides"): enough to place an excerpt, which is all this is for."""


@dataclass(frozen=True)
class Excerpt:
    """``text[start:end]`` of a text ``length`` characters long."""

    text: str
    start: int
    end: int
    length: int

    @property
    def whole(self) -> bool:
        return self.start == 0 and self.end == self.length


def excerpt(text: str, query: str, limit: int, matched: str | None = None) -> Excerpt:
    """At most ``limit`` characters of ``text`` where it answers ``query`` (the whole text
    when it fits); ``matched`` is the window recall found it by, if any."""
    if len(text) <= limit:
        return Excerpt(text, 0, len(text), len(text))
    sentences = _sentences(text)
    core = _matched_span(text, matched) or _best_sentence(text, sentences, query)
    start, end = _grow(sentences, core, limit)
    if end - start > limit:
        start, end = _cut(text, core, limit, query)
    return Excerpt(text[start:end], start, end, len(text))


def shares(needs: Sequence[int], each: int, total: int) -> list[int]:
    """How many characters each of several texts may have: at most ``each``, all of them
    at most ``total``. A text that needs less than an equal share leaves the rest to the
    others (so short results are shown whole and long ones share what is left)."""
    given = [0] * len(needs)
    left = total
    for position, index in enumerate(sorted(range(len(needs)), key=lambda i: needs[i])):
        given[index] = max(0, min(needs[index], each, left // (len(needs) - position)))
        left -= given[index]
    return given


def _sentences(text: str) -> list[tuple[int, int]]:
    """The spans of the text's sentences, as its windows read them; the whole text when it
    has none."""
    return sentence_spans(text) or [(0, len(text))]


def _matched_span(text: str, matched: str | None) -> tuple[int, int] | None:
    """Where the window recall matched is in ``text`` (None when there is none, or it is
    not in this text: a note's window may start in its title)."""
    if not matched or not matched.strip():
        return None
    at = text.find(matched.strip())
    return None if at < 0 else (at, at + len(matched.strip()))


def _stem(word: str) -> str:
    return word.lower()[:STEM_CHARS]


def _best_sentence(text: str, sentences: list[tuple[int, int]],
                   query: str) -> tuple[int, int]:
    """The sentence holding the most (rarest) words of the query; the first sentence when
    none holds one."""
    wanted = {_stem(word) for word in query_words(query)}
    words_in = [{_stem(word) for word in _WORD.findall(text[start:end])} & wanted
                for start, end in sentences]
    found_in = {word: sum(word in words for words in words_in) for word in wanted}
    weight = {word: math.log(1 + len(sentences) / count)
              for word, count in found_in.items() if count}
    scores = [sum(weight[word] for word in words) for words in words_in]
    best = max(range(len(sentences)), key=lambda index: (scores[index], -index))
    return sentences[best]


def _grow(sentences: list[tuple[int, int]], core: tuple[int, int],
          limit: int) -> tuple[int, int]:
    """``core`` widened by whole sentences, after then before, while they fit."""
    start, end = core
    after = [span for span in sentences if span[0] >= end]
    before = [span for span in reversed(sentences) if span[1] <= start]
    while after or before:
        grown = False
        for side in (after, before):
            if side:
                wider = (min(start, side[0][0]), max(end, side[0][1]))
                if wider[1] - wider[0] <= limit:
                    start, end = wider
                    side.pop(0)
                    grown = True
                else:
                    side.clear()
        if not grown:
            break
    return start, end


def _cut(text: str, core: tuple[int, int], limit: int, query: str) -> tuple[int, int]:
    """``limit`` characters of the span ``core`` (longer than that), from a little before
    its first word of the query, ending and starting at word boundaries."""
    start, end = core
    wanted = {_stem(word) for word in query_words(query)}
    first = next((word.start() for word in _WORD.finditer(text, start, end)
                  if _stem(word.group()) in wanted), start)
    begin = max(start, min(first - limit // 4, end - limit))
    finish = min(end, begin + limit)
    if begin > start:  # start at a word
        space = text.find(" ", begin, finish)
        begin = space + 1 if 0 <= space < begin + limit // 4 else begin
    if finish < end:  # end after a word
        space = text.rfind(" ", begin, finish)
        finish = space if space > begin + limit // 2 else finish
    return begin, finish
