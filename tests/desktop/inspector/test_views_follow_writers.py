"""Every view tells the truth, whoever changed the data: for each kind of writer (an
operation elsewhere in the window, a scheduled job, learning, an agent in this process,
another process through the ``hearth`` command, another device on one PostgreSQL server)
the open view shows the change within a second of its commit, and nothing in the window
announced it by hand: the change feed did (``core.storage.change_feed``,
``desktop.change_relay``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.agents.tools import AgentTools
from core.app import Hearth
from core.learning.events import add_event
from core.operations import agents
from core.operations import facts as facts_ops
from core.operations.changes import Changes, Domain
from core.scheduling import EVENT_PROCESSOR, HearthScheduler
from desktop.context import AppContext
from desktop.inspector.agents import AgentsPage
from desktop.inspector.base import InspectorPage
from desktop.inspector.facts import FactsPage
from desktop.inspector.memories import MemoriesPage
from support.qt_waits import wait_for_task, wait_idle
from support.scripted_llm import ScriptedLLM

WITHIN_MS = 1_000
"""How soon after a commit the open view must show it."""
REPO = Path(__file__).parents[3]


def opened(qtbot, ctx: AppContext, cls: type[InspectorPage]) -> InspectorPage:
    """The view on screen, loaded."""
    view = cls(ctx)
    qtbot.addWidget(view)
    view.resize(1000, 600)
    view.show()
    view.activate()
    wait_idle(qtbot, ctx)
    return view


def shown_facts(view: FactsPage) -> dict[str, str]:
    return {fact.key: fact.value for fact in view.model.records()}


def committed(hearth: Hearth, domain: Domain) -> threading.Event:
    """Set, on the writer's thread, once this process commits a change touching
    ``domain``: from then on the clock for "within a second" runs."""
    event = threading.Event()

    def heard(changes: Changes) -> None:
        if changes.touches(domain):
            event.set()

    hearth.storage.changes.subscribe(heard)
    return event


def test_an_operation_elsewhere_in_the_window_reaches_the_open_facts_view(
        qtbot, ctx: AppContext) -> None:
    view = opened(qtbot, ctx, FactsPage)
    hearth = ctx.hearth
    task = ctx.workers.start("Saving from another view",  # as the chat's note's Edit does
                             lambda _task: facts_ops.remember(hearth, "home_city", "Porto",
                                                              "location"), writes=True)
    wait_for_task(qtbot, task)
    qtbot.waitUntil(lambda: shown_facts(view) == {"home_city": "Porto"}, timeout=WITHIN_MS)


def test_a_scheduled_job_reaches_the_open_memories_view(qtbot, ctx: AppContext) -> None:
    hearth = ctx.hearth
    add_event(hearth.storage, "observation", "Training for the Lisbon marathon in May.",
              {"source": "tool"})
    answer = json.dumps({"updated_scaffold": {"Goals": "the Lisbon marathon"},
                         "updated_working_memory": "Training for a marathon.",
                         "facts_to_embed": ["The user is training for the Lisbon marathon."]})
    scheduler = HearthScheduler(hearth, lambda: ScriptedLLM([answer]))
    view = opened(qtbot, ctx, MemoriesPage)
    assert view.model.rowCount() == 0
    job = threading.Thread(target=scheduler.run_job, args=(EVENT_PROCESSOR,),
                           kwargs={"trigger": "scheduled"})
    job.start()  # on a thread of its own, as the schedule's executor runs it
    qtbot.waitUntil(lambda: not job.is_alive(), timeout=60_000)
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=WITHIN_MS)


def test_learning_reaches_the_open_facts_view(qtbot, make_ctx) -> None:
    def answer(kind: str, _messages: object, extra: dict) -> str:
        if kind == "structured":  # the model's extraction finds nothing of its own
            return json.dumps({name: [] for name in extra["schema"].get("properties", {})})
        return "Noted."

    ctx: AppContext = make_ctx(provider_factory=lambda: ScriptedLLM(answer))
    with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=30_000):
        ctx.start_assistant()
    view = opened(qtbot, ctx, FactsPage)
    learned = committed(ctx.hearth, Domain.FACTS)
    assert ctx.assistant is not None
    conversation = ctx.assistant.conversation
    list(conversation.send(conversation.sessions.new_session(), "My sister Priya lives in Lisbon"))
    qtbot.waitUntil(learned.is_set, timeout=60_000)  # the learning thread stored them
    qtbot.waitUntil(lambda: shown_facts(view) == {"sister_name": "Priya",
                                                  "sister_home_city": "Lisbon"},
                    timeout=WITHIN_MS)


def test_an_agent_in_this_process_reaches_the_open_facts_view(qtbot,
                                                              ctx: AppContext) -> None:
    agents.grant(ctx.hearth, "notes-bot", "write")
    agents.trust(ctx.hearth, "notes-bot")
    view = opened(qtbot, ctx, FactsPage)
    tools = AgentTools(ctx.hearth.agent_services(), "notes-bot")
    call = threading.Thread(target=tools.call,  # as the MCP server's request thread
                            args=("remember_fact", {"key": "bike", "value": "a Brompton"}))
    call.start()
    qtbot.waitUntil(lambda: not call.is_alive(), timeout=30_000)
    qtbot.waitUntil(lambda: shown_facts(view) == {"bike": "a Brompton"}, timeout=WITHIN_MS)


def test_an_agents_held_write_shows_beside_the_selected_agent(qtbot, ctx: AppContext) -> None:
    """Seen: the held request appeared only once another agent was selected."""
    agents.grant(ctx.hearth, "notes-bot", "write")
    view = opened(qtbot, ctx, AgentsPage)
    assert isinstance(view, AgentsPage) and view.select("notes-bot")
    wait_idle(qtbot, ctx)
    assert view.detail.held.count() == 0
    AgentTools(ctx.hearth.agent_services(), "notes-bot").call("remember_fact", {"key": "bike",
                                                               "value": "a Brompton"})
    qtbot.waitUntil(lambda: view.detail.held.count() == 1, timeout=WITHIN_MS)
    assert view.detail.held.item(0).text().startswith("Remember bike: a Brompton")
    assert view.selected().name == "notes-bot"


def test_another_process_reaches_the_open_facts_view(qtbot, ctx: AppContext) -> None:
    view = opened(qtbot, ctx, FactsPage)
    subprocess.run([sys.executable, "-m", "cli.main", "--home",
                    str(ctx.hearth.paths.home), "facts", "set", "home_city", "Porto"],
                   check=True, capture_output=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": str(REPO)})
    qtbot.waitUntil(lambda: shown_facts(view) == {"home_city": "Porto"}, timeout=WITHIN_MS)


@pytest.fixture
def on_a_server(postgres_url: str, tmp_path: Path, embedder,
                monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[AppContext, Hearth]]:
    """The window on one device and another device's open Hearth, on one PostgreSQL
    database (each with a data folder of its own)."""
    monkeypatch.setenv("HEARTH_DATABASE_URL", postgres_url)
    here = AppContext(Hearth.open(tmp_path / "laptop", embedder=embedder),
                      provider_factory=ScriptedLLM)
    there = Hearth.open(tmp_path / "desktop", embedder=embedder)
    yield here, there
    there.close()
    here.close()


def test_another_device_reaches_the_open_facts_view(qtbot, on_a_server) -> None:
    ctx, other_device = on_a_server
    view = opened(qtbot, ctx, FactsPage)
    other_device.facts.remember("home_city", "Porto", category="location")
    qtbot.waitUntil(lambda: shown_facts(view) == {"home_city": "Porto"}, timeout=WITHIN_MS)
