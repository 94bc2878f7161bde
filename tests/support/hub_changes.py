"""Waiting for the window's hub to announce a change (``hub.changed`` carries a ``Changes``)."""

from __future__ import annotations

from collections.abc import Callable

from core.operations.changes import KNOWLEDGE, Changes, Domain


def touching(*domains: Domain) -> Callable[[Changes], bool]:
    """``check_params_cb`` for ``qtbot.waitSignal(hub.changed, ...)``: a change that touches
    any of ``domains`` (any of the user's knowledge when none are named)."""
    wanted = domains or tuple(KNOWLEDGE)
    return lambda changes: changes.touches(*wanted)
