"""Notes, and session summaries (notes titled ``Summary: <topic>``).

A note is recallable the moment it is written: the note and its vectors (with the further
windows of a long note) are stored in one transaction, embedded from exactly the text the
backfill would use (``document_text``), before the write lock is taken (``prepare``, then
``store_in``/``replace_in`` inside the transaction: a confirmed pending action writes a
note in the same transaction as its own status, ``core.daily.pending_actions``).

A note given no title (a "note: ..." message, a model's ``save_note`` without one, an empty
title field) is titled by its own first words (``title_from``), so every note can be named
in a list, a preview or an undo bar.

The user can edit a note (``edited_at`` says when), pin it (listed first) and delete it: a
delete asked for by the user removes the row, and the vector triggers of both backends
remove its vectors and windows in the same statement.
"""

from __future__ import annotations

import builtins
import unicodedata
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.embedding import Embedder
from core.embedding.chunking import EmbeddedDocuments, embed_documents_with_chunks
from core.errors import InvalidInputError
from core.storage.orm import Note, utcnow
from core.storage.port import IndexedKind, SearchFilters, StoragePort, document_text
from core.storage.rows import require

SUMMARY_PREFIX = "Summary: "
MAX_TITLE = 200
MAX_CONTENT = 200_000
"""A note longer than this is refused rather than cut: paste long documents to read-later."""
SEARCH_LIMIT = 50
TITLE_WORDS = 10
"""A title taken from a note's text stops after this many words, or at its first sentence."""
TITLE_CHARS = 60
"""... and is at most this long, cut between words where there are any."""
_SENTENCE_ENDS = frozenset(".!?\u2026\u3002\uff01\uff1f\u061f\u06d4")
"""What ends a first sentence: . ! ? … and the CJK, Arabic and Urdu full stops and marks."""
_JOINED_SENTENCE_ENDS = frozenset("\u3002\uff01\uff1f")
"""Those that end a sentence with no space after them (Chinese and Japanese)."""
_ABBREVIATIONS = frozenset({"dr", "mr", "mrs", "ms", "st", "vs", "prof", "jr", "sr", "no",
                            "e.g", "i.e", "approx", "etc"})
"""Words whose full stop does not end the sentence ("Dr. Silva's number")."""
_JOINER = "\u200d"
"""The zero-width joiner that makes one emoji of several ("👩‍👧")."""
_MARKUP = frozenset("<>+=|~^`")
"""Symbols that open a Markdown line ("> quoted", "+ item") and mean nothing in a title;
other symbols (emoji, currency) are words."""


@dataclass(frozen=True)
class PreparedNote:
    """A note's checked title and text, embedded, ready to be written in a transaction."""

    title: str
    content: str
    embedded: EmbeddedDocuments
    model_id: str


def summary_title(topic: str) -> str:
    """``Summary: <topic>``, the title every session summary carries."""
    cleaned = " ".join(topic.split())[:MAX_TITLE - len(SUMMARY_PREFIX)]
    if not cleaned:
        raise InvalidInputError("A session summary needs a topic.", "Give it a short topic.")
    return SUMMARY_PREFIX + cleaned


def title_from(content: str) -> str:
    """A short title for a note given none: the first words of its first line with words
    in it, up to the end of its first sentence or ``TITLE_WORDS`` words, at most
    ``TITLE_CHARS`` characters cut between words, without the punctuation or Markdown
    markers around them ("- [ ] Buy milk. And eggs" is titled "Buy milk").

    Refuses text with no words at all (only punctuation, symbols or invisible characters):
    such a note could not be told apart from another in a list, and it has nothing to find.
    """
    for line in content.splitlines():
        title = _trimmed(_first_sentence(line.split()))
        if title:
            return title
    raise InvalidInputError("The note has no words to take a title from.",
                            "Give it a title, or write some words in it.")


def _first_sentence(words: builtins.list[str]) -> str:
    """Up to ``TITLE_WORDS`` of ``words`` (after any leading markers such as "-" or "[ ]"),
    stopping after the one that ends a sentence, cut to ``TITLE_CHARS``."""
    while words and not _trimmed(words[0]):
        words = words[1:]
    kept: builtins.list[str] = []
    for word in words[:TITLE_WORDS]:
        joined = next((at for at, char in enumerate(word)
                       if char in _JOINED_SENTENCE_ENDS and at > 0), None)
        kept.append(word if joined is None else word[:joined])
        if joined is not None or _ends_sentence(word):
            break
    title = " ".join(kept)
    if len(title) <= TITLE_CHARS:
        return title
    head = title[:TITLE_CHARS + 1]
    return (head.rsplit(" ", 1)[0] if " " in head
            else _cut_between_characters(title, TITLE_CHARS))


def _ends_sentence(word: str) -> bool:
    """Whether ``word`` ends its sentence: it ends with a full stop, "!" or "?" and is no
    abbreviation or initial ("Dr.", "e.g.", "J."); a lone "!" (French spacing) ends it too."""
    if word[-1] not in _SENTENCE_ENDS:
        return False
    bare = _trimmed(word)
    return not bare or (len(bare) > 1 and bare.casefold() not in _ABBREVIATIONS)


def _cut_between_characters(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters without parting a letter from its
    accents or an emoji from its joiners and modifiers."""
    end = limit
    while end > 0 and (_clings(text[end]) or text[end - 1] == _JOINER):
        end -= 1
    return text[:end]


def _clings(char: str) -> bool:
    """Whether ``char`` belongs to the character before it: a combining mark (variation
    selectors are ones), a joiner, an emoji's skin tone."""
    return (unicodedata.category(char) in ("Mn", "Mc", "Me", "Cf")
            or "\U0001f3fb" <= char <= "\U0001f3ff")


def _trimmed(text: str) -> str:
    """``text`` without the punctuation, markup and invisible characters at either end."""
    start, end = 0, len(text)
    while start < end and _edge(text[start]):
        start += 1
    while end > start and _edge(text[end - 1]):
        end -= 1
    return text[start:end]


def _edge(char: str) -> bool:
    category = unicodedata.category(char)
    return (category.startswith(("P", "Z", "C")) or char in _MARKUP
            or char.isspace())


class NoteService:
    """Write and read notes with their vectors kept in step."""

    def __init__(self, storage: StoragePort, embedder: Embedder) -> None:
        self._storage = storage
        self._embedder = embedder

    def prepare(self, title: str | None, content: str) -> PreparedNote:
        """Check and embed a note's text, outside any transaction; a note with no title
        (None or blank) is titled by its first words (``title_from``)."""
        title, content = " ".join((title or "").split())[:MAX_TITLE], content.strip()
        if not content:
            raise InvalidInputError("A note needs some text.", "Write something in it.")
        title = title or title_from(content)
        if len(content) > MAX_CONTENT:
            raise InvalidInputError(
                f"The note is {len(content):,} characters long, more than the "
                f"{MAX_CONTENT:,} a note keeps.",
                "Split it into several notes, or keep it as a read-later item.")
        self._storage.search.ensure_dimensions(self._embedder.dimensions)
        embedded = embed_documents_with_chunks(
            self._embedder, [document_text(IndexedKind.NOTE, (title, content))])
        return PreparedNote(title, content, embedded, self._embedder.model_id)

    def store_in(self, session: Session, prepared: PreparedNote, *,
                 session_id: str | None = None, replace_same_title: bool = False) -> Note:
        """Write a prepared note (see ``save``) in the caller's transaction."""
        note = None
        if replace_same_title:
            same_session = (Note.session_id.is_(None) if session_id is None
                            else Note.session_id == session_id)
            note = session.scalars(
                select(Note).where(Note.title == prepared.title, same_session)).first()
        if note is None:
            note = Note(title=prepared.title, content=prepared.content, session_id=session_id)
            session.add(note)
        else:
            note.content, note.updated_at = prepared.content, utcnow()
        return self._stored(session, note, prepared)

    def replace_in(self, session: Session, note_id: int, prepared: PreparedNote) -> Note:
        """The user's edit of note ``note_id`` to a prepared title and text."""
        note = self._find(session, note_id)
        note.title, note.content = prepared.title, prepared.content
        note.updated_at = note.edited_at = utcnow()
        return self._stored(session, note, prepared)

    def delete_in(self, session: Session, note_id: int) -> Note:
        """Delete the note at the user's request; its vectors go with it (triggers)."""
        note = self._find(session, note_id)
        session.delete(note)
        session.flush()
        return note

    def _stored(self, session: Session, note: Note, prepared: PreparedNote) -> Note:
        session.flush()
        prepared.embedded.store(self._storage.search, session, IndexedKind.NOTE, [note.id],
                                prepared.model_id)
        session.refresh(note)
        return note

    def save(self, title: str | None, content: str, *, session_id: str | None = None,
             replace_same_title: bool = False) -> Note:
        """Store a note; with ``replace_same_title`` an existing note of that title (in the
        same session) is updated instead of duplicated: summaries are upserted."""
        prepared = self.prepare(title, content)
        with self._storage.write() as session:
            return self.store_in(session, prepared, session_id=session_id,
                                 replace_same_title=replace_same_title)

    def edit(self, note_id: int, *, title: str | None = None,
             content: str | None = None) -> Note:
        """The user changes a note's title or text (the other stays); it is embedded again."""
        current = self.get(note_id)
        prepared = self.prepare(current.title if title is None else title,
                                current.content if content is None else content)
        with self._storage.write() as session:
            return self.replace_in(session, note_id, prepared)

    def set_pinned(self, note_id: int, pinned: bool) -> Note:
        with self._storage.write() as session:
            note = self._find(session, note_id)
            note.pinned = pinned
            session.flush()
            return note

    def delete(self, note_id: int) -> Note:
        """Delete a note for good, at the user's request; returns what it was."""
        with self._storage.write() as session:
            return self.delete_in(session, note_id)

    def search(self, query: str, limit: int = SEARCH_LIMIT) -> builtins.list[Note]:
        """Notes matching ``query``'s words (full-text, best first)."""
        with self._storage.read() as session:
            hits = self._storage.search.text_search(session, IndexedKind.NOTE, query,
                                                    SearchFilters(), limit)
            notes = {note.id: note for note in session.scalars(
                select(Note).where(Note.id.in_([hit.id for hit in hits])))}
        return [notes[hit.id] for hit in hits if hit.id in notes]

    def save_summary(self, topic: str, content: str, *, session_id: str | None) -> Note:
        return self.save(summary_title(topic), content, session_id=session_id,
                         replace_same_title=True)

    def get(self, note_id: int) -> Note:
        with self._storage.read() as session:
            return self._find(session, note_id)

    @staticmethod
    def _find(session: Session, note_id: int) -> Note:
        return require(session, Note, note_id, f"There is no note {note_id}.",
                       "It may have been deleted.")

    def list(self, *, summaries_only: bool = False,
             session_id: str | None = None) -> builtins.list[Note]:
        """Pinned notes first, then newest first."""
        query = select(Note).order_by(Note.pinned.desc(), Note.created_at.desc(),
                                      Note.id.desc())
        if summaries_only:
            query = query.where(Note.title.startswith(SUMMARY_PREFIX, autoescape=True))
        if session_id is not None:
            query = query.where(Note.session_id == session_id)
        with self._storage.read() as session:
            return builtins.list(session.scalars(query))
