"""Agents: the other local programs that use Hearth's memory over MCP (``hearth mcp``).

The table lists each agent with what it may do (no access, read, read and write; "asks for
access" while a new one waits for an answer), how far its reading goes (everything, search
only, some topics kept private), whether its writes are trusted, and how many of them wait
for review. Beside it, for the selected agent: what its grant covers in a sentence, with
"Only let it search" and "Keep private from it" (applied at once, enforced by the tools),
its writes held for review, each accepted or rejected here (accepting a forget is
asked once more: it removes the value everywhere), and what it read and wrote (its audited
calls, arguments redacted), and its tokens for HTTP: made here ("New token…", shown once
with the client configuration to paste), revoked here (asked first). Everything is read
and changed through
``core.operations.agents`` on workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.operations import agents
from core.operations.agents import AgentCall, AgentInfo, AgentWriteItem, NewToken, TokenInfo
from core.operations.changes import Domain
from desktop.agent_scope import ScopeChooser
from desktop.context import AppContext
from desktop import confirm
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column
from desktop.inspector.table_page import TablePage
from desktop.inspector.token_dialog import TokenDialog

ACCESS_WORDS = {"none": "no access", "read": "read", "write": "read and write"}


def reads_text(agent: AgentInfo) -> str:
    """How far its reading goes: "everything", "search only", "everything but health"."""
    if agent.access == "none":
        return ""
    reach = "search only" if agent.scope == "search" else "everything"
    return f"{reach}, not {', '.join(agent.hidden)}" if agent.hidden else reach


AGENT_COLUMNS: tuple[Column[AgentInfo], ...] = (
    Column("Agent", lambda a: a.name),
    Column("May", lambda a: ACCESS_WORDS.get(a.access, a.access) + (
        " (asks for access)" if a.asking else "")),
    Column("Reads", reads_text),
    Column("Writes", lambda a: "applied at once" if a.trusted else "held for review"),
    Column("Waiting", lambda a: str(a.held) if a.held else "", lambda a: a.held),
    Column("Last seen", lambda a: local_time(a.last_seen_at), lambda a: time_key(a.last_seen_at)),
)


def call_text(call: AgentCall) -> str:
    return f"{local_time(call.at)}  {call.kind}  {call.tool}: {call.summary}"


def token_text(token: TokenInfo) -> str:
    used = local_time(token.last_used_at) if token.last_used_at else "never"
    return f"Token {token.id}  made {local_time(token.created_at)}  last used {used}"


class AgentDetail(QWidget):
    """What the selected agent may do (and how far its reading goes, changed here), its held
    writes (Accept / Reject), its history and its tokens."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scope = ScopeChooser()
        self.scope.setEnabled(False)
        self.held = QListWidget()
        self.held.setObjectName("held-writes")
        self.accept = QPushButton("&Accept")
        self.accept.setToolTip("Apply the selected write to Hearth's memory")
        self.reject = QPushButton("&Reject")
        self.reject.setToolTip("Drop the selected write: nothing is applied")
        self.history = QListWidget()
        self.history.setObjectName("agent-history")
        self.tokens = QListWidget()
        self.tokens.setObjectName("agent-tokens")
        self.new_token = QPushButton("New t&oken…")
        self.new_token.setToolTip("Make a token that is this agent over HTTP, whatever its "
                                  "client calls itself (shown once)")
        self.revoke = QPushButton("Re&voke")
        self.revoke.setToolTip("Refuse the selected token from now on")
        token_buttons = QHBoxLayout()
        token_buttons.addWidget(self.new_token)
        token_buttons.addWidget(self.revoke)
        token_buttons.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.accept)
        buttons.addWidget(self.reject)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scope)
        layout.addWidget(QLabel("Waiting for your review"))
        layout.addWidget(self.held, 1)
        layout.addLayout(buttons)
        layout.addWidget(QLabel("What it read and wrote"))
        layout.addWidget(self.history, 2)
        layout.addWidget(QLabel("Its tokens for HTTP"))
        layout.addWidget(self.tokens, 1)
        layout.addLayout(token_buttons)
        self.held.currentItemChanged.connect(lambda *_: self._enable())
        self.tokens.currentItemChanged.connect(lambda *_: self._enable())
        self._enable()

    def show_agent(self, writes: Sequence[AgentWriteItem], calls: Sequence[AgentCall],
                   tokens: Sequence[TokenInfo] = (), chosen: bool = True) -> None:
        self.held.clear()
        for write in writes:
            if write.status == "held":
                item = QListWidgetItem(f"{write.preview}  ({local_time(write.created_at)})")
                item.setData(Qt.ItemDataRole.UserRole, write)
                self.held.addItem(item)
        self.history.clear()
        self.history.addItems([call_text(call) for call in calls])
        self.tokens.clear()
        for token in tokens:
            item = QListWidgetItem(token_text(token))
            item.setData(Qt.ItemDataRole.UserRole, token)
            self.tokens.addItem(item)
        self.new_token.setEnabled(chosen)
        self._enable()

    def selected_write(self) -> AgentWriteItem | None:
        item = self.held.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def selected_token(self) -> TokenInfo | None:
        item = self.tokens.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def _enable(self) -> None:
        chosen = self.held.currentItem() is not None
        self.accept.setEnabled(chosen)
        self.reject.setEnabled(chosen)
        self.revoke.setEnabled(self.tokens.currentItem() is not None)


NO_AGENTS_YET = (
    "No program has used your memory yet. To let one (Claude Desktop, an editor, a script) "
    "use it, add the command \u201chearth mcp\u201d to that program's MCP configuration "
    "(docs/mcp.md): it appears here the first time it connects, with no access until you "
    "give it some. For a program that connects over HTTP, run \u201chearth mcp grant NAME "
    "read\u201d first, then select it here and make it a token.")


class AgentsPage(TablePage):
    key = "agents"
    title = "Agents"
    icon_name = "agents"
    about = ("Other programs on this computer that use your memory over MCP: what each may "
             "do, the writes waiting for your review, and what each read and wrote.")
    search_hint = "Search agents"
    domains = frozenset({Domain.AGENTS})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        self.detail = AgentDetail()
        self.token_dialog: TokenDialog | None = None
        super().__init__(ctx, parent)
        self.no_access = self.add_button("&No access", None, lambda: self._grant("none"),
                                         tooltip="The agent can no longer read or write")
        self.read = self.add_button("Rea&d", None, lambda: self._grant("read"),
                                    tooltip="The agent may search and read your memory")
        self.write = self.add_button("Read and &write", None, lambda: self._grant("write"),
                                     tooltip="The agent may also ask to write (held for review)")
        self.trust = self.add_button("&Trust", None, self._toggle_trust,
                                     tooltip="Apply its facts and observations without review "
                                             "(forgetting always waits for you)")
        self.detail.scope.changed.connect(self._narrow)
        self.detail.accept.clicked.connect(lambda _checked=False: self._answer(True))
        self.detail.reject.clicked.connect(lambda _checked=False: self._answer(False))
        self.detail.new_token.clicked.connect(lambda _checked=False: self._new_token())
        self.detail.revoke.clicked.connect(lambda _checked=False: self._revoke())
        self.empty_hint = QLabel(NO_AGENTS_YET)
        self.empty_hint.setObjectName("no-agents-yet")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setVisible(False)
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, self.empty_hint)  # under the search row, above the table

    def columns(self) -> Sequence[Column[AgentInfo]]:
        return AGENT_COLUMNS

    def identity(self, record: Any) -> str:
        return str(record.name)

    def load_records(self, query: str, choice: str | None) -> Sequence[AgentInfo]:
        return agents.list_agents(self.ctx.hearth)

    def show_loaded(self, result: Sequence[Any]) -> None:
        super().show_loaded(result)
        self.empty_hint.setVisible(not result)  # an empty table alone says nothing

    def detail_widget(self) -> QWidget | None:
        return self.detail

    def selection_allows(self, button: QPushButton, record: Any) -> bool:
        if button is self.trust:
            button.setText("Stop &trusting" if record.trusted else "&Trust")
            return bool(record.trusted or record.access == "write")
        return bool(record.access != {self.no_access: "none", self.read: "read",
                                      self.write: "write"}.get(button))

    def show_detail(self, record: Any | None) -> None:
        if record is None:
            self.detail.scope.show_grant(None)
            self.detail.scope.setEnabled(False)
            self.detail.show_agent((), (), (), chosen=False)
            return
        self.detail.scope.show_grant(record.access, record.scope, record.hidden,
                                     record.trusted)
        self.detail.scope.setEnabled(record.access != "none")
        hearth, name = self.ctx.hearth, record.name
        self.run(f"Loading what {name} did",
                 lambda _task: (agents.writes_of(hearth, name), agents.calls_of(hearth, name),
                                agents.tokens(hearth, name)),
                 lambda loaded: self._detail_loaded(name, loaded))

    def _detail_loaded(self, name: str, loaded: tuple[Any, Any, Any]) -> None:
        current = self.selected()
        if current is not None and current.name == name:
            self.detail.show_agent(*loaded)

    def _grant(self, access: str) -> None:
        agent = self.selected()
        if agent is None:
            return
        hearth, name = self.ctx.hearth, agent.name
        self.change(f"Changing what {name} may do", lambda: agents.grant(hearth, name, access),
                    lambda info: f"{info.name} now has {ACCESS_WORDS[info.access]} access."
                    if info.access != "none" else f"{info.name} now has no access.")

    def _narrow(self) -> None:
        """The scope's boxes changed: the same access, reading as far as they now say."""
        agent = self.selected()
        if agent is None or agent.access == "none":
            return
        hearth, name, access = self.ctx.hearth, agent.name, agent.access
        scope, hidden = self.detail.scope.scope, self.detail.scope.hidden
        self.change(f"Changing what {name} may read",
                    lambda: agents.grant(hearth, name, access, scope=scope, hidden=hidden),
                    lambda info: f"{info.name}: {info.covers}")

    def _toggle_trust(self) -> None:
        agent = self.selected()
        if agent is None:
            return
        hearth, name, trusted = self.ctx.hearth, agent.name, not agent.trusted
        self.change(f"Changing trust in {name}", lambda: agents.trust(hearth, name, trusted),
                    lambda info: f"{info.name}'s writes are now " + (
                        "applied at once, except changes to facts you set." if info.trusted
                        else "held for review."))

    def _answer(self, accept: bool) -> None:
        write = self.detail.selected_write()
        if write is None:
            return
        if accept and write.action == "forget_fact" and not confirm.ask(
                self, "Forget a fact", f"{write.agent} asks: {write.preview}.\n\nThe fact and "
                "every earlier value of it are removed everywhere Hearth keeps them.",
                "Forget"):
            return
        hearth, write_id = self.ctx.hearth, write.id
        if accept:
            self.change("Accepting an agent's write", lambda: agents.accept(hearth, write_id),
                        lambda item: f"Accepted: {item.result or item.preview}")
        else:
            self.change("Rejecting an agent's write", lambda: agents.reject(hearth, write_id),
                        lambda item: f"Rejected: {item.preview}")

    def _new_token(self) -> None:
        agent = self.selected()
        if agent is None:
            return
        hearth, name = self.ctx.hearth, agent.name
        self.change(f"Making a token for {name}", lambda: agents.add_token(hearth, name),
                    self._token_made)

    def _token_made(self, made: NewToken) -> str:
        """Show the token (once) in its dialog; the status bar says what to do with it."""
        self.token_dialog = TokenDialog(made, self)
        self.token_dialog.open()
        return f"Made a token for {made.info.agent}: copy it now, it is shown only once."

    def _revoke(self) -> None:
        token, agent = self.detail.selected_token(), self.selected()
        if token is None or agent is None or not confirm.ask(
                self, "Revoke a token", f"Revoke token {token.id} of {agent.name}?\n\nA "
                "client using it is refused from its next request.", "Revoke"):
            return
        hearth, name, token_id = self.ctx.hearth, agent.name, token.id
        self.change(f"Revoking a token of {name}",
                    lambda: agents.revoke_tokens(hearth, name, token_id),
                    lambda _count: f"Revoked token {token_id} of {name}.")
