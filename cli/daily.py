"""What the daily tools' commands (``tasks``, ``reminders``, ``notes``, ``journal``,
``later``) share: their options, showing a result as JSON or a table, local times, and
asking before a delete."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Annotated, Any, TypeVar

import typer

from cli import output
from core.errors import InvalidInputError

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
YesOption = Annotated[bool, typer.Option("--yes", help="Do not ask first (for scripts).")]
IdArgument = Annotated[int, typer.Argument(metavar="ID", help="The number `list` shows.")]

Item = TypeVar("Item")


def show(items: Sequence[Item], as_json: bool, title: str, columns: Sequence[str],
         row: Callable[[Item], Sequence[Any]]) -> None:
    """``items`` as a JSON list, or as a table of ``row(item)``."""
    if as_json:
        output.print_json(list(items))
    else:
        output.print_table(title, columns, [row(item) for item in items])


def done(item: Any, as_json: bool, sentence: str) -> None:
    """One changed item: as JSON, or as a sentence."""
    if as_json:
        output.print_json(item)
    else:
        output.stdout.print(sentence, markup=False, highlight=False)


def local(moment: datetime | None, zone: str | None = None) -> str:
    """A moment as the user reads it: ``YYYY-MM-DD HH:MM`` in their zone."""
    from core.operations.tasks import zone as zone_named

    return "" if moment is None else moment.astimezone(zone_named(zone)).strftime(
        "%Y-%m-%d %H:%M")


def delete_confirmed(what: str, yes: bool) -> None:
    """Ask before deleting ``what`` ("note 3") in a terminal; elsewhere require ``--yes``."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise InvalidInputError("A delete cannot be undone, so it is only done when "
                                "confirmed.", "Add --yes to delete without asking.")
    if not typer.confirm(f"Delete {what} for good? This cannot be undone.", default=False,
                         err=True):
        raise typer.Exit(1)
