"""Notes, and session summaries (notes titled ``Summary: <topic>``).

A summary is recallable the moment it is written: the note and its vectors (with the
further windows of a long note) are stored in one transaction, embedded from exactly the
text the backfill would use (``document_text``), before the write lock is taken.
"""

from __future__ import annotations

from sqlalchemy import select

from core.embedding import Embedder
from core.embedding.chunking import embed_documents_with_chunks
from core.errors import InvalidInputError
from core.storage.orm import Note, utcnow
from core.storage.port import IndexedKind, StoragePort, document_text
from core.storage.rows import require

SUMMARY_PREFIX = "Summary: "
MAX_TITLE = 200


def summary_title(topic: str) -> str:
    """``Summary: <topic>``, the title every session summary carries."""
    cleaned = " ".join(topic.split())[:MAX_TITLE - len(SUMMARY_PREFIX)]
    if not cleaned:
        raise InvalidInputError("A session summary needs a topic.", "Give it a short topic.")
    return SUMMARY_PREFIX + cleaned


class NoteService:
    """Write and read notes with their vectors kept in step."""

    def __init__(self, storage: StoragePort, embedder: Embedder) -> None:
        self._storage = storage
        self._embedder = embedder

    def save(self, title: str, content: str, *, session_id: str | None = None,
             replace_same_title: bool = False) -> Note:
        """Store a note; with ``replace_same_title`` an existing note of that title (in the
        same session) is updated instead of duplicated: summaries are upserted."""
        title, content = " ".join(title.split())[:MAX_TITLE], content.strip()
        if not content:
            raise InvalidInputError("A note needs some text.", "Write something in it.")
        self._storage.search.ensure_dimensions(self._embedder.dimensions)
        embedded = embed_documents_with_chunks(
            self._embedder, [document_text(IndexedKind.NOTE, (title, content))])
        with self._storage.write() as session:
            note = None
            if replace_same_title:
                same_session = (Note.session_id.is_(None) if session_id is None
                                else Note.session_id == session_id)
                note = session.scalars(
                    select(Note).where(Note.title == title, same_session)).first()
            if note is None:
                note = Note(title=title, content=content, session_id=session_id)
                session.add(note)
            else:
                note.content, note.updated_at = content, utcnow()
            session.flush()
            embedded.store(self._storage.search, session, IndexedKind.NOTE, [note.id],
                           self._embedder.model_id)
            session.refresh(note)
            return note

    def save_summary(self, topic: str, content: str, *, session_id: str | None) -> Note:
        return self.save(summary_title(topic), content, session_id=session_id,
                         replace_same_title=True)

    def get(self, note_id: int) -> Note:
        with self._storage.read() as session:
            return require(session, Note, note_id, f"There is no note {note_id}.",
                           "It may have been deleted.")

    def list(self, *, summaries_only: bool = False, session_id: str | None = None) -> list[Note]:
        """Newest first."""
        query = select(Note).order_by(Note.created_at.desc(), Note.id.desc())
        if summaries_only:
            query = query.where(Note.title.startswith(SUMMARY_PREFIX, autoescape=True))
        if session_id is not None:
            query = query.where(Note.session_id == session_id)
        with self._storage.read() as session:
            return list(session.scalars(query))
