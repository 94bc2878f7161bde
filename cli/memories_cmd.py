"""``hearth memories delete ID...`` and ``hearth memories forget ID...``: two different acts.

``delete`` removes the memories alone, with their links (``core.forgetting.recently_deleted``):
nothing else changes, and it can be undone for a while (``hearth deleted restore``). Their
words may well be elsewhere (an imported chat keeps the message a turn memory was made
of), and the command names where, so nobody reads "gone" while a chat still says it.

``forget`` erases them everywhere, for good (``ForgetService.erase_memories``): the rows,
their index entries, vectors and links, and their words wherever Hearth kept them, then the
files. ``--preview`` lists each place with the words around them; ``--skip`` and
``--include`` choose, as for a fact. In a terminal it shows the places and asks first; a
script gives ``--yes``. Backups taken before that still hold one of them are named, and
rewritten without them with ``--from-backups`` or after a yes in a terminal (in the same
run: the texts stay in this process's memory only). The numbers are those ``hearth search
--json`` and the Memories view show.
"""

from __future__ import annotations

from typing import Annotated

import typer

from cli import output
from cli.context import opened
from cli.deleted_cmd import said_deleted
from cli.forget_cmd import (
    PlacesOption,
    fail_if_any_failed,
    interactive,
    place_lines,
    rewrite_asked,
)
from core.errors import InvalidInputError

memories_app = typer.Typer(help="Long-term memories: delete or erase the ones you do not want.",
                           no_args_is_help=True)

IdsArgument = Annotated[list[int], typer.Argument(help="The numbers of the memories.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of sentences.")]


@memories_app.command("delete")
def delete(ids: IdsArgument, as_json: JsonOption = False) -> None:
    """Delete memories and their links; nothing else changes, and it can be undone.

    The chats they came from keep their words (the command says where). To replace their
    words everywhere instead, for good, use `hearth memories forget`."""
    from core.operations import memories

    with opened() as hearth:
        deleted = memories.delete(hearth, ids).value
    item, left = deleted.item, deleted.words_left
    numbers = " ".join(str(memory_id) for memory_id in sorted(set(ids)))
    said_deleted(item, as_json, erase=f"hearth memories forget {numbers} --preview")
    if not as_json and left:
        _print(memories.words_left(left, "it" if item.count == 1 else "them"))


@memories_app.command("forget")
def forget(ids: IdsArgument,
           preview: Annotated[bool, typer.Option(
               "--preview", help="List every place their words are; change nothing.")] = False,
           skip: PlacesOption = None,
           include: PlacesOption = None,
           yes: Annotated[bool, typer.Option(
               "--yes", help="Do not show the places and ask first (for scripts).")] = False,
           from_backups: Annotated[bool, typer.Option(
               "--from-backups", help="Also rewrite the backups that still hold them.")] = False,
           as_json: JsonOption = False) -> None:
    """Erase memories everywhere, for good: them, and their words wherever Hearth kept them.

    This cannot be undone: to remove the memories alone, with an undo, use
    `hearth memories delete`. --preview lists the places first."""
    from core.operations import facts, memories

    count = len(set(ids))
    what = "it" if count == 1 else "them"
    with opened() as hearth:
        if preview or (not yes and not as_json):
            shown = memories.preview_erase(hearth, ids)
            if preview:
                if as_json:
                    output.print_json(shown)
                else:
                    _print(_headline(count, len(shown.places)), *place_lines(shown.places))
                return
            if not interactive():
                raise InvalidInputError("An erase cannot be undone, so it is only done when "
                                        "confirmed.", "Add --yes to erase without asking.")
            _print(_headline(count, len(shown.places)), *place_lines(shown.places))
            if not typer.confirm(f"Erase {what} from the ticked places? "
                                 f"{facts.CANNOT_UNDO}", default=False, err=True):
                raise typer.Exit(1)
        erased = memories.erase(hearth, ids, skip=skip or (), include=include or ()).value
        report = erased.report
        if not as_json:
            _print(*memories.memories_deleted(report, erased=True), "It cannot be brought back.",
                   *(f"  {path}" for path in report.backups))
        rewrite = rewrite_asked(bool(report.backups), from_backups, as_json,
                                f"Remove {what} from those backups too?")
        rewrites = erased.remove_from_backups() if rewrite else ()
    if as_json:
        output.print_json({"deleted": report.deleted, "places": dict(report.places),
                           "left": report.left, "files": report.files,
                           "backups_holding": list(report.backups),
                           "logs_not_rewritten": list(report.unmasked_logs),
                           "backups": rewrites})
    else:
        _print(*facts.rewritten(rewrites, what=what))
        if report.backups and not rewrite:
            _print(f"Those backups keep {what}; to remove erased memories from backups "
                   "too, give --from-backups with the erase.")
    fail_if_any_failed(rewrites, what)


def _headline(count: int, places: int) -> str:
    from core.operations.facts import CANNOT_UNDO

    whose = "this memory" if count == 1 else f"these {count} memories"
    return (f"The words of {whose} are in {places} other place{'s' if places != 1 else ''}. "
            f"{CANNOT_UNDO}")


def _print(*lines: str) -> None:
    for line in lines:
        if line:
            output.stdout.print(line, highlight=False, markup=False)
