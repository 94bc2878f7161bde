"""The user turn as the model sees it: local time, retrieved context, then the message.

The time is here and not in the system prompt because it changes on every request, and a
changing system prompt defeats the provider's prompt cache. It reads
``[Friday, April 24, 2026 — 09:15 AM Europe/Paris]``: English names (not the process
locale's, which a desktop toolkit may change) and the IANA zone name when the system
has one (``tzlocal``), else the zone's abbreviation.

A message too long for the model (a pasted megabyte) is accepted and saved whole, but the
model gets its beginning and its end (where the question usually is) with a notice in
the middle saying how much was left out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import tzlocal

from core.llm.token_estimates import chars_for, estimate_tokens

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
"""Returns the current time, timezone-aware (tests pass a fixed one)."""

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
HEAD_SHARE = 2 / 3
"""Of a truncated message, this share of the room shows its beginning, the rest its end."""


def local_now() -> datetime:
    """Now in the system's time zone, with its IANA name when it can be found."""
    try:
        return datetime.now(tzlocal.get_localzone())
    except Exception as exc:  # tzlocal raises several types for odd system setups
        log.info("system time zone not found (%s); using the offset only", exc)
        return datetime.now().astimezone()


def format_timestamp(now: datetime) -> str:
    """``[Friday, April 24, 2026 — 09:15 AM Europe/Paris]``."""
    zone = getattr(now.tzinfo, "key", None) or now.tzname()
    hour = now.hour % 12 or 12
    return (f"[{DAYS[now.weekday()]}, {MONTHS[now.month - 1]} {now.day}, {now.year} — "
            f"{hour:02d}:{now.minute:02d} {'AM' if now.hour < 12 else 'PM'}"
            f"{' ' + zone if zone else ''}]")


@dataclass(frozen=True)
class UserTurn:
    content: str
    message_tokens: int
    truncated: bool


def fit_message(text: str, max_tokens: int) -> tuple[str, bool]:
    """``text`` whole if it fits in ``max_tokens``, else its head and tail with a notice."""
    if estimate_tokens(text) <= max_tokens:
        return text, False
    room = chars_for(max_tokens)
    notice_template = ("\n\n[...message truncated for the model: {omitted} of {total} "
                       "characters left out here; the full text is saved...]\n\n")
    room -= len(notice_template.format(omitted=len(text), total=len(text)))
    head = max(0, int(room * HEAD_SHARE))
    tail = max(0, room - head)
    omitted = len(text) - head - tail
    notice = notice_template.format(omitted=omitted, total=len(text))
    return text[:head] + notice + (text[-tail:] if tail else ""), True


def build_user_turn(text: str, context: str, now: datetime, max_message_tokens: int) -> UserTurn:
    """The timestamp line, the context blocks (if any) and the (possibly cut) message."""
    message, truncated = fit_message(text, max_message_tokens)
    parts = [format_timestamp(now)] + ([context] if context else []) + [message]
    return UserTurn(content="\n\n".join(parts), message_tokens=estimate_tokens(message),
                    truncated=truncated)
