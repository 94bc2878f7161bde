"""Explicit requests, caught by rules: "remind me tomorrow at 9 to call the dentist".

The small embedded model cannot call tools, yet a user who types "add a task: renew passport
by Friday" expects a task, not a friendly paragraph about passports. So a few readable rules
recognise the explicit, imperative forms and turn them into the same request a tool call
would make (``action`` and ``arguments``, the names the pending-action dispatch uses:
``reminder.create``, ``task.create``, ``note.create``), with a preview sentence for the
approval card. Anything else returns None and the model answers: a request must be the
whole message and start with the imperative, and questions, pasted material, a reminder
with no time and a moment already past are left alone. Pure: no storage, no model.

See docs/assistant.md, "Explicit requests without tool calls" (every form read, what is
left to the model and why).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from core.daily.time_phrases import parse_due, parse_when, require_aware

MAX_MESSAGE_CHARS = 1000
"""Longer messages are pasted material or a story, not a command."""
MAX_TITLE_CHARS = 200
_PREVIEW_CHARS = 80

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

_QUOTES = "\"'\u2018\u2019\u201c\u201d\u00ab\u00bb\u201e"
_POLITE = re.compile(
    r"(?:(?:hey |hi |ok |okay )?hearth[,:]? )?(?:please,? )?"
    r"(?:(?:can|could|would|will) you (?:please )?)?", re.I)
_TRAILING = re.compile(r"(?:[,;]? (?:please|thanks|thank you))?[\s.!?]*$", re.I)

_REMIND_ME = re.compile(r"remind me (?P<rest>.+)", re.I | re.S)
_SET_REMINDER = re.compile(
    r"(?:set|create|add|make) (?:me )?(?:a |an )?(?:new )?reminder(?P<rest>(?: |:).+)",
    re.I | re.S)
_REMINDER_LABEL = re.compile(r"reminder(?P<rest>(?: |:).+)", re.I | re.S)
_LEAD_CONNECTOR = re.compile(r"(?:to|that|about)\s+|[:,\-\u2013\u2014]\s*", re.I)
_WHEN_INTRO = re.compile(r"for\s+", re.I)  # "on" and "at" belong to the phrase itself
_WHEN_SEPARATOR = re.compile(r"\s*[:,\-\u2013\u2014]\s*|\s+(?:to|that|about)\s+", re.I)

_TASK_WORD = r"(?:task|to-?do)(?: item)?"
_ADD_TASK = re.compile(
    rf"(?:add|create|make|new)(?: (?:a|an|another|new))* {_TASK_WORD}(?! list)"
    rf"\s*[:\-\u2013\u2014]\s*(?P<rest>.+)"
    rf"|add(?: (?:a|an|another|new))? {_TASK_WORD}(?! list)(?:\s*,)?\s+(?P<rest2>.+)", re.I)
_TASK_LABEL = re.compile(rf"(?:new )?{_TASK_WORD}\s*:\s*(?P<rest>.+)", re.I)
_ON_MY_LIST = re.compile(
    r"(?:put|add) (?P<rest>.+?) (?:on|to) (?:my|the) "
    r"(?:to-?do(?:s| list)?|task(?:s| list)|list of tasks)", re.I)
_DUE_FIRST = re.compile(r"(?:for|due|by)\s+(?P<when>[^:]+?)\s*:\s*(?P<title>.+)", re.I)
_BARE_DUE = re.compile(r"(?:today|tomorrow|tonight)$", re.I)
_DUE_START = re.compile(r"(?:due|by|on)\s", re.I)

_NOTE_LABEL = re.compile(r"(?:note|memo|note to self)\s*:\s*(?P<content>.+)", re.I | re.S)
_TAKE_NOTE = re.compile(
    r"(?:take|make|write|save|add|create|jot down)(?: (?:a|an|new|quick))* note"
    r"(?:\s*:\s*|\s+that\s+|\s*[\u2013\u2014-]\s+)(?P<content>.+)", re.I | re.S)
_TITLED_NOTE = re.compile(
    r"(?:take|make|write|save|add|create)(?: (?:a|an|new|quick))* note "
    r"(?:titled|called|named) (?P<title>.+?)\s*(?::|\u2013|\u2014| - )\s*(?P<content>.+)",
    re.I | re.S)
_DETERMINER_BEFORE = re.compile(r"(?:^|\s)(?:the|a|an|my|your|our|this|that)$", re.I)


@dataclass(frozen=True)
class ExplicitRequest:
    """What the user asked for outright: the action and arguments a tool call would carry,
    and the sentence the approval card shows."""

    action: str
    arguments: dict[str, Any]
    preview: str


def explicit_request(text: str, *, now: datetime, zone: ZoneInfo) -> ExplicitRequest | None:
    """The reminder, task or note ``text`` asks for in so many words, or None.

    Pure: reads nothing but its arguments (``now`` is an aware instant, ``zone`` the user's).
    Plugs in where a user turn reaches ``core.conversation.service`` with a model that has no
    tools: a request found here is held as a pending action, and the model still replies.
    """
    require_aware(now)
    message = _clean(text)
    if message is None:
        return None
    polite = _POLITE.match(message)
    asked = polite is not None and polite[0].lower().rstrip(" ,").endswith(("you", "please"))
    command = _TRAILING.sub("", message[polite.end() if polite else 0:])
    if not command or (message.rstrip().endswith("?") and not asked):
        return None  # a question, unless a polite "could you ...?"
    note = _note(command)
    if note is not None or "\n" in command:
        return note
    return _reminder(command, now=now, zone=zone) or _task(command, now=now, zone=zone)


def _clean(text: str) -> str | None:
    """The message as a command is read from it, or None when it is pasted material."""
    if len(text) > MAX_MESSAGE_CHARS or "```" in text or "~~~" in text:
        return None
    text = unicodedata.normalize("NFC", text)
    text = "".join(" " if unicodedata.category(c) == "Zs" else c for c in text)
    text = text.strip().strip("\u200b\u200e\u200f\u2060\ufeff\u202a\u202b\u202c\u2066\u2067"
                              "\u2068\u2069").strip()
    if not text or text[0] in _QUOTES or text.startswith(">"):
        return None
    return text


# --- reminders ------------------------------------------------------------------------


def _reminder(command: str, *, now: datetime, zone: ZoneInfo) -> ExplicitRequest | None:
    match = (_REMIND_ME.fullmatch(command) or _SET_REMINDER.fullmatch(command)
             or _REMINDER_LABEL.fullmatch(command))
    if match is None:
        return None
    found = _message_and_moment(match["rest"].strip(), now=now, zone=zone)
    if found is None:
        return None
    message, moment = found
    if moment <= now or not message or len(message) > MAX_TITLE_CHARS or "?" in message:
        return None
    local = moment.astimezone(zone)
    return ExplicitRequest(
        "reminder.create", {"message": message, "remind_at": moment.isoformat()},
        f"Remind you on {_day_words(local.date(), now, zone)} at {local:%H:%M}: "
        f"{_shorten(message)}")


def _message_and_moment(rest: str, *, now: datetime, zone: ZoneInfo
                        ) -> tuple[str, datetime] | None:
    """Split "<when> to|that|about|: <what>" (the longest <when> that reads) or, after "to",
    "about" or ":", "<what> <when>" (the longest <when> at the end that reads)."""
    leading = _LEAD_CONNECTOR.match(rest)
    if leading is None or leading[0].lower().startswith("that"):
        intro = _WHEN_INTRO.match(rest)
        offset = intro.end() if intro else 0
        found: tuple[str, datetime] | None = None
        for separator in _WHEN_SEPARATOR.finditer(rest, offset):
            moment = parse_when(rest[offset:separator.start()], now=now, zone=zone)
            if moment is not None:
                found = _tidy(rest[separator.end():]), moment
        return found
    body = rest[leading.end():]
    for start in _word_starts(body):
        if start == 0 or _DETERMINER_BEFORE.search(body[:start].rstrip()):
            continue
        moment = parse_when(body[start:], now=now, zone=zone)
        if moment is not None:
            return _tidy(body[:start]), moment
    return None


# --- tasks ----------------------------------------------------------------------------


def _task(command: str, *, now: datetime, zone: ZoneInfo) -> ExplicitRequest | None:
    listed = _ON_MY_LIST.fullmatch(command)
    match = listed or _ADD_TASK.fullmatch(command) or _TASK_LABEL.fullmatch(command)
    if match is None:
        return None
    rest = match.groupdict().get("rest") or match.groupdict().get("rest2") or ""
    title, due = _title_and_due(rest.strip(), now=now, zone=zone)
    title = _unquote(title)
    today = now.astimezone(zone).date()
    if (not title or len(title) > MAX_TITLE_CHARS or "?" in title
            or (due is not None and due < today)):
        return None
    preview = f"Add the task \u201c{_shorten(title)}\u201d"
    if due is not None:
        preview += f", due {_day_words(due, now, zone)}"
    return ExplicitRequest("task.create",
                           {"title": title, "due_date": due.isoformat() if due else None}, preview)


def _title_and_due(rest: str, *, now: datetime, zone: ZoneInfo) -> tuple[str, date | None]:
    """The title and the due day a leading "for tomorrow:" or a trailing "by Friday" /
    "due tomorrow" names."""
    leading = _DUE_FIRST.fullmatch(rest)
    if leading:
        due = parse_due(leading["when"], now=now, zone=zone)
        if due is not None:
            return _tidy(leading["title"]), due
    for start in _word_starts(rest):
        if start == 0:
            continue
        tail = rest[start:]
        if not (_DUE_START.match(tail) or _BARE_DUE.match(tail)):
            continue
        due = parse_due(tail, now=now, zone=zone)
        if due is not None:
            return _tidy(rest[:start]), due
    return _tidy(rest), None


# --- notes ----------------------------------------------------------------------------


def _note(command: str) -> ExplicitRequest | None:
    titled = _TITLED_NOTE.fullmatch(command)
    match = titled or _NOTE_LABEL.fullmatch(command) or _TAKE_NOTE.fullmatch(command)
    if match is None:
        return None
    title = _unquote(titled["title"]) if titled else None
    content = match["content"].strip()
    if not content or (titled and not title):
        return None
    preview = (f"Save the note \u201c{_shorten(title)}\u201d: {_shorten(content)}" if title
               else f"Save a note: {_shorten(content)}")
    return ExplicitRequest("note.create", {"title": title, "content": content}, preview)


# --- words ----------------------------------------------------------------------------


def _word_starts(text: str) -> list[int]:
    return [m.start() for m in re.finditer(r"(?<!\S)\S", text)]


def _tidy(text: str) -> str:
    """A message or title without the connectors and punctuation around it."""
    text = text.strip().rstrip(",;:\u2013\u2014-").strip()
    leading = re.match(r"(?:to|that|about)\s+", text, re.I)
    return text[leading.end():] if leading else text


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _PREVIEW_CHARS else text[:_PREVIEW_CHARS - 1].rstrip() + "\u2026"


def _day_words(day: date, now: datetime, zone: ZoneInfo) -> str:
    """"Thu 26 Nov" (with the year when it is not this one)."""
    words = f"{_DAYS[day.weekday()]} {day.day} {_MONTHS[day.month - 1]}"
    if day.year != now.astimezone(zone).year:
        words += f" {day.year}"
    return words

