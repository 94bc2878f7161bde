"""The ONNX embedder against the real bundled model (no fakes: the point is the real vectors)."""

from __future__ import annotations

import hashlib
import re
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from core.config import DEFAULT_EMBEDDING_MODEL_DIR
from core.embedding import (
    MODEL_HINT,
    QUERY_INSTRUCTION,
    Embedder,
    EmbeddingCancelled,
    OnnxEmbedder,
)
from core.errors import ModelUnavailableError

DIM = 384
TARGET = "The user's sister is called Anna and lives in Lisbon."


def mixed_texts(count: int) -> list[str]:
    """Short and long texts, so a padded batch would differ a lot from single inference."""
    base = "Notes about gardening, trains, invoices and a trip to the coast. "
    return [f"text {i}: " + base * (1 + (i * 7) % 23) for i in range(count)]


def assert_unit_rows(vectors: np.ndarray) -> None:
    assert vectors.dtype == np.float32
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=-1), 1.0, atol=1e-5)


@pytest.fixture(scope="module")
def model_files() -> Path:
    return DEFAULT_EMBEDDING_MODEL_DIR


@pytest.fixture(scope="module")
def embedder(model_files: Path) -> OnnxEmbedder:
    """Explicit threads and batch size: the chunking tests below count on 32 per chunk."""
    return OnnxEmbedder(model_files, threads=2, batch_size=32)


def test_shapes_dtype_and_normalisation(embedder: OnnxEmbedder) -> None:
    docs = embedder.embed_documents(["I live in Berlin", "Another note"])
    query = embedder.embed_query("Where do I live?")

    assert embedder.dimensions == DIM
    assert docs.shape == (2, DIM)
    assert query.shape == (DIM,)
    assert_unit_rows(docs)
    assert_unit_rows(query)


def test_satisfies_the_protocol(embedder: OnnxEmbedder) -> None:
    port: Embedder = embedder
    assert port.dimensions == DIM


def test_model_id_is_folder_name_and_onnx_hash(embedder: OnnxEmbedder, model_files: Path) -> None:
    digest = hashlib.sha256((model_files / "model_quantized.onnx").read_bytes()).hexdigest()
    assert embedder.model_id == f"{model_files.name}@{digest[:12]}"
    assert re.fullmatch(r"bge-small-en-v1\.5-int8@[0-9a-f]{12}", embedder.model_id)


def test_empty_input_and_single_string(embedder: OnnxEmbedder) -> None:
    assert embedder.embed_documents([]).shape == (0, DIM)
    with pytest.raises(TypeError):
        embedder.embed_documents("not a list")


def test_query_instruction_applies_to_queries_only(embedder: OnnxEmbedder) -> None:
    query = embedder.embed_query(TARGET)
    as_document = embedder.embed_documents([TARGET])[0]
    with_instruction = embedder.embed_documents([QUERY_INSTRUCTION + TARGET])[0]

    assert not np.array_equal(query, as_document)
    assert float(query @ as_document) > 0.8
    assert np.array_equal(query, with_instruction)


def test_same_text_same_vector_alone_in_a_batch_and_later(embedder: OnnxEmbedder) -> None:
    texts = mixed_texts(40)
    texts[17] = TARGET
    alone = embedder.embed_documents([TARGET])[0]
    in_batch = embedder.embed_documents(texts)[17]
    embedder.embed_documents(mixed_texts(10))
    later = embedder.embed_documents([TARGET])[0]

    assert np.array_equal(alone, in_batch)
    assert np.array_equal(alone, later)


def test_vectors_do_not_depend_on_threads_or_chunking(
    embedder: OnnxEmbedder, model_files: Path
) -> None:
    texts = mixed_texts(12)
    other = OnnxEmbedder(model_files, threads=1, batch_size=5)
    assert np.array_equal(embedder.embed_documents(texts), other.embed_documents(texts))
    assert np.array_equal(embedder.embed_query(TARGET), other.embed_query(TARGET))


def test_results_keep_input_order(embedder: OnnxEmbedder) -> None:
    texts = mixed_texts(9)
    batch = embedder.embed_documents(texts)
    singles = np.stack([embedder.embed_documents([text])[0] for text in texts])
    assert np.array_equal(batch, singles)


def test_ranking_sanity(embedder: OnnxEmbedder) -> None:
    query = embedder.embed_query("What city does the user live in?")
    berlin, pizza = embedder.embed_documents(["I live in Berlin", "I like pizza"])
    assert float(query @ berlin) > float(query @ pizza)


def test_concurrent_first_use_loads_once(model_files: Path) -> None:
    fresh = OnnxEmbedder(model_files, threads=2)
    results: list[np.ndarray] = []
    runtimes: set[int] = set()

    def worker() -> None:
        results.append(fresh.embed_query(TARGET))
        runtimes.add(id(fresh._load()))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(results) == 4 and len(runtimes) == 1
    assert all(np.array_equal(results[0], vector) for vector in results)


def test_missing_folder_is_lazy_and_explains(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    lazy = OnnxEmbedder(missing)  # constructing reads nothing

    with pytest.raises(ModelUnavailableError) as caught:
        lazy.embed_query("hello")
    assert str(missing) in caught.value.message
    assert caught.value.hint == MODEL_HINT
    assert "make models" in str(caught.value)
    with pytest.raises(ModelUnavailableError):
        _ = lazy.model_id


def test_missing_tokenizer_or_onnx(tmp_path: Path, model_files: Path) -> None:
    only_onnx = tmp_path / "only-onnx"
    only_onnx.mkdir()
    (only_onnx / "model.onnx").write_bytes(b"x")
    only_tokenizer = tmp_path / "only-tokenizer"
    only_tokenizer.mkdir()
    shutil.copy(model_files / "tokenizer.json", only_tokenizer)

    with pytest.raises(ModelUnavailableError, match="tokenizer.json"):
        OnnxEmbedder(only_onnx).embed_documents(["x"])
    with pytest.raises(ModelUnavailableError, match=r"no \.onnx"):
        OnnxEmbedder(only_tokenizer).embed_documents(["x"])


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_corrupt_onnx_is_model_unavailable(tmp_path: Path, model_files: Path, damage: str) -> None:
    shutil.copy(model_files / "tokenizer.json", tmp_path)
    with (model_files / "model_quantized.onnx").open("rb") as source:
        truncated = source.read(1 << 20)
    content = b"\x00not an onnx model\xff" * 1000 if damage == "garbage" else truncated
    (tmp_path / "model.onnx").write_bytes(content)

    with pytest.raises(ModelUnavailableError, match="make models") as caught:
        OnnxEmbedder(tmp_path).embed_query("hello")
    assert str(tmp_path / "model.onnx") in caught.value.message


def test_corrupt_tokenizer_is_model_unavailable(tmp_path: Path, model_files: Path) -> None:
    shutil.copy(model_files / "model_quantized.onnx", tmp_path)
    (tmp_path / "tokenizer.json").write_text("{ not json", encoding="utf-8")
    with pytest.raises(ModelUnavailableError, match="tokenizer"):
        OnnxEmbedder(tmp_path).embed_documents(["hello"])


def test_odd_unicode_and_huge_text(embedder: OnnxEmbedder) -> None:
    odd = [
        "",
        "   ",
        "emoji 😀🎉👩‍👩‍👧",
        "RTL: שלום עולם مرحبا بالعالم",
        "NUL\x00inside",
        "lone \ud800 high and \udc00 low surrogates",
        "\ud83d",
        "x" * 100_000,
        "word " * 20_000,
    ]
    vectors = embedder.embed_documents(odd)
    assert vectors.shape == (len(odd), DIM)
    assert_unit_rows(vectors)
    assert_unit_rows(embedder.embed_query("where is \udfff ?"))


def test_cancel_stops_between_chunks(embedder: OnnxEmbedder) -> None:
    polls = iter([False, True])
    with pytest.raises(EmbeddingCancelled) as caught:
        embedder.embed_documents(mixed_texts(40), cancel=lambda: next(polls))
    assert (caught.value.done, caught.value.total) == (32, 40)


def test_progress_reports_each_chunk(embedder: OnnxEmbedder) -> None:
    calls: list[tuple[int, int]] = []
    embedder.embed_documents(mixed_texts(70), progress=lambda *call: calls.append(call))
    assert calls == [(32, 70), (64, 70), (70, 70)]


def test_check_describes_the_model(embedder: OnnxEmbedder) -> None:
    report = embedder.check()
    assert embedder.model_id in report
    assert str(DIM) in report


def test_token_offsets_of_a_long_text_are_those_of_one_pass(embedder: OnnxEmbedder) -> None:
    # measured in slices (so the tokenizer never holds the interpreter for long), the
    # offsets must be exactly those of tokenizing the whole text at once
    words = ["naïve", "café", "Dr.", "日本語", "x" * 5000, "well-known", "e-mail:",
             "a@b.org", "\n\n", "🙂", "tab\tseparated", "end."]
    text = " ".join(words[n % len(words)] for n in range(6000))
    whole = embedder._load().untruncated.encode(text, add_special_tokens=False)
    assert embedder.token_offsets(text) == list(whole.offsets)
