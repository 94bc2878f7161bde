"""link watermark: a queue of the memories whose kNN links a change made stale

Revision ID: 0014_link_watermark
Revises: 0013
Create Date: 2026-11-25

The dream's link stage (``core.consolidation.link``) links only what changed since its
last successful run instead of every memory every night. What changed is recorded by the
database itself, in the transaction that changed it, whichever process wrote it:

* ``link_changes`` (``seq``, ``memory_id``): a row whenever a memory's vector is stored or
  replaced (every vector write sets ``memories.embedding_model``, so an update of that
  column is the sign, re-embedding with the same model included), whenever it becomes
  invalid or valid again or is superseded (``is_valid``, ``superseded_by``), and, before a
  memory is deleted, for it and for every memory whose ``knn`` edge points at it (those
  edges go with it by cascade, so afterwards nobody could tell who lost a neighbour).
* ``link_state`` (``key``, ``value``): what the last successful run linked with (the
  settings ``link_max_edges`` and ``link_similarity_floor``); none means the next run is a
  full one.

The link stage deletes exactly the queue rows it read (by ``seq``), in the transaction that
ends a successful run, so a change written while it ran, or a run that crashed, loses
nothing. Neither table is part of the ORM's models: they are bookkeeping of derived data,
not copied by export or ``hearth migrate`` (a copied home starts with one full link).
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014_link_watermark"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WATCHED = "embedding_model, is_valid, superseded_by"
DELETED = ("SELECT old.id UNION SELECT from_id FROM memory_edges "
           "WHERE to_id = old.id AND kind = 'knn'")

SQLITE = [
    "CREATE TABLE link_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
    "memory_id INTEGER NOT NULL)",
    "CREATE TABLE link_state (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)",
    f"CREATE TRIGGER memories_link_changed AFTER UPDATE OF {WATCHED} ON memories BEGIN "
    "INSERT INTO link_changes (memory_id) VALUES (new.id); END",
    "CREATE TRIGGER memories_link_deleted BEFORE DELETE ON memories BEGIN "
    f"INSERT INTO link_changes (memory_id) {DELETED}; END",
]

POSTGRES = [
    "CREATE TABLE link_changes (seq BIGSERIAL PRIMARY KEY, memory_id BIGINT NOT NULL)",
    "CREATE TABLE link_state (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE FUNCTION link_change_noted() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "IF TG_OP = 'DELETE' THEN "
    f"INSERT INTO link_changes (memory_id) {DELETED.replace('old.', 'OLD.')}; RETURN OLD; "
    "END IF; "
    "INSERT INTO link_changes (memory_id) VALUES (NEW.id); RETURN NEW; END $$",
    f"CREATE TRIGGER memories_link_changed AFTER UPDATE OF {WATCHED} ON memories "
    "FOR EACH ROW EXECUTE FUNCTION link_change_noted()",
    "CREATE TRIGGER memories_link_deleted BEFORE DELETE ON memories "
    "FOR EACH ROW EXECUTE FUNCTION link_change_noted()",
]


def upgrade() -> None:
    for statement in POSTGRES if op.get_bind().dialect.name == "postgresql" else SQLITE:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER memories_link_deleted ON memories")
        op.execute("DROP TRIGGER memories_link_changed ON memories")
        op.execute("DROP FUNCTION link_change_noted()")
    else:
        op.execute("DROP TRIGGER memories_link_deleted")
        op.execute("DROP TRIGGER memories_link_changed")
    op.execute("DROP TABLE link_state")
    op.execute("DROP TABLE link_changes")
