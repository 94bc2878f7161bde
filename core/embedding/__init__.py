"""Text embeddings: the :class:`Embedder` port and its local ONNX implementation."""

from core.embedding.onnx import MODEL_HINT, QUERY_INSTRUCTION, OnnxEmbedder
from core.embedding.protocol import CancelCheck, Embedder, EmbeddingCancelled, ProgressCallback

__all__ = [
    "MODEL_HINT",
    "QUERY_INSTRUCTION",
    "CancelCheck",
    "Embedder",
    "EmbeddingCancelled",
    "OnnxEmbedder",
    "ProgressCallback",
]
