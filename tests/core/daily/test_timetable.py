"""``core.daily.timetable``: the common cron shapes read as a timetable and named in words,
written back as the same cron; every other shape is a custom timetable."""

from __future__ import annotations

import pytest

from core.daily.scheduled_prompts import trigger
from core.daily.timetable import CUSTOM, Timetable, describe, read_cron

WORDS = [
    ("0 9 * * *", "Every day at 09:00"),
    ("0 9 * * 1-5", "Weekdays at 09:00"),
    ("30 10 * * 0,6", "Weekends at 10:30"),
    ("30 18 * * 0", "Sundays at 18:30"),
    ("30 18 * * 7", "Sundays at 18:30"),
    ("0 8 * * mon", "Mondays at 08:00"),
    ("0 7 1 * *", "The 1st of each month at 07:00"),
    ("5 12 22 * *", "The 22nd of each month at 12:05"),
    ("15 * * * *", "Every hour, at 15 past"),
    ("0 * * * *", "Every hour"),
    ("0 */2 * * *", CUSTOM),
    ("0 9 * 6 *", CUSTOM),
    ("0 9 1 * 1", CUSTOM),
    ("61 9 * * *", CUSTOM),
    ("every sunday", CUSTOM),
]


@pytest.mark.parametrize(("cron", "words"), WORDS)
def test_a_schedule_in_words(cron: str, words: str) -> None:
    assert describe(cron) == words


@pytest.mark.parametrize("timetable", [
    Timetable("daily", 9, 0), Timetable("weekdays", 8, 30), Timetable("weekends", 10, 0),
    Timetable("weekly", 18, 30, 0), Timetable("weekly", 7, 5, 3),
    Timetable("monthly", 7, 0, 31), Timetable("hourly", 0, 45)])
def test_a_picked_timetable_is_a_cron_that_runs_and_reads_back(timetable: Timetable) -> None:
    trigger(timetable.cron, "UTC")  # the scheduler accepts it
    assert read_cron(timetable.cron) == timetable
