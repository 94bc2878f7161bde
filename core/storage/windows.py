"""The windows of a long text and their vectors: the value types the storage port takes and
gives (``StoragePort.search.store_embeddings``, a search hit's window), so they live with
the port; ``core.embedding.chunking`` plans and embeds them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TextWindow:
    """One window of a text: its position (0 is the head the whole-text vector sees, 1...
    the further windows) and its span ``[char_start, char_end)`` into the embedded text."""

    position: int
    char_start: int
    char_end: int

    def excerpt(self, text: str) -> str:
        """The window's text, from the same text the windows were planned on."""
        return text[self.char_start:self.char_end]


@dataclass(frozen=True)
class ChunkVectors:
    """The further windows of one text (positions >= 1) and their vectors, row for row."""

    windows: tuple[TextWindow, ...]
    vectors: np.ndarray

    def __post_init__(self) -> None:
        if len(self.windows) != len(self.vectors):
            raise ValueError(f"{len(self.windows)} windows but {len(self.vectors)} vectors")


NO_CHUNKS = ChunkVectors((), np.empty((0, 0), dtype=np.float32))
"""What a text that fits in one inference has."""
