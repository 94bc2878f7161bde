"""A notes folder is imported note by note: neither pass holds the vault's texts, so a
vault of tens of thousands of notes imports in bounded memory (peak Python memory measured
with tracemalloc on generated vaults many times larger than the allowance)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from core.errors import InvalidInputError
from core.knowledge.memories import MemoryService
from core.storage.orm import Memory, MemoryEdge
from core.transfer import notes
from core.transfer.notes import import_notes, scan_folder


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


def generated_vault(folder: Path, count: int, body_size: int = 0,
                    front_matter_size: int = 0) -> int:
    """``count`` notes in two subfolders, each linking to the one before it, with a body
    of ``body_size`` characters and a front matter field of ``front_matter_size``; written
    note by note; returns the vault's size in bytes."""
    size = 0
    for index in range(count):
        path = folder / f"part {index % 2}" / f"Note {index:05d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        front = (f"---\ntags: [vault, n{index}]\nsummary: \"{index} " + "ab c " * (
            front_matter_size // 5) + "\"\n---\n") if front_matter_size else ""
        body = f"# Note {index}\n\nAfter [[Note {index - 1:05d}]]. " + "xy z " * (
            body_size // 5)
        path.write_text(front + body, encoding="utf-8")
        size += path.stat().st_size
    return size


def peak_of(action: Callable[[], Any]) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        result = action()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_checking_a_30_mb_vault_holds_one_note_at_a_time(tmp_path) -> None:
    size = generated_vault(tmp_path, 150, body_size=200_000)
    assert size > 30_000_000

    scanned, peak = peak_of(lambda: scan_folder(tmp_path))

    entries = scanned.entries
    assert len(entries) == 150 and not scanned.skipped and entries[0].path == "part 0/Note 00000.md"
    assert peak < size / 20, f"peak {peak:,} bytes for a {size:,}-byte vault"


def test_importing_a_vault_holds_a_group_of_notes_not_the_vault(tmp_path, storage,
                                                                  memories) -> None:
    # the bytes are in the front matter, which is read, checked and stored like any
    # note's (in ``origin``), while the short bodies keep the embedding quick
    size = generated_vault(tmp_path, 480, front_matter_size=50_000)
    assert size > 24_000_000

    report, peak = peak_of(lambda: import_notes(tmp_path, storage, memories))

    assert (report.notes, report.added, report.links) == (480, 480, 479)
    # measured: 3-5.5 MB (PostgreSQL's driver holds more than SQLite's); the whole-folder
    # import this replaced peaked at 41.5 MB on the same vault
    assert peak < size / 3, f"peak {peak:,} bytes for a {size:,}-byte vault"
    with storage.read() as session:
        assert session.scalar(select(func.count()).select_from(MemoryEdge)) == 479
        stored = session.scalar(select(Memory.origin).where(
            Memory.external_id.like("note:%")).order_by(Memory.id).limit(1))
    assert len(stored["front_matter"]["summary"]) > 49_000  # kept whole


def test_a_note_edited_between_the_passes_stops_the_import_with_a_sentence(
        tmp_path, storage, memories, monkeypatch) -> None:
    generated_vault(tmp_path, 3)
    scanned = notes.scan_folder

    def edited_after_scanning(folder: Path) -> notes.ScannedFolder:
        entries = scanned(folder)
        (folder / "part 1" / "Note 00001.md").write_text("rewritten", encoding="utf-8")
        return entries

    monkeypatch.setattr(notes, "scan_folder", edited_after_scanning)
    with pytest.raises(InvalidInputError) as refused:
        import_notes(tmp_path, storage, memories)
    assert refused.value.message == (
        "part 1/Note 00001.md changed while the folder was being imported.")
    assert [run.outcome for run in notes.batches.runs(storage)] == ["failed"]

    monkeypatch.setattr(notes, "scan_folder", scanned)  # importing again completes it
    again = import_notes(tmp_path, storage, memories)
    assert (again.notes, again.links) == (3, 1)  # its link went with its old text
