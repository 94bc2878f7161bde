"""File → Import…: a ChatGPT export, a Claude export or a notes folder, on a worker, with
progress, Stop and a sentence at the end."""

from __future__ import annotations

import json
from pathlib import Path

from core.operations.changes import Domain
from core.operations.imports import ImportSource, ImportSummary
from desktop.dialogs.import_dialog import ImportDialog, describe
from support.hub_changes import touching
from support.qt_waits import wait_for_task

DATA = Path(__file__).parents[2] / "data"


def open_dialog(qtbot, ctx) -> ImportDialog:
    dialog = ImportDialog(ctx)
    qtbot.addWidget(dialog)
    return dialog


def test_a_chatgpt_export_is_imported_with_a_summary(qtbot, ctx) -> None:
    dialog = open_dialog(qtbot, ctx)
    with qtbot.waitSignal(ctx.hub.changed, timeout=60_000,
                          check_params_cb=touching(Domain.MEMORIES)):
        task = dialog.import_from(ImportSource.CHATGPT,
                                  DATA / "chat_exports" / "chatgpt-conversations.json")
    wait_for_task(qtbot, task)

    assert dialog.progress.result.text() == (
        "Read 3 ChatGPT conversations with 13 messages to keep: 13 new memories "
        "(9 other messages left out: tools, system, other branches).")
    assert ctx.hearth.memories.count() == 13
    assert dialog.choose_button.isEnabled()


def test_notes_and_a_bad_file_each_end_in_a_sentence(qtbot, ctx, tmp_path) -> None:
    dialog = open_dialog(qtbot, ctx)
    wait_for_task(qtbot, dialog.import_from(ImportSource.NOTES, DATA / "notes_vault"))
    assert dialog.progress.result.text() == "Imported 3 notes: 3 new memories."

    bad = tmp_path / "conversations.json"
    bad.write_text('{"not": "a list"}', encoding="utf-8")
    wait_for_task(qtbot, dialog.import_from(ImportSource.CLAUDE, bad))
    assert "must be a list of conversations" in dialog.progress.result.text()
    assert ctx.hearth.memories.count() == 3


def test_skipped_notes_are_named_and_counted() -> None:
    skipped = tuple(f"N{index}.md was skipped: it is not UTF-8 text." for index in range(5))

    assert describe(ImportSummary(ImportSource.NOTES, found=2, added=2,
                                  skipped=skipped[:1])) == (
        "Imported 2 notes: 2 new memories. 1 note could not be imported. "
        "N0.md was skipped: it is not UTF-8 text.")
    assert describe(ImportSummary(ImportSource.NOTES, found=2, added=2,
                                  skipped=skipped)).endswith(
        "5 notes could not be imported. N0.md was skipped: it is not UTF-8 text. "
        "N1.md was skipped: it is not UTF-8 text. N2.md was skipped: it is not UTF-8 text. "
        "And 2 more notes.")


def test_a_chat_export_sentence_ends_with_its_warnings() -> None:
    cut = ("1 message or attached file was longer than 2,000,000 characters: only the "
           "first 2,000,000 are kept (the memory's origin says how long it was).")

    assert describe(ImportSummary(ImportSource.CLAUDE, found=4, added=4, conversations=1,
                                  warnings=(cut,))) == (
        "Read 1 Claude conversation with 4 messages to keep: 4 new memories. " + cut)


def test_stop_keeps_what_was_done_and_says_how_to_finish(qtbot, ctx, tmp_path) -> None:
    conversations = json.loads((DATA / "chat_exports" / "claude-conversations.json")
                               .read_text(encoding="utf-8"))
    many = []
    for index in range(400):  # about 1,200 turns: more than one group, seconds of embedding
        for conversation in conversations:
            copy = json.loads(json.dumps(conversation))
            copy["uuid"] = f"{index}-{conversation['uuid']}"[:36]
            many.append(copy)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(many), encoding="utf-8")
    dialog = open_dialog(qtbot, ctx)

    task = dialog.import_from(ImportSource.CLAUDE, export)
    dialog.progress.stop()
    wait_for_task(qtbot, task)

    assert dialog.progress.result.text().startswith("Stopped. What was imported so far is kept")
    assert ctx.hearth.memories.count() < 3200


def test_the_file_menu_offers_import(qtbot, make_ctx) -> None:
    from desktop.main_window import MainWindow

    window = MainWindow(make_ctx())
    qtbot.addWidget(window)
    file_menu = window.menuBar().actions()[0].menu()
    action = next(a for a in file_menu.actions() if a.text() == "&Import…")

    action.trigger()

    (dialog,) = window.findChildren(ImportDialog)
    assert dialog.isVisible() and dialog.chosen() is ImportSource.CHATGPT
    dialog.reject()
