"""What a conversation reads and writes: the services the composition root wires for it
(``core.app.Hearth.conversation``), so no conversation code holds the whole ``Hearth``."""

from __future__ import annotations

from dataclasses import dataclass

from core.config import Settings
from core.daily.actions import Actions
from core.daily.journal import JournalService
from core.daily.pending_actions import PendingActionService
from core.daily.read_later import ReadLaterService
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService
from core.daily.tasks import TaskService
from core.forgetting.service import ForgetService
from core.knowledge.facts import FactService
from core.knowledge.notes import NoteService
from core.recall import RecallService
from core.storage.port import StoragePort


@dataclass(frozen=True)
class DailyToolServices:
    """What the daily tools of a chat touch (``core.conversation.daily_tools``): the
    changes a model may ask for (``actions``, held in ``pending`` until confirmed), the
    lists it may read or add to, and recall for "find" across them."""

    storage: StoragePort
    recall: RecallService
    actions: Actions
    pending: PendingActionService
    tasks: TaskService
    reminders: ReminderService
    scheduled_prompts: ScheduledPromptService
    notes: NoteService
    journal: JournalService
    read_later: ReadLaterService


@dataclass(frozen=True)
class ConversationServices:
    """The database, the settings in effect (read at every turn), what the prompt is built
    from (``facts``, ``recall``), the erase a confirmed forget runs, and the daily tools."""

    storage: StoragePort
    settings: Settings
    facts: FactService
    recall: RecallService
    forgetting: ForgetService
    daily: DailyToolServices
