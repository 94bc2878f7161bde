"""Every CLI command is documented in docs/cli.md (a new command must come with its docs)."""

from __future__ import annotations

from pathlib import Path

import typer.main

from core.cli.main import app

DOCS = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")


def command_paths(group: typer.Typer) -> list[str]:
    click_group = typer.main.get_command(group)
    paths = []
    for name, command in click_group.commands.items():  # type: ignore[attr-defined]
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
