"""An imported Markdown note as words to read: "Trip to Porto — Book the train; ask Ines"
rather than "# Trip to Porto\n\n- **Book** the [[train]]; ask [Ines](mailto:…)".

A notes folder is imported as written (``core.transfer.notes``): the Markdown is kept, so
both searches see the headings and links, and an export gives the note back whole. A list
of memories is not the place to read mark-up, though: this gives the text a person meant,
for the Memories view and the Notes view's list of imported notes."""

from __future__ import annotations

import re

NOTES_SOURCE = "notes"
"""The ``source`` of a memory imported from a notes folder (``core.transfer.notes``)."""

_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^```.*?$|^~~~.*?$", re.MULTILINE), ""),  # code fences (their code stays)
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # an image: its description
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # a link: its text
    (re.compile(r"!?\[\[(?:[^\]|]*\|)?([^\]]+)\]\]"), r"\1"),  # [[target|alias]]: the alias
    (re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.MULTILINE), r"\1"),  # headings
    (re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE), ""),  # quotes
    (re.compile(r"^[ \t]*[-*+][ \t]+\[[ xX]\][ \t]+", re.MULTILINE), "• "),  # tasks
    (re.compile(r"^[ \t]*[-*+][ \t]+", re.MULTILINE), "• "),  # bullets
    (re.compile(r"^[ \t]*(?:-{3,}|\*{3,}|_{3,})[ \t]*$", re.MULTILINE), ""),  # rules
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # bold
    (re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])"), r"\2"),  # italics
    (re.compile(r"~~(.+?)~~"), r"\1"),  # struck through
    (re.compile(r"`([^`]+)`"), r"\1"),  # inline code
)


def note_words(markdown: str) -> str:
    """The note's text without its Markdown marks (line breaks kept)."""
    text = markdown
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()
