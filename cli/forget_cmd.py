"""``hearth facts forget KEY``: erase a fact's words everywhere, and the backups too when asked.

This is not ``hearth facts delete`` (that removes the fact alone, and can be undone): an
erase replaces every value the fact had by ``[forgotten]`` wherever Hearth kept it, and
cannot be undone. ``--preview`` lists each place with the words around the value and a
token per place, changing nothing; ``--skip TOKEN`` leaves a place as it is and
``--include TOKEN`` adds one the preview does not tick (another fact holding the same
word is never rewritten unless included). In a terminal the command shows the preview and
asks first; a script gives ``--yes``.

It says where the values were replaced, what was left as it was, whether the database files
were found clean byte by byte, and which backups taken before still hold it. Those backups
are rewritten without it with ``--from-backups`` (in the same run: the values stay in this
process's memory only), or after a yes in a terminal. Given for a fact that is already
forgotten, ``--from-backups`` reads the values from the backups' own records of the fact.
No value is printed, but in the preview's excerpts, which show the person their own words.

On a PostgreSQL server the files cannot be searched, and a plain ``VACUUM`` leaves old bytes
in them: ``--compact``, or ``hearth compact`` later (for a forget made in the window or by
the assistant, or a delete of memories), rewrites the tables (``ForgetService.compact``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cli import output
from cli.context import opened
from core.errors import HearthError, NotFoundError

if TYPE_CHECKING:
    from core.operations.facts import BackupRewrite, ForgetPreview, ForgetReport, PlaceInPreview

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of sentences.")]


PlacesOption = Annotated[list[str] | None, typer.Option(
    metavar="TOKEN", help="A place's token from --preview (repeat for several).")]


def forget(key: str,
           preview: Annotated[bool, typer.Option(
               "--preview", "--dry-run",
               help="List every place it would change, with the words around it; change "
                    "nothing.")] = False,
           skip: PlacesOption = None,
           include: PlacesOption = None,
           yes: Annotated[bool, typer.Option(
               "--yes", help="Do not show the places and ask first (for scripts).")] = False,
           from_backups: Annotated[bool, typer.Option(
               "--from-backups", help="Also rewrite the backups that still hold it.")] = False,
           compact: Annotated[bool, typer.Option(
               "--compact", help="On a PostgreSQL server, also rewrite its tables (VACUUM "
                                 "FULL, locking each meanwhile) so their files keep no "
                                 "copy.")] = False,
           as_json: JsonOption = False) -> None:
    """Erase a fact everywhere: delete it and replace every value it had by a placeholder.

    Chats, memories, events, indexes and logs then show [forgotten]; another fact with the
    same word is left unless you --include it. This cannot be undone: to remove the fact
    alone, with an undo, use `hearth facts delete`. --preview lists the places first."""
    from core.operations import facts

    with opened() as hearth:
        if preview or (not yes and not as_json and interactive()):
            shown = facts.preview_forget(hearth, key)
            if preview:
                _say(as_json, shown, *_preview_lines(shown))
                return
            _say(False, None, *_preview_lines(shown))
            if not typer.confirm(f"Erase it from the ticked places? {facts.CANNOT_UNDO}",
                                 default=False, err=True):
                raise typer.Exit(1)
        try:
            forgotten = facts.forget(hearth, key, skip=skip or (), include=include or (),
                                       compact=compact).value
        except NotFoundError:
            if not from_backups:
                raise
            rewrites = facts.forget_in_backups(hearth, key)
            _say(as_json, {"key": key, "forgotten": False, "backups": rewrites},
                 *facts.rewritten(rewrites))
            fail_if_any_failed(rewrites)
            return
        report = forgotten.report
        if not as_json:
            _print_report(report, offer_flag=not from_backups)
        rewrite = rewrite_asked(bool(report.backups), from_backups, as_json,
                                "Remove it from those backups too?")
        rewrites = forgotten.remove_from_backups() if rewrite else ()
    _say(as_json, {**_report_dict(report), "backups": rewrites}, *facts.rewritten(rewrites))
    fail_if_any_failed(rewrites)


def compact(as_json: JsonOption = False) -> None:
    """Rebuild the database without what forgets and deletes left in its free space.

    SQLite: the file is rebuilt (VACUUM).
    PostgreSQL: every table is rewritten (VACUUM FULL, locking it meanwhile)
    and a checkpoint asked for; the output says what the server may still keep."""
    from core.operations import facts

    with opened() as hearth:
        files = facts.compact(hearth)
    _say(as_json, {"files": files}, facts.compacted(files))


def rewrite_asked(held: bool, from_backups: bool, as_json: bool, question: str) -> bool:
    """Whether to rewrite the backups that still hold what went (a forget's or a delete's):
    asked for with ``--from-backups``, or by a yes to ``question`` in a terminal."""
    return held and (from_backups or (not as_json and interactive() and typer.confirm(
        question, default=False, err=True)))


def interactive() -> bool:
    return sys.stdin.isatty()


def _say(as_json: bool, data: Any, *lines: str) -> None:
    if as_json:
        output.print_json(data)
        return
    for line in lines:
        if line:
            output.stdout.print(line, highlight=False, markup=False)


def _preview_lines(shown: ForgetPreview) -> list[str]:
    """Each place with its token, ticked or not, and the words around the value."""
    from core.operations import facts

    lines = [f"The value of “{shown.key.replace('_', ' ')}” is in {len(shown.found)} "
             f"place{'s' if len(shown.found) != 1 else ''} besides the fact itself. "
             f"{facts.CANNOT_UNDO}", facts.redactions(shown, done=False),
             facts.kept(shown), *place_lines(shown.found)]
    return [line for line in lines if line]


def place_lines(places: Sequence[PlaceInPreview]) -> list[str]:
    """A preview's places: ticked or not, token, where and when, the words around."""
    lines = []
    for place in places:
        when = f" · {place.when.astimezone():%Y-%m-%d %H:%M}" if place.when else ""
        note = "" if place.ticked else "   (another fact: left unless --include)"
        lines.append(f"  [{'x' if place.ticked else ' '}] {place.token}  {place.where}{when}"
                     f"{note}")
        lines.extend(f"        {excerpt}" for excerpt in place.excerpts)
    if places:
        lines.append("Leave a ticked place with --skip TOKEN; rewrite an unticked one with "
                     "--include TOKEN.")
    return lines


def _report_dict(report: ForgetReport) -> dict[str, Any]:
    return {"key": report.key, "forgotten": True, "values": report.values,
            "places": dict(report.places), "redacted": report.total,
            "kept": dict(report.kept),
            "searched_everywhere": report.searched_everywhere, "files": report.files,
            "backups_holding": list(report.backups),
            "logs_not_rewritten": list(report.unmasked_logs)}


def _print_report(report: ForgetReport, *, offer_flag: bool) -> None:
    from core.operations import facts

    lines = [f"Erased {report.key}. It cannot be brought back.", facts.redactions(report),
             facts.kept(report), facts.FILES[report.files], *facts.unmasked(report)]
    if report.backups:
        lines.append(facts.backups_held(len(report.backups)))
        lines.extend(f"  {path}" for path in report.backups)
        if offer_flag:
            lines.append(f"Remove it from them too with "
                         f"`hearth facts forget {report.key} --from-backups`.")
    _say(False, None, *lines)


def fail_if_any_failed(rewrites: tuple[BackupRewrite, ...], what: str = "it") -> None:
    """Exit 1 with a sentence when a backup could not be rewritten (each said why above)."""
    failed = [rewrite for rewrite in rewrites if not rewrite.ok]
    if failed:
        several = len(failed) > 1
        raise HearthError(f"{len(failed)} backup{'s' if several else ''} could not be "
                          f"rewritten and still hold{'' if several else 's'} {what}.",
                          "See the reason above; run the same command again once it is fixed.")
