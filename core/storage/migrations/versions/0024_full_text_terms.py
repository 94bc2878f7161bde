"""full text indexes Python's terms: contentless FTS5 tables fed by ``hearth_terms``

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-29

SQLite only (PostgreSQL's tsvector columns are unchanged). Revision 0002's FTS5 tables
read the rows' text (``content=``) and tokenized it with FTS5's ``porter`` tokenizer, which
turned the name "Ines" into "in" (``core.storage.search_terms`` says why that matters).
Each table is made anew as a contentless FTS5 table (``content=''``: it stores no text,
like the table it replaces) whose ``contentless_delete=1`` removes a row by its id alone,
so a delete never depends on re-deriving what was indexed. Its triggers index
``hearth_terms(column)``, the terms Python makes (a SQL function every Hearth connection
registers, ``core.storage.sqlite.engine``), with FTS5's ``ascii`` tokenizer, which splits
them at the spaces and changes nothing else; existing rows are indexed here the same way.
Downgrading makes revision 0002's tables again and rebuilds them from the rows.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table -> the text columns it indexes (frozen here: later changes need a new revision)
INDEXED = {
    "memories": ("content",),
    "notes": ("title", "content"),
    "interactions": ("user_message", "agent_response"),
    "user_facts": ("key", "value"),
}
TERMS_FUNCTION = "hearth_terms"
PORTER_TOKENIZER = "porter unicode61 remove_diacritics 2"
"""Revision 0002's tokenizer, for the downgrade."""


def _drop(table: str) -> list[str]:
    fts = f"{table}_fts"
    return [*(f"DROP TRIGGER IF EXISTS {fts}_{suffix}" for suffix in ("ai", "ad", "au")),
            f"DROP TABLE IF EXISTS {fts}"]


def _terms_ddl(table: str, columns: tuple[str, ...]) -> list[str]:
    fts = f"{table}_fts"
    cols = ", ".join(columns)

    def terms(row: str) -> str:
        return ", ".join(f"{TERMS_FUNCTION}({row}{column})" for column in columns)

    insert = f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.id, {terms('new.')});"
    delete = f"DELETE FROM {fts} WHERE rowid = old.id;"
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({cols}, content='', contentless_delete=1, "
        f"tokenize='ascii')",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN {insert} END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN {delete} END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {cols} ON {table} BEGIN {delete} "
        f"{insert} END",
        f"INSERT INTO {fts}(rowid, {cols}) SELECT id, {terms('')} FROM {table}",
    ]


def _porter_ddl(table: str, columns: tuple[str, ...]) -> list[str]:
    """Revision 0002's external-content table and triggers."""
    fts = f"{table}_fts"
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({cols}, content='{table}', "
        f"content_rowid='id', tokenize='{PORTER_TOKENIZER}')",
        f"CREATE TRIGGER {fts}_ai AFTER INSERT ON {table} BEGIN "
        f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.id, {new}); END",
        f"CREATE TRIGGER {fts}_ad AFTER DELETE ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.id, {old}); END",
        f"CREATE TRIGGER {fts}_au AFTER UPDATE OF {cols} ON {table} BEGIN "
        f"INSERT INTO {fts}({fts}, rowid, {cols}) VALUES ('delete', old.id, {old}); "
        f"INSERT INTO {fts}(rowid, {cols}) VALUES (new.id, {new}); END",
        f"INSERT INTO {fts}({fts}) VALUES ('rebuild')",
    ]


def _sqlite() -> bool:
    return bool(op.get_bind().dialect.name == "sqlite")


def upgrade() -> None:
    if not _sqlite():
        return
    for table, columns in INDEXED.items():
        for statement in _drop(table) + _terms_ddl(table, columns):
            op.execute(statement)


def downgrade() -> None:
    if not _sqlite():
        return
    for table, columns in INDEXED.items():
        for statement in _drop(table) + _porter_ddl(table, columns):
            op.execute(statement)
