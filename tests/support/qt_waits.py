"""Waiting for the window's background work in pytest-qt tests (never by sleeping)."""

from __future__ import annotations

from typing import Any

TASK_TIMEOUT_MS = 60_000


def wait_for_task(qtbot: Any, task: Any, timeout: int = TASK_TIMEOUT_MS) -> None:
    """Wait until a background task has finished (succeeded, failed or cancelled)."""
    qtbot.waitUntil(lambda: not task.running, timeout=timeout)


def wait_idle(qtbot: Any, ctx: Any, timeout: int = TASK_TIMEOUT_MS) -> None:
    """Wait until no background task of the window is running and every change the feed
    told so far is on the hub (whose views then started, and finished, their reloads)."""
    qtbot.waitUntil(lambda: not ctx.workers.active and ctx.relay.settled, timeout=timeout)


def settle(qtbot: Any, ctx: Any) -> None:
    """Wait for a change job and for the reloads it set off (a second round of jobs)."""
    wait_idle(qtbot, ctx)
    qtbot.wait(10)
    wait_idle(qtbot, ctx)
