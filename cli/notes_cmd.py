"""``hearth notes``: the user's notes (session summaries included) from a terminal:
list, search, add, edit, pin and delete."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli.context import opened
from cli.daily import IdArgument, JsonOption, done, local, show

if TYPE_CHECKING:
    from core.operations.notes import NoteItem

notes_app = typer.Typer(help="Your notes: list, search, add, edit, pin, delete.",
                        no_args_is_help=True)
PREVIEW_CHARS = 60


def _show(items: tuple[NoteItem, ...], as_json: bool, title: str) -> None:
    show(items, as_json, title, ["id", "title", "text", "pinned", "written"],
         lambda n: (n.id, n.title, " ".join(n.content.split())[:PREVIEW_CHARS],
                    "yes" if n.pinned else "", local(n.created_at)))


@notes_app.command("list")
def list_notes(as_json: JsonOption = False) -> None:
    """Notes, pinned first, then newest first."""
    from core.operations import notes

    with opened(only_reads=True) as hearth:
        _show(notes.list_notes(hearth), as_json, "Notes")


@notes_app.command("search")
def search(query: Annotated[str, typer.Argument(help="Words to look for.")],
           as_json: JsonOption = False) -> None:
    """Notes with these words, best first."""
    from core.operations import notes

    with opened(only_reads=True) as hearth:
        _show(notes.search(hearth, query), as_json, f"Notes matching {query!r}")


@notes_app.command("add")
def add(content: Annotated[str, typer.Argument(help="The note's text.")],
        title: Annotated[str, typer.Option(help="A title.")] = "",
        as_json: JsonOption = False) -> None:
    """Write a note (searchable and recallable at once)."""
    from core.operations import notes

    with opened() as hearth:
        item = notes.add(hearth, title, content).value
    done(item, as_json, f"Saved note {item.id}")


@notes_app.command("edit")
def edit(note_id: IdArgument,
         title: Annotated[str | None, typer.Option(help="A new title.")] = None,
         content: Annotated[str | None, typer.Option("--text", help="A new text.")] = None,
         as_json: JsonOption = False) -> None:
    """Change a note's title or text."""
    from core.operations import notes

    with opened() as hearth:
        item = notes.edit(hearth, note_id, title=title, content=content).value
    done(item, as_json, f"Changed note {item.id}")


@notes_app.command("pin")
def pin(note_id: IdArgument,
        off: Annotated[bool, typer.Option("--off", help="Unpin it.")] = False,
        as_json: JsonOption = False) -> None:
    """Pin a note (listed first), or unpin it with --off."""
    from core.operations import notes

    with opened() as hearth:
        item = notes.pin(hearth, note_id, not off).value
    done(item, as_json, f"{'Unpinned' if off else 'Pinned'} note {item.id}")


@notes_app.command("delete")
def delete(note_id: IdArgument, as_json: JsonOption = False) -> None:
    """Delete a note; it can be brought back for a while (`hearth deleted`)."""
    from cli.deleted_cmd import said_deleted
    from core.operations import notes

    with opened() as hearth:
        item = notes.delete(hearth, note_id).value
    said_deleted(item, as_json)
