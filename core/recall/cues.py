"""What a question says beyond its words: who it names, which dates, whether it asks "when".

Three cues, each measured on long multi-session conversations to help recall when used as a
small boost rather than as a filter (a wrong cue must not be able to hide the answer):

* **people**: a name in the question that is a speaker of a candidate turn boosts that
  speaker's turns ("Which company is Dana joining?": Dana's own turns, not every turn
  that contains the word). Matching is against speakers actually present, so no name
  list is needed and "the assistant" works too;
* **dates**: an explicit date in the question ("in May 2025", "on 3 March", "2025-05-08",
  "last June") boosts turns that happened near it;
* **time questions**: "when ...", "how long ...", "what year/month/day ..." give a small
  boost to turns that carry a time expression (a weekday, a month, "ago", "last week").

No I/O here; ``core.recall.service`` applies the boosts.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr)
               if name})
MONTHS["sept"] = 9
AMBIGUOUS_MONTHS = frozenset({"may", "march", "mar"})
"""Month words that are also common English words: months only with a day, a year or
"last/this/next"."""
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"

_DATE_FORMS = (
    re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?(?P<month>{_MONTH})\.?(?:,?\s+{_YEAR})?\b", re.I),
    re.compile(rf"\b(?P<month>{_MONTH})\.?\s+{_DAY}\b(?:,?\s+{_YEAR})?", re.I),
    re.compile(rf"\b(?P<last>last\s+|this\s+|next\s+)?(?P<month>{_MONTH})\b(?:\s+(?:of\s+)?"
               rf"{_YEAR})?", re.I),
    re.compile(rf"\b(?:in|during|of|from)\s+{_YEAR}\b", re.I),
)
"""ISO dates; "3 May 2025"; "May 3, 2025"; "(last) May (2025)"; "in 2025"."""

_TIME_QUESTION = re.compile(
    r"^\s*(?:when|how\s+long|how\s+many\s+(?:days|weeks|months|years)|what\s+(?:year|month|"
    r"day|date|time)|which\s+(?:year|month|day|date|week|weekend)|since\s+when|until\s+when)\b",
    re.I)

_TIME_WORDS = re.compile(
    rf"\b(?:yesterday|today|tonight|tomorrow|ago|last\s+(?:week|month|year|night|weekend|"
    rf"\w+day)|next\s+(?:week|month|year|weekend|\w+day)|this\s+(?:week|month|year|weekend|"
    rf"morning|evening)|(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend|since|until|"
    rf"(?:19|20)\d\d|{_MONTH}|\d+\s+(?:days|weeks|months|years))\b", re.I)

_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class DateRange:
    """A span a question names; ``start <= t < end``."""

    start: datetime
    end: datetime

    def distance_days(self, moment: datetime) -> float:
        """0 inside the span, else days to its nearer edge."""
        if moment < self.start:
            return (self.start - moment).total_seconds() / 86_400
        if moment >= self.end:
            return (moment - self.end).total_seconds() / 86_400
        return 0.0


def words(text: str) -> set[str]:
    """The lower-cased words of a text (letters and digits)."""
    return {word.casefold() for word in _WORD.findall(text)}


def named_speakers(question: str, speakers: set[str]) -> set[str]:
    """Those of ``speakers`` (as stored) whose every word appears in the question."""
    asked = words(question)
    return {speaker for speaker in speakers
            if speaker and words(speaker) and words(speaker) <= asked}


def asks_when(question: str) -> bool:
    """Whether the question asks for a time or a duration."""
    return bool(_TIME_QUESTION.search(question))


def has_time_words(text: str) -> bool:
    """Whether a text carries a time expression a "when" question could be answered by."""
    return bool(_TIME_WORDS.search(text))


def date_ranges(question: str, now: datetime) -> list[DateRange]:
    """The dates a question names, as spans in UTC; a month or day without a year is the
    latest such one not after ``now`` ("in May" asked in November means this May)."""
    found: list[DateRange] = []
    taken: list[tuple[int, int]] = []
    for form in _DATE_FORMS:
        for match in form.finditer(question):
            if any(start < match.end() and match.start() < end for start, end in taken):
                continue
            span = _span(match.groupdict(), now)
            if span is not None:
                found.append(span)
                taken.append((match.start(), match.end()))
    return found


def _span(parts: dict[str, str | None], now: datetime) -> DateRange | None:
    if parts.get("y"):
        return _day_span(int(parts["y"] or 0), int(parts["m"] or 0), int(parts["d"] or 0))
    year = int(parts["year"] or 0) if parts.get("year") else None
    month_name = (parts.get("month") or "").lower().rstrip(".")
    if not month_name:
        if year is None:
            return None
        return DateRange(_utc(year, 1, 1), _utc(year + 1, 1, 1))
    month = MONTHS[month_name]
    if parts.get("day"):
        day = int(parts["day"] or 0)
        year = year or _latest_year(now, month, day)
        return _day_span(year, month, day)
    if year is None:
        relative = (parts.get("last") or "").strip().lower()
        if not relative and month_name in AMBIGUOUS_MONTHS:
            return None  # "may" the verb, "march" the walk
        if relative == "next":  # the first such month after now
            year = now.year + (month <= now.month)
        else:
            year = _latest_year(now, month, 1)
    end = _utc(year + (month == 12), month % 12 + 1, 1)
    return DateRange(_utc(year, month, 1), end)


def _day_span(year: int, month: int, day: int) -> DateRange | None:
    try:
        start = _utc(year, month, day)
    except ValueError:
        return None
    return DateRange(start, start + timedelta(days=1))


def _latest_year(now: datetime, month: int, day: int) -> int:
    """The year of the latest ``month``/``day`` not after ``now`` (29-31 count as 28, so
    every month has the day)."""
    return now.year if _utc(now.year, month, min(day, 28)) <= now else now.year - 1


def _utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=timezone.utc)
