"""Which language model answers, and how to name it on a status line.

``llm_provider`` decides: ``"ollama"`` and ``"embedded"`` are honoured as they are (an
unreachable Ollama then fails at first use with its own plain message, rather than being
swapped for another model behind the user's back). ``"auto"``, the default, asks Ollama
once, quickly (``OllamaProvider.status()``: two small requests with a 2-second timeout),
and uses it when it answers *and* has the configured model installed; otherwise the
embedded model, so a fresh machine without Ollama still has an assistant. The choice is
made once per start, not per message: switching models mid-conversation would change the
context window and the voice of the chat under the user's feet.

Building a provider never loads a model: the embedded one loads on first use.
"""

from __future__ import annotations

import logging

from core.config import Settings
from core.llm.embedded import EmbeddedProvider
from core.llm.ollama import OllamaProvider
from core.llm.protocol import LLMProvider

log = logging.getLogger(__name__)


def build_provider(settings: Settings) -> LLMProvider:
    """The provider the settings ask for (see the module docstring for ``auto``).

    Raises ``InvalidInputError`` when the Ollama address in the settings or in
    ``OLLAMA_HOST`` is not a usable URL: a typo is reported, not silently bypassed."""
    if settings.llm_provider == "embedded":
        return EmbeddedProvider.from_settings(settings)
    ollama = OllamaProvider.from_settings(settings)
    if settings.llm_provider == "ollama":
        return ollama
    verdict = ollama.status()
    if verdict.available:
        return ollama
    ollama.close()
    log.info("using the embedded model: %s", verdict.detail)
    return EmbeddedProvider.from_settings(settings)


def describe_active(provider: LLMProvider) -> str:
    """``"ollama · llama3.2:3b"``: which provider and model are answering."""
    return f"{provider.name} · {provider.model}"
