"""Notes imported from a notes folder (an Obsidian vault): Memories lists them as words,
not Markdown, and the Notes view lists them under "Imported notes", read-only, with where
each came from."""

from __future__ import annotations

from pathlib import Path

from support.qt_waits import wait_idle
from test_memories_activity_stats import shown

from core.transfer.notes import import_notes
from desktop.context import AppContext
from desktop.daily.notes import IMPORTED, NotesPage
from desktop.inspector.memories import MemoriesPage

TRIP = ("---\ntags: [travel]\n---\n# Trip to Porto\n\n- **Book** the [[train]]\n"
        "- ask [Ines](mailto:ines@example.org) about the *flat*\n")


def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    (folder / "Travel").mkdir(parents=True)
    (folder / "Travel" / "Trip.md").write_text(TRIP, encoding="utf-8")
    (folder / "Train.md").write_text("Times of the **Alfa Pendular**.", encoding="utf-8")
    return folder


def test_memories_list_an_imported_note_as_words(qtbot, ctx: AppContext, tmp_path) -> None:
    import_notes(vault(tmp_path), ctx.hearth.storage, ctx.hearth.memories)
    page = shown(qtbot, ctx, MemoriesPage)
    texts = [page.model.index(row, 1).data() for row in range(page.model.rowCount())]
    trip = next(text for text in texts if "Porto" in text)
    assert trip == ("Trip Trip to Porto • Book the train • ask Ines about the flat")
    assert not any(mark in text for text in texts for mark in ("**", "[[", "](", "# "))


def test_the_notes_view_lists_imported_notes_read_only(qtbot, ctx: AppContext,
                                                        tmp_path) -> None:
    import_notes(vault(tmp_path), ctx.hearth.storage, ctx.hearth.memories)
    page = shown(qtbot, ctx, NotesPage)
    assert "Imported notes" in page.empty.text()  # no note of its own yet: says where
    page.filter.setCurrentIndex(page.filter.findData(IMPORTED))
    wait_idle(qtbot, ctx)
    rows = [(page.proxy.index(row, 1).data(), page.proxy.index(row, 2).data())
            for row in range(page.proxy.rowCount())]
    assert rows == [("Train", "Your notes folder"), ("Trip", "Your notes folder")]
    assert page.select(page.model.record(1).id)
    editor = page.editor
    assert editor.title.isReadOnly() and editor.content.isReadOnly()
    assert editor.content.toPlainText() == ("Trip to Porto\n\n• Book the train\n"
                                            "• ask Ines about the flat")
    assert "Travel/Trip.md" in editor.heading.text() and not editor.save.isVisible()
    assert not page.pin_button.isEnabled()
    page.search.setText("pendular")
    qtbot.waitUntil(lambda: page.proxy.rowCount() == 1, timeout=5_000)
    assert page.proxy.index(0, 1).data() == "Train"
