"""Run records: stages are committed as they finish, failures are recorded, not lost."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from core.consolidation.runs import RunRecorder
from core.storage.orm import Run


def test_stages_and_counts_are_recorded(storage) -> None:
    recorder = RunRecorder(storage, "dream", trigger="scheduled")
    with recorder.stage("decay") as counts:
        counts["decayed"] = 12
    with pytest.raises(RuntimeError):
        with recorder.stage("link") as counts:
            counts["edges"] = 3
            raise RuntimeError("out of disk")
    recorder.fail("link failed", counts={"edges": 3})
    with storage.read() as session:
        run = session.scalars(select(Run)).one()
    assert (run.kind, run.trigger, run.status, run.error) == (
        "dream", "scheduled", "failed", "link failed")
    assert run.stages["decay"]["counts"] == {"decayed": 12}
    assert run.stages["decay"]["status"] == "done"
    assert run.stages["link"]["status"] == "failed"
    assert "out of disk" in run.stages["link"]["error"]
    assert run.finished_at is not None and run.finished_at >= run.started_at


def test_an_unfinished_run_stays_visible_as_running(storage) -> None:
    recorder = RunRecorder(storage, "reflection")
    with recorder.stage("parse") as counts:
        counts["facts"] = 1
    with storage.read() as session:
        run = session.get(Run, recorder.run_id)
    assert run.status == "running" and run.finished_at is None
    assert run.stages["parse"]["counts"] == {"facts": 1}
