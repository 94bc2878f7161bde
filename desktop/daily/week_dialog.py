"""The weekly digest: the model's short summary of the last seven days (or why there is
none), then the journal entries themselves, oldest first, in one read-only page."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from core.operations.journal import JournalItem, WeekDigest


def summary_html(digest: WeekDigest) -> str:
    if digest.summary is not None:
        body = escape(digest.summary).replace("\n", "<br>")
        return f"<h2>The week in short</h2><p>{body}</p><p><i>Written by the model from the " \
               "entries below.</i></p><hr>"
    if not digest.entries:
        return ""
    return f"<p><i>{escape(digest.why_no_summary or '')}</i></p><hr>"


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
    def __init__(self, digest: WeekDigest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        count = len(digest.entries)
        self.setWindowTitle(f"This week: {count} entr{'y' if count == 1 else 'ies'}")
        self.text = QTextBrowser()
        self.text.setHtml(summary_html(digest) + digest_html(digest.entries))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(620, 520)
