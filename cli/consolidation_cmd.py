"""``hearth events`` and ``hearth runs``: what is waiting for consolidation, what failed, and
what the consolidation runs did; ``hearth runs ID`` shows a dream's or reflection's
changelog and ``--undo`` reverts it, one change or all (``core.operations.consolidation``).

Registered as top-level commands by ``cli.main``. Failed events are shown with their
attempts and last error so the user can fix the cause (pick a larger model) and retry them
with ``--retry ID`` or ``--retry --all``; events waiting for a model that could not answer
show what they wait for. Nothing on the event bus is ever dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli import output
from cli.context import opened
from core.errors import InvalidInputError

if TYPE_CHECKING:
    from core.operations.consolidation import Change, EventView, RunChanges, RunView

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

CONTENT_CHARS = 80   # of an event's content in the table (--json has all of it)


def events(event_id: Annotated[int | None, typer.Argument(
               metavar="[ID]", help="The event to retry (with --retry).")] = None,
           failed: Annotated[bool, typer.Option(
               "--failed", help="Events that failed at least once, poisoned ones included.")
           ] = False,
           retry: Annotated[bool, typer.Option(
               "--retry", help="Reset the attempts of event ID (or, with --all, of every "
                               "failed event) so the next run tries it again.")] = False,
           every: Annotated[bool, typer.Option(
               "--all", help="With --retry: every failed and poisoned event.")] = False,
           limit: Annotated[int, typer.Option(min=1, help="Show at most this many.")] = 200,
           as_json: JsonOption = False) -> None:
    """Observations waiting for consolidation, or (--failed) those that failed."""
    from core.operations import consolidation
    from core.operations.consolidation import clip

    if retry:
        _retry(event_id, every, as_json)
        return
    if every or event_id is not None:
        raise InvalidInputError("An event ID and --all go with --retry.",
                                "For example `hearth events --retry 12` or "
                                "`hearth events --retry --all`.")
    with opened() as hearth:
        listed = [_event_dict(event)
                  for event in consolidation.events(hearth, failed=failed, limit=limit)]
    if as_json:
        output.print_json(listed)
        return
    columns = ["id", "type", "created", "state", "attempts", "content"]
    with_errors = failed or any(e["last_error"] for e in listed)  # e.g. waiting for Ollama
    if with_errors:
        columns.append("last error")
    output.print_table(
        "Failed events" if failed else "Pending events", columns,
        [[e["id"], e["event_type"], f"{e['created_at']:%Y-%m-%d %H:%M}", e["state"],
          e["attempts"], clip(" ".join(e["content"].split()), CONTENT_CHARS),
          *([e["last_error"] or ""] if with_errors else [])] for e in listed])
    if failed and any(e["state"] == "poisoned" for e in listed):
        output.stderr.print("Poisoned events are no longer tried; fix the cause, then "
                            "`hearth events --retry ID` (or `--retry --all`).",
                            highlight=False, markup=False)


def _retry(event_id: int | None, every: bool, as_json: bool) -> None:
    """``--retry ID`` or ``--retry --all``: fresh attempts for the next run."""
    from core.operations import consolidation

    if every and event_id is None:
        with opened() as hearth:
            count = consolidation.retry_failed_events(hearth).value
        if as_json:
            output.print_json({"retried": count})
        else:
            output.stdout.print(f"{count} failed event{'s' * (count != 1)} will be tried "
                                "again by the next consolidation run.", highlight=False)
        return
    if every or event_id is None:
        raise InvalidInputError("Say which event to retry: an ID, or --all (not both).",
                                "For example `hearth events --retry 12` or "
                                "`hearth events --retry --all`.")
    with opened() as hearth:
        event = consolidation.retry_event(hearth, event_id).value
    if as_json:
        output.print_json(_event_dict(event))
    else:
        output.stdout.print(f"Event {event.id} will be tried again by the next "
                            "consolidation run.", highlight=False)


def runs(run_id: Annotated[int | None, typer.Argument(
             metavar="[ID]", help="One run: what it changed, numbered (and --undo).")] = None,
         kind: Annotated[str | None, typer.Option(
             help="Only runs of this kind (processor, dream, reflection).")] = None,
         undo: Annotated[bool, typer.Option(
             "--undo", help="With ID: undo everything the run changed that is still in "
                            "effect (or, with --change N, change N only).")] = False,
         change: Annotated[int | None, typer.Option(
             "--change", min=1, help="With ID --undo: the number of the change to undo.")
         ] = None,
         limit: Annotated[int, typer.Option(min=1, help="Show at most this many.")] = 20,
         as_json: JsonOption = False) -> None:
    """Recent consolidation runs, newest first, with per-stage counts and seconds; or one
    run's changelog (what a dream or reflection changed), which --undo reverts."""
    from core.operations import consolidation
    from core.operations.consolidation import run_status

    if run_id is None:
        if undo or change is not None:
            raise InvalidInputError("Say which run to undo.",
                                    "For example `hearth runs 12 --undo`; `hearth runs` "
                                    "lists them.")
        with opened() as hearth:
            listed = [_run_dict(run) for run in consolidation.runs(hearth, kind, limit)]
        if as_json:
            output.print_json(listed)
            return
        output.print_table("Runs", ["id", "kind", "status", "started", "stage", "seconds",
                                    "counts"], _run_rows(listed))
        return
    if change is not None and not undo:
        raise InvalidInputError("--change goes with --undo.",
                                f"For example `hearth runs {run_id} --undo --change 2`.")
    if undo:
        _undo(run_id, change, as_json)
        return
    with opened() as hearth:
        shown = consolidation.changes_of(hearth, run_id)
    if as_json:
        output.print_json(_changes_dict(shown))
        return
    output.stdout.print(f"{shown.title} (run {shown.run_id}): {run_status(shown.status)}",
                        highlight=False, markup=False)
    if not shown.changes:
        output.stdout.print("No changelog: nothing recorded for this run.", highlight=False)
    for item in shown.changes:
        mark = " (undone)" if item.undone else ""
        output.stdout.print(f"{item.index + 1}. {item.text}{mark}", highlight=False,
                            markup=False)
    if shown.open_changes:
        output.stdout.print(f"Undo one with `hearth runs {run_id} --undo --change N`, all "
                            f"with `hearth runs {run_id} --undo`.", highlight=False,
                            markup=False)


def print_changes(run_id: int, changes: Sequence[Change]) -> None:
    """What a dream or reflection just changed, numbered as `hearth runs ID` numbers it,
    and how to undo it."""
    if not changes:
        return
    output.stdout.print("What changed:", highlight=False)
    for item in changes:
        output.stdout.print(f"  {item.index + 1}. {item.text}", highlight=False, markup=False)
    if any(item.undoable for item in changes):
        output.stdout.print(f"Undo with `hearth runs {run_id} --undo [--change N]`.",
                            highlight=False, markup=False)


def _undo(run_id: int, number: int | None, as_json: bool) -> None:
    from core.operations import consolidation
    from core.operations.consolidation import plural

    with opened() as hearth:
        if number is not None:
            done = consolidation.undo_change(hearth, run_id, number - 1)
            if as_json:
                output.print_json({"undone": [asdict(item) for item in done.undone],
                                   "already_undone": [asdict(item) for item in done.already],
                                   "kept": []})
            else:
                output.stdout.print(done.message, highlight=False, markup=False)
            return
        result = consolidation.undo_run(hearth, run_id)
    if as_json:
        output.print_json({"undone": [asdict(item) for item in result.undone],
                           "kept": [{**asdict(item), "why": why} for item, why in result.kept]})
        return
    output.stdout.print(f"Undone {plural(len(result.undone), 'change')} of run {run_id}.",
                        highlight=False, markup=False)
    for item, why in result.kept:
        output.stdout.print(f"Kept: {item.text}: {why}", highlight=False, markup=False)


def _changes_dict(shown: RunChanges) -> dict[str, Any]:
    return {**asdict(shown), "title": shown.title}


def _event_dict(event: EventView) -> dict[str, Any]:
    viewed = asdict(event)
    return {**viewed, "state": viewed["state"].value}


def _run_dict(run: RunView) -> dict[str, Any]:
    """The run as JSON: its stages keyed by name, as `hearth runs --json` has always shown
    (a failed stage's error and traceback only where there is one)."""
    stages = {stage.name: {key: value for key, value in asdict(stage).items()
                           if key != "name"
                           and (key not in ("error", "traceback") or value is not None)}
              for stage in run.stages}
    return {**asdict(run), "stages": stages}


def _run_rows(listed: list[dict[str, Any]]) -> list[list[Any]]:
    """A line per run (total seconds), then a line per stage with its counts, and the
    error of a failed run: readable in an 80-column terminal."""
    lines: list[list[Any]] = []
    for run in listed:
        lines.append([run["id"], f"{run['kind']} ({run['trigger']})", run["status"],
                      f"{run['started_at']:%Y-%m-%d %H:%M}", "", run["seconds"], ""])
        for name, entry in run["stages"].items():
            counts = " · ".join(f"{key} {value}"
                                for key, value in entry.get("counts", {}).items())
            stage = name if entry.get("status") == "done" else f"{name} ({entry.get('status')})"
            lines.append(["", "", "", "", stage, entry.get("seconds"), counts])
        if run["error"]:
            lines.append(["", "", "", "", "error", "", run["error"]])
    return lines
