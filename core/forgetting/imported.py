"""What the user deleted from an import stays out of every later import of it.

Importers are idempotent by external id (``core.transfer.turns``, ``core.transfer.notes``):
a turn or note whose memory is missing is written. So without a record, deleting an
imported memory and importing the same export (or a newer one, which holds the same
messages) again would bring the deleted words back: a privacy bug, since the user said
"this must not be kept".

``record`` is called in the transaction of the delete, with the external ids of the rows
that go; it keeps a SHA-256 of each (``key_hash``), never the text, and an external id is
already only ids (service, conversation and message ids; a note's hashed folder, path
and content hash). Every importer asks ``forgotten`` which of its keys to leave out. A
note's key contains its content hash, so a forgotten note stays out until the user edits
it in the vault: edited, it is a new text the user has written since.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core.storage.orm import ForgottenImport, utcnow
from core.storage.port import StoragePort, batched

LOOKUP_BATCH = 500


def key_hash(external_id: str) -> str:
    """The one-way key kept for a forgotten imported item."""
    return hashlib.sha256(external_id.encode("utf-8")).hexdigest()


def record(session: Session, external_ids: Iterable[str | None]) -> int:
    """Remember that the items ``external_ids`` were deleted; returns how many are new to
    the record. Ids already recorded, and rows without an external id, are skipped."""
    wanted = {key_hash(value) for value in external_ids if value}
    known = _present(session, wanted)
    now = utcnow()
    session.add_all(ForgottenImport(key_sha256=key, forgotten_at=now)
                    for key in sorted(wanted - known))
    return len(wanted - known)


def take_back(session: Session, external_ids: Iterable[str | None]) -> None:
    """The items ``external_ids`` are no longer deleted (their delete was undone, or the
    user imports them again on purpose): a later import may bring them back."""
    wanted = sorted({key_hash(value) for value in external_ids if value})
    for chunk in batched(wanted, LOOKUP_BATCH):
        session.execute(delete(ForgottenImport).where(ForgottenImport.key_sha256.in_(chunk)))


def left_out(storage: StoragePort, external_ids: Iterable[str], *,
             include_removed: bool = False) -> set[str]:
    """Which of ``external_ids`` an import leaves out: those the user deleted before. With
    ``include_removed`` (the person asked to import them again on purpose) none, and
    their records go, so they are kept like anything else imported."""
    keys = list(external_ids)
    if include_removed:
        with storage.write() as session:
            take_back(session, keys)
        return set()
    with storage.read() as session:
        return forgotten(session, keys)


def forgotten(session: Session, external_ids: Iterable[str]) -> set[str]:
    """Which of ``external_ids`` the user deleted before (to be left out of an import)."""
    by_hash = {key_hash(value): value for value in external_ids}
    return {by_hash[key] for key in _present(session, set(by_hash))}


def _present(session: Session, hashes: set[str]) -> set[str]:
    found: set[str] = set()
    for chunk in batched(sorted(hashes), LOOKUP_BATCH):
        found.update(session.scalars(select(ForgottenImport.key_sha256)
                                     .where(ForgottenImport.key_sha256.in_(chunk))))
    return found
