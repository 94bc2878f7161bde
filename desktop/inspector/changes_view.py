"""The profile's changes shown as coloured paragraphs (``text_changes``): added words green
and underlined, removed words red and struck through, the rest as written. Underline and
strike-through carry the meaning without the colours, and the two accents read on light and
dark palettes alike. Markdown headings and list items are shown as a heading and a bullet,
not as ``#`` and ``-``."""

from __future__ import annotations

import re
from html import escape

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop.inspector.text_changes import Paragraph, summary

ADDED, REMOVED = "#2f9e44", "#e03131"
_HEADING = re.compile(r"^\s*#+\s*")
_BULLET = re.compile(r"^\s*[-*+]\s+")


class ChangesView(QTextBrowser):
    """Read-only; ``show_changes(paragraphs, same)`` draws a comparison, or says ``same``
    when nothing changed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.paragraphs: list[Paragraph] = []

    def show_changes(self, paragraphs: list[Paragraph], same: str) -> None:
        self.paragraphs = paragraphs
        told = summary(paragraphs)
        if not told:
            self.setHtml(f"<p>{escape(same)}</p>")
            return
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        key = (f"<p style='color:{muted}'>{escape(told[0].upper() + told[1:])}. "
               f"<span style='color:{ADDED}; text-decoration:underline'>Added</span> · "
               f"<span style='color:{REMOVED}; text-decoration:line-through'>removed</span>"
               "</p>")
        self.setHtml(key + "".join(_paragraph(p) for p in paragraphs))

    def show_message(self, text: str) -> None:
        """No comparison to show (no versions yet): say why, wrapped to the width."""
        self.paragraphs = []
        self.setHtml(f"<p>{escape(text)}</p>")


def _paragraph(paragraph: Paragraph) -> str:
    heading = bool(_HEADING.match(paragraph.text))
    body = "".join(_piece(piece.text if n else _plain_start(piece.text), piece.change)
                   for n, piece in enumerate(paragraph.pieces))
    if heading:
        return f"<p style='margin-top:10px'><b>{body}</b></p>"
    if _BULLET.match(paragraph.text):
        return f"<p style='margin-left:12px'>•&nbsp;{body}</p>"
    return f"<p>{body}</p>"


def _plain_start(text: str) -> str:
    """A paragraph's opening without its Markdown mark ("# ", "- ")."""
    return _BULLET.sub("", _HEADING.sub("", text, count=1), count=1)


def _piece(text: str, change: str) -> str:
    shown = escape(text)
    if change == "added":
        return f"<span style='color:{ADDED}; text-decoration:underline'>{shown}</span>"
    if change == "removed":
        return f"<span style='color:{REMOVED}; text-decoration:line-through'>{shown}</span>"
    return shown
