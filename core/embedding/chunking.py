"""Texts as windows, each with its own vector: sentences of short texts, overlapping
stretches of long ones.

Every text keeps its whole-text vector (window 0: the text, or the first
``Embedder.max_tokens`` tokens of a long one) and may get further windows (positions 1,
2, ...), each embedded on its own and stored beside the row: a text longer than one
inference gets windows of ``WINDOW_TOKENS`` overlapping by ``OVERLAP_TOKENS`` to its end
(its first ``MAX_CHUNKED_CHARS`` characters); a turn of a conversation that fits (a text
embedded with views, ``core.embedding.turn_views``) gets one window per sentence when it
has 2 to ``MAX_SENTENCE_WINDOWS`` sentences of substance; any other text gets none.
Windows are measured in the embedder's own tokens and reported as ``[char_start,
char_end)`` into the text that was embedded (the row's ``document_text``), so
``text[char_start:char_end]`` is the exact excerpt.

See docs/embeddings.md, "Windows: sentences of short texts, stretches of long ones" (why
turns only, why 160 tokens with 32 overlapping, where cuts fall, what it costs).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from core.embedding.protocol import CancelCheck, Embedder, ProgressCallback
from core.storage.windows import NO_CHUNKS, ChunkVectors, TextWindow

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from core.storage.port import IndexedKind, SearchIndex

WINDOW_TOKENS = 160
"""Tokens per further window (measured: docs/embeddings.md, "Why 160 tokens")."""

OVERLAP_TOKENS = 32
"""Tokens a window shares with the one before it (20%)."""

MAX_TOKENS_PER_CHAR = 4
"""No tokenizer Hearth supports makes more tokens than this from one character: WordPiece
with bge's normaliser makes at most 3 (measured over all of Unicode: Hangul syllables
decompose into three jamo), byte-level BPE at most 4 (UTF-8 bytes). So a text of at most
``max_tokens // 4`` characters fits in one inference and is not tokenised to check."""

MAX_SENTENCE_WINDOWS = 24
"""A text that fits one inference gets sentence windows only if it has at most this many
sentences of substance (more is a list or a log, where the sentences say little alone and
the vectors would multiply)."""

MIN_SENTENCE_WORDS = 3
"""A piece of a text shorter than this ("and. AND.", "ok!") is no sentence of its own."""

MIN_UNSPACED_SENTENCE_CHARS = 6
"""The same for scripts written without spaces between words (Chinese, Japanese, Thai)."""

MAX_CHUNKED_CHARS = 200_000
"""Characters of a text that get windows (~50k tokens of English, ~390 windows, ~7 s of
embedding on two cores); a longer paste is chunked this far and the rest is found by
full-text search."""

_SENTENCE_END = re.compile(r"""[.!?\u2026\u3002\uff01\uff1f][\"'\u2019\u201d)\]]*$""")
_FULL_WIDTH_END = frozenset("\u3002\uff01\uff1f")
"""CJK sentence ends, which are followed by no space."""

_SENTENCE_BREAK = re.compile(
    r"""(?<=[.!?\u2026])[\"'\u2019\u201d)\]]*\s+|(?<=[\u3002\uff01\uff1f])|\n+""")
"""Where one sentence ends and the next may begin: an end mark and space, a CJK end mark,
or a line break."""

_LABEL = re.compile(r"([^\W\d_][^:\n.!?]{0,38}): \S")
"""A leading ``speaker: `` label, as an imported turn is stored (``Dana: I signed...``)."""


# --- planning ----------------------------------------------------------------------------


def plan_windows(text: str, offsets: Sequence[tuple[int, int]], head_tokens: int, *,
                 window_tokens: int = WINDOW_TOKENS,
                 overlap_tokens: int = OVERLAP_TOKENS) -> list[TextWindow]:
    """Windows over ``text`` given its tokens' character ``offsets`` (in order, without
    special tokens). Window 0 is the first ``head_tokens`` tokens, what one inference of
    the whole text sees; if that is the whole text it is the only window. The windows
    cover the text from character 0 to its end, each overlapping the one before."""
    if not 0 <= overlap_tokens < window_tokens <= head_tokens:
        raise ValueError(f"need 0 <= overlap < window <= head, got {overlap_tokens}, "
                         f"{window_tokens}, {head_tokens}")
    count = len(offsets)
    if count <= head_tokens:
        return [TextWindow(0, 0, len(text))]
    strength = _cut_strengths(text, offsets)
    windows = [TextWindow(0, 0, _whole_characters(text, offsets[head_tokens - 1][1]))]
    end, half, snap = head_tokens, overlap_tokens // 2, window_tokens // 8
    while end < count:
        start = _best_cut(strength, end - overlap_tokens, end - overlap_tokens - half,
                          end - overlap_tokens + half)
        if count - start <= window_tokens:  # the last window: a full one, not a remainder
            start = _best_cut(strength, count - window_tokens, count - window_tokens,
                              min(start, count - window_tokens + snap))
            end = count
        else:
            end = _best_cut(strength, start + window_tokens, start + window_tokens - snap,
                            start + window_tokens)
        windows.append(TextWindow(len(windows), offsets[start][0], len(text) if end == count
                                  else _whole_characters(text, offsets[end - 1][1])))
    return windows


def _whole_characters(text: str, end: int) -> int:
    """``end`` moved past what still belongs to the character before it, which a tokenizer
    may leave out of every token: combining marks (a stripped accent), zero-width joiners,
    variation selectors and emoji skin tones. An excerpt then never ends in half a letter."""
    while end < len(text) and (unicodedata.category(text[end]) in ("Mn", "Mc", "Me")
                               or text[end] in "\u200d\ufe0e\ufe0f"
                               or "\U0001f3fb" <= text[end] <= "\U0001f3ff"):
        end += 1
    return end


def _cut_strengths(text: str, offsets: Sequence[tuple[int, int]]) -> list[int]:
    """How good a cut before each token is: 4 paragraph, 3 line, 2 sentence, 1 word,
    0 between tokens of one word, -1 inside one character (never cut there)."""
    strengths = [-1] * len(offsets)
    for index in range(1, len(offsets)):
        previous_end, start = offsets[index - 1][1], offsets[index][0]
        if start < previous_end or start < offsets[index - 1][0] + 1:
            continue
        gap = text[previous_end:start]
        if gap.count("\n") >= 2:
            strengths[index] = 4
        elif "\n" in gap:
            strengths[index] = 3
        elif ((gap or text[previous_end - 1:previous_end] in _FULL_WIDTH_END)
              and _SENTENCE_END.search(text[max(0, previous_end - 4):previous_end])):
            strengths[index] = 2
        else:
            strengths[index] = 1 if gap else 0
    return strengths


def _best_cut(strength: Sequence[int], target: int, low: int, high: int) -> int:
    """The strongest cut in ``[low, high]`` (nearest ``target`` among equals); if none is
    legal there (cannot happen for real text), the nearest legal cut on either side."""
    low, high = max(low, 1), min(high, len(strength) - 1)
    best, best_key = -1, (-2, 0)
    for index in range(low, high + 1):
        key = (strength[index], -abs(index - target))
        if key > best_key:
            best, best_key = index, key
    if best_key[0] >= 0:
        return best
    for distance in range(1, len(strength)):
        for index in (target - distance, target + distance):
            if 0 < index < len(strength) and strength[index] >= 0:
                return index
    return max(1, min(target, len(strength) - 1))


def text_windows(embedder: Embedder, text: str, *, sentences: bool = False
                 ) -> list[TextWindow]:
    """The windows of ``text`` for ``embedder``: stretches if it is longer than one
    inference, else its sentences if ``sentences`` (a conversation turn), else just one."""
    head = embedder.max_tokens
    whole = [TextWindow(0, 0, len(text))]
    if len(text) * MAX_TOKENS_PER_CHAR <= head:
        return whole + (sentence_windows(text) if sentences else [])
    chunked = text[:MAX_CHUNKED_CHARS]
    window = min(WINDOW_TOKENS, head)
    windows = plan_windows(chunked, embedder.token_offsets(chunked), head,
                           window_tokens=window,
                           overlap_tokens=min(OVERLAP_TOKENS, window // 5))
    if len(windows) == 1:  # it fits after all
        return whole + (sentence_windows(text) if sentences and len(chunked) == len(text)
                        else [])
    return windows


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of ``text`` is (without the spaces around it), in order: the
    one reading of sentences that windows and excerpts share."""
    spans: list[tuple[int, int]] = []
    start = 0
    for cut in [*_SENTENCE_BREAK.finditer(text), None]:
        end = len(text) if cut is None else cut.start()
        piece = text[start:end]
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + lead + len(stripped)))
        if cut is not None:
            start = cut.end()
    return spans


def sentence_windows(text: str) -> list[TextWindow]:
    """One further window per sentence of substance of a text that fits one inference,
    positions from 1; none unless there are 2 to ``MAX_SENTENCE_WINDOWS`` of them."""
    spans = [(begin, end) for begin, end in sentence_spans(text)
             if _is_sentence(text[begin:end])]
    if not 2 <= len(spans) <= MAX_SENTENCE_WINDOWS:
        return []
    return [TextWindow(position, begin, end)
            for position, (begin, end) in enumerate(spans, start=1)]


def _is_sentence(piece: str) -> bool:
    words = piece.split()
    if len(words) == 1:
        return len(piece) >= MIN_UNSPACED_SENTENCE_CHARS and not piece.isascii()
    return len(words) >= MIN_SENTENCE_WORDS


def window_input(text: str, window: TextWindow) -> str:
    """What is embedded for a further window: its excerpt, after the text's ``speaker:``
    label when the text has one and the window does not start with it, so a sentence of
    Dana's turn is still Dana's (recall@10 on the hard set 0.816 without, 0.824 with)."""
    excerpt = window.excerpt(text)
    label = _LABEL.match(text)
    if label is None or window.char_start < label.end() - 1:
        return excerpt
    return f"{label.group(1)}: {excerpt}"


# --- embedding ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EmbeddedDocuments:
    """Texts embedded for storage: one whole-text vector per text (window 0) and the further
    windows of long ones. Made outside any transaction by :func:`embed_documents_with_chunks`;
    written in the caller's transaction by :meth:`store`."""

    vectors: np.ndarray
    chunks: tuple[ChunkVectors, ...]

    def select(self, indices: Sequence[int]) -> EmbeddedDocuments:
        """Only these texts, in this order (e.g. the rows still current at write time)."""
        return EmbeddedDocuments(self.vectors[list(indices)],
                                 tuple(self.chunks[index] for index in indices))

    def store(self, search: SearchIndex, session: Session, kind: IndexedKind,
              ids: Sequence[int], model_id: str) -> None:
        """Write every vector and window of these rows (row ``i`` is text ``i``)."""
        search.store_embeddings(session, kind, ids, self.vectors, model_id, chunks=self.chunks)


def embed_documents_with_chunks(embedder: Embedder, texts: Sequence[str], *,
                                views: Sequence[Sequence[str]] | None = None,
                                progress: ProgressCallback | None = None,
                                cancel: CancelCheck | None = None) -> EmbeddedDocuments:
    """Embed ``texts`` as documents, with their further windows.

    Every text, view and window is its own inference, in one call to the embedder so its
    workers stay busy. A text's whole-text vector is ``embed_documents([text])``, unless
    ``views`` gives it views: then it is their normalised mean and the text itself is not
    embedded (an imported turn, ``core.embedding.turn_views``), and the text, a turn of a
    conversation, gets its sentence windows. ``progress`` counts texts (views and windows are
    weighted in), ``cancel``
    stops as ``Embedder.embed_documents`` does.
    """
    if isinstance(texts, str):
        raise TypeError("embed_documents_with_chunks takes a sequence of texts, not one string")
    own_views = [tuple(row) or (text,) for text, row in
                 zip(texts, views if views is not None else [()] * len(texts), strict=True)]
    planned = [text_windows(embedder, text, sentences=bool(row))[1:]
               for text, row in zip(texts, views or [()] * len(texts), strict=True)]
    heads = [view for row in own_views for view in row]
    excerpts = [window_input(text, window)
                for text, further in zip(texts, planned, strict=True) for window in further]
    inputs = [*heads, *excerpts]
    vectors = embedder.embed_documents(inputs, progress=_scaled(progress, len(texts),
                                                                len(inputs)), cancel=cancel)
    whole = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
    used = 0
    for row, row_views in enumerate(own_views):
        mean = vectors[used:used + len(row_views)].mean(axis=0)
        whole[row] = mean if len(row_views) == 1 else mean / max(float(np.linalg.norm(mean)),
                                                                  1e-12)
        used += len(row_views)
    chunks: list[ChunkVectors] = []
    for further in planned:
        if further:
            chunks.append(ChunkVectors(tuple(further), vectors[used:used + len(further)]))
            used += len(further)
        else:
            chunks.append(NO_CHUNKS)
    return EmbeddedDocuments(whole, tuple(chunks))


def _scaled(progress: ProgressCallback | None, texts: int,
            inputs: int) -> ProgressCallback | None:
    """Report progress through ``inputs`` embeddings as progress through ``texts``."""
    if progress is None or inputs == texts:
        return progress
    report: Callable[[int, int], None] = progress
    return lambda done, _total: report(done * texts // inputs, texts)
