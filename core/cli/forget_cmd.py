"""``hearth facts forget KEY``: forget a fact everywhere, and the backups too when asked.

It says where the fact's values were replaced by ``[forgotten]``, whether the database files
were found clean byte by byte, and which backups taken before still hold it. Those backups
are rewritten without it with ``--from-backups`` (in the same run: the values stay in this
process's memory only), or after a yes in a terminal. Given for a fact that is already
forgotten, ``--from-backups`` reads the values from the backups' own records of the fact.
``--dry-run`` says what a forget would change and changes nothing. No value is ever printed.

On a PostgreSQL server the files cannot be searched, and a plain ``VACUUM`` leaves old bytes
in them: ``--compact``, or ``hearth compact`` later (for a forget made in the window or by
the assistant, or a delete of memories), rewrites the tables (``ForgetService.compact``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from core.cli import output
from core.cli.context import opened
from core.errors import HearthError, NotFoundError

if TYPE_CHECKING:
    from core.forgetting.backups import BackupRewrite
    from core.forgetting.service import ForgetReport

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of sentences.")]


def forget(key: str,
           from_backups: Annotated[bool, typer.Option(
               "--from-backups", help="Also rewrite the backups that still hold it.")] = False,
           dry_run: Annotated[bool, typer.Option(
               "--dry-run", help="Say what would be removed; change nothing.")] = False,
           compact: Annotated[bool, typer.Option(
               "--compact", help="On a PostgreSQL server, also rewrite its tables (VACUUM "
                                 "FULL, locking each meanwhile) so their files keep no "
                                 "copy.")] = False,
           as_json: JsonOption = False) -> None:
    """Delete a fact and redact every value it had wherever Hearth kept it.

    Chats, memories, events, indexes and logs then show a placeholder.
    The output names the backups taken before that still hold it."""
    from core.forgetting import wording

    with opened() as hearth:
        if dry_run:
            preview = hearth.forgetting.preview(key)
            _say(as_json, preview, wording.redactions(preview, done=False))
            return
        try:
            forgotten = hearth.forgetting.forget(key, compact=compact)
        except NotFoundError:
            if not from_backups:
                raise
            rewrites = hearth.forgetting.remove_from_backups(key)
            _say(as_json, {"key": key, "forgotten": False, "backups": rewrites},
                 *wording.rewritten(rewrites))
            fail_if_any_failed(rewrites)
            return
        report = forgotten.report
        if not as_json:
            _print_report(report, offer_flag=not from_backups)
        rewrite = rewrite_asked(bool(report.backups), from_backups, as_json,
                                "Remove it from those backups too?")
        rewrites = forgotten.remove_from_backups() if rewrite else ()
    _say(as_json, {**_report_dict(report), "backups": rewrites}, *wording.rewritten(rewrites))
    fail_if_any_failed(rewrites)


def compact(as_json: JsonOption = False) -> None:
    """Rebuild the database without what forgets and deletes left in its free space.

    SQLite: the file is rebuilt (VACUUM).
    PostgreSQL: every table is rewritten (VACUUM FULL, locking it meanwhile)
    and a checkpoint asked for; the output says what the server may still keep."""
    from core.forgetting import wording

    with opened() as hearth:
        files = hearth.forgetting.compact()
    _say(as_json, {"files": files}, wording.compacted(files))


def rewrite_asked(held: bool, from_backups: bool, as_json: bool, question: str) -> bool:
    """Whether to rewrite the backups that still hold what went (a forget's or a delete's):
    asked for with ``--from-backups``, or by a yes to ``question`` in a terminal."""
    return held and (from_backups or (not as_json and _interactive() and typer.confirm(
        question, default=False, err=True)))


def _interactive() -> bool:
    return sys.stdin.isatty()


def _say(as_json: bool, data: Any, *lines: str) -> None:
    if as_json:
        output.print_json(data)
        return
    for line in lines:
        if line:
            output.stdout.print(line, highlight=False, markup=False)


def _report_dict(report: ForgetReport) -> dict[str, Any]:
    return {"key": report.key, "forgotten": True, "values": report.values,
            "places": dict(report.places), "redacted": report.total,
            "searched_everywhere": report.searched_everywhere, "files": report.files,
            "backups_holding": list(report.backups),
            "logs_not_rewritten": list(report.unmasked_logs)}


def _print_report(report: ForgetReport, *, offer_flag: bool) -> None:
    from core.forgetting import wording

    lines = [f"Forgot {report.key}.", wording.redactions(report), wording.FILES[report.files],
             *wording.unmasked(report)]
    if report.backups:
        lines.append(wording.backups_held(len(report.backups)))
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
