"""The rendered conversation: the user's messages and the assistant's replies, one under
the other, replies as Markdown that grows while it streams.

Each message is its own small read-only text view sized to its content, so a streamed
token re-renders one reply, not the whole chat. Rendering is coalesced (at most one
Markdown pass per ``RENDER_INTERVAL_MS``), so a fast model cannot flood the event loop.
The view follows new text only while the user is at the bottom: scrolling up to read stops
the following, scrolling back down resumes it.
"""

from __future__ import annotations

import math
from collections import deque
from datetime import datetime

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.operations.chats import Exchange, KnownAnswer, tool_words
from core.operations.pending import PendingItem
from desktop.chat.code_copy import add_copy_links, code_number
from desktop.chat.failure import paint_failure
from desktop.chat.markdown import render_markdown
from desktop.chat.message_actions import MessageActions, copy_text
from desktop.chat.pending_card import PendingCard
from desktop.icons import icon
from desktop.words import speaker_name

RENDER_INTERVAL_MS = 50
DISPLAY_CHARS = 4_000
"""A pasted book is sent and saved whole; the transcript shows its beginning (laying out
megabytes of text would freeze the window) and says how much more there is."""
LOAD_BATCH = 6
"""Saved exchanges laid out per turn of the event loop when a chat opens."""
FOLLOW_SLACK_PX = 24
"""Within this distance of the bottom, the view counts as "at the bottom" and follows."""
MAX_COLUMN_WIDTH = 860


def local_time(moment: datetime | None) -> str:
    """``14:02`` today, ``3 Mar 14:02`` otherwise, in local time."""
    if moment is None:
        return ""
    local = moment.astimezone()
    if local.date() == datetime.now().astimezone().date():
        return f"{local:%H:%M}"
    return f"{local:%-d %b %H:%M}"


def tool_line(name: str, summary: str, ok: bool = True) -> tuple[str, str]:
    """A tool the reply used, as the reply shows it ("Prepared a reminder: it waits for
    your Confirm below") and, for its Details tooltip, as recorded ("set_reminder: held
    pending action 1 (reminder.create)")."""
    return tool_words(name, summary, ok), f"{name}: {summary}" + ("" if ok else " (failed)")


class _FittedText(QTextBrowser):
    """Read-only rich text whose height follows its content (no inner scroll bar)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        clear = self.palette()  # the message's own background shows through
        clear.setColor(QPalette.ColorRole.Base, Qt.GlobalColor.transparent)
        self.setPalette(clear)
        self.document().setDocumentMargin(2)
        self.document().contentsChanged.connect(self.fit)

    def fit(self) -> None:
        document = self.document()
        document.setTextWidth(max(1, self.viewport().width()))
        margins = self.contentsMargins()
        height = math.ceil(document.size().height()) + margins.top() + margins.bottom()
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.fit()


class MessageView(QFrame):
    """A header line (who, when), the text, and an optional footer line."""

    def __init__(self, who: str, meta: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.body = _FittedText(self)
        header = QHBoxLayout()
        self.who = QLabel(who)
        self.who.setTextFormat(Qt.TextFormat.PlainText)  # an imported speaker's name is text
        bold = self.who.font()
        bold.setBold(True)
        self.who.setFont(bold)
        self.meta = QLabel(meta)
        self.meta.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        header.addWidget(self.who)
        header.addWidget(self.meta)
        header.addStretch(1)
        self.header = header
        self.column = layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(2)
        layout.addLayout(header)
        layout.addWidget(self.body)

    @property
    def text(self) -> str:
        """What the message shows, as plain text (for tests and copying)."""
        return self.body.toPlainText()


class UserMessage(MessageView):
    """What the user said: plain text on a shaded background, never interpreted."""

    def __init__(self, text: str, when: datetime | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__("You", local_time(when or datetime.now().astimezone()), parent)
        self.setObjectName("user-message")
        self.full_text = text
        self.message_actions = MessageActions(lambda: self.full_text, again="Edit",
                                      again_tip="Change this message and send it again")
        self.header.addWidget(self.message_actions)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        shown = text if len(text) <= DISPLAY_CHARS else text[:DISPLAY_CHARS]
        self.body.setPlainText(shown)
        if len(text) > DISPLAY_CHARS:
            more = QLabel(f"… and {len(text) - DISPLAY_CHARS:,} more characters (all of it "
                          "was sent and saved).")
            more.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            self.column.addWidget(more)


class SpokenTurn(MessageView):
    """One turn of an imported conversation: who said it, when, and what (plain text)."""

    def __init__(self, speaker: str, text: str, when: datetime,
                 parent: QWidget | None = None) -> None:
        super().__init__(speaker_name(speaker), local_time(when), parent)
        self.setObjectName("imported-turn")
        self.body.setPlainText(text if len(text) <= DISPLAY_CHARS else text[:DISPLAY_CHARS])


class ReplyMessage(MessageView):
    """A reply: Markdown that grows as it streams, then how it ended and a "Why?" button.

    ``why_requested(interaction_id)`` asks for the memories the reply was given."""

    why_requested = Signal(int)

    def __init__(self, model: str, when: datetime | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__("Hearth", " · ".join(filter(None, [model, local_time(when)])),
                         parent)
        self.setObjectName("reply")
        self.interaction_id: int | None = None
        self.status = "pending"
        self._markdown = ""
        self.code_texts: list[str] = []
        """The code blocks shown, for their "Copy code" links (``code_copy``)."""
        self.message_actions = MessageActions(lambda: self._markdown, again="Regenerate",
                                      again_tip="Write this reply again")
        self.header.addWidget(self.message_actions)
        self.body.setOpenLinks(False)  # links are followed here: some are "Copy code"
        self.body.anchorClicked.connect(self._follow_link)
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._render)
        self.footer = QLabel("…")
        self.footer.setWordWrap(True)
        self.footer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.footer.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.why_button = QToolButton()
        self.why_button.setIcon(icon("why"))
        self.why_button.setText("Why?")
        self.why_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.why_button.setAutoRaise(True)
        self.why_button.setToolTip("Show the facts and memories this reply was given")
        self.why_button.setVisible(False)
        self.why_button.clicked.connect(self._ask_why)
        self.activity = QLabel()
        self.activity.setWordWrap(True)
        self.activity.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.activity.setVisible(False)
        self.column.insertWidget(1, self.activity)
        self.known = QLabel()
        self.known.setObjectName("known")
        self.known.setWordWrap(True)
        self.known.setTextFormat(Qt.TextFormat.PlainText)
        self.known.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.known.setFrameShape(QFrame.Shape.StyledPanel)
        self.known.setVisible(False)
        self.column.insertWidget(1, self.known)
        footer = QHBoxLayout()
        footer.addWidget(self.footer, 1)  # a long failure note gets the whole line...
        footer.addStretch(0)  # ...and with no note, "Why?" still sits on the right
        footer.addWidget(self.why_button)
        self.column.addLayout(footer)

    @property
    def markdown(self) -> str:
        """The reply's text as received (Markdown source)."""
        return self._markdown

    def append(self, delta: str) -> None:
        """Add a streamed piece; the view catches up within ``RENDER_INTERVAL_MS``."""
        self._markdown += delta
        if not self._render_timer.isActive():
            self._render_timer.start()

    def add_card(self, card: PendingCard) -> None:
        """Show a request this exchange led to under the reply's text."""
        self.column.insertWidget(self.column.count() - 1, card)

    def show_known(self, answers: tuple[KnownAnswer, ...]) -> None:
        """What Hearth knows that answers the question, above the model's phrasing: the
        true answer is on screen whatever the model writes."""
        lines = [f"• {known.what}: {known.value} ({known.source})" for known in answers]
        self.known.setText("From what you told me:\n" + "\n".join(lines))
        self.known.setVisible(True)

    def add_activity(self, line: tuple[str, str]) -> None:
        """Note what the assistant did meanwhile (a tool it used), above the text, in
        words; what was recorded is in the tooltip (Details)."""
        said, recorded = line
        shown, details = self.activity.text(), self.activity.toolTip()
        self.activity.setText(f"{shown}\n{said}" if shown else said)
        self.activity.setToolTip(f"{details}\n{recorded}" if details else f"Details:\n{recorded}")
        self.activity.setVisible(True)

    def finish(self, status: str, interaction_id: int | None, *, note: str = "") -> None:
        """The turn ended: ``completed``, ``stopped`` (partial text kept), ``failed``
        (``note`` says why and what to do), or, for a saved one, ``pending`` (still being
        answered elsewhere) or ``interrupted`` (its process stopped mid-reply)."""
        self._render_timer.stop()
        self._render()
        self.body.setVisible(bool(self._markdown))
        self.status, self.interaction_id = status, interaction_id
        texts = {"completed": "", "stopped": "stopped", "pending": "no reply yet",
                 "interrupted": "interrupted (Hearth stopped before the reply was finished)",
                 "failed": note or "this reply failed"}
        self.footer.setText(texts.get(status, status))
        if status == "failed":
            paint_failure(self.footer)
        self.footer.setVisible(bool(self.footer.text()))
        self.why_button.setVisible(interaction_id is not None and status != "failed")

    def show_saved(self, exchange: Exchange) -> None:
        """Show a reply loaded from the history at once (no streaming)."""
        self._markdown = exchange.agent_response
        for tool in exchange.tools:
            self.add_activity(tool_line(str(tool.get("name", "tool")),
                                        str(tool.get("summary", "")), bool(tool.get("ok", True))))
        self.finish(exchange.status, exchange.interaction_id)

    def _render(self) -> None:
        render_markdown(self.body.document(), self._markdown, self.palette())
        self.code_texts = add_copy_links(self.body.document(), self.palette())

    def _follow_link(self, url: QUrl) -> None:
        number = code_number(url)
        if number is None:
            QDesktopServices.openUrl(url)
        elif number < len(self.code_texts):
            copy_text(self.code_texts[number])

    def _ask_why(self) -> None:
        if self.interaction_id is not None:
            self.why_requested.emit(self.interaction_id)


class Transcript(QScrollArea):
    """The messages of the open chat, newest at the bottom.

    The last exchange offers Edit and Regenerate (``again_allowed``, set by the page);
    ``edit_requested(interaction_id, text)`` and ``regenerate_requested(interaction_id)``
    pass the user's click on. Requests held for the user's confirmation show as cards
    under the reply that led to them (``show_pending``); their buttons are passed on as
    ``pending_confirm_requested(id)``, ``pending_cancel_requested(id)`` and
    ``pending_edit_requested(item)``."""

    why_requested = Signal(int)
    edit_requested = Signal(int, str)
    regenerate_requested = Signal(int)
    pending_confirm_requested = Signal(int)
    pending_cancel_requested = Signal(int)
    pending_edit_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._column = QWidget()
        self._column.setMaximumWidth(MAX_COLUMN_WIDTH)
        self._layout = QVBoxLayout(self._column)
        self._layout.setContentsMargins(16, 16, 16, 16)
        self._layout.setSpacing(10)
        self._empty = QLabel()
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setWordWrap(True)
        self._empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self._layout.addWidget(self._empty)
        self._layout.addStretch(1)
        outer = QWidget()
        centring = QHBoxLayout(outer)
        centring.setContentsMargins(0, 0, 0, 0)
        centring.addWidget(self._column)
        self.setWidget(outer)
        self._following = True
        self._saved_end = 1
        self._pending: deque[Exchange] = deque()
        self._loader = QTimer(self)
        self._loader.setSingleShot(True)
        self._loader.setInterval(0)
        self._loader.timeout.connect(self._load_batch)
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._keep_following)
        bar.valueChanged.connect(self._note_position)
        self._again_allowed = True
        self.cards: dict[int, PendingCard] = {}
        """The approval cards shown, by pending action id."""
        self._held: tuple[PendingItem, ...] = ()
        """Requests to show once the saved exchanges they belong under are laid out."""
        self.set_empty_text("")

    # --- content -----------------------------------------------------------------------------

    @property
    def messages(self) -> list[MessageView]:
        return [w for w in self._column.findChildren(MessageView)
                if w.parent() is self._column]

    def clear(self) -> None:
        self._loader.stop()
        self._pending.clear()
        for widget in [*self.messages, *self.cards.values()]:
            widget.setParent(None)
            widget.deleteLater()
        self.cards.clear()
        self._held = ()
        self._saved_end = 1  # saved exchanges go after the empty-chat hint
        self._following = True
        self._empty.setVisible(True)

    def set_empty_text(self, text: str) -> None:
        """What an empty chat shows (a hint, or why nothing can be shown)."""
        self._empty.setText(text or "Ask anything. Hearth remembers what you tell it, and "
                                    "everything stays on this computer.")

    @property
    def loading(self) -> bool:
        """Saved exchanges are still being added (see ``show_exchanges``)."""
        return bool(self._pending)

    def show_exchanges(self, exchanges: list[Exchange]) -> None:
        """Replace the transcript with a saved conversation and follow it to its end.

        A long chat is laid out ``LOAD_BATCH`` exchanges per turn of the event loop (each
        costs a few milliseconds of Markdown and layout), so opening a chat of hundreds of
        exchanges never freezes the window. Messages sent meanwhile stay below them."""
        self.clear()
        self._pending.extend(exchanges)
        self._load_batch()

    def outdated_by(self, exchanges: list[Exchange]) -> bool:
        """Whether ``exchanges``, the chat as stored now, say other words than those shown:
        an exchange shown was rewritten (a forget, an edit in another window) or is gone.
        A reply still being written, or failed (its note says why), is left out."""
        stored = {exchange.interaction_id: exchange for exchange in exchanges}
        asked: UserMessage | None = None
        for message in self.messages:
            if isinstance(message, UserMessage):
                asked = message
            elif isinstance(message, ReplyMessage) and message.interaction_id is not None:
                saved = stored.get(message.interaction_id)
                if saved is None or (asked is not None
                                     and saved.user_message != asked.full_text):
                    return True
                if message.status != "failed" and saved.agent_response != message.markdown:
                    return True
        return False

    def _load_batch(self) -> None:
        for _ in range(min(LOAD_BATCH, len(self._pending))):
            exchange = self._pending.popleft()
            if exchange.speaker is not None:  # an imported conversation's turn
                self._insert_saved(SpokenTurn(exchange.speaker, exchange.user_message,
                                              exchange.created_at))
                continue
            self._insert_saved(self._connect_user(
                UserMessage(exchange.user_message, exchange.created_at)))
            label = " · ".join(filter(None, [exchange.provider, exchange.model]))
            reply = self._connect(ReplyMessage(label, exchange.created_at))
            reply.show_saved(exchange)
            self._insert_saved(reply)
        if self._pending:
            self._loader.start()
        else:
            self.offer_again()  # the last exchange is on screen now
            held, self._held = self._held, ()
            if held:
                self.show_pending(held)

    def show_pending(self, items: tuple[PendingItem, ...]) -> None:
        """Show each request as a card under the reply it came from (at the end when that
        reply is not on screen), or bring an existing card up to date."""
        if self._pending:  # still laying out the saved chat: once its replies are there
            self._held = items
            return
        replies = {m.interaction_id: m for m in self.messages
                   if isinstance(m, ReplyMessage) and m.interaction_id is not None}
        for item in items:
            card = self.cards.get(item.id)
            if card is not None:
                if card.waiting:
                    card.update_item(item)
                continue
            card = self.cards[item.id] = PendingCard(item)
            card.confirm_requested.connect(self.pending_confirm_requested)
            card.cancel_requested.connect(self.pending_cancel_requested)
            card.edit_requested.connect(self.pending_edit_requested)
            reply = replies.get(item.interaction_id or 0)
            if reply is not None:
                reply.add_card(card)
            else:
                self._empty.setVisible(False)
                self._layout.insertWidget(self._layout.count() - 1, card)

    def add_user(self, text: str, when: datetime | None = None) -> UserMessage:
        message = self._connect_user(UserMessage(text, when))
        self._insert(message, self._layout.count() - 1)
        return message

    def remove(self, message: MessageView) -> None:
        """Take a message away (the last exchange, answered again)."""
        for action_id, card in list(self.cards.items()):
            if message.isAncestorOf(card):  # it goes with its reply; shown again after
                del self.cards[action_id]
        message.setParent(None)
        message.deleteLater()
        self.offer_again()

    def set_again_allowed(self, allowed: bool) -> None:
        """Whether the last exchange may be answered again now (not while a reply runs,
        nor in a read-only chat)."""
        self._again_allowed = allowed
        self.offer_again()

    def last_exchange(self) -> tuple[UserMessage | None, ReplyMessage | None]:
        """The last message of the user and the reply under it (None where missing)."""
        messages = self.messages
        user = next((m for m in reversed(messages) if isinstance(m, UserMessage)), None)
        reply = messages[-1] if messages and isinstance(messages[-1], ReplyMessage) else None
        return user, reply

    def offer_again(self) -> None:
        """Show Edit and Regenerate on the last exchange only, once its reply is saved."""
        user, reply = self.last_exchange()
        ready = (self._again_allowed and not self._pending and reply is not None
                 and reply.interaction_id is not None
                 and reply.status != "pending")  # still being answered (elsewhere)
        for message in self.messages:
            if isinstance(message, (UserMessage, ReplyMessage)):
                message.message_actions.offer_again(ready and message in (user, reply))

    def start_reply(self, model: str, when: datetime | None = None) -> ReplyMessage:
        reply = self._connect(ReplyMessage(model, when))
        self._insert(reply, self._layout.count() - 1)
        return reply

    def _connect(self, reply: ReplyMessage) -> ReplyMessage:
        reply.why_requested.connect(self.why_requested)
        reply.message_actions.again_requested.connect(lambda: self._regenerate(reply))
        return reply

    def _connect_user(self, message: UserMessage) -> UserMessage:
        message.message_actions.again_requested.connect(self._edit)
        return message

    def _regenerate(self, reply: ReplyMessage) -> None:
        if reply.interaction_id is not None:
            self.regenerate_requested.emit(reply.interaction_id)

    def _edit(self) -> None:
        user, reply = self.last_exchange()
        if user is not None and reply is not None and reply.interaction_id is not None:
            self.edit_requested.emit(reply.interaction_id, user.full_text)

    def _insert_saved(self, message: MessageView) -> None:
        self._insert(message, self._saved_end)
        self._saved_end += 1

    def _insert(self, message: MessageView, position: int) -> None:
        self._empty.setVisible(False)
        self._layout.insertWidget(position, message)

    # --- following new text ------------------------------------------------------------------

    @property
    def following(self) -> bool:
        """True while new text scrolls into view (the user has not scrolled up)."""
        return self._following

    def scroll_to_end(self) -> None:
        """Follow new text again (the user has just sent a message)."""
        self._following = True
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _note_position(self, value: int) -> None:
        self._following = value >= self.verticalScrollBar().maximum() - FOLLOW_SLACK_PX

    def _keep_following(self, _minimum: int, maximum: int) -> None:
        if self._following:
            self.verticalScrollBar().setValue(maximum)
