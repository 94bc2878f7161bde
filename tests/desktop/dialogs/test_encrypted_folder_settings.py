"""Settings → Data with encrypted folders: choosing another encrypted data folder asks for
its passphrase in the start-up dialog (Cancel keeps the folder chosen before, and says
so), and the next start opens it; an encrypted folder's export is written in plain form
only once the person agrees in a question naming the file (``desktop.dialogs
.settings_data_page``, ``desktop.dialogs.passphrase``, ``docs/encryption.md``).

Real folders encrypted by ``hearth encrypt``, the real SQLCipher and embedder; the dialogs
are answered from inside their own event loops, as a person would."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox, QWidget
from support.qt_waits import wait_for_task, wait_idle

from core.app import Hearth
from cli.main import run
from core.home.paths import resolve_home
from core.home import encryption
from core.operations import folder_lock
from core.recall import RecallQuery
from desktop.app import DesktopApp
from desktop.context import AppContext
from desktop.dialogs import locations
from desktop.dialogs.passphrase import PassphraseDialog, ask_to_unlock
from desktop.dialogs.settings import SettingsDialog
from desktop.dialogs.settings_data_page import DataSection
from support.scripted_llm import ScriptedLLM

PASSPHRASE = "seven lanterns over the harbour"
MEMORY = "Ines keeps the spare key of the boathouse under the blue pot"


@pytest.fixture(autouse=True)
def keys_forgotten() -> Iterator[None]:
    encryption.forget_keys()
    yield
    encryption.forget_keys()


def encrypt(home: Path, embedder, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder with a fact and a memory, encrypted with ``PASSPHRASE`` by
    ``hearth encrypt``; afterwards this process knows no key, as at a fresh start."""
    with Hearth.open(home, embedder=embedder) as opened:
        opened.facts.remember("locker", "4417")
        opened.memories.add(MEMORY)
    with monkeypatch.context() as patch:
        patch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
        assert run(["--home", str(home), "encrypt"]) == 0
    encryption.forget_keys()
    return home.resolve()


def when_shown(kind: type[QWidget], act: Callable) -> None:
    """Run ``act(dialog)`` once a modal ``kind`` is up (from inside its own event loop)."""
    dialog = QApplication.activeModalWidget()
    if isinstance(dialog, kind):
        act(dialog)
    else:
        QTimer.singleShot(20, lambda: when_shown(kind, act))


def data_tab(qtbot, ctx: AppContext) -> tuple[SettingsDialog, DataSection]:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    wait_idle(qtbot, ctx)
    section = dialog.section("Data")
    assert isinstance(section, DataSection)
    return dialog, section


def test_choosing_an_encrypted_folder_asks_its_passphrase_and_the_next_start_opens_it(
        qtbot, make_ctx, embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = encrypt(tmp_path / "other", embedder, monkeypatch)
    ctx = make_ctx()
    dialog, data = data_tab(qtbot, ctx)
    seen: dict[str, object] = {}

    def type_passphrases(unlock: PassphraseDialog) -> None:
        seen["title"] = unlock.windowTitle()
        seen["parent"] = unlock.parent()
        unlock.passphrase.setText("not it")
        unlock.buttons.button(QDialogButtonBox.StandardButton.Open).click()
        seen["message"] = unlock.message.text()
        unlock.passphrase.setText(PASSPHRASE)
        unlock.buttons.button(QDialogButtonBox.StandardButton.Open).click()

    QTimer.singleShot(0, lambda: when_shown(PassphraseDialog, type_passphrases))
    data.choose_folder(other)

    assert seen["title"] == "Hearth is locked"
    assert seen["parent"] is data
    assert str(seen["message"]).startswith("That passphrase does not open the encrypted "
                                           f"data folder {other}.")
    assert "It is encrypted: Hearth asks for its passphrase when it starts." in (
        data.next_folder.text())
    assert dialog.apply()
    assert locations.chosen_home() == other

    # the next start: a new process knows no key, and asks as it does for any folder
    encryption.forget_keys()
    monkeypatch.delenv("HEARTH_HOME")
    home = resolve_home(locations.startup_home(None))
    assert home == other and folder_lock.needs_passphrase(home)
    QTimer.singleShot(0, lambda: when_shown(PassphraseDialog, lambda unlock: (
        unlock.passphrase.setText(PASSPHRASE), unlock.try_unlock())))
    assert ask_to_unlock(home)
    desktop = DesktopApp(AppContext(Hearth.open(home, embedder=embedder),
                                    provider_factory=ScriptedLLM), start_background=False)
    try:
        qtbot.addWidget(desktop.window)
        desktop.window.show()
        hearth = desktop.ctx.hearth
        assert hearth.paths.home == other
        assert hearth.facts.get("locker").value == "4417"  # type: ignore[union-attr]
        found = hearth.recall.recall(RecallQuery("where is the boathouse key", k=5))
        assert MEMORY in [result.text for result in found]
    finally:
        desktop.ctx.close()


def test_cancel_keeps_the_folder_chosen_before_and_says_so(
        qtbot, ctx_plain, embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = encrypt(tmp_path / "other", embedder, monkeypatch)
    dialog, data = data_tab(qtbot, ctx_plain)

    QTimer.singleShot(0, lambda: when_shown(PassphraseDialog, lambda unlock: unlock.reject()))
    data.choose_folder(other)

    text = data.next_folder.text()
    assert f"{other} is encrypted and stays locked, so it was not chosen: Hearth keeps" in text
    assert "Hearth opens this folder at the next start too." in text
    assert dialog.apply()
    assert locations.chosen_home() is None
    assert folder_lock.needs_passphrase(other)


@pytest.fixture
def ctx_plain(make_ctx) -> AppContext:
    return make_ctx()


@pytest.fixture
def encrypted_ctx(make_ctx, isolated_home: Path, embedder,
                  monkeypatch: pytest.MonkeyPatch) -> AppContext:
    """The window's context on an encrypted data folder, unlocked as at its start."""
    encrypt(isolated_home, embedder, monkeypatch)
    folder_lock.unlock(isolated_home, PASSPHRASE)
    return make_ctx()


def test_an_encrypted_folders_export_asks_before_writing_a_plain_file(
        qtbot, encrypted_ctx: AppContext, tmp_path: Path) -> None:
    _dialog, data = data_tab(qtbot, encrypted_ctx)
    target = tmp_path / "everything.json"
    asked: list[str] = []

    def answer(button: str) -> Callable[[QMessageBox], None]:
        def act(box: QMessageBox) -> None:
            asked.append(box.text())
            assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
            chosen = next(candidate for candidate in box.buttons()
                          if candidate.text().replace("&", "") == button)
            chosen.click()
        return act

    QTimer.singleShot(0, lambda: when_shown(QMessageBox, answer("Cancel")))
    assert data.export_to(target) is None
    assert not target.exists()
    assert data.transfer_progress.result.text() == (
        "Nothing was exported: everything.json was not written.")
    assert asked[0].startswith("This data folder is encrypted, but an export is not: "
                               f"{target} will be a plain JSON file")

    QTimer.singleShot(0, lambda: when_shown(QMessageBox, answer("Export unencrypted")))
    task = data.export_to(target)
    assert task is not None
    wait_for_task(qtbot, task)
    assert len(asked) == 2
    assert data.transfer_progress.result.text().startswith("Exported 1 fact, 1 memory")
    exported = json.loads(target.read_text(encoding="utf-8"))
    assert exported["format"] == "hearth-export"
    assert "4417" in target.read_text(encoding="utf-8")


def test_a_plain_folders_export_asks_nothing(qtbot, ctx_plain: AppContext,
                                             tmp_path: Path) -> None:
    _dialog, data = data_tab(qtbot, ctx_plain)
    task = data.export_to(tmp_path / "everything.json")
    assert task is not None  # no question: it would wait for an answer and time out here
    wait_for_task(qtbot, task)
    assert (tmp_path / "everything.json").is_file()
