"""Prompt texts live in ``resources/prompts/*.md`` so they can be read and changed without
touching code; this loads them (cached: they do not change while Hearth runs)."""

from __future__ import annotations

from functools import cache

from core.config import PROJECT_ROOT

PROMPTS = PROJECT_ROOT / "resources" / "prompts"


@cache
def load_prompt(name: str) -> str:
    """The text of ``resources/prompts/<name>.md``, without trailing whitespace."""
    return (PROMPTS / f"{name}.md").read_text(encoding="utf-8").rstrip()
