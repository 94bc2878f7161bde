"""The window's start on an encrypted data folder: the passphrase dialog appears, a wrong
passphrase is said in it and opens nothing, the right one opens the window
(``desktop.dialogs.passphrase``, ``core.operations.folder_lock``)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from core.app import Hearth
from cli.main import run
from core.errors import HearthError, PassphraseNeededError
from core.home import encryption
from core.operations import folder_lock
from desktop import app as desktop_app
from desktop.app import DesktopApp
from desktop.dialogs.passphrase import PassphraseDialog, ask_to_unlock
from desktop.isolated import run_in_child
from desktop.runs import DREAM
from support.environment_child import EnvironmentShown
from support.scripted_llm import ScriptedLLM

PASSPHRASE = "a long walk to the lighthouse"


@pytest.fixture
def encrypted_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A data folder encrypted with ``PASSPHRASE`` by ``hearth encrypt``, and a process
    that knows no key and has no ``HEARTH_PASSPHRASE``, as at a fresh start."""
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert run(["--home", str(isolated_home), "facts", "set", "locker", "4417"]) == 0
    assert run(["--home", str(isolated_home), "encrypt"]) == 0
    monkeypatch.delenv(encryption.PASSPHRASE_ENV)
    encryption.forget_keys()
    yield isolated_home
    encryption.forget_keys()


def test_the_dialog_says_a_wrong_passphrase_and_the_right_one_opens_the_window(
        qtbot, make_ctx, encrypted_home: Path) -> None:
    with pytest.raises(PassphraseNeededError):
        make_ctx()  # nothing opens the folder before the dialog
    seen: dict[str, object] = {}

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PassphraseDialog):
            QTimer.singleShot(50, answer)
            return
        seen["intro"] = dialog.intro.text()
        dialog.passphrase.setText("the wrong one")
        dialog.buttons.button(QDialogButtonBox.StandardButton.Open).click()
        seen["message"] = dialog.message.text()
        seen["still open"] = dialog.isVisible()
        dialog.passphrase.setText(PASSPHRASE)
        dialog.buttons.button(QDialogButtonBox.StandardButton.Open).click()

    QTimer.singleShot(0, answer)
    assert ask_to_unlock(encrypted_home) is True

    home = encrypted_home.resolve()
    assert f"The data folder {home} is encrypted" in str(seen["intro"])
    assert seen["message"] == (f"That passphrase does not open the encrypted data folder "
                               f"{home}. Nothing was changed; try again with the right "
                               "passphrase.")
    assert seen["still open"] is True
    desktop = DesktopApp(make_ctx(), start_background=False)
    qtbot.addWidget(desktop.window)
    desktop.window.show()
    assert desktop.window.isVisible()
    assert desktop.ctx.hearth.facts.get("locker").value == "4417"


def test_cancel_at_start_leaves_the_window_unopened(qapp, encrypted_home: Path) -> None:
    """``desktop.app.main`` asks before it opens anything; Cancel quits."""
    def cancel() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, PassphraseDialog):
            QTimer.singleShot(50, cancel)
            return
        dialog.reject()

    QTimer.singleShot(0, cancel)
    assert desktop_app.main(["--home", str(encrypted_home)]) == 1
    assert encryption.is_locked(encrypted_home)


def test_a_dream_in_its_child_process_opens_the_folder_with_the_windows_key(
        encrypted_home: Path) -> None:
    """The child cannot ask the person: the window hands it the key it checked (over the
    spawn pipe), and what the child writes (the dream's backup first) is encrypted too."""
    folder_lock.unlock(encrypted_home, PASSPHRASE)
    run_in_child(DREAM, encrypted_home, only="decay", provider_factory=ScriptedLLM)
    made = sorted((encrypted_home / "backups").glob("*.db"))
    assert len(made) == 1  # the dream backs up first
    assert all(b"4417" not in backup.read_bytes() and b"locker" not in backup.read_bytes()
               for backup in made)


def test_the_window_keeps_hearth_passphrase_from_the_dream_child(
        encrypted_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Started with ``HEARTH_PASSPHRASE`` (a script), the window takes it out of its
    environment (``desktop.app.main``, as here): it opens the folder without a dialog, and
    the dream's child, which gets the key over its pipe, never sees the passphrase."""
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    seen = tmp_path / "environment.json"
    with folder_lock.passphrase_taken_from_environment():
        assert ask_to_unlock(encrypted_home) is True  # no dialog: the given passphrase
        run_in_child(DREAM, encrypted_home, only="decay",
                     provider_factory=EnvironmentShown(seen))
    inherited = json.loads(seen.read_text())
    assert inherited["HEARTH_HOME"] == os.environ["HEARTH_HOME"]  # the child's environment
    assert encryption.PASSPHRASE_ENV not in inherited
    assert len(list((encrypted_home / "backups").glob("*.db"))) == 1  # the dream ran


def test_the_windows_main_takes_the_passphrase_out_of_its_environment(
        qapp, encrypted_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    seen: dict[str, object] = {}

    def opening(home: Path, **_options: object) -> Hearth:
        seen["environment"] = os.environ.get(encryption.PASSPHRASE_ENV)
        seen["unlocked"] = not folder_lock.needs_passphrase(Path(home))
        raise HearthError("Stopped here by the test.")

    monkeypatch.setattr(desktop_app.Hearth, "open", opening)
    monkeypatch.setattr(desktop_app.QMessageBox, "critical", lambda *_args: None)
    assert desktop_app.main(["--home", str(encrypted_home)]) == 1
    assert seen == {"environment": None, "unlocked": True}
    assert os.environ[encryption.PASSPHRASE_ENV] == PASSPHRASE  # back for the test
