"""Export files that cannot be imported: one sentence that says where, and nothing written.

Each case runs ``hearth import export FILE`` as a user would, on an empty data folder
(exports import into an empty folder only), and checks the exit code, the sentence, and
that the folder is still empty. (Transcripts: ``test_bad_transcript_files.py``.)
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from edited_json import Change, changed

from core.app import Hearth
from core.errors import InvalidInputError
from core.transfer.export import export_all
from support.folder_contents import contents


@pytest.fixture(scope="module")
def good_export(populated: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("export") / "export.json"
    with Hearth.open(Path(shutil.copytree(populated, path.parent / "source"))) as hearth:
        export_all(hearth.storage, path)
    return json.loads(path.read_text(encoding="utf-8"))


def fact(d: dict[str, Any]) -> dict[str, Any]:
    return d["tables"]["user_facts"][0]


def memory(d: dict[str, Any]) -> dict[str, Any]:
    return d["tables"]["memories"][0]


EXPORT_CASES: list[tuple[str, Change, str]] = [
    ("a string where an integer belongs", lambda d: fact(d).update(id="seven"),
     "tables.user_facts[0].id must be a whole number"),
    ("true where an integer belongs", lambda d: memory(d).update(access_count=True),
     "tables.memories[0].access_count must be a whole number"),
    ("a string where a number belongs", lambda d: fact(d).update(confidence="high"),
     "tables.user_facts[0].confidence must be a number"),
    ("a string where a boolean belongs", lambda d: memory(d).update(is_valid="yes"),
     "tables.memories[0].is_valid must be true or false"),
    ("a list where a string belongs", lambda d: fact(d).update(value=["Porto"]),
     "tables.user_facts[0].value must be a string"),
    ("an object where a string belongs", lambda d: fact(d).update(value={"city": "Porto"}),
     "tables.user_facts[0].value must be a string"),
    ("a number where a string belongs", lambda d: fact(d).update(value=42),
     "tables.user_facts[0].value must be a string"),
    ("null where a value is required", lambda d: fact(d).update(value=None),
     "tables.user_facts[0].value must be a string"),
    ("a string where a JSON list belongs", lambda d: memory(d).update(tags="travel"),
     "tables.memories[0].tags must be a list"),
    ("an object where the rows belong", lambda d: d["tables"].update(user_facts={"caf": "x"}),
     "tables.user_facts must be a list"),
    ("a bad datetime", lambda d: fact(d).update(created_at="yesterday"),
     "tables.user_facts[0].created_at must be an ISO-8601 date-time string"),
    ("a datetime before year 1 in UTC",
     lambda d: fact(d).update(created_at="0001-01-01T00:00:00+14:00"),
     "tables.user_facts[0].created_at is out of range"),
    ("an integer too large for SQLite", lambda d: fact(d).update(id=2**70),
     "tables.user_facts[0].id is too large"),
    ("a string too long for its column", lambda d: fact(d).update(key="k" * 201),
     "tables.user_facts[0].key is longer than 200 characters"),
    ("a missing table", lambda d: d["tables"].pop("user_facts"),
     "The export has no user_facts table"),
    ("an unknown table", lambda d: d["tables"].update(gadgets=[]), "a table 'gadgets'"),
    ("an extra column", lambda d: fact(d).update(colour="red"),
     "tables.user_facts[0].colour is not a column Hearth knows"),
    ("a missing column", lambda d: fact(d).pop("value"),
     "tables.user_facts[0].value is missing"),
    ("a lone surrogate escape", lambda d: fact(d).update(value="Rua \udcf3"),
     "tables.user_facts[0].value is not valid text"),
    ("nesting past Hearth's limit",
     lambda d: memory(d).update(origin=json.loads('{"a": ' + "[" * 100 + "]" * 100 + "}")),
     "nests lists or objects more than 100 levels deep"),
]


@pytest.mark.parametrize("change, expected", [case[1:] for case in EXPORT_CASES],
                         ids=[case[0] for case in EXPORT_CASES])
def test_a_bad_export_is_refused_with_table_row_and_column_and_nothing_is_imported(
        hearth_cli, good_export, sqlite_template, tmp_path, change, expected) -> None:
    path = tmp_path / "export.json"
    path.write_bytes(changed(good_export, change))
    empty = sqlite_template.copy_home(tmp_path / "new-home")  # migrating it is not the point

    run = hearth_cli(empty, "import", "export", str(path))

    run.assert_sentence()
    assert run.code == InvalidInputError.exit_code
    assert expected in run.err
    assert set(contents(empty)["counts"].values()) == {0}


def test_an_export_with_times_at_the_edges_of_the_calendar_imports_whole(
        hearth_cli, populated, sqlite_template, tmp_path) -> None:
    """The strict checks refuse nothing a real export holds (here: year 1 and year 9999)."""
    path = tmp_path / "export.json"
    hearth_cli(Path(shutil.copytree(populated, tmp_path / "source")),
               "export", str(path)).assert_ok()
    target = sqlite_template.copy_home(tmp_path / "new-home")

    hearth_cli(target, "import", "export", str(path)).assert_ok()

    assert contents(target) == contents(populated)
