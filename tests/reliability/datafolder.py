"""A data folder with what a user would have in it, and ways to look at it from outside.

The folder is filled in-process (fast) with the real model; the cases then run the real
``hearth`` command on it. The checks read the database with SQLite directly, never through
Hearth, so a Hearth bug cannot hide itself.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

from core.app import Hearth
from core.storage.sqlite.engine import dbapi_module
from core.transfer.transcript import import_transcript

TRANSCRIPT = {
    "conversation_id": "recovery-demo",
    "participants": ["user", "assistant"],
    "sessions": [{
        "session_id": "s1",
        "started_at": "2026-02-01T09:00:00+00:00",
        "turns": [
            {"turn_id": "t1", "speaker": "user",
             "text": "My sister Ines just moved to Porto for her new job."},
            {"turn_id": "t2", "speaker": "assistant",
             "text": "That's exciting! Porto is lovely in spring."},
        ],
    }],
}
MORE_TURNS = {
    "conversation_id": "recovery-more",
    "participants": ["user", "assistant"],
    "sessions": [{
        "session_id": "s2",
        "started_at": "2026-03-01T09:00:00+00:00",
        "turns": [{"turn_id": f"m{i}", "speaker": "user",
                   "text": f"Note {i}: the garden needs watering every {i} days in summer."}
                  for i in range(1, 40)],
    }],
}


def make_home(home: Path, embedder: object, *, backup: bool = True) -> None:
    """Facts (one with an older value), an imported conversation and (optionally) a backup."""
    transcript = home.parent / f"{home.name}-transcript.json"
    transcript.write_text(json.dumps(TRANSCRIPT), encoding="utf-8")
    with Hearth.open(home, embedder=embedder) as hearth:  # type: ignore[arg-type]
        hearth.facts.remember("home_city", "Lisbon", category="location")
        hearth.facts.remember("home_city", "Porto", category="location")
        hearth.facts.remember("partner_name", "Ana", category="personal")
        import_transcript(transcript, hearth.storage, hearth.memories)
        if backup:
            hearth.backup()


def write_transcript(folder: Path, document: dict = MORE_TURNS) -> Path:
    path = folder / f"{document['conversation_id']}.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scramble(database: Path, table: str) -> None:
    """8 KB of random bytes over ``table``'s first pages, the file's length and header left
    as they were: SQLite notices only when something reads those pages."""
    connection = _read_only(database)
    try:
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?",
                                  (table,)).fetchone()[0]
        page = connection.execute("PRAGMA page_size").fetchone()[0]
    finally:
        connection.close()
    with database.open("r+b") as handle:
        handle.seek((root - 1) * page)
        handle.write(random.Random(31).randbytes(8192))


def _read_only(database: Path):
    """Opened read-only; ``immutable`` where SQLite needs it to read a WAL database at all
    (in a folder it cannot write), which is safe here: nothing writes it meanwhile."""
    frozen = "" if os.access(database.parent, os.W_OK) else "&immutable=1"
    return dbapi_module().connect(f"{database.absolute().as_uri()}?mode=ro{frozen}", uri=True)


def read_facts(database: Path) -> dict[str, str]:
    """The facts in ``database``, read with SQLite alone (read-only)."""
    connection = _read_only(database)
    try:
        return dict(connection.execute("SELECT key, value FROM user_facts").fetchall())
    finally:
        connection.close()


def integrity(database: Path) -> str:
    connection = _read_only(database)
    try:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()


def only_backups(home: Path) -> list[Path]:
    return sorted((home / "backups").glob("hearth-*.db"))
