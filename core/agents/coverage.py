"""What a grant lets an agent do, in one or two sentences a person can decide on.

"Read" alone says nothing of what is read: a person allowing a program to read should know
that it reaches their facts, health-related ones included, and the portrait Hearth writes
of them, or that the narrower choice keeps it to searching, or keeps a topic from it. The
window's request for access, the Agents view and ``hearth mcp grant`` all say it this way.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.knowledge.facts import CATEGORIES

TOPIC_WORDS = {"location": "places", "personal": "your personal life",
               "preference": "your preferences", "work": "your work", "health": "your health",
               "general": "other topics"}
"""A fact category as the topic it is about."""


def topics(categories: Sequence[str]) -> str:
    """``["health", "work"]`` → "your health and your work"."""
    words = [TOPIC_WORDS.get(category, category) for category in CATEGORIES
             if category in categories]
    return words[0] if len(words) < 2 else f"{', '.join(words[:-1])} and {words[-1]}"


def covers(access: str, scope: str = "all", hidden: Sequence[str] = (),
           trusted: bool = False) -> str:
    """What an agent with this grant may do, in plain words."""
    if access == "none":
        return "It cannot read or change anything in your memory."
    except_ = f", except anything about {topics(hidden)}" if hidden else ""
    if scope == "search":
        reads = (f"It may only search your memories and notes{except_}; it cannot list your "
                 "facts or read About you.")
    elif hidden:
        reads = (f"It may search your memories and notes and read your facts{except_}; it "
                 "cannot read About you, which touches every part of your life.")
    else:
        reads = ("It may search your memories and notes, read all your facts (health-related "
                 "ones too) and read About you, the portrait Hearth writes of you.")
    if access != "write":
        return reads
    if trusted:
        return (f"{reads} It may also add facts and notes, applied at once; changing a fact "
                "you set, or forgetting one, still waits for you.")
    return (f"{reads} It may also ask to add facts and notes: each waits for your review, and "
            "it can never forget anything without you.")
