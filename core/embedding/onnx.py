"""Local embeddings from a bge-style ONNX model folder (``*.onnx`` + ``tokenizer.json``).

Determinism, and why every text is its own inference
----------------------------------------------------
The bundled model (bge-small-en-v1.5, int8) is *dynamically* quantised: each
``DynamicQuantizeLinear`` node picks its scale and zero point from the min/max of the whole
input tensor. In a padded batch that tensor holds the neighbours and the padding too, so a
text's vector shifts with whatever it is batched beside (measured: max abs diff ~0.03,
cosine ~0.995 between batch-32 and alone). Dedupe and idempotent imports need the same text
to give the same vector bit for bit, so:

* every text runs as its own inference: a batch of one, no padding;
* throughput comes from parallelism instead of batching: up to ``threads`` worker threads
  call one shared ``InferenceSession`` that has a single intra-op thread, so each run is
  computed on its caller's thread (onnxruntime releases the GIL and ``run`` is thread
  safe). One shared session performs the same as one session per worker and saves the
  memory of extra copies of the weights (~23 MB each, measured).

Measured on a 2-core machine: padded batch-32 ~690 docs/s (not deterministic), one text at
a time on one 2-thread session ~315 docs/s, this class with ``threads=2`` ~610 docs/s
(deterministic). ``batch_size`` is only how many texts go to the workers between progress
reports and cancel checks; with no padding there is no point sorting inputs by length.

Loading is lazy: constructing an embedder reads nothing, so the app and CLI start instantly
and a missing model is reported where it is first needed, as ``ModelUnavailableError``
with a hint. ``onnxruntime`` and ``tokenizers`` are imported on first load for the same
reason (they take ~0.1 s to import).
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from core import native_libraries
from core.embedding.protocol import CancelCheck, EmbeddingCancelled, ProgressCallback
from core.errors import ModelUnavailableError

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Tokenizer

QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
"""bge's retrieval instruction: prepended to queries only, never to stored documents."""

MAX_TOKENS = 512
"""bge's position-embedding limit; longer texts are truncated by the tokenizer (stored texts
are also cut into windows that each get a vector: ``core.embedding.chunking``)."""

MAX_INPUT_CHARS = 100 * MAX_TOKENS
"""Characters kept before tokenising. WordPiece turns any word over 100 characters into one
[UNK], so 512 tokens never need more than this; tokenising a 10 MB paste in full would
take ~10 s and ~1.5 GB only for the tokenizer to throw all but 512 tokens away."""

PREFERRED_ONNX_NAMES = ("model_quantized.onnx", "model.onnx")

MODEL_HINT = (
    "Run `make models` to fetch the bundled model, or point the embedding model folder "
    "setting at a folder with a bge-style model*.onnx and tokenizer.json."
)

_PROBE_TEXT = "Where does the user live?"
_SURROGATE = re.compile("[\ud800-\udfff]")
_REQUIRED_INPUTS = frozenset({"input_ids", "attention_mask"})
_KNOWN_INPUTS = _REQUIRED_INPUTS | {"token_type_ids"}


@dataclass(frozen=True)
class _ModelSource:
    """The files of a model folder and the identity derived from them."""

    folder: Path
    onnx: Path
    tokenizer: Path
    model_id: str


@dataclass(frozen=True)
class _Runtime:
    """Everything needed to embed, built once on first use."""

    source: _ModelSource
    tokenizer: Tokenizer = field(repr=False)
    untruncated: Tokenizer = field(repr=False)
    session: onnxruntime.InferenceSession = field(repr=False)
    input_names: frozenset[str]
    output_name: str
    dimensions: int
    max_tokens: int


class OnnxEmbedder:
    """The :class:`~core.embedding.protocol.Embedder` for bge-style ONNX model folders."""

    def __init__(self, model_dir: Path, threads: int = 2, batch_size: int = 32) -> None:
        if threads < 1 or batch_size < 1:
            raise ValueError(f"threads and batch_size must be >= 1, got {threads}, {batch_size}")
        self._model_dir = Path(model_dir)
        self._threads = threads
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._source: _ModelSource | None = None
        self._runtime: _Runtime | None = None

    @property
    def model_dir(self) -> Path:
        return self._model_dir

    @property
    def model_id(self) -> str:
        """``<folder name>@<first 12 hex of the .onnx SHA-256>``; hashes, but loads no session.

        Content-addressed so that swapping the weights in the same folder is noticed.
        """
        return self._locate().model_id

    @property
    def dimensions(self) -> int:
        """The last dimension of the model's hidden-state output (384 for bge-small)."""
        return self._load().dimensions

    @property
    def max_tokens(self) -> int:
        """Text tokens one inference sees: 512 minus the special tokens ([CLS], [SEP])."""
        return self._load().max_tokens

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character offsets of ``text``'s tokens, untruncated and without special tokens.

        Lone surrogates are replaced one for one (not re-paired as ``_clean`` does), so the
        offsets index ``text`` itself. The caller bounds the length (``MAX_CHUNKED_CHARS``).
        """
        if not isinstance(text, str):
            raise TypeError("token_offsets takes one string")
        cleaned = _SURROGATE.sub("\ufffd", text)
        starts = _slice_starts(cleaned)
        slices = [cleaned[start:end]
                  for start, end in zip(starts, [*starts[1:], len(cleaned)], strict=True)]
        # One ``encode`` of a long text holds the interpreter lock throughout (360 ms for a
        # 540 KB paste, a frozen window); ``encode_batch`` releases it. Slices end at
        # whitespace, where the tokenizer splits anyway, so the tokens are the same.
        encodings = self._load().untruncated.encode_batch(slices, add_special_tokens=False)
        return [(start + begin, start + end)
                for start, encoding in zip(starts, encodings, strict=True)
                for begin, end in encoding.offsets]

    def embed_documents(
        self,
        texts: Sequence[str],
        *,
        progress: ProgressCallback | None = None,
        cancel: CancelCheck | None = None,
    ) -> np.ndarray:
        """Embed ``texts`` as stored passages (no instruction), one inference per text."""
        if isinstance(texts, str):
            raise TypeError("embed_documents takes a sequence of texts, not one string")
        runtime = self._load()
        total = len(texts)
        if total == 0:
            return np.empty((0, runtime.dimensions), dtype=np.float32)
        rows: list[np.ndarray] = []
        with ThreadPoolExecutor(min(self._threads, total), "hearth-embed") as workers:
            for start in range(0, total, self._batch_size):
                if cancel is not None and cancel():
                    raise EmbeddingCancelled(start, total)
                chunk = texts[start:start + self._batch_size]
                rows.extend(workers.map(lambda text: _embed_one(runtime, _clean(text)), chunk))
                if progress is not None:
                    progress(len(rows), total)
        return np.stack(rows)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed a search query with bge's retrieval instruction in front."""
        return _embed_one(self._load(), QUERY_INSTRUCTION + _clean(text))

    def check(self) -> str:
        """Load the model, embed a probe and describe the result (for ``hearth doctor``).

        Raises ``ModelUnavailableError`` if the model cannot be loaded or gives a vector
        that is not finite and unit length, which a loadable but broken file can do.
        """
        started = time.perf_counter()
        vector = self.embed_query(_PROBE_TEXT)
        elapsed_ms = (time.perf_counter() - started) * 1000
        source = self._locate()
        if not np.all(np.isfinite(vector)) or abs(float(np.linalg.norm(vector)) - 1.0) > 1e-3:
            raise _unavailable(f"The embedding model {source.onnx} gives invalid vectors.")
        return (
            f"{source.model_id}: {vector.shape[0]} dimensions, {source.onnx.name} in "
            f"{source.folder}, {self._threads} worker threads, probe took {elapsed_ms:.0f} ms"
        )

    def _locate(self) -> _ModelSource:
        """Find and fingerprint the model files once; failures are not cached (retry works)."""
        source = self._source
        if source is None:
            with self._lock:
                if self._source is None:
                    self._source = _locate_files(self._model_dir)
                source = self._source
        return source

    def _load(self) -> _Runtime:
        """Build the tokenizer and session once, under the lock so threads share one copy."""
        runtime = self._runtime
        if runtime is None:
            source = self._locate()
            with self._lock:
                if self._runtime is None:
                    self._runtime = _build_runtime(source)
                runtime = self._runtime
        return runtime


def _unavailable(message: str) -> ModelUnavailableError:
    return ModelUnavailableError(message, MODEL_HINT)


def _brief(exc: BaseException) -> str:
    """The first line of a library error: onnxruntime's messages run to many lines."""
    lines = str(exc).strip().splitlines()
    return (lines[0] if lines else type(exc).__name__)[:300]


def _locate_files(folder: Path) -> _ModelSource:
    if not folder.is_dir():
        raise _unavailable(f"The embedding model folder {folder} does not exist.")
    tokenizer = folder / "tokenizer.json"
    if not tokenizer.is_file():
        raise _unavailable(f"The embedding model folder {folder} has no tokenizer.json.")
    onnx = _pick_onnx(folder)
    return _ModelSource(folder, onnx, tokenizer, f"{folder.name}@{_fingerprint(onnx)}")


def _pick_onnx(folder: Path) -> Path:
    """``model_quantized.onnx``, else ``model.onnx``, else the folder's only ``.onnx``."""
    for name in PREFERRED_ONNX_NAMES:
        if (folder / name).is_file():
            return folder / name
    candidates = sorted(path for path in folder.glob("*.onnx") if path.is_file())
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise _unavailable(f"The embedding model folder {folder} has no .onnx model file.")
    names = ", ".join(path.name for path in candidates)
    raise _unavailable(
        f"The embedding model folder {folder} has several .onnx files ({names}) and none "
        f"is named {' or '.join(PREFERRED_ONNX_NAMES)}."
    )


def _fingerprint(onnx: Path) -> str:
    digest = hashlib.sha256()
    try:
        with onnx.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise _unavailable(f"Cannot read the embedding model {onnx} ({exc.strerror}).") from exc
    return digest.hexdigest()[:12]


def _build_runtime(source: _ModelSource) -> _Runtime:
    tokenizer = _load_tokenizer(source.tokenizer)
    untruncated = _load_tokenizer(source.tokenizer, truncate=False)
    session = _open_session(source.onnx)
    input_names = frozenset(node.name for node in session.get_inputs())
    if not _REQUIRED_INPUTS <= input_names <= _KNOWN_INPUTS:
        raise _unavailable(
            f"{source.onnx} is not a bge-style model: it takes inputs {sorted(input_names)}, "
            "but Hearth feeds input_ids, attention_mask and optionally token_type_ids."
        )
    outputs = session.get_outputs()
    output = next((node for node in outputs if node.name == "last_hidden_state"), outputs[0])
    dimensions = output.shape[-1] if len(output.shape) == 3 else None
    if not isinstance(dimensions, int):
        raise _unavailable(
            f"{source.onnx} is not a bge-style model: its output {output.name} has shape "
            f"{output.shape}, not per-token hidden states [batch, tokens, fixed width]."
        )
    max_tokens = MAX_TOKENS - tokenizer.num_special_tokens_to_add(is_pair=False)
    return _Runtime(source, tokenizer, untruncated, session, input_names, output.name,
                    dimensions, max_tokens)


TOKENIZED_SLICE_CHARS = 4096
"""How much text one tokenizer call gets when a long text's offsets are measured."""


def _slice_starts(text: str) -> list[int]:
    """Where each slice of ``text`` starts: about ``TOKENIZED_SLICE_CHARS`` long, each cut
    just after whitespace, never inside a word (a word longer than a slice makes its slice
    longer), so every token is the one a single pass would make."""
    starts = [0]
    cuts = re.finditer(r"[ \t\n\r]+", text)  # whitespace for the tokenizer too (not \x1c)
    for cut in cuts:
        if cut.end() - starts[-1] >= TOKENIZED_SLICE_CHARS and cut.end() < len(text):
            starts.append(cut.end())
    return starts


def _load_tokenizer(path: Path, *, truncate: bool = True) -> Tokenizer:
    """Load ``tokenizer.json`` with truncation at 512 (or none, to measure long texts) and
    padding off (batches of one)."""
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # tokenizers raises a bare Exception for unreadable JSON
        raise _unavailable(
            f"The tokenizer {path} is damaged or not a tokenizers JSON file ({_brief(exc)})."
        ) from exc
    if truncate:
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
    else:
        tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def _open_session(path: Path) -> onnxruntime.InferenceSession:
    """One single-threaded session; parallelism comes from concurrent ``run`` calls."""
    ort = native_libraries.onnxruntime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only; they are re-raised below with context
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's pybind errors share no useful base class
        raise _unavailable(
            f"The embedding model {path} is damaged or not an ONNX model "
            f"(onnxruntime: {_brief(exc)})."
        ) from exc


def _clean(text: str) -> str:
    """Cap the length and replace lone surrogates, which the tokenizer refuses.

    Lone surrogates arrive from broken clipboard data or badly decoded files. A UTF-16
    round trip re-pairs valid surrogate pairs and turns lone ones into U+FFFD.
    """
    text = text[:MAX_INPUT_CHARS]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _embed_one(runtime: _Runtime, text: str) -> np.ndarray:
    """One text, one unpadded inference, CLS pooling, L2 normalisation.

    The same path serves queries and documents, so a vector never depends on which method
    or which worker thread produced it.
    """
    ids = np.array([runtime.tokenizer.encode(text).ids], dtype=np.int64)
    feeds = {
        "input_ids": ids,
        "attention_mask": np.ones_like(ids),
        "token_type_ids": np.zeros_like(ids),
    }
    try:
        (hidden,) = runtime.session.run(
            [runtime.output_name],
            {name: value for name, value in feeds.items() if name in runtime.input_names},
        )
    except Exception as exc:  # never let a raw onnxruntime error reach a caller
        raise _unavailable(
            f"The embedding model {runtime.source.onnx} failed while embedding ({_brief(exc)})."
        ) from exc
    cls = np.asarray(hidden[0, 0], dtype=np.float32)
    norm = float(np.linalg.norm(cls))
    return cls / norm if norm > 0 else cls
