"""What one import run added, as the Memories view lists it: the filter keeps exactly the
run's memories (browsing, counting and searching), on both backends, through the
expression index of ``origin.import_batch`` (migration 0018) rather than a scan of every
memory's JSON; removing the run from the filtered view is ``hearth imports undo``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from core.knowledge.memories import MemoryService
from core.operations.memories import MemoryFilter, Validity, list_memories
from core.storage.orm import Memory
from core.storage.sql import IMPORT_BATCH_INDEX, of_import_batch
from core.transfer import batches
from core.transfer.chat_export import import_chat_export
from core.transfer.chatgpt import CHATGPT
from core.transfer.claude import CLAUDE
from core.views import memory_browse
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)

DATA = Path(__file__).parents[2] / "data" / "chat_exports"


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


def test_the_filter_keeps_exactly_what_one_run_added(storage, memories) -> None:
    chatgpt = import_chat_export(DATA / "chatgpt-conversations.json", CHATGPT, storage,
                                 memories)
    claude = import_chat_export(DATA / "claude-conversations.json", CLAUDE, storage, memories)
    memories.add("I water the tomatoes every morning", namespace="user")

    for report, service in ((chatgpt, "chatgpt"), (claude, "claude")):
        run = MemoryFilter(import_batch=report.batch, validity=Validity.ALL)
        page = memory_browse.browse(storage, run, limit=5)
        listed = [row.id for row in page.rows]
        while page.next is not None:
            page = memory_browse.browse(storage, run, page.next, limit=5)
            listed += [row.id for row in page.rows]
        assert sorted(listed) == batches.memories_of(storage, report.batch)
        assert memory_browse.count(storage, run) == len(listed) == (
            report.memories_created + report.attachments_created)
        with storage.read() as session:
            assert {origin["service"] for origin in session.scalars(
                select(Memory.origin).where(Memory.id.in_(listed)))} == {service}
    assert memory_browse.count(storage, MemoryFilter(import_batch=999)) == 0


def test_the_run_is_found_on_its_index_not_by_reading_every_memory(storage,
                                                                    memories) -> None:
    report = import_chat_export(DATA / "claude-conversations.json", CLAUDE, storage, memories)
    query = select(func.count()).select_from(Memory).where(
        of_import_batch(Memory.origin, report.batch))
    with storage.read() as session:
        connection = session.connection()
        compiled = str(query.compile(connection, compile_kwargs={"literal_binds": True}))
        if connection.dialect.name == "sqlite":
            plan = " ".join(row[-1] for row in connection.execute(
                text(f"EXPLAIN QUERY PLAN {compiled}")))
            seek = rf"SEARCH memories USING (COVERING )?INDEX {IMPORT_BATCH_INDEX} \(<expr>=\?\)"
        else:  # a few rows: the planner would read them all unless told not to
            connection.execute(text("SET LOCAL enable_seqscan = off"))
            plan = " ".join(row[0] for row in connection.execute(text(f"EXPLAIN {compiled}")))
            seek = rf"Index Scan (using|on) {IMPORT_BATCH_INDEX} .*Index Cond"
        assert connection.execute(query).scalar_one() == (report.memories_created
                                                          + report.attachments_created)
    assert re.search(seek, plan), plan  # a seek to the run's keys, not a walk of them all


@pytest.mark.sqlite_only
def test_a_search_within_a_run_finds_only_that_runs_memories(hearth) -> None:
    chatgpt = import_chat_export(DATA / "chatgpt-conversations.json", CHATGPT,
                                 hearth.storage, hearth.memories)
    claude = import_chat_export(DATA / "claude-conversations.json", CLAUDE, hearth.storage,
                                hearth.memories)
    everywhere = list_memories(hearth, "Lisbon", MemoryFilter(), 50)
    within = list_memories(hearth, "Lisbon", MemoryFilter(import_batch=claude.batch), 50)
    mine = set(batches.memories_of(hearth.storage, claude.batch))
    assert within.rows and {row.id for row in within.rows} <= mine
    assert {row.id for row in everywhere.rows} - mine  # the other run matched too
    assert [run.id for run in within.import_runs] == [claude.batch, chatgpt.batch]
