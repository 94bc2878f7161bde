"""Deleting one entry, and bringing it back: ``hearth facts delete KEY`` and ``hearth
deleted [restore ID]``.

A delete removes the entry alone (the fact and its earlier values; the memories; the
note) and keeps it for ``UNDO_WINDOW`` (``core.forgetting.recently_deleted``), so the
command says how to bring it back and how to erase the words everywhere instead: the two
acts must never be confused, since only the second rewrites the person's own messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli import output
from cli.context import opened

if TYPE_CHECKING:
    from core.operations.deleted import DeletedItem

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of sentences.")]

deleted_app = typer.Typer(help="Entries you deleted that can still be brought back.",
                          invoke_without_command=True)


def delete_fact(key: str, as_json: JsonOption = False) -> None:
    """Delete a fact and its earlier values; nothing else changes, and it can be undone.

    Your messages, chats and other facts keep their words. To replace the fact's words
    everywhere instead (for good), use `hearth facts forget`."""
    from core.operations import facts

    with opened() as hearth:
        item = facts.delete(hearth, key).value
    said_deleted(item, as_json, erase=f"hearth facts forget {facts.normalise_key(key)} --preview")


def said_deleted(item: DeletedItem, as_json: bool, *, erase: str = "") -> None:
    """What a delete of one entry says: what went, how to undo it, and (``erase``, the
    command) how to erase its words everywhere instead."""
    if as_json:
        output.print_json(item)
        return
    minutes = _minutes_left(item)
    lines = [f"Deleted {_named(item)}. Nothing else changed.",
             f"To bring it back within {minutes} minutes: `hearth deleted restore {item.id}`."]
    if erase:
        lines.append(f"To remove its words from everywhere instead: `{erase}`.")
    for line in lines:
        output.stdout.print(line, highlight=False, markup=False)


@deleted_app.callback()
def listed(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """List what you deleted that can still be brought back."""
    if ctx.invoked_subcommand is not None:
        return
    from core.operations.deleted import recently_deleted

    with opened() as hearth:
        items = recently_deleted(hearth)
    if as_json:
        output.print_json(items)
        return
    output.print_table("Recently deleted", ["id", "what", "deleted", "can be undone until"],
                       [(item.id, _named(item), f"{item.deleted_at.astimezone():%H:%M}",
                         f"{item.purge_after.astimezone():%H:%M}") for item in items])


@deleted_app.command("restore")
def restore(entry_id: Annotated[int, typer.Argument(help="Its id in `hearth deleted`.")],
            as_json: JsonOption = False) -> None:
    """Bring a deleted entry back, as it was."""
    from core.operations import deleted

    with opened() as hearth:
        restored = deleted.restore(hearth, entry_id).value
    if as_json:
        output.print_json(restored)
        return
    what = {"fact": "the fact", "memories": "", "note": "the note"}[restored.kind]
    output.stdout.print(f"Brought back {what} “{restored.title}”.".replace("  ", " "),
                        highlight=False, markup=False)
    if restored.note:
        output.stdout.print(restored.note, highlight=False, markup=False)


def _named(item: DeletedItem) -> str:
    if item.kind == "fact":
        return f"the fact “{item.title}”"
    if item.kind == "note":
        return f"the note “{item.title}”"
    return f"the memory “{item.title}”" if item.count == 1 else item.title


def _minutes_left(item: DeletedItem) -> int:
    return max(1, round((item.purge_after - item.deleted_at).total_seconds() / 60))
