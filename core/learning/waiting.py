"""Learning that waits for a capable model: a chat's facts beyond the rules, its summary.

A model too small to extract facts or sum up a chat (``core.llm.capability``) must not do
it, and the work must not be lost either: when a capable model answers, it is done then.
Each piece of waiting work is an audit entry (``WAITING``) naming the job and the exchange
or chat, and its completion another (``DONE``): the audit log is already the record of
what Hearth did and why, it carries no user text here (ids only), and it needs no new
column, so an older Hearth reading the same database is not disturbed. What waits is
what has a ``WAITING`` entry and no ``DONE`` one, oldest first; `hearth status` and the
window count it.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.llm.capability import Job
from core.storage.orm import AuditEntry
from core.storage.port import StoragePort

WAITING = "model_job.waiting"
DONE = "model_job.done"
ACTOR = "learning"
Ref = int | str
"""An exchange's id (facts) or a chat's id (summaries)."""
JOBS = frozenset(job.value for job in Job)


def wait(session: Session, job: Job, ref: Ref) -> None:
    """Queue ``job`` for ``ref`` until a capable model runs it."""
    session.add(AuditEntry(action=WAITING, actor=ACTOR, arguments={"job": job.value,
                                                                   "ref": ref},
                           result_summary=f"{job.value} waits for a capable model"))


def finish(session: Session, job: Job, ref: Ref) -> None:
    """``job`` for ``ref`` is done (or has nothing left to do): it waits no more."""
    session.add(AuditEntry(action=DONE, actor=ACTOR, arguments={"job": job.value, "ref": ref},
                           result_summary=f"{job.value} done by a capable model"))


def waiting(storage: StoragePort, job: Job) -> list[Ref]:
    """What ``job`` still has to do, oldest first."""
    return _open(storage).get(job, [])


def counts(storage: StoragePort) -> dict[Job, int]:
    """How much waits, per job (jobs with nothing waiting are left out)."""
    return {job: len(refs) for job, refs in _open(storage).items() if refs}


def _open(storage: StoragePort) -> dict[Job, list[Ref]]:
    """Per job, the refs whose newest entry is ``WAITING`` (a chat closed again after a
    capable model summed it up waits again), in the order they first waited."""
    with storage.read() as session:
        rows = session.execute(select(AuditEntry.action, AuditEntry.arguments)
                               .where(AuditEntry.action.in_((WAITING, DONE)))
                               .order_by(AuditEntry.id)).all()
    state: dict[tuple[str, Ref], bool] = {}
    for action, args in rows:
        if args.get("job") in JOBS:
            state[(args["job"], args["ref"])] = action == WAITING
    found: dict[Job, list[Ref]] = {}
    for (job, ref), open_ in state.items():
        if open_:
            found.setdefault(Job(job), []).append(ref)
    return found
