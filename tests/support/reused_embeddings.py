"""The real embedder, remembering each text's vector for the rest of a test module.

``OnnxEmbedder.embed_documents`` runs one inference per text (no batching, no padding), so
a text's vector does not depend on the texts embedded with it: handing back the vector the
model gave for the same text earlier is exactly what the model would give again. Modules
that store the same corpus (or the same 3,000-word text) in most of their tests take this
as their ``embedder``, so the model runs once per text and module rather than once per
test; what the tests check (SQL, windows, rankings) still runs on the real vectors. A
call with ``progress`` or ``cancel`` goes to the model, which reports and stops as it
always does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest


class ReusedEmbeddings:
    """``inner`` (the session's real embedder), with ``embed_documents`` remembered per
    text; every other attribute is ``inner``'s own."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._vectors: dict[str, np.ndarray] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def embed_documents(self, texts: Sequence[str], *, progress: Any = None,
                        cancel: Any = None) -> np.ndarray:
        if progress is not None or cancel is not None or isinstance(texts, str) or not texts:
            return self._inner.embed_documents(texts, progress=progress, cancel=cancel)
        new = list(dict.fromkeys(text for text in texts if text not in self._vectors))
        if new:
            self._vectors.update(zip(new, self._inner.embed_documents(new), strict=True))
        return np.stack([self._vectors[text] for text in texts])


@pytest.fixture(scope="module", name="embedder")
def reused_per_module(embedder: Any) -> ReusedEmbeddings:
    """The module's ``embedder``: the session's real model, each text embedded once per
    module. A test module takes it by importing it (``from support.reused_embeddings
    import reused_per_module``), for modules whose tests store the same texts."""
    return ReusedEmbeddings(embedder)
