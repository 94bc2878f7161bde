"""A user's forget, end to end with the real ``hearth`` command: a value said in chat, set as
a fact, changed once, learned from and consolidated, then forgotten, must be gone from every
file of the data folder (its bytes, in any case), from an export, and, when asked, from the
backups taken before; everything else must still be there and findable.

The language model is the scripted Ollama server (``support.fake_ollama``): it echoes the
value in its replies and in the consolidation's scaffold, working memory and memories, so the
value lands everywhere a real model could put it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.fake_ollama import FakeOllama, FakeReply

MODEL = "llama3.2:3b"
FIRST = "ZQX-passport-93817446"
SECOND = "ZQX-passport-55501234"
KEY = "passport_number"
TRANSCRIPT = {
    "conversation_id": "garden-talk",
    "participants": ["Sam", "Ana"],
    "sessions": [{"session_id": "s1", "started_at": "2025-03-02T10:00:00Z", "turns": [
        {"turn_id": "t1", "speaker": "Sam", "text": "My sister Priya moved to Porto last spring."},
        {"turn_id": "t2", "speaker": "Ana", "text": "The tomatoes in the allotment need water."},
    ]}],
}


def forms(value: str) -> list[bytes]:
    """The value and its distinctive digits, in the cases a file could hold them."""
    digits = value.rsplit("-", 1)[-1]
    return [variant.encode() for variant in
            {value, value.lower(), value.upper(), value.title(), digits}]


def files_holding(folder: Path, values: list[str], *, skip: str | None = None) -> list[str]:
    """Every file under ``folder`` (bytes, recursively) that contains one of the values."""
    wanted = [form.lower() for value in values for form in forms(value)]
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or (skip and skip in path.relative_to(folder).parts):
            continue
        data = path.read_bytes().lower()
        found += [f"{path.relative_to(folder)}: {form.decode()}" for form in wanted if form in data]
    return found


def respond(body: dict[str, Any]) -> FakeReply:
    """Chat turns echo the passport numbers; consolidation puts them in its scaffold, working
    memory and memories; fact extraction finds nothing (the rules do the work)."""
    schema = json.dumps(body.get("format") or "")
    said = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
    value = SECOND if SECOND in said else FIRST
    if "updated_scaffold" in schema:
        return FakeReply(text=json.dumps({
            "updated_scaffold": {"documents": {"passport": value, "holder": "the user"}},
            "updated_working_memory": f"The user's passport number is {value}.",
            "facts_to_embed": [f"The user's passport number is {value}."]}))
    if body.get("format") is not None:
        return FakeReply(text=json.dumps({"facts": []}))
    return FakeReply(text=f"Noted: your passport number is {value}.")


@pytest.fixture
def llm_env() -> Iterator[dict[str, str]]:
    with FakeOllama(models=[MODEL], responder=respond) as server:
        yield {"HEARTH_LLM_PROVIDER": "ollama", "HEARTH_OLLAMA_HOST": server.url,
               "HEARTH_OLLAMA_MODEL": MODEL}


def search_texts(hearth_cli, home: Path, query: str) -> list[str]:
    run = hearth_cli(home, "search", query, "--json")
    run.assert_ok()
    return [result["text"] for result in json.loads(run.out)]


def test_a_forgotten_value_is_in_no_file_of_the_data_folder(
        hearth_cli, tmp_path, llm_env) -> None:
    home = tmp_path / "home"
    transcript = tmp_path / "transcript.json"
    transcript.write_text(json.dumps(TRANSCRIPT))
    hearth_cli(home, "import", "transcript", str(transcript)).assert_ok()
    asked = hearth_cli(home, "ask", f"Remember that my passport number is {FIRST}.",
                       "--json", env=llm_env)
    asked.assert_ok()
    session = json.loads(asked.out)["session_id"]
    facts = json.loads(hearth_cli(home, "facts", "list", "--json").out)
    assert {"key": KEY, "value": FIRST} in [{"key": f["key"], "value": f["value"]} for f in facts]
    hearth_cli(home, "facts", "set", KEY, SECOND, "--category", "personal").assert_ok()
    hearth_cli(home, "ask", f"It is {SECOND} now, the old one expired.", "--session", session,
               env=llm_env).assert_ok()
    hearth_cli(home, "dream", "--stage", "process", env=llm_env).assert_ok()  # backs up first
    hearth_cli(home, "backup").assert_ok()
    assert files_holding(home, [FIRST, SECOND], skip="backups")  # the test can see them
    memories_before = json.loads(hearth_cli(home, "stats", "--json").out)["counts"]

    forgot = hearth_cli(home, "facts", "forget", KEY)

    forgot.assert_ok()
    assert FIRST not in forgot.out + forgot.err and SECOND not in forgot.out + forgot.err
    assert "2 backups taken before still hold it" in forgot.out
    assert f"hearth facts forget {KEY} --from-backups" in forgot.out
    assert "no copy is left" in forgot.out
    assert files_holding(home, [FIRST, SECOND], skip="backups") == []
    exported = tmp_path / "export.json"
    hearth_cli(home, "export", str(exported)).assert_ok()
    assert files_holding(tmp_path, [FIRST, SECOND], skip="home") == []
    counts = json.loads(hearth_cli(home, "stats", "--json").out)["counts"]
    assert (counts["memories"], counts["interactions"]) == (
        memories_before["memories"], memories_before["interactions"])
    assert any("Priya moved to Porto" in text
               for text in search_texts(hearth_cli, home, "where did my sister move"))
    assert any("[forgotten]" in text for text in search_texts(hearth_cli, home, "passport"))
    assert files_holding(home / "backups", [FIRST, SECOND])  # until the user asks

    scrubbed = hearth_cli(home, "facts", "forget", KEY, "--from-backups")

    scrubbed.assert_ok()
    assert "Removed it from 2 backups." in scrubbed.out
    assert files_holding(home, [FIRST, SECOND]) == []
    for backup in (home / "backups").glob("hearth-*.db"):
        with sqlite3.connect(f"file:{backup}?mode=ro", uri=True) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert db.execute("SELECT count(*) FROM memories WHERE content LIKE "
                              "'%Priya moved to Porto%'").fetchone()[0] == 1


def test_one_run_forgets_and_rewrites_the_backups_and_scripts_get_json(
        hearth_cli, tmp_path) -> None:
    home = tmp_path / "home"
    hearth_cli(home, "facts", "set", KEY, FIRST).assert_ok()
    hearth_cli(home, "backup").assert_ok()

    run = hearth_cli(home, "facts", "forget", KEY, "--from-backups", "--json")

    run.assert_ok()
    report = json.loads(run.out)
    assert (report["key"], report["forgotten"], report["values"], report["files"]) == (
        KEY, True, 1, "verified")
    assert len(report["backups_holding"]) == 1
    assert [(b["ok"], b["path"]) for b in report["backups"]] == [
        (True, report["backups_holding"][0])]
    assert FIRST not in run.out and files_holding(home, [FIRST]) == []


def test_a_backup_that_cannot_be_rewritten_is_left_as_it_was_and_said(
        hearth_cli, tmp_path) -> None:
    home = tmp_path / "home"
    hearth_cli(home, "facts", "set", KEY, FIRST).assert_ok()
    hearth_cli(home, "backup").assert_ok()
    hearth_cli(home, "facts", "forget", KEY).assert_ok()
    (backup,) = (home / "backups").glob("hearth-*.db")
    before = backup.read_bytes()
    subprocess.run(["chattr", "+i", str(home / "backups")], check=True)  # even root cannot write
    try:
        run = hearth_cli(home, "facts", "forget", KEY, "--from-backups")
    finally:
        subprocess.run(["chattr", "-i", str(home / "backups")], check=True)

    run.assert_sentence()
    assert f"Could not rewrite {backup}" in run.out and "left as it was" in run.out
    assert "1 backup could not be rewritten and still holds it" in run.err
    assert backup.read_bytes() == before
