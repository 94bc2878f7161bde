"""The change feed (``core.storage.change_feed``): what it costs and how stale a view is.

- **write**: a one-row write transaction with and without its change-log row, interleaved
  (what every writer pays so that other processes hear of it);
- **poll**: the watch's look at the database when nothing changed and when one row is new
  (SQLite: ``PRAGMA data_version``, then the log; PostgreSQL: the log read by its key);
- **reload**: reading the Facts view again (1,000 facts): what telling "everything may
  have changed" would spend in every open view on every commit, the process's own
  included, since ``data_version`` moves on those too and cannot tell them apart;
- **staleness**: a child process (another ``hearth``) sets a fact every ``STEP_SECONDS``
  and prints when each committed; the window, offscreen, has Facts open and notes when each
  is shown (its model reset). The same for a write on a thread of this process.

Run alone: ``python -m benchmarks.change_feed``; in the table: ``--only change_feed``."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import delete

from benchmarks.stats import percentiles, timed_ms
from core.storage import change_log
from core.storage.change_watch import POLL_SECONDS
from core.storage.orm import Task, UserFact
from core.storage.port import StoragePort
from core.storage.sqlite.adapter import SqliteStorage

WRITES = 400
POLLS = 400
RELOADS = 50
FACTS = 1_000
CHANGES = 20
STEP_SECONDS = 0.4
TARGET_STALE_MS = 1_000.0
"""Each view must show an outside write within a second (issue 26)."""
ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys, time
from core.app import Hearth
with Hearth.open(sys.argv[1]) as hearth:
    print("ready", flush=True)
    for n in range(int(sys.argv[2])):
        time.sleep(float(sys.argv[3]))
        hearth.facts.remember(f"outside_{n}", "Porto", category="location")
        print(n, time.time(), flush=True)
"""


def _row(benchmark: str, value: str, target: str = "") -> dict[str, str]:
    return {"benchmark": benchmark, "value": value, "target": target}


def _spread(samples: list[float], unit: str = "ms", scale: float = 1.0) -> str:
    p50, p95 = percentiles([sample * scale for sample in samples])
    return f"p50 {p50:.3g} {unit} · p95 {p95:.3g} {unit}"


def _write_costs(storage: StoragePort) -> tuple[list[float], list[float]]:
    """Milliseconds per small write transaction, logged and not, interleaved."""
    logged: list[float] = []
    unlogged: list[float] = []

    def write() -> None:
        with storage.write() as session:
            session.add(Task(title="a task"))

    append = change_log.append
    try:
        for _ in range(WRITES):
            for appends, samples in ((append, logged), (_no_row, unlogged)):
                change_log.append = appends  # what the benchmark compares
                samples.append(timed_ms(write))
    finally:
        change_log.append = append
    return logged, unlogged


def _no_row(*_args: object) -> None:
    """``change_log.append`` left out: the write as it would cost without the log."""


def _poll_costs(storage: StoragePort, probe: Callable[[], Callable] | None
                ) -> tuple[list[float], list[float]]:
    """Microseconds per poll of the watch, quiet and with one new row from elsewhere."""
    engine = storage.engine  # type: ignore[attr-defined]
    quiet: list[float] = []
    moved: list[float] = []
    with engine.connect() as connection:
        look = probe() if probe is not None else None
        last = change_log.last_id(connection)
        connection.rollback()

        def poll() -> None:
            nonlocal last
            if look is None or look(connection):
                last = change_log.since(connection, last, "the watch").last
            connection.rollback()

        poll()
        for _ in range(POLLS):
            quiet.append(timed_ms(poll) * 1000)
        for n in range(POLLS // 4):
            with storage.write() as session:
                session.add(Task(title=f"elsewhere {n}"))
            moved.append(timed_ms(poll) * 1000)
    return quiet, moved


def _reload_costs(home: Path) -> list[float]:
    from core.app import Hearth
    from core.operations import facts

    with Hearth.open(home) as hearth:
        with hearth.storage.write() as session:
            session.add_all(UserFact(key=f"fact_{n}", value=f"value {n}", category="general",
                                     source="user") for n in range(FACTS))
        samples = [timed_ms(lambda: facts.list_facts(hearth)) for _ in range(RELOADS)]
        with hearth.storage.write() as session:
            session.execute(delete(UserFact))
    return samples


def _staleness(home: Path) -> tuple[list[float], list[float]]:
    """Milliseconds from commit to the open Facts view showing it: another process's
    writes, then this process's (on a thread of its own)."""
    from PySide6.QtWidgets import QApplication

    from core.app import Hearth
    from desktop.context import AppContext
    from desktop.inspector.facts import FactsPage

    app = QApplication.instance() or QApplication([])
    ctx = AppContext(Hearth.open(home))
    view = FactsPage(ctx)
    view.show()
    view.activate()
    shown: dict[str, float] = {}

    def reset() -> None:
        now = time.time()
        for record in view.model.records():
            shown.setdefault(record.key, now)

    view.model.modelReset.connect(reset)
    committed: dict[str, float] = {}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(home), str(CHANGES),
                              str(STEP_SECONDS)], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})

    def read() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            number, _, at = line.strip().partition(" ")
            if number.isdigit():
                committed[f"outside_{number}"] = float(at)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def inside() -> None:
        for n in range(CHANGES):
            time.sleep(STEP_SECONDS)
            ctx.hearth.facts.remember(f"inside_{n}", "Lisbon", category="location")
            committed[f"inside_{n}"] = time.time()

    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.002)
    writer = threading.Thread(target=inside)
    writer.start()
    while writer.is_alive() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.002)
    settle = time.monotonic() + 2
    while time.monotonic() < settle:
        app.processEvents()
        time.sleep(0.002)
    view.close()
    ctx.close()
    stale = {key: (shown[key] - at) * 1000 for key, at in committed.items() if key in shown}
    missing = set(committed) - set(shown)
    assert not missing, f"never shown: {sorted(missing)}"
    return ([ms for key, ms in stale.items() if key.startswith("outside")],
            [ms for key, ms in stale.items() if key.startswith("inside")])


def bench_change_feed() -> list[dict[str, str]]:
    """Rows of ``{"benchmark", "value", "target"}``."""
    from core.app import Hearth
    from core.storage.sqlite.data_version import DataVersion

    rows = []
    with tempfile.TemporaryDirectory(prefix="hearth-feed-") as folder:
        storage = SqliteStorage(Path(folder) / "writes.db")
        try:
            logged, unlogged = _write_costs(storage)
            quiet, moved = _poll_costs(storage, DataVersion)
        finally:
            storage.close()
        rows.append(_row("write transaction (one row), with its change-log row",
                         _spread(logged)))
        rows.append(_row("write transaction (one row), without it", _spread(unlogged)))
        rows.append(_row("SQLite watch poll, nothing changed (data_version)",
                         _spread(quiet, "µs")))
        rows.append(_row("SQLite watch poll, one new row (data_version + log)",
                         _spread(moved, "µs")))
        rows.extend(_postgres_polls())
        home = Path(folder) / "home"
        Hearth.open(home).close()
        rows.append(_row(f"Facts view reload ({FACTS:,} facts)", _spread(_reload_costs(home))))
        outside, inside = _staleness(home)
        target = f"< {TARGET_STALE_MS:.0f} ms"
        rows.append(_row(f"view stale after another process's write (poll every "
                         f"{POLL_SECONDS * 1000:.0f} ms)",
                         f"{_spread(outside)} · max {max(outside):.0f} ms", target))
        rows.append(_row("view stale after this process's write",
                         f"{_spread(inside)} · max {max(inside):.0f} ms", target))
    return rows


def _postgres_polls() -> list[dict[str, str]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from support.postgres import PostgresServer, ServerUnavailable

    from core.storage.postgres.adapter import PostgresStorage

    try:
        server = PostgresServer.start()
    except ServerUnavailable as why:
        return [_row("PostgreSQL watch poll", f"skipped: no PostgreSQL could start ({why})")]
    try:
        name = server.create_database()
        storage = PostgresStorage(server.url(name))
        try:
            quiet, moved = _poll_costs(storage, None)
        finally:
            storage.close()
            server.drop_database(name)
    finally:
        server.stop()
    return [_row("PostgreSQL watch poll, nothing changed (log by key)", _spread(quiet, "µs")),
            _row("PostgreSQL watch poll, one new row", _spread(moved, "µs"))]


if __name__ == "__main__":
    for result in bench_change_feed():
        print(f"{result['benchmark']}: {result['value']} {result['target']}")
