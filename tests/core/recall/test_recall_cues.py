"""What recall reads from a question: named speakers, dates, "when" questions, time words."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core.recall.cues import asks_when, date_ranges, has_time_words, named_speakers

NOW = datetime(2026, 11, 23, 12, tzinfo=timezone.utc)


def day(year: int, month: int, number: int) -> datetime:
    return datetime(year, month, number, tzinfo=timezone.utc)


@pytest.mark.parametrize(("question", "start", "end"), [
    ("What happened on 2025-05-08?", day(2025, 5, 8), day(2025, 5, 9)),
    ("What did we do on 3 March 2025?", day(2025, 3, 3), day(2025, 3, 4)),
    ("Where were we on March 3, 2025?", day(2025, 3, 3), day(2025, 3, 4)),
    ("What happened on the 3rd of March?", day(2026, 3, 3), day(2026, 3, 4)),
    ("What did Dana do in May 2025?", day(2025, 5, 1), day(2025, 6, 1)),
    ("What did I cook last June?", day(2026, 6, 1), day(2026, 7, 1)),
    ("What did I plan for December?", day(2025, 12, 1), day(2026, 1, 1)),
    ("What is planned for next December?", day(2026, 12, 1), day(2027, 1, 1)),
    ("What is planned for next March?", day(2027, 3, 1), day(2027, 4, 1)),
    ("Which trips did we take in 2025?", day(2025, 1, 1), day(2026, 1, 1)),
])
def test_dates_a_question_names(question: str, start: datetime, end: datetime) -> None:
    (span,) = date_ranges(question, NOW)
    assert (span.start, span.end) == (start, end)


@pytest.mark.parametrize("question", [
    "May I ask what Dana said?", "Did the march go well?", "What is my sister called?"])
def test_words_that_only_look_like_dates_are_not_dates(question: str) -> None:
    assert date_ranges(question, NOW) == []


def test_distance_to_a_span_is_zero_inside_and_days_outside() -> None:
    (span,) = date_ranges("in May 2025", NOW)
    assert span.distance_days(day(2025, 5, 20)) == 0.0
    assert span.distance_days(day(2025, 6, 3)) == pytest.approx(2.0)
    assert span.distance_days(day(2025, 4, 29)) == pytest.approx(2.0)


def test_speakers_named_in_the_question() -> None:
    speakers = {"Dana", "Marcus", "assistant", "Mary Ann"}
    assert named_speakers("Which company is Dana joining?", speakers) == {"Dana"}
    assert named_speakers("What did the assistant suggest?", speakers) == {"assistant"}
    assert named_speakers("Where does Mary Ann live?", speakers) == {"Mary Ann"}
    assert named_speakers("Where does Mary live?", speakers) == set()


@pytest.mark.parametrize(("question", "expected"), [
    ("When did Dana move?", True), ("How long was the trip?", True),
    ("What year did she graduate?", True), ("Which month was the wedding?", True),
    ("What does Dana do?", False), ("Where is the key?", False)])
def test_when_questions(question: str, expected: bool) -> None:
    assert asks_when(question) is expected


def test_time_words() -> None:
    assert has_time_words("we went there two weeks ago")
    assert has_time_words("see you next Friday")
    assert has_time_words("in March 2025")
    assert not has_time_words("I like cheese")
