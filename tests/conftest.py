"""Shared fixtures: a fresh database per test, the real embedding model once per run.

Tests never touch the user's real data folder: HEARTH_HOME points into a temporary folder
for the whole session, and each test gets its own home below ``tmp_path``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config import DEFAULT_EMBEDDING_MODEL_DIR, Settings


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HEARTH_HOME", str(home))
    for name in list(os.environ):
        if name.startswith("HEARTH_") and name not in ("HEARTH_HOME", "HEARTH_MODELS_DIR"):
            monkeypatch.delenv(name)
    return home


@pytest.fixture(autouse=True)
def cli_log_file_closed() -> Iterator[None]:
    """A CLI run in the test's process points ``core``'s log at that test's data folder;
    the next test starts without it."""
    yield
    from core.cli.logs import forget_log_file

    forget_log_file()


@pytest.fixture(scope="session")
def embedder():
    """The real bge-small ONNX model, loaded once for the whole run."""
    from core.embedding import OnnxEmbedder

    return OnnxEmbedder(DEFAULT_EMBEDDING_MODEL_DIR, threads=2)


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[SqliteStorage]:  # noqa: F821
    """A fresh, migrated database file for one test."""
    from core.storage.sqlite.adapter import SqliteStorage

    db = SqliteStorage(tmp_path / "test.db")
    yield db
    db.close()


@pytest.fixture
def hearth(isolated_home: Path, embedder) -> Iterator[Hearth]:  # noqa: F821
    """An open data folder in the test's home with the real embedder (modules that need
    other settings or seeded data define their own ``hearth``)."""
    from core.app import Hearth

    with Hearth.open(isolated_home, embedder=embedder) as opened:
        yield opened
