"""What the user's Ollama has to offer: is it running, which models are installed, and is
the one Hearth is set to use among them. Run in a worker; both the settings and the
welcome ask it.

The host is passed explicitly rather than read from the settings, so the settings dialog
can look at the address the user is typing before it is saved.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.config import Settings
from core.llm.host import resolve_ollama_host
from core.llm.ollama import OllamaProvider
from core.llm.protocol import LLMError, ModelInfo


@dataclass(frozen=True)
class OllamaSurvey:
    host: str
    running: bool
    detail: str
    """``status()``'s sentence: the version and whether the model is there, or why not."""
    models: tuple[ModelInfo, ...]
    has_model: bool
    """The model asked about is installed (it could answer now)."""


def ollama_at(settings: Settings, host: str | None, model: str) -> OllamaProvider:
    """A provider for ``host`` (blank: ``OLLAMA_HOST`` or the local default) and ``model``,
    without retries: a person is waiting for the answer. Raises ``InvalidInputError`` for
    an address that is not usable."""
    return OllamaProvider(resolve_ollama_host(host), model,
                          timeout=settings.ollama_timeout_seconds, retries=0)


def survey_ollama(settings: Settings, host: str | None, model: str) -> OllamaSurvey:
    """Ask Ollama at ``host`` about itself and ``model`` (two or three small requests)."""
    provider = ollama_at(settings, host, model)
    try:
        verdict = provider.status()
        try:
            models = tuple(provider.list_models())
        except LLMError:  # not running: status() already said so in its own words
            return OllamaSurvey(provider.host, False, verdict.detail, (), False)
    finally:
        provider.close()
    return OllamaSurvey(provider.host, True, verdict.detail, models, verdict.available)
