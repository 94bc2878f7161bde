"""The embedder port: what the rest of ``core`` may assume about turning text into vectors.

Storage and recall depend on this protocol, not on ONNX, so a different local model (or a
fake in tests) can stand in without touching them. The contract is deliberately strict
about *what* comes back, because callers compare vectors from different runs:

* rows are float32 and L2-normalised, so cosine similarity is a plain dot product and
  the vector index can use inner-product distance;
* the same text always yields the same vector, bit for bit, whatever it is embedded
  beside; dedupe and idempotent re-imports rely on that;
* documents and queries may be embedded differently (asymmetric retrieval models prefix
  queries with an instruction), which is why there are two methods instead of one;
* one inference sees at most ``max_tokens`` tokens of a text; longer texts are cut into
  windows of the embedder's own tokens (``token_offsets``, ``core.embedding.chunking``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after each chunk, ending with ``(total, total)``."""

CancelCheck = Callable[[], bool]
"""Polled between chunks; returning True stops the work with :class:`EmbeddingCancelled`."""


class EmbeddingCancelled(Exception):
    """The caller's ``cancel()`` asked to stop; no partial result is returned.

    A plain exception rather than a ``HearthError``: cancelling is something the user did on
    purpose, not a failure that needs a hint.
    """

    def __init__(self, done: int, total: int) -> None:
        super().__init__(f"Embedding cancelled after {done} of {total} texts.")
        self.done = done
        self.total = total


class Embedder(Protocol):
    """Turns text into fixed-size, normalised vectors for semantic search.

    Not ``runtime_checkable`` on purpose: an ``isinstance`` check would read the properties,
    and reading ``dimensions`` loads the model (or raises if it is missing).
    """

    @property
    def model_id(self) -> str:
        """A stable name for the exact model weights.

        Stored next to every vector so that vectors from a different model (which live in
        an incompatible space) are detected and re-embedded instead of silently mixed.
        """
        ...

    @property
    def dimensions(self) -> int:
        """Length of every vector; the vector index is created with this width."""
        ...

    @property
    def max_tokens(self) -> int:
        """Tokens of a text one inference sees, special tokens not counted (510 for bge:
        512 positions minus [CLS] and [SEP]); the rest of a longer text is truncated."""
        ...

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` character offsets into ``text`` of each of its tokens, in order,
        without special tokens and without truncation: how long texts are measured and cut
        into windows (several tokens may share one character; never cut between them)."""
        ...

    def embed_documents(
        self,
        texts: Sequence[str],
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelCheck | None = None,
    ) -> np.ndarray:
        """Embed texts to be stored and searched; float32 array of shape ``(len(texts), dim)``.

        Rows are in input order and L2-normalised. ``progress`` and ``cancel`` exist because
        imports can embed thousands of texts and the user must see progress and be able to
        stop; cancelling raises :class:`EmbeddingCancelled`.
        """
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a search query; float32 array of shape ``(dim,)``, L2-normalised.

        Separate from documents because retrieval models may encode the searcher's intent
        differently from the stored passage.
        """
        ...
