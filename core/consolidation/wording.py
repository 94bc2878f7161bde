"""What consolidation is doing, in words a person understands.

The run records keep the engine's names (``merge``, ``rem``, ``partial``) because code and
`hearth runs --json` rely on them; everything a person reads (the window's run dialog and
Activity view, `hearth runs`) goes through here, so the window and the terminal say the
same thing and no screen shows a stage name or a Python class.
"""

from __future__ import annotations

STAGE_DOING: dict[str, str] = {
    "backup": "Backing up your memory first",
    "process": "Going through what you said recently",
    "triage": "Deciding which new notes are worth keeping",
    "distil": "Summing up finished chats",
    "enrich": "Noting the people, places and topics in memories",
    "decay": "Letting memories you have not used fade a little",
    "merge": "Combining similar old memories",
    "link": "Linking related memories",
    "rem": "Looking for unexpected connections",
    "reflect": "Updating what Hearth knows about you",
    "summaries": "Titling journal entries and summing up saved reading",
    # a reflection's own steps
    "gather": "Reading the last day's conversations",
    "model": "Thinking it over",
    "parse": "Reading the answer",
    "apply": "Saving what was learned",
}
"""A stage while it runs (the progress line)."""

STAGE_NAMES: dict[str, str] = {
    "backup": "Backup",
    "process": "Recent conversations",
    "triage": "Sorting new notes",
    "distil": "Chat summaries",
    "enrich": "People, places, topics",
    "decay": "Fading unused memories",
    "merge": "Combining memories",
    "link": "Links between memories",
    "rem": "Unexpected connections",
    "reflect": "What Hearth knows about you",
    "summaries": "Journal titles, reading summaries",
    "gather": "Reading conversations",
    "model": "Thinking",
    "parse": "Reading the answer",
    "apply": "Saving",
}
"""A stage in a list of what a run did (the "Details" of a run)."""

RUN_KINDS: dict[str, str] = {
    "dream": "Dream", "reflection": "Reflection", "processor": "Learning from recent chats",
    "decay": "Fading unused memories",
}

RUN_STATUS: dict[str, str] = {
    "running": "running",
    "done": "finished",
    "partial": "finished, some steps did not",
    "cancelled": "cancelled (picks up next time)",
    "interrupted": "stopped (picks up next time)",
    "failed": "failed",
    "skipped": "nothing to do",
    "unavailable": "waiting for the model",
}

STAGE_STATUS: dict[str, str] = {
    "done": "done",
    "resumed": "done in an earlier run",
    "failed": "failed",
    "cancelled": "cancelled",
    "unavailable": "not installed",
    "waiting": "waits for a capable model",
    "skipped": "skipped",
}


def stage_doing(stage: str, done: int = 0, total: int = 0) -> str:
    """``Linking related memories (120 of 400)``."""
    doing = STAGE_DOING.get(stage, stage.replace("_", " ").capitalize())
    return f"{doing} ({done:,} of {total:,})…" if total else f"{doing}…"


def stage_name(stage: str) -> str:
    return STAGE_NAMES.get(stage, stage.replace("_", " ").capitalize())


def run_kind(kind: str) -> str:
    return RUN_KINDS.get(kind, kind.capitalize())


def run_status(status: str) -> str:
    return RUN_STATUS.get(status, status)


def stage_status(status: str) -> str:
    return STAGE_STATUS.get(status, status)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 memory``, ``2 memories``, ``12 notes``."""
    if count == 1:
        return f"1 {word}"
    if many is None:
        many = f"{word[:-1]}ies" if word.endswith("y") and word[-2:-1] not in "aeiou" \
            else f"{word}s"
    return f"{count:,} {many}"
