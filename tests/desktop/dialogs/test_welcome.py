"""The first-run welcome: it finds a running Ollama (the fake server, through the real
client) or says plainly that there is none and the embedded model answers, offers to pull
the recommended model with progress, and however it is closed records that it was seen."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from support.qt_waits import wait_for_task, wait_idle

from desktop.context import AppContext
from desktop.dialogs.settings_form import ERROR_COLOUR, OK_COLOUR
from desktop.dialogs.welcome import WelcomeDialog
from support.fake_ollama import FakeOllama


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=["llama3.2:3b"], pull_steps=5, pull_delay=0.05) as server:
        yield server


def closed_port_url() -> str:
    """An address on this machine where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def open_welcome(qtbot, ctx: AppContext, host: str) -> WelcomeDialog:
    ctx.save_settings(ollama_host=host)
    dialog = WelcomeDialog(ctx)
    qtbot.addWidget(dialog)
    wait_idle(qtbot, ctx)
    return dialog


def test_a_running_ollama_with_the_model_is_found(qtbot, ctx, ollama) -> None:
    dialog = open_welcome(qtbot, ctx, ollama.url)

    assert "Ollama 0.6.8" in dialog.state.text()
    assert "Hearth answers with it" in dialog.state.text()
    assert OK_COLOUR in dialog.state.styleSheet()
    assert dialog.puller.isHidden()
    assert ollama.requests_to("/api/version")  # status() asked


def test_a_missing_model_is_offered_and_pulled(qtbot, ctx, ollama) -> None:
    ctx.save_settings(ollama_model="qwen2.5:3b")
    dialog = open_welcome(qtbot, ctx, ollama.url)
    assert "qwen2.5:3b is not installed yet" in dialog.state.text()
    assert not dialog.puller.isHidden()
    assert dialog.puller.name_edit.text() == "qwen2.5:3b"
    seen: list[int] = []
    dialog.puller.progress.bar.valueChanged.connect(seen.append)

    task = dialog.puller.pull()
    assert task is not None
    wait_for_task(qtbot, task)
    wait_idle(qtbot, ctx)  # looks again, and rebuilds the assistant for the pulled model

    assert any(0 < value < 1000 for value in seen)
    assert ollama.installed("qwen2.5:3b") is not None
    assert "Hearth answers with it" in dialog.state.text()
    assert ctx.assistant is not None  # rebuilt to answer with the model just pulled


def test_no_ollama_is_fine(qtbot, ctx) -> None:
    dialog = open_welcome(qtbot, ctx, closed_port_url())

    assert "Ollama is not running at" in dialog.state.text()
    assert "install Ollama" in dialog.state.text()
    assert ERROR_COLOUR not in dialog.state.styleSheet()
    assert dialog.puller.isHidden()


def test_check_again_finds_ollama_once_it_runs(qtbot, ctx) -> None:
    with FakeOllama(models=["llama3.2:3b"]) as server:
        address = server.url
    dialog = open_welcome(qtbot, ctx, address)
    assert "not running" in dialog.state.text()

    with FakeOllama(models=["llama3.2:3b"]) as server:
        ctx.save_settings(ollama_host=server.url)
        wait_for_task(qtbot, dialog.detect())
        assert "Hearth answers with it" in dialog.state.text()


def test_the_dialog_keeps_its_height_when_ollamas_answer_arrives(qtbot, ctx) -> None:
    """Shown while Ollama is looked for, then told it runs without the model (the longest
    sentence, and the pull offered): the Start button stays where the cursor is going."""
    ctx.save_settings(ollama_host=closed_port_url(), ollama_model="qwen2.5:3b")
    dialog = WelcomeDialog(ctx)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    start = dialog.findChild(QDialogButtonBox).buttons()[0]
    where = start.mapTo(dialog, start.rect().topLeft()), dialog.height()
    wait_idle(qtbot, ctx)
    assert "not running" in dialog.state.text()
    with FakeOllama(models=["llama3.2:3b"]) as server:
        ctx.save_settings(ollama_host=server.url)
        wait_for_task(qtbot, dialog.detect())
        QApplication.processEvents()  # the deferred fit runs
        assert "is not installed yet" in dialog.state.text() and dialog.puller.isVisible()
        assert (start.mapTo(dialog, start.rect().topLeft()), dialog.height()) == where


def test_a_bad_address_is_explained(qtbot, ctx) -> None:
    dialog = open_welcome(qtbot, ctx, "localhost:notaport")

    assert "is not a usable address" in dialog.state.text()
    assert ERROR_COLOUR in dialog.state.styleSheet()


@pytest.mark.parametrize("close", ["accept", "reject"])
def test_closing_records_that_the_welcome_was_seen(qtbot, ctx, close: str) -> None:
    dialog = open_welcome(qtbot, ctx, closed_port_url())
    assert ctx.settings.welcome_shown is False

    getattr(dialog, close)()

    assert ctx.settings.welcome_shown is True
    stored = json.loads(ctx.hearth.paths.settings_file.read_text(encoding="utf-8"))
    assert stored["welcome_shown"] is True
