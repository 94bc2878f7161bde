"""Transcript files that cannot be imported: one sentence that says where, and nothing
written.

Each case runs ``hearth import transcript FILE`` as a user would, on a data folder that
already holds facts and a conversation, and checks the exit code, the sentence, and that
the folder holds exactly what it held before. (Exports: ``test_bad_export_files.py``.)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from edited_json import changed

from core.errors import InvalidInputError
from support.folder_contents import contents

GOOD_TRANSCRIPT: dict[str, Any] = {
    "conversation_id": "maya-sam",
    "participants": ["Maya", "Sam"],
    "sessions": [
        {"session_id": "s1", "started_at": "2024-03-02T18:30:00+01:00",
         "turns": [{"turn_id": "t1", "speaker": "Maya", "text": "I moved to Porto."},
                   {"turn_id": "t2", "speaker": "Sam", "text": "How is the flat?"}]},
        {"session_id": "s2", "started_at": "2024-03-09T09:00:00Z",
         "turns": [{"turn_id": "t3", "speaker": "Maya", "text": "Near the river."},
                   {"turn_id": "t4", "speaker": "Sam", "text": "Lovely."}]},
    ],
}


def with_extra(value_json: str) -> bytes:
    """The good transcript with an (ignored) extra field whose JSON is ``value_json``."""
    return json.dumps(GOOD_TRANSCRIPT)[:-1].encode() + f', "extra": {value_json}}}'.encode()


def session(index: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda d: d["sessions"][index]


def turn(s: int, t: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda d: d["sessions"][s]["turns"][t]


TRANSCRIPT_CASES: list[tuple[str, bytes, str]] = [
    ("before year 1 in UTC",
     changed(GOOD_TRANSCRIPT, lambda d: session(0)(d).update(
         started_at="0001-01-01T00:00:00+14:00")),
     "sessions[0].started_at is out of range (0001-01-01T00:00:00+14:00 is before year 1"),
    ("after year 9999 in UTC",
     changed(GOOD_TRANSCRIPT, lambda d: turn(1, 0)(d).update(
         timestamp="9999-12-31T23:59:59-14:00")),
     "sessions[1].turns[0].timestamp is out of range"),
    ("untimed turns pushed past year 9999",
     changed(GOOD_TRANSCRIPT, lambda d: session(1)(d).update(started_at="9999-12-31T23:59:59Z")),
     "sessions[1].turns[1] has no timestamp, and started_at plus 1 s falls after year 9999"),
    ("a date that does not exist",
     changed(GOOD_TRANSCRIPT, lambda d: session(0)(d).update(started_at="2024-13-45T25:61:00Z")),
     "sessions[0].started_at must be an ISO-8601 date-time string"),
    ("a number where a string belongs",
     changed(GOOD_TRANSCRIPT, lambda d: turn(0, 1)(d).update(speaker=7)),
     "sessions[0].turns[1].speaker must be a string"),
    ("a list where an object belongs",
     changed(GOOD_TRANSCRIPT, lambda d: session(1)(d)["turns"].__setitem__(0, ["Maya", "hi"])),
     "sessions[1].turns[0] must be an object"),
    ("null",
     changed(GOOD_TRANSCRIPT, lambda d: session(0)(d).update(started_at=None)),
     "sessions[0].started_at must be an ISO-8601 date-time string"),
    ("a missing field",
     changed(GOOD_TRANSCRIPT, lambda d: turn(1, 1)(d).pop("text")),
     "sessions[1].turns[1].text is missing"),
    ("an empty file", b"", "is not valid JSON (Expecting value at line 1, column 1)"),
    ("not JSON", b"Maya: I moved to Porto.\n", "is not valid JSON"),
    ("an array at the top", json.dumps([GOOD_TRANSCRIPT]).encode(),
     "the transcript must be an object"),
    ("100,000 nested brackets", b"[" * 100_000 + b"]" * 100_000,
     "nests lists or objects too deeply to be read"),
    ("nesting past Hearth's limit", with_extra("[" * 101 + "]" * 101),
     "nests lists or objects more than 100 levels deep"),
    ("a 5,000-digit number", with_extra("9" * 5000), "holds a number longer than 4,300 digits"),
    ("NaN", with_extra("NaN"), "NaN is not a JSON value"),
    ("Latin-1 instead of UTF-8", json.dumps(GOOD_TRANSCRIPT).replace(
        "Lovely.", "Tr\u00e8s bien.").encode("latin-1"),
     "is not UTF-8 text (byte 0xE8 on line 1 cannot be read)"),
    ("a lone surrogate escape",
     changed(GOOD_TRANSCRIPT, lambda d: turn(0, 0)(d).update(text="I moved \ud83d to Porto.")),
     "sessions[0].turns[0].text is not valid text: a lone surrogate (U+D83D)"),
]


@pytest.mark.parametrize("data, expected", [case[1:] for case in TRANSCRIPT_CASES],
                         ids=[case[0] for case in TRANSCRIPT_CASES])
def test_a_bad_transcript_is_refused_with_its_position_and_nothing_is_imported(
        hearth_cli, home, tmp_path, data, expected) -> None:
    before = contents(home)
    path = tmp_path / "transcript.json"
    path.write_bytes(data)

    run = hearth_cli(home, "import", "transcript", str(path))

    run.assert_sentence()
    assert run.code == InvalidInputError.exit_code
    assert expected in run.err
    assert contents(home) == before


@pytest.mark.parametrize("encode", [
    lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),  # Notepad's UTF-8 with a BOM
    lambda text: text.encode("utf-16"),                   # PowerShell's redirection
], ids=["UTF-8 with a BOM", "UTF-16 with a BOM"])
def test_a_transcript_with_a_byte_order_mark_imports(hearth_cli, home, tmp_path, encode) -> None:
    path = tmp_path / "transcript.json"
    path.write_bytes(encode(json.dumps(GOOD_TRANSCRIPT, ensure_ascii=False)))

    run = hearth_cli(home, "import", "transcript", str(path), "--json")

    run.assert_ok()
    assert json.loads(run.out)["memories_created"] == 4
