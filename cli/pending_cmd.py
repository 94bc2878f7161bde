"""``hearth pending``: the changes the assistant asked for, waiting for the user's answer.

A chat tool call (or, with a model without tools, an explicit "remind me ..." message) holds
its change (``core.daily.pending_actions``); here it is listed, confirmed or cancelled by
the number ``list`` shows. ``hearth chat`` asks about each one as it appears
(``answer_in_terminal``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from cli import output
from cli.context import opened
from cli.daily import IdArgument, JsonOption, done, local, show
from core.errors import HearthError

if TYPE_CHECKING:
    from core.app import Hearth
    from core.operations.pending import PendingItem

pending_app = typer.Typer(help="Changes the assistant asked for: list, confirm, cancel.",
                          no_args_is_help=True)


@pending_app.command("list")
def list_pending(session: Annotated[str | None, typer.Option(
        help="Only this chat's requests.")] = None, as_json: JsonOption = False) -> None:
    """Requests still waiting, oldest first (they expire after 30 minutes)."""
    from core.operations import pending

    with opened() as hearth:  # listing marks the expired ones: a write
        items = pending.list_pending(hearth, session)
    show(items, as_json, "Waiting for your confirmation", ["id", "request", "expires"],
         lambda p: (p.id, p.preview, local(p.expires_at)))


@pending_app.command("confirm")
def confirm(action_id: IdArgument, as_json: JsonOption = False) -> None:
    """Do it."""
    from core.operations import pending

    with opened() as hearth:
        item = pending.confirm(hearth, action_id).value
    done(item, as_json, f"Done: {item.result or item.preview}")


@pending_app.command("cancel")
def cancel(action_id: IdArgument, as_json: JsonOption = False) -> None:
    """Do not do it."""
    from core.operations import pending

    with opened() as hearth:
        item = pending.cancel(hearth, action_id).value
    done(item, as_json, f"Cancelled: {item.preview}")


def answer_in_terminal(hearth: Hearth, session_id: str, asked: set[int]) -> str | None:
    """Ask about each request of ``session_id`` not asked about yet: y confirms, n
    cancels, e cancels and returns the original message for the user to change and send
    again (None when nobody chose to edit)."""
    from core.operations import pending

    for item in pending.list_pending(hearth, session_id):
        if item.id in asked:
            continue
        asked.add(item.id)
        answer = typer.prompt(f"{item.preview} Confirm? [y/n/e(dit)]", default="n",
                              err=True).strip().lower()
        try:
            if answer.startswith("y"):
                _say(pending.confirm(hearth, item.id).value, "Done")
            elif answer.startswith("e"):
                pending.cancel(hearth, item.id)
                output.stderr.print(f"cancelled; your message was: {item.source_message}",
                                    highlight=False, markup=False)
                return str(typer.prompt("Your request, changed",
                                        default=item.source_message, err=True))
            else:
                _say(pending.cancel(hearth, item.id).value, "Cancelled")
        except HearthError as refused:  # expired meanwhile, answered elsewhere
            output.print_error(refused.message, refused.hint)
    return None


def _say(item: PendingItem, verb: str) -> None:
    text = item.result if verb == "Done" and item.result else item.preview
    output.stderr.print(f"{verb}: {text}", highlight=False, markup=False)
