"""The pane beside the memory list: one memory's content, metadata, provenance, edges and
supersede chain, the signals that ranked it (for a search result), and the actions on it.

Rendered as rich text in a ``QTextBrowser``: it takes the palette's colours (so it reads in
light and dark themes), scrolls as one page, and its links (other memories) are reachable
with Tab and followed with Enter as well as by clicking. A link asks the page to jump there.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from core.storage.orm import MemoryTier
from core.views.memory_browse import MemoryRow, Validity
from core.views.memory_detail import ChainLink, Edge, MemoryDetail, MemoryRef
from desktop.inspector.formatting import local_time
from desktop.inspector.memory_signals import describe_signals

LINK_SCHEME = "memory"
PREVIEW_CHARS = 90
"""Of another memory's text in an edge or chain line (its own pane shows all of it)."""
EMPTY = "Select a memory to see where it came from, what it is linked to and what replaced it."


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS - 1] + "…"


def _link(ref: MemoryRef) -> str:
    state = "" if ref.state == Validity.VALID.value else f" <i>({escape(ref.state)})</i>"
    return (f'<a href="{LINK_SCHEME}:{ref.id}">#{ref.id}</a> {escape(_preview(ref.content))}'
            f"{state}")


def _rows(pairs: list[tuple[str, Any]]) -> str:
    """A two-column key/value table, skipping empty values."""
    cells = "".join(f"<tr><td><b>{escape(label)}</b>&nbsp;&nbsp;</td><td>{escape(str(value))}"
                    "</td></tr>" for label, value in pairs if value not in (None, "", [], {}))
    return f"<table cellspacing='0' cellpadding='1'>{cells}</table>"


def _uses(detail: MemoryDetail) -> str:
    if not detail.access_count:
        return "never recalled into a reply"
    times = "once" if detail.access_count == 1 else f"{detail.access_count} times"
    return f"{times}, last {local_time(detail.last_accessed_at)}"


def _edge_line(edge: Edge) -> str:
    """``knn 0.71 → #7 …``: the arrow says which way the edge points (a summary points
    at its sources)."""
    arrow = "→" if edge.outgoing else "←"
    return (f"<li><b>{escape(edge.kind)}</b> {edge.weight:.2f} {arrow} "
            f"{_link(edge.other)}</li>")


def _chain(title: str, links: list[ChainLink]) -> str:
    if not links:
        return ""
    items = "".join(f"<li>{'&nbsp;' * 4 * (link.depth - 1)}{_link(link.memory)}</li>"
                    for link in links)
    return f"<h4>{escape(title)}</h4><ul>{items}</ul>"


def render(detail: MemoryDetail, row: MemoryRow | None = None) -> str:
    """The pane's HTML for a memory; ``row`` adds the search signals when it is a result."""
    state = detail.state
    if detail.invalid_reason:
        state += f": {detail.invalid_reason}"
    parts = [f"<h3>Memory #{detail.id}</h3>"]
    if row is not None and row.excerpt:
        parts.append(f"<p><b>The part that matched:</b></p>"
                     f"<p style='white-space: pre-wrap'>… {escape(row.excerpt)} …</p>"
                     f"<h4>All of it</h4>")
    parts += [f"<p style='white-space: pre-wrap'>{escape(detail.content)}</p>",
             _rows([("State", state), ("Type", detail.memory_type), ("Tier", detail.tier),
                    ("Namespace", detail.namespace), ("Category", detail.category),
                    ("Priority", detail.priority), ("Tags", ", ".join(detail.tags)),
                    ("Importance", f"{detail.importance:.2f}"),
                    ("Strength", f"{detail.strength:.2f}"),
                    ("Freshness", f"{detail.freshness:.2f}"),
                    ("Used", _uses(detail)),
                    ("Created", local_time(detail.created_at)),
                    ("Updated", local_time(detail.updated_at))])]
    if detail.entities:
        parts.append(_rows([(kind, ", ".join(names)) for kind, names
                            in sorted(detail.entities.items())]))
    if row is not None and row.score is not None:
        lines = "".join(f"<li>{escape(line)}</li>" for line in describe_signals(row.signals))
        parts.append(f"<h4>Why it matched (score {row.score:.3f})</h4><ul>{lines}</ul>")
    parts.append("<h4>Provenance</h4>")
    origin = {k: v for k, v in detail.origin.items() if k != "turn_id"}
    parts.append(_rows([("Source", detail.source), ("Turn", detail.turn_id),
                        ("External id", detail.external_id), ("Session", detail.session_id),
                        ("Exchange", detail.interaction_id), ("Event", detail.event_id),
                        ("Origin", json.dumps(origin, ensure_ascii=False) if origin else None),
                        ("Embedded by", detail.embedding_model)]))
    parts.append(f"<h4>Edges ({len(detail.edges)})</h4>")
    parts.append("<ul>" + "".join(_edge_line(edge) for edge in detail.edges) + "</ul>"
                 if detail.edges else "<p>No links to other memories yet (the dream cycle "
                                      "draws them).</p>")
    parts.append(_chain("Replaced by (newer)", detail.replaced_by))
    parts.append(_chain("Replaced (older)", detail.replaced))
    return "".join(parts)


class MemoryDetailPane(QWidget):
    """Shows one memory; asks the page to act on it through signals (the page runs the
    change in the background and reloads)."""

    jump = Signal(int)
    invalidate_requested = Signal(int)
    restore_requested = Signal(int)
    pin_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.detail: MemoryDetail | None = None
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._follow)
        self.placeholder = QLabel(EMPTY)
        self.placeholder.setWordWrap(True)
        self.invalidate_button = QPushButton("&Invalidate…")
        self.invalidate_button.setToolTip("Mark this memory wrong or obsolete (it is kept, "
                                          "but no longer recalled)")
        self.restore_button = QPushButton("Re&store")
        self.restore_button.setToolTip("Make this memory valid again")
        self.pin_button = QPushButton("&Always keep in mind")
        self.pin_button.setToolTip("Hearth will have this memory in mind for every reply "
                                   "(it moves to the core tier)")
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        for button, signal in ((self.invalidate_button, self.invalidate_requested),
                               (self.restore_button, self.restore_requested),
                               (self.pin_button, self.pin_requested)):
            button.clicked.connect(lambda _checked=False, s=signal: self._request(s))
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.browser, 1)
        self.show_detail(None)

    def show_detail(self, detail: MemoryDetail | None, row: MemoryRow | None = None) -> None:
        """Show ``detail`` (None: nothing selected). Showing the same memory again (after
        an action) keeps the scroll position; another memory starts at the top."""
        same = detail is not None and self.detail is not None and self.detail.id == detail.id
        self.detail = detail
        self.placeholder.setVisible(detail is None)
        self.browser.setVisible(detail is not None)
        if detail is None:
            self.browser.clear()
        else:
            position = self.browser.verticalScrollBar().value() if same else 0
            self.browser.setHtml(render(detail, row))
            self.browser.verticalScrollBar().setValue(position)
        valid = detail is not None and detail.state == Validity.VALID.value
        self.invalidate_button.setEnabled(valid)
        self.restore_button.setEnabled(detail is not None and not valid)
        self.pin_button.setEnabled(detail is not None and detail.tier != MemoryTier.CORE.value)

    def _request(self, signal: Signal) -> None:
        if self.detail is not None:
            signal.emit(self.detail.id)  # type: ignore[attr-defined]

    def _follow(self, url: QUrl) -> None:
        if url.scheme() == LINK_SCHEME and url.path().isdigit():
            self.jump.emit(int(url.path()))
