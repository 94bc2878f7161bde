"""Every CLI command is documented in docs/cli.md (a new command must come with its docs), and
every test docs/reliability.md cites as proof exists."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from cli.main import app

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def command_paths(group: typer.Typer) -> list[str]:
    click_group = typer.main.get_command(group)
    paths = []
    for name, command in click_group.commands.items():  # type: ignore[attr-defined]
        if command.hidden:  # a former name, kept for old scripts
            continue
        subcommands = getattr(command, "commands", None)
        if subcommands:
            paths.extend(f"{name} {sub}" for sub in subcommands)
        else:
            paths.append(name)
    return paths


def test_every_command_is_documented() -> None:
    paths = command_paths(app)
    assert len(paths) >= 12
    missing = [path for path in paths if f"`hearth {path}" not in DOCS]
    assert missing == []


RELIABILITY = ROOT / "docs" / "reliability.md"
TEST_REFERENCE = re.compile(r"(tests/[\w/]+\.py)?::(\w+)")


def test_every_promise_names_tests_that_exist() -> None:
    """docs/reliability.md proves each promise with named tests (``file::name``, or
    ``::name`` for another test of the file named last): each must be a test in that file,
    so a renamed or removed test cannot leave a promise without its proof."""
    text = RELIABILITY.read_text(encoding="utf-8")
    missing, last_file, seen = [], None, 0
    for match in TEST_REFERENCE.finditer(text):
        last_file = match[1] or last_file
        assert last_file is not None, f"::{match[2]} names no file"
        source = (ROOT / last_file).read_text(encoding="utf-8")
        if not re.search(rf"^def {match[2]}\(", source, re.MULTILINE):
            missing.append(f"{last_file}::{match[2]}")
        seen += 1
    assert seen >= 40
    assert missing == []
