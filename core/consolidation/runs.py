"""The record of a consolidation run: one ``runs`` row per reflection, processor or dream
run, with per-stage counts and timings (shown by `hearth runs` and the Activity tab).

Each stage's result is committed as soon as the stage ends, so a run that is killed keeps
the record of what it finished; ``finish`` or ``fail`` closes it. A stage that fails keeps
its traceback in its entry (``stages[name]["traceback"]``): the one-line error is what the
Activity view shows first, the traceback is what a bug report needs, and the log of a
scheduled night may be long gone by the time someone looks. While it runs, the row is
claimed by this process (``core.storage.liveness``), so the next ``Hearth.open`` after a kill marks
it ``interrupted`` while a live run is left alone.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.orm import Session

from core.storage.liveness import RUN, claim_new_row
from core.llm.protocol import LLMCancelled
from core.storage.orm import Run, utcnow
from core.storage.port import StoragePort


class StageCancelled(Exception):
    """A stage stopped because the user (or quitting) asked it to: recorded as the stage's
    ``cancelled`` status with this sentence, never as a failure."""


CANCELLED = (StageCancelled, LLMCancelled)


class StageSkipped(Exception):
    """A stage that did not do its work, by the user's choice, and the run goes on: recorded
    as the stage's ``skipped`` status with this sentence (why, and what it means), which
    every view of the run shows. ``RunRecorder.stage`` records it and lets the run go on."""


class RunRecorder:
    """Writes one run's row as it goes."""

    def __init__(self, storage: StoragePort, kind: str, trigger: str = "manual") -> None:
        self._storage = storage
        self.run_id, self._claim = claim_new_row(
            storage, RUN, lambda session: _new_run(session, kind, trigger))

    @contextmanager
    def stage(self, name: str) -> Iterator[dict[str, Any]]:
        """Time a stage; the dict it yields collects the stage's counts. A stage that
        raises is recorded as failed (with its error), or as cancelled when it was asked
        to stop, and the error propagates (a failure with its traceback); a
        ``StageSkipped`` is recorded as skipped and goes no further. Entering the same
        stage again (once per batch) adds to its seconds; its counts are the caller's (the
        processor keeps running totals)."""
        counts: dict[str, Any] = {}
        started = time.perf_counter()
        try:
            yield counts
        except StageSkipped as exc:
            self._record_stage(name, counts, started, str(exc), status="skipped")
            return
        except CANCELLED as exc:
            self._record_stage(name, counts, started, str(exc), status="cancelled")
            raise
        except BaseException as exc:
            self._record_stage(name, counts, started, f"{type(exc).__name__}: {exc}",
                               status="failed", trace="".join(traceback.format_exception(exc)))
            raise
        self._record_stage(name, counts, started, None, status="done")

    def _record_stage(self, name: str, counts: dict[str, Any], started: float,
                      error: str | None, *, status: str, trace: str | None = None) -> None:
        entry = {"counts": counts, "seconds": round(time.perf_counter() - started, 3),
                 "status": status}
        if error:
            entry["error"] = error
        if trace:
            entry["traceback"] = trace
        with self._storage.write() as session:
            run = session.get(Run, self.run_id)
            assert run is not None
            earlier = run.stages.get(name, {})  # a stage run per batch adds up its time
            entry["seconds"] = round(earlier.get("seconds", 0.0) + entry["seconds"], 3)
            run.stages = {**run.stages, name: entry}

    def waiting(self, name: str) -> None:
        """Record that stage ``name`` was not run because the model may not do its job
        (``core.llm.capability``): its work waits for a capable model."""
        self._record_stage(name, {}, time.perf_counter(), None, status="waiting")

    def keep(self, stage: str, **records: Any) -> None:
        """Keep ``records`` in a finished stage's entry beside (not among) its counts: what
        undoing the run needs (``core.consolidation.changelog``) and no listing shows."""
        with self._storage.write() as session:
            run = session.get(Run, self.run_id)
            assert run is not None
            run.stages = {**run.stages, stage: {**run.stages.get(stage, {}), **records}}

    def finish(self, counts: dict[str, Any] | None = None, status: str = "done",
               error: str | None = None) -> None:
        """Close the run: ``done``, ``skipped`` (nothing to do), ``cancelled``, or
        ``unavailable`` (stopped early because the model could not answer: ``error`` says
        why)."""
        self._close(status, counts, error)

    def fail(self, error: str, counts: dict[str, Any] | None = None) -> None:
        self._close("failed", counts, error)

    def _close(self, status: str, counts: dict[str, Any] | None, error: str | None) -> None:
        try:
            with self._storage.write() as session:
                run = session.get(Run, self.run_id)
                assert run is not None
                run.status, run.error, run.finished_at = status, error, utcnow()
                if counts is not None:
                    run.counts = counts
        finally:
            self._claim.release()  # only now: the final state is committed (or never will be)


def _new_run(session: Session, kind: str, trigger: str) -> int:
    run = Run(kind=kind, trigger=trigger, status="running", stages={}, counts={})
    session.add(run)
    session.flush()
    return run.id
