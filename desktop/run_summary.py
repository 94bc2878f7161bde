"""A finished (or cancelled) reflection or dream in one title and one plain sentence: what
the run dialog, the tray balloon and the status bar say about it."""

from __future__ import annotations

from typing import Any

from core.operations.consolidation import DREAM, REFLECT, RunOutcome
from desktop.words import count, listing


NOUN = {REFLECT: "Reflection", DREAM: "Dream"}

CANCELLED_LINES = {
    REFLECT: "Nothing was changed. Reflect again whenever you like.",
    DREAM: "What was finished is kept; the next dream picks up where this one stopped.",
}


def cancelled_summary(kind: str) -> tuple[str, str]:
    return f"{NOUN[kind]} cancelled", CANCELLED_LINES[kind]


def summary(outcome: RunOutcome) -> tuple[str, str]:
    """A title and one plain sentence for a finished run (the tray balloon and the
    dialog)."""
    report = outcome.report
    if outcome.kind == REFLECT:
        if report.skipped:
            return "Nothing to reflect on", sentence(report.reason)
        return "Reflection finished", reflection_line(report)
    if outcome.cancelled:
        return cancelled_summary(DREAM)
    steps = [stage for name, stage in report.stages.items() if name != "backup"]
    unfinished = sum(1 for stage in steps if stage.status not in ("done", "resumed"))
    if report.status == "done" or not unfinished:
        return "Dream finished", f"All {count(len(steps), 'step')} done.{to_review(report)}"
    return "Dream finished, with problems", (
        f"{unfinished} of {count(len(steps), 'step')} did not finish (see Details); "
        f"the next dream tries again.{to_review(report)}")


def to_review(report: Any) -> str:
    """`` 3 changes to review.``: what the night did that can be undone."""
    undoable = sum(1 for change in report.changes if change.undoable)
    return f" {count(undoable, 'change')} to review." if undoable else ""


def reflection_line(report: Any) -> str:
    """``Read 2 journal entries, learned 1 fact and changed your profile.``"""
    parts = [text for number, text in (
        (report.journal_entries,
         f"read {count(report.journal_entries, 'journal entry', 'journal entries')}"),
        (report.facts_added, f"learned {count(report.facts_added, 'new fact')}"),
        (report.facts_updated, f"updated {count(report.facts_updated, 'fact')}"),
        (report.follow_ups_added,
         f"noted {count(report.follow_ups_added, 'follow-up')}"),
        (report.habits_added,
         f"picked up {count(report.habits_added, 'new habit')}"),
        (report.habits_promoted,
         f"now keeps {count(report.habits_promoted, 'habit')} for good"),
        (report.profile_changed, "changed your profile"),
    ) if number]
    if not parts:
        return "Nothing new was learned."
    return sentence(listing(parts))


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")
