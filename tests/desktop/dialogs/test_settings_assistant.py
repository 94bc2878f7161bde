"""Settings → Assistant: the user's instructions for how to answer and the temperature are
saved, and the very next reply's request carries them, to Ollama (the real client against
the fake server) and to the built-in model; Help → About names the version."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from support.fake_ollama import FakeReply
from support.qt_waits import wait_idle
from test_chat_page import EMBEDDED_REPLY_MS, ChatServer, open_page, type_and_send, wait_reply

from core.config import Settings
from core.llm.embedded import EmbeddedProvider
from core.version import app_version
from desktop import main_window
from desktop.dialogs.settings import SettingsDialog
from desktop.dialogs.settings_assistant_page import MODEL_DEFAULT, AssistantSection
from desktop.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[3]
PERSONA = "Answer like a ship's captain. Keep it under three sentences."


def assistant_tab(qtbot, ctx) -> tuple[SettingsDialog, AssistantSection]:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    wait_idle(qtbot, ctx)
    section = dialog.section("Assistant")
    assert isinstance(section, AssistantSection)
    return dialog, section


def test_persona_and_temperature_reach_the_next_ollama_request(qtbot, make_ctx) -> None:
    chat = ChatServer()
    with chat.server:
        chat.replies.extend([FakeReply("Aye."), FakeReply("Aye again.")])
        ctx = make_ctx(provider_factory=chat.provider_factory())
        page = open_page(qtbot, ctx)
        type_and_send(qtbot, page, "Hello")
        wait_reply(qtbot, page)
        first = chat.server.chat_requests()[-1]
        assert "temperature" not in first["options"]  # unset: the model's own default
        assert PERSONA not in first["messages"][0]["content"]

        dialog, section = assistant_tab(qtbot, ctx)
        assert section.temperature.text() == MODEL_DEFAULT
        section.persona.setPlainText(PERSONA)
        section.temperature.setValue(0.3)
        assert dialog.apply() and dialog.outcome.text() == "Saved."
        type_and_send(qtbot, page, "Hello again")
        wait_reply(qtbot, page)

    sent = [body for body in chat.server.chat_requests()
            if not isinstance(body.get("format"), dict)][-1]
    assert sent["options"]["temperature"] == pytest.approx(0.3)
    assert sent["messages"][0]["role"] == "system"
    assert PERSONA in sent["messages"][0]["content"]
    assert (ctx.settings.persona, ctx.settings.temperature) == (PERSONA, 0.3)


def test_too_long_instructions_are_refused_next_to_the_field(qtbot, ctx) -> None:
    dialog, section = assistant_tab(qtbot, ctx)
    section.persona.setPlainText("x" * 5000)
    assert not dialog.apply()
    assert "Keep it under 4,000 characters" in section.error_text("persona")
    assert ctx.settings.persona == ""


@pytest.mark.slow
def test_the_built_in_model_is_asked_with_the_temperature(qtbot, make_ctx,
                                                          monkeypatch) -> None:
    asked: list[dict[str, Any]] = []
    generate = EmbeddedProvider._generate

    def recording(self, request: dict[str, Any], cancel: Any) -> Any:
        asked.append(request)
        return generate(self, request, cancel)

    monkeypatch.setattr(EmbeddedProvider, "_generate", recording)
    ctx = make_ctx(provider_factory=lambda: EmbeddedProvider.from_settings(Settings()))
    ctx.hearth.settings.learning_paused = True  # one short turn: no extraction after it
    ctx.save_settings(persona=PERSONA, temperature=0.0)
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "Say hello.")
    reply = wait_reply(qtbot, page, EMBEDDED_REPLY_MS)

    assert reply.status == "completed", reply.footer.text()
    chat = [r for r in asked if "json_schema" not in r][-1]
    assert chat["temperature"] == 0.0
    assert PERSONA in chat["messages"][0]["content"]


def test_about_names_the_version(qtbot, make_ctx, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(main_window.QMessageBox, "about",
                        lambda _parent, _title, text: shown.append(text))
    window = MainWindow(make_ctx())
    qtbot.addWidget(window)
    about = next(a for menu in window.menuBar().actions() if menu.menu() is not None
                 for a in menu.menu().actions() if a.text() == "&About Hearth")
    about.trigger()
    (text,) = shown
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert app_version() == declared and f"Hearth {declared}" in text
