"""``hearth prompts`` and ``hearth alerts``: the scheduled prompts (a question the assistant
answers on a cron schedule, delivered as a notification and a chat) and the task alerts,
by hand from a terminal. The delivery job of the tray or ``hearth daemon`` runs them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli.context import opened
from cli.daily import IdArgument, JsonOption, YesOption, delete_confirmed, done, local, show

if TYPE_CHECKING:
    from core.operations.prompts import AlertItem, PromptItem

prompts_app = typer.Typer(help="Scheduled prompts: list, add, edit, pause, delete.",
                          no_args_is_help=True)
alerts_app = typer.Typer(help="Task alerts (due today, overdue): list, turn on or off.",
                         no_args_is_help=True)

CronOption = Annotated[str, typer.Option(
    "--cron", metavar="'MIN HOUR DAY MONTH WEEKDAY'",
    help="When, as 5 cron fields in your time zone, e.g. '0 8 * * mon-fri'.")]
ZoneOption = Annotated[str | None, typer.Option(help="Another time zone, e.g. Europe/Lisbon.")]


def _next(item: PromptItem) -> str:
    return local(item.next_run_at, item.zone) if item.enabled else "paused"


def _said(item: PromptItem, verb: str) -> str:
    return f"Scheduled prompt {item.id} “{item.name}” {verb}; next run: {_next(item)}."


@prompts_app.command("list")
def list_prompts(as_json: JsonOption = False) -> None:
    """Every scheduled prompt, by name, with its next run."""
    from core.operations import prompts

    with opened(only_reads=True) as hearth:
        items = prompts.list_prompts(hearth)
    show(items, as_json, "Scheduled prompts", ["id", "name", "cron", "zone", "next run",
                                               "last run"],
         lambda p: (p.id, p.name, p.cron, p.zone, _next(p), local(p.last_run_at, p.zone)))


@prompts_app.command("add")
def add(name: Annotated[str, typer.Argument(help="A short name, e.g. 'Morning plan'.")],
        prompt: Annotated[str, typer.Argument(help="What to ask the assistant.")],
        cron: CronOption, zone: ZoneOption = None, as_json: JsonOption = False) -> None:
    """Ask the assistant something on a schedule."""
    from core.operations import prompts

    with opened() as hearth:
        item = prompts.add(hearth, name, prompt, cron, zone=zone).value
    done(item, as_json, _said(item, "added"))


@prompts_app.command("edit")
def edit(prompt_id: IdArgument,
         name: Annotated[str | None, typer.Option(help="A new name.")] = None,
         prompt: Annotated[str | None, typer.Option(help="A new question.")] = None,
         cron: Annotated[str | None, typer.Option(metavar="'MIN HOUR DAY MONTH WEEKDAY'",
                                                  help="A new schedule.")] = None,
         zone: ZoneOption = None, as_json: JsonOption = False) -> None:
    """Change a prompt's name, question, schedule or zone."""
    from core.operations import prompts

    with opened() as hearth:
        item = prompts.edit(hearth, prompt_id, name=name, prompt=prompt, cron=cron,
                            zone=zone).value
    done(item, as_json, _said(item, "changed"))


@prompts_app.command("pause")
def pause(prompt_id: IdArgument, as_json: JsonOption = False) -> None:
    """Stop running a prompt until it is resumed."""
    from core.operations import prompts

    with opened() as hearth:
        item = prompts.edit(hearth, prompt_id, enabled=False).value
    done(item, as_json, _said(item, "paused"))


@prompts_app.command("resume")
def resume(prompt_id: IdArgument, as_json: JsonOption = False) -> None:
    """Run a paused prompt again on its schedule."""
    from core.operations import prompts

    with opened() as hearth:
        item = prompts.edit(hearth, prompt_id, enabled=True).value
    done(item, as_json, _said(item, "resumed"))


@prompts_app.command("delete")
def delete(prompt_id: IdArgument, yes: YesOption = False, as_json: JsonOption = False) -> None:
    """Delete a scheduled prompt (its past answers stay in their chat)."""
    from core.operations import prompts

    delete_confirmed(f"scheduled prompt {prompt_id}", yes)
    with opened() as hearth:
        item = prompts.delete(hearth, prompt_id).value
    done(item, as_json, f"Scheduled prompt {item.id} “{item.name}” deleted.")


def _alert_row(item: AlertItem) -> tuple[str, str, str, str]:
    return (item.kind, "on" if item.enabled else "off", f"{item.cooldown_minutes} min",
            local(item.last_fired_at))


@alerts_app.command("list")
def list_alerts(as_json: JsonOption = False) -> None:
    """The task alerts and how long each stays quiet after firing for a task."""
    from core.operations import prompts

    with opened(only_reads=True) as hearth:
        items = prompts.list_alerts(hearth)
    show(items, as_json, "Task alerts", ["kind", "state", "quiet for", "last fired"],
         _alert_row)


@alerts_app.command("set")
def set_alert(kind: Annotated[str, typer.Argument(help="task_due_today or task_overdue.")],
              on: Annotated[bool | None, typer.Option("--on/--off",
                                                      help="Turn the alert on or off.")] = None,
              cooldown: Annotated[int | None, typer.Option(
                  help="Minutes it stays quiet after firing for a task.")] = None,
              as_json: JsonOption = False) -> None:
    """Turn an alert on or off, or change its quiet time."""
    from core.operations import prompts

    with opened() as hearth:
        item = prompts.set_alert(hearth, kind, enabled=on, cooldown_minutes=cooldown).value
    done(item, as_json, f"Alert {item.kind}: {'on' if item.enabled else 'off'}, quiet for "
                        f"{item.cooldown_minutes} minutes after firing.")
