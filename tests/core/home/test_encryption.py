"""An encrypted data folder, end to end: the real CLI, SQLCipher, sqlite-vec, the embedder.

The proof the issue asks for: after ``hearth encrypt``, a distinctive fact's text is in no
file of the data folder (the database, its live write-ahead log, backups old and new,
logs, settings, index files: the whole folder is walked byte by byte), while the CLI still
recalls it and chats with it given the passphrase, and refuses in one sentence without.
With the ANN index built (its threshold lowered to a few hundred rows), the fact's vector,
as the index file stores it (int8), is in no file either.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import keyring
import numpy as np
import pytest
from keyrings.alt.file import PlaintextKeyring
from sqlalchemy import insert, select

from core.app import Hearth
from cli.main import run
from core.errors import (
    DatabaseError,
    InvalidInputError,
    PassphraseNeededError,
    WrongPassphraseError,
)
from core.home import encryption
from core.storage import folder_cipher
from core.storage.orm import Memory
from core.storage.port import IndexedKind
from core.storage.search_terms import term
from core.storage.sqlite import ann, ann_seal, derived, text_index
from support.fake_ollama import FakeOllama, FakeReply

SECRET = "Quillbramble"
"""A word in no model, fixture or schema: found in a file only if the fact's text is."""
FACT = f"My locker code at the {SECRET} swimming hall is 4417"
PASSPHRASE = "correct horse battery staple"
MODEL = "llama3.2:3b"


@pytest.fixture(autouse=True)
def keys_forgotten() -> Iterator[None]:
    """Each test starts as a new process would: no folder's key known."""
    encryption.forget_keys()
    yield
    encryption.forget_keys()


def hearth(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def files_holding(folder: Path, text: str) -> list[Path]:
    """Every file under ``folder`` whose raw bytes hold ``text`` (UTF-8 or UTF-16)."""
    return files_holding_bytes(folder, text.encode("utf-8"), text.encode("utf-16-le"))


def files_holding_bytes(folder: Path, *needles: bytes) -> list[Path]:
    """Every file under ``folder`` whose raw bytes hold one of ``needles``."""
    return [path for path in sorted(folder.rglob("*")) if path.is_file()
            and any(needle in path.read_bytes() for needle in needles)]


def remembered_home(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    """A plain folder with the fact as a turn memory, and a backup of it."""
    home = tmp_path / "h"
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps({
        "conversation_id": "locker", "participants": ["user", "assistant"],
        "sessions": [{"session_id": "s1", "started_at": "2026-02-01T09:00:00+00:00",
                      "turns": [{"turn_id": "t1", "speaker": "user", "text": FACT}]}]}))
    assert hearth(capsys, home, "import", "transcript", str(transcript))[0] == 0
    transcript.unlink()
    assert hearth(capsys, home, "backup")[0] == 0
    assert files_holding(home, SECRET)  # the test could fail: the text is there in plain
    return home


def test_after_encrypt_no_file_holds_the_fact_and_the_cli_still_recalls_it(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    code, out, _ = hearth(capsys, home, "encrypt")
    assert code == 0, out
    assert "2 database files converted" in out
    assert json.loads((home / "encryption.json").read_text())["key"] == "passphrase"
    assert files_holding(home, SECRET) == []

    # a new memory and a new backup, while a process holds the database open (its WAL live)
    encryption.forget_keys()
    with Hearth.open(home) as opened:
        opened.memories.add(f"The {SECRET} hall closes at nine on Sundays")
        assert (home / "hearth.db-wal").stat().st_size > 0
        opened.backup()
        assert files_holding(home, SECRET) == []
    assert len(list((home / "backups").glob("*.db"))) == 2
    assert files_holding(home, SECRET) == []

    encryption.forget_keys()
    code, out, _ = hearth(capsys, home, "search", "locker code swimming hall", "--json")
    assert code == 0
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]


def test_without_or_with_a_wrong_passphrase_the_cli_says_so_and_changes_nothing(
        capfd, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    capsys = capfd  # the file descriptors: SQLCipher's C library would write to fd 2
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    before = {path: path.read_bytes() for path in home.rglob("*") if path.is_file()}
    encryption.forget_keys()

    monkeypatch.delenv(encryption.PASSPHRASE_ENV)
    code, _, err = hearth(capsys, home, "search", "locker")
    assert code == 1
    assert f"Hearth needs a passphrase for the data folder {home}" in err

    monkeypatch.setenv(encryption.PASSPHRASE_ENV, "not the passphrase")
    for command in (["search", "locker"], ["decrypt"], ["backup"]):
        code, _, err = hearth(capsys, home, *command)
        assert code == 1
        assert f"That passphrase does not open the encrypted data folder {home}." in err
        assert "ERROR CORE" not in err  # SQLCipher's own log stays quiet
    after = {path: path.read_bytes() for path in home.rglob("*") if path.is_file()}
    assert after == before


def test_chat_recalls_the_encrypted_fact_through_ollama(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    encryption.forget_keys()

    def respond(body: dict) -> FakeReply:
        if body.get("format") is not None:
            return FakeReply(text=json.dumps({"facts": []}))
        return FakeReply(text="It is 4417.")

    with FakeOllama(models=[MODEL], responder=respond) as server:
        server.configure(monkeypatch, MODEL)
        code, out, _ = hearth(capsys, home, "ask", "What is my swimming hall locker code?")
        prompts = [message["content"] for body in server.chat_requests()
                   for message in body["messages"]]
    assert code == 0
    assert "It is 4417." in out
    assert any(SECRET in prompt for prompt in prompts)
    assert files_holding(home, SECRET) == []


def test_a_model_answer_that_fails_its_schema_leaves_no_copy_in_the_log(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Learning after a turn asks for structured output; a small model's unusable answer
    quotes the user's words. The log file is not encrypted, so its record of the failure
    says what kind of failure it was, never what the model wrote."""
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    encryption.forget_keys()

    def respond(body: dict) -> FakeReply:
        if body.get("format") is not None:  # neither JSON nor the schema: quotes the user
            return FakeReply(text=f"Noted! Your locker at {SECRET} is 4417. "
                                  f'{{"facts": [{{"key": "{SECRET}"}}]}}')
        return FakeReply(text="Noted.")

    with FakeOllama(models=[MODEL], responder=respond) as server:
        server.configure(monkeypatch, MODEL)
        code, _, _ = hearth(capsys, home, "ask", f"Remember: the {SECRET} locker is 4417.")
        structured = [body for body in server.chat_requests() if body.get("format")]
    assert code == 0
    assert structured, "the turn's learning asked for structured output"
    log_file = home / "logs" / "hearth.log"
    assert "was not valid" in log_file.read_text(encoding="utf-8")
    assert files_holding(home, SECRET) == []


def test_decrypt_gives_back_plain_files_that_open_without_a_passphrase(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    encryption.forget_keys()
    code, out, _ = hearth(capsys, home, "decrypt")
    assert code == 0, out
    assert not (home / "encryption.json").exists()
    assert not list(home.glob("hearth.db.before-encrypt*"))
    assert home / "hearth.db" in files_holding(home, SECRET)
    monkeypatch.delenv(encryption.PASSPHRASE_ENV)
    code, out, _ = hearth(capsys, home, "search", "locker code", "--json")
    assert code == 0
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]


def test_an_encrypted_folder_refuses_a_plain_export_unless_asked(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    export = tmp_path / "export.json"
    code, _, err = hearth(capsys, home, "export", str(export))
    assert code == 1
    assert "This data folder is encrypted" in err
    assert not export.exists()
    assert hearth(capsys, home, "export", str(export), "--plain")[0] == 0
    assert SECRET in export.read_text(encoding="utf-8")


def test_a_restored_encrypted_backup_opens_with_the_same_key(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    backup = sorted((home / "backups").glob("*.db"))[0]
    code, out, err = hearth(capsys, home, "restore", str(backup))
    assert code == 0, err
    assert files_holding(home, SECRET) == []
    code, out, _ = hearth(capsys, home, "search", "locker code", "--json")
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]


def test_unlock_checks_the_key_before_keeping_it(capsys, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    encryption.forget_keys()
    monkeypatch.delenv(encryption.PASSPHRASE_ENV)
    assert encryption.is_locked(home)
    with pytest.raises(PassphraseNeededError):
        Hearth.open(home)
    with pytest.raises(WrongPassphraseError):
        encryption.unlock(home, "wrong")
    assert encryption.is_locked(home)
    encryption.unlock(home, PASSPHRASE)
    assert not encryption.is_locked(home)


@pytest.fixture
def file_keyring(tmp_path: Path) -> Iterator[PlaintextKeyring]:
    """keyrings.alt's file backend in the test's folder: never the desktop's keyring."""
    previous = keyring.get_keyring()
    backend = PlaintextKeyring()
    backend.file_path = str(tmp_path / "keyring.cfg")
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_a_keyring_key_opens_the_folder_without_asking(
        capsys, tmp_path: Path, file_keyring: PlaintextKeyring) -> None:
    home = remembered_home(capsys, tmp_path)
    code, out, _ = hearth(capsys, home, "encrypt", "--keyring")
    assert code == 0, out
    assert json.loads((home / "encryption.json").read_text())["key"] == "keyring"
    assert files_holding(home, SECRET) == []
    assert keyring.get_password("Hearth", str(home.resolve()))
    encryption.forget_keys()
    code, out, _ = hearth(capsys, home, "search", "locker code", "--json")
    assert code == 0
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]
    encryption.forget_keys()
    assert hearth(capsys, home, "decrypt")[0] == 0
    assert keyring.get_password("Hearth", str(home.resolve())) is None


def test_an_erase_rewrites_encrypted_backups_too(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The forget path reads and rewrites backups (``SqliteCopies``): in an encrypted
    folder it does so with the folder's key, and what it rewrites stays encrypted."""
    home = remembered_home(capsys, tmp_path)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    code, out, _ = hearth(capsys, home, "search", "locker code", "--json")
    memory = next(result["id"] for result in json.loads(out)
                  if result["text"] == f"user: {FACT}")
    code, out, err = hearth(capsys, home, "memories", "forget", str(memory), "--yes",
                            "--from-backups", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert len(report["backups_holding"]) == 1  # found by reading the encrypted backup
    assert files_holding(home, SECRET) == []
    assert hearth(capsys, home, "decrypt")[0] == 0
    for database in [home / "hearth.db", *(home / "backups").glob("*.db")]:
        connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True)
        try:  # the memory is gone, and its words from the chat it came from too
            assert connection.execute("SELECT count(*) FROM memories WHERE id = ?",
                                      (memory,)).fetchone() == (0,)
            assert connection.execute("SELECT count(*) FROM interactions WHERE "
                                      "user_message LIKE ?", (f"%{SECRET}%",)).fetchone() == (0,)
        finally:
            connection.close()


def test_an_encryption_cut_short_is_said_and_finished_by_running_it_again(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash after the marker was written and before any file was converted (the
    worst moment: the folder says encrypted, every file is plain)."""
    home = remembered_home(capsys, tmp_path)
    encryption.write_marker(home, encryption.Marker.new("passphrase"))
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    code, _, err = hearth(capsys, home, "search", "locker")
    assert code == 1
    assert "an encryption or decryption was cut short" in err
    code, out, _ = hearth(capsys, home, "encrypt")
    assert code == 0
    assert "2 database files converted" in out
    assert files_holding(home, SECRET) == []
    code, out, _ = hearth(capsys, home, "search", "locker code", "--json")
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]


def test_without_a_usable_keyring_encrypt_keyring_says_so_and_changes_nothing(
        capsys, tmp_path: Path) -> None:
    from keyring.backends.fail import Keyring as NoKeyring

    home = remembered_home(capsys, tmp_path)
    before = {path: path.read_bytes() for path in home.rglob("*") if path.is_file()}
    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())  # keyring's own backend for a system without one
    try:
        code, _, err = hearth(capsys, home, "encrypt", "--keyring")
    finally:
        keyring.set_keyring(previous)
    assert code == 1
    assert "The system keyring cannot keep a key" in err
    after = {path: path.read_bytes() for path in home.rglob("*") if path.is_file()}
    assert after == before


def test_a_plain_backup_restored_into_an_encrypted_folder_is_encrypted_on_the_way(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = remembered_home(capsys, tmp_path)
    outside = tmp_path / "kept-elsewhere.db"
    outside.write_bytes(next((home / "backups").glob("*.db")).read_bytes())
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    code, _, err = hearth(capsys, home, "restore", str(outside))
    assert code == 0, err
    assert files_holding(home, SECRET) == []
    code, out, _ = hearth(capsys, home, "search", "locker code", "--json")
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]


# --- the ANN index files ----------------------------------------------------------------------

INDEXED = 300
"""Memories beside the fact, above the lowered ``ANN_MIN_ROWS``: the index is built."""


def index_file(home: Path) -> Path:
    folder = ann.index_folder(home / "hearth.db")
    return folder / json.loads((folder / "memories_vec.json").read_text())["file"]


def memories_index_state(home: Path) -> derived.IndexState:
    with Hearth.open(home) as opened:
        return next(state for state in opened.storage.search.vector_index_states()
                    if state.table == "memories_vec")


def indexed_home(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> tuple[Path, bytes]:
    """A plain folder whose memories' ANN index is built, and the fact's vector as the
    index file holds it (int8 bytes, found in the plain file: the test could fail)."""
    from usearch.index import Index

    monkeypatch.setattr(ann, "ANN_MIN_ROWS", 100)
    home = remembered_home(capsys, tmp_path)
    with Hearth.open(home) as opened:
        dimensions = opened.embedder.dimensions
        vectors = np.random.default_rng(3).standard_normal((INDEXED, dimensions))
        vectors = (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)
        with opened.storage.write() as session:
            ids = session.scalars(insert(Memory).returning(
                Memory.id, sort_by_parameter_order=True),
                [{"content": f"memory {n}"} for n in range(INDEXED)]).all()
            opened.storage.search.store_embeddings(session, IndexedKind.MEMORY, ids, vectors,
                                                   opened.embedder.model_id)
        with opened.storage.read() as session:
            fact = session.scalar(select(Memory.id).where(Memory.content == f"user: {FACT}"))
        assert fact is not None
        assert opened.storage.search.refresh_search_indexes()
    graph = Index.restore(str(index_file(home)))
    vector = np.asarray(graph.get(fact, dtype="i8"), dtype=np.int8).tobytes()
    assert len(vector) == dimensions and len(set(vector)) > 10  # not a constant
    assert files_holding_bytes(home, vector) == [index_file(home)]
    assert memories_index_state(home).state == "current"
    return home, vector


def test_after_encrypt_no_index_file_holds_a_vector_in_the_clear(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, vector = indexed_home(capsys, tmp_path, monkeypatch)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    code, out, _ = hearth(capsys, home, "encrypt")
    assert code == 0, out

    assert files_holding(home, SECRET) == []
    assert files_holding_bytes(home, vector) == []
    sealed = index_file(home).read_bytes()
    assert ann_seal.is_sealed(sealed)
    with pytest.raises(ann_seal.SealError):  # it opens with the folder's key only
        ann_seal.unseal(sealed, ann_seal.subkey("00" * 32), index_file(home).name)
    assert [path.name for path in index_file(home).parent.glob("*.usearch")] == [
        index_file(home).name]  # the plain file is gone, not left beside it

    encryption.forget_keys()
    assert memories_index_state(home).state == "current"  # converted: no rebuild needed
    code, out, _ = hearth(capsys, home, "search", "locker code swimming hall", "--json")
    assert code == 0
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]

    encryption.forget_keys()
    code, out, _ = hearth(capsys, home, "decrypt")
    assert code == 0, out
    assert not ann_seal.is_sealed(index_file(home).read_bytes())
    assert files_holding_bytes(home, vector) == [index_file(home)]
    assert memories_index_state(home).state == "current"


def test_an_encrypted_folder_keeps_no_full_text_index_and_still_finds_words(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The full-text index holds every term in the clear: encrypting deletes it, and FTS5
    (inside the encrypted database) answers from then on, at every size."""
    monkeypatch.setattr(text_index, "TEXT_MIN_ROWS", 1)
    home = remembered_home(capsys, tmp_path)
    folder = text_index.index_folder(home / "hearth.db")
    with Hearth.open(home) as opened:
        assert opened.storage.search.refresh_search_indexes()
        assert {state.state for state in opened.storage.search.text_index_states()
                if state.table == "memories_fts"} == {"current"}
    (built,) = folder.glob("memories_fts-*")
    import tantivy  # the index answers for the secret's term: the test could fail

    assert tantivy.Index.open(str(built)).searcher().doc_freq("c0", term(SECRET)) == 1

    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    assert not folder.exists()
    assert files_holding(home, SECRET) == []
    with Hearth.open(home) as opened:
        assert opened.storage.search.refresh_search_indexes()
        assert {state.state for state in opened.storage.search.text_index_states()} == {"off"}
    assert not folder.exists()
    code, out, _ = hearth(capsys, home, "search", SECRET, "--json")
    assert code == 0
    assert f"user: {FACT}" in [result["text"] for result in json.loads(out)]


def test_a_changed_or_wrongly_keyed_index_file_is_rebuilt_not_trusted(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    home, vector = indexed_home(capsys, tmp_path, monkeypatch)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    file = index_file(home)
    changed = bytearray(file.read_bytes())
    changed[len(changed) // 2] ^= 0x01
    file.write_bytes(bytes(changed))

    state = memories_index_state(home)
    assert state.state == "stale"
    assert "does not open with the folder's key" in state.reason
    assert "out of date" in caplog.text
    with Hearth.open(home) as opened:
        assert opened.storage.search.refresh_search_indexes()
    assert memories_index_state(home).state == "current"
    assert ann_seal.is_sealed(index_file(home).read_bytes())
    assert files_holding_bytes(home, vector) == []

    # a sealed file with a header renamed to another table's name does not open either
    other = file.parent / "memories_vec-000000000000.usearch"
    index_file(home).rename(other)
    header = file.parent / "memories_vec.json"
    header.write_text(json.dumps({**json.loads(header.read_text()), "file": other.name}))
    assert memories_index_state(home).state == "stale"


def test_an_encryption_cut_short_before_the_index_leaves_it_unused_then_finishes(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database files were converted, the index files not yet (a full disk): the
    plain index is never read in the encrypted folder, and running encrypt again seals
    it."""
    home, vector = indexed_home(capsys, tmp_path, monkeypatch)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)

    def disk_full(*_args: object) -> int:
        raise DatabaseError("The disk is full.", "Free some space.")

    with monkeypatch.context() as patch:
        patch.setattr(folder_cipher, "convert_derived_index_files", disk_full)
        code, _, err = hearth(capsys, home, "encrypt")
    assert code == 1
    assert "The disk is full." in err
    assert files_holding_bytes(home, vector) == [index_file(home)]

    encryption.forget_keys()
    state = memories_index_state(home)
    assert state.state == "stale"
    assert "is not encrypted, but its folder is" in state.reason

    encryption.forget_keys()
    assert hearth(capsys, home, "encrypt")[0] == 0
    assert files_holding_bytes(home, vector) == []
    assert files_holding(home, SECRET) == []
    encryption.forget_keys()
    assert memories_index_state(home).state == "current"


def test_a_decryption_cut_short_before_the_index_is_finished_by_running_it_again(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Decrypting converted the database files, then stopped before the index files: the
    folder says so, running decrypt again opens the sealed file, and a sealed file left in
    a plain folder is never given to usearch (it is stale, rebuilt)."""
    home, vector = indexed_home(capsys, tmp_path, monkeypatch)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert hearth(capsys, home, "encrypt")[0] == 0
    encryption.forget_keys()

    def disk_full(*_args: object) -> int:
        raise DatabaseError("The disk is full.", "Free some space.")

    with monkeypatch.context() as patch:
        patch.setattr(folder_cipher, "convert_derived_index_files", disk_full)
        code, _, err = hearth(capsys, home, "decrypt")
    assert code == 1 and "The disk is full." in err
    assert ann_seal.is_sealed(index_file(home).read_bytes())
    code, _, err = hearth(capsys, home, "search", "locker")
    assert code == 1 and "cut short" in err

    sealed = index_file(home).read_bytes()
    encryption.forget_keys()
    assert hearth(capsys, home, "decrypt")[0] == 0
    assert files_holding_bytes(home, vector) == [index_file(home)]
    assert memories_index_state(home).state == "current"

    # a sealed file where the folder is plain (put back by hand): stale, never parsed
    index_file(home).write_bytes(sealed)
    header = index_file(home).parent / "memories_vec.json"
    header.write_text(json.dumps({**json.loads(header.read_text()), "size": len(sealed)}))
    state = memories_index_state(home)
    assert state.state == "stale" and "is encrypted, but its folder is not" in state.reason


def tampered_marker(home: Path, **changes: object) -> Path:
    """A passphrase marker as Hearth writes it, with ``changes`` to its ``kdf`` (None:
    the field removed)."""
    home.mkdir(parents=True, exist_ok=True)
    data = json.loads(encryption.Marker.new("passphrase").to_json())
    for field, value in changes.items():
        if value is None:
            del data["kdf"][field]
        else:
            data["kdf"][field] = value
    (home / "encryption.json").write_text(json.dumps(data))
    return home / "encryption.json"


@pytest.mark.parametrize(("changes", "problem"), [
    ({"n": 2**40}, '"kdf.n" is 1099511627776, not a power of two from 2 to 2^20'),
    ({"n": 2**15 + 1}, '"kdf.n" is 32769, not a power of two'),
    ({"r": 10_000}, '"kdf.r" is 10000, not from 1 to 32'),
    ({"p": 0}, '"kdf.p" is 0, not from 1 to 16'),
    ({"n": 2**20, "r": 32}, "would take 4096 MiB of memory, more than the 256 MiB"),
    ({"n": 2**18, "r": 8, "p": 16}, "more than 1024 MiB of work"),
    ({"r": None}, '"kdf.r" is missing'),
    ({"n": "32768"}, '"kdf.n" is not a whole number'),
    ({"p": True}, '"kdf.p" is not a whole number'),
    ({"salt": None}, '"kdf.salt" is not 8 to 64 bytes written in hexadecimal'),
    ({"salt": "zz" * 16}, '"kdf.salt" is not 8 to 64 bytes'),
])
def test_a_tampered_or_incomplete_marker_is_refused_before_any_key_is_derived(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, changes: dict[str, object],
        problem: str) -> None:
    """``encryption.json`` is a file: a changed one must not make Hearth allocate
    gigabytes for scrypt, nor fail with a bare KeyError, but say what is wrong where."""
    marker = tampered_marker(tmp_path / "h", **changes)
    derived: list[object] = []
    monkeypatch.setattr(encryption.hashlib, "scrypt", lambda *args, **kw: derived.append(kw))

    with pytest.raises(InvalidInputError) as refused:
        encryption.unlock(tmp_path / "h", PASSPHRASE)

    assert refused.value.message.startswith(f"{marker} is not a valid encryption marker: ")
    assert problem in refused.value.message
    assert "Put back the encryption.json" in refused.value.hint
    assert derived == []


def test_the_command_says_what_is_wrong_with_the_marker(
        capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tampered_marker(tmp_path / "h", n=2**40)
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    code, _, err = hearth(capsys, tmp_path / "h", "stats")
    assert code == 1
    assert f"{marker} is not a valid encryption marker" in " ".join(err.split())
    tampered_marker(tmp_path / "h", r=None)
    code, _, err = hearth(capsys, tmp_path / "h", "stats")
    assert code == 1 and '"kdf.r" is missing' in err and "KeyError" not in err


def test_the_cost_hearth_writes_is_within_the_bounds() -> None:
    assert encryption.check_cost(encryption.SCRYPT_N, encryption.SCRYPT_R,
                                 encryption.SCRYPT_P) is None
    with pytest.raises(InvalidInputError, match="would take 4096 MiB"):
        encryption.derive_key("x", encryption.Marker("passphrase", "00" * 16, 2**20, 32, 1))
