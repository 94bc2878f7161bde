"""The views in the sidebar, in order. ``Ctrl+1`` … ``Ctrl+0`` bring up the first ten."""

from __future__ import annotations

from importlib import import_module

from desktop.page import Page

PAGES: tuple[str, ...] = (
    "desktop.chat.page:ChatPage",
    "desktop.daily.today:TodayPage",
    "desktop.daily.notes:NotesPage",
    "desktop.daily.journal:JournalPage",
    "desktop.daily.read_later:ReadLaterPage",
    "desktop.inspector.facts:FactsPage",
    "desktop.inspector.profile:ProfilePage",
    "desktop.inspector.scaffold:ScaffoldPage",
    "desktop.inspector.learnings:LearningsPage",
    "desktop.inspector.intentions:IntentionsPage",
    "desktop.inspector.memories:MemoriesPage",
    "desktop.inspector.activity:ActivityPage",
    "desktop.inspector.stats:StatsPage",
    "desktop.graph.page:GraphPage",
    "desktop.inspector.agents:AgentsPage",
)
"""``module:Class`` of each page, imported when the window is built."""


def page_classes() -> list[type[Page]]:
    classes = []
    for spec in PAGES:
        module, name = spec.split(":")
        classes.append(getattr(import_module(module), name))
    return classes
