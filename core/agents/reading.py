"""What an agent reads: each search result cut to the part that matched, and one memory or
note whole, in parts.

``search_memory`` once returned every result's whole text: five imported conversations came
to 40,000-77,000 characters, an agent's context gone in one call. Now each result is the
stretch of its text that matched (``core.recall.excerpts``), at most ``mcp_result_chars``
characters, and all the results of a call at most ``mcp_search_chars`` together (short
ones whole, long ones sharing the rest), with where it comes from: kind, id, date and a
few short provenance fields (source, tier, category, title, the conversation and turn it
was said in), each at most ``PROVENANCE_CHARS``. A result that was cut says so (``cut``,
the excerpt's place ``at`` in the whole text, its ``length``) and how to read the rest:
``read_memory`` with the kind and id it names, which returns ``mcp_read_chars`` characters
a call from ``offset`` and the offset of the next part.

``read_memory`` reads only what ``search_memory`` could have found for the agent: a memory
that was invalidated or replaced, or is filed under a category kept from the agent, is
answered as one that does not exist, as ``forget_fact`` answers for a fact kept from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.config import Settings
from core.errors import InvalidInputError
from core.recall.excerpts import excerpt, shares
from core.recall.service import HYDRATORS, RecallResult
from core.storage.orm import Memory, Note
from core.storage.port import IndexedKind, StoragePort

Result = dict[str, Any]

READABLE: dict[str, IndexedKind] = {"memory": IndexedKind.MEMORY, "note": IndexedKind.NOTE}
"""The kinds ``search_memory`` finds, by the name its results give them."""
PROVENANCE_CHARS = 200
"""Each provenance value is cut to this many characters (a conversation's title, a path)."""
SHOWN = ("title", "source", "tier", "memory_type", "category", "namespace", "session_id",
         "turn_id")
"""The provenance fields a result names, when the record has them."""
ORIGIN = ("service", "conversation_title", "speaker", "path", "file_name")
"""The fields of an imported memory's origin a result names: where it was said or written
(the rest, front matter and links of a note, can be long and say nothing of that)."""


def provenance(described: Mapping[str, Any]) -> dict[str, Any]:
    """Where a text comes from, in a few short fields (``HYDRATORS[kind].describe``'s,
    and its origin's ``ORIGIN``)."""
    origin = described.get("origin")
    fields = {name: described.get(name) for name in SHOWN}
    if isinstance(origin, Mapping):
        fields.update({name: origin.get(name) for name in ORIGIN})
    return {name: _short(value) for name, value in fields.items()
            if value is not None and value != ""}


def _short(value: Any) -> Any:
    return value[:PROVENANCE_CHARS] if isinstance(value, str) else value


def read_more(kind: str, item_id: int, offset: int = 0) -> dict[str, Any]:
    """The arguments of the ``read_memory`` call that reads a text from ``offset``."""
    return {"kind": kind, "item_id": item_id, "offset": offset}


def search_results(results: Sequence[RecallResult], query: str,
                   settings: Settings) -> Result:
    """The results of one ``search_memory`` call within the settings' bounds."""
    per_result, per_call = settings.mcp_result_chars, settings.mcp_search_chars
    room = shares([len(result.text) for result in results], per_result, per_call)
    found = []
    for result, limit in zip(results, room, strict=True):
        shown = excerpt(result.text, query, limit, result.excerpt)
        entry: dict[str, Any] = {
            "kind": result.kind.value, "id": result.id, "score": round(result.score, 4),
            "created_at": result.created_at.isoformat() if result.created_at else None,
            "text": shown.text, "cut": not shown.whole, "length": shown.length,
            "provenance": provenance(result.provenance)}
        if not shown.whole:
            entry["at"] = [shown.start, shown.end]
            entry["read_more"] = read_more(result.kind.value, result.id)
        found.append(entry)
    answer: Result = {"results": found, "cut": any(entry["cut"] for entry in found)}
    if answer["cut"]:
        answer["note"] = (
            f"Texts longer than their share ({per_result:,} characters a result, "
            f"{per_call:,} a call) are cut to the part that matched; `at` is where that part "
            "is in the whole text. read_memory with a result's read_more arguments reads the "
            "whole text (from offset `at[0]` for what follows the part shown).")
    return answer


def read_record(storage: StoragePort, settings: Settings, kind_name: str, item_id: int,
                offset: int, kept: Callable[[str | None], bool]) -> tuple[Result, str]:
    """``mcp_read_chars`` characters of one memory or note from ``offset``, with where it
    comes from and the offset of the next part (None at its end), and the audit summary.
    ``kept`` says whether a memory's category is kept from the agent."""
    kind = READABLE[kind_name]
    hydrator = HYDRATORS[kind]
    with storage.read() as session:
        row: Memory | Note | None = (session.get(Memory, item_id) if kind is IndexedKind.MEMORY
                                     else session.get(Note, item_id))
        if row is None or (isinstance(row, Memory) and (
                not row.is_valid or row.superseded_by is not None or kept(row.category))):
            raise InvalidInputError(f"There is no {kind_name} {item_id} to read.",
                                    "Use the kind and id of a search_memory result.")
        text, described, created = hydrator.text(row), hydrator.describe(row), row.created_at
    if offset > len(text):
        raise InvalidInputError(
            f"The {kind_name} {item_id} has {len(text):,} characters, so there is nothing "
            f"at offset {offset:,}.", f"Use an offset from 0 to {len(text):,}.")
    end = min(len(text), offset + settings.mcp_read_chars)
    answer: Result = {
        "kind": kind_name, "id": item_id,
        "created_at": created.isoformat() if created else None,
        "provenance": provenance(described), "text": text[offset:end], "offset": offset,
        "length": len(text), "next_offset": end if end < len(text) else None}
    if end < len(text):
        answer["note"] = (f"Characters {offset:,} to {end:,} of {len(text):,}; read_memory "
                          f"with offset {end} reads the next part.")
        answer["read_more"] = read_more(kind_name, item_id, end)
    return answer, f"{kind_name} {item_id}: characters {offset}-{end} of {len(text)}"
