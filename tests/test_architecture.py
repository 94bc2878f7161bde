"""Layer rules, checked rather than hoped for: ``core`` never imports Qt or ``desktop``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN_IN_CORE = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "desktop", "shiboken6")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_core_never_imports_qt_or_the_desktop_layer() -> None:
    offenders = {}
    for path in (ROOT / "core").rglob("*.py"):
        bad = {name for name in imported_modules(path)
               if name.split(".")[0] in FORBIDDEN_IN_CORE}
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_the_checker_sees_imports() -> None:
    sample = ROOT / "tests" / "test_architecture.py"
    assert "ast" in imported_modules(sample)
