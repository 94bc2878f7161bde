"""Embedding backfill: fills what is missing, resumes after a cancel, replaces other models."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from sqlalchemy import select, update

from core.embedding import EmbeddingCancelled
from core.embedding.reembed import backfill_embeddings, count_needing_embedding
from core.storage.orm import Interaction, Note
from core.storage.port import IndexedKind, SearchFilters


def add_notes(storage, *contents: str) -> list[int]:
    with storage.write() as session:
        notes = [Note(title=f"Note {i}", content=text) for i, text in enumerate(contents)]
        session.add_all(notes)
        session.flush()
        return [note.id for note in notes]


def embedded_models(storage, model) -> list[str | None]:
    with storage.read() as session:
        return list(session.scalars(select(model.embedding_model).order_by(model.id)))


def test_rows_without_embeddings_get_them(storage, embedder) -> None:
    ids = add_notes(storage, "Dentist on Friday at 10", "Buy oat milk and bread")
    with storage.write() as session:
        session.add(Interaction(user_message="What did I plan for Friday?", agent_response="-"))
    seen: list[tuple[int, int]] = []

    done = backfill_embeddings(storage, embedder, progress=lambda d, t: seen.append((d, t)))

    assert done == {IndexedKind.MEMORY: 0, IndexedKind.NOTE: 2, IndexedKind.INTERACTION: 1,
                    IndexedKind.FACT: 0}
    assert seen[-1] == (3, 3)
    assert embedded_models(storage, Note) == [embedder.model_id] * 2
    assert embedded_models(storage, Interaction) == [embedder.model_id]
    query = embedder.embed_query("when is the dentist appointment?")
    with storage.read() as session:
        hits = storage.search.vector_search(session, IndexedKind.NOTE, query, SearchFilters(), 2)
    assert hits[0].id == ids[0]
    assert backfill_embeddings(storage, embedder) == dict.fromkeys(IndexedKind, 0)


def test_a_cancelled_backfill_keeps_its_batches_and_resumes(storage, embedder) -> None:
    add_notes(storage, *(f"Reading list item {i}: a book about rivers" for i in range(5)))
    answers = iter([False, True])

    with pytest.raises(EmbeddingCancelled):
        backfill_embeddings(storage, embedder, [IndexedKind.NOTE], batch_size=2,
                            cancel=lambda: next(answers))

    assert count_needing_embedding(storage, IndexedKind.NOTE, embedder.model_id) == 3
    assert backfill_embeddings(storage, embedder, [IndexedKind.NOTE],
                               batch_size=2) == {IndexedKind.NOTE: 3}
    assert embedded_models(storage, Note) == [embedder.model_id] * 5


def test_rows_embedded_by_another_model_are_re_embedded(storage, embedder) -> None:
    ids = add_notes(storage, "Old note", "Another old note")
    backfill_embeddings(storage, embedder, [IndexedKind.NOTE])
    with storage.write() as session:
        old = np.zeros((1, embedder.dimensions), dtype=np.float32)
        old[0, 0] = 1.0
        storage.search.store_embeddings(session, IndexedKind.NOTE, [ids[1]], old, "old-model")

    assert backfill_embeddings(storage, embedder, [IndexedKind.NOTE]) == {IndexedKind.NOTE: 1}
    assert embedded_models(storage, Note) == [embedder.model_id] * 2


class EditsWhileEmbedding:
    """An embedder during whose work another writer changes a note's text."""

    def __init__(self, real, storage, note_id: int) -> None:
        self._real, self._storage, self._note_id = real, storage, note_id
        self.model_id, self.dimensions = real.model_id, real.dimensions
        self.max_tokens = real.max_tokens

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return self._real.token_offsets(text)

    def embed_documents(self, texts: Sequence[str], **kwargs) -> np.ndarray:
        with self._storage.write() as session:
            session.execute(update(Note).where(Note.id == self._note_id)
                            .values(content="Edited meanwhile"))
        return self._real.embed_documents(texts, **kwargs)


def test_a_row_edited_during_embedding_does_not_get_the_stale_vector(storage,
                                                                     embedder) -> None:
    ids = add_notes(storage, "First text", "Untouched")

    done = backfill_embeddings(storage, EditsWhileEmbedding(embedder, storage, ids[0]),
                               [IndexedKind.NOTE])

    assert done == {IndexedKind.NOTE: 1}
    assert embedded_models(storage, Note) == [None, embedder.model_id]
    assert backfill_embeddings(storage, embedder, [IndexedKind.NOTE]) == {IndexedKind.NOTE: 1}
