"""How the window counts things in words: "1 fact", "2 facts", "1,204 memories".

One helper rather than ``f"{n} fact{'s' if n != 1 else ''}"`` at every label: the inline
form is easy to get wrong ("1 facts", "exchange(s)", "memor" + "ies") and cannot spell an
irregular plural. ``count(n, "memory", "memories")`` reads like the label it makes.
"""

from __future__ import annotations

from collections.abc import Iterable


def count(number: int, one: str, many: str | None = None) -> str:
    """``number`` and the noun that agrees with it: ``count(1, "fact")`` is "1 fact",
    ``count(2, "fact")`` "2 facts", ``count(3, "memory", "memories")`` "3 memories".
    Thousands are grouped ("12,400 links") so a large count reads at a glance."""
    noun = one if number == 1 else (many if many is not None else f"{one}s")
    return f"{number:,} {noun}"


def listing(parts: Iterable[str]) -> str:
    """Parts joined the way a sentence lists them: "a", "a and b", "a, b and c"."""
    items = [part for part in parts if part]
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


TIER_WORDS = {
    "recall": "recent",
    "archival": "summaries",
    "source": "originals",
    "core": "always in mind",
}
"""A memory's tier (``core.storage.orm.MemoryTier``) as a person would say it: fresh
captures, consolidated summaries, the originals kept under a summary, pinned memories that
go into every reply."""

MEMORY_TYPE_WORDS = {"semantic": "something known", "episodic": "something that happened",
                     "procedural": "how to do something"}
"""A memory's type (``core.storage.orm.MemoryType``) in words."""


def tier_text(tier: str) -> str:
    """The plain name of a tier; an unknown one is shown as stored."""
    return TIER_WORDS.get(tier, tier)

EVENT_STATE_WORDS = {"pending": "waiting", "failing": "will try again",
                     "poisoned": "stuck: press Retry", "processed": "done"}
"""An event's state in the queue (``core.views.activity.EventState``): "poisoned" is the
processor's word for an event that failed too often and waits for the user's Retry."""


def spaced(name: str) -> str:
    """A stored name in words: "decision_making" reads "decision making"."""
    return name.replace("_", " ")
