"""``hearth journal``: the private journal from a terminal: list, search, the last week,
add, edit and delete entries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli import output
from cli.context import opened
from cli.daily import IdArgument, JsonOption, YesOption, delete_confirmed, done, local, show

if TYPE_CHECKING:
    from core.operations.journal import JournalItem

journal_app = typer.Typer(help="Your journal: list, search, week, add, edit, delete.",
                          no_args_is_help=True)
PREVIEW_CHARS = 70


def _show(items: tuple[JournalItem, ...], as_json: bool, title: str) -> None:
    show(items, as_json, title, ["id", "written", "title", "text"],
         lambda e: (e.id, local(e.created_at), e.title or "",
                    " ".join(e.content.split())[:PREVIEW_CHARS]))


@journal_app.command("list")
def list_entries(limit: Annotated[int | None, typer.Option(min=1, help="At most this many.")]
                 = None, as_json: JsonOption = False) -> None:
    """Entries, newest first."""
    from core.operations import journal

    with opened(only_reads=True) as hearth:
        _show(journal.list_entries(hearth, limit), as_json, "Journal")


@journal_app.command("search")
def search(query: Annotated[str, typer.Argument(help="Words to look for.")],
           as_json: JsonOption = False) -> None:
    """Entries holding all these words."""
    from core.operations import journal

    with opened(only_reads=True) as hearth:
        _show(journal.search(hearth, query), as_json, f"Entries matching {query!r}")


@journal_app.command("week")
def week(summary: Annotated[bool, typer.Option(
            "--summary", help="Also ask the configured model for a short summary (the "
            "entries are listed whatever it answers).")] = False,
         as_json: JsonOption = False) -> None:
    """The entries of your last seven days, oldest first (the weekly digest)."""
    from core.operations import journal

    if not summary:
        with opened(only_reads=True) as hearth:
            _show(journal.week(hearth), as_json, "This week")
        return
    from core.operations.models import configured_provider

    with opened(only_reads=True) as hearth:
        provider = configured_provider(hearth.settings)
        try:
            digest = journal.digest(hearth, provider)
        finally:
            provider.close()
    if as_json:
        output.print_json(digest)
        return
    said = digest.summary or f"({digest.why_no_summary})"
    output.stdout.print(said, markup=False, highlight=False)
    _show(digest.entries, False, "This week")


@journal_app.command("add")
def add(content: Annotated[str, typer.Argument(help="What you want to write.")],
        title: Annotated[str | None, typer.Option(help="A title.")] = None,
        as_json: JsonOption = False) -> None:
    """Write an entry."""
    from core.operations import journal

    with opened() as hearth:
        item = journal.add(hearth, content, title).value
    done(item, as_json, f"Saved entry {item.id}")


@journal_app.command("edit")
def edit(entry_id: IdArgument,
         content: Annotated[str | None, typer.Option("--text", help="A new text.")] = None,
         title: Annotated[str | None, typer.Option(help="A new title.")] = None,
         as_json: JsonOption = False) -> None:
    """Change an entry's text or title."""
    from core.operations import journal

    with opened() as hearth:
        item = journal.edit(hearth, entry_id, content=content, title=title).value
    done(item, as_json, f"Changed entry {item.id}")


@journal_app.command("delete")
def delete(entry_id: IdArgument, yes: YesOption = False, as_json: JsonOption = False) -> None:
    """Delete an entry for good."""
    from core.operations import journal

    delete_confirmed(f"journal entry {entry_id}", yes)
    with opened() as hearth:
        item = journal.delete(hearth, entry_id).value
    done(item, as_json, f"Deleted entry {item.id}")
