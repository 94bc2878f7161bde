"""A force-directed layout in vectorised numpy (no Qt: it runs on a worker and is tested alone).

Why these steps, for 5,000 nodes and 20,000 edges in about a second:

1. **Diffused start.** Random (seeded) coordinates are averaged over the graph a few times
   (``x <- (x + D^-1 A x) / 2``, one sparse product each, done with ``np.bincount``). Linked
   memories start next to each other, so the forces only have to refine, not untangle.
2. **Forces** (after Fruchterman-Reingold): edges pull with ``weight * d`` (a spring; FR's
   ``d^2`` lets a few long cross-topic dream edges drag every cluster into one hairball);
   every pair of nodes pushes with ``1/d``. All pairs would be O(n^2)
   (25 M for 5k nodes per step), so repulsion is split on a uniform grid: nodes in the same
   cell repel exactly (pairs built with ``np.repeat``, capped per cell), other cells push as
   one mass at their centroid. A weak gravity keeps unlinked memories near the rest.
3. **Cooling.** Each step moves a node at most the temperature, which falls linearly.
4. **Strays pulled in.** The few nodes gravity holds far out (no edges) are brought to the
   rim, so fitting the view does not shrink the graph to a dot.

When the graph changes a little (a few memories learnt since the last picture), the old
positions are the start (``carried_over``): new nodes are placed among their neighbours and
a short, cool refinement follows, so the picture the user knows stays where it was.

Everything but the seeded start is deterministic, so one seed gives one picture.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

MAX_SIDE = 40
"""Grid cells per side at most: the far field costs nodes x cells, so beyond ~13k nodes
cells grow instead of multiplying (and the capped near field takes up the slack)."""
FAR_BLOCK = 4_096
Progress = Callable[[int, int], None]
Cancelled = Callable[[], bool]


@dataclass(frozen=True)
class LayoutParams:
    """Tuning knobs; the defaults suit the memory graph."""

    iterations: int = 40
    diffusion_steps: int = 12
    nodes_per_cell: int = 8
    """Grid resolution: about this many nodes per cell on average."""
    cell_cap: int = 48
    """At most this many same-cell partners per node (a dense clump is sampled)."""
    gravity: float = 0.1
    seed: int = 20261122
    refine_iterations: int = 15
    refine_temperature: float = 1.0
    """Most a node moves per step when continuing from known positions."""


@dataclass(frozen=True)
class Start:
    """Positions to continue from: ``positions[i]`` where ``placed[i]``, new nodes elsewhere."""

    positions: np.ndarray
    placed: np.ndarray


WARM_SHARE = 0.5
"""Continue from an old picture only if at least this share of the nodes were in it."""


def carried_over(old_ids: np.ndarray, old_positions: np.ndarray,
                 new_ids: np.ndarray) -> Start | None:
    """The old positions of the memories still drawn, or None when too few remain for the
    old picture to be worth keeping. ``old_ids`` must be sorted (snapshots are by id)."""
    if old_ids.size == 0 or new_ids.size == 0:
        return None
    slot = np.minimum(np.searchsorted(old_ids, new_ids), old_ids.size - 1)
    placed = old_ids[slot] == new_ids
    if placed.mean() < WARM_SHARE:
        return None
    positions = np.zeros((new_ids.size, 2))
    positions[placed] = old_positions[slot[placed]]
    return Start(positions, placed)


class LayoutCancelled(Exception):
    """The caller's ``cancelled()`` returned True between two steps."""


def compute_layout(count: int, source: np.ndarray, target: np.ndarray, weight: np.ndarray,
                   params: LayoutParams = LayoutParams(), *, start: Start | None = None,
                   progress: Progress | None = None,
                   cancelled: Cancelled | None = None) -> np.ndarray:
    """(count, 2) float32 positions for a graph of ``count`` nodes and the given edges
    (node positions ``source[i] -> target[i]``, non-negative ``weight``), from scratch or
    continuing from ``start``."""
    if count == 0:
        return np.zeros((0, 2), dtype=np.float32)
    source = np.asarray(source, dtype=np.int64)
    target = np.asarray(target, dtype=np.int64)
    weight = np.clip(np.asarray(weight, dtype=np.float64), 0.0, None)
    if start is None:
        positions = diffused_start(count, source, target, params)
        iterations, hottest = params.iterations, 0.1 * np.sqrt(count) + 1.0
    else:
        positions = placed_start(start, source, target, params)
        iterations, hottest = params.refine_iterations, params.refine_temperature
    for step in range(iterations):
        if cancelled is not None and cancelled():
            raise LayoutCancelled("The layout was cancelled.")
        force = (attraction(positions, source, target, weight)
                 + repulsion(positions, params)
                 - params.gravity * positions)
        temperature = hottest * (1.0 - step / iterations) + 0.01
        length = np.linalg.norm(force, axis=1, keepdims=True)
        positions += force * (np.minimum(length, temperature) / np.maximum(length, 1e-9))
        if progress is not None:
            progress(step + 1, iterations)
    return pull_in_strays(positions - positions.mean(axis=0)).astype(np.float32)


def pull_in_strays(positions: np.ndarray, quantile: float = 99.0,
                   margin: float = 1.1) -> np.ndarray:
    """Nodes farther from the centre than ``margin`` x the ``quantile`` radius, moved in to
    that radius along their own direction."""
    radius = np.linalg.norm(positions, axis=1)
    rim = margin * float(np.percentile(radius, quantile))
    far = radius > rim
    positions[far] *= (rim / radius[far])[:, None]
    return positions


def diffused_start(count: int, source: np.ndarray, target: np.ndarray,
                   params: LayoutParams) -> np.ndarray:
    """Seeded random positions smoothed along the edges, spread to about ``sqrt(count)``."""
    rng = np.random.default_rng(params.seed)
    positions = rng.uniform(-1.0, 1.0, size=(count, 2))
    degree = np.bincount(source, minlength=count) + np.bincount(target, minlength=count)
    linked = degree > 0
    for _ in range(params.diffusion_steps):
        total = (scatter_sum(source, positions[target], count)
                 + scatter_sum(target, positions[source], count))
        mean = total[linked] / degree[linked, None]
        positions[linked] = 0.5 * (positions[linked] + mean)
    # Diffusion shrinks the linked nodes towards their mean while unlinked ones keep their
    # random spot: each group is spread on its own, or the unlinked would start far out.
    for group in (linked, ~linked):
        if group.any():
            part = positions[group] - positions[group].mean(axis=0)
            spread = part.std(axis=0)
            positions[group] = part * (np.sqrt(count) / 2.0 / np.where(spread > 0, spread, 1.0))
    # A sliver of noise separates nodes that diffusion brought to the same point.
    return positions + rng.normal(scale=0.05, size=positions.shape)


def placed_start(start: Start, source: np.ndarray, target: np.ndarray,
                 params: LayoutParams) -> np.ndarray:
    """The known positions, and each new node at the mean of its placed neighbours (new
    nodes linked only to new ones follow as those get placed; unlinked ones start near the
    middle), with a sliver of seeded noise so no two coincide."""
    rng = np.random.default_rng(params.seed)
    positions = np.array(start.positions, dtype=np.float64)
    placed = np.array(start.placed, dtype=bool)
    count = positions.shape[0]
    positions[~placed] = positions[placed].mean(axis=0)
    for _ in range(params.diffusion_steps):
        if placed.all():
            break
        known_source, known_target = placed[source], placed[target]
        total = (scatter_sum(target[known_source], positions[source[known_source]], count)
                 + scatter_sum(source[known_target], positions[target[known_target]], count))
        seen = (np.bincount(target[known_source], minlength=count)
                + np.bincount(source[known_target], minlength=count))
        reached = ~placed & (seen > 0)
        positions[reached] = total[reached] / seen[reached, None]
        placed = placed | reached
    return positions + rng.normal(scale=0.05, size=positions.shape) * ~np.asarray(
        start.placed, dtype=bool)[:, None]


def attraction(positions: np.ndarray, source: np.ndarray, target: np.ndarray,
               weight: np.ndarray) -> np.ndarray:
    """Each edge pulls its ends together with ``weight * d``: a spring."""
    delta = positions[target] - positions[source]
    pull = delta * weight[:, None]
    return scatter_sum(source, pull, len(positions)) - scatter_sum(target, pull, len(positions))


def repulsion(positions: np.ndarray, params: LayoutParams) -> np.ndarray:
    """Push of ``1/d`` from every other node: exact within a grid cell, by centroid beyond."""
    count = positions.shape[0]
    side = max(1, min(MAX_SIDE, int(np.sqrt(count / params.nodes_per_cell))))
    low = positions.min(axis=0)
    extent = np.maximum(positions.max(axis=0) - low, 1e-9)
    cell_xy = np.minimum((positions - low) / extent * side, side - 1).astype(np.int64)
    cell = cell_xy[:, 0] * side + cell_xy[:, 1]
    return _far_field(positions, cell, side * side) + _near_field(positions, cell,
                                                                  params.cell_cap)


def _far_field(positions: np.ndarray, cell: np.ndarray, cells: int) -> np.ndarray:
    mass = np.bincount(cell, minlength=cells).astype(np.float64)
    occupied = np.flatnonzero(mass)
    centroid = np.stack([np.bincount(cell, positions[:, axis], minlength=cells)[occupied]
                         for axis in (0, 1)], axis=1).astype(np.float32)
    centroid /= mass[occupied, None].astype(np.float32)
    weight = mass[occupied].astype(np.float32)[None, :]
    force = np.empty_like(positions)
    # In float32 and in row blocks: the (rows, cells) temporaries are the step's whole
    # memory (a block of 4,096 rows by 1,600 cells is 26 MB each).
    for start in range(0, positions.shape[0], FAR_BLOCK):
        rows = slice(start, start + FAR_BLOCK)
        dx = positions[rows, 0, None].astype(np.float32) - centroid[None, :, 0]
        dy = positions[rows, 1, None].astype(np.float32) - centroid[None, :, 1]
        push = weight / (dx * dx + dy * dy + 1e-2)
        push[cell[rows, None] == occupied[None, :]] = 0.0  # own cell: exact, in _near_field
        force[rows, 0] = np.einsum("ij,ij->i", push, dx)
        force[rows, 1] = np.einsum("ij,ij->i", push, dy)
    return force


def _near_field(positions: np.ndarray, cell: np.ndarray, cap: int) -> np.ndarray:
    order = np.argsort(cell, kind="stable")
    sorted_cell = cell[order]
    starts = np.flatnonzero(np.r_[True, sorted_cell[1:] != sorted_cell[:-1]])
    sizes = np.diff(np.r_[starts, cell.size])
    group_start = np.repeat(starts, sizes)
    group_size = np.repeat(sizes, sizes)
    partners = np.minimum(group_size, cap)
    scale = group_size / partners          # a sampled clump pushes as hard as the whole
    rank = np.arange(cell.size) - group_start
    # Partner j of the node at sorted rank r is (r + 1 + j) mod size: never itself, and a
    # capped clump still spreads the sample evenly around its members.
    node = np.repeat(np.arange(cell.size), partners)
    offset = np.arange(node.size) - np.repeat(np.cumsum(partners) - partners, partners)
    other = group_start[node] + (rank[node] + 1 + offset) % group_size[node]
    keep = other != node
    node, other = node[keep], other[keep]
    delta = positions[order[node]] - positions[order[other]]
    distance2 = np.einsum("ij,ij->i", delta, delta) + 1e-4
    push = delta * (scale[node] / distance2)[:, None]
    return scatter_sum(order[node], push, len(positions))


def scatter_sum(index: np.ndarray, values: np.ndarray, count: int) -> np.ndarray:
    """``out[index[i]] += values[i]`` for (k, 2) values: ``np.bincount`` per axis, which is
    several times faster than ``np.add.at``."""
    return np.stack([np.bincount(index, values[:, axis], minlength=count)
                     for axis in (0, 1)], axis=1)
