"""``hearth import notes``: one memory per note, front matter and links kept, re-import
by content hash (edits and deletions invalidate, never delete)."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from core.errors import InvalidInputError
from core.knowledge.memories import MemoryService
from core.storage.orm import Memory, MemoryEdge
from core.transfer.notes import CHANGED, LINK_KIND, REMOVED, NotesReport, import_notes

VAULT = Path(__file__).parents[2] / "data" / "notes_vault"


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


@pytest.fixture
def vault(tmp_path) -> Path:
    copy = tmp_path / "vault"
    shutil.copytree(VAULT, copy)
    return copy


def notes_by_path(storage) -> dict[str, list[Memory]]:
    found: dict[str, list[Memory]] = {}
    with storage.read() as session:
        for memory in session.scalars(select(Memory).order_by(Memory.id)):
            found.setdefault(memory.origin["path"], []).append(memory)
        session.expunge_all()
    return found


def links(storage) -> set[tuple[str, str]]:
    with storage.read() as session:
        paths = {m.id: m.origin["path"] for m in session.scalars(select(Memory))}
        return {(paths[e.from_id], paths[e.to_id]) for e in session.scalars(
            select(MemoryEdge).where(MemoryEdge.kind == LINK_KIND))}


def test_each_note_is_a_memory_with_its_front_matter_headings_and_links(
        vault, storage, memories) -> None:
    report = import_notes(vault, storage, memories)

    assert report == NotesReport(notes=3, added=3, changed=0, removed=0, unchanged=0, links=5)
    notes = notes_by_path(storage)
    assert set(notes) == {"Home.md", "Garden.md", "Projects/Boat restoration.md"}  # not .obsidian
    home = notes["Home.md"][0]
    assert home.content.startswith("Home\n\n# Home\n\nEverything starts here.")
    assert "[[Garden]]" in home.content
    assert home.tags == ["index", "personal"]
    assert home.origin["front_matter"] == {
        "title": "Home", "tags": ["index", "#personal"],
        "created": "2024-01-05 09:00:00+00:00", "aliases": ["Start"]}
    assert home.created_at == datetime(2024, 1, 5, 9, tzinfo=timezone.utc)
    assert home.origin["links"] == ["Garden", "Projects/Boat restoration", "Missing note"]
    assert (home.memory_type, home.source, home.is_valid) == ("semantic", "notes", True)
    garden = notes["Garden.md"][0]
    assert garden.origin["headings"] == ["Garden", "Tomatoes 🍅", "Herbs"]
    assert "זעתר / زعتر" in garden.content
    # [[Missing note]] names no note: no edge; [[Home#Home]] is a link to Home
    assert links(storage) == {
        ("Home.md", "Garden.md"), ("Home.md", "Projects/Boat restoration.md"),
        ("Garden.md", "Home.md"), ("Projects/Boat restoration.md", "Garden.md"),
        ("Projects/Boat restoration.md", "Home.md")}


def test_a_long_note_is_found_by_a_passage_deep_inside_it(vault, storage, embedder,
                                                           memories) -> None:
    from core.config import Settings
    from core.recall import RecallQuery, RecallService

    import_notes(vault, storage, memories)
    boat = notes_by_path(storage)["Projects/Boat restoration.md"][0]
    assert len(boat.content) > 7000

    results = RecallService(storage, embedder, Settings()).recall(
        RecallQuery("an engine from 1962 that still turns over by hand", k=3))

    found = next(result for result in results if result.id == boat.id)
    assert found.excerpt is not None and "Volvo Penta" in found.excerpt
    assert found.signals["vector"]["window"] >= 1


def test_reimport_picks_up_edits_and_removals_and_deletes_nothing(vault, storage,
                                                                  memories) -> None:
    import_notes(vault, storage, memories)
    assert import_notes(vault, storage, memories) == NotesReport(
        notes=3, added=0, changed=0, removed=0, unchanged=3, links=0)

    garden = vault / "Garden.md"
    original = garden.read_text(encoding="utf-8")
    garden.write_text(original.replace("San Marzano", "Cherokee Purple"), encoding="utf-8")
    (vault / "Home.md").unlink()

    report = import_notes(vault, storage, memories)

    assert (report.notes, report.added, report.changed, report.removed) == (2, 1, 1, 1)
    notes = notes_by_path(storage)
    old, new = notes["Garden.md"]
    assert (old.is_valid, old.invalid_reason) == (False, CHANGED)
    assert "San Marzano" in old.content  # kept, only out of default searches
    assert (new.is_valid, "Cherokee Purple" in new.content) == (True, True)
    assert (notes["Home.md"][0].is_valid, notes["Home.md"][0].invalid_reason) == (
        False, REMOVED)
    assert ("Projects/Boat restoration.md", "Garden.md") in links(storage)

    garden.write_text(original, encoding="utf-8")  # edited back: the first memory returns
    import_notes(vault, storage, memories)
    old, new = notes_by_path(storage)["Garden.md"]
    assert (old.is_valid, new.is_valid) == (True, False)


def test_bad_notes_are_skipped_with_their_reasons_and_the_rest_is_imported(
        vault, storage, memories) -> None:
    (vault / "Broken.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (vault / "Latin.md").write_bytes(b"caf\xe9\n")
    (vault / "Listed.md").write_text("---\n- a\n- b\n---\nbody\n", encoding="utf-8")
    (vault / "Projects" / "Leap day.md").write_text("---\ncreated: 2025-02-29\n---\nbody\n",
                                                    encoding="utf-8")

    report = import_notes(vault, storage, memories)

    assert (report.notes, report.added, report.links) == (3, 3, 5)
    assert [note.sentence() for note in report.skipped] == [
        "Broken.md was skipped: its front matter is not valid YAML (line 3).",
        "Latin.md was skipped: it is not UTF-8 text (byte 0xE9 on line 1 cannot be read).",
        "Listed.md was skipped: its front matter is not a set of fields.",
        "Projects/Leap day.md was skipped: its front matter holds a value that cannot be "
        "read (day is out of range for month)."]
    assert set(notes_by_path(storage)) == {"Home.md", "Garden.md",
                                           "Projects/Boat restoration.md"}
    with pytest.raises(InvalidInputError, match="is not a folder"):
        import_notes(vault / "Home.md", storage, memories)


def test_a_note_that_turns_bad_keeps_its_earlier_memory(vault, storage, memories) -> None:
    import_notes(vault, storage, memories)
    (vault / "Garden.md").write_bytes("Tomatoes, café".encode("latin-1"))

    report = import_notes(vault, storage, memories)

    assert (report.notes, report.added, report.removed, report.changed) == (2, 0, 0, 0)
    assert [note.path for note in report.skipped] == ["Garden.md"]
    garden = notes_by_path(storage)["Garden.md"]
    assert [(memory.is_valid, "San Marzano" in memory.content) for memory in garden] == [
        (True, True)]


def test_the_command_imports_a_folder(capsys, migrated_home, vault) -> None:
    import json

    from cli.main import run

    assert run(["--home", str(migrated_home), "import", "notes", str(vault), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["added"] == 3
    assert run(["--home", str(migrated_home), "import", "notes", str(vault / "nope")]) != 0
    assert "is not a folder" in capsys.readouterr().err

    (vault / "Latin.md").write_bytes(b"caf\xe9\n")
    assert run(["--home", str(migrated_home), "import", "notes", str(vault)]) == 0
    assert ("Latin.md was skipped: it is not UTF-8 text (byte 0xE9 on line 1 cannot be "
            "read).") in " ".join(capsys.readouterr().err.split())
    assert run(["--home", str(migrated_home), "import", "notes", str(vault), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == [
        {"path": "Latin.md",
         "reason": "it is not UTF-8 text (byte 0xE9 on line 1 cannot be read)"}]


def test_a_stopped_import_is_completed_by_the_next(vault, storage, memories) -> None:
    from core.embedding import EmbeddingCancelled
    from core.transfer import batches

    with pytest.raises(EmbeddingCancelled):
        import_notes(vault, storage, memories, cancel=lambda: True)
    assert notes_by_path(storage) == {}
    (stopped,) = batches.runs(storage)
    assert (stopped.outcome, stopped.added) == ("cancelled", 0)  # never listed as done

    report = import_notes(vault, storage, memories)

    assert (report.added, report.links) == (3, 5)
    assert import_notes(vault, storage, memories).added == 0
    assert [run.outcome for run in batches.runs(storage)] == [
        "finished", "finished", "cancelled"]


def test_a_note_the_user_set_aside_stays_set_aside(vault, storage, memories) -> None:
    import_notes(vault, storage, memories)
    garden = notes_by_path(storage)["Garden.md"][0]
    memories.invalidate(garden.id, "wrong: I moved the tomatoes")

    import_notes(vault, storage, memories)

    again = notes_by_path(storage)["Garden.md"]
    assert len(again) == 1
    assert (again[0].is_valid, again[0].invalid_reason) == (False, "wrong: I moved the tomatoes")
