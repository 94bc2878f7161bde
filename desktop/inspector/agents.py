"""Agents: the other local programs that use Hearth's memory over MCP (``hearth mcp``).

The table lists each agent with what it may do (no access, read, read and write), whether
its writes are trusted, and how many of them wait for review. Beside it, for the selected
agent: its writes held for review, each accepted or rejected here (accepting a forget is
asked once more: it removes the value everywhere), and what it read and wrote (its audited
calls, arguments redacted). Everything is read and changed through
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
from core.operations.agents import AgentCall, AgentInfo, AgentWriteItem
from core.operations.changes import Domain
from desktop.context import AppContext
from desktop.inspector import confirm
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column
from desktop.inspector.table_page import TablePage

ACCESS_WORDS = {"none": "no access", "read": "read", "write": "read and write"}

AGENT_COLUMNS: tuple[Column[AgentInfo], ...] = (
    Column("Agent", lambda a: a.name),
    Column("May", lambda a: ACCESS_WORDS.get(a.access, a.access)),
    Column("Writes", lambda a: "applied at once" if a.trusted else "held for review"),
    Column("Waiting", lambda a: str(a.held) if a.held else "", lambda a: a.held),
    Column("Last seen", lambda a: local_time(a.last_seen_at), lambda a: time_key(a.last_seen_at)),
)


def call_text(call: AgentCall) -> str:
    return f"{local_time(call.at)}  {call.kind}  {call.tool}: {call.summary}"


class AgentDetail(QWidget):
    """The selected agent's held writes (Accept / Reject) and its history."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.held = QListWidget()
        self.held.setObjectName("held-writes")
        self.accept = QPushButton("&Accept")
        self.accept.setToolTip("Apply the selected write to Hearth's memory")
        self.reject = QPushButton("&Reject")
        self.reject.setToolTip("Drop the selected write: nothing is applied")
        self.history = QListWidget()
        self.history.setObjectName("agent-history")
        buttons = QHBoxLayout()
        buttons.addWidget(self.accept)
        buttons.addWidget(self.reject)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Waiting for your review"))
        layout.addWidget(self.held, 1)
        layout.addLayout(buttons)
        layout.addWidget(QLabel("What it read and wrote"))
        layout.addWidget(self.history, 2)
        self.held.currentItemChanged.connect(lambda *_: self._enable())
        self._enable()

    def show_agent(self, writes: Sequence[AgentWriteItem], calls: Sequence[AgentCall]) -> None:
        self.held.clear()
        for write in writes:
            if write.status == "held":
                item = QListWidgetItem(f"{write.preview}  ({local_time(write.created_at)})")
                item.setData(Qt.ItemDataRole.UserRole, write)
                self.held.addItem(item)
        self.history.clear()
        self.history.addItems([call_text(call) for call in calls])
        self._enable()

    def selected_write(self) -> AgentWriteItem | None:
        item = self.held.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def _enable(self) -> None:
        chosen = self.held.currentItem() is not None
        self.accept.setEnabled(chosen)
        self.reject.setEnabled(chosen)


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
        self.detail.accept.clicked.connect(lambda _checked=False: self._answer(True))
        self.detail.reject.clicked.connect(lambda _checked=False: self._answer(False))

    def columns(self) -> Sequence[Column[AgentInfo]]:
        return AGENT_COLUMNS

    def identity(self, record: Any) -> str:
        return str(record.name)

    def load_records(self, query: str, choice: str | None) -> Sequence[AgentInfo]:
        return agents.list_agents(self.ctx.hearth)

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
            self.detail.show_agent((), ())
            return
        hearth, name = self.ctx.hearth, record.name
        self.run(f"Loading what {name} did",
                 lambda _task: (agents.writes_of(hearth, name), agents.calls_of(hearth, name)),
                 lambda loaded: self._detail_loaded(name, loaded))

    def _detail_loaded(self, name: str, loaded: tuple[Any, Any]) -> None:
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

    def _toggle_trust(self) -> None:
        agent = self.selected()
        if agent is None:
            return
        hearth, name, trusted = self.ctx.hearth, agent.name, not agent.trusted
        self.change(f"Changing trust in {name}", lambda: agents.trust(hearth, name, trusted),
                    lambda info: f"{info.name}'s writes are now "
                                 f"{'applied at once' if info.trusted else 'held for review'}.")

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
