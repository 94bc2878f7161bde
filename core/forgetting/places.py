"""Every column where a user's words can land, and what a person calls each table.

A forget searches exactly these columns. Every other text or JSON column of
``core.storage.orm`` is listed in ``MACHINE_COLUMNS`` (ids, names of states, model names,
hashes): ``tests/core/forgetting/test_forgetting.py`` fails when a new column is in neither
list, so the next column that can hold user text cannot be forgotten by a forget.

The full-text and vector indexes are not listed: they follow their tables (triggers
re-index changed text and drop its vectors; the forget re-embeds the new text).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.storage.port import IndexedKind


@dataclass(frozen=True)
class Place:
    """One table's columns that can hold user text (``text``) or JSON with user text in its
    strings (``json``), and what the forget's report calls a row of it."""

    table: str
    label: str
    text: tuple[str, ...] = ()
    json: tuple[str, ...] = ()
    kind: IndexedKind | None = None
    """The indexed kind whose vectors and full-text entries follow this table's text."""

    @property
    def columns(self) -> tuple[str, ...]:
        return (*self.text, *self.json)


PLACES: tuple[Place, ...] = (
    Place("interactions", "chat messages",
          ("user_message", "agent_response", "speaker", "error"), ("tools_used",),
          IndexedKind.INTERACTION),
    Place("chat_sessions", "chat titles and summaries", ("title", "compaction_summary")),
    Place("memories", "memories", ("content", "invalid_reason"), ("tags", "entities", "origin"),
          IndexedKind.MEMORY),
    Place("notes", "notes and chat summaries", ("title", "content"), kind=IndexedKind.NOTE),
    Place("user_facts", "other facts", ("value",), kind=IndexedKind.FACT),
    Place("fact_history", "earlier values of other facts", ("value",)),
    Place("context_events", "events", ("content", "last_error"), ("source_metadata",)),
    Place("about_you_versions", "About you versions", ("content",)),
    Place("working_memory_versions", "working memory versions", ("content",)),
    Place("notes_about_you_versions", "Notes about you versions", json=("data",)),
    Place("habits", "habits", ("rule",)),
    Place("follow_ups", "follow_ups", ("text", "context")),
    Place("audit_log", "audit entries", ("result_summary",), ("arguments",)),
    Place("context_logs", "reply context logs", json=("items",)),
    Place("runs", "run records", ("error",), ("stages", "changes")),
    Place("tasks", "tasks", ("title", "details")),
    Place("reminders", "reminders", ("message",)),
    Place("scheduled_prompts", "scheduled prompts", ("name", "prompt")),
    Place("journal_entries", "journal entries", ("content", "title")),
    Place("read_later", "read-later items", ("url", "title", "note", "text", "summary"),
          ("tags",)),
    Place("pending_actions", "requests awaiting your answer",
          ("preview", "source_message", "result"), ("arguments",)),
    Place("agent_writes", "other programs' writes awaiting your review",
          ("preview", "result"), ("arguments",)),
    Place("deleted_entries", "recently deleted entries", ("title",), ("rows",)),
)

MACHINE_COLUMNS: frozenset[tuple[str, str]] = frozenset({
    ("habits", "category"), ("habits", "status"),
    ("audit_log", "action"), ("audit_log", "actor"),
    ("chat_sessions", "id"), ("chat_sessions", "source"), ("chat_sessions", "conversation_id"),
    ("context_events", "event_type"), ("context_events", "failed_with"),
    ("context_events", "claimed_by"),
    ("context_logs", "session_id"), ("context_logs", "system_prompt_sha256"),
    ("context_logs", "tokens"),
    ("fact_history", "category"), ("fact_history", "source"),
    ("interactions", "session_id"), ("interactions", "channel"),
    ("interactions", "provider"), ("interactions", "model"), ("interactions", "status"),
    ("interactions", "external_id"), ("interactions", "embedding_model"),
    ("memories", "memory_type"), ("memories", "namespace"), ("memories", "priority"),
    ("memories", "source"), ("memories", "tier"), ("memories", "category"),
    ("memories", "session_id"), ("memories", "external_id"), ("memories", "embedding_model"),
    ("memory_edges", "kind"),
    ("notes", "session_id"), ("notes", "embedding_model"),
    ("follow_ups", "status"),
    ("about_you_versions", "source"), ("notes_about_you_versions", "source"),
    ("working_memory_versions", "source"),
    ("runs", "kind"), ("runs", "trigger"), ("runs", "status"), ("runs", "counts"),
    ("user_facts", "key"), ("user_facts", "category"), ("user_facts", "source"),
    ("user_facts", "embedding_model"),
    ("tasks", "status"), ("tasks", "due_date"), ("tasks", "due_time"),
    ("tasks", "notified_kind"), ("tasks", "source"),
    ("reminders", "zone"), ("reminders", "status"), ("reminders", "source"),
    ("scheduled_prompts", "cron"), ("scheduled_prompts", "zone"),
    ("alert_rules", "kind"),
    ("read_later", "status"),
    ("pending_actions", "action"), ("pending_actions", "session_id"),
    ("pending_actions", "status"),
    ("agents", "name"), ("agents", "access"), ("agents", "scope"),
    ("agents", "hidden_categories"),  # names of Hearth's own fixed categories
    ("agent_writes", "action"), ("agent_writes", "status"),
    ("agent_tokens", "token_sha256"),  # a SHA-256 of a random token Hearth made
    # a SHA-256 of an imported item's ids (core.forgetting.imported); an importer's name
    ("deleted_entries", "kind"),
    ("forgotten_imports", "key_sha256"), ("import_runs", "source"), ("import_runs", "outcome"),
})
"""Text and JSON columns that hold only what Hearth itself writes: ids, states, kinds,
model names. ``user_facts.key`` is here on purpose: a fact's key names it, and the forget
deletes the forgotten fact's row by that key."""
