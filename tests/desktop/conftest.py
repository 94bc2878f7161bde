"""Fixtures for the window's tests: headless Qt, a real data folder with the real embedder,
and a context whose language model the test chooses (scripted, or the real ``ollama`` client
against the fake Ollama server).

Background jobs really run on the pool; tests wait for them with ``support.qt_waits``
(``wait_for_task``, ``wait_idle``) rather than sleeping."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Callable, Iterator

import pytest

from core.app import Hearth
from core.llm import LLMProvider
from desktop.context import AppContext
from support.scripted_llm import ScriptedLLM

@pytest.fixture
def make_ctx(qapp, isolated_home, sqlite_template, embedder
             ) -> Iterator[Callable[..., AppContext]]:
    """``make_ctx(provider_factory=...)``: an AppContext on the test's data folder (opened
    with the session's embedder; a new folder is a copy of the migrated template, one the
    test made first is opened as it is). Closed at the end of the test."""
    made: list[AppContext] = []

    def make(provider_factory: Callable[[], LLMProvider] | None = None) -> AppContext:
        hearth = Hearth.open(sqlite_template.copy_home(isolated_home), embedder=embedder)
        ctx = AppContext(hearth, provider_factory=provider_factory or (lambda: ScriptedLLM()))
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


@pytest.fixture
def ctx(make_ctx) -> AppContext:
    """A context with a scripted model that answers nothing unless a test scripts it."""
    return make_ctx()
