"""A new agent asking for access, as a notification: "“notes-bot” asks to use your memory",
what reading would cover, the narrower choices (``desktop.agent_scope``), and Allow read,
Allow read and write, Deny.

Another program connecting over MCP used to be invisible until the Agents view was opened.
The MCP server runs in another process (``hearth mcp``), which no signal of this window
reaches, so the window asks the database every ``ASK_POLL_MS`` (one small query on a worker,
never two at once) and whenever agents change here. An agent asks once: its first call
without access is noted (``core.agents.registry``), and any answer, Deny included, is the
user's grant, so the card does not come back. ✕ puts a request aside for this session; it
stays marked in the Agents view, where it can be answered later. While the window is in
the tray, a balloon says that a program asks.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.operations import agents
from core.operations.agents import AgentInfo
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from desktop.agent_scope import ScopeChooser
from desktop.context import AppContext
from desktop.inspector.agents import reads_text
from desktop.notification_area import NoticeCard, NotificationArea

ASK_POLL_MS = 5_000
"""How soon a program's request shows: a few seconds after its first call."""
ANSWERS = (("read", "Allow read"), ("write", "Allow read and write"), ("none", "Deny"))
WRITE_NOTE = ("Allow read and write: the same, and it may also ask to add facts and notes; "
              "each waits for your review before it becomes part of your memory.")
GRANTED = {"none": "has no access", "read": "may read your memory",
           "write": "may read your memory and ask to add to it"}


class AccessRequestCard(NoticeCard):
    """One agent's request: what it would be allowed, the choices, and the answers."""

    def __init__(self, info: AgentInfo) -> None:
        self.scope = ScopeChooser()
        writing = QLabel(WRITE_NOTE)
        writing.setWordWrap(True)
        writing.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        choices = QWidget()
        column = QVBoxLayout(choices)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.scope)
        column.addWidget(writing)
        super().__init__(f"“{info.name}” asks to use your memory",
                         f"A program on this computer, calling itself “{info.name}”, "
                         "connected to Hearth over MCP. If you allow it to read:", ANSWERS,
                         extra=choices)
        self.info = info
        self.scope.show_grant("read")


class AgentRequests(QObject):
    """Finds the agents asking for access and shows a card for each."""

    def __init__(self, ctx: AppContext, area: NotificationArea,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.area = area
        self._set_aside: set[str] = set()
        self._looking = False
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(ASK_POLL_MS)
        ctx.hub.changed.connect(self._changed)

    @property
    def cards(self) -> list[AccessRequestCard]:
        return [card for card in self.area.cards if isinstance(card, AccessRequestCard)]

    def check(self) -> None:
        """Look for agents asking (in the background; one look at a time)."""
        if self._looking:
            return
        self._looking = True
        hearth = self.ctx.hearth
        self.ctx.workers.start("Looking for programs asking for access",
                               lambda _task: agents.asking(hearth), on_done=self._show,
                               on_failed=lambda _message, _hint: self._done_looking(),
                               owner=self)

    def _done_looking(self) -> None:
        self._looking = False

    def _changed(self, changes: Changes) -> None:
        if changes.touches(Domain.AGENTS):
            self.check()

    def _show(self, asking: tuple[AgentInfo, ...]) -> None:
        self._looking = False
        names = {info.name for info in asking}
        for card in self.cards:
            if card.info.name not in names:  # answered elsewhere (the Agents view, the CLI)
                self.area.remove(card)
        shown = {card.info.name for card in self.cards}
        for info in asking:
            if info.name in shown or info.name in self._set_aside:
                continue
            card = AccessRequestCard(info)
            card.answered.connect(lambda key, card=card: self._answer(card, key))
            card.dismissed.connect(lambda name=info.name: self._set_aside.add(name))
            self.area.add(card)
            self.ctx.hub.notify.emit(card.title.text(), "Open Hearth to allow or deny it.")

    def _answer(self, card: AccessRequestCard, access: str) -> None:
        hearth, name = self.ctx.hearth, card.info.name
        scope, hidden = card.scope.scope, card.scope.hidden

        def done(result: Done[AgentInfo]) -> None:
            info = result.value
            self.area.remove(card)
            limits = reads_text(info) if info.access != "none" else "everything"
            shown = "" if limits == "everything" else f" ({limits})"
            self.ctx.hub.status_message.emit(f"{info.name} {GRANTED[info.access]}{shown}; "
                                             "Agents shows what it covers.")

        def failed(message: str, hint: str) -> None:
            for button in card.buttons.values():
                button.setEnabled(True)
            self.ctx.hub.status_message.emit(f"{message} {hint}".strip())

        self.ctx.workers.start(f"Answering {name}", lambda _task: agents.grant(
            hearth, name, access, scope=scope, hidden=hidden), on_done=done, on_failed=failed,
            writes=True, owner=self)
