"""The graph's read model (``core.views.graph``) and the numpy parts of the graph view:
layout, filters and the layout cache."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import insert, update

from core.errors import NotFoundError
from core.storage.orm import Memory, MemoryEdge, utcnow
from core.views.graph import load_graph, node_details
from desktop.graph.cache import LayoutCache, layout_key
from desktop.graph.filters import GraphFilter
from desktop.graph.layout import (
    LayoutCancelled,
    LayoutParams,
    carried_over,
    compute_layout,
)
from desktop.graph.scene import placed_labels, short_label



TIERS = ("recall", "archival", "source", "core")
CATEGORIES = ("general", "health", "work", "people", "hobbies")


def add_memories(storage, rows: list[dict]) -> list[int]:
    now = utcnow()
    with storage.write() as session:
        return list(session.scalars(
            insert(Memory).returning(Memory.id, sort_by_parameter_order=True),
            [{"created_at": now, "updated_at": now, **row} for row in rows]).all())


def add_edges(storage, edges: list[tuple[int, int, str, float]]) -> None:
    with storage.write() as session:
        session.execute(insert(MemoryEdge), [
            {"from_id": a, "to_id": b, "kind": kind, "weight": weight, "created_at": utcnow()}
            for a, b, kind, weight in edges])


def seed_store(storage, nodes: int, edges: int, seed: int = 0) -> None:
    """``nodes`` memories of varied tier, category, importance and validity (3% invalid)
    and exactly ``edges`` distinct edges between random pairs, mostly kNN."""
    rng = np.random.default_rng(seed)
    ids = add_memories(storage, [
        {"content": f"Memory number {i}", "tier": str(rng.choice(TIERS)),
         "category": str(rng.choice(CATEGORIES)), "importance": float(rng.random()),
         "is_valid": bool(rng.random() >= 0.03)} for i in range(nodes)])
    pairs: dict[tuple[int, int, str], float] = {}
    while len(pairs) < edges:
        a, b = rng.choice(ids, 2, replace=False)
        kind = str(rng.choice(["knn", "dream", "summary_of"], p=[0.9, 0.06, 0.04]))
        pairs.setdefault((int(a), int(b), kind), round(float(rng.uniform(0.2, 1.0)), 3))
    add_edges(storage, [(a, b, kind, weight) for (a, b, kind), weight in pairs.items()])


@pytest.fixture
def small(storage):
    """Four memories (one invalid) and one edge of each kind, plus one to the invalid one."""
    ids = add_memories(storage, [
        {"content": "Knee physio on Tuesdays\nat the clinic", "tier": "recall",
         "category": "health", "importance": 0.9},
        {"content": "Trail running in the hills", "tier": "archival", "category": "hobbies",
         "importance": 0.6},
        {"content": "Summary: staying active", "tier": "core", "category": "health",
         "importance": 0.8},
        {"content": "Old gym membership", "tier": "recall", "category": "health",
         "importance": 0.4, "is_valid": False, "invalid_reason": "cancelled"},
    ])
    a, b, c, d = ids
    add_edges(storage, [(a, b, "knn", 0.82), (a, b, "dream", 0.22), (c, a, "summary_of", 1.0),
                        (b, d, "knn", 0.75)])
    return ids


def test_snapshot_holds_the_databases_nodes_and_edges_with_kinds_apart(storage, small):
    a, b, c, d = small
    everything = load_graph(storage, valid_only=False)
    assert everything.ids.tolist() == [a, b, c, d]
    assert everything.edge_count == 4
    assert sorted(everything.kinds.names) == ["dream", "knn", "summary_of"]
    kinds = [everything.kinds.names[code] for code in everything.kinds.codes]
    ends = [(int(everything.ids[s]), int(everything.ids[t]), kind, round(float(w), 2))
            for s, t, kind, w in zip(everything.source, everything.target, kinds,
                                     everything.weight, strict=True)]
    assert ends == [(a, b, "knn", 0.82), (a, b, "dream", 0.22), (c, a, "summary_of", 1.0),
                    (b, d, "knn", 0.75)]
    assert everything.valid.tolist() == [True, True, True, False]
    assert everything.tiers.names[everything.tiers.codes[2]] == "core"
    assert everything.labels[0] == "Knee physio on Tuesdays at the clinic"  # one line

    valid = load_graph(storage, valid_only=True)
    assert valid.ids.tolist() == [a, b, c]
    assert valid.edge_count == 3  # the edge to the invalid memory has no end to draw
    assert not valid.capped


def test_the_cap_keeps_the_most_important_and_says_how_many_there_were(storage, small):
    a, b, c, _ = small
    capped = load_graph(storage, limit=2, valid_only=False)
    assert capped.ids.tolist() == [a, c]  # importance 0.9 and 0.8
    assert capped.total_nodes == 4 and capped.capped
    assert capped.edge_count == 1  # only summary_of c -> a has both ends drawn
    with pytest.raises(ValueError):
        load_graph(storage, limit=0)


def test_labels_are_short_and_an_empty_store_is_an_empty_graph(storage):
    empty = load_graph(storage)
    assert empty.node_count == empty.edge_count == empty.total_nodes == 0
    add_memories(storage, [{"content": "x" * 500}])
    assert len(load_graph(storage).labels[0]) == 80


def test_node_details_list_every_edge_from_the_memorys_side(storage, small):
    a, b, c, d = small
    details = node_details(storage, b)
    assert details.content == "Trail running in the hills"
    assert (details.tier, details.category, details.valid) == ("archival", "hobbies", True)
    seen = {(n.memory_id, n.kind, n.outgoing) for n in details.neighbours}
    assert seen == {(a, "knn", False), (a, "dream", False), (d, "knn", True)}
    assert [n.weight for n in details.neighbours] == sorted(
        (n.weight for n in details.neighbours), reverse=True)
    assert node_details(storage, d).invalid_reason == "cancelled"
    with storage.write() as session:
        session.execute(update(Memory).where(Memory.id == c).values(superseded_by=a))
    assert not node_details(storage, c).valid  # superseded counts as not valid
    with pytest.raises(NotFoundError):
        node_details(storage, 9_999)


def test_two_memories_linked_both_ways_are_one_link_in_the_details(storage, small):
    """Linking writes a kNN edge from each memory to its neighbours: A→B and B→A. The
    details used to list that link twice."""
    a, b, _c, _d = small
    add_edges(storage, [(b, a, "knn", 0.80)])
    links = [(n.memory_id, n.kind, n.outgoing, n.incoming, round(n.weight, 2))
             for n in node_details(storage, a).neighbours]
    assert links.count((b, "knn", True, True, 0.82)) == 1  # the stronger weight
    assert [link[:2] for link in links].count((b, "knn")) == 1
    assert (b, "dream", True, False, 0.22) in links  # another kind stays its own link


def test_a_larger_store_loads_with_every_edge(storage):
    seed_store(storage, 600, 2_400, seed=3)
    snapshot = load_graph(storage, valid_only=False)
    assert snapshot.node_count == 600 and snapshot.edge_count == 2_400
    counts = dict(zip(snapshot.kinds.names, np.bincount(snapshot.kinds.codes), strict=True))
    assert counts["knn"] > counts["dream"] > 0 and counts["summary_of"] > 0


# --- filters -------------------------------------------------------------------------------


def test_filters_narrow_nodes_and_edges(storage, small):
    snapshot = load_graph(storage, valid_only=False)
    everything = GraphFilter.everything(snapshot)
    nodes, edges = everything.masks(snapshot)
    assert nodes.all() and edges.all()
    no_recall = GraphFilter(everything.tiers - {"recall"}, everything.categories,
                            everything.kinds)
    nodes, edges = no_recall.masks(snapshot)
    assert nodes.tolist() == [False, True, True, False]
    assert not edges.any()  # every edge touches a recall memory
    knn_only = GraphFilter(everything.tiers, everything.categories, frozenset({"knn"}), 0.8)
    _, edges = knn_only.masks(snapshot)
    assert edges.tolist() == [True, False, False, False]  # 0.75 is under the minimum


# --- layout --------------------------------------------------------------------------------


def clustered_graph(seed: int = 0) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Three groups of 40 nodes, each node linked to 4 of its own group."""
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(3), 40)
    source = np.repeat(np.arange(group.size), 4)
    target = np.array([rng.choice(np.flatnonzero((group == group[s]) & (np.arange(120) != s)))
                       for s in source])
    return group.size, source, target, np.full(source.size, 0.8)


def test_layout_is_deterministic_for_a_seed_and_finite():
    count, source, target, weight = clustered_graph()
    first = compute_layout(count, source, target, weight, LayoutParams(seed=7))
    again = compute_layout(count, source, target, weight, LayoutParams(seed=7))
    other = compute_layout(count, source, target, weight, LayoutParams(seed=8))
    assert first.shape == (count, 2) and first.dtype == np.float32
    assert np.isfinite(first).all()
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_layout_keeps_linked_groups_together():
    count, source, target, weight = clustered_graph()
    positions = compute_layout(count, source, target, weight)
    group = np.repeat(np.arange(3), 40)
    centres = np.array([positions[group == g].mean(axis=0) for g in range(3)])
    spread = np.mean([np.linalg.norm(positions[group == g] - centres[g], axis=1).mean()
                      for g in range(3)])
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=2)[np.triu_indices(3, 1)]
    assert apart.min() > 2 * spread


def test_layout_handles_no_edges_single_nodes_and_cancellation():
    assert compute_layout(0, np.array([]), np.array([]), np.array([])).shape == (0, 2)
    lonely = compute_layout(1, np.array([]), np.array([]), np.array([]))
    assert lonely.shape == (1, 2) and np.isfinite(lonely).all()
    scattered = compute_layout(50, np.array([], dtype=int), np.array([], dtype=int),
                               np.array([]))
    assert np.isfinite(scattered).all() and len({tuple(p) for p in scattered}) == 50
    calls = []
    with pytest.raises(LayoutCancelled):
        compute_layout(*clustered_graph(), cancelled=lambda: bool(calls.append(1)) or
                       len(calls) > 3)


def test_a_changed_graph_continues_from_the_old_picture():
    count, source, target, weight = clustered_graph()
    old = compute_layout(count, source, target, weight)
    old_ids = np.arange(count) * 10
    # Node 0 goes (every later node shifts down one place) and a new node (id 9999),
    # linked into group 0, arrives.
    keep = (source != 0) & (target != 0)
    new_source = np.append(source[keep] - 1, count - 1)
    new_target = np.append(target[keep] - 1, 3)
    new_weight = np.append(weight[keep], 0.8)
    new_ids = np.append(old_ids[1:], 9_999)
    start = carried_over(old_ids, old, new_ids)
    assert start is not None and start.placed[:-1].all() and not start.placed[-1]
    changed = compute_layout(count, new_source, new_target, new_weight, start=start)
    extent = np.ptp(old, axis=0).max()
    assert np.median(np.linalg.norm(changed[:-1] - old[1:], axis=1)) < 0.05 * extent
    own_group = np.linalg.norm(changed[-1] - changed[:39].mean(axis=0))
    assert own_group < np.linalg.norm(changed[-1] - changed[79:-1].mean(axis=0))
    assert carried_over(old_ids, old, np.arange(5_000, 5_200)) is None  # nothing in common


# --- cache ---------------------------------------------------------------------------------


def test_layout_cache_survives_a_restart_and_ignores_other_graphs(storage, small, tmp_path):
    snapshot = load_graph(storage, valid_only=False)
    key = layout_key(snapshot, LayoutParams())
    positions = np.arange(8, dtype=np.float32).reshape(4, 2)
    LayoutCache(tmp_path / "cache").put(key, positions)
    reopened = LayoutCache(tmp_path / "cache")
    assert np.array_equal(reopened.get(key), positions)
    assert reopened.get(layout_key(snapshot, LayoutParams(seed=1))) is None
    add_edges(storage, [(int(snapshot.ids[1]), int(snapshot.ids[2]), "knn", 0.9)])
    assert layout_key(load_graph(storage, valid_only=False), LayoutParams()) != key


def test_an_unreadable_cache_file_means_laying_out_again(tmp_path, caplog):
    (tmp_path / "graph-layout.npz").write_bytes(b"not a zip file")
    assert LayoutCache(tmp_path).get("anything") is None
    assert "unreadable graph layout" in caplog.text


def test_labels_fit_the_plot_and_stay_clear_of_each_other() -> None:
    """In pixels, on the plot as drawn: no label overlaps another or leaves the plot; one
    near an edge starts or ends at its node instead of being cut off; the most important
    candidate comes first."""
    rng = np.random.default_rng(4)
    points = rng.uniform(0, 600, size=(240, 2))
    points[0] = (5, 300)  # at the left edge: centred, its label would be cut off
    sizes = [(float(rng.integers(60, 220)), 22.0) for _ in points]
    area = (0.0, 0.0, 600.0, 400.0)
    placed = placed_labels(points, sizes, area)
    assert 1 < len(placed) <= 12 and placed[0][:2] == (0, 0.0)  # starts at its node
    for index, _anchor, (left, top, width, height) in placed:
        assert left >= 0 and top >= 0 and left + width <= 600 and top + height <= 400
        assert (width, height) == sizes[index]
    rects = [rect for _i, _a, rect in placed]
    assert not any(a[0] < b[0] + b[2] + 4 and b[0] < a[0] + a[2] + 4
                   and a[1] < b[1] + b[3] + 4 and b[1] < a[1] + a[3] + 4
                   for n, a in enumerate(rects) for b in rects[n + 1:])
    crowded = placed_labels(np.full((30, 2), 300.0), [(100.0, 22.0)] * 30, area)
    assert len(crowded) == 1  # thirty memories on one spot: one label, not a pile
    assert (short_label("Maya is training for the Porto half marathon")
            == "Maya is training for the Porto…")
    assert short_label("Knee physio") == "Knee physio"
