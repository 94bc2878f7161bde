"""The ``hearth`` command end to end: real database, real model, JSON out, errors as sentences."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import run
from core.knowledge.facts import FactService

TRANSCRIPT = {
    "conversation_id": "cli-demo",
    "participants": ["user", "assistant"],
    "sessions": [{
        "session_id": "s1",
        "started_at": "2026-02-01T09:00:00+00:00",
        "turns": [
            {"turn_id": "t1", "speaker": "user",
             "text": "My sister Ines just moved to Porto for her new job."},
            {"turn_id": "t2", "speaker": "assistant",
             "text": "That's exciting! Porto is lovely in spring."},
            {"turn_id": "t3", "speaker": "user",
             "text": "I need to renew my passport before the trip in May."},
        ],
    }],
}


def hearth(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_status_reports_an_empty_home(capsys, tmp_path: Path) -> None:
    code, out, _ = hearth(capsys, tmp_path / "h", "status", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["counts"]["memories"] == 0
    assert report["embedding_model_present"] is True


def test_facts_set_list_history_forget(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    assert hearth(capsys, home, "facts", "set", "home city", "Lisbon",
                  "--category", "location")[0] == 0
    assert hearth(capsys, home, "facts", "set", "home_city", "Porto",
                  "--category", "location")[0] == 0
    code, out, _ = hearth(capsys, home, "facts", "list", "--json")
    assert code == 0
    assert [(f["key"], f["value"]) for f in json.loads(out)] == [("home_city", "Porto")]
    code, out, _ = hearth(capsys, home, "facts", "history", "home_city", "--json")
    assert [h["value"] for h in json.loads(out)] == ["Lisbon"]
    assert hearth(capsys, home, "facts", "forget", "home_city")[0] == 0
    code, _, err = hearth(capsys, home, "facts", "forget", "home_city")
    assert code == 1
    assert "There is no fact" in err


def test_compact_rebuilds_the_file_and_says_so(capsys, tmp_path: Path,
                                              sqlite_template) -> None:
    home = sqlite_template.copy_home(tmp_path / "h")
    code, out, _ = hearth(capsys, home, "compact")
    assert code == 0 and "rebuilt without free space (VACUUM)" in out
    assert json.loads(hearth(capsys, home, "compact", "--json")[1]) == {"files": "compacted"}


def test_a_forget_with_compact_rewrites_a_servers_tables(capsys, tmp_path: Path,
                                                         postgres_url: str,
                                                         monkeypatch) -> None:
    monkeypatch.setenv("HEARTH_DATABASE_URL", postgres_url)
    home = tmp_path / "h"
    assert hearth(capsys, home, "facts", "set", "pin", "4471-cobalt")[0] == 0
    code, out, _ = hearth(capsys, home, "facts", "forget", "pin", "--compact", "--json")
    assert code == 0
    assert json.loads(out)["files"] == "rewritten on a server, no checkpoint"
    code, out, _ = hearth(capsys, home, "compact")
    assert code == 0 and "VACUUM FULL" in out and "did not let Hearth ask" in out


def test_import_search_and_batch_search_carry_turn_ids(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps(TRANSCRIPT))
    code, out, _ = hearth(capsys, home, "import", "transcript", str(transcript), "--json")
    assert code == 0
    code, out, _ = hearth(capsys, home, "search", "where does my sister live now",
                          "--k", "2", "--json")
    assert code == 0
    results = json.loads(out)
    assert results[0]["provenance"]["turn_id"] == "t1"
    assert {"text", "vector"} & set(results[0]["signals"])

    queries = tmp_path / "q.txt"
    queries.write_text("passport renewal\n\nsister Porto\n")
    code, out, _ = hearth(capsys, home, "search", "--batch", str(queries), "--k", "1")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0
    assert [line["query"] for line in lines] == ["passport renewal", "sister Porto"]
    assert lines[0]["results"][0]["provenance"]["turn_id"] == "t3"


DATA = Path(__file__).parents[1] / "data"
IMPORTED = {
    "chatgpt": (DATA / "chat_exports" / "chatgpt-conversations.json",
                "Read 3 ChatGPT conversations with 13 messages to keep: 13 new memories (9 "
                "other messages left out: tools, system, other branches)."),
    "claude": (DATA / "chat_exports" / "claude-conversations.json",
               "Read 3 Claude conversations with 8 messages to keep: 11 new memories (2 other "
               "messages left out: tools, system, other branches)."),
    "notes": (DATA / "notes_vault", "Imported 3 notes: 3 new memories."),
}


@pytest.mark.parametrize("kind", sorted(IMPORTED))
def test_an_import_says_what_the_window_says(capsys, tmp_path: Path, sqlite_template,
                                             embedder, kind: str) -> None:
    """Each ``hearth import`` ends with the window's sentence (it printed the importer's
    Python object, ``ChatImportReport(service='chatgpt', ...)``)."""
    from core.app import Hearth
    from core.operations.imports import ImportSource, describe, import_history

    path, sentence = IMPORTED[kind]
    code, out, _ = hearth(capsys, sqlite_template.copy_home(tmp_path / "cli"), "import", kind,
                          str(path))
    assert code == 0
    assert out == sentence + "\n"
    with Hearth.open(sqlite_template.copy_home(tmp_path / "window"),
                     embedder=embedder) as opened:  # the same import, as the window runs it
        assert describe(import_history(opened, ImportSource(kind), path)) == sentence


def test_a_transcript_import_says_it_in_words_and_what_it_left_out(capsys,
                                                                    tmp_path: Path) -> None:
    home, transcript = tmp_path / "h", tmp_path / "t.json"
    transcript.write_text(json.dumps(TRANSCRIPT))
    code, out, _ = hearth(capsys, home, "import", "transcript", str(transcript))
    assert (code, out) == (0, "Read 1 transcript session with 3 messages to keep: 3 new "
                              "memories.\n")
    assert hearth(capsys, home, "memories", "forget", "1", "--yes")[0] == 0
    code, out, _ = hearth(capsys, home, "import", "transcript", str(transcript))
    assert (code, out) == (0, "Read 1 transcript session with 2 messages to keep: 0 new "
                              "memories. 1 message left out because you deleted it before "
                              "(the same command with --include-removed brings them back).\n")


def test_fts_syntax_in_a_query_is_just_words(capsys, tmp_path: Path) -> None:
    code, out, err = hearth(capsys, tmp_path / "h", "search", 'NEAR("unbalanced AND -(x*',
                            "--json")
    assert code == 0, err
    assert json.loads(out) == []


def test_export_then_import_into_a_new_home(capsys, tmp_path: Path) -> None:
    source, target = tmp_path / "a", tmp_path / "b"
    hearth(capsys, source, "facts", "set", "partner_name", "Ana", "--category", "personal")
    dump = tmp_path / "dump.json"
    assert hearth(capsys, source, "export", str(dump))[0] == 0
    assert hearth(capsys, target, "import", "export", str(dump), "--json")[0] == 0
    code, out, _ = hearth(capsys, target, "facts", "list", "--json")
    assert [f["value"] for f in json.loads(out)] == ["Ana"]
    code, _, err = hearth(capsys, target, "import", "export", str(dump))
    assert code == 1
    assert "empty" in err


def test_backup_and_list(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    code, out, _ = hearth(capsys, home, "backup", "--json")
    assert code == 0
    made = json.loads(out)["path"]
    code, out, _ = hearth(capsys, home, "backup", "--list", "--json")
    assert [b["path"] for b in json.loads(out)] == [made]


def test_a_damaged_database_is_a_sentence_not_a_traceback(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "hearth.db").write_text("definitely not sqlite")
    code, _, err = hearth(capsys, home, "stats")
    assert code == 1
    assert "not a SQLite database" in err
    assert "restore" in err


def test_a_missing_model_says_how_to_fix_it(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HEARTH_EMBEDDING_MODEL_DIR", str(tmp_path / "no-model"))
    code, _, err = hearth(capsys, tmp_path / "h", "search", "anything")
    assert code == 1
    assert "make models" in err
    code, out, _ = hearth(capsys, tmp_path / "h", "doctor")
    assert code == 1
    assert "FAIL embedding model" in out
    assert "ok   database" in out


def test_usage_errors_exit_non_zero(capsys, tmp_path: Path) -> None:
    code, _, err = hearth(capsys, tmp_path / "h", "search")
    assert code == 1
    assert "QUERY" in err
    code, _, _ = hearth(capsys, tmp_path / "h", "no-such-command")
    assert code == 2


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).with_name("hearth")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0
    assert "search" in result.stdout


def test_a_warning_is_one_line_on_the_terminal_and_whole_in_the_log(
        capsys, tmp_path, monkeypatch) -> None:
    """``log.exception`` in core used to reach the terminal through logging's last-resort
    handler, traceback and all; the traceback belongs in the data folder's log, with the
    exception's type but not its message, which may quote the user (``core.log_privacy``).
    After the command, the process keeps neither (a later warning is no business of that
    run)."""
    home = tmp_path / "h"
    listed = FactService.list

    def list_with_a_warning(self, *args, **kwargs):
        cause = "the cause of it"  # a value, as the user's words would be: not in the code
        try:
            raise ValueError(cause)
        except ValueError:
            logging.getLogger("core.somewhere").exception("Something could not be done")
        return listed(self, *args, **kwargs)

    monkeypatch.setattr(FactService, "list", list_with_a_warning)
    assert run(["--home", str(home), "facts", "list"]) == 0

    err = capsys.readouterr().err
    assert "Something could not be done" in err
    assert "Traceback" not in err and "the cause of it" not in err
    logged = (home / "logs" / "hearth.log").read_text(encoding="utf-8")
    assert "Something could not be done" in logged
    assert "Traceback" in logged and "ValueError (message withheld" in logged
    assert "the cause of it" not in logged

    logging.getLogger("core.somewhere").warning("Said after the command")
    assert "Said after the command" not in capsys.readouterr().err
    assert "Said after the command" not in (home / "logs" / "hearth.log").read_text()
