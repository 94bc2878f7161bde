"""The dream cycle orchestrator on real storage with the real embedder: lock, backup first,
stage order and records, one stage, cancellation, failures, and a SIGKILL mid-stage."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import typer
from sqlalchemy import select
from support.scripted_llm import ScriptedLLM
from typer.testing import CliRunner

from core.app import Hearth
from core.storage.backups import list_backups
from core import consolidation
from cli import context, dream_cmd
from core.consolidation.dream import (
    STAGES,
    DreamAlreadyRunning,
    DreamCycle,
    dream_lock,
    load_pluggable,
)
from core.errors import InvalidInputError
from core.llm.protocol import CancelToken, LLMUnavailableError
from core.knowledge.memories import MemorySpec
from core.storage.orm import Memory, MemoryEdge, Run

CHILD = Path(__file__).parents[2] / "support" / "dream_child.py"

SEED = [
    "My sister Ines lives in Porto.", "Ines moved to Porto last spring for her new job.",
    "The router keeps dropping the wifi connection.",
    "The wifi has been unreliable since the router update.",
    "I started physiotherapy for my knee.",
    "The doctor said my knee pain should improve with stretching.",
    "Anna recommended the book Piranesi.",
    "I am reading Piranesi by Susanna Clarke, Anna's suggestion.",
    "Flight to Osaka on March 3, seat 12A.",
    "I booked the trip to Japan; landing in Osaka in early March.",
    "Liam is allergic to peanuts.", "Avoid peanuts when cooking for Liam.",
    "The quarterly report is due on Friday.",
    "I need to finish the quarterly report before Friday's deadline.",
    "I prefer green tea in the morning.", "Mornings start with a cup of green tea for me.",
    "Fixed the backup script by deleting the lock file.",
    "The backup script failed until I removed its stale lock file.",
    "I want to try trail running next summer.", "Felt stressed and slept badly this week.",
]


MODEL_FREE = ("process", "decay", "link", "rem", "reflect", "summaries")
"""Stages that need no model on this seed (no events, no conversations); the others meet a
model that is down, which must leave nothing half-written."""


def model_down() -> ScriptedLLM:
    """The same for every run, so a killed-and-resumed run and a clean one can be compared."""
    return ScriptedLLM(lambda *_: LLMUnavailableError("Ollama is not running.", "Start it."))


def seeded(home: Path, embedder: Any) -> Hearth:
    hearth = Hearth.open(home, embedder=embedder)
    hearth.memories.add_many([MemorySpec(text) for text in SEED])
    return hearth


@pytest.fixture
def hearth(isolated_home: Path, embedder: Any) -> Iterator[Hearth]:
    opened = seeded(isolated_home, embedder)
    yield opened
    opened.close()


def graph(hearth: Hearth) -> dict[str, Any]:
    """What a dream run leaves in the store, comparable between two databases."""
    with hearth.storage.read() as session:
        edges = sorted((e.from_id, e.to_id, e.kind, round(e.weight, 4))
                       for e in session.scalars(select(MemoryEdge)))
        memories = sorted((m.id, m.content, m.is_valid, m.superseded_by)
                          for m in session.scalars(select(Memory)))
    return {"edges": edges, "memories": memories}


def run_row(hearth: Hearth, run_id: int) -> Run:
    with hearth.storage.read() as session:
        run = session.get(Run, run_id)
        assert run is not None
        session.expunge(run)
        return run


def dream_runs(hearth: Hearth) -> list[Run]:
    with hearth.storage.read() as session:
        rows = list(session.scalars(select(Run).where(Run.kind == "dream").order_by(Run.id)))
        for row in rows:
            session.expunge(row)
        return rows


def test_full_run_records_every_stage_in_order_with_counts(hearth: Hearth) -> None:
    seen: list[str] = []
    report = DreamCycle(hearth.consolidation(), model_down()).run(
        progress=lambda stage, done, total: seen.append(stage) if done == total == 0 else None)

    available = [name for name in STAGES if report.stages[name].status != "unavailable"]
    assert seen == available  # in STAGES order, each announced once
    assert list(report.stages) == ["backup", *STAGES]
    row = run_row(hearth, report.run_id)
    assert list(row.stages) == ["backup", *available]
    assert all(row.stages[name]["status"] == "done" for name in ("backup", *MODEL_FREE))
    unfinished = [n for n, s in report.stages.items() if s.status != "done"]
    edges = graph(hearth)["edges"]
    knn = [e for e in edges if e[2] == "knn"]
    assert knn and row.stages["link"]["counts"]["edges"] == len(knn)
    assert row.stages["decay"]["counts"]["memories"] == len(SEED)
    assert row.stages["process"]["counts"]["status"] == "skipped"  # no events pending
    assert report.stages["reflect"].counts["skipped"] is True       # no conversations
    assert row.status == ("partial" if unfinished else "done") == report.status
    assert row.counts.get("unavailable", []) == [
        n for n in unfinished if report.stages[n].status == "unavailable"]


def test_a_missing_stage_module_is_unavailable_but_a_broken_one_raises(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_pluggable("no_such_stage") is None
    (tmp_path / "broken_stage.py").write_text("import no_such_dependency_for_hearth\n")
    monkeypatch.setattr(consolidation, "__path__", [*consolidation.__path__, str(tmp_path)])
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_for_hearth"):
        load_pluggable("broken_stage")


def test_backup_is_taken_before_any_stage_writes(hearth: Hearth) -> None:
    seen_backups: list[list[Path]] = []

    def first_stage(*_: Any) -> dict[str, Any]:
        seen_backups.append([b.path for b in list_backups(hearth.paths)])
        return {}

    cycle = DreamCycle(hearth.consolidation(), model_down(), stages={"process": first_stage})
    report = cycle.run(only="process")
    assert report.backup is not None and Path(report.backup).is_file()
    assert seen_backups == [[Path(report.backup)]]
    row = run_row(hearth, report.run_id)
    assert list(row.stages)[0] == "backup"
    assert row.stages["backup"]["counts"]["path"] == report.backup
    assert row.counts == {"backup": report.backup, "only": "process"}


def test_only_runs_one_stage_with_lock_backup_and_record(hearth: Hearth) -> None:
    report = DreamCycle(hearth.consolidation(), model_down()).run(only="link")
    assert list(report.stages) == ["backup", "link"]
    assert report.status == "done"
    assert report.stages["link"].counts["edges"] == len(graph(hearth)["edges"]) > 0
    with pytest.raises(InvalidInputError, match="no dream stage called 'sleep'"):
        DreamCycle(hearth.consolidation(), model_down()).run(only="sleep")


def test_a_second_run_is_refused_while_the_lock_is_held(hearth: Hearth) -> None:
    fd = os.open(hearth.paths.home / "dream.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(DreamAlreadyRunning) as refused:
            DreamCycle(hearth.consolidation(), model_down()).run()
        assert "already running" in refused.value.message and refused.value.hint
    finally:
        os.close(fd)
    assert dream_runs(hearth) == []          # refused before anything was written
    assert list_backups(hearth.paths) == []
    with dream_lock(hearth.storage):      # released with the descriptor
        pass


def test_cancel_inside_a_stage_stops_the_run_and_the_next_run_resumes(
        hearth: Hearth) -> None:
    cancel = CancelToken()

    def cancel_at_link(stage: str, _done: int, _total: int) -> None:
        if stage == "link":
            cancel.cancel()

    first = DreamCycle(hearth.consolidation(), model_down()).run(progress=cancel_at_link,
                                                                 cancel=cancel)
    assert first.status == "cancelled"
    assert first.stages["link"].status == "cancelled"  # cut short, so not finished
    assert first.stages["link"].error == "Cancelled while linking memories."
    assert "rem" not in first.stages and "reflect" not in first.stages
    assert [e for e in graph(hearth)["edges"] if e[2] == "knn"] == []

    second = DreamCycle(hearth.consolidation(), model_down()).run()
    assert second.resumed_from == first.run_id
    assert second.stages["decay"].status == "resumed"
    assert second.stages["decay"].counts == {**first.stages["decay"].counts,
                                             "resumed_from": first.run_id}
    assert second.stages["link"].status == "done" and second.stages["rem"].status == "done"
    assert run_row(hearth, first.run_id).status == "cancelled"


def test_a_hard_interrupt_fails_the_run_which_resumes_only_within_the_window(
        hearth: Hearth) -> None:
    def interrupted(*_: Any) -> dict[str, Any]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        DreamCycle(hearth.consolidation(), model_down(), stages={"link": interrupted}).run()
    (stopped,) = dream_runs(hearth)
    assert stopped.status == "failed" and stopped.stages["decay"]["status"] == "done"
    with dream_lock(hearth.storage):       # the lock went with the exception
        pass

    with hearth.storage.write() as session:   # the same run, found a day later
        row = session.get(Run, stopped.id)
        assert row is not None
        row.started_at = row.started_at - timedelta(days=1)
    late = DreamCycle(hearth.consolidation(), model_down()).run()
    assert late.resumed_from is None and late.stages["decay"].status == "done"

    with pytest.raises(KeyboardInterrupt):    # a fresh failed run is resumed
        DreamCycle(hearth.consolidation(), model_down(), stages={"link": interrupted}).run()
    soon = DreamCycle(hearth.consolidation(), model_down()).run()
    assert soon.resumed_from == dream_runs(hearth)[-2].id
    assert soon.stages["decay"].status == "resumed" and soon.stages["link"].status == "done"


def test_a_failing_stage_is_recorded_and_the_independent_ones_still_run(
        hearth: Hearth, caplog: pytest.LogCaptureFixture) -> None:
    def broken(*_: Any) -> dict[str, Any]:
        raise RuntimeError("disk on fire")

    with caplog.at_level(logging.ERROR, logger="core.consolidation.dream"):
        report = DreamCycle(hearth.consolidation(), model_down(), stages={"decay": broken}).run()
    assert report.status == "partial"
    assert report.stages["decay"].status == "failed"
    assert report.stages["decay"].error == "RuntimeError: disk on fire"
    assert all(report.stages[name].status == "done" for name in MODEL_FREE if name != "decay")
    run = run_row(hearth, report.run_id)
    assert run.status == "partial"
    # where it raised is kept twice: with the run (for the Activity view) and in the log
    stored = run.stages["decay"]["traceback"]
    assert stored.startswith("Traceback (most recent call last):")
    assert 'raise RuntimeError("disk on fire")' in stored
    assert "in broken" in stored
    logged = [r for r in caplog.records if r.exc_info and "decay" in r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info[1].args == ("disk on fire",)
    assert "traceback" not in run.stages["link"]  # only a failure carries one


def test_sigkill_mid_stage_then_the_next_run_resumes_with_nothing_lost_or_duplicated(
        tmp_path: Path, embedder: Any) -> None:
    killed_home, clean_home = tmp_path / "killed", tmp_path / "clean"
    seeded(killed_home, embedder).close()
    shutil.copytree(killed_home, clean_home, ignore=shutil.ignore_patterns("*.lock"))

    child = subprocess.Popen([sys.executable, str(CHILD), str(killed_home), "link"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        lines = []
        for line in child.stdout:
            lines.append(line)
            if line.startswith("MIDSTAGE link"):
                break
        else:
            pytest.fail(f"the child never reached the link stage: {lines} "
                        f"{child.stderr.read() if child.stderr else ''}")
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    with Hearth.open(killed_home, embedder=embedder) as resumed_hearth:
        partial = graph(resumed_hearth)["edges"]
        (killed,) = dream_runs(resumed_hearth)
        assert killed.status == "interrupted"                # marked at open: its owner is gone
        assert "link" not in killed.stages
        assert 0 < len(partial)                              # the kill left part of link
        report = DreamCycle(resumed_hearth, model_down()).run()  # takes the lock
        after = graph(resumed_hearth)
        assert report.resumed_from == killed.id
        assert report.stages["decay"].status == "resumed"
        assert report.stages["link"].status == "done"

    with Hearth.open(clean_home, embedder=embedder) as clean_hearth:
        DreamCycle(clean_hearth, model_down()).run()
        assert after == graph(clean_hearth)                 # nothing lost or duplicated
    assert len(partial) < len([e for e in after["edges"] if e[2] == "knn"])


def test_cli_dream_one_stage_as_json(hearth: Hearth, monkeypatch: pytest.MonkeyPatch) -> None:
    hearth.close()   # the command opens the folder itself
    monkeypatch.setattr(context.state, "home", hearth.paths.home)
    app = typer.Typer()
    app.command()(dream_cmd.dream)
    result = CliRunner().invoke(app, ["--stage", "decay", "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["status"] == "done"
    assert list(printed["stages"]) == ["backup", "decay"]
    assert printed["stages"]["decay"]["counts"]["memories"] == len(SEED)


def test_cli_dream_ends_with_what_changed(hearth: Hearth, monkeypatch: pytest.MonkeyPatch) -> None:
    hearth.close()
    monkeypatch.setattr(context.state, "home", hearth.paths.home)
    app = typer.Typer()
    app.command()(dream_cmd.dream)
    result = CliRunner().invoke(app, ["--stage", "link"])
    assert result.exit_code == 0, result.output
    assert "What changed:\n" in result.stdout
    assert "links between related memories" in result.stdout
    assert "Forgot nothing: every memory is still there." in result.stdout
