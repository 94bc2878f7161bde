"""The window rebuilds a missing or stale nearest-neighbour index at start-up, in the
background, with its progress and a Stop button in the status bar (``desktop.search_index``).

The index threshold is lowered so that a few hundred memories need one; everything else is
the real store, the real index and the real workers."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sqlalchemy import insert

from core.operations import models
from core.storage.orm import Memory
from core.storage.port import IndexedKind
from core.storage.sqlite import ann
from desktop.main_window import MainWindow

MEMORIES = 300


@pytest.fixture
def indexed_ctx(make_ctx, monkeypatch):
    """A window context over a store whose memories need an index that was never built."""
    monkeypatch.setattr(ann, "ANN_MIN_ROWS", 100)
    ctx = make_ctx()
    hearth = ctx.hearth
    hearth.storage.search.ensure_dimensions(hearth.embedder.dimensions)
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((MEMORIES, hearth.embedder.dimensions)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    with hearth.storage.write() as session:
        ids = session.scalars(insert(Memory).returning(Memory.id, sort_by_parameter_order=True),
                              [{"content": f"memory {n}"} for n in range(MEMORIES)]).all()
        hearth.storage.search.store_embeddings(session, IndexedKind.MEMORY, ids, vectors,
                                               hearth.embedder.model_id)
    return ctx


def shown_window(qtbot, ctx) -> MainWindow:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    return window


def test_a_missing_index_is_rebuilt_in_the_background_at_start(qtbot, indexed_ctx) -> None:
    assert models.search_index_backlog(indexed_ctx.hearth) >= MEMORIES
    window = shown_window(qtbot, indexed_ctx)
    said: list[str] = []
    indexed_ctx.hub.status_message.connect(said.append)

    window.search_index.check()
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)

    assert said == ["The search index is up to date."]
    assert models.search_index_backlog(indexed_ctx.hearth) == 0
    assert not window.search_index.view.isVisible()


def test_stopping_the_rebuild_keeps_the_backlog_for_later(qtbot, indexed_ctx, monkeypatch) -> None:
    """Stop is pressed while the rebuild runs: the rebuild's first progress report waits for
    the click, so the real cancel check inside the rebuild is what ends it."""
    monkeypatch.setattr(ann, "BUILD_BATCH", 50)
    rebuild = models.rebuild_search_index
    clicked = threading.Event()

    def rebuild_waiting_for_the_click(hearth, progress, cancelled):
        def report(done: int, total: int) -> None:
            progress(done, total)
            clicked.wait(10)

        return rebuild(hearth, progress=report, cancelled=cancelled)

    monkeypatch.setattr(models, "rebuild_search_index", rebuild_waiting_for_the_click)
    window = shown_window(qtbot, indexed_ctx)
    said: list[str] = []
    indexed_ctx.hub.status_message.connect(said.append)

    window.search_index.check()
    qtbot.waitUntil(lambda: window.search_index.task is not None, timeout=30_000)
    assert window.search_index.view.isVisible()
    window.search_index.view.stop_button.click()
    clicked.set()
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)

    assert said[0].startswith("Rebuilding the search index was stopped")
    assert models.search_index_backlog(indexed_ctx.hearth) >= MEMORIES
    assert not window.search_index.view.isVisible()


def test_nothing_shows_when_the_index_is_current(qtbot, indexed_ctx) -> None:
    assert models.rebuild_search_index(indexed_ctx.hearth)
    window = shown_window(qtbot, indexed_ctx)
    checked: list[int] = []
    indexed_ctx.workers.start("count", lambda _t: models.search_index_backlog(
        indexed_ctx.hearth), on_done=checked.append)
    window.search_index.check()
    qtbot.waitUntil(lambda: bool(checked), timeout=30_000)

    assert checked == [0]
    assert window.search_index.task is None
    assert not window.search_index.view.isVisible()
