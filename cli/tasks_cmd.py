"""``hearth tasks``: the user's to-do list from a terminal.

Dates are ISO (``YYYY-MM-DD``) and times ``HH:MM``, in the user's zone; each command that
changes something does one change and prints what it did (or the task as JSON)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Annotated

import typer

from cli.context import opened
from cli.daily import IdArgument, JsonOption, YesOption, delete_confirmed, done, show

if TYPE_CHECKING:
    from core.operations.tasks import Keep, TaskItem

tasks_app = typer.Typer(help="Your tasks: list, add, done, edit, delete.", no_args_is_help=True)

DueOption = Annotated[str | None, typer.Option("--due", metavar="YYYY-MM-DD",
                                                help="The day it is due.")]
AtOption = Annotated[str | None, typer.Option("--at", metavar="HH:MM",
                                               help="The time it is due (with --due).")]


def _show(items: tuple[TaskItem, ...], as_json: bool, title: str) -> None:
    show(items, as_json, title, ["id", "task", "due", "status", "source"],
         lambda t: (t.id, t.title, f"{t.due_date or ''} {t.due_time or ''}".strip(),
                    t.status, t.source))


@tasks_app.command("list")
def list_tasks(status: Annotated[str | None, typer.Option(help="todo or done.")] = None,
               as_json: JsonOption = False) -> None:
    """Tasks, soonest due first, undated last."""
    from core.operations import tasks

    with opened(only_reads=True) as hearth:
        _show(tasks.list_tasks(hearth, status), as_json, "Tasks")


@tasks_app.command("today")
def today(day: Annotated[str | None, typer.Option(
        "--day", metavar="YYYY-MM-DD", help="Another day than today.")] = None,
        as_json: JsonOption = False) -> None:
    """Open tasks that are overdue or due today."""
    from core.operations import tasks

    local_day = tasks.day(day) if day else tasks.today()
    with opened(only_reads=True) as hearth:
        items = tasks.overdue(hearth, local_day) + tasks.due_today(hearth, local_day)
    _show(items, as_json, f"Due by {local_day.isoformat()}")


@tasks_app.command("add")
def add(title: Annotated[str, typer.Argument(help="What to do.")], due: DueOption = None,
        at: AtOption = None,
        details: Annotated[str, typer.Option(help="Notes on the task.")] = "",
        as_json: JsonOption = False) -> None:
    """Add a task."""
    from core.operations import tasks

    with opened() as hearth:
        item = tasks.add(hearth, title, details=details, due_date=due, due_time=at).value
    done(item, as_json, f"Added task {item.id}: {item.title}{_due(item)}")


@tasks_app.command("done")
def complete(task_id: IdArgument, as_json: JsonOption = False) -> None:
    """Mark a task done."""
    from core.operations import tasks

    with opened() as hearth:
        item = tasks.complete(hearth, task_id).value
    done(item, as_json, f"Done: {item.title}")


@tasks_app.command("reopen")
def reopen(task_id: IdArgument, as_json: JsonOption = False) -> None:
    """Mark a done task to do again."""
    from core.operations import tasks

    with opened() as hearth:
        item = tasks.reopen(hearth, task_id).value
    done(item, as_json, f"To do again: {item.title}")


@tasks_app.command("edit")
def edit(task_id: IdArgument,
         title: Annotated[str | None, typer.Option(help="A new title.")] = None,
         details: Annotated[str | None, typer.Option(help="New notes.")] = None,
         due: DueOption = None, at: AtOption = None,
         no_due: Annotated[bool, typer.Option("--no-due", help="Take the due date away.")]
         = False, as_json: JsonOption = False) -> None:
    """Change a task's title, notes or due date and time."""
    from core.operations import tasks
    from core.operations.tasks import KEEP

    due_date: date | str | None | Keep = None if no_due else (due if due is not None else KEEP)
    with opened() as hearth:
        item = tasks.edit(hearth, task_id, title=title, details=details, due_date=due_date,
                          due_time=at if at is not None else KEEP).value
    done(item, as_json, f"Changed task {item.id}: {item.title}{_due(item)}")


@tasks_app.command("delete")
def delete(task_id: IdArgument, yes: YesOption = False, as_json: JsonOption = False) -> None:
    """Delete a task for good."""
    from core.operations import tasks

    delete_confirmed(f"task {task_id}", yes)
    with opened() as hearth:
        item = tasks.delete(hearth, task_id).value
    done(item, as_json, f"Deleted task {item.id}: {item.title}")


def _due(item: TaskItem) -> str:
    if item.due_date is None:
        return ""
    return f" (due {item.due_date.isoformat()}{' ' + item.due_time if item.due_time else ''})"
