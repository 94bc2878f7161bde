"""Embedding backfill: give every indexed row a vector from the current model.

Used by ``hearth reembed``, after an import (exports carry no vectors), after a model
change, and once after the upgrade that added the windows of long texts (rows that may be
long are queued then; see ``core.storage.sqlite.search``). Long texts get their further
windows here as on every other write (``core.embedding.chunking``), in the transaction that
stores their whole-text vector, and imported turns their views
(``core.embedding.turn_views``). It is resumable by construction: it asks the search index
for "rows whose embedding is missing or from another model", embeds one batch outside any
transaction, and commits that batch before taking the next. An interrupted run (cancel,
crash, power cut) loses at most one batch, and the next run picks up exactly what is still
missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from core.embedding import CancelCheck, Embedder, EmbeddingCancelled, ProgressCallback
from core.embedding.chunking import EmbeddedDocuments, embed_documents_with_chunks
from core.storage.orm import Interaction, Memory, Note, UserFact
from core.storage.port import (
    INDEXED_COLUMNS,
    IndexedKind,
    StoragePort,
    batched,
    document_text,
)
from core.embedding.turn_views import views_from_store

DEFAULT_BATCH_SIZE = 64

# The ORM model behind each indexed kind; each has an ``embedding_model`` column.
INDEXED_MODELS: dict[IndexedKind, type[Memory | Note | Interaction | UserFact]] = {
    IndexedKind.MEMORY: Memory,
    IndexedKind.NOTE: Note,
    IndexedKind.INTERACTION: Interaction,
    IndexedKind.FACT: UserFact,
}


def count_needing_embedding(storage: StoragePort, kind: IndexedKind, model_id: str) -> int:
    """Rows of ``kind`` without an embedding from ``model_id`` (the progress total)."""
    model = INDEXED_MODELS[kind]
    stale = or_(model.embedding_model.is_(None), model.embedding_model != model_id)
    with storage.read() as session:
        return session.scalar(select(func.count()).select_from(model).where(stale)) or 0


def backfill_embeddings(
    storage: StoragePort,
    embedder: Embedder,
    kinds: Iterable[IndexedKind] = tuple(IndexedKind),
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
) -> dict[IndexedKind, int]:
    """Embed every row of ``kinds`` that lacks a current vector; returns rows done per kind.

    ``progress(done, total)`` follows each committed batch, then the rebuild of a
    nearest-neighbour index that disagrees with the vectors (``refresh_search_indexes``, in
    vectors), and ends with ``(done, done)``, also when there was nothing to do.
    ``cancel()`` is polled before each batch and stops with :class:`EmbeddingCancelled`;
    batches already committed stay.
    """
    kinds = tuple(kinds)
    storage.search.ensure_dimensions(embedder.dimensions)
    model_id = embedder.model_id
    total = sum(count_needing_embedding(storage, kind, model_id) for kind in kinds)
    done = 0
    embedded: dict[IndexedKind, int] = {}
    for kind in kinds:
        embedded[kind] = 0
        after_id = 0
        while True:
            if cancel is not None and cancel():
                raise EmbeddingCancelled(done, total)
            with storage.read() as session:
                rows = storage.search.rows_needing_embedding(session, kind, model_id, after_id,
                                                             batch_size)
            if not rows:
                break
            batch = embed_documents_with_chunks(embedder, [text for _, text in rows],
                                                views=_turn_views(storage, kind, rows))
            stored = _store_if_current(storage, kind, model_id, rows, batch, after_id,
                                       batch_size)
            after_id = rows[-1][0]
            embedded[kind] += stored
            done += len(rows)
            total = max(total, done)
            if progress is not None:
                progress(done, total)
    # the nearest-neighbour index follows the new vectors (a rebuild after a model change)
    if not storage.search.refresh_search_indexes(progress=progress, cancel=cancel):
        raise EmbeddingCancelled(done, total)
    if progress is not None:  # the count was an estimate (rows may change meanwhile): close
        progress(done, done)
    return embedded


def embed_rows(storage: StoragePort, embedder: Embedder, kind: IndexedKind,
               ids: Sequence[int]) -> int:
    """Embed the rows ``ids`` of ``kind`` now, whatever vectors they have (rows put back by
    an undo: their vectors went with the delete); returns how many were stored. A row that
    changed meanwhile is left to the backfill, as in ``backfill_embeddings``."""
    wanted = sorted(set(ids))
    if not wanted:
        return 0
    storage.search.ensure_dimensions(embedder.dimensions)
    with storage.read() as session:
        texts = _texts(session, kind, wanted)
    rows = [(row_id, texts[row_id]) for row_id in wanted if row_id in texts]
    if not rows:
        return 0
    batch = embed_documents_with_chunks(embedder, [text for _, text in rows],
                                        views=_turn_views(storage, kind, rows))
    with storage.write() as session:
        current = _texts(session, kind, wanted)
        keep = [index for index, (row_id, text) in enumerate(rows)
                if current.get(row_id) == text]
        if keep:
            batch.select(keep).store(storage.search, session, kind,
                                     [rows[i][0] for i in keep], embedder.model_id)
    return len(keep)


def _texts(session: Session, kind: IndexedKind, ids: Sequence[int]) -> dict[int, str]:
    """The text each of the rows ``ids`` is embedded as (``document_text``)."""
    model = INDEXED_MODELS[kind]
    columns = [getattr(model, name) for name in INDEXED_COLUMNS[kind]]
    return {row[0]: document_text(kind, row[1:]) for chunk in batched(list(ids), 500)
            for row in session.execute(select(model.id, *columns).where(model.id.in_(chunk)))}


def _turn_views(storage: StoragePort, kind: IndexedKind,
                rows: list[tuple[int, str]]) -> list[tuple[str, ...]]:
    """Imported turns get their views' vector, as at import (``core.embedding.turn_views``);
    other rows their own text's."""
    if kind is not IndexedKind.MEMORY:
        return [() for _ in rows]
    with storage.read() as session:
        views = views_from_store(session, [row_id for row_id, _ in rows])
    return [views.get(row_id, ()) for row_id, _ in rows]


def _store_if_current(storage: StoragePort, kind: IndexedKind, model_id: str,
                      rows: list[tuple[int, str]], embedded: EmbeddedDocuments,
                      after_id: int, limit: int) -> int:
    """Store the batch's vectors (and the windows of long texts) for the rows whose text has
    not changed since it was read.

    Embedding happens outside a transaction, so another writer may have edited (and
    re-embedded) a row meanwhile; writing our vector then would attach stale meaning to the
    new text. Re-reading the batch inside the write transaction closes that window; a row
    skipped that way was either re-embedded by its writer or still needs embedding, which
    the next run does.
    """
    with storage.write() as session:
        current = dict(storage.search.rows_needing_embedding(session, kind, model_id, after_id,
                                                             limit))
        keep = [index for index, (row_id, text) in enumerate(rows) if current.get(row_id) == text]
        if keep:
            embedded.select(keep).store(storage.search, session, kind,
                                        [rows[i][0] for i in keep], model_id)
    return len(keep)
