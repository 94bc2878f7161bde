"""Graph view cost at 5,000 memories and 20,000 edges: snapshot load, layout, frame time.

The store is synthetic and seeded (``seed_graph``): memories in topic clusters with kNN
edges inside a topic, dream edges across topics and summary edges from archival memories,
written straight through core's tables (no embedding: the graph does not need vectors).
The frame time is the view repainting itself offscreen while it is panned a little before
each frame, so nothing is served from a cached picture: the median and the 95th percentile
of ``FRAMES`` synchronous repaints at the window's default size.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import insert

from benchmarks.recall import SEED, memory_texts
from benchmarks.stats import percentiles, timed_ms
from core.storage.orm import Memory, MemoryEdge, utcnow
from core.storage.port import StoragePort
from core.storage.sqlite.adapter import SqliteStorage

NODES, EDGES = 5_000, 20_000
FRAMES = 30
FRAME_TARGET_MS = 33.0
TOPICS = 60
CATEGORIES = ("general", "health", "work", "people", "errands", "hobbies")
TIERS, TIER_SHARES = ("recall", "archival", "source", "core"), (0.6, 0.2, 0.15, 0.05)
DREAM_SHARE, SUMMARY_SHARE = 0.04, 0.03
BATCH = 1_000
LATENT_DIMENSIONS = 8


def seed_graph(storage: StoragePort, nodes: int, edges: int, seed: int = SEED) -> None:
    """Insert ``nodes`` memories and exactly ``edges`` edges (if the nodes allow that many):
    mostly ``knn`` inside a topic, ``DREAM_SHARE`` ``dream`` across topics, ``SUMMARY_SHARE``
    ``summary_of`` from an archival memory to another of its topic; 3% of memories invalid."""
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, TOPICS, nodes)
    tier = rng.choice(len(TIERS), nodes, p=TIER_SHARES)
    texts = memory_texts(nodes, seed)
    now = utcnow()
    memories = [{
        "content": texts[i], "tier": TIERS[tier[i]],
        "category": CATEGORIES[topic[i] % len(CATEGORIES)],
        "namespace": f"user/topic-{topic[i]}",
        "importance": float(rng.beta(2, 5)), "strength": float(rng.uniform(0.2, 1.0)),
        "is_valid": bool(rng.random() >= 0.03),
        "created_at": now - timedelta(days=float(rng.uniform(0, 400))), "updated_at": now,
    } for i in range(nodes)]
    with storage.write() as session:
        ids = np.asarray(session.scalars(
            insert(Memory).returning(Memory.id, sort_by_parameter_order=True), memories).all())
    pairs = _edge_pairs(rng, topic, tier, edges)
    rows = [{"from_id": int(ids[a]), "to_id": int(ids[b]), "kind": kind, "weight": weight,
             "created_at": now} for a, b, kind, weight in pairs]
    for start in range(0, len(rows), BATCH):
        with storage.write() as session:
            session.execute(insert(MemoryEdge), rows[start:start + BATCH])


def _edge_pairs(rng: np.random.Generator, topic: np.ndarray, tier: np.ndarray,
                wanted: int) -> list[tuple[int, int, str, float]]:
    """Unique (from, to, kind) node pairs with weights on each kind's real scale."""
    members = [np.flatnonzero(topic == t) for t in range(TOPICS)]
    # kNN edges join near neighbours in a hidden embedding space (topic centre + noise), as
    # the link stage does: neighbourhoods overlap, unlike random pairs within a topic.
    hidden = rng.normal(size=(TOPICS, LATENT_DIMENSIONS))[topic] * 3 + rng.normal(
        size=(topic.size, LATENT_DIMENSIONS))
    nearest = {int(t): _nearest(hidden[rows], rows) for t, rows in enumerate(members)}
    quotas = {"dream": int(wanted * DREAM_SHARE), "summary_of": int(wanted * SUMMARY_SHARE)}
    quotas["knn"] = wanted - sum(quotas.values())
    archival = np.flatnonzero(tier == TIERS.index("archival"))
    chosen: dict[tuple[int, int, str], float] = {}
    picker = random.Random(int(rng.integers(1 << 30)))
    for kind, quota in quotas.items():
        found = attempts = 0
        while found < quota and attempts < 50 * quota:
            attempts += 1
            if kind == "dream":
                a, b = sorted(picker.sample(range(topic.size), 2))
                if topic[a] == topic[b]:
                    continue
                weight = round(picker.uniform(0.2, 0.27), 4)
            elif kind == "summary_of":
                a = picker.choice(archival)
                b, weight = picker.choice(members[topic[a]]), 1.0
            else:
                a = picker.randrange(topic.size)
                b = picker.choice(nearest[int(topic[a])][a])
                weight = round(picker.uniform(0.7, 0.95), 4)
            if a != b and (int(a), int(b), kind) not in chosen:
                chosen[(int(a), int(b), kind)] = weight
                found += 1
    return [(a, b, kind, weight) for (a, b, kind), weight in chosen.items()]


def _nearest(points: np.ndarray, rows: np.ndarray, k: int = 6) -> dict[int, list[int]]:
    """Each row's ``k`` nearest other rows (by node number) among ``points``."""
    distance = ((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(distance, np.inf)
    order = np.argsort(distance, axis=1)[:, :k]
    return {int(row): rows[order[i]].tolist() for i, row in enumerate(rows)}


def bench_graph_view() -> list[dict[str, str]]:
    """Rows of ``{"benchmark", "value", "target"}``: load, layout, frame time."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from core.views.graph import load_graph
    from desktop.graph.layout import LayoutParams, compute_layout

    label = f"{NODES // 1000}k nodes, {EDGES // 1000}k edges"
    with tempfile.TemporaryDirectory(prefix="hearth-graph-") as folder:
        storage = SqliteStorage(Path(folder) / "graph.db")
        try:
            seed_graph(storage, NODES, EDGES)
            loads = [timed_ms(lambda: load_graph(storage, limit=NODES)) for _ in range(5)]
            snapshot = load_graph(storage, limit=NODES)
        finally:
            storage.close()
    started = time.perf_counter()
    positions = compute_layout(snapshot.node_count, snapshot.source, snapshot.target,
                               snapshot.weight, LayoutParams())
    layout_s = time.perf_counter() - started
    frames = _frame_times(snapshot, positions)
    p50, p95 = percentiles(frames)
    return [
        {"benchmark": f"graph snapshot load ({label}), median of 5",
         "value": f"{percentiles(loads)[0]:.0f} ms", "target": ""},
        {"benchmark": f"graph layout ({snapshot.node_count:,} nodes, "
                      f"{snapshot.edge_count:,} edges)",
         "value": f"{layout_s:.2f} s", "target": "off the UI thread, cached"},
        {"benchmark": f"graph view frame ({label}), p50 / p95 of {FRAMES}",
         "value": f"{p50:.1f} / {p95:.1f} ms", "target": f"≤ {FRAME_TARGET_MS:.0f} ms"},
    ]


def _frame_times(snapshot, positions: np.ndarray) -> list[float]:
    from PySide6.QtWidgets import QApplication

    from desktop.graph.scene import GraphView

    app = QApplication.instance() or QApplication([])
    view = GraphView()
    view.resize(1200, 780)
    view.set_graph(snapshot, positions, "tier", np.ones(snapshot.node_count, dtype=bool),
                   np.ones(snapshot.edge_count, dtype=bool))
    view.show()
    app.processEvents()
    box = view.getViewBox()
    samples = []
    for frame in range(FRAMES):
        shift = 0.5 if frame % 2 else -0.5
        box.translateBy(x=shift, y=shift)  # a pan: the picture must really be redrawn
        app.processEvents()
        samples.append(timed_ms(view.viewport().repaint))
    view.close()
    view.deleteLater()  # gone while Qt still runs, not in the interpreter's final sweep
    app.processEvents()
    return samples
