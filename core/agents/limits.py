"""How long each argument of an agent's tool may be, checked before anything else.

The check comes before the grant and before any other work, so an agent with no access
cannot make Hearth embed, search, hold or log a megabyte it sent; what it learns is the
limit. Each limit is far above what an agent needs in normal use and far below what would
burden the database (``docs/mcp.md``, "Limits"):

* a **query** (search_memory, recall_facts) of 4,000 characters is a long paragraph;
  search_memory's model reads only its first 510 tokens (a few hundred words) anyway,
  and recall_facts looks for it in keys and values of a few words;
* a fact's **key** is a snake_case name, and ``user_facts.key`` holds 200 characters;
* a fact's **value** and an **observation** of 10,000 characters are a few pages of
  text about the user: a fact is a few words, an observation a few sentences;
* a **category** is one word (the fact categories are at most 10 letters);
* search_memory's **as_of** is a date or a date and time in ISO 8601 (32 characters
  with microseconds and an offset);
* search_memory's **limit** is a number from 1 to 20; read_memory's **kind** is one
  word, its **item_id** and **offset** numbers of at most 8 digits (a text is at most
  2,000,000 characters).

Lengths are counted in characters (a non-text value by its JSON text), as the agent's
client counts them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from core.errors import InvalidInputError

QUERY = 4_000
KEY = 200
TEXT = 10_000
CATEGORY = 64
NUMBER = 8
MOMENT = 40

LIMITS: dict[str, dict[str, int]] = {
    "search_memory": {"query": QUERY, "limit": NUMBER, "as_of": MOMENT},
    "read_memory": {"kind": CATEGORY, "item_id": NUMBER, "offset": NUMBER},
    "list_facts": {"category": CATEGORY},
    "recall_facts": {"query": QUERY},
    "read_profile": {},
    "remember_fact": {"key": KEY, "value": TEXT, "category": CATEGORY},
    "record_observation": {"content": TEXT, "category": CATEGORY},
    "forget_fact": {"key": KEY},
}
"""Each tool's arguments and the most characters each may have."""

SHOWN_NAME = 40
"""An unknown argument's name is quoted back only this far: the name is the sender's too."""


def size(value: Any) -> int:
    """Characters of ``value``: a text's own, anything else's as JSON."""
    if isinstance(value, str):
        return len(value)
    return len(json.dumps(value, ensure_ascii=False, default=str))


def check_sizes(tool: str, arguments: Mapping[str, Any]) -> None:
    """Refuse, in a sentence naming the argument and its limit, an argument ``tool`` does
    not take or one longer than its limit."""
    limits = LIMITS[tool]
    for name, value in arguments.items():
        limit = limits.get(name)
        if limit is None:
            takes = ", ".join(limits) or "no arguments"
            raise InvalidInputError(f"{tool} has no argument “{str(name)[:SHOWN_NAME]}”.",
                                    f"It takes: {takes}.")
        if (length := size(value)) > limit:
            raise InvalidInputError(
                f"The argument “{name}” of {tool} is {length:,} characters long, more than "
                f"its limit of {limit:,}.", f"Send at most {limit:,} characters.")
