"""Markdown for replies: ``QTextDocument.setMarkdown``, with code blocks set apart.

Qt already sets fenced code in the fixed font; a shaded background (the palette's
alternate base, so it reads in light and dark themes) makes a block visibly a block."""

from __future__ import annotations

from PySide6.QtGui import QPalette, QTextBlockFormat, QTextCursor, QTextDocument, QTextFormat

CODE_PROPERTIES = (QTextFormat.Property.BlockCodeFence, QTextFormat.Property.BlockCodeLanguage)


def render_markdown(document: QTextDocument, text: str, palette: QPalette) -> None:
    """Replace ``document``'s content with ``text`` rendered as (GitHub) Markdown."""
    document.setMarkdown(text)
    shade = palette.color(QPalette.ColorRole.AlternateBase)
    block = document.begin()
    cursor = QTextCursor(document)
    while block.isValid():
        current = block.blockFormat()
        if any(current.hasProperty(p) for p in CODE_PROPERTIES):
            shaded = QTextBlockFormat()
            shaded.setBackground(shade)
            cursor.setPosition(block.position())
            cursor.mergeBlockFormat(shaded)
        block = block.next()
