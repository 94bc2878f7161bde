"""Module docstrings keep the contract; the essays live in ``docs/``.

A module docstring says what the module is for, what it promises its callers and the one or
two facts to know before editing it, then points to the page of ``docs/`` that explains
the rest (the reasoning, the measurements, the alternatives tried). These tests fail when a
docstring in ``core/`` or ``desktop/`` grows past ``MAX_LINES`` again, or points to a page
that does not exist."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("core", "desktop")
MAX_LINES = 40
DOCS_PAGE = re.compile(r"\bdocs/([\w-]+\.md)\b")


def module_docstring(path: Path) -> tuple[str, int] | None:
    """The module docstring of ``path`` and the number of lines it spans in the file
    (its quotes included), or None when the module has none."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return None
    assert first.end_lineno is not None
    return first.value.value, first.end_lineno - first.lineno + 1


@functools.cache
def docstrings() -> dict[str, tuple[str, int]]:
    """Every module docstring of the packages, by the module's path (parsed once)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            docstring = module_docstring(path)
            if docstring is not None:
                found[str(path.relative_to(ROOT))] = docstring
    return found


def test_no_module_docstring_is_longer_than_forty_lines() -> None:
    too_long = {path: lines for path, (_, lines) in docstrings().items() if lines > MAX_LINES}
    assert too_long == {}, (
        f"module docstrings over {MAX_LINES} lines: keep the contract there and move the "
        "design reasoning, measurements and alternatives to the matching page of docs/")


def test_the_pages_module_docstrings_point_to_exist() -> None:
    missing = {path: page for path, (text, _) in docstrings().items()
               for page in DOCS_PAGE.findall(text) if not (ROOT / "docs" / page).is_file()}
    assert missing == {}


def test_the_checker_measures_docstrings(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""One.\n\nTwo.\n"""\n\nX = 1\n', encoding="utf-8")
    assert module_docstring(sample) == ("One.\n\nTwo.\n", 4)
    sample.write_text("X = 1\n", encoding="utf-8")
    assert module_docstring(sample) is None
    assert len(docstrings()) > 100
