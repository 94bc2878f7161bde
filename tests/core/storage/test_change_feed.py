"""The change feed: each write transaction's change set is derived from the tables it wrote
(an ORM flush, a Core statement and a text statement alike), told once it is committed
(never for a rollback), logged for other processes, and what another process or device
commits reaches a watching feed's subscribers, on both backends."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select, text, update

from core.storage import change_log, orm
from core.storage.change_log import CHANGE_LOG
from core.storage.changes import TABLE_DOMAINS, Changes, Domain
from core.storage.port import StoragePort

WAIT_SECONDS = 5.0


class Heard:
    """A subscriber that remembers what it was told and lets a test wait for it."""

    def __init__(self) -> None:
        self.told: list[Changes] = []
        self._news = threading.Condition()

    def __call__(self, changes: Changes) -> None:
        with self._news:
            self.told.append(changes)
            self._news.notify_all()

    def wait_for(self, *domains: Domain) -> bool:
        with self._news:
            return self._news.wait_for(
                lambda: any(changes.touches(*domains) for changes in self.told), WAIT_SECONDS)


def another(storage: StoragePort) -> StoragePort:
    """A second open of the same database: what another process or device has."""
    if storage.path is not None:
        from core.storage.sqlite.adapter import SqliteStorage

        return SqliteStorage(storage.path)
    from core.storage.postgres.adapter import PostgresStorage

    return PostgresStorage(storage._url)  # type: ignore[attr-defined]


@pytest.fixture
def elsewhere(storage: StoragePort) -> Iterator[StoragePort]:
    opened = another(storage)
    yield opened
    opened.close()


def fact(key: str) -> orm.UserFact:
    return orm.UserFact(key=key, value="Lisbon", category="location", source="user")


def test_every_model_table_is_named_in_the_map() -> None:
    assert set(TABLE_DOMAINS) == set(orm.Base.metadata.tables)


def test_a_write_is_told_once_committed_by_the_tables_it_wrote(storage: StoragePort) -> None:
    heard = Heard()
    storage.changes.subscribe(heard)
    with storage.write() as session:
        session.add(fact("home_city"))  # flushed by the commit
    with storage.write() as session:
        session.execute(update(orm.UserFact).values(value="Porto"))
        session.execute(text("DELETE FROM tasks WHERE id = -1"))  # as written, matching none
    with storage.write() as session:
        session.execute(select(orm.Memory))  # a read in a write: nothing changed
    assert heard.told == [Changes.of(Domain.FACTS), Changes.of(Domain.FACTS, Domain.TASKS)]


def test_a_rolled_back_write_tells_nothing_and_logs_nothing(storage: StoragePort) -> None:
    heard = Heard()
    storage.changes.subscribe(heard)
    with pytest.raises(RuntimeError), storage.write() as session:
        session.add(fact("home_city"))
        session.flush()
        raise RuntimeError("the unit of work failed")
    assert heard.told == []
    with storage.read() as session:
        assert session.scalar(select(func.count()).select_from(CHANGE_LOG)) == 0


def test_a_failing_subscriber_stops_neither_the_write_nor_the_others(
        storage: StoragePort) -> None:
    heard = Heard()
    storage.changes.subscribe(lambda _changes: 1 / 0)
    stop = storage.changes.subscribe(heard)
    with storage.write() as session:
        session.add(fact("home_city"))
    stop()
    with storage.write() as session:
        session.add(fact("employer"))
    assert heard.told == [Changes.of(Domain.FACTS)]
    with storage.read() as session:
        assert len(session.scalars(select(orm.UserFact)).all()) == 2


def test_each_change_is_logged_with_its_writer(storage: StoragePort) -> None:
    with storage.write() as session:
        session.add(fact("home_city"))
        session.add(orm.Note(title="Shopping", content="Bread"))
    with storage.write() as session:
        session.execute(select(orm.Memory))
    with storage.read() as session:
        rows = session.execute(select(CHANGE_LOG.c.origin, CHANGE_LOG.c.domains)).all()
    assert [tuple(row) for row in rows] == [(storage.changes.origin, "facts,notes")]


def test_another_writers_changes_reach_a_watching_feed(storage: StoragePort,
                                                       elsewhere: StoragePort) -> None:
    heard = Heard()
    storage.changes.subscribe(heard)
    storage.changes.watch()
    with storage.write() as session:  # its own: told once, at commit, not again by the watch
        session.add(orm.Note(title="Shopping", content="Bread"))
    with elsewhere.write() as session:
        session.add(fact("home_city"))
    assert heard.wait_for(Domain.FACTS)
    assert heard.told == [Changes.of(Domain.NOTES), Changes.of(Domain.FACTS)]


def test_a_watch_that_fell_behind_the_kept_log_is_told_everything(
        storage: StoragePort, monkeypatch: pytest.MonkeyPatch) -> None:
    with storage.write() as session:
        session.add(fact("home_city"))
    with storage.read() as session:
        after = change_log.last_id(session.connection())
    monkeypatch.setattr(change_log, "KEEP", 1)
    monkeypatch.setattr(change_log, "PRUNE_EVERY", 1)
    for key in ("a", "b", "c"):
        with storage.write() as session:
            session.add(fact(key))
    with storage.read() as session:
        found = change_log.since(session.connection(), after, "another origin")
        assert found.last == after + 3
    assert found.changes == Changes(frozenset(Domain))
