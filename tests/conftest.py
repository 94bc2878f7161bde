"""Shared fixtures: a fresh database per test (a copy of one migrated once per worker), the
real embedding model once per run, and
the hygiene every test is held to (``support.hygiene``; "Test hygiene" in
``docs/testing.md``).

Tests never touch the user's real data or settings: each test gets its own data folder
(HEARTH_HOME, below ``tmp_path``), HOME, XDG folders and ``QSettings`` files, and no system
keyring (keyring's "fail" backend, in this process and its children: a test that needs one
sets a file backend of its own); what a CLI run
in the test's process changes process-wide is checked and put back; a desktop test that
leaves a top-level widget alive fails.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.hygiene import (
    CliState,
    redirect_qsettings,
    redirect_user_folders,
    stray_widgets,
    top_level_widgets,
)
from support.templates import SqliteTemplate
from support.tiers import mark_integration

from core.config import DEFAULT_EMBEDDING_MODEL_DIR, Settings


def _test_folders_on_path() -> None:
    """Put every folder of tests on ``sys.path``, after what is there.

    pytest imports a test module by its file name (the default "prepend" import mode; no
    folder under tests/ but ``support`` is a package) and puts the module's own folder on the
    path only when it reaches it. A module that imports another's helpers the same way
    (``from test_chat_page import open_page``) finds it from any folder, in a run of one
    file too. So a test file's name is unique under tests/ (pytest refuses two alike)."""
    here = Path(__file__).resolve().parent
    for folder in sorted({path.parent for path in here.rglob("test_*.py")}):
        if str(folder) not in sys.path:
            sys.path.append(str(folder))


_test_folders_on_path()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("HEARTH_HOME", str(home))
    for name in list(os.environ):
        if name.startswith("HEARTH_") and name not in ("HEARTH_HOME", "HEARTH_MODELS_DIR"):
            monkeypatch.delenv(name)
    return home


@pytest.fixture(autouse=True)
def user_folders_isolated(tmp_path_factory: pytest.TempPathFactory,
                          monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test reads or writes the real user's configuration: HOME, the XDG folders and
    every ``QSettings`` file point into a temporary folder of the test's own (beside
    ``tmp_path``, which some tests expect to hold only what they made)."""
    root = tmp_path_factory.mktemp("user")
    for name, folder in redirect_user_folders(root).items():
        monkeypatch.setenv(name, folder)
    redirect_qsettings(root / "qsettings")
    return root


@pytest.fixture(autouse=True)
def no_system_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Nothing a test runs reaches the desktop's keyring (a database password saved by
    ``hearth migrate --switch``, a folder's key): keyring's own backend for a system
    without one, here and in every child process."""
    import keyring
    from keyring.backends.fail import Keyring as NoKeyring

    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    yield
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def cli_state_restored() -> Iterator[None]:
    """A CLI run in the test's process keeps nothing process-wide: the ``core`` logger's
    handlers (log file, notices), its level and the umask are as before, and the next
    test's commands do not inherit this one's ``--home``."""
    from cli import context

    saved = CliState()
    yield
    context.state.home = None
    left = saved.restore()
    assert not left, f"the test left handlers on the 'core' logger: {left}"


@pytest.fixture(autouse=True)
def no_stray_widgets() -> Iterator[None]:
    """A desktop test closes what it opens: after it (and pytest-qt's cleanup of what it
    registered with ``qtbot.addWidget``), no top-level widget it made is alive. Autouse
    fixtures are set up before the ones a test asks for, so this check runs after their
    teardown (``qtbot``'s, the window context's)."""
    before = top_level_widgets()
    yield
    stray = stray_widgets(before)
    assert not stray, f"the test left top-level widgets alive: {stray}"


@pytest.fixture(scope="session")
def embedder():
    """The real bge-small ONNX model, loaded once for the whole run."""
    from core.embedding import OnnxEmbedder

    return OnnxEmbedder(DEFAULT_EMBEDDING_MODEL_DIR, threads=2)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> SqliteTemplate:
    """A data folder Hearth opened once (per worker): every test that needs a new SQLite
    database or data folder gets a copy, instead of running every migration again."""
    return SqliteTemplate.make(tmp_path_factory.mktemp("template"))


@pytest.fixture
def migrated_home(isolated_home: Path, sqlite_template: SqliteTemplate) -> Path:
    """The test's data folder, as Hearth's first open leaves it (a copy of the template):
    for tests that open Hearth on a new folder but are not about creating one."""
    return sqlite_template.copy_home(isolated_home)


@pytest.fixture
def settings() -> Settings:
    return Settings()


BACKENDS = ("sqlite", "postgresql")
"""Every test that uses the ``storage`` fixture runs on each of these (``sqlite_only``
tests, which check the SQLite adapter itself, on SQLite alone)."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run each test that uses ``storage`` (directly or through another fixture) once per
    backend; the test id says which (``[sqlite]``, ``[postgresql]``)."""
    if "storage" not in metafunc.fixturenames:
        return
    only_sqlite = metafunc.definition.get_closest_marker("sqlite_only") is not None
    metafunc.parametrize("storage", ["sqlite"] if only_sqlite else list(BACKENDS),
                         indirect=True, scope="function")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:  # noqa: F821
    """One PostgreSQL with pgvector per test session (per xdist worker), on loopback with a
    random password (``support.postgres``); the tests that need it skip, saying why, only
    where none can start."""
    from support.postgres import PostgresServer, ServerUnavailable

    try:
        server = PostgresServer.start()
    except ServerUnavailable as error:
        pytest.skip(f"no PostgreSQL with pgvector can start here: {error}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database of the test's own (dropped after it)."""
    name = postgres_server.create_database()
    yield postgres_server.url(name)
    postgres_server.drop_database(name)


@pytest.fixture
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoragePort]:  # noqa: F821
    """A fresh, migrated database for one test: a SQLite file, or a PostgreSQL database
    (parametrised by ``pytest_generate_tests``)."""
    if getattr(request, "param", "sqlite") == "postgresql":
        from core.storage.postgres.adapter import PostgresStorage

        db: StoragePort = PostgresStorage(request.getfixturevalue("postgres_url"))  # noqa: F821
    else:
        from core.storage.sqlite.adapter import SqliteStorage

        template: SqliteTemplate = request.getfixturevalue("sqlite_template")
        db = SqliteStorage(template.copy_database(tmp_path / "test.db"))
    yield db
    db.close()


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:  # noqa: F821
    """An open data folder in the test's home with the real embedder (modules that need
    other settings or seeded data define their own ``hearth``)."""
    from core.app import Hearth

    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the integration tier (``support.tiers``): ``make check`` leaves it out."""
    mark_integration(items)
