"""``core.daily.time_phrases``: the moment a reminder phrase names and the day a due phrase
names, in the user's zone, across changes of daylight saving time. Pure: no database."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

from core.daily.time_phrases import DEFAULT_HOUR, parse_day_time, parse_due, parse_when

PARIS = ZoneInfo("Europe/Paris")
NEW_YORK = ZoneInfo("America/New_York")
KOLKATA = ZoneInfo("Asia/Kolkata")
UTC = ZoneInfo("UTC")

WEDNESDAY = datetime(2026, 11, 25, 10, 0, tzinfo=PARIS)  # 09:00 UTC
BEFORE_AUTUMN_CHANGE = datetime(2026, 10, 24, 10, 0, tzinfo=PARIS)  # Sat, clocks go back Sun
BEFORE_SPRING_CHANGE = datetime(2026, 3, 28, 10, 0, tzinfo=PARIS)  # Sat, clocks go forward Sun
NIGHT_OF_CHANGE = datetime(2026, 10, 25, 0, 30, tzinfo=PARIS)  # 00:30 CEST, 22:30 UTC


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text)


WHEN_CASES = [
    # (phrase, now, zone, the UTC moment expected)
    ("tomorrow at 9", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),
    ("at 9 tomorrow", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),
    ("Tomorrow, 9am", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),
    ("at 9", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),  # 09:00 has passed: tomorrow
    ("at 11", WEDNESDAY, PARIS, "2026-11-25T10:00:00+00:00"),  # still ahead: today
    ("at 3", WEDNESDAY, PARIS, "2026-11-25T14:00:00+00:00"),  # a bare 1-6 is the afternoon
    ("at 03:00", WEDNESDAY, PARIS, "2026-11-26T02:00:00+00:00"),  # a leading zero is literal
    ("on Friday", WEDNESDAY, PARIS, "2026-11-27T08:00:00+00:00"),  # the default hour
    ("wednesday", WEDNESDAY, PARIS, "2026-12-02T08:00:00+00:00"),  # said on one: next week's
    ("this wednesday at 5pm", WEDNESDAY, PARIS, "2026-11-25T16:00:00+00:00"),
    ("friday at 3", WEDNESDAY, PARIS, "2026-11-27T14:00:00+00:00"),
    ("in 20 minutes", WEDNESDAY, PARIS, "2026-11-25T09:20:00+00:00"),
    ("in half an hour", WEDNESDAY, PARIS, "2026-11-25T09:30:00+00:00"),
    ("in an hour and a half", WEDNESDAY, PARIS, "2026-11-25T10:30:00+00:00"),
    ("in two hours", WEDNESDAY, PARIS, "2026-11-25T11:00:00+00:00"),
    ("in 3 days", WEDNESDAY, PARIS, "2026-11-28T09:00:00+00:00"),  # keeps the clock time
    ("in 2 days at 9", WEDNESDAY, PARIS, "2026-11-27T08:00:00+00:00"),
    ("next Monday 3pm", WEDNESDAY, PARIS, "2026-11-30T14:00:00+00:00"),
    ("on 3 March", WEDNESDAY, PARIS, "2027-03-03T08:00:00+00:00"),  # the next 3 March
    ("March 3rd, 2027 at 14:30", WEDNESDAY, PARIS, "2027-03-03T13:30:00+00:00"),
    ("on the 1st of December", WEDNESDAY, PARIS, "2026-12-01T08:00:00+00:00"),
    ("25 November at 18:00", WEDNESDAY, PARIS, "2026-11-25T17:00:00+00:00"),  # today's date
    ("2026-12-24 18:00", WEDNESDAY, PARIS, "2026-12-24T17:00:00+00:00"),
    ("tonight", WEDNESDAY, PARIS, "2026-11-25T19:00:00+00:00"),
    ("tonight at 9", WEDNESDAY, PARIS, "2026-11-25T20:00:00+00:00"),
    ("this evening", WEDNESDAY, PARIS, "2026-11-25T17:00:00+00:00"),
    ("this evening at 7", WEDNESDAY, PARIS, "2026-11-25T18:00:00+00:00"),
    ("noon", WEDNESDAY, PARIS, "2026-11-25T11:00:00+00:00"),
    ("at midday", WEDNESDAY, PARIS, "2026-11-25T11:00:00+00:00"),
    ("midnight", WEDNESDAY, PARIS, "2026-11-25T23:00:00+00:00"),  # the one ending today
    ("tomorrow morning", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),
    ("friday evening", WEDNESDAY, PARIS, "2026-11-27T17:00:00+00:00"),
    ("at 7 in the evening", WEDNESDAY, PARIS, "2026-11-25T18:00:00+00:00"),
    ("in the morning", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),
    ("9.30pm", WEDNESDAY, PARIS, "2026-11-25T20:30:00+00:00"),
    ("at 9 o\u2019clock tomorrow", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),
    ("tomorrow\u00a0at\u00a09", WEDNESDAY, PARIS, "2026-11-26T08:00:00+00:00"),
    ("yesterday at 9", WEDNESDAY, PARIS, "2026-11-24T08:00:00+00:00"),  # named, though past
    # daylight saving time: the wall clock is kept for days, real time for durations
    ("tomorrow at 9", BEFORE_AUTUMN_CHANGE, PARIS, "2026-10-25T08:00:00+00:00"),
    ("tomorrow at 10", BEFORE_AUTUMN_CHANGE, PARIS, "2026-10-25T09:00:00+00:00"),
    ("in 2 hours", NIGHT_OF_CHANGE, PARIS, "2026-10-25T00:30:00+00:00"),
    ("at 02:30", NIGHT_OF_CHANGE, PARIS, "2026-10-25T00:30:00+00:00"),  # first of the two
    ("tomorrow at 9", BEFORE_SPRING_CHANGE, PARIS, "2026-03-29T07:00:00+00:00"),
    ("tomorrow at 02:30", BEFORE_SPRING_CHANGE, PARIS, "2026-03-29T01:30:00+00:00"),  # skipped
    # other zones
    ("tomorrow at 9", datetime(2026, 11, 25, 10, 0, tzinfo=NEW_YORK), NEW_YORK,
     "2026-11-26T14:00:00+00:00"),
    ("next Monday 3pm", datetime(2026, 10, 31, 10, 0, tzinfo=NEW_YORK), NEW_YORK,
     "2026-11-02T20:00:00+00:00"),  # EDT on Saturday, EST on Monday
    ("at 9", datetime(2026, 11, 25, 10, 0, tzinfo=KOLKATA), KOLKATA,
     "2026-11-26T03:30:00+00:00"),
    ("in 20 minutes", datetime(2026, 11, 25, 10, 0, tzinfo=KOLKATA), KOLKATA,
     "2026-11-25T04:50:00+00:00"),
    ("tomorrow at 9", datetime(2026, 12, 31, 23, 30, tzinfo=UTC), UTC,
     "2027-01-01T09:00:00+00:00"),
    ("on 3 January", datetime(2026, 12, 31, 23, 30, tzinfo=UTC), UTC,
     "2027-01-03T09:00:00+00:00"),
]


@pytest.mark.parametrize(("phrase", "now", "zone", "expected"), WHEN_CASES,
                         ids=[f"{c[0]}@{c[2]}" for c in WHEN_CASES])
def test_the_moment_a_phrase_names(phrase: str, now: datetime, zone: ZoneInfo,
                                   expected: str) -> None:
    moment = parse_when(phrase, now=now, zone=zone)
    assert moment == utc(expected)
    assert moment is not None and moment.utcoffset() is not None


def test_the_default_hour_is_the_documented_one() -> None:
    moment = parse_when("on Friday", now=WEDNESDAY, zone=PARIS)
    assert moment is not None and moment.astimezone(PARIS).hour == DEFAULT_HOUR == 9


@pytest.mark.parametrize("phrase", [
    "sometime next week", "at the weekend-ish", "1/12", "on 31 February", "at 25:00",
    "at 9:75", "13pm", "in 0 minutes", "sun at 3pm", "the dentist tomorrow", "later",
    "tomorrow tomorrow", "at 9 at 10", "", "in the",
])
def test_what_is_not_a_moment(phrase: str) -> None:
    assert parse_when(phrase, now=WEDNESDAY, zone=PARIS) is None


DUE_CASES = [
    ("by Friday", date(2026, 11, 27)),
    ("due tomorrow", date(2026, 11, 26)),
    ("due April 15", date(2027, 4, 15)),
    ("due on 2 December", date(2026, 12, 2)),
    ("by the end of the month", date(2026, 11, 30)),
    ("by end of next month", date(2026, 12, 31)),
    ("by the end of the week", date(2026, 11, 29)),
    ("by the weekend", date(2026, 11, 28)),
    ("by next week", date(2026, 11, 30)),
    ("today", date(2026, 11, 25)),
    ("on Fri", date(2026, 11, 27)),
    ("by Friday 5pm", date(2026, 11, 27)),  # the date only
]


@pytest.mark.parametrize(("phrase", "expected"), DUE_CASES)
def test_the_day_a_task_is_due(phrase: str, expected: date) -> None:
    assert parse_due(phrase, now=WEDNESDAY, zone=PARIS) == expected


@pytest.mark.parametrize("phrase", ["by 5pm", "by the end of time", "whenever", "in 2 hours"])
def test_what_is_not_a_due_day(phrase: str) -> None:
    assert parse_due(phrase, now=WEDNESDAY, zone=PARIS) is None


def test_the_due_day_is_the_users_day_not_utcs() -> None:
    late_in_new_york = datetime(2026, 11, 25, 22, 0, tzinfo=NEW_YORK)  # already the 26th in UTC
    assert parse_due("due tomorrow", now=late_in_new_york, zone=NEW_YORK) == date(2026, 11, 26)


def test_a_naive_now_is_refused() -> None:
    """A naive ``now`` would be read in the machine's zone, not the user's: refused."""
    with pytest.raises(ValueError, match="timezone-aware"):
        parse_when("tomorrow at 9", now=datetime(2026, 11, 25, 10, 0), zone=PARIS)
    with pytest.raises(ValueError, match="timezone-aware"):
        parse_due("by Friday", now=datetime(2026, 11, 25, 10, 0), zone=PARIS)


def test_dateparser_is_imported_on_first_use_and_never_reaches_the_network() -> None:
    """Importing the rules does not load dateparser (it is slow to import); parsing with it
    opens no socket (language detection could download nothing anyway, but say so)."""
    script = (
        "import socket, sys\n"
        "import core.daily.explicit\n"
        "assert 'dateparser' not in sys.modules\n"
        "def refuse(*a, **k):\n"
        "    raise AssertionError('network')\n"
        "socket.socket = refuse\n"
        "socket.create_connection = refuse\n"
        "from datetime import datetime\n"
        "from zoneinfo import ZoneInfo\n"
        "from core.daily.time_phrases import parse_when\n"
        "z = ZoneInfo('Europe/Paris')\n"
        "print(parse_when('next friday at 3pm', now=datetime(2026, 11, 25, tzinfo=z), zone=z))\n"
        "assert 'dateparser' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "2026-11-27 14:00:00+00:00"


@pytest.mark.parametrize(("phrase", "expected"), [
    ("next Tuesday 3pm", (date(2026, 12, 1), "15:00")),
    ("3pm next tuesday", (date(2026, 12, 1), "15:00")),
    ("on Friday", (date(2026, 11, 27), None)),  # a day without a time has none
    ("tomorrow 9:30", (date(2026, 11, 26), "09:30")),
    ("at 9", (date(2026, 11, 26), "09:00")),  # a time alone: the next one
    ("tonight", (date(2026, 11, 25), "20:00")),
    ("in 2 hours", None),  # a duration is no day
    ("the movie", None),
])
def test_the_day_and_time_of_a_dated_to_do(phrase: str, expected: tuple | None) -> None:
    found = parse_day_time(phrase, now=WEDNESDAY, zone=PARIS)
    assert (None if found is None else
            (found[0], None if found[1] is None else f"{found[1]:%H:%M}")) == expected
