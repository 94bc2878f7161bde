"""full-text indexes: external-content FTS5 tables kept in sync by triggers

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

Each searchable table gets an FTS5 index that stores no text of its own (``content=``
points back at the table), so the text lives once. Triggers keep it in step with every
insert, update and delete; ``rebuild`` indexes the rows that existed before this revision.
The Porter stemmer lets "moved" find "moving"; diacritics are folded.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table -> the text columns it indexes (frozen here: later changes need a new revision)
INDEXED = {
    "memories": ("content",),
    "notes": ("title", "content"),
    "interactions": ("user_message", "agent_response"),
    "user_facts": ("key", "value"),
}
TOKENIZER = "porter unicode61 remove_diacritics 2"


def _ddl(table: str, columns: tuple[str, ...]) -> list[str]:
    fts = f"{table}_fts"
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({cols}, content='{table}', "
        f"content_rowid='id', tokenize='{TOKENIZER}')",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN "
        f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.id, {new}); END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.id, {old}); END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {cols} ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.id, {old}); "
        f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.id, {new}); END",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
    ]


def upgrade() -> None:
    for table, columns in INDEXED.items():
        for statement in _ddl(table, columns):
            op.execute(statement)


def downgrade() -> None:
    for table in INDEXED:
        for suffix in ("ai", "ad", "au"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_fts_{suffix}")
        op.execute(f"DROP TABLE IF EXISTS {table}_fts")
