"""The models behind Hearth, for the window: the user's Ollama (is it running, what is
installed, pull a model with progress), the embedded model file, the provider the settings
choose, and the embedding model with the vectors made by it (count and rebuild).

The host is passed explicitly rather than read from the settings, so the settings dialog
can ask about the address the user is typing before it is saved. Everything here talks to
the configured Ollama host only, and without retries: a person is waiting for the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from core.config import Settings
from core.errors import InvalidInputError
from core.llm.host import (
    DEFAULT_OLLAMA_HOST,
    normalise_ollama_host,
    resolve_ollama_host,
)
from core.llm.protocol import (
    CancelToken,
    LLMCancelled,
    LLMError,
    LLMProvider,
    ModelInfo,
    PullProgress,
)

if TYPE_CHECKING:  # imported when first used: the HTTP client and llama.cpp are a good part
    # of the window's cold start
    from core.app import Hearth
    from core.llm.ollama import OllamaProvider

__all__ = [
    "DEFAULT_OLLAMA_HOST", "CancelToken", "Installed", "LLMCancelled", "LLMProvider",
    "ModelInfo", "OllamaSurvey", "Pulled", "PullProgress", "Rebuilt", "StaleVectors",
    "active_model", "check_embedding_model", "embed_missing",
    "configured_provider", "count_stale_vectors", "embedded_model_problem",
    "embedding_model_in_use", "host_problem", "installed_models", "ollama_model",
    "pull_configured", "pull_model", "rebuild_vectors", "same_model",
    "survey_ollama",
]

PullStep = Callable[[str, int | None, int | None], None]
"""``(status, bytes done, bytes in all)`` for each step of a pull."""


@dataclass(frozen=True)
class OllamaSurvey:
    host: str
    running: bool
    detail: str
    """``status()``'s sentence: the version and whether the model is there, or why not."""
    models: tuple[ModelInfo, ...]
    has_model: bool
    """The model asked about is installed (it could answer now)."""


@dataclass(frozen=True)
class Pulled:
    name: str
    host: str
    configured: bool
    """The assistant's own model on the assistant's own Ollama: the assistant should be
    rebuilt to answer with it now."""


@dataclass(frozen=True)
class StaleVectors:
    """How many rows lack a vector from the running embedding model."""

    model_id: str
    count: int


@dataclass(frozen=True)
class Rebuilt:
    """A rebuild of vectors: how many were made, and where it stopped when stopped (the
    finished batches are kept, so starting again resumes)."""

    vectors: int
    stopped_at: tuple[int, int] | None
    """``(done, total)`` when it was stopped, else None."""


# --- the language model ------------------------------------------------------------------------


def configured_provider(settings: Settings) -> LLMProvider:
    """The provider the settings choose (``auto``: Ollama when it can answer, else the
    embedded model). Only the window's wiring holds it: it is handed to the assistant and
    to reflection and dreams, never shown."""
    from core.llm.selection import build_provider

    return build_provider(settings)


def active_model(provider: LLMProvider) -> str:
    """Which provider and model answer, in words (``"ollama · llama3.2:3b"``)."""
    from core.llm.selection import describe_active

    return describe_active(provider)


def same_model(wanted: str, installed: str) -> bool:
    """The same Ollama model (a name without a tag means ``:latest``)."""
    from core.llm.ollama import same_model as same

    return same(wanted, installed)


@dataclass(frozen=True)
class Installed:
    """The models installed in the Ollama the settings name (``host``), and the model the
    settings choose (``configured``)."""

    host: str
    configured: str
    models: tuple[ModelInfo, ...]


def _configured_ollama(settings: Settings) -> OllamaProvider:
    """The Ollama the user configured, with the retries the settings give."""
    from core.llm.ollama import OllamaProvider

    return OllamaProvider.from_settings(settings)


def ollama_model(settings: Settings) -> str:
    """The Ollama model the settings choose, as a pull names it."""
    provider = _configured_ollama(settings)
    provider.close()
    return provider.model


def installed_models(settings: Settings) -> Installed:
    """What the configured Ollama has installed (``LLMError`` when it cannot be asked)."""
    provider = _configured_ollama(settings)
    try:
        models = tuple(provider.list_models())
    finally:
        provider.close()
    return Installed(provider.host, provider.model, models)


def pull_configured(settings: Settings, name: str, step: PullProgress) -> None:
    """Download ``name`` into the configured Ollama, reporting each step; Ctrl-C stops it
    (pulling the same name again resumes)."""
    provider = _configured_ollama(settings)
    try:
        provider.pull(name, step)
    finally:
        provider.close()


def _ollama_at(settings: Settings, host: str | None, model: str) -> OllamaProvider:
    """A provider for ``host`` (blank: ``OLLAMA_HOST`` or the local default) and ``model``,
    without retries. Raises ``InvalidInputError`` for an address that is not usable."""
    from core.llm.ollama import OllamaProvider

    return OllamaProvider(resolve_ollama_host(host), model,
                          timeout=settings.ollama_timeout_seconds, retries=0)


def survey_ollama(settings: Settings, host: str | None, model: str) -> OllamaSurvey:
    """Ask Ollama at ``host`` about itself and ``model`` (two or three small requests)."""
    provider = _ollama_at(settings, host, model)
    try:
        verdict = provider.status()
        try:
            models = tuple(provider.list_models())
        except LLMError:  # not running: status() already said so in its own words
            return OllamaSurvey(provider.host, False, verdict.detail, (), False)
    finally:
        provider.close()
    return OllamaSurvey(provider.host, True, verdict.detail, models, verdict.available)


def pull_model(settings: Settings, host: str | None, name: str, step: PullStep,
               cancel: CancelToken | None = None) -> Pulled:
    """Download ``name`` into the Ollama at ``host``, reporting each step; a cancel stops it
    (Ollama keeps the finished parts, so pulling the same name again resumes)."""
    provider = _ollama_at(settings, host, name)
    try:
        provider.pull(name, step, cancel)
    finally:
        provider.close()
    configured = (provider.host == resolve_ollama_host(settings.ollama_host)
                  and same_model(settings.ollama_model, name))
    return Pulled(name, provider.host, configured)


def host_problem(address: str) -> str | None:
    """Why ``address`` cannot be an Ollama address, in a sentence, or None when it can."""
    try:
        normalise_ollama_host(address, source="the address")
    except InvalidInputError as exc:
        return f"{exc.message} {exc.hint or ''}".strip()
    return None


def embedded_model_problem(path: Path) -> str | None:
    """Why ``path`` cannot be the embedded model (a GGUF file), or None. Never raises."""
    from core.llm.embedded import gguf_problem

    return gguf_problem(path)


# --- the embedding model -----------------------------------------------------------------------


def check_embedding_model(folder: Path, threads: int) -> str:
    """Load the ONNX model in ``folder`` and embed a sample: its description when it works;
    raises a ``HearthError`` saying why when it does not."""
    from core.embedding import OnnxEmbedder

    return OnnxEmbedder(folder, threads=threads).check()


def embedding_model_in_use(hearth: Hearth) -> Path | None:
    """The folder of the model this Hearth opened with (None for an embedder without
    one): a new folder in the settings is used from the next start."""
    return getattr(hearth.embedder, "model_dir", None)


def count_stale_vectors(hearth: Hearth) -> StaleVectors:
    """Count the rows without a vector from the running model."""
    from core.embedding.reembed import count_needing_embedding
    from core.storage.port import IndexedKind

    model_id = hearth.embedder.model_id
    return StaleVectors(model_id, sum(count_needing_embedding(hearth.storage, kind, model_id)
                                      for kind in IndexedKind))


def embed_missing(hearth: Hearth, progress: Callable[[int, int], None] = lambda *_: None,
                  cancelled: Callable[[], bool] = lambda: False) -> dict[str, int]:
    """Embed every row that lacks a vector from the running model, in committed batches;
    the rows embedded per kind (``memory``, ``note``…). ``cancelled()`` is polled between
    batches; True stops with ``EmbeddingCancelled`` (the finished batches are kept)."""
    from core.embedding.reembed import backfill_embeddings

    counts = backfill_embeddings(hearth.storage, hearth.embedder, cancel=cancelled,
                                 progress=progress)
    return {kind.value: count for kind, count in counts.items()}


def rebuild_vectors(hearth: Hearth, progress: Callable[[int, int], None] = lambda *_: None,
                    cancelled: Callable[[], bool] = lambda: False) -> Rebuilt:
    """``embed_missing``, saying where it stopped instead of raising when ``cancelled()``."""
    from core.embedding import EmbeddingCancelled

    try:
        counts = embed_missing(hearth, progress, cancelled)
    except EmbeddingCancelled as stopped:
        return Rebuilt(stopped.done, (stopped.done, stopped.total))
    return Rebuilt(sum(counts.values()), None)


# --- the search index --------------------------------------------------------------------------


def search_index_backlog(hearth: Hearth) -> int:
    """Vectors the nearest-neighbour index must be rebuilt from before searches use it
    again (0: current, not needed at this size, or kept by the database itself). A crash, a
    restore or another program's writes can leave it behind; searches stay correct, on the
    slower exact path, until the rebuild."""
    return hearth.storage.search.search_index_backlog()


def rebuild_search_index(hearth: Hearth, progress: Callable[[int, int], None] = lambda *_: None,
                         cancelled: Callable[[], bool] = lambda: False) -> bool:
    """Rebuild what ``search_index_backlog`` counts, with ``progress(done, total)`` in
    vectors; False if ``cancelled()`` stopped it (the old state stays in use, the next start
    or dream tries again)."""
    return hearth.storage.search.refresh_search_indexes(progress=progress, cancel=cancelled)
