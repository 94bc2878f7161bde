"""``hearth read-later``: the reading list from a terminal: list, search, add (with the page's
text from a file, since Hearth fetches nothing), mark read, archive, unread, delete."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cli.context import opened
from cli.daily import IdArgument, JsonOption, YesOption, delete_confirmed, done, local, show
from core.user_input import read_text_file

if TYPE_CHECKING:
    from core.operations.read_later import ReadLaterEntry

read_later_app = typer.Typer(help="Read later: list, search, add, read, archive, delete.",
                        no_args_is_help=True)


def _show(items: tuple[ReadLaterEntry, ...], as_json: bool, title: str) -> None:
    show(items, as_json, title, ["id", "title", "url", "tags", "status", "saved"],
         lambda i: (i.id, i.title, i.url, ", ".join(i.tags), i.status, local(i.created_at)))


@read_later_app.command("list")
def list_items(status: Annotated[str | None, typer.Option(
        help="unread, read or archived.")] = None, as_json: JsonOption = False) -> None:
    """Saved articles, newest first."""
    from core.operations import read_later

    with opened(only_reads=True) as hearth:
        _show(read_later.list_items(hearth, status), as_json, "Read later")


@read_later_app.command("search")
def search(query: Annotated[str, typer.Argument(help="Words to look for.")],
           as_json: JsonOption = False) -> None:
    """Articles whose address, title, note, text, summary or tags hold all these words."""
    from core.operations import read_later

    with opened(only_reads=True) as hearth:
        _show(read_later.search(hearth, query), as_json, f"Matching {query!r}")


@read_later_app.command("add")
def add(url: Annotated[str, typer.Argument(help="The full address (https://…).")],
        title: Annotated[str, typer.Option(help="Its title.")] = "",
        note: Annotated[str, typer.Option(help="Why you kept it.")] = "",
        text_file: Annotated[Path | None, typer.Option(
            "--text-file", help="A file holding the article's text.")] = None,
        as_json: JsonOption = False) -> None:
    """Keep an article to read later."""
    from core.operations import read_later

    text = read_text_file(text_file) if text_file is not None else ""
    with opened() as hearth:
        item = read_later.add(hearth, url, title=title, note=note, text=text).value
    done(item, as_json, f"Saved {item.id}: {item.title or item.url}"
                        f"{' [' + ', '.join(item.tags) + ']' if item.tags else ''}")


def _mark(item_id: int, status: str, as_json: bool) -> None:
    from core.operations import read_later

    with opened() as hearth:
        item = read_later.mark(hearth, item_id, status).value
    done(item, as_json, f"Marked {item.id} {status}")


@read_later_app.command("read")
def mark_read(item_id: IdArgument, as_json: JsonOption = False) -> None:
    """Mark an article read."""
    _mark(item_id, "read", as_json)


@read_later_app.command("archive")
def archive(item_id: IdArgument, as_json: JsonOption = False) -> None:
    """Put an article away (kept, not listed as unread)."""
    _mark(item_id, "archived", as_json)


@read_later_app.command("unread")
def unread(item_id: IdArgument, as_json: JsonOption = False) -> None:
    """Mark an article unread again."""
    _mark(item_id, "unread", as_json)


@read_later_app.command("delete")
def delete(item_id: IdArgument, yes: YesOption = False, as_json: JsonOption = False) -> None:
    """Delete an article for good."""
    from core.operations import read_later

    delete_confirmed(f"read-later item {item_id}", yes)
    with opened() as hearth:
        item = read_later.delete(hearth, item_id).value
    done(item, as_json, f"Deleted {item.id}")
