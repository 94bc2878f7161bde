"""What agents asked to write, held for the user's review.

An agent's fact or observation is held (``status`` "held") unless the agent is trusted;
then it is applied at once and recorded already "accepted", so what each agent wrote stays
listable either way. Even a trusted agent never replaces a fact's value the user set
(``FactService.remember(yield_to_user=True)``): that change is held for the user's review
like an untrusted agent's, and the agent is told so. A request to forget a fact is always
held, trusted or not: forgetting removes the value from everywhere, so only the user, in
the app or the CLI, decides it.

Accepting applies the write through the same services a user's own change uses
(``FactService.remember`` with source ``agent:<name>``, an ``observation`` context event
for consolidation, ``ForgetService.forget``) and marks the row accepted; rejecting
applies nothing. A crash or a second accept (the window and the CLI at once) can never
apply a write twice: an observation's event is added in the same transaction that marks
the row (under its row lock), and remembering or forgetting a fact, which run their own
transactions first, give the same result when repeated. A row already answered is
refused in a sentence. Every answer is audited (content-free: which write, which agent,
the answer).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from core.agents.services import AgentServices
from core.errors import InvalidInputError
from core.knowledge.facts import SetByUser
from core.storage.orm import Agent, AgentWrite, AuditEntry, ContextEvent
from core.storage.rows import require

WRITE_ACTIONS = ("remember_fact", "record_observation", "forget_fact")
RESULT_CHARS = 500


def _find(services: AgentServices, write_id: int) -> AgentWrite:
    with services.storage.read() as session:
        return require(session, AgentWrite, write_id, f"There is no agent write {write_id}.",
                       "See `hearth mcp review` for the ones waiting.")


class AgentWrites:
    """Hold, apply, list, accept and reject agents' writes."""

    def __init__(self, services: AgentServices) -> None:
        self._services = services

    def hold(self, agent: Agent, action: str, arguments: Mapping[str, Any],
             preview: str) -> AgentWrite:
        """Keep the write for the user's answer."""
        with self._services.storage.write() as session:
            row = AgentWrite(agent_id=agent.id, action=action, arguments=dict(arguments),
                             preview=preview, status="held", created_at=clock.now())
            session.add(row)
            session.flush()
            return row

    def apply_now(self, agent: Agent, action: str, arguments: Mapping[str, Any],
                  preview: str) -> AgentWrite:
        """A trusted agent's write: applied, and recorded as accepted; held instead (the
        row's status says which) when it would replace a value the user set."""
        try:
            result = self._apply(agent.name, action, arguments, yield_to_user=True)
        except SetByUser:
            return self.hold(agent, action, arguments, preview)
        now = clock.now()
        with self._services.storage.write() as session:
            row = AgentWrite(agent_id=agent.id, action=action, arguments=dict(arguments),
                             preview=preview, status="accepted", created_at=now,
                             decided_at=now, result=result[:RESULT_CHARS])
            session.add(row)
            session.flush()
            return row

    def held(self) -> builtins.list[tuple[AgentWrite, str]]:
        """The writes waiting for the user, oldest first, each with its agent's name."""
        return self._listed(AgentWrite.status == "held")

    def of_agent(self, name: str) -> builtins.list[tuple[AgentWrite, str]]:
        """Everything ``name`` asked to write, answered or not, oldest first."""
        return self._listed(Agent.name == name)

    def accept(self, write_id: int) -> AgentWrite:
        """Apply a held write (once) and mark it accepted."""
        row = _find(self._services, write_id)
        if row.status != "held":
            raise _answered(row)
        with self._services.storage.read() as session:
            agent = session.get(Agent, row.agent_id)
            name = agent.name if agent is not None else "?"
        if row.action == "record_observation":
            return self._decide(write_id, "accepted", None, lambda session: _observation(
                session, name, row.arguments))
        result = self._apply(name, row.action, row.arguments)
        return self._decide(write_id, "accepted", result)

    def reject(self, write_id: int) -> AgentWrite:
        """Apply nothing."""
        if (row := _find(self._services, write_id)).status != "held":
            raise _answered(row)
        return self._decide(write_id, "rejected", None)

    def _decide(self, write_id: int, status: str, result: str | None,
                apply: Callable[[Session], str] | None = None) -> AgentWrite:
        """Answer a held write; ``apply`` writes its effect in the same transaction."""
        with self._services.storage.write() as session:
            row = session.scalars(select(AgentWrite).where(
                AgentWrite.id == write_id).with_for_update()).one()
            if row.status != "held":
                raise _answered(row)
            if apply is not None:
                result = apply(session)
            row.status, row.decided_at = status, clock.now()
            row.result = None if result is None else result[:RESULT_CHARS]
            session.add(AuditEntry(action=f"agent_write.{row.action}", actor="user",
                                   arguments={"agent_write": row.id, "agent_id": row.agent_id},
                                   result_summary=status))
            session.flush()
            return row

    def _apply(self, agent_name: str, action: str, arguments: Mapping[str, Any], *,
               yield_to_user: bool = False) -> str:
        """Carry out the write; ``yield_to_user`` when no user has reviewed it."""
        services = self._services
        if action == "remember_fact":
            change = services.facts.remember(arguments["key"], arguments["value"],
                                           category=arguments.get("category", "general"),
                                           source=f"agent:{agent_name}",
                                           yield_to_user=yield_to_user)
            return f"{change.action} fact {change.key}"
        if action == "record_observation":
            with services.storage.write() as session:
                return _observation(session, agent_name, arguments)
        if action == "forget_fact":
            report = services.forgetting.forget(arguments["key"]).report
            return f"forgot fact {report.key} in {report.total} places"
        raise InvalidInputError(f"{action!r} is not a write an agent can ask for.",
                                f"Agents can ask for: {', '.join(WRITE_ACTIONS)}.")

    def _listed(self, where: Any) -> builtins.list[tuple[AgentWrite, str]]:
        with self._services.storage.read() as session:
            return [(row, name) for row, name in session.execute(
                select(AgentWrite, Agent.name).join(Agent, Agent.id == AgentWrite.agent_id)
                .where(where).order_by(AgentWrite.created_at, AgentWrite.id))]


def _observation(session: Session, agent_name: str, arguments: Mapping[str, Any]) -> str:
    """Queue an agent's observation for consolidation in ``session``; what it did, in words."""
    event = ContextEvent(event_type="observation", content=arguments["content"],
                         source_metadata={"source": "agent", "agent": agent_name,
                                          "category": arguments.get("category", "general")})
    session.add(event)
    session.flush()
    return f"event {event.id} queued for consolidation"


def _answered(row: AgentWrite) -> InvalidInputError:
    return InvalidInputError(f"That write was already {row.status}.", "Nothing more was done.")
