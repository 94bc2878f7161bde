"""Claims on unfinished rows and the reconciliation at open (``core.storage.liveness``): a row whose
claim is held (a live process, here this one) is left alone; one whose claim is free or
missing is marked interrupted, keeping what it had. On both backends: lock files beside a
SQLite file, advisory locks on a PostgreSQL server."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from core.storage.liveness import INTERACTION, RUN, reconcile
from core.storage.file_claims import FileClaims
from core.storage.orm import ChatSession, Interaction, Run
from core.storage.port import StoragePort
from core.storage.sqlite.adapter import SqliteStorage


def add_rows(storage: StoragePort) -> tuple[list[int], list[int]]:
    with storage.write() as session:
        session.add(ChatSession(id="s1", title="chat", source="chat"))
        exchanges = [Interaction(session_id="s1", user_message=f"question {n}",
                                 agent_response="a partial rep", status="pending")
                     for n in range(3)]
        runs = [Run(kind="dream", status="running", stages={"backup": {"status": "done"}})
                for _ in range(2)]
        session.add_all([*exchanges, *runs])
        session.flush()
        return [e.id for e in exchanges], [r.id for r in runs]


def test_free_or_missing_claims_are_interrupted_and_held_ones_left_alone(
        storage: StoragePort) -> None:
    exchanges, runs = add_rows(storage)
    claims = storage.claims
    live_exchange = claims.hold(INTERACTION, exchanges[0])
    live_run = claims.hold(RUN, runs[0])
    claims.hold(INTERACTION, exchanges[1]).release()  # finished its claim, never its row
    # exchanges[2] was never claimed: written by a Hearth before claims existed

    done = reconcile(storage)

    assert (list(done.interactions), list(done.runs)) == ([exchanges[1], exchanges[2]],
                                                          [runs[1]])
    with storage.read() as session:
        status = {e.id: (e.status, e.agent_response) for e in session.scalars(
            select(Interaction))}
        run_rows = {r.id: r for r in session.scalars(select(Run))}
    assert status[exchanges[0]] == ("pending", "a partial rep")
    assert status[exchanges[1]] == status[exchanges[2]] == ("interrupted", "a partial rep")
    assert run_rows[runs[0]].status == "running"
    killed = run_rows[runs[1]]
    assert (killed.status, killed.stages) == ("interrupted", {"backup": {"status": "done"}})
    assert killed.finished_at is not None
    live_exchange.release()
    live_run.release()
    assert not claims.alive(INTERACTION, exchanges[0]) and not claims.alive(RUN, runs[0])
    if isinstance(claims, FileClaims):
        assert claims.folder is not None and not list(claims.folder.iterdir())


def test_a_reused_id_whose_old_owner_still_runs_gets_a_claim_of_its_own(
        storage: StoragePort) -> None:
    claims = storage.claims
    old_owner = claims.hold(INTERACTION, 7)
    new_owner = claims.hold(INTERACTION, 7)  # never waits for the old one
    old_owner.release()
    assert claims.alive(INTERACTION, 7)      # the new owner's claim still says so
    new_owner.release()
    assert not claims.alive(INTERACTION, 7)


@pytest.mark.sqlite_only("claim files are SQLite's; the server drops a dead process's "
                         "advisory locks itself")
def test_unheld_claim_files_are_swept_and_held_ones_kept(storage: SqliteStorage) -> None:
    claims = storage.claims
    assert isinstance(claims, FileClaims) and claims.folder is not None
    claims.folder.mkdir()
    (claims.folder / "run-3.lock").touch()  # left by a killed process
    held = claims.hold(RUN, 4)
    claims.sweep()
    assert sorted(p.name for p in claims.folder.iterdir()) == ["run-4.lock"]
    held.release()


def test_a_database_without_a_folder_has_nothing_to_reconcile() -> None:
    memory = SqliteStorage(None)
    try:
        add_rows(memory)
        assert list(reconcile(memory).interactions) == []
        assert memory.claims.alive(RUN, 1)
    finally:
        memory.close()
