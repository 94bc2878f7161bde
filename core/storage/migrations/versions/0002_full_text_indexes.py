"""full-text indexes: external-content FTS5 tables kept in sync by triggers (SQLite), or
generated tsvector columns with GIN indexes (PostgreSQL)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

SQLite: each searchable table gets an FTS5 index that stores no text of its own
(``content=`` points back at the table), so the text lives once. Triggers keep it in step
with every insert, update and delete; ``rebuild`` indexes the rows that existed before this
revision. The Porter stemmer lets "moved" find "moving"; diacritics are folded.

PostgreSQL: each searchable table gets a stored generated column ``fulltext``, the tsvector
of its indexed columns, which the server keeps in step with every insert and update (and
which goes with the row), and a GIN index on it. The ``hearth`` text search configuration
is the English one with a Snowball stemmer that keeps every word (stopwords are dropped
from queries, not from documents, as with FTS5); accents are not folded (that needs the
``unaccent`` extension, which not every server has). See ``core.storage.postgres.search``.
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


POSTGRES_CONFIG = "hearth"
POSTGRES_DDL = [
    "CREATE TEXT SEARCH DICTIONARY hearth_english_stem (TEMPLATE = snowball, "
    "Language = english)",
    f"CREATE TEXT SEARCH CONFIGURATION {POSTGRES_CONFIG} (COPY = pg_catalog.english)",
    f"ALTER TEXT SEARCH CONFIGURATION {POSTGRES_CONFIG} ALTER MAPPING FOR asciiword, "
    "asciihword, hword_asciipart, word, hword, hword_part WITH hearth_english_stem",
]


ASCII_PUNCTUATION = r"[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+"
"""Replaced by spaces before parsing, so words are split as FTS5's unicode61 (and the
query side, ``core.storage.query_words``) split them: PostgreSQL's parser would otherwise
keep "XK-4471" as "xk" and the number "-4471", and an e-mail address or "3.5" as one token."""


POSTGRES_MAX_CHARS = 500_000
"""Characters of a row's text that PostgreSQL indexes by words: a tsvector is capped at 1 MB,
which half a million characters of even unique tokens (hashes, ids) stay under, so no text is
ever refused for being long; natural text's tsvector is a fraction of that."""


def _postgres_ddl(table: str, columns: tuple[str, ...]) -> list[str]:
    document = " || ' ' || ".join(f"coalesce({c}, '')" for c in columns)
    words = (f"regexp_replace(left({document}, {POSTGRES_MAX_CHARS}), "
             f"'{ASCII_PUNCTUATION}', ' ', 'g')")
    return [
        f"ALTER TABLE {table} ADD COLUMN fulltext tsvector GENERATED ALWAYS AS "
        f"(to_tsvector('{POSTGRES_CONFIG}'::regconfig, {words})) STORED",
        # fastupdate off: a search right after many writes would otherwise scan GIN's
        # pending list (measured: 11 ms instead of 2 ms at 10k rows until a vacuum)
        f"CREATE INDEX ix_{table}_fulltext ON {table} USING gin (fulltext) "
        f"WITH (fastupdate = off)",
    ]


def _postgres() -> bool:
    return bool(op.get_bind().dialect.name == "postgresql")


def upgrade() -> None:
    if _postgres():
        statements = POSTGRES_DDL + [statement for table, columns in INDEXED.items()
                                     for statement in _postgres_ddl(table, columns)]
    else:
        statements = [statement for table, columns in INDEXED.items()
                      for statement in _ddl(table, columns)]
    for statement in statements:
        op.execute(statement)


def downgrade() -> None:
    if _postgres():
        for table in INDEXED:
            op.execute(f"ALTER TABLE {table} DROP COLUMN fulltext")
        op.execute(f"DROP TEXT SEARCH CONFIGURATION {POSTGRES_CONFIG}")
        op.execute("DROP TEXT SEARCH DICTIONARY hearth_english_stem")
        return
    for table in INDEXED:
        for suffix in ("ai", "ad", "au"):
            op.execute(f"DROP TRIGGER IF EXISTS {table}_fts_{suffix}")
        op.execute(f"DROP TABLE IF EXISTS {table}_fts")
