"""The window on a small model: the true answer from memory above the model's phrasing,
a reply without claims it cannot back, what the model may do in Settings, and the
built-in model's one sentence in the welcome.

A scripted model that says it has 135M parameters; the real database and embedder.
"""

from __future__ import annotations

from typing import Any

from support.chat_turns import open_page, say
from support.qt_waits import wait_idle
from support.scripted_llm import ScriptedLLM

from core.config import DEFAULT_EMBEDDED_LLM
from desktop.dialogs.settings import SettingsDialog
from desktop.dialogs.settings_model_page import ModelSection
from desktop.dialogs.welcome import WelcomeDialog

TINY = 135_000_000


def tiny_model(reply: str):
    def answer(kind: str, _messages: Any, _extra: dict[str, Any]) -> str:
        assert kind == "chat", "a small model is only asked to phrase replies"
        return reply
    return lambda: ScriptedLLM(answer, model="smollm2-135m", supports_tools=False,
                               parameter_count=TINY)


def test_the_answer_from_memory_is_shown_above_the_models_phrasing(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=tiny_model(
        "Your sister lives in Madrid. I've saved her address for you."))
    ctx.hearth.facts.remember("sister_home_city", "Lisbon", category="personal")
    page = open_page(qtbot, ctx)
    reply = say(qtbot, page, "Where does my sister live?")

    assert reply.known.isVisible()
    assert reply.known.text().startswith("From what you told me:\n"
                                         "• Your sister's home city: Lisbon (you told me on")
    assert reply.known.geometry().bottom() <= reply.body.geometry().top()
    assert reply.markdown == "Your sister lives in Madrid. "  # the claim is left out


def test_no_card_when_memory_does_not_answer(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=tiny_model("Hello!"))
    page = open_page(qtbot, ctx)
    reply = say(qtbot, page, "What should I cook tonight?")
    assert not reply.known.isVisible() and reply.markdown == "Hello!"


def test_settings_say_what_the_model_may_do_and_what_waits(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=tiny_model("Noted."))
    page = open_page(qtbot, ctx)
    say(qtbot, page, "I live in Porto and I work at Acme.")
    wait_idle(qtbot, ctx)
    ctx.assistant.learning.drain(timeout=30)
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    wait_idle(qtbot, ctx)
    section = dialog.section("Model")
    assert isinstance(section, ModelSection)
    text = section.capability.text()
    assert text.startswith("smollm2-135m (135 million parameters) can phrase replies but "
                           "will not learn facts beyond what you state plainly")
    assert "install Ollama (ollama.com) and pull llama3.2:3b" in text
    assert ("Waiting for a capable model: 1 message to look for facts in, 2 things learned "
            "to combine into memories.") in text
    assert section.jobs.currentData() == "auto"


def test_the_welcome_says_what_the_built_in_model_can_and_cannot_do(qtbot, ctx) -> None:
    dialog = WelcomeDialog(ctx)
    qtbot.addWidget(dialog)
    wait_idle(qtbot, ctx)
    text = dialog.built_in.text()
    assert text.startswith(f"Without a capable model, Hearth answers with the one built in: "
                           f"{DEFAULT_EMBEDDED_LLM.stem} (135 million parameters) can phrase "
                           "replies but will not")
