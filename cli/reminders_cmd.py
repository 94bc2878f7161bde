"""``hearth reminders``: set, list, edit, snooze and cancel reminders from a terminal.

Times are ``YYYY-MM-DDTHH:MM`` in the user's zone (or ``--zone``); the daemon or the tray
delivers them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli.context import opened
from cli.daily import IdArgument, JsonOption, done, local, show

if TYPE_CHECKING:
    from core.operations.reminders import ReminderItem

reminders_app = typer.Typer(help="Your reminders: list, add, edit, snooze, cancel.",
                            no_args_is_help=True)


def _when(item: ReminderItem) -> str:
    return f"{local(item.remind_at, item.zone)} ({item.zone})"


@reminders_app.command("list")
def list_reminders(status: Annotated[str | None, typer.Option(
        help="pending, sent or cancelled.")] = None, as_json: JsonOption = False) -> None:
    """Reminders, soonest first."""
    from core.operations import reminders

    with opened(only_reads=True) as hearth:
        items = reminders.list_reminders(hearth, status)
    show(items, as_json, "Reminders", ["id", "message", "when", "status", "snoozed"],
         lambda r: (r.id, r.message, _when(r), r.status, r.snooze_count or ""))


@reminders_app.command("add")
def add(message: Annotated[str, typer.Argument(help="What to remind you of.")],
        at: Annotated[str, typer.Option("--at", metavar="YYYY-MM-DDTHH:MM",
                                        help="When, in your time zone.")],
        zone: Annotated[str | None, typer.Option(
            help="Another time zone, e.g. Europe/Lisbon.")] = None,
        as_json: JsonOption = False) -> None:
    """Set a reminder."""
    from core.operations import reminders

    with opened() as hearth:
        item = reminders.add(hearth, message, at, zone).value
    done(item, as_json, f"Reminder {item.id} set for {_when(item)}: {item.message}")


@reminders_app.command("snooze")
def snooze(reminder_id: IdArgument,
           minutes: Annotated[int | None, typer.Option(help="Minutes from now.")] = None,
           until: Annotated[str | None, typer.Option(
               metavar="YYYY-MM-DDTHH:MM", help="Until then instead.")] = None,
           as_json: JsonOption = False) -> None:
    """Remind again later."""
    from core.operations import reminders

    with opened() as hearth:
        item = reminders.snooze(hearth, reminder_id, minutes=minutes, until=until).value
    done(item, as_json, f"Reminder {item.id} snoozed to {_when(item)}")


@reminders_app.command("edit")
def edit(reminder_id: IdArgument,
         message: Annotated[str | None, typer.Option(help="What it should say now.")] = None,
         at: Annotated[str | None, typer.Option(
             "--at", metavar="YYYY-MM-DDTHH:MM",
             help="Move it to then, in its time zone (counts as a snooze).")] = None,
         as_json: JsonOption = False) -> None:
    """Change a reminder's message, its time, or both."""
    from core.operations import reminders

    with opened() as hearth:
        item = reminders.edit(hearth, reminder_id, message=message, until=at).value
    done(item, as_json, f"Reminder {item.id} at {_when(item)}: {item.message}")


@reminders_app.command("cancel")
def cancel(reminder_id: IdArgument, as_json: JsonOption = False) -> None:
    """Cancel a pending reminder."""
    from core.operations import reminders

    with opened() as hearth:
        item = reminders.cancel(hearth, reminder_id).value
    done(item, as_json, f"Cancelled reminder {item.id}: {item.message}")
