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
                     "poisoned": "stuck: press Retry", "processed": "done",
                     "elsewhere": "being learned on another device"}
"""An event's state in the queue (``core.views.activity.EventState``): "poisoned" is the
processor's word for an event that failed too often and waits for the user's Retry;
"elsewhere" is claimed by another Hearth process (another device sharing the database, or
another program here) that is consolidating it now."""


def spaced(name: str) -> str:
    """A stored name in words: "decision_making" reads "decision making"."""
    return name.replace("_", " ")


YOU_SPEAKERS = frozenset({"user"})
"""Speaker names a conversation gives the person Hearth talks with (compared case-folded):
a conversation exported from Hearth or a similar app names its two sides by role."""

HEARTH_SPEAKERS = frozenset({"assistant", "hearth"})
"""Speaker names that mean Hearth's own side of the conversation."""


def speaker_name(speaker: str) -> str:
    """Who said a turn, as the window names people: "You", "Hearth", or the name the
    conversation gives ("Maya")."""
    key = speaker.strip().casefold()
    if key in YOU_SPEAKERS:
        return "You"
    if key in HEARTH_SPEAKERS:
        return "Hearth"
    return speaker


def spoken(text: str, speaker: str | None) -> str:
    """A turn of an imported conversation in plain words. Its stored text starts with
    the speaker's role or name ("user: I moved to Porto"); a named person keeps their
    name ("Maya: I moved to Porto"), the two sides of a chat read as the chat page says
    them: "You said: I moved to Porto", "Hearth replied: …". Any other text is as it is."""
    if not speaker or not text.startswith(f"{speaker}: "):
        return text
    said = text[len(speaker) + 2:]
    name = speaker_name(speaker)
    if name == "You":
        return f"You said: {said}"
    if name == "Hearth":
        return f"Hearth replied: {said}"
    return text


SOURCE_WORDS = {"user": "you", "agent": "Hearth", "processor": "learning",
                "extraction": "learning", "reflection": "reflection"}
"""Who set a fact or wrote a version, as a short column value (the stored names are the
internals': the processor is background learning, the agent is Hearth itself, by its model's
reading of a chat or a tool call in one)."""


def source_word(source: str) -> str:
    """A stored source in words; an unknown one is shown as stored."""
    return SOURCE_WORDS.get(source, spaced(source))


IMPORT_SOURCE_WORDS = {"chatgpt": "ChatGPT export", "claude": "Claude export",
                       "notes": "notes folder", "transcript": "transcript"}
"""What an import run read (``import_runs.source``), for Import history and the Memories
view's import filter."""
