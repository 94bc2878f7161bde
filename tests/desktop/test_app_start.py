"""Starting the window (``desktop.app.main``) and its child processes: a data folder that
cannot be opened is a message box, not a crash, and what the child writes is as private
as what the window writes (``core.home.private_files``)."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from core.storage.backups import list_backups
from desktop import app as desktop_app
from desktop.isolated import run_in_child
from desktop.runs import DREAM
from support.scripted_llm import ScriptedLLM


@pytest.fixture
def umask_022() -> Iterator[None]:
    """This process's umask as a program that never heard of Hearth's would leave it, and
    back to what it was afterwards (``main`` changes it)."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_bad_environment_value_is_a_message_box_not_a_crash(qapp, isolated_home: Path,
                                                              monkeypatch, umask_022) -> None:
    monkeypatch.setenv("HEARTH_EMBEDDING_THREADS", "abc")
    shown: list[str] = []

    def close_the_box() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            shown.append(f"{box.text()}")
            box.accept()
        elif not shown:
            QTimer.singleShot(50, close_the_box)

    QTimer.singleShot(0, close_the_box)
    code = desktop_app.main(["--home", str(isolated_home)])

    assert code == 1
    assert len(shown) == 1
    assert shown[0].startswith("HEARTH_EMBEDDING_THREADS='abc' is not accepted")
    assert "Correct or unset HEARTH_EMBEDDING_THREADS." in shown[0]


def shown_at_start(home: Path) -> list[str]:
    """The message boxes ``main`` shows for ``home``, each closed as it appears; it must
    then exit with 1. A window that opens instead is quit after 10 s (``main`` returns 0)."""
    shown: list[str] = []

    def close_the_box(tries: int = 0) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            shown.append(f"{box.text()}")
            box.accept()
        elif tries > 200:
            QApplication.quit()
        elif not shown:
            QTimer.singleShot(50, lambda: close_the_box(tries + 1))

    QTimer.singleShot(0, close_the_box)
    assert desktop_app.main(["--home", str(home)]) == 1
    return shown


def test_another_programs_database_is_a_message_box_and_left_as_it_was(
        qapp, isolated_home: Path, umask_022) -> None:
    database = isolated_home / "hearth.db"
    isolated_home.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(database)) as connection:
        connection.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
        connection.commit()
    before = database.read_bytes()

    (shown,) = shown_at_start(isolated_home)

    assert shown.startswith(f"{database} is not a Hearth database (it holds tables Hearth "
                            "does not make: photos)")
    assert "Move it out of the data folder" in shown
    assert database.read_bytes() == before


def test_a_damaged_database_is_a_message_box_at_start(qapp, migrated_home: Path,
                                                       umask_022) -> None:
    """The window would meet the damage at its first write; it says so before it opens."""
    database = migrated_home / "hearth.db"
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as connection:
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = "
                                  "'memories'").fetchone()[0]
        page = connection.execute("PRAGMA page_size").fetchone()[0]
    with database.open("r+b") as handle:  # the memories pages, which no start reads
        handle.seek((root - 1) * page)
        handle.write(b"\xa5" * 8192)
    before = database.read_bytes()

    (shown,) = shown_at_start(migrated_home)

    assert shown.startswith(f"{database} is damaged (")
    assert "hearth restore" in shown
    assert database.read_bytes() == before


def test_what_the_child_process_writes_is_private(ctx, umask_022) -> None:
    run_in_child(DREAM, ctx.hearth.paths.home, only="decay", provider_factory=ScriptedLLM)

    made = list_backups(ctx.hearth.paths)
    assert len(made) == 1  # a dream backs up first
    assert stat.S_IMODE(made[0].path.stat().st_mode) == 0o600
    assert stat.S_IMODE(ctx.hearth.paths.backups.stat().st_mode) == 0o700


def test_the_window_keeps_a_failure_and_its_traceback_in_the_data_folder(
        tmp_path: Path) -> None:
    """A sentence the window shows can be traced afterwards: the warning and its traceback
    are in ``<home>/logs/window.log``, readable by the user only; the exception by its type,
    never its message, which may quote the user (``core.log_privacy``)."""
    previous = os.umask(0o077)  # as the window sets it at start
    path = desktop_app.log_to_data_folder(tmp_path)
    handler = logging.getLogger().handlers[-1]
    try:
        words = "the locker code Quillbramble is wrong"  # a value: not in the code shown
        try:
            raise ValueError(words)
        except ValueError:
            logging.getLogger("desktop.workers").warning("Saving a fact: it failed",
                                                         exc_info=True)
        handler.flush()
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
        os.umask(previous)
    text = path.read_text(encoding="utf-8")
    assert "Saving a fact: it failed" in text
    assert "Traceback" in text and "ValueError (message withheld" in text
    assert "Quillbramble" not in text
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
