"""The views in the sidebar, in order, and the key that brings each up (``view_shortcut``):
``Ctrl+1`` … ``Ctrl+0`` the first ten, ``Alt+1`` … ``Alt+0`` the next ten.

Why Alt for the rest rather than Ctrl+Shift+digit: with Shift held, most keyboard layouts
send a symbol ("!", "@", "&", "§"), and which digit that symbol was is the layout's
business, so Ctrl+Shift+1 fires on some keyboards and not on others; Alt+digit reaches the
application as the digit everywhere, and no menu mnemonic uses a digit."""

from __future__ import annotations

from importlib import import_module

from desktop.page import Page

PAGES: tuple[str, ...] = (
    "desktop.chat.page:ChatPage",
    "desktop.daily.today:TodayPage",
    "desktop.daily.notes:NotesPage",
    "desktop.daily.journal:JournalPage",
    "desktop.daily.read_later:ReadLaterPage",
    "desktop.daily.schedule:SchedulePage",
    "desktop.inspector.facts:FactsPage",
    "desktop.inspector.about_you:AboutYouPage",
    "desktop.inspector.notes_about_you:NotesAboutYouPage",
    "desktop.inspector.habits:HabitsPage",
    "desktop.inspector.follow_ups:FollowUpsPage",
    "desktop.inspector.memories:MemoriesPage",
    "desktop.inspector.activity:ActivityPage",
    "desktop.inspector.stats:StatsPage",
    "desktop.graph.page:GraphPage",
    "desktop.inspector.agents:AgentsPage",
)
"""``module:Class`` of each page, imported when the window is built."""


VIEW_KEYS = tuple(f"Ctrl+{n % 10}" for n in range(1, 11)) + tuple(
    f"Alt+{n % 10}" for n in range(1, 11))
"""The shortcut of each position in the sidebar (at most 20 views have one)."""


def view_shortcut(position: int) -> str | None:
    """The key that brings up the view at ``position`` (0 is the first), or None past 20."""
    return VIEW_KEYS[position] if position < len(VIEW_KEYS) else None


def page_classes() -> list[type[Page]]:
    classes = []
    for spec in PAGES:
        module, name = spec.split(":")
        classes.append(getattr(import_module(module), name))
    return classes
