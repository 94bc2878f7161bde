"""A bad ``HEARTH_*`` environment value is one sentence naming the variable and what it
accepts, never a pydantic dump or a traceback (issue #10); the data folder is not blamed
and no "unexpected error" log is written for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

BAD_VALUES = [
    ("HEARTH_EMBEDDING_THREADS", "abc", "should be a valid integer"),
    ("HEARTH_EMBEDDING_THREADS", "0", "greater than or equal to 1"),
    ("HEARTH_LLM_PROVIDER", "nonsense", "'auto', 'ollama' or 'embedded'"),
    ("HEARTH_RECALL_TIER_WEIGHTS", '{"source": "half"}', "source: input should be a valid"),
    ("HEARTH_EXCLUSIONS", "[salary", "not valid JSON"),
]


@pytest.mark.parametrize(("variable", "value", "accepted"), BAD_VALUES)
def test_a_bad_environment_value_is_one_sentence(hearth_cli, tmp_path: Path, variable: str,
                                                 value: str, accepted: str) -> None:
    home = tmp_path / "home"

    ran = hearth_cli(home, "facts", "list", env={variable: value})

    ran.assert_sentence()
    assert ran.code == 1
    first_line = ran.err.splitlines()[0]
    assert first_line.startswith("error: ") and variable in first_line
    assert accepted in ran.err
    assert "pydantic" not in ran.err and "validation error" not in ran.err
    assert f"unset {variable}" in ran.err
    assert not (home / "logs").exists()


def test_a_good_environment_value_overrides_the_file_for_one_run(hearth_cli,
                                                                 tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"ollama_model": "from-the-file"}))

    overridden = hearth_cli(home, "status", "--json", env={"HEARTH_LLM_PROVIDER": "ollama",
                                                           "HEARTH_OLLAMA_MODEL": "from-env",
                                                           "OLLAMA_HOST": "127.0.0.1:9"})
    overridden.assert_ok()
    assert json.loads(overridden.out)["llm"]["model"] == "from-env"
    plain = hearth_cli(home, "status", "--json", env={"HEARTH_LLM_PROVIDER": "ollama",
                                                      "OLLAMA_HOST": "127.0.0.1:9"})
    plain.assert_ok()
    assert json.loads(plain.out)["llm"]["model"] == "from-the-file"
