"""The Memory map page (internally the memory graph): memories drawn, filtered, searched
and explained.

Loading runs on a worker: ``core.operations.memories.memory_map`` reads the snapshot (the most
important memories up to the cap, and the edges between them), then the layout comes from
the cache or is computed with progress (``desktop.graph.layout``). Filters work on the
snapshot in memory (numpy masks, no database). Search asks core's hybrid recall (words and
meaning, the same ranking the assistant uses) and rings the memories it returns.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSpinBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.operations import memories
from core.operations.changes import Changes, Domain
from core.operations.memories import DEFAULT_LIMIT, GraphSnapshot, NodeDetails
from desktop.context import AppContext
from desktop.graph import style
from desktop.graph.cache import LayoutCache, layout_key
from desktop.graph.details import DetailsPanel
from desktop.graph.layout import LayoutCancelled, LayoutParams, carried_over, compute_layout
from desktop.graph.legend import FilterPanel
from desktop.graph.scene import GraphView, node_text
from desktop.icons import icon
from desktop.page import Page
from desktop.scrolling import ShrinkingScrollArea
from desktop.words import count, listing, spaced, tier_text
from desktop.workers import Task

SEARCH_RESULTS = 50
"""Memories hybrid recall may ring per search."""
MAX_NODES = 20_000
SIDE_MIN_WIDTH = 300
LAYOUT = LayoutParams()


@dataclass(frozen=True)
class LoadedGraph:
    """What a load job hands back to the UI thread."""

    snapshot: GraphSnapshot
    positions: np.ndarray
    from_cache: bool
    seconds: float


class GraphPage(Page):
    """Memories as nodes (coloured by kind of memory or topic, sized by importance) and
    their links (similar, found overnight, summary); click a node for its details."""

    key = "graph"
    title = "Memory map"
    about = ("Your memories as dots, and the links Hearth drew between related ones. "
             "(Internally: the memory graph.)")
    icon_name = "graph"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.cache = LayoutCache(ctx.hearth.paths.home / "cache")
        self.snapshot: GraphSnapshot | None = None
        self._loading: Task | None = None
        self._stale = True
        self._loaded_limit = 0
        self._generation = 0
        self._timing = ""
        self._build()
        ctx.hub.changed.connect(self._changed)

    # --- widgets -------------------------------------------------------------------------

    def _build(self) -> None:
        self.colour_by = QComboBox()
        self.colour_by.addItem("Colour by kind of memory", "tier")
        self.colour_by.addItem("Colour by topic", "category")
        self.colour_by.setToolTip("Kind of memory: recent, summaries, originals kept under "
                                  "a summary, always in mind (internally: the tier). Topic: "
                                  "the memory's category.")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Find memories about… (Enter)")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Rings the memories Hearth would recall for these words, "
                               "matched by words and by meaning, the way the assistant "
                               f"recalls (hybrid recall; up to {SEARCH_RESULTS}). Enter "
                               "goes to the best. Ctrl+F to get here, Esc to clear.")
        self.cap = QSpinBox()
        self.cap.setRange(100, MAX_NODES)
        self.cap.setSingleStep(500)
        self.cap.setValue(DEFAULT_LIMIT)
        self.cap.setGroupSeparatorShown(True)
        self.cap.setPrefix("Show at most ")
        self.cap.setSuffix(" memories")
        self.cap.setToolTip("The most important memories are drawn first. A larger map "
                            "takes longer to lay out the first time (about 8 s at 20,000).")
        self.valid_only = QCheckBox("Current only")
        self.valid_only.setChecked(True)
        self.valid_only.setToolTip("Leave out memories marked wrong or replaced by a newer "
                                   "one (invalidated or superseded).")
        self.fit_button = QToolButton()
        self.fit_button.setText("Fit")
        self.fit_button.setToolTip("Show the whole map (Home)")
        self.reload_button = QToolButton()
        self.reload_button.setIcon(icon("refresh"))
        self.reload_button.setToolTip("Reload from the database (F5)")
        bar = QHBoxLayout()
        for widget in (self.colour_by, self.search, self.cap, self.valid_only,
                       self.fit_button, self.reload_button):
            bar.addWidget(widget, 1 if widget is self.search else 0)

        self.progress = QProgressBar()
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.summary = QLabel("Loading the memory map…")
        self.summary.setWordWrap(True)
        self.search_result = QLabel()
        self.search_result.setWordWrap(True)
        self.search_result.hide()

        self.view = GraphView()
        self.view.set_label_source(self._label)
        self.filters = FilterPanel()
        self.details = DetailsPanel()
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(ShrinkingScrollArea(self.filters))  # scrolls on a small screen
        side_layout.addWidget(self.details, 1)
        side.setMinimumWidth(SIDE_MIN_WIDTH)  # narrower, the legend and edge table clip
        main = QSplitter()
        main.addWidget(self.view)
        main.addWidget(side)
        main.setStretchFactor(0, 1)
        main.setSizes([800, 330])
        main.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.addLayout(bar)
        layout.addWidget(self.progress)
        layout.addWidget(self.summary)
        layout.addWidget(self.search_result)
        layout.addWidget(main, 1)

        self.colour_by.currentIndexChanged.connect(self._recolour)
        self.search.returnPressed.connect(self.run_search)
        self.search.textChanged.connect(self._search_edited)
        self.cap.editingFinished.connect(self._cap_changed)
        self.valid_only.toggled.connect(lambda _on: self.reload())
        self.fit_button.clicked.connect(self.view.fit)
        self.reload_button.clicked.connect(self.reload)
        self.filters.changed.connect(self._apply_filters)
        self.view.node_clicked.connect(self.select_node)
        self.details.neighbour_activated.connect(self._jump_to_memory)
        for keys, action in ((QKeySequence.StandardKey.Find, self._focus_search),
                             (QKeySequence.StandardKey.Refresh, self.reload),
                             (QKeySequence(Qt.Key.Key_Home), self.view.fit)):
            QShortcut(keys, self, action, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.search, self.search.clear,
                  context=Qt.ShortcutContext.WidgetShortcut)

    # --- loading -------------------------------------------------------------------------

    def activate(self) -> None:
        if self._stale:
            self.reload()

    def reload(self) -> Task:
        """Read the snapshot and lay it out in the background (a running load is dropped)."""
        if self._loading is not None and self._loading.running:
            self._loading.cancel()
        self._stale = False
        limit, valid_only = self.cap.value(), self.valid_only.isChecked()
        self._loaded_limit = limit
        cache = self.cache
        hearth = self.ctx.hearth
        previous = (None if self.snapshot is None
                    else (self.snapshot.ids, self.view.positions))

        def job(task: Task) -> LoadedGraph | None:
            started = time.perf_counter()
            task.progress(0, 0, "Reading your memories")
            snapshot = memories.memory_map(hearth, limit, valid_only)
            key = layout_key(snapshot, LAYOUT)
            positions = cache.get(key)
            from_cache = positions is not None and positions.shape == (snapshot.node_count, 2)
            if positions is None or not from_cache:
                # A graph that changed a little keeps its picture: continue from it.
                start = None if previous is None else carried_over(*previous, snapshot.ids)
                try:
                    positions = compute_layout(
                        snapshot.node_count, snapshot.source, snapshot.target, snapshot.weight,
                        LAYOUT, start=start, cancelled=lambda: task.cancelled,
                        progress=lambda done, total: task.progress(done, total, "Laying out"))
                except LayoutCancelled:
                    return None
                cache.put(key, positions)
            return LoadedGraph(snapshot, positions, from_cache, time.perf_counter() - started)

        self.progress.setRange(0, 0)
        self.progress.show()
        self._generation += 1
        generation = self._generation

        def loaded(result: LoadedGraph | None) -> None:
            if generation == self._generation:  # an older load finishing late is dropped
                self._loaded(result)

        task = self.run("Loading the memory map", job, loaded, on_progress=self._progressed)
        task.finished.connect(lambda: self._load_finished(task))
        self._loading = task
        return task

    def _progressed(self, done: int, total: int, label: str) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.summary.setText(f"{label}…")

    def _load_finished(self, task: Task) -> None:
        if task is self._loading:
            self.progress.hide()
            self._loading = None

    def _loaded(self, loaded: LoadedGraph | None) -> None:
        """Draw a new snapshot; the memory the person had selected stays selected (and its
        details are read again) when it is still drawn: a reload because something changed
        elsewhere must not take away what they were looking at."""
        if loaded is None:  # cancelled
            return
        kept = self._selected_memory()
        self.snapshot = loaded.snapshot
        mode = self.colour_by.currentData()
        self.filters.set_snapshot(loaded.snapshot, mode)
        self.view.set_graph(loaded.snapshot, loaded.positions, mode,
                            *self.filters.current().masks(loaded.snapshot))
        position = None if kept is None else loaded.snapshot.position(kept)
        if position is None:
            self.details.clear()
        else:
            self.select_node(position)
        self._clear_search()
        self._timing = ("layout from cache" if loaded.from_cache
                        else f"read and laid out in {loaded.seconds:.1f} s")
        self.summary.setText(self._describe())
        if self.search.text().strip():
            self.run_search()

    def _changed(self, changes: Changes) -> None:
        """Memories moved: reload now if shown, else when next shown."""
        if changes.touches(Domain.MEMORIES):
            self._stale = True
            if self.isVisible():
                self.reload()

    def _cap_changed(self) -> None:
        if self.cap.value() != self._loaded_limit:
            self.reload()

    # --- filters and colours -------------------------------------------------------------

    def _recolour(self) -> None:
        mode = self.colour_by.currentData()
        self.view.set_colour_mode(mode)
        self.filters.set_colour_mode(mode)

    def _apply_filters(self) -> None:
        if self.snapshot is None:
            return
        nodes, edges = self.filters.current().masks(self.snapshot)
        self.view.set_visible(nodes, edges)
        self.summary.setText(self._describe())

    def _describe(self) -> str:
        """One line: what is drawn, what the cap left out, where the layout came from; and
        when nothing is linked yet, why the picture is an even spread of dots."""
        snapshot = self.snapshot
        assert snapshot is not None
        if snapshot.node_count == 0:
            return ("No memories yet. They appear here as you chat with Hearth; each night "
                    "it links related ones.")
        if snapshot.link_count == 0:
            return (f"<b>No links yet:</b> the nightly cycle links related memories. Until "
                    f"then nothing joins your {count(snapshot.node_count, 'memory', 'memories')}"
                    ", so they are spread out evenly. Memory ▸ Run dream cycle now links "
                    "them at once.")
        drawn = self.view.drawn_edge_counts()
        per_kind = listing(f"{number:,} {style.edge_style(kind).label}"
                           for kind, number in drawn.items() if number)
        text = (f"Drawing {self.view.drawn_node_count:,} of {snapshot.node_count:,} memories "
                f"and {sum(drawn.values()):,} of {count(snapshot.link_count, 'link')}"
                f"{f' ({per_kind})' if per_kind else ''}; {self._timing}.")
        if snapshot.capped:
            text += (f" Only the {snapshot.node_count:,} most important of "
                     f"{snapshot.total_nodes:,} memories; raise “Show at most” to see more.")
        return text

    # --- selection and details -----------------------------------------------------------

    def _selected_memory(self) -> int | None:
        """The memory the ring is on (None: none)."""
        position = self.view.selected_position
        if self.snapshot is None or position is None:
            return None
        return int(self.snapshot.ids[position])

    def select_node(self, position: int) -> None:
        """Ring a node and load its details (text, metadata, edges) in the background."""
        if self.snapshot is None:
            return
        self.view.set_selected(position)
        memory_id = int(self.snapshot.ids[position])
        hearth = self.ctx.hearth
        self.details.clear(f"Loading memory {memory_id}…")
        self.run(f"Reading memory {memory_id}", lambda _task: memories.map_node(hearth, memory_id),
                 self._show_details)

    def _show_details(self, details: NodeDetails) -> None:
        position = None if self.snapshot is None else self.snapshot.position(details.id)
        if position is not None and position == self.view.selected_position:
            self.details.show_details(details)

    def _jump_to_memory(self, memory_id: int) -> None:
        position = None if self.snapshot is None else self.snapshot.position(memory_id)
        if position is None:
            self.show_error(f"Memory {memory_id} is not drawn.",
                            "Raise “Show at most” or untick “Current only” to include it.")
            return
        if not self.view.is_drawn(position):
            self.show_error(f"Memory {memory_id} is hidden by the filters.",
                            "Tick its kind and topic in the legend.")
            return
        self.view.centre_on(position)
        self.select_node(position)

    def _label(self, position: int) -> str:
        if self.snapshot is None:
            return ""
        snapshot = self.snapshot
        return (f"{node_text(snapshot, position)}\n"
                f"{tier_text(snapshot.tiers.names[snapshot.tiers.codes[position]])} · "
                f"{spaced(snapshot.categories.names[snapshot.categories.codes[position]])} · "
                f"importance {snapshot.importance[position]:.2f}")

    # --- search --------------------------------------------------------------------------

    def _focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def run_search(self) -> Task | None:
        """Ring the memories hybrid recall finds for the search text; jump to the best."""
        text = self.search.text().strip()
        if not text:
            self._clear_search()
            return None
        hearth, valid_only = self.ctx.hearth, self.valid_only.isChecked()
        self._say_search(f"Searching for “{text}”…")
        return self.run("Searching memories",
                        lambda _task: memories.recalled_ids(hearth, text, SEARCH_RESULTS,
                                                            valid_only),
                        lambda ids: self._show_matches(text, ids))

    def _show_matches(self, text: str, memory_ids: Sequence[int]) -> None:
        if self.snapshot is None or text != self.search.text().strip():
            return  # the graph or the question changed meanwhile
        positions = self.snapshot.positions(list(memory_ids))
        drawn = [p for p in (self.snapshot.position(m) for m in memory_ids)
                 if p is not None and self.view.is_drawn(p)]
        self.view.set_matches(positions)
        if not memory_ids:
            self._say_search(f"Nothing found for “{text}”.")
            return
        found = count(len(memory_ids), "memory", "memories")
        message = f"“{text}”: Hearth recalls {found}, {len(drawn)} ringed on the map"
        if len(drawn) < len(memory_ids):
            message += " (the others are outside the cap or hidden by filters)"
        self._say_search(message + ".")
        if drawn:  # recall's order: the best drawn match first
            self.view.centre_on(drawn[0])
            self.select_node(drawn[0])

    def _search_edited(self, text: str) -> None:
        if not text.strip():
            self._clear_search()

    def _clear_search(self) -> None:
        self.view.set_matches(np.zeros(0, dtype=np.int64))
        self._say_search("")

    def _say_search(self, text: str) -> None:
        self.search_result.setText(text)
        self.search_result.setVisible(bool(text))
