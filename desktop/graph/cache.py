"""Layouts kept between openings: the same graph is never laid out twice.

A layout depends only on the nodes, the edges with their weights, and the layout's
parameters, so their digest is the key. The latest few live in memory (switching pages is
instant) and the newest one is also written to ``<data folder>/cache/graph-layout.npz``
(opening the window again is instant too). The file is derived data: if it cannot be read
or written the layout is computed again and the reason is logged.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np

from core.operations.memories import GraphSnapshot
from desktop.graph.layout import LayoutParams

log = logging.getLogger(__name__)

FILE_NAME = "graph-layout.npz"
IN_MEMORY = 4


def layout_key(snapshot: GraphSnapshot, params: LayoutParams) -> str:
    """Digest of everything the layout depends on (weights to 3 decimals: a re-link that
    moves a cosine in the 5th place does not redo the picture)."""
    digest = hashlib.sha256(repr(params).encode())
    for array in (snapshot.ids, snapshot.source, snapshot.target,
                  np.round(snapshot.weight, 3)):
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


class LayoutCache:
    """Positions by ``layout_key``: a small in-memory LRU over one file on disk. Used from
    load jobs, two of which may overlap (a reload drops the previous one), hence the lock."""

    def __init__(self, folder: Path) -> None:
        self._file = folder / FILE_NAME
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> np.ndarray | None:
        with self._lock:
            if key in self._recent:
                self._recent.move_to_end(key)
                return self._recent[key]
            positions = self._read(key)
            if positions is not None:
                self._remember(key, positions)
            return positions

    def put(self, key: str, positions: np.ndarray) -> None:
        with self._lock:
            self._remember(key, positions)
            self._write(key, positions)

    def _write(self, key: str, positions: np.ndarray) -> None:
        try:
            self._file.parent.mkdir(parents=True, exist_ok=True)
            partial = self._file.with_suffix(".partial.npz")
            np.savez(partial, key=np.asarray(key), positions=positions)
            partial.replace(self._file)
        except OSError as exc:
            log.warning("could not keep the graph layout in %s: %s", self._file, exc)

    def _remember(self, key: str, positions: np.ndarray) -> None:
        self._recent[key] = positions
        self._recent.move_to_end(key)
        while len(self._recent) > IN_MEMORY:
            self._recent.popitem(last=False)

    def _read(self, key: str) -> np.ndarray | None:
        if not self._file.exists():
            return None
        try:
            with np.load(self._file) as stored:
                if str(stored["key"]) != key:
                    return None
                positions = stored["positions"]
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
            log.warning("ignoring the unreadable graph layout %s: %s", self._file, exc)
            return None
        return positions.astype(np.float32) if np.isfinite(positions).all() else None
