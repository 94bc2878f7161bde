"""The Graph page on a real data folder: it draws the database's nodes and edges, kinds told
apart; a click shows the memory; filters narrow; search rings what recall finds; the
layout is cached; the cap is announced."""

from __future__ import annotations

from core.operations import data
from core.operations.changes import Changes

import numpy as np
import pytest
from support.qt_waits import wait_for_task, wait_idle
from PySide6.QtCore import QPoint, Qt
from sqlalchemy import select
from test_graph_snapshot import add_edges, seed_store

from core.app import Hearth
from core.storage.orm import MemoryEdge
from desktop.graph.page import GraphPage
from desktop.theme import apply_scheme


def link_kind_counts(hearth: Hearth) -> dict[str, int]:
    """Links per kind as a person counts them: A→B and B→A of one kind are one link."""
    with hearth.storage.read() as session:
        pairs = {(kind, min(a, b), max(a, b)) for a, b, kind in session.execute(
            select(MemoryEdge.from_id, MemoryEdge.to_id, MemoryEdge.kind)).all()}
    counts: dict[str, int] = {}
    for kind, _a, _b in pairs:
        counts[kind] = counts.get(kind, 0) + 1
    return counts


def drawn_segments(page: GraphPage) -> dict[str, int]:
    """Line segments the plot's edge items really hold, per kind."""
    counts: dict[str, int] = {}
    for item in page.view.edge_items():
        counts[item.name()] = counts.get(item.name(), 0) + len(item.xData) // 2
    return counts


def open_page(qtbot, ctx, *, valid_only: bool = True) -> GraphPage:
    page = GraphPage(ctx)
    qtbot.addWidget(page)
    page.resize(1100, 700)
    page.valid_only.blockSignals(True)
    page.valid_only.setChecked(valid_only)
    page.valid_only.blockSignals(False)
    page.show()
    wait_for_task(qtbot, page.reload())
    qtbot.waitUntil(lambda: page.snapshot is not None)
    return page


@pytest.fixture
def people(qtbot, ctx):
    """Four real (embedded) memories far apart in meaning, linked by one edge of each kind;
    their change is on the hub before a test opens the map, so it cannot reach the new page
    as a second reload (which would read the layout the first one just cached)."""
    memories = ctx.hearth.memories
    ids = [memories.add(text, tier=tier, category=category, importance=importance).id
           for text, tier, category, importance in (
               ("Knee physio every Tuesday at the clinic", "recall", "health", 0.9),
               ("Trail running in the hills on Sundays", "archival", "hobbies", 0.7),
               ("Summary: staying active despite the knee", "core", "health", 0.8),
               ("The boiler service is due in March", "recall", "errands", 0.5))]
    a, b, c, d = ids
    add_edges(ctx.hearth.storage, [(a, b, "knn", 0.81), (a, d, "dream", 0.22),
                                   (c, a, "summary_of", 1.0)])
    wait_idle(qtbot, ctx)
    return ids


def test_the_view_draws_the_databases_nodes_and_edges(qtbot, ctx):
    seed_store(ctx.hearth.storage, 300, 1_200, seed=5)
    page = open_page(qtbot, ctx, valid_only=False)
    stats = data.status(ctx.hearth).counts
    assert page.view.drawn_node_count == stats["memories"] == 300
    assert drawn_segments(page) == link_kind_counts(ctx.hearth)  # each link drawn once
    assert stats["edges"] == 1_200
    assert sum(drawn_segments(page).values()) == page.snapshot.link_count
    pens = {item.name(): item.opts["pen"] for item in page.view.edge_items()}
    assert pens["knn"].style() == Qt.PenStyle.SolidLine
    assert pens["dream"].style() == Qt.PenStyle.DashLine
    assert pens["knn"].color().rgb() != pens["dream"].color().rgb()
    assert "300 of 300 memories" in page.summary.text()

    page.valid_only.setChecked(True)  # invalid memories and their edges leave the picture
    qtbot.waitUntil(lambda: page.snapshot is not None and page.snapshot.valid.all()
                    and page.view.drawn_node_count == stats["memories_valid"])
    assert sum(drawn_segments(page).values()) < page.snapshot.edge_count


def test_clicking_a_node_shows_the_memory_and_its_edges(qtbot, ctx, people):
    a, b, _c, d = people
    page = open_page(qtbot, ctx)
    position = page.snapshot.position(a)
    where = page.view.node_screen_position(position)
    # hovering names the memory (first elsewhere: a move to where the pointer already is,
    # left there by an earlier test, sends no event; pyqtgraph drops moves closer together
    # than its hover rate limit)
    qtbot.mouseMove(page.view.viewport(), where + QPoint(40, 40))
    qtbot.wait(100)
    qtbot.mouseMove(page.view.viewport(), where)
    qtbot.waitUntil(lambda: "Knee physio" in page.view.getViewBox().toolTip())
    assert "recent · health · importance 0.90" in page.view.getViewBox().toolTip()
    qtbot.mouseClick(page.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    qtbot.waitUntil(lambda: page.details.model.rowCount() == 3)
    assert page.view.selected_position == position
    assert f"Memory {a}" in page.details.heading.text()
    assert page.details.content.toPlainText() == "Knee physio every Tuesday at the clinic"
    assert "health" in page.details.facts.text()
    rows = [page.details.model.neighbour(row) for row in range(3)]
    assert {(n.memory_id, n.kind) for n in rows} == {(b, "knn"), (d, "dream"),
                                                     (people[2], "summary_of")}

    # Enter on an edge walks to the memory at its other end.
    dream_row = next(row for row, n in enumerate(rows) if n.kind == "dream")
    page.details.edges.setCurrentIndex(page.details.model.index(dream_row, 0))
    page.details.edges.activated.emit(page.details.model.index(dream_row, 0))
    qtbot.waitUntil(lambda: f"Memory {d}" in page.details.heading.text())
    assert page.view.selected_position == page.snapshot.position(d)


def test_filters_narrow_what_is_drawn(qtbot, ctx, people):
    page = open_page(qtbot, ctx)
    assert page.view.drawn_node_count == 4
    assert drawn_segments(page) == {"knn": 1, "dream": 1, "summary_of": 1}

    page.filters.tiers.set_checked("recall", False)
    assert page.view.drawn_node_count == 2  # the archival and the core memory
    assert drawn_segments(page) == {}  # every edge touches a recall memory
    page.filters.tiers.set_checked("recall", True)

    page.filters.kinds.set_checked("dream", False)
    assert drawn_segments(page) == {"knn": 1, "summary_of": 1}
    page.filters.min_weight.setValue(0.9)
    assert drawn_segments(page) == {"summary_of": 1}
    page.filters.categories.set_checked("health", False)
    assert page.view.drawn_node_count == 2
    assert "Drawing 2 of 4 memories and 0 of 3 links" in page.summary.text()


def test_search_rings_what_hybrid_recall_finds(qtbot, ctx, people):
    a, *_ = people
    page = open_page(qtbot, ctx)
    qtbot.keyClicks(page.search, "physiotherapy for my knee")
    qtbot.keyClick(page.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.view.match_positions.size > 0)
    matched = set(page.snapshot.ids[page.view.match_positions].tolist())
    assert a in matched
    assert people[3] not in matched  # the boiler has nothing to do with knees
    qtbot.waitUntil(lambda: page.view.selected_position is not None)
    assert "ringed on the map" in page.search_result.text()

    page.search.clear()
    assert page.view.match_positions.size == 0
    assert page.search_result.isHidden()


def test_reopening_uses_the_cached_layout(qtbot, ctx, people):
    page = open_page(qtbot, ctx)
    assert "read and laid out in" in page.summary.text()
    first = page.view.positions.copy()
    again = GraphPage(ctx)  # a new window on the same folder reads the cache file
    qtbot.addWidget(again)
    wait_for_task(qtbot, again.reload())
    qtbot.waitUntil(lambda: again.snapshot is not None)
    assert "layout from cache" in again.summary.text()
    assert np.array_equal(again.view.positions, first)


def test_the_cap_is_announced(qtbot, ctx):
    seed_store(ctx.hearth.storage, 120, 300, seed=9)
    page = open_page(qtbot, ctx, valid_only=False)
    page.cap.setValue(100)
    wait_for_task(qtbot, page.reload())
    qtbot.waitUntil(lambda: page.snapshot is not None and page.snapshot.node_count == 100)
    assert "the 100 most important of 120 memories" in page.summary.text()


def test_a_memory_change_reloads_the_visible_graph_and_keeps_the_picture(qtbot, ctx):
    seed_store(ctx.hearth.storage, 200, 800, seed=11)
    page = open_page(qtbot, ctx)
    count = page.snapshot.node_count
    before = dict(zip(page.snapshot.ids.tolist(), page.view.positions.tolist(), strict=True))
    # The first memory goes: a layout from scratch would start every other node elsewhere.
    ctx.hearth.memories.invalidate(int(page.snapshot.ids[0]), "no longer true")
    ctx.hub.changed.emit(Changes.knowledge())
    qtbot.waitUntil(lambda: page.snapshot is not None and page.snapshot.node_count == count - 1)
    assert page.view.drawn_node_count == count - 1
    after = dict(zip(page.snapshot.ids.tolist(), page.view.positions.tolist(), strict=True))
    extent = np.ptp(np.array(list(before.values())), axis=0).max()
    moved = [np.hypot(*np.subtract(after[i], before[i])) for i in after]
    assert np.median(moved) < 0.05 * extent  # continued from the old picture, not redrawn


def test_an_empty_store_says_what_will_appear(qtbot, ctx):
    page = open_page(qtbot, ctx)
    assert page.view.drawn_node_count == 0
    assert "No memories yet" in page.summary.text()


def test_memories_without_links_say_why_they_are_an_even_spread(qtbot, ctx):
    """With no links the layout is a uniform disc of dots; the page says what that means."""
    for text in ("Knee physio every Tuesday", "The boiler service is due in March",
                 "Sister Priya lives in Lisbon"):
        ctx.hearth.memories.add(text)
    page = open_page(qtbot, ctx)
    assert page.snapshot.link_count == 0 and page.view.drawn_node_count == 3
    assert "No links yet" in page.summary.text()
    assert "the nightly cycle links related memories" in page.summary.text()
    assert "3 memories" in page.summary.text()


def test_the_most_important_memories_are_named_on_the_plot(qtbot, ctx, people):
    page = open_page(qtbot, ctx)
    labels = page.view.labels()
    first = page.snapshot.position(people[0])  # importance 0.9, the most important
    assert labels[first] == "Knee physio every Tuesday at…"
    assert all(len(text) <= 31 for text in labels.values())
    page.filters.tiers.set_checked("recall", False)  # a hidden memory loses its label
    assert first not in page.view.labels()


def test_a_link_stored_both_ways_is_listed_and_drawn_once(qtbot, ctx, people):
    a, b, _c, _d = people
    add_edges(ctx.hearth.storage, [(b, a, "knn", 0.79)])  # linking writes both directions
    page = open_page(qtbot, ctx)
    assert drawn_segments(page) == {"knn": 1, "dream": 1, "summary_of": 1}
    page.select_node(page.snapshot.position(a))
    qtbot.waitUntil(lambda: page.details.model.rowCount() > 0)
    links = [page.details.model.neighbour(row) for row in range(page.details.model.rowCount())]
    assert [(n.memory_id, n.kind) for n in links].count((b, "knn")) == 1
    assert len(links) == 3
    assert "3 links" in page.details.facts.text()
    words = {n.kind: page.details.model.index(row, 0).data() for row, n in enumerate(links)}
    assert words == {"knn": "similar", "dream": "found overnight",
                     "summary_of": "summarised in"}  # a is one of c's merged memories


def test_labels_fit_a_small_dark_plot_and_a_click_on_one_opens_its_memory(qtbot, qapp, ctx):
    """On a small window in the dark scheme no label runs into another or past the plot's
    edge, after zooming too; a click on a label opens the memory it names, not a dot drawn
    under it."""
    seed_store(ctx.hearth.storage, 300, 900, seed=7)
    apply_scheme(qapp, "dark")
    try:
        page = open_page(qtbot, ctx, valid_only=False)
        page.resize(640, 420)
        qtbot.waitUntil(lambda: page.view.width() < 500)
        page.view.fit()
        for step in ("fitted", "zoomed"):
            plot, rects = page.view.plot_rect(), page.view.label_rects()
            assert len(rects) > 1, step
            assert all(plot.contains(rect) for rect in rects.values()), step
            listed = list(rects.values())
            assert not any(a.intersects(b) for n, a in enumerate(listed)
                           for b in listed[n + 1:]), step
            page.view.getViewBox().scaleBy((0.6, 0.6))
            qtbot.waitUntil(lambda: page.view.relabelling)  # the view moved...
            qtbot.waitUntil(lambda: not page.view.relabelling)  # ...and was labelled again
        position, rect = next(iter(page.view.label_rects().items()))
        qtbot.mouseClick(page.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.waitUntil(lambda: page.view.selected_position == position, timeout=5_000)
        memory = int(page.snapshot.ids[position])
        qtbot.waitUntil(lambda: f"Memory {memory}" in page.details.heading.text())
    finally:
        apply_scheme(qapp, "light")


def test_a_click_between_close_dots_opens_the_nearest(qtbot, ctx, people):
    a, b, *_ = people
    page = open_page(qtbot, ctx)
    near_a, near_b = page.snapshot.position(a), page.snapshot.position(b)
    positions = page.view.positions
    positions[near_b] = positions[near_a] + (np.ptp(positions, axis=0).max() * 0.004)
    page.view.set_graph(page.snapshot, positions, "tier", page.view._node_mask.copy(),
                        page.view._edge_mask.copy())
    where = page.view.node_screen_position(near_b)
    qtbot.mouseClick(page.view.viewport(), Qt.MouseButton.LeftButton, pos=where)
    qtbot.waitUntil(lambda: page.view.selected_position is not None, timeout=5_000)
    assert page.view.selected_position == near_b


def test_the_selected_memory_stays_selected_when_a_change_elsewhere_reloads_the_map(
        qtbot, ctx, people):
    """Learning or another program writes while the person reads a memory on the map: the
    map is drawn again (the change feed), and what they were reading stays on screen."""
    a = people[0]
    page = open_page(qtbot, ctx)
    page.select_node(page.snapshot.position(a))
    qtbot.waitUntil(lambda: page.details.model.rowCount() > 0)
    before = page.snapshot
    ctx.hearth.memories.add("The user started learning the cello.")
    qtbot.waitUntil(lambda: page.snapshot is not before, timeout=3000)
    assert page.snapshot.node_count == before.node_count + 1
    assert page.view.selected_position == page.snapshot.position(a)
    qtbot.waitUntil(lambda: page.details.model.rowCount() > 0)
