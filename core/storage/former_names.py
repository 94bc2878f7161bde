"""The names four concepts had before they took the window's words (schema revision 0023),
and how a record written under them reads today.

One place for both readers of old records: the migration that renamed the tables and the
words stored inside records (``migrations/versions/0023_the_windows_words.py``), and an
export file written before it (``core.transfer.export``). The maps are as revision 0023
left them; a later rename gets a revision and maps of its own."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

RENAMED_AT = "0023"
TABLES = {"agent_learnings": "habits", "pending_intentions": "follow_ups",
          "profile_versions": "about_you_versions",
          "scaffold_versions": "notes_about_you_versions"}
AUDIT_PREFIXES = {"learning.": "habit.", "intention.": "follow_up.",
                  "profile.": "about_you.", "scaffold.": "notes_about_you."}
RUN_KEYS = {"learnings_before": "habits_before", "learnings_added": "habits_added",
            "learnings_promoted": "habits_promoted", "intentions_added": "follow_ups_added",
            "learnings": "habits", "intentions": "follow_ups"}
"""Keys a run keeps in its stages, counts and changelog entries, at any depth."""
STAGES = {"daily": "summaries"}
"""The dream's stages, the top-level keys of a run's stages."""
CHANGE_KINDS = {"profile": "about_you"}
CONTEXT_KINDS = {"learning": "habit", "profile": "about_you", "scaffold": "notes_about_you"}
"""The ``type`` of what a reply's context log says the model was given."""

Change = Callable[[Any], Any]


def inverse(names: Mapping[str, str]) -> dict[str, str]:
    """The map back (for a downgrade)."""
    return {new: old for old, new in names.items()}


def renamed_keys(value: Any, names: Mapping[str, str]) -> Any:
    """``value`` with every dictionary key in ``names`` renamed, at any depth."""
    if isinstance(value, dict):
        return {names.get(key, key): renamed_keys(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [renamed_keys(item, names) for item in value]
    return value


def run_record(names: Mapping[str, str] = RUN_KEYS,
               stages: Mapping[str, str] = STAGES) -> Change:
    """A run's ``stages`` or ``counts`` under the new names."""
    def change(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {stages.get(key, key): item for key, item in renamed_keys(value, names).items()}
    return change


def _with_kind(field: str, kinds: Mapping[str, str]) -> Callable[[Any], Any]:
    def renamed(entry: Any) -> Any:
        if isinstance(entry, dict) and isinstance(entry.get(field), str):
            return {**entry, field: kinds.get(entry[field], entry[field])}
        return entry
    return renamed


def changelog(names: Mapping[str, str] = RUN_KEYS,
              kinds: Mapping[str, str] = CHANGE_KINDS) -> Change:
    """A run's ``changes`` (a list of entries with a ``kind``) under the new names."""
    kind = _with_kind("kind", kinds)

    def change(value: Any) -> Any:
        return [kind(entry) for entry in renamed_keys(value, names)] \
            if isinstance(value, list) else value
    return change


def context_items(kinds: Mapping[str, str] = CONTEXT_KINDS) -> Change:
    """A context log's ``items`` (each with a ``type``) under the new names."""
    kind = _with_kind("type", kinds)

    def change(value: Any) -> Any:
        return [kind(item) for item in value] if isinstance(value, list) else value
    return change


def audit_action(prefixes: Mapping[str, str] = AUDIT_PREFIXES) -> Change:
    """An audit entry's ``action`` under the new names."""
    def change(value: Any) -> Any:
        if isinstance(value, str):
            for old, new in prefixes.items():
                if value.startswith(old):
                    return new + value[len(old):]
        return value
    return change


COLUMNS: dict[str, dict[str, Change]] = {
    "audit_log": {"action": audit_action()},
    "runs": {"stages": run_record(), "counts": run_record(), "changes": changelog()},
    "context_logs": {"items": context_items()},
}
"""Per table (new names), the columns whose stored words changed, and how."""


def upgrade_export(tables: Mapping[str, Any]) -> dict[str, Any]:
    """An export's tables written before ``RENAMED_AT``, under today's names and words;
    anything not shaped like rows is left for the importer's checks to name."""
    renamed = {TABLES.get(name, name): rows for name, rows in tables.items()}
    for name, changes in COLUMNS.items():
        rows = renamed.get(name)
        if isinstance(rows, list):
            renamed[name] = [{column: changes[column](value) if column in changes else value
                              for column, value in row.items()} if isinstance(row, dict) else row
                             for row in rows]
    return renamed
