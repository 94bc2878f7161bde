"""``hearth imports``: the import runs, and ``hearth imports undo ID`` to remove one.

Every ``hearth import`` run is recorded (``core.transfer.batches``) and named on the
memories it added, so a run that brought in the wrong export can be taken back as one.
Removing is the user's delete of those memories (``core.operations.imports.undo_import``):
for good, audited, and recorded so that importing the same file again leaves them out. So
it asks first in a terminal; a script says ``--yes``.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from cli import output
from cli.context import opened
from core.errors import InvalidInputError

imports_app = typer.Typer(help="The import runs: list them, or remove what one added.",
                          invoke_without_command=True)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
STATES = {"finished": "done", "cancelled": "cancelled", "interrupted": "interrupted",
          "failed": "failed"}
"""A run's state by how it ended; one that has not ended (still running, or its process
was killed) is ``unfinished``."""


@imports_app.callback()
def runs(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """List the import runs, newest first: when, from what, how many memories they added."""
    if ctx.invoked_subcommand is not None:
        return
    from core.operations.imports import import_runs

    with opened(only_reads=True) as hearth:
        found = import_runs(hearth)
    if as_json:
        output.print_json(found)
        return
    output.print_table("Import runs", ["run", "started", "source", "added", "kept", "state"], [
        (run.id, f"{run.started_at:%Y-%m-%d %H:%M}", run.source, run.added, run.present,
         "removed" if run.undone_at else STATES.get(run.outcome or "", "unfinished"))
        for run in found])


@imports_app.command("undo")
def undo(batch: Annotated[int, typer.Argument(metavar="ID", help="The run, as listed.")],
         yes: Annotated[bool, typer.Option(
             "--yes", help="Do not ask first (for scripts).")] = False,
         as_json: JsonFlag = False) -> None:
    """Remove what one import run added: its memories, and the imported chats they came
    from, are deleted for good, and importing the same file again leaves them out."""
    from core.operations.imports import undo_import
    from core.operations.memories import memories_deleted

    if not yes:
        if not sys.stdin.isatty():
            raise InvalidInputError("Removing an import deletes what it added for good, so it "
                                    "is only done when confirmed.",
                                    "Add --yes to remove it without asking.")
        if not typer.confirm(f"Delete for good every memory import run {batch} added? "
                             "This cannot be undone.", default=False, err=True):
            raise typer.Exit(1)
    with opened() as hearth:
        undone = undo_import(hearth, batch).value
    report = undone.deleted.report if undone.deleted is not None else None
    if as_json:
        output.print_json({"run": undone.batch, "removed": undone.removed,
                           "exchanges": undone.exchanges, "chats": undone.chats,
                           "files": report.files if report else None,
                           "backups_holding": list(report.backups) if report else []})
        return
    lines = ([*memories_deleted(report),
              f"Deleted {undone.exchanges} imported exchanges and {undone.chats} imported "
              "chats left empty."] if report is not None
             else [f"Import run {batch} had nothing left to remove."])
    for line in lines:
        output.stdout.print(line, highlight=False, markup=False)
