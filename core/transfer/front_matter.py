"""A note's front matter (the YAML between ``---`` lines at its top), read as fields.

A note whose front matter cannot be read is skipped with the reason
(:class:`BadFrontMatter`), the rest of the folder being imported. The document is read by
libyaml where PyYAML has it (``CSafeLoader``: tens of times faster than the pure-Python
loader, and a vault's front matter is read twice).
"""

from __future__ import annotations

import json
from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's safe loader where PyYAML was built with it: the same documents, read tens of
times faster than the pure-Python one."""


class BadFrontMatter(Exception):
    """Why a note's front matter is not read, as a clause (``its front matter is ...``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def fields(text: str) -> dict[str, Any]:
    """The front matter ``text`` as JSON-ready fields (dates and other values JSON has no
    type for become text), or :class:`BadFrontMatter`."""
    try:
        loaded = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise BadFrontMatter(f"its front matter is not valid YAML{where}") from exc
    except ValueError as exc:  # a date like 2024-02-30, an integer past 4,300 digits
        raise BadFrontMatter(f"its front matter holds a value that cannot be read "
                             f"({exc})") from exc
    if loaded is not None and not isinstance(loaded, dict):
        raise BadFrontMatter("its front matter is not a set of fields")
    result: dict[str, Any] = json.loads(json.dumps(loaded or {}, default=str,
                                                   ensure_ascii=False))
    return result
