"""A notes import never reads outside the folder it was given: links to files or folders
outside it (directly or through other links) are skipped and named, links that stay
inside are read, and a link put in a note's place between the passes is not followed."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from core.knowledge.memories import MemoryService
from core.storage.orm import Memory
from core.transfer import note_files
from core.transfer.notes import REMOVED, import_notes, scan_folder

VAULT = Path(__file__).parents[2] / "data" / "notes_vault"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA"
SECRET = "The safe's code is 4711."


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder beside the vault holding what must never be read: a private key (no
    ``.md``) and a note."""
    folder = tmp_path / "home" / ".ssh"
    folder.mkdir(parents=True)
    (folder / "id_ed25519").write_text(KEY + "\n", encoding="utf-8")
    (folder / "secret.md").write_text(SECRET + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def vault(tmp_path, outside) -> Path:
    """The test vault, with links out of it (a file, a folder, a link to a link, a link
    that leads nowhere) and links that stay inside it (a note, a folder that contains the
    vault, a pipe)."""
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    (vault / "recipes.md").symlink_to(outside / "id_ed25519")
    (vault / "shared").symlink_to(outside, target_is_directory=True)
    (vault / "hop").symlink_to(outside / "secret.md")
    (vault / "Projects" / "chain.md").symlink_to(vault / "hop")
    (vault / "Projects" / "relative.md").symlink_to(Path("..") / ".." / "home" / ".ssh"
                                                    / "secret.md")
    (vault / "dangling.md").symlink_to(vault / "nothing here.md")
    (vault / "Garden again.md").symlink_to(Path("Garden.md"))
    (vault / "Projects" / "up").symlink_to(vault, target_is_directory=True)
    os.mkfifo(vault / ".pipe")
    (vault / "pipe.md").symlink_to(vault / ".pipe")
    return vault


def contents(storage) -> list[str]:
    with storage.read() as session:
        return list(session.scalars(select(Memory.content)))


def test_nothing_outside_the_folder_is_read_and_each_link_out_is_named(
        vault, outside, storage, memories) -> None:
    report = import_notes(vault, storage, memories)

    stored = contents(storage)
    assert not any(KEY in text or SECRET in text for text in stored)
    assert [(note.path, note.reason) for note in report.skipped] == [
        ("Projects/chain.md", note_files.OUTSIDE),
        ("Projects/relative.md", note_files.OUTSIDE),
        ("dangling.md", note_files.NOWHERE),
        ("pipe.md", note_files.NOT_A_FILE),
        ("recipes.md", note_files.OUTSIDE),
        ("shared", note_files.OUTSIDE_FOLDER)]
    assert report.skipped[-1].sentence() == ("shared was skipped: it is a link to a folder "
                                             "outside the notes folder, which was not read.")
    # the link that stays inside is read; the one to the vault itself is not walked again
    assert (report.notes, report.added) == (4, 4)
    assert sum(text.startswith("Garden again\n\n# Garden") for text in stored) == 1


def test_the_folder_named_through_a_link_is_read_as_itself(vault, tmp_path) -> None:
    (tmp_path / "vault link").symlink_to(vault, target_is_directory=True)

    scanned = scan_folder(tmp_path / "vault link")

    assert [entry.path for entry in scanned.entries] == [
        "Garden again.md", "Garden.md", "Home.md", "Projects/Boat restoration.md"]
    assert "recipes.md" in [note.path for note in scanned.skipped]


def test_a_note_that_became_a_link_out_is_set_aside_as_removed(vault, outside, storage,
                                                                memories) -> None:
    (vault / "recipes.md").unlink()
    (vault / "recipes.md").write_text("Bread: flour, water, salt.\n", encoding="utf-8")
    import_notes(vault, storage, memories)
    (vault / "recipes.md").unlink()
    (vault / "recipes.md").symlink_to(outside / "id_ed25519")

    report = import_notes(vault, storage, memories)

    assert report.removed == 1
    with storage.read() as session:
        recipes = session.scalars(select(Memory).where(
            Memory.content.like("recipes%"))).one()
        assert (recipes.is_valid, recipes.invalid_reason) == (False, REMOVED)
    assert not any(KEY in text for text in contents(storage))


def test_a_note_swapped_for_a_link_out_after_the_listing_is_not_read(tmp_path,
                                                                      outside) -> None:
    vault = tmp_path / "swapped"
    vault.mkdir()
    (vault / "note.md").write_text("A note.\n", encoding="utf-8")
    root = vault.resolve()
    assert note_files.list_notes(root).notes == ["note.md"]
    (vault / "note.md").unlink()
    (vault / "note.md").symlink_to(outside / "id_ed25519")

    with pytest.raises(note_files.Unreadable) as refused:
        note_files.read_note(root, "note.md")

    assert refused.value.reason == note_files.OUTSIDE
