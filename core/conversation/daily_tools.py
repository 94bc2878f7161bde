"""The daily tools a model may call: tasks, reminders, notes, journal, read-later, and
``find_everything``; every change to a task, reminder, scheduled prompt or note waits for
the user.

=====================================  ================================================
create_task / update_task /            **held**: nothing changes. The request is checked
complete_task / delete_task,           (``core.daily.actions``) and held as a pending action
set_reminder / snooze_reminder /       (``core.daily.pending_actions``) with its preview; the
cancel_reminder, save_note /           model is told "held for the user's confirmation:
update_note / delete_note,             <preview>". The chat shows it with Confirm / Edit /
schedule_prompt /
update_scheduled_prompt /
delete_scheduled_prompt
                                       Cancel; it expires after 30 minutes. The same request
                                       asked twice in one turn is held once.
list_tasks, list_reminders,            read at once
list_scheduled_prompts,
search_notes, search_read_later,
find_everything
add_journal_entry, save_read_later     written at once, but only in the user's own words:
                                       every word of a journal entry must be in what the
                                       user wrote in this chat, and a read-later address
                                       must be one the user wrote. They are the user's own
                                       writing kept where they asked, not a decision of the
                                       assistant (the consequential changes are tasks,
                                       reminders, scheduled prompts and notes), and both
                                       can be edited or deleted in their views.
=====================================  ================================================

``find_everything(query)`` searches memories, notes and past exchanges with the hybrid
recall (keyword and meaning together, one search per source) and the reading list by its
words, all four at once, and answers grouped by source, ``PER_SOURCE`` results each, each
clipped. The reading list has no vectors, so only its words are searched.

Bad arguments become ``error:`` results (``core.conversation.tools.ToolBox.run``), which the
model reads and can correct.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from core.conversation.services import DailyToolServices
from core.llm.token_estimates import clip
from core.conversation.tool_arguments import ToolRefused, text_argument
from core.daily import when
from core.errors import InvalidInputError
from core.learning.grounding import Said, is_grounded
from core.llm import ToolSpec
from core.recall.service import RecallQuery, RecallResult
from core.storage.orm import Interaction, PendingAction
from core.storage.port import IndexedKind, SearchFilters

Handler = Callable[[Mapping[str, Any]], tuple[str, str]]

LIST_LIMIT = 20
PER_SOURCE = 3
RESULT_CHARS = 300
SUMMARY_CHARS = 200
HELD = "held for the user's confirmation"

_STRING = {"type": "string"}
_ID = {"type": "integer", "description": "the id shown by list_tasks / list_reminders"}
_DUE = {"due_date": {**_STRING, "description": "YYYY-MM-DD in the user's calendar"},
        "due_time": {**_STRING, "description": "HH:MM, 24-hour, user's local time"}}
_NOTE_ID = {"type": "integer", "description": "the id shown by search_notes"}
_PROMPT_ID = {"type": "integer", "description": "the id shown by list_scheduled_prompts"}
_QUERY = {"type": "object", "properties": {"query": _STRING}, "required": ["query"]}
_ASKS = " Nothing happens until the user confirms it in the chat."

HELD_TOOLS: dict[str, str] = {
    "create_task": "task.create", "update_task": "task.update",
    "complete_task": "task.complete", "delete_task": "task.delete",
    "set_reminder": "reminder.create", "cancel_reminder": "reminder.cancel",
    "snooze_reminder": "reminder.snooze",
    "save_note": "note.create", "update_note": "note.update", "delete_note": "note.delete",
    "schedule_prompt": "scheduled_prompt.create",
    "update_scheduled_prompt": "scheduled_prompt.update",
    "delete_scheduled_prompt": "scheduled_prompt.delete",
}
"""Tool name → the ``core.daily.actions`` action it asks for (same argument names)."""

DAILY_TOOL_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec("create_task", "Add a task to the user's to-do list." + _ASKS,
             {"type": "object", "properties": {"title": _STRING, "details": _STRING, **_DUE},
              "required": ["title"]}),
    ToolSpec("list_tasks", "List the user's tasks (to do by default).",
             {"type": "object", "properties": {"status": {
                 "type": "string", "enum": ["todo", "done", "all"]}}, "required": []}),
    ToolSpec("complete_task", "Mark a task done." + _ASKS,
             {"type": "object", "properties": {"id": _ID}, "required": ["id"]}),
    ToolSpec("update_task", "Change a task's title, details, due date or due time." + _ASKS,
             {"type": "object", "properties": {"id": _ID, "title": _STRING,
                                               "details": _STRING, **_DUE},
              "required": ["id"]}),
    ToolSpec("delete_task", "Delete a task." + _ASKS,
             {"type": "object", "properties": {"id": _ID}, "required": ["id"]}),
    ToolSpec("set_reminder", "Remind the user of something at a date and time." + _ASKS,
             {"type": "object", "properties": {
                 "message": _STRING,
                 "remind_at": {**_STRING, "description":
                               "YYYY-MM-DDTHH:MM in the user's local time"},
                 "zone": {**_STRING, "description": "IANA zone; the user's by default"}},
              "required": ["message", "remind_at"]}),
    ToolSpec("list_reminders", "List the user's reminders still to come.",
             {"type": "object", "properties": {}, "required": []}),
    ToolSpec("cancel_reminder", "Cancel a reminder still to come." + _ASKS,
             {"type": "object", "properties": {"id": _ID}, "required": ["id"]}),
    ToolSpec("snooze_reminder",
             "Remind the user again later: in some minutes, or at a time." + _ASKS,
             {"type": "object", "properties": {
                 "id": _ID, "minutes": {"type": "integer", "description": "from now"},
                 "until": {**_STRING, "description": "YYYY-MM-DDTHH:MM, instead of minutes"}},
              "required": ["id"]}),
    ToolSpec("save_note", "Save a note for the user." + _ASKS,
             {"type": "object", "properties": {
                 "title": {**_STRING, "description":
                           "optional; the note's first words when left out"},
                 "content": _STRING},
              "required": ["content"]}),
    ToolSpec("update_note", "Change a note's title or text (the text replaces the old)."
             + _ASKS,
             {"type": "object", "properties": {"id": _NOTE_ID, "title": _STRING,
                                               "content": _STRING}, "required": ["id"]}),
    ToolSpec("delete_note", "Delete a note." + _ASKS,
             {"type": "object", "properties": {"id": _NOTE_ID}, "required": ["id"]}),
    ToolSpec("search_notes", "Find the user's notes containing these words.", _QUERY),
    ToolSpec("schedule_prompt",
             "Run a prompt on a schedule (5-field cron, e.g. '0 8 * * 1-5')." + _ASKS,
             {"type": "object", "properties": {"name": _STRING, "prompt": _STRING,
                                               "cron": _STRING, "zone": _STRING},
              "required": ["name", "prompt", "cron"]}),
    ToolSpec("list_scheduled_prompts", "List the prompts run on a schedule, with their ids.",
             {"type": "object", "properties": {}, "required": []}),
    ToolSpec("update_scheduled_prompt",
             "Change a scheduled prompt's name, prompt, cron or zone, or pause (enabled "
             "false) or resume it." + _ASKS,
             {"type": "object", "properties": {
                 "id": _PROMPT_ID, "name": _STRING, "prompt": _STRING, "cron": _STRING,
                 "zone": _STRING, "enabled": {"type": "boolean"}}, "required": ["id"]}),
    ToolSpec("delete_scheduled_prompt", "Delete a scheduled prompt." + _ASKS,
             {"type": "object", "properties": {"id": _PROMPT_ID}, "required": ["id"]}),
    ToolSpec("add_journal_entry",
             "Add the user's own words to their private journal (only what they wrote).",
             {"type": "object", "properties": {"content": _STRING, "title": _STRING},
              "required": ["content"]}),
    ToolSpec("save_read_later",
             "Save an article the user gave the address of to their reading list.",
             {"type": "object", "properties": {"url": _STRING, "title": _STRING,
                                               "note": _STRING, "text": _STRING},
              "required": ["url"]}),
    ToolSpec("search_read_later", "Find saved articles containing these words.", _QUERY),
    ToolSpec("find_everything",
             "Search everything at once (memories, notes, past conversations, the reading "
             "list) when you do not know where something is.", _QUERY),
)


def hold_once(daily: DailyToolServices, action: str, arguments: Mapping[str, Any], *,
              source_message: str, session_id: str, interaction_id: int
              ) -> tuple[PendingAction, bool]:
    """Hold ``action`` for the user's answer, unless the same request of the same exchange
    is already waiting (a model repeating its call, a reply written again): then that one,
    and True. A request that cannot apply is refused (``InvalidInputError``)."""
    cleaned, _preview = daily.actions.check(action, arguments)
    for row in daily.pending.pending(session_id):
        if (row.interaction_id == interaction_id and row.action == action
                and row.arguments == cleaned):
            return row, True
    return daily.pending.hold(action, arguments, source_message=source_message,
                               session_id=session_id, interaction_id=interaction_id), False


class DailyTools:
    """The handlers of ``DAILY_TOOL_SPECS`` for one turn: held changes name the user's
    message of this turn (``interaction_id``) as the request "Edit" sends again."""

    def __init__(self, daily: DailyToolServices, *, session_id: str, interaction_id: int,
                 said: Callable[[], tuple[str, Said]]) -> None:
        self._daily = daily
        self._session_id = session_id
        self._interaction_id = interaction_id
        self._said = said

    def handlers(self) -> dict[str, Handler]:
        held: dict[str, Handler] = {name: self._holder(action)
                                    for name, action in HELD_TOOLS.items()}
        return {**held, "list_tasks": self._list_tasks, "list_reminders": self._list_reminders,
                "list_scheduled_prompts": self._list_prompts,
                "search_notes": self._search_notes, "search_read_later": self._search_read_later,
                "add_journal_entry": self._journal, "save_read_later": self._save_read_later,
                "find_everything": self._find_everything}

    # --- held changes --------------------------------------------------------------------

    def _holder(self, action: str) -> Handler:
        def hold(arguments: Mapping[str, Any]) -> tuple[str, str]:
            return self._hold(action, arguments)
        return hold

    def _hold(self, action: str, arguments: Mapping[str, Any]) -> tuple[str, str]:
        # models send null for the optional arguments they leave out: it is not "clear it"
        given = {name: value for name, value in arguments.items() if value is not None}
        row, already = hold_once(self._daily, action, given,
                                 source_message=self._user_message(),
                                 session_id=self._session_id,
                                 interaction_id=self._interaction_id)
        if already:
            return (f"{HELD}: {row.preview} (already held as pending action {row.id}; do "
                    "not ask again)", f"already held pending action {row.id}")
        return (f"{HELD}: {row.preview} It is not done yet: tell the user it waits for "
                f"their Confirm in the chat (pending action {row.id}).",
                f"held pending action {row.id} ({action})")

    def _user_message(self) -> str:
        with self._daily.storage.read() as session:
            return str(session.scalar(select(Interaction.user_message).where(
                Interaction.id == self._interaction_id)) or "")

    # --- reading -------------------------------------------------------------------------

    def _list_tasks(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        status = text_argument(arguments, "status", required=False, default="todo").lower()
        tasks = self._daily.tasks.list(status=None if status == "all" else status)
        lines = []
        for task in tasks[:LIST_LIMIT]:
            due = f", due {task.due_date}" if task.due_date else ""
            at = f" {task.due_time}" if task.due_time else ""
            lines.append(f"- [task {task.id}, {task.status}{due}{at}] "
                         f"{clip(task.title, RESULT_CHARS)}")
        more = f"\n({len(tasks) - LIST_LIMIT} more)" if len(tasks) > LIST_LIMIT else ""
        return ("\n".join(lines) + more or f"no tasks ({status})"), f"{len(tasks)} tasks"

    def _list_reminders(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        reminders = self._daily.reminders.list("pending")
        lines = []
        for reminder in reminders[:LIST_LIMIT]:
            local = reminder.remind_at.astimezone(_zone(reminder.zone))
            lines.append(f"- [reminder {reminder.id}, {local:%a %d %b %Y %H:%M} "
                         f"{reminder.zone}] {clip(reminder.message, RESULT_CHARS)}")
        return ("\n".join(lines) or "no reminders to come"), f"{len(reminders)} reminders"

    def _list_prompts(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        rows = self._daily.scheduled_prompts.list()
        lines = [f"- [scheduled prompt {row.id}, {row.cron} {row.zone}"
                 f"{'' if row.enabled else ', paused'}] {clip(row.name, RESULT_CHARS)}: "
                 f"{_one_line(row.prompt)}" for row in rows[:LIST_LIMIT]]
        return ("\n".join(lines) or "no scheduled prompts"), f"{len(rows)} scheduled prompts"

    def _search_notes(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        notes = self._daily.notes.search(text_argument(arguments, "query"), limit=LIST_LIMIT)
        lines = [f"- [note {note.id}, {note.created_at:%Y-%m-%d}] "
                 f"{_one_line(f'{note.title}: {note.content}' if note.title else note.content)}"
                 for note in notes]
        return ("\n".join(lines) or "no note contains these words"), \
            clip(f"{len(notes)} notes: {', '.join(str(n.id) for n in notes)}", SUMMARY_CHARS)

    def _search_read_later(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        items = self._daily.read_later.search(text_argument(arguments, "query"))[:LIST_LIMIT]
        return ("\n".join(_read_later_line(item) for item in items)
                or "no saved article contains these words"), \
            clip(f"{len(items)} items: {', '.join(str(i.id) for i in items)}", SUMMARY_CHARS)

    def _find_everything(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        query = text_argument(arguments, "query")

        def recall(kind: IndexedKind) -> Callable[[], list[str]]:
            def run() -> list[str]:
                exclude = (frozenset({self._interaction_id})
                           if kind is IndexedKind.INTERACTION else frozenset())
                found = self._daily.recall.recall(RecallQuery(
                    text=query, k=PER_SOURCE, kinds=(kind,), graph=0,
                    mark_accessed=kind is IndexedKind.MEMORY,
                    filters=SearchFilters(exclude_ids=exclude)))
                return [_recalled_line(r) for r in found[:PER_SOURCE]]
            return run

        def later() -> list[str]:
            return [_read_later_line(item)
                    for item in self._daily.read_later.search(query)[:PER_SOURCE]]

        sources: dict[str, Callable[[], list[str]]] = {
            "Memories": recall(IndexedKind.MEMORY), "Notes": recall(IndexedKind.NOTE),
            "Conversations": recall(IndexedKind.INTERACTION), "Read later": later}
        with ThreadPoolExecutor(len(sources), "hearth-find") as workers:
            futures = {name: workers.submit(search) for name, search in sources.items()}
            grouped = {name: future.result() for name, future in futures.items()}
        blocks = [f"*{name}*\n" + "\n".join(lines)
                  for name, lines in grouped.items() if lines]
        counts = ", ".join(f"{len(lines)} {name.lower()}" for name, lines in grouped.items())
        return ("\n".join(blocks) or "nothing found anywhere"), counts

    # --- the user's own writing ----------------------------------------------------------

    def _journal(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        content = text_argument(arguments, "content")
        title = text_argument(arguments, "title", required=False) or None
        if not is_grounded(content, self._said()[0]):
            raise ToolRefused("not saved: a journal entry holds the user's own words, and this "
                           "rests on yours; ask the user to write it", "refused: not the "
                           "user's words")
        entry = self._daily.journal.add(content, title=title)
        return f"saved journal entry {entry.id}", f"journal entry {entry.id} saved"

    def _save_read_later(self, arguments: Mapping[str, Any]) -> tuple[str, str]:
        url = text_argument(arguments, "url")
        if url not in self._said()[0]:
            raise ToolRefused("not saved: save only an address the user wrote; ask them for "
                           "it", "refused: address not from the user")
        item = self._daily.read_later.add(
            url, title=text_argument(arguments, "title", required=False),
            note=text_argument(arguments, "note", required=False),
            text=text_argument(arguments, "text", required=False))
        tags = f" (tags: {', '.join(item.tags)})" if item.tags else ""
        return f"saved to read later as item {item.id}{tags}", f"read-later {item.id} saved"


def _zone(name: str | None) -> ZoneInfo:
    try:
        return when.zone(name)
    except InvalidInputError:  # a zone this system no longer knows: show the user's
        return when.zone()


def _one_line(text: str) -> str:
    return clip(" ".join(text.split()), RESULT_CHARS)


def _recalled_line(result: RecallResult) -> str:
    title = result.provenance.get("title")
    date = f", {result.created_at:%Y-%m-%d}" if result.created_at else ""
    text = f"{title}: {result.text}" if title else result.text
    return f"- [{result.kind.value} {result.id}{date}] {_one_line(text)}"


def _read_later_line(item: Any) -> str:
    about = item.summary or item.note or item.text
    title = item.title or item.url
    return f"- [read-later {item.id}] {_one_line(f'{title} <{item.url}> {about}'.strip())}"
