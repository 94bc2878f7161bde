"""A long diary-like text (well over one inference of the embedder) with one sentence
planted in its middle: recall finds it through the window that holds the sentence."""

from __future__ import annotations

import random

_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_THINGS = [
    "walked along the river before work and watched the rowers",
    "fixed the squeaky hinge on the kitchen cupboard",
    "tried a new recipe for lentil soup with smoked paprika",
    "read two chapters of the history of the Hanseatic League",
    "answered a long email thread about the conference schedule",
    "repotted the basil and moved the tomatoes to the sunny window",
    "went swimming at the public pool and did twenty lengths",
    "called the bank about a card that kept being declined",
    "sorted the bookshelf by colour, which looks nice but is useless",
    "practised the guitar riff from the song the band likes",
    "took the bike in for new brake pads and a chain",
    "played chess online and lost three games in a row",
]


def diary_with(sentence: str, days: int = 40, seed: int = 5) -> str:
    """``days`` diary entries (~1,000 words) with ``sentence`` ending the middle one."""
    rng = random.Random(seed)
    entries = [f"{_DAYS[day % 7]}: I {rng.choice(_THINGS)}, then {rng.choice(_THINGS)}."
               for day in range(days)]
    entries[days // 2] += f" {sentence}"
    return "\n\n".join(entries)
