"""Embedding throughput, and what determinism costs.

Hearth embeds every text as its own unpadded inference (see core/embedding/onnx.py) so the
same text always gives the same vector. The comparison row runs the same model the
non-deterministic way (padded batches of 32) to show the price of that choice.
"""

from __future__ import annotations

import random
import time

import numpy as np

from benchmarks.stats import percentiles, timed_ms
from core import native_libraries
from core.config import DEFAULT_EMBEDDING_MODEL_DIR
from core.embedding import OnnxEmbedder

SUBJECTS = ["my sister", "the dentist", "our landlord", "my manager", "the kids", "Grandma"]
VERBS = ["called about", "reminded me of", "complained about", "asked about", "booked"]
OBJECTS = ["the trip to Porto", "the broken boiler", "Tuesday's appointment",
           "the birthday dinner", "the quarterly report", "my knee", "the new bike"]


def sample_texts(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
            f" on day {rng.randint(1, 365)}, and I noted it down." for _ in range(count)]


def padded_batch_docs_per_second(embedder: OnnxEmbedder, texts: list[str]) -> float:
    """The same model run the fast, batch-dependent way (for comparison only)."""
    from tokenizers import Tokenizer

    folder = embedder.model_dir
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(512)
    tokenizer.enable_padding()
    ort = native_libraries.onnxruntime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    session = ort.InferenceSession(str(folder / "model_quantized.onnx"), options,
                                   providers=["CPUExecutionProvider"])
    started = time.perf_counter()
    for start in range(0, len(texts), 32):
        encoded = tokenizer.encode_batch(texts[start:start + 32])
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        session.run(None, {"input_ids": ids, "attention_mask": mask,
                           "token_type_ids": np.zeros_like(ids)})
    return len(texts) / (time.perf_counter() - started)


def bench_embedding(documents: int = 1024, queries: int = 200) -> list[dict]:
    embedder = OnnxEmbedder(DEFAULT_EMBEDDING_MODEL_DIR, threads=2, batch_size=32)
    texts = sample_texts(documents)
    embedder.embed_documents(texts[:32])  # load and warm up
    started = time.perf_counter()
    embedder.embed_documents(texts)
    deterministic = documents / (time.perf_counter() - started)
    padded = padded_batch_docs_per_second(embedder, texts)
    query_ms = [timed_ms(lambda q=q: embedder.embed_query(q)) for q in texts[:queries]]
    p50, p95 = percentiles(query_ms)
    return [
        {"benchmark": "embedding throughput (deterministic, batches of 32)",
         "value": f"{deterministic:.0f} docs/s", "target": "≥ 300 docs/s"},
        {"benchmark": "embedding throughput (padded batch 32, not deterministic)",
         "value": f"{padded:.0f} docs/s",
         "target": f"cost of determinism: {deterministic / padded:.2f}× throughput"},
        {"benchmark": "single query embedding p50 / p95",
         "value": f"{p50:.1f} / {p95:.1f} ms", "target": ""},
    ]
