"""Recall runs its vector side (query embedding, vector searches) on a worker thread while
the full-text searches run on the caller's: real database, real model. The results must be
those of the sequential path, and no session may be used by two threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy.orm import Session

from core.config import Settings
from core.knowledge.memories import MemoryService, MemorySpec
from core.knowledge.notes import NoteService
from core.recall import RecallQuery, RecallResult, RecallService
from core.storage.port import IndexedKind, StoragePort
from core.storage.sqlite.adapter import SqliteStorage

MEMORIES = [
    "My sister Ines lives in Porto and works as a nurse at the children's hospital.",
    "Ines's birthday is on the 14th of March; she loves dark chocolate.",
    "I'm allergic to penicillin; it gave me a bad rash as a child.",
    "The office printer jams unless you use tray B; the replacement roller XK-4471 is on order.",
    "I prefer green tea over coffee in the mornings.",
    "Dad had knee surgery last spring and still struggles with stairs.",
    "The replacement filter XK-4417 for the vacuum cleaner arrived today.",
    "We adopted a grey cat called Miso from the shelter in 2021.",
]
QUESTIONS = ["where does my sister live", "which medicine am I allergic to",
             "replacement part XK-4471", "what is our pet called", "knee stairs",
             "quantum chromodynamics lecture"]


class OneThreadStorage:
    """The real storage, saying that its reads cannot run on two threads at once."""

    concurrent_reads = False

    def __init__(self, inner: StoragePort) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class WatchedIndex:
    """The real search index, recording which thread used which session for what."""

    def __init__(self, inner: Any, calls: list[tuple[str, int, Session]]) -> None:
        self.inner, self.calls = inner, calls

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def text_search(self, session: Session, *args: Any) -> Any:
        self.calls.append(("text", threading.get_ident(), session))
        return self.inner.text_search(session, *args)

    def vector_search(self, session: Session, *args: Any) -> Any:
        self.calls.append(("vector", threading.get_ident(), session))
        return self.inner.vector_search(session, *args)


class WatchedStorage:
    """The real storage, recording the thread that opened each read session."""

    def __init__(self, inner: StoragePort) -> None:
        self.inner = inner
        self.opened: dict[int, int] = {}  # id(session) -> thread
        self.calls: list[tuple[str, int, Session]] = []
        self.search = WatchedIndex(inner.search, self.calls)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self.inner.read() as session:
            self.opened[id(session)] = threading.get_ident()
            yield session


@pytest.fixture
def corpus(storage: StoragePort, embedder: Any) -> list[int]:
    ids = MemoryService(storage, embedder).add_many([MemorySpec(text) for text in MEMORIES])
    NoteService(storage, embedder).save("Porto trip", "Visit Ines; she lives near the river.")
    return ids


def comparable(results: list[RecallResult]) -> list[tuple[Any, ...]]:
    """What a result says, without the recency figures (their clock moves between runs)
    and with the spread's penalty rounded as the score is (it scales with the best score,
    recency included)."""
    def steady(name: str, value: dict[str, Any]) -> dict[str, Any]:
        return {**value, "penalty": round(value["penalty"], 4)} if name == "diversity" else value

    return [(r.kind, r.id, r.text, round(r.score, 4), r.excerpt, r.passage,
             {name: steady(name, value) for name, value in r.signals.items()
              if name != "recency"})
            for r in results]


@pytest.mark.parametrize("kinds", [(IndexedKind.MEMORY,), tuple(IndexedKind)])
def test_concurrent_recall_gives_the_sequential_results(
        corpus: list[int], storage: StoragePort, embedder: Any,
        kinds: tuple[IndexedKind, ...]) -> None:
    assert storage.concurrent_reads
    concurrent = RecallService(storage, embedder, Settings())
    sequential = RecallService(OneThreadStorage(storage), embedder,
                               Settings())
    for question in QUESTIONS:
        query = RecallQuery(question, k=5, kinds=kinds)
        expected = comparable(sequential.recall(query))
        assert comparable(concurrent.recall(query)) == expected
    assert comparable(concurrent.recall(RecallQuery("where does my sister live", k=5)))


def test_each_thread_searches_in_a_session_of_its_own(corpus: list[int], storage: StoragePort,
                                                      embedder: Any) -> None:
    watched = WatchedStorage(storage)
    recaller = RecallService(watched, embedder, Settings())
    results = recaller.recall(RecallQuery("where does my sister live", kinds=tuple(IndexedKind)))
    assert results[0].id == corpus[0]
    caller = threading.get_ident()
    text = {(thread, id(session)) for step, thread, session in watched.calls if step == "text"}
    vector = {(thread, id(session)) for step, thread, session in watched.calls
              if step == "vector"}
    assert len(text) == 1 and len(vector) == 1  # one session per side, for every kind
    ((text_thread, text_session),) = text
    ((vector_thread, vector_session),) = vector
    assert text_thread == caller and vector_thread != caller
    assert text_session != vector_session
    assert watched.opened[text_session] == caller  # each opened where it is used
    assert watched.opened[vector_session] == vector_thread


def test_one_signal_or_one_shared_connection_stays_on_the_callers_thread(
        corpus: list[int], storage: StoragePort, embedder: Any) -> None:
    caller = threading.get_ident()
    for signals in (frozenset({"text"}), frozenset({"vector"})):
        watched = WatchedStorage(storage)
        RecallService(watched, embedder, Settings()).recall(
            RecallQuery("where does my sister live", signals=signals))
        assert {thread for _, thread, _ in watched.calls} == {caller}
    in_memory = SqliteStorage(None)
    try:
        assert not in_memory.concurrent_reads
        MemoryService(in_memory, embedder).add_many([MemorySpec(MEMORIES[0])])
        watched = WatchedStorage(in_memory)
        found = RecallService(watched, embedder, Settings()).recall(
            RecallQuery("where does my sister live"))
        assert [r.text for r in found] == [MEMORIES[0]]
        assert {thread for _, thread, _ in watched.calls} == {caller}
        assert len(watched.opened) == 1
    finally:
        in_memory.close()


class FailingEmbedder:
    """The real embedder, failing at queries as a broken model file would."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed_query(self, text: str) -> Any:
        raise RuntimeError("the model broke")


def test_a_failure_on_the_worker_thread_reaches_the_caller(corpus: list[int],
                                                           storage: StoragePort,
                                                           embedder: Any) -> None:
    recaller = RecallService(storage, FailingEmbedder(embedder), Settings())
    with pytest.raises(RuntimeError, match="the model broke"):
        recaller.recall(RecallQuery("where does my sister live"))


def test_the_two_sides_hand_the_interpreter_over_within_half_a_millisecond(
        storage: StoragePort, embedder: Any) -> None:
    """Each side returns from native code needing the GIL back; at Python's default 5 ms
    switch interval that return could wait behind the other side's Python."""
    import sys

    from core.recall import service

    previous = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        RecallService(storage, embedder, Settings())
        assert sys.getswitchinterval() == pytest.approx(service.SWITCH_INTERVAL)
        sys.setswitchinterval(0.0001)  # never raised again
        RecallService(storage, embedder, Settings())
        assert sys.getswitchinterval() == pytest.approx(0.0001)
    finally:
        sys.setswitchinterval(previous)
