"""Grounding: what Hearth learns about the user comes from the user's own words.

The assistant's replies stay conversation history (stored, searchable, shown to a model as
context where they help it read the user's message: the question the user answers, the
suggestion they say yes to). They are never a source of facts or memories about the user.
A model that proposes one is checked against what each side wrote:

* a fact's **value** must be in the user's words: every content word of it appears in
  what the user wrote (``is_grounded``), so a model can neither invent a value nor copy
  one from the assistant;
* anything else a model proposes about the user (a memory candidate, an observation, the
  key of a fact: the "sister" of ``sister_name``) must not rest on the assistant: none of
  its content words may be one that only the assistant used (``Said.assistant_only``).
  Words neither side used are the model's own paraphrase ("The user prefers oak" for "oak
  worktops, please") and are allowed; function words and the stock words of a memory
  sentence ("the user", "likes", "lives", "name") count for nothing.

Words are compared case-folded after NFKC, with a light stemmer (lives / living / lived),
so "The user is moving to Porto" is the user's when the user wrote "we're moving to Porto",
even if the assistant answered "Good luck with the move".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from core.learning.explicit_facts import ATTRIBUTE_WORDS


def content_words(text: str) -> set[str]:
    """The words of ``text`` that can carry content: three letters or more, or a number."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return {w for w in re.findall(r"\w+", folded) if len(w) >= 3 or w.isdigit()}


def is_grounded(value: str, user_text: str) -> bool:
    """True when every content word of ``value`` occurs in what the user wrote."""
    wanted = content_words(value)
    return bool(wanted) and wanted <= content_words(user_text)


NEUTRAL: frozenset[str] = frozenset("""
    the and for with from into onto about above after again against all also although
    always among and any are around aren because been before being below between both but
    can cannot could did does doing done down during each either else even ever every few
    further had has have having her here hers herself him himself his how however its itself
    just least less let lot lots many may might more most much must myself near neither
    never none nor not now off once only other others ought our ours ourselves out over own
    per perhaps quite rather really same several she should since some such than that the
    their theirs them themselves then there these they thing things this those though
    through thus too toward towards under until upon very was way were what whatever when
    where whether which while who whom whose why will with within without would yet you your
    yours yourself yourselves
    user users user's person someone something somebody anyone anything everyone
    likes like liked liking prefers prefer preferred preference wants want wanted needs need
    needed loves love loved enjoys enjoy enjoyed hates hate hated dislikes dislike disliked
    lives live lived living works work worked working called named name names mentioned
    mention said says say told tells tell asked asks ask plans plan planned planning thinks
    think thought feels feel felt uses use used gets get got goes going went make makes made
    keeps keep kept tries try tried trying usually often sometimes currently recently
    still already new old good great nice well important fact detail details
""".split())
"""Function words and the stock words of a memory sentence: support for nothing."""

_SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("es", ""), ("ed", ""), ("s", ""))


def _stem(word: str) -> str:
    """A light stemmer, the same for both sides: live, lives, living, lived -> "liv";
    study, studies, studied -> "study"; running -> "run"."""
    if word.isdigit() or len(word) <= 3:
        return word
    for suffix, replacement in _SUFFIXES:
        if (word.endswith(suffix) and len(word) - len(suffix) >= 3
                and not (suffix == "s" and word.endswith("ss"))):
            word = word[:-len(suffix)] + replacement
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word


def _stems(text: str) -> frozenset[str]:
    return frozenset(_stem(word) for word in content_words(text))


@dataclass(frozen=True)
class Said:
    """What the user and the assistant wrote in one exchange or conversation, as stems."""

    user: frozenset[str]
    assistant: frozenset[str]

    @classmethod
    def of(cls, user_text: str | Iterable[str], assistant_text: str | Iterable[str]) -> Said:
        """From each side's text (one string, or the turns of each side)."""
        def join(text: str | Iterable[str]) -> str:
            return text if isinstance(text, str) else "\n".join(text)
        return cls(_stems(join(user_text)), _stems(join(assistant_text)))

    def assistant_only(self, text: str, *, neutral: Iterable[str] = ()) -> list[str]:
        """The content words of ``text`` that only the assistant used, in order."""
        also = frozenset(neutral)
        found = []
        for word in sorted(content_words(text), key=text.casefold().find):
            if word in NEUTRAL or word in also:
                continue
            stem = _stem(word)
            if stem in self.assistant and stem not in self.user:
                found.append(word)
        return found

    def users_own(self, text: str) -> bool:
        """True when nothing in ``text`` rests on the assistant's words alone."""
        return not self.assistant_only(text)

    def key_is_users_own(self, key: str) -> bool:
        """A fact key: its attribute words ("home", "city", "name") are the model's
        wording; who or what it is about ("sister", "dog") must not be the assistant's."""
        return not self.assistant_only(key.replace("_", " "), neutral=_KEY_WORDS)


_KEY_WORDS = ATTRIBUTE_WORDS | {"favourite", "favorite", "number", "of", "first", "last",
                                "full", "current", "preferred", "main", "usual"}
