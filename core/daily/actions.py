"""Every change a model may ask for, in one table: its arguments, its preview, its effect.

Chat tools, the explicit-phrase rules and the CLI name an action ("task.create") and give
its arguments as JSON; ``Actions.check`` cleans them (unknown or missing arguments, a bad
date, an empty title: one sentence each) and writes the preview the user confirms
("Add the task “Renew passport”, due Fri 28 Nov 2026.") after rehearsing the change in a
write transaction that is rolled back, so a request that could not apply (a reminder in the
past, a bad cron, a task that does not exist) is refused with the very sentence the
service would say, before it waits for anyone; ``Actions.prepare`` does what must
happen outside a transaction (embedding a note) and returns the step that applies it in the
caller's write transaction, so a confirmed pending action changes its row and its status
together (``core.daily.pending_actions``). Arguments stay JSON (dates as ISO text) because a held
action waits in the database.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy.orm import Session

from core.daily import reminders, scheduled_prompts, tasks, when
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService
from core.daily.tasks import TaskService
from core.errors import InvalidInputError
from core.knowledge.notes import NoteService
from core.storage.port import StoragePort

Step = Callable[[Session], str]
"""Applies a checked action in the caller's transaction; returns what it did, in words."""
Arguments = dict[str, Any]


@dataclass(frozen=True)
class DailyServices:
    """The services an action may change."""

    tasks: TaskService
    reminders: ReminderService
    notes: NoteService
    scheduled_prompts: ScheduledPromptService


@dataclass(frozen=True)
class Field:
    """One argument: its name, whether it must be given, and its JSON type."""

    name: str
    kind: type
    required: bool = False


@dataclass(frozen=True)
class Action:
    """One kind of change: what it does (for a tool's description), its arguments, its
    preview (may read the current rows) and how it applies."""

    name: str
    purpose: str
    fields: tuple[Field, ...]
    preview: Callable[[DailyServices, Arguments], str]
    prepare: Callable[[DailyServices, Arguments], Step]


# --- wording -------------------------------------------------------------------------------


def _quoted(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return f"“{text if len(text) <= limit else text[:limit - 1] + '…'}”"


def _day(value: str) -> str:
    return when.day(value).strftime("%a %d %b %Y")


def _due(arguments: Arguments) -> str:
    if not arguments.get("due_date"):
        return ""
    at = f" at {arguments['due_time']}" if arguments.get("due_time") else ""
    return f", due {_day(arguments['due_date'])}{at}"


def _moment(value: str, zone: str | None) -> str:
    at = when.moment(value, zone).astimezone(when.zone(zone))
    return at.strftime("%a %d %b %Y at %H:%M")


def _task_title(services: DailyServices, arguments: Arguments) -> str:
    return f"task {arguments['id']} {_quoted(services.tasks.get(arguments['id']).title)}"


def _note_title(services: DailyServices, arguments: Arguments) -> str:
    note = services.notes.get(arguments["id"])
    return f"note {note.id} {_quoted(note.title or note.content, 60)}"


# --- the actions ---------------------------------------------------------------------------


def _task_create(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        task = tasks.create_in(session, arguments["title"], details=arguments.get("details", ""),
                               due_date=arguments.get("due_date"),
                               due_time=arguments.get("due_time"), source="assistant")
        return f"Added task {task.id} {_quoted(task.title)}."
    return step


def _task_update(services: DailyServices, arguments: Arguments) -> Step:
    due = {name: arguments[name] for name in ("due_date", "due_time") if name in arguments}

    def step(session: Session) -> str:
        task = tasks.update_in(session, arguments["id"], title=arguments.get("title"),
                               details=arguments.get("details"), **due)
        return f"Changed task {task.id} {_quoted(task.title)}."
    return step


def _task_changes(services: DailyServices, arguments: Arguments) -> str:
    changes = []
    if "title" in arguments:
        changes.append(f"title to {_quoted(arguments['title'])}")
    if "details" in arguments:
        changes.append("its details")
    if "due_date" in arguments:
        changes.append(f"due date to {_day(arguments['due_date'])}" if arguments["due_date"]
                       else "no due date")
    if "due_time" in arguments:
        changes.append(f"due time to {arguments['due_time']}" if arguments["due_time"]
                       else "no due time")
    if not changes:
        raise InvalidInputError("The change names nothing to change.",
                                "Give a new title, details, due date or due time.")
    return f"Change {_task_title(services, arguments)}: {', '.join(changes)}."


def _task_status(status: str, verb: str) -> Callable[[DailyServices, Arguments], Step]:
    def prepare(services: DailyServices, arguments: Arguments) -> Step:
        def step(session: Session) -> str:
            task = tasks.set_status_in(session, arguments["id"], status)
            return f"{verb} task {task.id} {_quoted(task.title)}."
        return step
    return prepare


def _task_delete(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        task = tasks.delete_in(session, arguments["id"])
        return f"Deleted task {task.id} {_quoted(task.title)}."
    return step


def _reminder_create(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        reminder = reminders.create_in(session, arguments["message"], arguments["remind_at"],
                                       zone=arguments.get("zone"), source="assistant")
        return (f"Set reminder {reminder.id} {_quoted(reminder.message)} for "
                f"{_moment(reminder.remind_at.isoformat(), reminder.zone)}.")
    return step


def _reminder_cancel(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        reminder = reminders.cancel_in(session, arguments["id"])
        return f"Cancelled reminder {reminder.id} {_quoted(reminder.message)}."
    return step


def _reminder_snooze(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        reminder = reminders.snooze_in(session, arguments["id"],
                                       minutes=arguments.get("minutes"),
                                       until=arguments.get("until"))
        return (f"Snoozed reminder {reminder.id} {_quoted(reminder.message)} to "
                f"{_moment(reminder.remind_at.isoformat(), reminder.zone)}.")
    return step


def _snooze_preview(services: DailyServices, arguments: Arguments) -> str:
    reminder = services.reminders.get(arguments["id"])
    if arguments.get("until"):
        to = f"to {_moment(arguments['until'], reminder.zone)}"
    else:
        minutes = arguments.get("minutes") or 0
        to = f"for {minutes} minute{'s' if minutes != 1 else ''}"
    return f"Snooze reminder {reminder.id} {_quoted(reminder.message)} {to}."


def _note_create(services: DailyServices, arguments: Arguments) -> Step:
    prepared = services.notes.prepare(arguments.get("title"), arguments["content"])

    def step(session: Session) -> str:
        note = services.notes.store_in(session, prepared)
        return f"Saved note {note.id} {_quoted(note.title or note.content, 60)}."
    return step


def _note_update(services: DailyServices, arguments: Arguments) -> Step:
    current = services.notes.get(arguments["id"])
    prepared = services.notes.prepare(arguments.get("title") or current.title,
                                      arguments.get("content", current.content))

    def step(session: Session) -> str:
        note = services.notes.replace_in(session, arguments["id"], prepared)
        return f"Changed note {note.id} {_quoted(note.title or note.content, 60)}."
    return step


def _note_delete(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        note = services.notes.delete_in(session, arguments["id"])
        return f"Deleted note {note.id} {_quoted(note.title or note.content, 60)}."
    return step


def _prompt_create(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        row = scheduled_prompts.create_in(session, arguments["name"], arguments["prompt"],
                                          arguments["cron"], zone=arguments.get("zone"))
        return f"Scheduled {_quoted(row.name)} ({row.cron}, {row.zone})."
    return step


def _prompt_update(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        row = scheduled_prompts.update_in(
            session, arguments["id"], name=arguments.get("name"),
            prompt=arguments.get("prompt"), cron=arguments.get("cron"),
            zone=arguments.get("zone"), enabled=arguments.get("enabled"))
        state = "" if row.enabled else ", paused"
        return f"Changed the scheduled prompt {_quoted(row.name)} ({row.cron}, {row.zone}{state})."
    return step


def _prompt_changes(services: DailyServices, arguments: Arguments) -> str:
    changes = []
    if "name" in arguments:
        changes.append(f"name to {_quoted(arguments['name'])}")
    if "prompt" in arguments:
        changes.append(f"prompt to {_quoted(arguments['prompt'], 60)}")
    if "cron" in arguments:
        changes.append(f"schedule to {' '.join(arguments['cron'].split())}")
    if "zone" in arguments:
        changes.append(f"zone to {arguments['zone']}")
    if "enabled" in arguments:
        changes.append("resume it" if arguments["enabled"] else "pause it")
    if not changes:
        raise InvalidInputError("The change names nothing to change.",
                                "Give a new name, prompt, cron, zone or enabled.")
    return f"Change {_prompt_title(services, arguments)}: {', '.join(changes)}."


def _prompt_title(services: DailyServices, arguments: Arguments) -> str:
    row = services.scheduled_prompts.get(arguments["id"])
    return f"the scheduled prompt {row.id} {_quoted(row.name)}"


def _prompt_delete(services: DailyServices, arguments: Arguments) -> Step:
    def step(session: Session) -> str:
        row = scheduled_prompts.delete_in(session, arguments["id"])
        return f"Deleted the scheduled prompt {_quoted(row.name)}."
    return step


ID = Field("id", int, required=True)
CLEARABLE = frozenset({"due_date", "due_time"})
"""Arguments an empty text clears (None); any other empty text is itself (details cleared),
or refused where the service needs words (a title)."""
DUE = (Field("due_date", str), Field("due_time", str))
KIND_WORDS = {int: "a number", str: "a text", bool: "true or false"}

ACTIONS: dict[str, Action] = {action.name: action for action in (
    Action("task.create", "Add a task, optionally due on a day (and time).",
           (Field("title", str, True), Field("details", str), *DUE),
           lambda s, a: f"Add the task {_quoted(a['title'])}{_due(a)}.", _task_create),
    Action("task.update", "Change a task's title, details, due date or due time.",
           (ID, Field("title", str), Field("details", str), *DUE),
           _task_changes, _task_update),
    Action("task.complete", "Mark a task done.", (ID,),
           lambda s, a: f"Mark {_task_title(s, a)} done.", _task_status("done", "Completed")),
    Action("task.reopen", "Mark a done task to do again.", (ID,),
           lambda s, a: f"Mark {_task_title(s, a)} to do again.",
           _task_status("todo", "Reopened")),
    Action("task.delete", "Delete a task.", (ID,),
           lambda s, a: f"Delete {_task_title(s, a)}.", _task_delete),
    Action("reminder.create", "Remind the user of something at a date and time.",
           (Field("message", str, True), Field("remind_at", str, True), Field("zone", str)),
           lambda s, a: (f"Remind you {_quoted(a['message'])} on "
                         f"{_moment(a['remind_at'], a.get('zone'))}."), _reminder_create),
    Action("reminder.cancel", "Cancel a pending reminder.", (ID,),
           lambda s, a: (f"Cancel reminder {a['id']} "
                         f"{_quoted(s.reminders.get(a['id']).message)}."), _reminder_cancel),
    Action("reminder.snooze", "Remind the user again later: in some minutes, or at a time.",
           (ID, Field("minutes", int), Field("until", str)), _snooze_preview,
           _reminder_snooze),
    Action("note.create", "Save a note.", (Field("title", str), Field("content", str, True)),
           lambda s, a: f"Save a note {_quoted(a.get('title') or a['content'], 60)}.",
           _note_create),
    Action("note.update", "Change a note's title or text.",
           (ID, Field("title", str), Field("content", str)),
           lambda s, a: f"Change {_note_title(s, a)}.", _note_update),
    Action("note.delete", "Delete a note.", (ID,),
           lambda s, a: f"Delete {_note_title(s, a)}.", _note_delete),
    Action("scheduled_prompt.create", "Run a prompt on a cron schedule.",
           (Field("name", str, True), Field("prompt", str, True), Field("cron", str, True),
            Field("zone", str)),
           lambda s, a: (f"Run {_quoted(a['prompt'], 60)} on the schedule {a['cron']} "
                         f"as {_quoted(a['name'])}."), _prompt_create),
    Action("scheduled_prompt.update",
           "Change a scheduled prompt's name, prompt, cron or zone, or pause/resume it.",
           (ID, Field("name", str), Field("prompt", str), Field("cron", str), Field("zone", str),
            Field("enabled", bool)), _prompt_changes, _prompt_update),
    Action("scheduled_prompt.delete", "Delete a scheduled prompt.", (ID,),
           lambda s, a: f"Delete {_prompt_title(s, a)}.", _prompt_delete),
)}


def _cleaned(action: Action, arguments: Mapping[str, Any]) -> Arguments:
    """The arguments with their types checked and dates, times and moments in ISO form."""
    known = {field.name: field for field in action.fields}
    unknown = sorted(set(arguments) - set(known))
    if unknown:
        raise InvalidInputError(f"{action.name} does not take {', '.join(unknown)}.",
                                f"It takes: {', '.join(known)}.")
    cleaned: Arguments = {}
    for field in action.fields:
        value = arguments.get(field.name)
        if value is None or (value == "" and field.name in CLEARABLE):
            if field.required:
                raise InvalidInputError(f"{action.name} needs {field.name}.",
                                        f"Give {field.name} too.")
            if field.name in arguments:
                cleaned[field.name] = None  # cleared (a due date taken away)
            continue
        if field.kind is int and isinstance(value, str) and value.strip().isdigit():
            value = int(value)  # a model may quote a number
        if not isinstance(value, field.kind) or (isinstance(value, bool)
                                                 and field.kind is not bool):
            raise InvalidInputError(f"{action.name}'s {field.name} must be "
                                    f"{KIND_WORDS[field.kind]}.", f"{value!r} is not.")
        cleaned[field.name] = value
    return _normalised(cleaned)


def _normalised(arguments: Arguments) -> Arguments:
    if arguments.get("due_date"):
        arguments["due_date"] = when.day(arguments["due_date"]).isoformat()
    if arguments.get("due_time"):
        arguments["due_time"] = when.clock_time(arguments["due_time"]).strftime("%H:%M")
    if arguments.get("zone"):
        when.zone(arguments["zone"])
    if arguments.get("remind_at"):
        arguments["remind_at"] = when.moment(arguments["remind_at"],
                                             arguments.get("zone")).isoformat()
    return arguments


def json_value(value: Any) -> Any:
    """A date, time or moment given by Python code, as the ISO text an argument holds."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return value


class _Rehearsed(Exception):
    """Raised after a rehearsal's step, so its transaction is rolled back."""


class Actions:
    """The table bound to the services it changes and their database."""

    def __init__(self, services: DailyServices, storage: StoragePort) -> None:
        self._services = services
        self._storage = storage

    @staticmethod
    def find(name: str) -> Action:
        action = ACTIONS.get(name)
        if action is None:
            raise InvalidInputError(f"{name!r} is not an action Hearth knows.",
                                    f"Use one of: {', '.join(ACTIONS)}.")
        return action

    def check(self, name: str, arguments: Mapping[str, Any]) -> tuple[Arguments, str]:
        """The cleaned arguments and the preview of action ``name``; one sentence when the
        action or its arguments cannot be accepted (a named row that does not exist too)."""
        action = self.find(name)
        cleaned = _cleaned(action, {key: json_value(value)
                                    for key, value in arguments.items()})
        step = action.prepare(self._services, cleaned)
        try:
            with self._storage.write() as session:
                step(session)
                raise _Rehearsed
        except _Rehearsed:
            pass  # it would apply; nothing was written
        return cleaned, action.preview(self._services, cleaned)

    def prepare(self, name: str, arguments: Mapping[str, Any]) -> Step:
        """The step that applies a checked action in a write transaction (anything slow,
        such as embedding a note, is done now, outside it)."""
        action = self.find(name)
        return action.prepare(self._services, _cleaned(action, arguments))
