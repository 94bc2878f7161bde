"""Which nodes and edges the filters let through (numpy over a snapshot, no Qt)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.operations.memories import GraphSnapshot


@dataclass(frozen=True)
class GraphFilter:
    """What the user chose to see. An edge is shown when its kind is chosen, its weight is
    at least ``min_weight`` and both its ends are shown, and only once per link (the
    weaker edge of a pair stored both ways, ``GraphSnapshot.twin``, is never drawn)."""

    tiers: frozenset[str]
    categories: frozenset[str]
    kinds: frozenset[str]
    min_weight: float = 0.0

    @classmethod
    def everything(cls, snapshot: GraphSnapshot) -> GraphFilter:
        return cls(frozenset(snapshot.tiers.names), frozenset(snapshot.categories.names),
                   frozenset(snapshot.kinds.names))

    def masks(self, snapshot: GraphSnapshot) -> tuple[np.ndarray, np.ndarray]:
        """(node mask, edge mask) over the snapshot's nodes and edges."""
        nodes = snapshot.tiers.mask(self.tiers) & snapshot.categories.mask(self.categories)
        edges = (snapshot.kinds.mask(self.kinds) & (snapshot.weight >= self.min_weight)
                 & nodes[snapshot.source] & nodes[snapshot.target] & ~snapshot.twin)
        return nodes, edges
