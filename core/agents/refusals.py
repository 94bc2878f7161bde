"""What an agent's refused calls leave in the audit log: little, and a bounded number of
entries however many it sends.

An agent with no grant can call as often as it likes with arguments as large as its
client will send, and every refusal used to be an audit entry holding those arguments: a
flood of megabyte calls grew the database by megabytes a second. So a refused call (no
grant, bad input, learning paused, an unexpected failure) is recorded like this:

* its arguments only as their size (``bytes`` of their UTF-8 JSON) and ``sha256``: enough
  to see how big a call was and that the same one came again, without keeping what was
  sent (which may be the user's data, a secret or junk meant to fill the disk);
* one entry per refusal for the first ``LISTED_PER_WINDOW`` refusals of the agent in a
  ``WINDOW``; past that, until the window ends, one entry per tool counts the rest
  (``refused``, their ``bytes``, the last refusal's sentence), updated as they come. A
  flood adds at most ``LISTED_PER_WINDOW`` entries plus one per tool a minute, whatever
  its rate or size.

The count is kept per agent by the server process that answers it (``AgentTools`` is one
per agent and process), so a new ``hearth mcp`` process starts a new window.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from core import clock
from core.agents.registry import actor
from core.conversation.audit import SUMMARY_CHARS, redact_text
from core.storage.orm import AuditEntry
from core.storage.port import StoragePort

LISTED_PER_WINDOW = 20
WINDOW = timedelta(minutes=1)


def digest(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``{"bytes": N, "sha256": HEX}`` of the arguments' JSON (keys sorted); a lone
    surrogate an agent sent is hashed as it came rather than refused a second time."""
    text = json.dumps({str(name): value for name, value in arguments.items()},
                      ensure_ascii=False, sort_keys=True, default=str)
    data = text.encode("utf-8", "surrogatepass")
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


@dataclass
class _Counted:
    """The entry counting one tool's refusals past the window's listed ones."""

    entry_id: int
    refused: int
    size: int


class RefusalLog:
    """The audit entries of one agent's refused calls. Thread-safe: the MCP SDK runs tool
    calls in worker threads, and the count must not lose a refusal between two of them."""

    def __init__(self, storage: StoragePort, name: str) -> None:
        self._storage = storage
        self._actor = actor(name)
        self._lock = threading.Lock()
        self._window_ends: datetime | None = None
        self._listed = 0
        self._counted: dict[str, _Counted] = {}

    def record(self, tool: str, arguments: Mapping[str, Any], summary: str) -> None:
        """Audit one refused call of ``tool`` (``summary``: "error: " and its sentence)."""
        summed = digest(arguments)
        summary = redact_text(summary)
        now = clock.now()
        with self._lock:
            if self._window_ends is None or now >= self._window_ends:
                self._window_ends, self._listed, self._counted = now + WINDOW, 0, {}
            if self._listed < LISTED_PER_WINDOW:
                self._listed += 1
                with self._storage.write() as session:
                    session.add(AuditEntry(action=f"mcp.{tool}", actor=self._actor,
                                           arguments=summed,
                                           result_summary=summary[:SUMMARY_CHARS]))
                return
            self._count(tool, summed["bytes"], summary)

    def _count(self, tool: str, size: int, summary: str) -> None:
        """Add one refusal to the tool's counting entry (made by the first one)."""
        counted = self._counted.get(tool)
        refused = 1 if counted is None else counted.refused + 1
        size += 0 if counted is None else counted.size
        text = (f"error: {refused} more refused calls in this minute, counted here rather "
                f"than listed; the last: {summary.removeprefix('error: ')}")[:SUMMARY_CHARS]
        with self._storage.write() as session:
            entry = None if counted is None else session.get(AuditEntry, counted.entry_id)
            if entry is None:
                entry = AuditEntry(action=f"mcp.{tool}", actor=self._actor)
                session.add(entry)
            entry.arguments = {"refused": refused, "bytes": size}
            entry.result_summary = text
            session.flush()
            self._counted[tool] = _Counted(entry.id, refused, size)
