"""``docs/settings.md`` is the one reference of the settings: every field of
``core.config.Settings`` has a row there, no row names a field that is gone, and each row's
default is the code's. A new setting fails here until it is documented."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from core.config import MODELS_DIR, PROJECT_ROOT, Settings

REFERENCE = PROJECT_ROOT / "docs" / "settings.md"
ROW = re.compile(r"^\| `(?P<name>\w+)` \| `(?P<default>[^`]*)` \|", re.MULTILINE)
"""A table row of the reference: the setting's name, then its default, each in backticks."""


def documented() -> dict[str, list[str]]:
    """Each setting the reference has a row for, with the defaults its rows give."""
    rows: dict[str, list[str]] = {}
    for row in ROW.finditer(REFERENCE.read_text(encoding="utf-8")):
        rows.setdefault(row["name"], []).append(row["default"])
    return rows


def shown_default(value: Any) -> str:
    """A default as the reference writes it: JSON, as in ``settings.json``; a model path
    under ``models/``, wherever this checkout's models folder is."""
    if isinstance(value, Path):
        return f"models/{value.relative_to(MODELS_DIR).as_posix()}"
    return json.dumps(value, ensure_ascii=False)


def test_every_setting_has_one_row_and_every_row_is_a_setting() -> None:
    rows = documented()
    fields = set(Settings.model_fields)
    assert sorted(fields - rows.keys()) == [], "settings missing from docs/settings.md"
    assert sorted(rows.keys() - fields) == [], "docs/settings.md names settings that are gone"
    assert [name for name, defaults in rows.items() if len(defaults) > 1] == []


def test_every_documented_default_is_the_codes() -> None:
    rows = documented()
    code = {name: shown_default(field.get_default(call_default_factory=True))
            for name, field in Settings.model_fields.items()}
    wrong = {name: (defaults[0], code[name]) for name, defaults in rows.items()
             if name in code and defaults[0] != code[name]}
    assert wrong == {}, "documented default → the code's"


def test_the_reference_is_linked_from_the_readme_and_the_window_docs() -> None:
    for page in ("README.md", "docs/desktop.md"):
        assert "docs/settings.md" in (PROJECT_ROOT / page).read_text(encoding="utf-8"), page
