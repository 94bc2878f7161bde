"""``hearth import chatgpt|claude FILE``: a chat service's data export into memory.

ChatGPT and Claude let their users download everything they said: a ``conversations.json``
(ChatGPT's inside a zip, which is read as it is). Both are a JSON list of conversations;
how a conversation holds its messages is each service's own (``core.transfer.chatgpt``,
``core.transfer.claude`` turn one into a :class:`ChatConversation`), and this module is
the rest:

* **Streaming.** Years of chats make an export of hundreds of MB. It is parsed with ijson,
  one conversation at a time, from the file or straight out of the zip member, in chunks
  of ``READ_CHUNK`` bytes: at most one conversation and one group of turns being written
  are held at once.
* **Bounded.** An export is a file from elsewhere, and a small one can stand for a lot: a
  0.4 MB zip unpacked to one 400 MB message, which ran for more than 15 minutes at 0.9 GB.
  So a zip member that would unpack to more than ``MAX_UNPACKED`` bytes, or more than
  ``MAX_RATIO`` times its packed size, is refused before it is read (zipfile itself stops
  a member at its declared size and checks its CRC); a single JSON value longer than
  ``MAX_VALUE_BYTES`` refuses the file as it is read (``_Reader``), since the parser's
  time grows with the square of a value's length; and a message or attached file's text
  longer than ``MAX_TEXT_CHARS`` is kept cut to that length, counted in the report
  (``cut``) and recorded in its memory's ``origin.cut_from`` (its full length).
* **One export at a time.** A zip with more than one ``conversations.json`` is refused,
  naming them: which one the user meant is not for Hearth to guess.
* **All or nothing on bad input.** A first pass reads and checks every conversation and
  writes nothing; problems are reported with their position (``[12].mapping.b7.message
  .author.role is missing``) in one sentence. Only a file without problems is imported,
  in a second pass over it.
* **One conversation, one dated session** (from its creation time), its messages on the
  current branch as turns (``"User: ..."``, ``"ChatGPT: ..."``), with the service,
  conversation id and title and message id in each memory's ``origin``.
* **Attached files' text** (Claude's export extracts it) becomes a memory per file, linked
  to its message's turn (``core.transfer.attachments``).
* **Idempotent and resumable**: writing is ``core.transfer.turns``, keyed by
  ``turn:<service>:<conversation id>:<message id>``. The same export twice, or a newer
  export of the same account, adds only the messages not imported before; an import
  killed or cancelled anywhere is completed by running it again.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, Any, TypeVar

import ijson
from pydantic import ValidationError

from core.embedding import CancelCheck, EmbeddingCancelled, ProgressCallback
from core.errors import InvalidInputError
from core.knowledge.memories import MemoryService
from core.storage.port import StoragePort
from core.transfer import batches
from core.transfer.attachments import AttachmentsWritten, AttachmentToWrite, write_attachments
from core.transfer.transcript import MAX_EXTERNAL_ID, MAX_SESSION_ID, session_row_id
from core.transfer.turns import SessionToWrite, TurnToWrite, TurnsWritten, write_turns
from core.transfer.validation import MAX_PROBLEMS_SHOWN, fail, position, problems_in
from core.user_input import FILE_ENCODING_HINT, open_binary_file

HINT = "See docs/imports.md for the exports Hearth reads."
USER_SPEAKER = "User"
"""The speaker of the user's own messages (the assistant's are the service's name)."""
MEMBER = "conversations.json"
READ_CHUNK = 64 * 1024
GROUP_TURNS = 1024
"""Turns written (and embedded) together: conversations are grouped up to this many."""
MAX_UNPACKED = 8 * 1024**3
"""A zip member that would unpack to more is refused: the largest real exports are a
small fraction of it."""
MAX_RATIO = 100
"""Nor may a member unpack to more than this many times its packed size (an export's JSON
packs 5 to 20 times smaller); members under ``RATIO_FROM`` bytes unpacked are exempt."""
RATIO_FROM = 1024**2
MAX_VALUE_BYTES = 32 * 1024**2
"""The longest single JSON value (a string, a number) read: the parser's time grows with
the square of a value's length (a 40 MB string took 4 s, 80 MB 21 s)."""
MAX_TEXT_CHARS = 2_000_000
"""A message's or an attached file's text is kept up to this many characters (about 500
pages; far more than one inference or the 200,000 characters chunked for search)."""
_ZIP_MAGIC = b"PK\x03\x04"
_BROKEN_STREAM = (zlib.error, zipfile.BadZipFile, EOFError)
"""What reading a damaged zip member raises (zipfile checks each member's CRC at its end)."""
_LAST_PLAIN_QUOTE = re.compile(rb'"(?!\\)')
"""In bytes read backwards: the last quote not preceded by a backslash. Every string
starts with one, and there is none inside a string, so the bytes since the last one are
at least the length of the value being read."""
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_WHOLE = "the export"

Location = tuple[int | str, ...]


# --- what a service's reader hands over ----------------------------------------------


@dataclass(frozen=True)
class ChatMessage:
    """A message to import: one the user or the assistant wrote, in words."""

    message_id: str
    speaker: str
    text: str
    created_at: datetime | None
    attachments: tuple[str, ...] = ()
    """File names (or ``image``) attached to it: their content is not imported."""
    cut_from: int | None = None
    """The text's full length in characters, where it was cut to ``MAX_TEXT_CHARS``."""


@dataclass(frozen=True)
class AttachedText:
    """The text of a file attached to a message of the current branch, as the service
    extracted it (a message without words may still have one)."""

    message_id: str
    position: int
    """Its place among its message's attachments: part of its external id."""
    file_name: str
    file_type: str | None
    file_size: int | None
    text: str
    created_at: datetime | None
    speaker: str
    """Who attached it (the message's speaker)."""
    cut_from: int | None = None
    """The text's full length in characters, where it was cut to ``MAX_TEXT_CHARS``."""


@dataclass(frozen=True)
class ChatConversation:
    conversation_id: str
    title: str
    started_at: datetime
    messages: tuple[ChatMessage, ...]
    """The messages to import, in the order they were written (the current branch)."""
    left_out: int
    """Messages read but not imported: other branches, system and tool messages, hidden
    ones, and those without text."""
    attachments: tuple[AttachedText, ...] = ()
    """Attached files' text on the current branch (ChatGPT's export carries none)."""


_Text = TypeVar("_Text", ChatMessage, AttachedText)


class ConversationProblems(Exception):
    """What is wrong with one conversation, each at its location within it."""

    def __init__(self, problems: Sequence[tuple[Location, str]]) -> None:
        super().__init__("; ".join(f"{position(loc, 'it')} {what}" for loc, what in problems))
        self.problems = list(problems)


@dataclass(frozen=True)
class ChatService:
    name: str
    """Its key in ids, namespaces and provenance: ``chatgpt``."""
    label: str
    """Its name for people, also the assistant's speaker: ``ChatGPT``."""
    read: Callable[[Any], ChatConversation]
    """One decoded conversation → what to import; raises ``ValidationError`` or
    :class:`ConversationProblems`."""


@dataclass(frozen=True)
class ChatImportReport:
    """What an import found and what it added."""

    service: str
    conversations: int
    turns: int
    left_out: int  # messages read but not imported (see ChatConversation.left_out)
    interactions_created: int
    memories_created: int
    skipped_existing: int  # turns already imported completely (nothing created for them)
    forgotten: int = 0     # turns left out because the user deleted them before
    batch: int | None = field(default=None, compare=False)  # the run (``hearth imports``)
    attachments: int = 0   # attached files with text, on the imported branches
    attachments_created: int = 0    # memories of attached files added by this run
    attachments_forgotten: int = 0  # attached files left out: the user deleted them before
    cut: int = 0  # messages and attached files whose text was cut to MAX_TEXT_CHARS

    def warnings(self) -> list[str]:
        """What the user should know besides the counts, in sentences."""
        if not self.cut:
            return []
        return [cut_sentence(self.cut)]


def cut_sentence(cut: int) -> str:
    """The sentence about texts cut to ``MAX_TEXT_CHARS`` (the report, the window)."""
    what = "1 message or attached file was" if cut == 1 else (
        f"{cut:,} messages or attached files were")
    return (f"{what} longer than {MAX_TEXT_CHARS:,} characters: only the first "
            f"{MAX_TEXT_CHARS:,} are kept (the memory's origin says how long it was).")


def branch(leaf: str, parent_of: Mapping[str, str | None],
           link_at: Callable[[str], Location]) -> list[str]:
    """The ids from the root down to ``leaf``, following parent links (an id not in
    ``parent_of`` is above the root). A loop in the links is a problem of the file, at
    ``link_at(id)`` of the message whose link closes it."""
    path: list[str] = []
    seen: set[str] = set()
    node: str | None = leaf
    while node is not None and node in parent_of:
        if node in seen:
            raise ConversationProblems([(link_at(path[-1]), "leads round in a loop")])
        seen.add(node)
        path.append(node)
        node = parent_of[node]
    path.reverse()
    return path


# --- reading the file as a stream ------------------------------------------------------


class _Reader:
    """A binary stream with the bytes already looked at put back in front. It counts what
    it hands on, so a parse error can say how far into the file it is, and refuses a
    value longer than ``MAX_VALUE_BYTES`` before the parser has to (see
    ``_LAST_PLAIN_QUOTE``): one regular-expression search per chunk, read backwards."""

    def __init__(self, head: bytes, rest: IO[bytes], name: str) -> None:
        self._head = head
        self._rest = rest
        self._name = name
        self._before = b""  # the byte before this chunk: a backslash escapes its quote
        self._since_quote = 0
        self.consumed = 0

    def read(self, size: int) -> bytes:
        if self._head:
            data, self._head = self._head[:size], self._head[size:]
        else:
            data = self._rest.read(size)
        self.consumed += len(data)
        quote = _LAST_PLAIN_QUOTE.search((self._before + data)[::-1])
        if quote is None or quote.start() >= len(data):  # none in this chunk
            self._since_quote += len(data)
        else:
            self._since_quote = quote.start()
        self._before = data[-1:] or self._before
        if self._since_quote > MAX_VALUE_BYTES:
            raise InvalidInputError(
                f"{self._name} holds a single value longer than "
                f"{MAX_VALUE_BYTES // 1024**2} MB (within its first {self.consumed:,} "
                "bytes), more than any message and more than Hearth reads.", HINT)
        return data


def conversations(stream: IO[bytes], name: str) -> Iterator[Any]:
    """Each conversation of an export's top-level list, decoded one at a time from
    ``stream``, which is read in chunks of ``READ_CHUNK`` bytes (never whole)."""
    try:
        head = _start(stream, name)
    except _BROKEN_STREAM as exc:
        raise _cut_short(name, exc) from exc
    resumed = _Reader(head, stream, name)
    try:
        yield from ijson.items(resumed, "item", use_float=True, buf_size=READ_CHUNK)
    except ijson.JSONError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else "it ends too early"
        if "UTF8" in reason:
            raise InvalidInputError(
                f"{name} is not UTF-8 text (within its first {resumed.consumed:,} bytes).",
                FILE_ENCODING_HINT) from exc
        raise InvalidInputError(
            f"{name} is not valid JSON ({reason}, within its first {resumed.consumed:,} "
            f"bytes).", HINT) from exc
    except _BROKEN_STREAM as exc:
        raise _cut_short(name, exc) from exc


def _start(stream: IO[bytes], name: str) -> bytes:
    """The first chunk of the export that is not all whitespace (whitespace before it is
    dropped a chunk at a time, never gathered), checked to open a list."""
    head = stream.read(READ_CHUNK)
    if head.startswith(_UTF16_BOMS):
        raise InvalidInputError(f"{name} is UTF-16 text, not UTF-8.", FILE_ENCODING_HINT)
    head = head.removeprefix(b"\xef\xbb\xbf")
    while head and not head.strip():
        head = stream.read(READ_CHUNK)
    first = head.lstrip()[:1]
    if first != b"[":
        what = "is empty" if not first else "must be a list of conversations"
        raise InvalidInputError(f"{name} {what}.", HINT)
    return head


def _cut_short(name: str, exc: Exception) -> InvalidInputError:
    return InvalidInputError(f"{name} cannot be read to its end ({exc}).",
                             "Download the export again.")


@contextmanager
def opened_export(path: Path) -> Iterator[Iterator[Any]]:
    """The conversations of ``path``: a ``conversations.json``, or an export zip holding
    one (read from the zip as a stream, never unpacked whole)."""
    with ExitStack() as stack:
        raw = stack.enter_context(open_binary_file(path))
        if raw.read(len(_ZIP_MAGIC)) != _ZIP_MAGIC:
            raw.seek(0)
            yield conversations(raw, str(path))
            return
        raw.seek(0)
        try:
            archive = stack.enter_context(zipfile.ZipFile(raw))
            member = _member(archive, path)
            stream = stack.enter_context(archive.open(member))
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError) as exc:
            raise InvalidInputError(f"{path} is a zip file Hearth cannot read ({exc}).",
                                    "Download the export again.") from exc
        yield conversations(stream, f"{member.filename} in {path}")


def _member(archive: zipfile.ZipFile, path: Path) -> zipfile.ZipInfo:
    """The export's ``conversations.json``: the only one, and not one that would unpack
    to more than ``MAX_UNPACKED`` or ``MAX_RATIO`` times its packed size."""
    found = [info for info in archive.infolist()
             if info.filename == MEMBER or info.filename.endswith(f"/{MEMBER}")]
    if not found:
        raise InvalidInputError(f"{path} is a zip file without a {MEMBER}.", HINT)
    if len(found) > 1:
        names = ", ".join(info.filename for info in found)
        raise InvalidInputError(
            f"{path} holds {len(found)} files named {MEMBER} ({names}), and Hearth imports "
            "one export at a time.",
            f"Unzip it and import each {MEMBER} on its own, the one you mean first.")
    member = found[0]
    unpacked, packed = member.file_size, max(member.compress_size, 1)
    too_large = unpacked > MAX_UNPACKED
    if too_large or (unpacked > RATIO_FROM and unpacked > MAX_RATIO * packed):
        why = (f"more than the {MAX_UNPACKED // 1024**3} GB Hearth unpacks" if too_large else
               f"{unpacked // packed:,} times its packed size of {packed:,} bytes, while an "
               f"export packs at most {MAX_RATIO} times smaller")
        raise InvalidInputError(
            f"{member.filename} in {path} would unpack to {unpacked:,} bytes, {why}; "
            "Hearth does not unpack it.",
            f"If the export is yours, unzip it and import its {MEMBER}.")
    return member


def _offset(progress: ProgressCallback | None, done: int,
            total: int) -> ProgressCallback | None:
    """A group's own ``progress(step, of)`` as the whole import's ``(done + step, total)``."""
    if progress is None:
        return None
    return lambda step, _of: progress(done + step, total)


# --- checking, then importing ----------------------------------------------------------


def _session(service: ChatService, conversation: ChatConversation) -> SessionToWrite:
    """The session a conversation becomes. A message without a time is a second after
    the one before it (the first: the conversation's start), so the order is kept."""
    key = f"{service.name}:{conversation.conversation_id}"
    turns = []
    previous: datetime | None = None
    for message in conversation.messages:
        created = message.created_at or (
            conversation.started_at if previous is None else previous + timedelta(seconds=1))
        previous = created
        origin: dict[str, Any] = {
            "service": service.name, "conversation_id": conversation.conversation_id,
            "conversation_title": conversation.title, "message_id": message.message_id,
            "turn_id": message.message_id, "speaker": message.speaker}
        if message.attachments:
            origin["attachments"] = list(message.attachments)
        if message.cut_from is not None:
            origin["cut_from"] = message.cut_from
        turns.append(TurnToWrite(
            external_id=f"turn:{key}:{message.message_id}", speaker=message.speaker,
            text=message.text, created_at=created, origin=origin))
    return SessionToWrite(
        row_id=session_row_id(service.name, conversation.conversation_id),
        title=f"{service.label}: {conversation.title}", conversation_id=key,
        started_at=conversation.started_at,
        namespace=f"import/{service.name}/{conversation.conversation_id}", turns=turns)


def _attachment_key(service: ChatService, conversation: ChatConversation,
                    attached: AttachedText) -> str:
    return (f"attachment:{service.name}:{conversation.conversation_id}:"
            f"{attached.message_id}:{attached.position}")


def _attachments(service: ChatService, conversation: ChatConversation,
                 chat: SessionToWrite) -> list[AttachmentToWrite]:
    """The attached files' text to write, each dated as its message's turn (or by its
    message's own time, or the conversation's start, for a message without words)."""
    turn_times = {turn.origin["message_id"]: turn.created_at for turn in chat.turns}
    key = f"{service.name}:{conversation.conversation_id}"
    written = []
    for attached in conversation.attachments:
        origin: dict[str, Any] = {
            "service": service.name, "conversation_id": conversation.conversation_id,
            "conversation_title": conversation.title, "message_id": attached.message_id,
            "turn_id": attached.message_id, "file_name": attached.file_name,
            "attached_by": attached.speaker}
        if attached.file_type:
            origin["file_type"] = attached.file_type
        if attached.file_size is not None:
            origin["file_size"] = attached.file_size
        if attached.cut_from is not None:
            origin["cut_from"] = attached.cut_from
        written.append(AttachmentToWrite(
            external_id=_attachment_key(service, conversation, attached),
            message_key=f"turn:{key}:{attached.message_id}", session_id=chat.row_id,
            namespace=chat.namespace, file_name=attached.file_name, text=attached.text,
            created_at=turn_times.get(attached.message_id) or attached.created_at
            or conversation.started_at, origin=origin))
    return written


def _problems(service: ChatService, conversation: ChatConversation) -> list[str]:
    """What the columns the ids go into cannot hold, and message ids given twice."""
    problems = []
    key = conversation.conversation_id
    if len(session_row_id(service.name, key)) > MAX_SESSION_ID:
        longest = MAX_SESSION_ID - len(session_row_id(service.name, ""))
        problems.append(f"has a conversation id longer than {longest} characters")
    seen: set[str] = set()
    for message in conversation.messages:
        if message.message_id in seen:
            problems.append(f"has the message id {message.message_id!r} twice")
        seen.add(message.message_id)
        if len(f"turn:{service.name}:{key}:{message.message_id}") > MAX_EXTERNAL_ID:
            problems.append(f"has a message id too long to keep "
                            f"({message.message_id[:20]!r}...)")
    for attached in conversation.attachments:
        if len(_attachment_key(service, conversation, attached)) > MAX_EXTERNAL_ID:
            problems.append(f"has a message id too long to keep "
                            f"({attached.message_id[:20]!r}...)")
    return problems


def _cut(conversation: ChatConversation) -> ChatConversation:
    """``conversation`` with each text longer than ``MAX_TEXT_CHARS`` cut to that length
    (``cut_from`` keeps its full length): the longest texts cost the most to store, index
    and search, and past a book's length are not something anyone said to anyone."""
    return replace(conversation,
                   messages=tuple(_cut_text(message) for message in conversation.messages),
                   attachments=tuple(_cut_text(item) for item in conversation.attachments))


def _cut_text(item: _Text) -> _Text:
    if len(item.text) <= MAX_TEXT_CHARS:
        return item
    return replace(item, text=item.text[:MAX_TEXT_CHARS], cut_from=len(item.text))


def _cut_count(conversation: ChatConversation) -> int:
    return (sum(message.cut_from is not None for message in conversation.messages)
            + sum(item.cut_from is not None for item in conversation.attachments))


@dataclass
class CheckedExport:
    """What the checking pass counted: the import's totals, known before it writes."""

    conversations: int = 0
    turns: int = 0
    left_out: int = 0
    attachments: int = 0
    cut: int = 0


class _Refused(Exception):
    """A conversation's problems, each located in the file (``[3].mapping...``)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _read_one(service: ChatService, raw: Any, index: int) -> ChatConversation:
    """One conversation read by its service (texts longer than ``MAX_TEXT_CHARS`` cut),
    or :class:`_Refused` with its problems located in the file."""
    try:
        return _cut(service.read(raw))
    except ValidationError as exc:
        raise _Refused(problems_in(exc, prefix=(index,), whole=_WHOLE)) from exc
    except ConversationProblems as exc:
        raise _Refused([f"{position((index, *loc), _WHOLE)} {what}"
                        for loc, what in exc.problems]) from exc


def check_export(path: Path, service: ChatService) -> CheckedExport:
    """Read the whole export once, writing nothing: every problem found is reported in
    one :class:`InvalidInputError` (the first few, and how many there are)."""
    checked = CheckedExport()
    problems: list[str] = []
    total = 0
    first_index: dict[str, int] = {}
    with opened_export(path) as items:
        for index, raw in enumerate(items):
            checked.conversations += 1
            try:
                conversation = _read_one(service, raw, index)
                found = [f"[{index}] {what}" for what in _problems(service, conversation)]
                earlier = first_index.setdefault(conversation.conversation_id, index)
                if earlier != index:
                    found.append(f"[{index}] repeats the conversation id of [{earlier}]")
                _session(service, conversation)  # times that overflow fail here, not later
            except _Refused as exc:
                found = exc.problems
            except OverflowError:
                found = [f"[{index}] has times past the year 9999"]
            total += len(found)
            problems.extend(found[:MAX_PROBLEMS_SHOWN - len(problems)])
            if not found:
                checked.turns += len(conversation.messages)
                checked.left_out += conversation.left_out
                checked.attachments += len(conversation.attachments)
                checked.cut += _cut_count(conversation)
    fail(problems, f"The {service.label} export", HINT, total=total)
    return checked


def import_chat_export(
    path: Path,
    service: ChatService,
    storage: StoragePort,
    memories: MemoryService,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    include_removed: bool = False,
) -> ChatImportReport:
    """Import a service's export (see the module docstring); ``progress(done, total)``
    counts turns, ``cancel`` is checked while embedding and between groups of turns;
    ``include_removed`` brings back what the user deleted from it before."""
    checked = check_export(path, service)
    written = TurnsWritten()
    files = AttachmentsWritten()
    group: list[SessionToWrite] = []
    attached: list[AttachmentToWrite] = []

    def write_group() -> None:
        nonlocal written, files
        if cancel is not None and cancel():
            raise EmbeddingCancelled(written.turns, checked.turns)
        written += write_turns(storage, memories, group, batch=batch, cancel=cancel,
                               progress=_offset(progress, written.turns, checked.turns),
                               include_removed=include_removed)
        files += write_attachments(storage, memories, attached, batch=batch, cancel=cancel,
                                   include_removed=include_removed)
        group.clear()
        attached.clear()
        if progress is not None:
            progress(written.turns, checked.turns)

    with batches.run(storage, service.name) as batch, opened_export(path) as items:
        for index, raw in enumerate(items):
            try:
                conversation = _read_one(service, raw, index)
            except _Refused as exc:  # the file changed since it was checked
                fail(exc.problems, f"The {service.label} export", HINT)
                raise
            chat = _session(service, conversation)
            group.append(chat)
            attached.extend(_attachments(service, conversation, chat))
            if sum(len(chat.turns) for chat in group) + len(attached) >= GROUP_TURNS:
                write_group()
        if group:
            write_group()
    return ChatImportReport(
        service=service.name, conversations=checked.conversations, turns=written.turns,
        left_out=checked.left_out,
        interactions_created=written.interactions_created,
        memories_created=written.memories_created,
        skipped_existing=written.skipped_existing, forgotten=written.forgotten, batch=batch,
        attachments=checked.attachments, attachments_created=files.created,
        attachments_forgotten=files.forgotten, cut=checked.cut)
