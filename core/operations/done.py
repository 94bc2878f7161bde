"""What an operation that changed something hands back: its answer and what it moved.

Why one pair instead of a tuple: a view reads ``done.value`` to say what happened, and
``done.changes`` tells it whether the change feed will reload it (an edit that changed
nothing is shown again from the database all the same)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from core.operations.changes import Changes

T = TypeVar("T")


@dataclass(frozen=True)
class Done(Generic[T]):
    """An operation's result (plain data) and the domains it changed."""

    value: T
    changes: Changes
