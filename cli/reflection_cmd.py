"""``hearth reflect``, ``hearth follow-ups``, ``hearth habits`` and ``hearth about-you``.

What the nightly reflection produces, from a terminal: run it now, and answer for its
results (snooze or close follow-ups, promote or drop habits, compare and restore versions
of About you). Each command that changes something does one change per call, so a script or a
person always knows which one failed.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Annotated

import typer

from cli import output
from cli.consolidation_cmd import print_changes
from cli.context import opened
from core.errors import InvalidInputError

if TYPE_CHECKING:
    from core.operations.follow_ups import FollowUp
    from core.operations.habits import Habit

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
IdOption = Annotated[int | None, typer.Option(metavar="ID")]


def _one_action(**chosen: object) -> str | None:
    """The single action option given, if any (two at once would be ambiguous)."""
    given = [name for name, value in chosen.items() if value is not None]
    if len(given) > 1:
        raise InvalidInputError(f"Choose one of {', '.join('--' + n for n in given)}.",
                                "Run the command once per change.")
    return given[0] if given else None


def reflect(as_json: JsonOption = False) -> None:
    """Reflect on the last day's conversations now: About you, facts, follow-ups, habits."""
    from core.operations.consolidation import reflect_with_configured_model

    with opened() as hearth:  # never beside a dream cycle (the dream lock)
        report = reflect_with_configured_model(hearth, trigger="manual").report
    if as_json:
        output.print_json(report)
        return
    if report.skipped:
        output.stdout.print(f"reflection skipped: {report.reason} (run {report.run_id})",
                            highlight=False)
        return
    output.stdout.print(
        f"run {report.run_id}: facts +{report.facts_added} ~{report.facts_updated}"
        f" (kept {report.facts_protected} of yours) · follow_ups +{report.follow_ups_added}"
        f" · habits +{report.habits_added}, promoted {report.habits_promoted}"
        f" · profile {'changed' if report.profile_changed else 'unchanged'}", highlight=False)
    for warning in report.warnings:
        output.stderr.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if report.diff:
        output.stdout.print(report.diff, markup=False, highlight=False, end="")
    print_changes(report.run_id, report.changes)


def _follow_up_dict(item: FollowUp) -> dict[str, object]:
    return {"id": item.id, "text": item.text, "context": item.context, "status": item.status,
            "follow_up_at": item.follow_up_at, "last_followed_up_at": item.last_followed_up_at,
            "created_at": item.created_at}


def follow_ups(
        snooze: IdOption = None,
        days: Annotated[int, typer.Option(min=1, max=365, help="With --snooze.")] = 1,
        resolve: IdOption = None, dismiss: IdOption = None,
        status: Annotated[str | None, typer.Option(
            help="open, resolved or dismissed (default: all).")] = None,
        as_json: JsonOption = False) -> None:
    """Things you said you would do: list them, or snooze, resolve or dismiss one."""
    from core.clock import now
    from core.operations import follow_ups

    action = _one_action(snooze=snooze, resolve=resolve, dismiss=dismiss)
    with opened() as hearth:
        if action == "snooze":
            assert snooze is not None
            items = [follow_ups.snooze(hearth, snooze, now() + timedelta(days=days)).value]
        elif action == "resolve":
            assert resolve is not None
            items = [follow_ups.resolve(hearth, resolve).value]
        elif action == "dismiss":
            assert dismiss is not None
            items = [follow_ups.dismiss(hearth, dismiss).value]
        else:
            items = list(follow_ups.list_follow_ups(hearth, status))
    if as_json:
        output.print_json([_follow_up_dict(item) for item in items])
        return
    output.print_table("Follow-ups", ["id", "text", "status", "follow up", "context"],
                       [(i.id, i.text, i.status,
                         i.follow_up_at.astimezone().strftime("%Y-%m-%d %H:%M")
                         if i.follow_up_at else "", i.context) for i in items])


def _learning_dict(item: Habit) -> dict[str, object]:
    return {"id": item.id, "rule": item.rule, "category": item.category,
            "status": item.status, "recurrence_count": item.recurrence_count,
            "first_seen": item.first_seen, "last_seen": item.last_seen}


def habits(promote: IdOption = None, demote: IdOption = None, delete: IdOption = None,
              as_json: JsonOption = False) -> None:
    """How Hearth has learned to work with you: list, promote, demote or delete a rule."""
    from core.operations import habits

    action = _one_action(promote=promote, demote=demote, delete=delete)
    with opened() as hearth:
        if action == "promote":
            assert promote is not None
            items = [habits.promote(hearth, promote).value]
        elif action == "demote":
            assert demote is not None
            items = [habits.demote(hearth, demote).value]
        elif action == "delete":
            assert delete is not None
            habits.delete(hearth, delete)
            items = []
        else:
            items = list(habits.list_habits(hearth))
    if as_json:
        output.print_json({"deleted": delete} if action == "delete"
                          else [_learning_dict(item) for item in items])
        return
    if action == "delete":
        output.stdout.print(f"deleted learning {delete}")
        return
    output.print_table("Habits", ["id", "rule", "category", "status", "seen"],
                       [(i.id, i.rule, i.category, i.status, i.recurrence_count)
                        for i in items])


def about_you(history: Annotated[bool, typer.Option("--history", help="List versions.")] = False,
              diff: Annotated[tuple[int, int] | None, typer.Option(
                  metavar="A B", help="Unified diff from version A to B.")] = None,
              restore: IdOption = None, as_json: JsonOption = False) -> None:
    """Hearth's narrative picture of you: show it, its history, a diff, or restore a version."""
    from core.operations import about_you

    action = _one_action(history=history or None, diff=diff, restore=restore)
    with opened() as hearth:
        if action == "history":
            versions = about_you.about_you_versions(hearth)
            if as_json:
                output.print_json(versions)
            else:
                output.print_table("Profile versions", ["id", "source", "run", "words", "saved"],
                                   [(v.id, v.source, v.run_id, v.words,
                                     v.created_at.astimezone().strftime("%Y-%m-%d %H:%M"))
                                    for v in versions])
            return
        if action == "diff":
            assert diff is not None
            text = about_you.about_you_diff(hearth, *diff)
            if as_json:
                output.print_json({"from": diff[0], "to": diff[1], "diff": text})
            else:
                output.stdout.print(text or "(no differences)", markup=False, highlight=False,
                                    end="" if text else "\n")
            return
        version = (about_you.restore_about_you(hearth, restore).value if restore is not None
                   else about_you.current_about_you(hearth))
    if version is None:
        raise InvalidInputError("There is no profile yet.",
                                "It is written by `hearth reflect` after some conversations.")
    if as_json:
        output.print_json({"id": version.id, "source": version.source,
                           "created_at": version.created_at, "content": version.content})
    else:
        output.stdout.print(f"[dim]version {version.id} · {version.source}[/]")
        output.stdout.print(version.content, markup=False, highlight=False)
