"""A unified diff shown the way programmers read one: fixed-width, additions green, removals
red, hunk headers blue. The colours are semantic accents chosen to read on both light and
dark palettes; everything else keeps the palette's own text colour."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFontDatabase, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QWidget

ADDED, REMOVED, HUNK = QColor("#2f9e44"), QColor("#e03131"), QColor("#4c7fd9")


def _format(colour: QColor, bold: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(colour)
    if bold:
        fmt.setFontWeight(700)
    return fmt


class DiffHighlighter(QSyntaxHighlighter):
    """Colours each line of a unified diff by its first character."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._files = _format(HUNK, bold=True)
        self._hunk = _format(HUNK)
        self._added = _format(ADDED)
        self._removed = _format(REMOVED)

    def highlightBlock(self, text: str) -> None:  # noqa: N802
        if text.startswith(("+++", "---")):
            fmt = self._files
        elif text.startswith("@@"):
            fmt = self._hunk
        elif text.startswith("+"):
            fmt = self._added
        elif text.startswith("-"):
            fmt = self._removed
        else:
            return
        self.setFormat(0, len(text), fmt)


class DiffView(QPlainTextEdit):
    """A read-only, coloured unified diff; ``show_diff("")`` says there is no difference."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._highlighter = DiffHighlighter(self.document())

    def show_diff(self, diff: str, same: str = "No differences.") -> None:
        self.setPlaceholderText(same)
        self.setPlainText(diff)
