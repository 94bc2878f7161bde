"""A note's front matter is read within bounds (size, nesting, no aliases): a note past one
is skipped with a sentence and the rest of the folder is read. The alias bomb runs in a
child process under a memory limit, so that a loader without the bounds fails the test
instead of taking the machine's memory."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from core.transfer import front_matter
from core.transfer.notes import scan_folder

PROJECT_ROOT = Path(__file__).resolve().parents[3]
CHILD_MEMORY = 1536 * 1024 * 1024
"""The child's address space: the engine's imports need a few hundred MB, the bomb's
expansion tens of GB."""
READ_FOLDER = """
import json, sys
from pathlib import Path
from core.transfer.notes import scan_folder
scanned = scan_folder(Path(sys.argv[1]))
print(json.dumps({"notes": [entry.path for entry in scanned.entries],
                  "skipped": [note.sentence() for note in scanned.skipped]}))
"""


def alias_bomb() -> str:
    """About 600 bytes that stand for 10^10 strings: each line repeats the one before it
    ten times by alias."""
    names = "abcdefghij"
    lines = ["a: &a [" + ", ".join(['"x"'] * 10) + "]"]
    lines += [f"{name}: &{name} [" + ", ".join([f"*{before}"] * 10) + "]"
              for before, name in zip(names, names[1:], strict=False)]
    return "\n".join(lines)


def write_note(folder: Path, name: str, front: str, body: str = "The body.") -> None:
    (folder / name).write_text(f"---\n{front}\n---\n{body}\n", encoding="utf-8")


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def test_an_alias_bomb_is_skipped_and_the_folder_read_within_a_memory_limit(tmp_path) -> None:
    bomb = alias_bomb()
    assert len(bomb) < 700
    write_note(tmp_path, "Bomb.md", bomb)
    write_note(tmp_path, "Fine.md", "tags: [kept]")

    child = subprocess.run(
        [sys.executable, "-c", READ_FOLDER, str(tmp_path)], capture_output=True, text=True,
        timeout=120, cwd=PROJECT_ROOT, preexec_fn=limit_memory, check=False,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "OPENBLAS_NUM_THREADS": "1"})

    assert child.returncode == 0, child.stderr[-2000:]
    assert json.loads(child.stdout) == {
        "notes": ["Fine.md"],
        "skipped": ["Bomb.md was skipped: its front matter repeats a value through a YAML "
                    "alias (*name), which Hearth does not expand."]}


@pytest.mark.parametrize(("front", "reason"), [
    ("a: &a [*a]", "its front matter repeats a value through a YAML alias (*name), which "
                   "Hearth does not expand"),
    ("base: &b {x: 1}\nother: *b", "its front matter repeats a value through a YAML alias "
                                   "(*name), which Hearth does not expand"),
    ("deep: " + "[" * 40 + "]" * 40, "its front matter nests more than 32 levels deep"),
    ("summary: " + "word " * 60_000, "its front matter is 300,009 bytes, more than the "
                                     "256 KB Hearth reads"),
    ("size: .inf", "its front matter holds a number JSON cannot keep (.inf or .nan)"),
    ("n: " + "1" * 5000, "its front matter holds a value that cannot be read (Exceeds the "
                         "limit (4300 digits)"),
], ids=["self-containing", "merge-alias", "deep", "large", "infinite", "long-integer"])
def test_front_matter_past_a_bound_skips_its_note(tmp_path, front, reason) -> None:
    write_note(tmp_path, "Bad.md", front)
    write_note(tmp_path, "Fine.md", "tags: [kept]")

    scanned = scan_folder(tmp_path)

    assert [entry.path for entry in scanned.entries] == ["Fine.md"]
    assert [note.path for note in scanned.skipped] == ["Bad.md"]
    assert scanned.skipped[0].reason.startswith(reason)  # Python's own words follow


def test_without_libyaml_deep_nesting_is_refused_too(tmp_path, monkeypatch) -> None:
    """PyYAML's pure-Python composer recurses once per level, before the nodes can be
    checked: 100,000 brackets (200 KB, within the size bound) reach Python's limit."""
    monkeypatch.setattr(front_matter, "_LOADER", yaml.SafeLoader)
    write_note(tmp_path, "Bad.md", "deep: " + "[" * 100_000 + "]" * 100_000)

    scanned = scan_folder(tmp_path)

    assert [(note.path, note.reason) for note in scanned.skipped] == [
        ("Bad.md", "its front matter nests more than 32 levels deep")]


def test_front_matter_within_the_bounds_is_read_as_before() -> None:
    nested = "deep: " + "[" * 30 + "1" + "]" * 30
    assert front_matter.fields(nested)["deep"] == json.loads("[" * 30 + "1" + "]" * 30)
    assert front_matter.fields("title: Home\ntags: [a, '#b']\nanchored: &a plain\n"
                               "created: 2024-01-05 09:00:00+00:00") == {
        "title": "Home", "tags": ["a", "#b"], "anchored": "plain",
        "created": "2024-01-05 09:00:00+00:00"}
    assert front_matter.fields("summary: " + "ab c " * 50_000)["summary"].startswith("ab c")
