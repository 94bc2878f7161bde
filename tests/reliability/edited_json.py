"""A JSON document with one thing changed, as the bad-import-file cases build them."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

Change = Callable[[dict[str, Any]], object]


def changed(document: dict[str, Any], change: Change) -> bytes:
    """``document`` with ``change`` applied to a copy, as ASCII JSON bytes."""
    edited = copy.deepcopy(document)
    change(edited)
    return json.dumps(edited).encode("ascii")  # a lone surrogate stays a \u escape
