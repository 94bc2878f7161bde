"""The names of the scheduler's jobs (``core.scheduling``), in a module of their own so that
``hearth daemon --help`` can list them without importing the scheduler and the engine."""

from __future__ import annotations

DREAM, DECAY, EVENT_PROCESSOR, DELIVERY, DAILY_BRIEFING, REFLECT, PURGE_DELETED = (
    "dream", "decay", "event_processor", "delivery", "daily_briefing", "reflect",
    "purge_deleted")
SCHEDULED_JOBS: tuple[str, ...] = (DREAM, DECAY, EVENT_PROCESSOR, DELIVERY, PURGE_DELETED)
"""Always scheduled; ``daily_briefing`` too while the setting is on."""
ON_DEMAND_JOBS: tuple[str, ...] = (*SCHEDULED_JOBS, DAILY_BRIEFING, REFLECT)
"""``reflect`` has no schedule of its own (the dream cycle reflects nightly); it exists
for the tray's "Reflect now"."""
