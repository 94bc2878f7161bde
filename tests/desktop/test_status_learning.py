"""The status bar's learning text tells what learning does now: "learning…" while it
works, and no longer once it is done (seen: "learning… (6 facts learned)" for ten
minutes). The wait for that holds none of the window's threads."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from core.llm import CancelToken, Message
from desktop.context import AppContext
from desktop.status import StatusBar
from support.qt_waits import wait_for_task
from support.scripted_llm import ScriptedLLM


class GatedLLM(ScriptedLLM):
    """Replies at once; a structured request (fact extraction) waits for ``gate``."""

    def __init__(self) -> None:
        super().__init__(lambda *_: "Noted.")
        self.gate = threading.Event()
        self.extracting = threading.Event()

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        self.extracting.set()
        assert self.gate.wait(30), "the test never opened the gate"
        return '{"facts": []}'


def test_the_learning_text_ends_when_learning_does(qtbot, make_ctx) -> None:
    model = GatedLLM()
    ctx: AppContext = make_ctx(provider_factory=lambda: model)
    bar = StatusBar(ctx)
    qtbot.addWidget(bar)
    with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=30_000):
        ctx.start_assistant()
    assert ctx.assistant is not None
    conversation = ctx.assistant.conversation
    list(conversation.send(conversation.sessions.new_session(), "My sister Priya lives in Lisbon"))
    assert model.extracting.wait(30)  # the rules stored two facts; the model is asked more
    qtbot.waitUntil(lambda: bar.learning_label.text() == "learning… (2 facts learned)",
                    timeout=5_000)
    every_thread = threading.Barrier(4, timeout=5)  # the window's four, all free meanwhile
    for job in [ctx.workers.start(f"job {n}", lambda _t: every_thread.wait())
                for n in range(4)]:
        wait_for_task(qtbot, job)

    model.gate.set()
    learning = ctx.assistant.learning
    qtbot.waitUntil(lambda: learning.drain(timeout=0), timeout=30_000)
    qtbot.waitUntil(lambda: bar.learning_label.text() == "learning on (2 facts learned)",
                    timeout=1_000)
