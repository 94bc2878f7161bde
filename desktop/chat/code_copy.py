"""A "Copy code" link under each code block of a rendered reply.

The link lives in the reply's own document (a button per block would have to follow the
text's layout as it reflows); it is a ``copy-code:<n>`` anchor that the reply handles
itself, and, like any link in a text browser, Tab reaches it and Enter follows it."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import (
    QPalette,
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)

from desktop.chat.markdown import CODE_PROPERTIES

SCHEME = "copy-code"
LINK_TEXT = "Copy code"


def _is_code(block: QTextBlock) -> bool:
    return any(block.blockFormat().hasProperty(p) for p in CODE_PROPERTIES)


def code_blocks(document: QTextDocument) -> list[tuple[int, str]]:
    """Each run of code lines: (position of its last line, its text)."""
    runs: list[tuple[int, str]] = []
    lines: list[str] = []
    block = document.begin()
    while block.isValid():
        if _is_code(block):
            lines.append(block.text())
            if not _is_code(block.next()):
                runs.append((block.position() + block.length() - 1, "\n".join(lines)))
                lines = []
        block = block.next()
    return runs


def add_copy_links(document: QTextDocument, palette: QPalette) -> list[str]:
    """Put a right-aligned "Copy code" link under every code block; returns the blocks'
    texts, the n-th for ``copy-code:<n>``."""
    runs = code_blocks(document)
    cursor = QTextCursor(document)
    for number in reversed(range(len(runs))):  # from the end: earlier positions stay valid
        cursor.setPosition(runs[number][0])
        plain = QTextBlockFormat()
        plain.setAlignment(Qt.AlignmentFlag.AlignRight)
        cursor.insertBlock(plain, QTextCharFormat())
        link = QTextCharFormat()
        link.setAnchor(True)
        link.setAnchorHref(f"{SCHEME}:{number}")
        link.setFontUnderline(True)
        link.setForeground(palette.color(QPalette.ColorRole.Link))
        cursor.insertText(LINK_TEXT, link)
    return [text for _, text in runs]


def code_number(url: QUrl) -> int | None:
    """The block a ``copy-code:<n>`` link names (None for any other link)."""
    if url.scheme() != SCHEME or not url.path().isdigit():
        return None
    return int(url.path())
