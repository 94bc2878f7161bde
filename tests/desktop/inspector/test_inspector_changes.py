"""Each inspector view reloads only when a change touches what it shows: saving a fact
reloads Facts and leaves Memories as it was, while a change to all the user's knowledge (a
dream, learning that caught up) reloads every knowledge view. The change comes from the
change feed: the view that saved tells nobody."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from core.operations.changes import Changes, Domain
from desktop.context import AppContext
from desktop.inspector.base import InspectorPage
from desktop.inspector.facts import FactsPage
from desktop.inspector.memories import MemoriesPage
from support.qt_waits import wait_idle


def shown(qtbot, ctx: AppContext, cls: type[InspectorPage]) -> tuple[InspectorPage, list[int]]:
    """The view, open and loaded, and the list its later loads append to."""
    page = cls(ctx)
    qtbot.addWidget(page)
    page.show()
    page.activate()
    wait_idle(qtbot, ctx)
    loads: list[int] = []
    reload = page.reload

    def counted():
        loads.append(1)
        return reload()

    page.reload = counted  # type: ignore[method-assign]
    return page, loads


@pytest.fixture
def views(qtbot, ctx: AppContext):
    with qtbot.waitSignal(ctx.hub.changed):  # told before the views open
        ctx.hearth.facts.remember("home_city", "Lisbon", "location")
        ctx.hearth.memories.add("The user plays the cello on Sunday mornings.")
    facts, fact_loads = shown(qtbot, ctx, FactsPage)
    memories, memory_loads = shown(qtbot, ctx, MemoriesPage)
    return facts, fact_loads, memories, memory_loads


def test_a_saved_fact_reloads_facts_but_not_memories(qtbot, ctx, views) -> None:
    facts, fact_loads, memories, memory_loads = views
    sent: list[Changes] = []
    ctx.hub.changed.connect(sent.append)
    facts.select(facts.model.records()[0].id)
    row = facts.view.selectionModel().selectedRows()[0].row()
    assert facts.proxy.setData(facts.proxy.index(row, 1), "Porto", Qt.ItemDataRole.EditRole)
    qtbot.waitUntil(lambda: [f.value for f in facts.model.records()] == ["Porto"])
    wait_idle(qtbot, ctx)

    assert len(sent) == 1 and sent[0].touches(Domain.FACTS)
    assert not sent[0].touches(Domain.MEMORIES)
    assert fact_loads and not memory_loads
    assert memories.model.rowCount() == 1


def test_a_change_to_memories_reloads_memories_not_facts(qtbot, ctx, views) -> None:
    _facts, fact_loads, _memories, memory_loads = views
    ctx.hub.changed.emit(Changes.of(Domain.MEMORIES))
    wait_idle(qtbot, ctx)
    assert memory_loads and not fact_loads


def test_a_change_to_all_knowledge_reloads_every_knowledge_view(qtbot, ctx, views) -> None:
    _facts, fact_loads, _memories, memory_loads = views
    ctx.hub.changed.emit(Changes.knowledge())
    wait_idle(qtbot, ctx)
    assert fact_loads and memory_loads
