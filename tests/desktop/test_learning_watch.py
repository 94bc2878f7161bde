"""After a turn the other views reload once learning has digested it, and the wait for that
holds none of the window's threads (learning behind a slow model must not starve them)."""

from __future__ import annotations

from core.operations.changes import Changes

import threading
from collections.abc import Sequence
from typing import Any

from support.hub_changes import touching
from support.qt_waits import wait_for_task
from support.scripted_llm import ScriptedLLM

from core.llm import CancelToken, Message
from desktop.chat.learning_watch import LearningWatch
from desktop.context import AppContext

GATE = threading.Event()
"""Opened by the test: until then, learning's model call does not return."""


class GatedLLM(ScriptedLLM):
    """Replies at once; a structured request (fact extraction) waits for ``GATE``."""

    def __init__(self) -> None:
        super().__init__(lambda *_: "Noted.")
        self.extracting = threading.Event()

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        self.extracting.set()
        assert GATE.wait(30), "the test never opened the gate"
        return '{"facts": []}'


def learning_under_way(qtbot, make_ctx, text: str) -> AppContext:
    """A window context whose assistant was told ``text`` and whose learning is now inside
    the model call, held there until the test opens ``GATE``."""
    GATE.clear()
    model = GatedLLM()
    ctx: AppContext = make_ctx(provider_factory=lambda: model)
    with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=30_000):
        ctx.start_assistant()
    conversation = ctx.assistant.conversation
    list(conversation.send(conversation.new_session(), text))
    assert model.extracting.wait(30)  # learning is inside the model call
    return ctx


def test_views_reload_once_learning_is_idle_and_the_wait_holds_no_thread(
        qtbot, make_ctx) -> None:
    ctx = learning_under_way(qtbot, make_ctx, "My sister Priya lives in Lisbon")
    reloads: list[bool] = []
    ctx.hub.changed.connect(
        lambda changes: changes == Changes.knowledge() and reloads.append(True))

    watch = LearningWatch(ctx)
    watch.exchange_saved()
    watch.exchange_saved()  # a second turn meanwhile: the same wait covers it
    assert watch.waiting
    every_thread = threading.Barrier(4, timeout=5)  # the window's four, all at once
    jobs = [ctx.workers.start(f"job {n}", lambda _t: every_thread.wait()) for n in range(4)]
    for job in jobs:
        wait_for_task(qtbot, job)
    assert not every_thread.broken
    qtbot.wait(300)
    assert watch.waiting and reloads == []  # learning is still busy: nothing to reload yet

    with qtbot.waitSignal(ctx.hub.changed, timeout=30_000, check_params_cb=touching()):
        GATE.set()
    qtbot.waitUntil(lambda: not watch.waiting)
    qtbot.wait(300)
    assert reloads == [True]  # once, not once per turn


def test_quitting_ends_the_wait_without_telling_the_views(qtbot, make_ctx) -> None:
    ctx = learning_under_way(qtbot, make_ctx, "I moved to Porto last week")
    reloads: list[bool] = []
    ctx.hub.changed.connect(
        lambda changes: changes == Changes.knowledge() and reloads.append(True))
    watch = LearningWatch(ctx)
    watch.exchange_saved()

    ctx.workers.cancel_all()  # what quitting does first
    qtbot.waitUntil(lambda: not watch.waiting, timeout=5_000)
    assert reloads == []
    GATE.set()  # let learning end, so the context closes at once
