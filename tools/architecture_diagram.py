"""The floors diagram of docs/architecture.md, drawn from the layers contract in
pyproject.toml, so the picture and the enforced rule cannot disagree.

    python tools/architecture_diagram.py           # print the diagram
    python tools/architecture_diagram.py --write   # put it into docs/architecture.md

``tests/project/test_architecture.py`` fails when the document's diagram is not this one."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- floors: drawn by tools/architecture_diagram.py from pyproject.toml -->"
END = "<!-- end of floors -->"


def floors() -> list[list[str]]:
    """The floors of the layers contract, top first, each its parts in contract order."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (stack,) = [contract for contract in config["tool"]["importlinter"]["contracts"]
                if contract["type"] == "layers"]
    return [[part.strip() for part in floor.split("|")] for floor in stack["layers"]]


FRONT_ENDS = "desktop · cli"
"""The window and the command line, above the stack: they come in through its top floor,
``core.operations`` (``tests/project/test_architecture.py`` holds them to it)."""


def diagram() -> str:
    """The floors as a Mermaid flowchart: the front ends on top, then one row per floor, an
    arrow to the floor below."""
    lines = [BEGIN, "```mermaid", "flowchart TB", f'    FE["{FRONT_ENDS}"]']
    for number, parts in enumerate(floors()):
        names = " · ".join(part.removeprefix("core.") for part in parts)
        lines.append(f'    F{number}["{names}"]')
    lines.append("    FE --> F0")
    lines.extend(f"    F{number} --> F{number + 1}" for number in range(len(floors()) - 1))
    lines.extend(["```", END])
    return "\n".join(lines)


def with_diagram(document: str) -> str:
    """``document`` with the text between the markers replaced by the current diagram."""
    start, end = document.index(BEGIN), document.index(END) + len(END)
    return document[:start] + diagram() + document[end:]


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DOC.write_text(with_diagram(DOC.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(diagram())
