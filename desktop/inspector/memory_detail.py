"""The pane beside the memory list: one memory in plain words (what it says, whether it is
used, where it came from, what replaced it), the internals one click away behind "Details"
(its type, tier, scores, ids, origin and the links' kinds and weights), and the actions.

Rendered as rich text in a ``QTextBrowser``: it takes the palette's colours (so it reads in
light and dark themes), scrolls as one page, and its links (other memories, the "Details"
disclosure) are reachable with Tab and followed with Enter as well as by clicking. A link
to a memory asks the page to jump there.
"""

from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import QUrl, Signal, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from core.operations.memories import (
    ChainLink,
    Edge,
    MemoryDetail,
    MemoryRef,
    MemoryRow,
    MemoryTier,
    Validity,
    said_by_assistant,
    speaker,
)
from desktop.inspector.formatting import local_time
from desktop.inspector.memory_signals import Signals, describe_signals, ways_found
from desktop.words import listing, speaker_name, spoken

LINK_SCHEME = "memory"
DETAILS_LINK = "details:toggle"
PREVIEW_CHARS = 90
"""Of another memory's text in a link or chain line (its own pane shows all of it)."""
EMPTY = "Select a memory to see where it came from, what it is linked to and what replaced it."
SOURCES = {
    "import": "an imported conversation",
    "distil": "a chat, summed up after it ended",
    "merge": "several similar memories, merged into one",
    "processor": "what Hearth noted during your chats",
    "consolidation": "what Hearth learned from your chats",
    "session_close": "a chat, when it ended",
    "chat": "a chat",
    "conversation": "a chat",
    "tool": "a chat",
    "extraction": "a chat",
    "explicit_rule": "something you said in a chat",
    "reflection": "Hearth's reflection on your chats",
    "agent": "the assistant",
    "user": "you",
}
"""Where a memory came from, by its ``source``, in words (others are shown as they are)."""


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS - 1] + "…"


def _link(ref: MemoryRef) -> str:
    state = ("" if ref.state == Validity.VALID.value
             else f" <i>({escape(_state_word(ref.state))})</i>")
    return (f'<a href="{LINK_SCHEME}:{ref.id}">#{ref.id}</a> '
            f"{escape(_preview(spoken(ref.content, ref.speaker)))}"
            f"{state}")


def _rows(pairs: list[tuple[str, Any]]) -> str:
    """A two-column key/value table, skipping empty values."""
    cells = "".join(f"<tr><td><b>{escape(label)}</b>&nbsp;&nbsp;</td><td>{escape(str(value))}"
                    "</td></tr>" for label, value in pairs if value not in (None, "", [], {}))
    return f"<table cellspacing='0' cellpadding='1'>{cells}</table>"


def _state_word(state: str) -> str:
    return {Validity.VALID.value: "in use", Validity.INVALID.value: "marked wrong",
            Validity.SUPERSEDED.value: "replaced"}.get(state, state)


def _state(detail: MemoryDetail) -> str:
    """Whether the assistant uses it, in words."""
    if detail.state == Validity.INVALID.value:
        reason = f": {detail.invalid_reason}" if detail.invalid_reason else ""
        return f"Marked wrong{reason}. Not used in replies."
    if detail.state == Validity.SUPERSEDED.value:
        return "Replaced by a newer memory. Not used in replies."
    if detail.tier == MemoryTier.CORE.value:
        return "Always kept in mind, for every reply."
    return "Used in replies when it is relevant."


def _speaker(detail: MemoryDetail) -> str | None:
    """Who said an imported turn; the assistant's own line is told apart from the user's."""
    if said_by_assistant(detail.origin):
        return "the assistant: its reply, kept as part of the conversation, not as " \
               "something known about you"
    named = speaker(detail.origin)
    if named is None:
        return None
    return "you" if speaker_name(named) == "You" else named


def _uses(detail: MemoryDetail) -> str:
    if not detail.access_count:
        return "never recalled into a reply"
    times = "once" if detail.access_count == 1 else f"{detail.access_count} times"
    return f"{times}, last {local_time(detail.last_accessed_at)}"


def _found_by(signals: Signals) -> str:
    """How a search found it, without the scoring terms (those are in the details)."""
    ways = ways_found(signals)
    if not ways:
        return ""
    return f"Found by {listing(ways)}."


def _edge_line(edge: Edge) -> str:
    """``knn 0.71 → #7 …``: the arrow says which way the link points (a summary points at
    its sources)."""
    arrow = "→" if edge.outgoing else "←"
    return (f"<li><b>{escape(edge.kind)}</b> {edge.weight:.2f} {arrow} "
            f"{_link(edge.other)}</li>")


def _chain(title: str, links: list[ChainLink]) -> str:
    if not links:
        return ""
    items = "".join(f"<li>{'&nbsp;' * 4 * (link.depth - 1)}{_link(link.memory)}</li>"
                    for link in links)
    return f"<h4>{escape(title)}</h4><ul>{items}</ul>"


def _plain(detail: MemoryDetail, row: MemoryRow | None) -> list[str]:
    """What a person asks first: what it says, whether it is used, where it came from."""
    parts = [f"<h3>Memory #{detail.id}</h3>"]
    if row is not None and row.excerpt:
        parts.append(f"<p><b>The part that matched:</b></p>"
                     f"<p style='white-space: pre-wrap'>… {escape(row.excerpt)} …</p>"
                     f"<h4>All of it</h4>")
    said = spoken(detail.content, speaker(detail.origin))
    parts += [f"<p style='white-space: pre-wrap'>{escape(said)}</p>",
              _rows([("Status", _state(detail)),
                     ("Came from", SOURCES.get(detail.source, detail.source)),
                     ("Said by", _speaker(detail)),
                     ("About", detail.category if detail.category != "general" else None),
                     ("Tags", ", ".join(detail.tags)),
                     ("Dated", local_time(detail.created_at)),
                     ("Recalled", _uses(detail))])]
    if row is not None and row.score is not None:
        parts.append(f"<p>{escape(_found_by(row.signals))}</p>")
    others = list({edge.other.id: edge.other for edge in detail.edges}.values())
    if others:  # a link both ways is one relation to a person
        related = "".join(f"<li>{_link(other)}</li>" for other in others)
        parts.append(f"<h4>Related memories ({len(others)})</h4><ul>{related}</ul>")
    parts.append(_chain("Replaced by (newer)", detail.replaced_by))
    parts.append(_chain("Replaced (older)", detail.replaced))
    return parts


def _details(detail: MemoryDetail, row: MemoryRow | None) -> list[str]:
    """The internals, for whoever wants to know how Hearth files and ranks it."""
    parts = [_rows([("Type", detail.memory_type), ("Tier", detail.tier),
                    ("Namespace", detail.namespace), ("Priority", detail.priority),
                    ("Importance", f"{detail.importance:.2f}"),
                    ("Strength", f"{detail.strength:.2f}"),
                    ("Freshness", f"{detail.freshness:.2f}"),
                    ("Updated", local_time(detail.updated_at))])]
    if detail.entities:
        parts.append(_rows([(kind, ", ".join(names)) for kind, names
                            in sorted(detail.entities.items())]))
    if row is not None and row.score is not None:
        lines = "".join(f"<li>{escape(line)}</li>" for line in describe_signals(row.signals))
        parts.append(f"<h4>Why it matched (score {row.score:.3f})</h4><ul>{lines}</ul>")
    origin = [(str(key).replace("_", " ").capitalize(),
               ", ".join(map(str, value)) if isinstance(value, list) else value)
              for key, value in sorted(detail.origin.items())
              if key != "turn_id" and isinstance(value, (str, int, float, list))]
    parts.append("<h4>Provenance</h4>")
    parts.append(_rows([("Source", detail.source), ("Turn", detail.turn_id),
                        ("External id", detail.external_id), ("Session", detail.session_id),
                        ("Exchange", detail.interaction_id), ("Event", detail.event_id),
                        *origin, ("Embedded by", detail.embedding_model)]))
    if detail.edges:
        parts.append(f"<h4>Links ({len(detail.edges)})</h4><ul>"
                     + "".join(_edge_line(edge) for edge in detail.edges) + "</ul>")
    else:
        parts.append("<p>No links to other memories yet (the nightly review draws them).</p>")
    return parts


def render(detail: MemoryDetail, row: MemoryRow | None = None, *,
           details: bool = False) -> str:
    """The pane's HTML for a memory; ``row`` adds how a search found it; ``details`` opens
    the disclosure with the internals."""
    parts = _plain(detail, row)
    toggle = "▾ Hide details" if details else "▸ Details"
    parts.append(f'<p><a href="{DETAILS_LINK}">{toggle}</a></p>')
    if details:
        parts += _details(detail, row)
    return "".join(parts)


class MemoryDetailPane(QWidget):
    """Shows one memory; asks the page to act on it through signals (the page runs the
    change in the background and reloads). Delete acts on every selected row: the page
    says how many with ``set_delete_count``."""

    jump = Signal(int)
    invalidate_requested = Signal(int)
    restore_requested = Signal(int)
    pin_requested = Signal(int)
    delete_requested = Signal()
    erase_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.detail: MemoryDetail | None = None
        self._row: MemoryRow | None = None
        self.details_shown = False
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
        self.delete_button = QPushButton("&Delete")
        self.delete_button.setToolTip("Delete the selected memories and their links; nothing "
                                      "else changes, and you can undo it (Delete key). To "
                                      "keep a wrong one but stop its use, invalidate it")
        self.delete_button.clicked.connect(self.delete_requested)
        self.erase_button = QPushButton("&Erase everywhere…")
        self.erase_button.setToolTip("Erase the selected memories and their words in your "
                                     "chats, notes and facts too, for good")
        self.erase_button.clicked.connect(self.erase_requested)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        for button, signal in ((self.invalidate_button, self.invalidate_requested),
                               (self.restore_button, self.restore_requested),
                               (self.pin_button, self.pin_requested)):
            button.clicked.connect(lambda _checked=False, s=signal: self._request(s))
            buttons.addWidget(button)
        buttons.addStretch(1)
        removing = QHBoxLayout()  # a row of its own: both fit a narrow pane
        removing.setContentsMargins(0, 0, 0, 0)
        removing.addWidget(self.delete_button)
        removing.addWidget(self.erase_button)
        removing.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addLayout(removing)
        layout.addWidget(self.placeholder)
        layout.addWidget(self.browser, 1)
        self.show_detail(None)

    def show_detail(self, detail: MemoryDetail | None, row: MemoryRow | None = None) -> None:
        """Show ``detail`` (None: nothing selected, every action disabled). Showing the same
        memory again (after an action) keeps the scroll position; another memory starts at
        the top."""
        same = detail is not None and self.detail is not None and self.detail.id == detail.id
        self.detail, self._row = detail, row
        self.placeholder.setVisible(detail is None)
        self.browser.setVisible(detail is not None)
        if detail is None:
            self.browser.clear()
        else:
            position = self.browser.verticalScrollBar().value() if same else 0
            self.browser.setHtml(render(detail, row, details=self.details_shown))
            self.browser.verticalScrollBar().setValue(position)
        valid = detail is not None and detail.state == Validity.VALID.value
        self.invalidate_button.setEnabled(valid)
        self.restore_button.setEnabled(detail is not None and not valid)
        self.pin_button.setEnabled(detail is not None and detail.tier != MemoryTier.CORE.value)
        if detail is None:
            self.set_delete_count(0)

    def set_delete_count(self, count: int) -> None:
        """How many memories Delete and Erase act on (the selected rows, or the one shown)."""
        self.delete_button.setEnabled(count > 0)
        self.erase_button.setEnabled(count > 0)
        self.delete_button.setText("&Delete" if count <= 1 else f"&Delete {count}")

    def toggle_details(self) -> None:
        """Open or close the internals; the choice stays for the next memory shown."""
        self.details_shown = not self.details_shown
        if self.detail is not None:
            self.show_detail(self.detail, self._row)

    def _request(self, signal: SignalInstance) -> None:
        if self.detail is not None:
            signal.emit(self.detail.id)

    def _follow(self, url: QUrl) -> None:
        if url.toString() == DETAILS_LINK:
            self.toggle_details()
        elif url.scheme() == LINK_SCHEME and url.path().isdigit():
            self.jump.emit(int(url.path()))
