"""``hearth memories delete ID...``: a user's delete of memories, for good.

Deleting is not invalidating: an invalidated memory is kept (and can be restored); a
deleted one is gone from the database, its indexes and its files
(``ForgetService.delete_memories``). So it asks first in a terminal; a script says
``--yes``. The numbers are those ``hearth search --json`` and the Memories view show.
Backups taken before that still hold one of them are named, and rewritten without them with
``--from-backups`` or after a yes in a terminal, as ``hearth facts forget`` does (in the
same run: the deleted texts stay in this process's memory only).
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from core.cli import output
from core.cli.context import opened
from core.cli.forget_cmd import fail_if_any_failed, rewrite_asked
from core.errors import InvalidInputError

memories_app = typer.Typer(help="Long-term memories: delete the ones you do not want kept.",
                           no_args_is_help=True)


@memories_app.command("delete")
def delete(ids: Annotated[list[int], typer.Argument(help="The numbers of the memories.")],
           yes: Annotated[bool, typer.Option(
               "--yes", help="Do not ask first (for scripts).")] = False,
           from_backups: Annotated[bool, typer.Option(
               "--from-backups", help="Also rewrite the backups that still hold them.")] = False,
           as_json: Annotated[bool, typer.Option(
               "--json", help="Print JSON instead of sentences.")] = False) -> None:
    """Delete memories for good: their text, index entries, vectors and links.

    To keep a wrong memory out of replies but restorable, invalidate it in the window."""
    from core.forgetting import wording

    count = len(set(ids))
    if not yes:
        if not sys.stdin.isatty():
            raise InvalidInputError("A delete cannot be undone, so it is only done when "
                                    "confirmed.", "Add --yes to delete without asking.")
        if not typer.confirm(f"Delete {count} memor{'y' if count == 1 else 'ies'} for good? "
                             "This cannot be undone.", default=False, err=True):
            raise typer.Exit(1)
    what = "it" if count == 1 else "them"
    with opened() as hearth:
        deleted = hearth.forgetting.delete_memories(ids)
        report = deleted.report
        if not as_json:
            _print(*wording.memories_deleted(report), *(f"  {path}" for path in report.backups))
        rewrite = rewrite_asked(bool(report.backups), from_backups, as_json,
                                f"Remove {what} from those backups too?")
        rewrites = deleted.remove_from_backups() if rewrite else ()
    if as_json:
        output.print_json({"deleted": report.deleted, "places": dict(report.places),
                           "files": report.files, "backups_holding": list(report.backups),
                           "logs_not_rewritten": list(report.unmasked_logs),
                           "backups": rewrites})
    else:
        _print(*wording.rewritten(rewrites, what=what))
        if report.backups and not rewrite:
            _print(f"Those backups keep {what}; to remove deleted memories from backups "
                   "too, give --from-backups with the delete.")
    fail_if_any_failed(rewrites, what)


def _print(*lines: str) -> None:
    for line in lines:
        output.stdout.print(line, highlight=False, markup=False)
