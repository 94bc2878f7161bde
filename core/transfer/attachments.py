"""Writing the text of files attached to imported messages (Claude's export carries it).

A file the user attached to a message is not something anyone said, so it is not a turn;
but its text was part of the conversation and the user will ask about it ("what did the
lease say about the deposit?"). Each attached file with text becomes:

* a **semantic memory** of its own, in the conversation's namespace and session, dated as
  its message, whose text is ``Attached file “<name>”:`` and the file's text as extracted
  by the service (a long one gets a vector per 160-token window besides its whole-text
  vector, like a long note: ``core.embedding.chunking``), and whose ``origin`` names the
  service, conversation, message (``turn_id`` too, which recall cites) and the file's
  name, type and size;
* a ``memory_edges`` row of kind ``attached_to`` from it to its message's memory, when
  that message was imported as a turn (a message with a file and no words has none).

Idempotent and resumable like turns: each is keyed by its own external id
``attachment:<service>:<conversation id>:<message id>:<position>`` (the file's place among
its message's attachments), missing memories and edges are added on every run, and one
the user deleted is left out (``core.forgetting.imported``) and counted. It names its
import run in ``origin.import_batch``, so removing the run removes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any


from core.embedding import CancelCheck
from core.forgetting import imported
from core.knowledge.memories import MemoryService, MemorySpec
from core.storage.orm import Memory, MemoryType
from core.storage.port import IMPORTED_SOURCE, StoragePort
from core.transfer.batches import with_batch
from core.transfer.edges import add_missing_edges, memory_ids
from core.transfer.turns import existing

EDGE_KIND = "attached_to"
"""The edge from an attached file's memory to the memory of the message it came with."""


@dataclass(frozen=True)
class AttachmentToWrite:
    """One attached file's text, read and checked by an importer."""

    external_id: str
    message_key: str
    """The external id of its message's turn (the edge's other end)."""
    session_id: str
    namespace: str
    file_name: str
    text: str
    created_at: datetime
    origin: dict[str, Any]


@dataclass(frozen=True)
class AttachmentsWritten:
    created: int = 0
    forgotten: int = 0
    """Attachments left out because the user deleted them before."""

    def __add__(self, other: AttachmentsWritten) -> AttachmentsWritten:
        return AttachmentsWritten(self.created + other.created,
                                  self.forgotten + other.forgotten)


def content(file_name: str, text: str) -> str:
    """An attached file's memory text: which file, then what it says."""
    return f"Attached file “{file_name}”:\n\n{text}"


def write_attachments(storage: StoragePort, memories: MemoryService,
                      attachments: Sequence[AttachmentToWrite], *, batch: int | None = None,
                      cancel: CancelCheck | None = None,
                      include_removed: bool = False) -> AttachmentsWritten:
    """Create the missing memories and edges of ``attachments`` (see the module
    docstring); ``batch`` is the import run recorded on the new memories;
    ``include_removed`` brings back those the user deleted before."""
    if not attachments:
        return AttachmentsWritten()
    wanted = {item.external_id: item for item in attachments}
    left_out = imported.left_out(storage, wanted, include_removed=include_removed)
    with storage.read() as session:
        present = existing(session, Memory.external_id, wanted)
    specs = [MemorySpec(content(item.file_name, item.text),
                        memory_type=MemoryType.SEMANTIC.value, namespace=item.namespace,
                        source=IMPORTED_SOURCE, session_id=item.session_id,
                        external_id=key, origin=with_batch(item.origin, batch),
                        created_at=item.created_at)
             for key, item in wanted.items() if key not in present and key not in left_out]
    memories.add_many(specs, cancel=cancel)
    _link(storage, attachments)
    return AttachmentsWritten(len(specs), len(left_out))


def _link(storage: StoragePort, attachments: Sequence[AttachmentToWrite]) -> None:
    """The ``attached_to`` edges that are missing, between memories that exist."""
    keys = {key for item in attachments for key in (item.external_id, item.message_key)}
    with storage.write() as session:
        ids = memory_ids(session, keys)
        add_missing_edges(session, {(ids[item.external_id], ids[item.message_key])
                                    for item in attachments
                                    if item.external_id in ids and item.message_key in ids},
                          EDGE_KIND)
