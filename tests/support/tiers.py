"""Which tests are ``integration`` and which are the fast tier ``make check`` runs.

A test is ``integration`` when it needs what makes a test slow or heavy: a PostgreSQL
server (the ``postgres_server``/``postgres_url`` fixtures, or the ``[postgresql]`` variant of
a ``storage`` test); a language model server (its module uses ``FakeOllama``) or child
processes (its module imports ``subprocess`` or ``multiprocessing``); a whole-program run
(``tests/reliability/``); or more than a second of work, measured and listed in
``tests/slow_tests.txt`` (``python tools/slow_tests.py JUNIT.xml`` writes it from a full
run's ``--junitxml``). Everything else is the fast tier. ``make test`` runs both."""

from __future__ import annotations

import multiprocessing
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

SLOW_TESTS = Path(__file__).resolve().parents[1] / "slow_tests.txt"
HEAVY_FIXTURES = frozenset({"postgres_server", "postgres_url"})
HEAVY_MODULES = (subprocess, multiprocessing)


def measured_slow() -> frozenset[str]:
    """The node ids ``tests/slow_tests.txt`` lists (one per line; ``#`` starts a comment)."""
    if not SLOW_TESTS.is_file():
        return frozenset()
    lines = SLOW_TESTS.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _module_is_heavy(module: ModuleType | None) -> bool:
    """Whether a test module starts a model server or child processes."""
    if module is None:
        return False
    names = vars(module)
    if any(value in HEAVY_MODULES for value in names.values()):
        return True
    return any(getattr(value, "__name__", "") == "FakeOllama" for value in names.values())


def is_integration(item: pytest.Item, slow: frozenset[str]) -> bool:
    """Whether ``item`` belongs to the integration tier (see the module's docstring)."""
    if item.get_closest_marker("integration") or item.get_closest_marker("slow"):
        return True
    if "reliability" in Path(str(item.path)).parts or item.nodeid in slow:
        return True
    if HEAVY_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    if callspec is not None and callspec.params.get("storage") == "postgresql":
        return True
    return _module_is_heavy(getattr(item, "module", None))


def mark_integration(items: list[pytest.Item]) -> None:
    """Mark every integration test, so ``-m "not integration"`` leaves the fast tier."""
    slow = measured_slow()
    for item in items:
        if is_integration(item, slow):
            item.add_marker(pytest.mark.integration)
