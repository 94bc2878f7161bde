"""The fast tier leaves out what is heavy: a model server, child processes, PostgreSQL, a
test measured at over a second (``support.tiers``)."""

from __future__ import annotations

import subprocess
import types
from pathlib import Path

from support import tiers
from support.fake_ollama import FakeOllama


def _module(**names: object) -> types.ModuleType:
    module = types.ModuleType("test_example")
    vars(module).update(names)
    return module


def test_a_module_with_a_model_server_or_child_processes_is_heavy() -> None:
    assert tiers._module_is_heavy(_module(FakeOllama=FakeOllama))
    assert tiers._module_is_heavy(_module(subprocess=subprocess))
    assert not tiers._module_is_heavy(_module(Path=Path))


def test_the_measured_list_is_read_without_its_comments(tmp_path: Path, monkeypatch) -> None:
    listed = tmp_path / "slow_tests.txt"
    listed.write_text("# a comment\ntests/test_a.py::test_one\n\ntests/test_b.py::test_two[x]\n")
    monkeypatch.setattr(tiers, "SLOW_TESTS", listed)

    assert tiers.measured_slow() == {"tests/test_a.py::test_one", "tests/test_b.py::test_two[x]"}
