"""The weekly digest: the journal entries of the last seven days, oldest first, in one
read-only page."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from core.operations.journal import JournalItem


def digest_html(entries: Sequence[JournalItem]) -> str:
    if not entries:
        return "<p>No journal entries in the last seven days.</p>"
    parts = []
    for entry in entries:
        local = entry.created_at.astimezone()
        title = f" — {escape(entry.title)}" if entry.title else ""
        body = escape(entry.content).replace("\n", "<br>")
        parts.append(f"<h3>{local:%A} {local.day} {local:%B, %H:%M}{title}</h3><p>{body}</p>")
    return "".join(parts)


class WeekDialog(QDialog):
    def __init__(self, entries: Sequence[JournalItem], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"This week: {len(entries)} entr{'y' if len(entries) == 1 else 'ies'}")
        self.text = QTextBrowser()
        self.text.setHtml(digest_html(entries))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(620, 520)
