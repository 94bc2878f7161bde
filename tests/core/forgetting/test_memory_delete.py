"""Memories removed for good (``ForgetService.delete_memories``, an import's undo, and
``ForgetService.erase_memories``, ``hearth memories forget``): the rows, their index entries,
vectors, links and the traces of their words are gone, down to the bytes of every file in
the data folder, backups taken before included when asked; nothing else is touched. (The
everyday delete with an undo, ``hearth memories delete``, is
``tests/core/forgetting/test_delete_entry.py``.)"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import select, text

from core.app import Hearth
from cli.main import run
from core.errors import NotFoundError
from core.forgetting import wording
from core.forgetting.matching import PLACEHOLDER
from core.forgetting.service import FileCheck
from core.learning.events import add_event
from core.recall import RecallQuery
from core.storage.orm import AuditEntry, ContextEvent, Memory, MemoryEdge

WORD = "Zorblanquette"
SECRET = f"The user keeps the spare key under the {WORD} flowerpot."
QUESTION = f"Where is the spare key, under the {WORD} pot?"
KEPT = "The user is training for the Lisbon half marathon in May."


def files_holding(home: Path, word: str) -> list[Path]:
    """Every file of the data folder whose bytes hold ``word`` (any case)."""
    wanted = word.lower().encode()
    return [path for path in home.rglob("*")
            if path.is_file() and wanted in path.read_bytes().lower()]


def found_by_search(hearth: Hearth, query: str) -> list[str]:
    return [result.text for result in hearth.recall.recall(RecallQuery(text=query, k=10))]


def memory_with_traces(hearth: Hearth) -> tuple[int, int]:
    """The secret memory (made from an event, as consolidation does) and a kept one, linked."""
    event_id = add_event(hearth.storage, "memory_candidate", SECRET, {"source": "test"})
    secret = hearth.memories.add(SECRET, event_id=event_id).id
    kept = hearth.memories.add(KEPT).id
    with hearth.storage.write() as session:
        session.add(MemoryEdge(from_id=kept, to_id=secret, kind="related", weight=0.8))
        session.get(Memory, kept).superseded_by = secret
        session.add(AuditEntry(action="dream.distil", actor="dream", arguments={},
                               result_summary=SECRET))
    return secret, kept


def test_a_deleted_memory_is_gone_from_search_the_tables_and_every_file(
        hearth: Hearth) -> None:
    secret, kept = memory_with_traces(hearth)
    assert any(WORD in found for found in found_by_search(hearth, QUESTION))
    assert files_holding(hearth.paths.home, WORD)

    report = hearth.forgetting.delete_memories([secret]).report

    assert report.deleted == 1
    assert report.files is FileCheck.VERIFIED
    assert report.places == {"events": 1, "audit entries": 1}
    assert not any(WORD in found for found in found_by_search(hearth, QUESTION))
    assert files_holding(hearth.paths.home, WORD) == []
    with hearth.storage.read() as session:
        assert session.get(Memory, secret) is None
        assert session.scalars(select(MemoryEdge)).all() == []
        other = session.get(Memory, kept)
        assert other.content == KEPT and other.superseded_by is None
        assert PLACEHOLDER in session.scalars(select(ContextEvent.content)).one()
        vectors = session.execute(text("SELECT count(*) FROM memories_vec")).scalar()
        assert vectors == 1  # the kept memory's only
        delete_entry = session.scalars(select(AuditEntry)
                                       .where(AuditEntry.action == "memory.delete")).one()
        assert delete_entry.arguments == {"ids": [secret], "count": 1}
    assert KEPT in found_by_search(hearth, "half marathon")


def test_several_memories_go_together_or_none_does(hearth: Hearth) -> None:
    first = hearth.memories.add(SECRET).id
    second = hearth.memories.add(KEPT).id

    with pytest.raises(NotFoundError):
        hearth.forgetting.delete_memories([first, 9999])
    assert hearth.memories.count() == 2

    assert hearth.forgetting.delete_memories([first, second, first]).report.deleted == 2
    assert hearth.memories.count() == 0


def test_the_erase_command_asks_first_and_erases_with_yes(capsys, hearth: Hearth) -> None:
    secret = hearth.memories.add(SECRET).id
    hearth.memories.add(KEPT)
    home = str(hearth.paths.home)
    hearth.close()

    refused = run(["--home", home, "memories", "forget", str(secret)])  # stdin is no terminal
    assert refused != 0
    assert "--yes" in capsys.readouterr().err

    assert run(["--home", home, "memories", "forget", str(secret), "--yes", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deleted"] == 1 and report["files"] == "verified"
    assert files_holding(Path(home), WORD) == []
    with Hearth.open(home) as reopened:
        assert reopened.memories.count() == 1


def test_backups_that_still_hold_a_deleted_memory_are_named_and_rewritten_when_asked(
        hearth: Hearth) -> None:
    secret, _kept = memory_with_traces(hearth)
    taken = hearth.backup().path
    hearth.backup()  # a second backup: both hold it

    deleted = hearth.forgetting.delete_memories([secret])

    held = deleted.report.backups
    assert taken in held and len(held) == 2
    assert "2 backups taken before still hold it." in wording.memories_deleted(deleted.report)
    assert {path.relative_to(hearth.paths.home).parts[0]
            for path in files_holding(hearth.paths.home, WORD)} == {"backups"}

    rewrites = deleted.remove_from_backups()

    assert [(rewrite.path, rewrite.ok) for rewrite in rewrites] == [(path, True) for path in held]
    assert wording.rewritten(rewrites, what="it") == ["Removed it from 2 backups."]
    assert files_holding(hearth.paths.home, WORD) == []
    with sqlite3.connect(f"file:{taken}?mode=ro", uri=True) as copy:
        assert copy.execute("SELECT content FROM memories").fetchall() == [(KEPT,)]
        assert copy.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert KEPT in found_by_search(hearth, "half marathon")


def test_the_command_removes_deleted_memories_from_backups_with_from_backups(
        capsys, hearth: Hearth) -> None:
    first = hearth.memories.add(SECRET).id
    second = hearth.memories.add(f"The {WORD} flowerpot is blue.").id
    hearth.memories.add(KEPT)
    hearth.backup()
    home = hearth.paths.home
    hearth.close()

    assert run(["--home", str(home), "memories", "forget", str(first), str(second), "--yes",
                "--from-backups", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deleted"] == 2 and len(report["backups_holding"]) == 1
    assert [item["ok"] for item in report["backups"]] == [True]
    assert files_holding(home, WORD) == []


def test_without_from_backups_the_command_names_the_backups_and_leaves_them(
        capsys, hearth: Hearth) -> None:
    secret = hearth.memories.add(SECRET).id
    backup = hearth.backup().path
    home = hearth.paths.home
    hearth.close()

    assert run(["--home", str(home), "memories", "forget", str(secret), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "1 backup taken before still holds it." in out and str(backup) in out
    assert "give --from-backups with the erase" in out
    assert [path.name for path in files_holding(home, WORD)] == [backup.name]


def test_a_delete_says_where_the_words_still_are_and_an_erase_removes_them(
        hearth: Hearth) -> None:
    """An imported chat keeps the message a turn memory was made of: the delete must not
    say "no copy is left" while chat search still finds the sentence."""
    with hearth.storage.write() as session:
        session.execute(text("INSERT INTO chat_sessions (id, title, source, started_at, "
                             "learn_from, incognito) VALUES ('c1', 'Keys', 'import', "
                             "'2026-02-01 09:00:00.000000', 1, 0)"))
    from core.storage.orm import Interaction

    with hearth.storage.write() as session:
        session.add(Interaction(session_id="c1", user_message=SECRET, speaker="user"))
    secret = hearth.memories.add(f"user: {SECRET}", origin={"speaker": "user"}).id

    report = hearth.forgetting.delete_memories([secret]).report
    assert report.files is FileCheck.KEPT
    assert [place.where for place in report.left] == ["your message in the chat “Keys”"]
    said = " ".join(wording.memories_deleted(report))
    assert "no copy is left" not in said
    assert "The same words are still in 1 place: your message in the chat “Keys”." in said

    again = hearth.memories.add(f"user: {SECRET}", origin={"speaker": "user"}).id
    erased = hearth.forgetting.erase_memories([again]).report
    assert erased.left == () and erased.files is FileCheck.VERIFIED
    assert erased.places == {"chat messages": 1}
    assert files_holding(hearth.paths.home, WORD) == []
