"""Putting observations on the event bus: a ``context_events`` row, unprocessed.

Every observation (a tool's record_observation, a fact learned after an exchange, a memory
candidate from a closed or compacted session, an import) goes through here, so the
consolidation processor sees them all the same way.
"""

from __future__ import annotations

from typing import Any

from core.storage.orm import ContextEvent
from core.storage.port import StoragePort


def add_event(storage: StoragePort, event_type: str, content: str,
              source_metadata: dict[str, Any]) -> int:
    """Queue one observation for consolidation; returns its id."""
    with storage.write() as session:
        event = ContextEvent(event_type=event_type, content=content,
                             source_metadata=source_metadata)
        session.add(event)
        session.flush()
        return event.id
