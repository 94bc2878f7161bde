"""Making a rename durable, for the adapters that replace a backup file by a rewritten one
(``core.storage.sqlite.copies``, ``core.storage.postgres.copies``), a restore, and the ANN
index's header (``core.storage.sqlite.ann``)."""

from __future__ import annotations

import os
from pathlib import Path


def sync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (POSIX; elsewhere the rename is all we have)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
