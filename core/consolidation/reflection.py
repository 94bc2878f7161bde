"""The Reflection Engine: a day of conversations becomes durable knowledge.

One run reads the interactions of the last ``settings.reflection_lookback_hours`` with the
current profile, facts, open follow-ups and habits, makes **one** plain chat call (a
structured-output grammar cannot express a Markdown profile followed by three arrays, and
small models handle the marker format better than one big schema), and applies what
``reflection_parse`` could read:

* the profile: accepted only when it looks like one (see ``reflection_parse``), capped at
  550 words by cutting every section proportionally (``core.knowledge.about_you.cap_words``),
  saved as a
  new version only when it changed; the run returns the unified diff;
* facts: through ``FactService.remember(source="reflection")`` (unchanged values are
  skipped, changed ones keep their history). **User-stated facts win**: a fact whose current
  source is ``"user"`` is never overwritten by a reflection, which only inferred it;
* follow_ups: ``follow_up_at = now + follow_up_days``; an open twin is not duplicated;
* habits: ``HabitService.observe`` (candidate, active when seen in a later run).

The user's journal (``core.daily.journal``) is read too: every entry the reflection has not
read yet (oldest first, whatever its age, so an entry written before a week away is still
read), shown to the model as the user's own words beside the conversations, and stamped
``included_in_reflection_at`` once the run's results are applied, so each entry is read
once. Entries never become memories or vectors: the journal is private writing the
reflection learns from, not something recall quotes back.

Anything mentioning one of the user's exclusions is neither shown to the model nor stored
(an excluded journal entry is stamped as read all the same, so it is not offered again).
Nothing to reflect on (no interactions in the window and no unread journal entry), or
learning paused, records the run as ``skipped`` and changes nothing. A model failure
records the run as failed and raises before anything is written; cancellation records it
as cancelled and raises ``LLMCancelled``. The stages (gather, model, parse, apply) are
timed in the run's record.

Apply is a sequence of idempotent writes (facts, then profile, follow_ups, habits), not
one transaction: ``FactService`` owns its transactions because a fact is embedded first.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from core.consolidation import changelog
from core.consolidation.reflection_parse import ParsedReflection, parse_reflection
from core.consolidation.runs import RunRecorder
from core.llm.token_estimates import chars_for, estimate_tokens
from core.errors import InvalidInputError
from core.learning.exclusions import ExclusionGate
from core.llm import CancelToken, LLMCancelled, LLMError, LLMProvider, Message
from core.llm.capability import Job, profile_of
from core.knowledge.about_you import cap_words, unified_diff
from core.llm.prompts import load_prompt
from core.storage.orm import Interaction, JournalEntry, utcnow

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices

log = logging.getLogger(__name__)

REFLECTION_MAX_TOKENS = 1500
MAX_TURN_CHARS = 600
MAX_JOURNAL_CHARS = 2_000
"""Of each journal entry shown to the model: an entry is usually longer than a chat turn."""
PROTECTED_FACT_SOURCES = frozenset({"user"})
"""Fact sources a reflection never overwrites: the user said it, the model only inferred."""


@dataclass
class ReflectionReport:
    """What a run did; ``diff`` is the profile's unified diff (empty when unchanged)."""

    run_id: int
    skipped: bool = False
    reason: str = ""
    facts_added: int = 0
    facts_updated: int = 0
    facts_protected: int = 0
    follow_ups_added: int = 0
    habits_added: int = 0
    habits_promoted: int = 0
    habits_before: list[dict[str, Any]] = field(default_factory=list)
    """Rules seen again (and maybe promoted), each with its state before the run: what
    undoing the run puts back (``core.consolidation.changelog``); kept with the ``apply``
    stage, not among the counts."""
    profile_changed: bool = False
    profile_truncated: bool = False
    excluded: int = 0
    journal_entries: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    diff: str = ""
    changes: list[changelog.Change] = field(default_factory=list)
    """What the run changed, in plain words (``core.consolidation.changelog``)."""

    def counts(self) -> dict[str, Any]:
        """The run record's counts (everything but the diff, which can be long, the
        changelog, which is stored on its own, and the rules' earlier states)."""
        return {name: value for name, value in vars(self).items()
                if name not in ("diff", "changes", "habits_before")}


@dataclass(frozen=True)
class _Inputs:
    transcript: str
    interactions: int
    omitted: int
    excluded: int
    journal: str
    journal_read: tuple[int, ...]
    """Entries stamped once the run is applied: those shown, and those an exclusion hid
    (entries without room stay unread for the next run)."""
    journal_shown: int
    profile: str
    facts: str
    follow_ups: str
    habits: str


class ReflectionEngine:
    """Runs reflections for one opened data folder with one language model."""

    def __init__(self, services: ConsolidationServices, provider: LLMProvider) -> None:
        self._services = services
        self._provider = provider
        self.about_you = services.about_you
        self.follow_ups = services.follow_ups
        self.habits = services.habits

    def run(self, *, trigger: str = "manual", now: datetime | None = None,
            cancel: CancelToken | None = None, review: bool = True) -> ReflectionReport:
        """Reflect once. With ``review`` (not when a dream reflects: the dream's own
        changelog lists what its reflection did) the run's changelog is recorded for the
        user to review and undo (``core.consolidation.changelog``)."""
        if now is not None and now.tzinfo is None:
            raise InvalidInputError("A reflection time needs a time zone.",
                                    "Pass an aware datetime, or none for now.")
        gate = ExclusionGate(self._services.settings.exclusions)
        recorder = RunRecorder(self._services.storage, "reflection", trigger)
        now = now or utcnow()  # after the run began: what it writes is in its changelog
        report = ReflectionReport(run_id=recorder.run_id)
        try:
            with recorder.stage("gather") as counts:
                inputs = self._gather(now, gate)
                counts.update(interactions=inputs.interactions, omitted=inputs.omitted,
                              excluded=inputs.excluded, journal_entries=inputs.journal_shown)
            reason = self._reason_to_skip(inputs)
            if reason:
                report.skipped, report.reason = True, reason
                recorder.finish(report.counts(), status="skipped")
                return report
            with recorder.stage("model") as counts:
                raw = self._ask(inputs, now, cancel)
                counts["chars"] = len(raw)
            with recorder.stage("parse") as counts:
                parsed = parse_reflection(raw)
                counts.update(facts=len(parsed.facts), follow_ups=len(parsed.follow_ups),
                              habits=len(parsed.habits), dropped=parsed.dropped,
                              profile=parsed.profile is not None)
            with recorder.stage("apply") as counts:
                self._apply(parsed, report, gate, now)
                report.journal_entries = inputs.journal_shown
                self._services.journal.mark_reflected(inputs.journal_read, at=now)
                counts.update(report.counts())
            if report.habits_before:
                recorder.keep("apply", habits_before=report.habits_before)
        except LLMCancelled:
            recorder.finish(report.counts(), status="cancelled")
            raise
        except BaseException as exc:
            recorder.fail(f"{type(exc).__name__}: {exc}", report.counts())
            raise
        recorder.finish(report.counts())
        if review:
            report.changes = changelog.record(self._services.storage, report.run_id).changes
        return report

    def _reason_to_skip(self, inputs: _Inputs) -> str:
        """Why this reflection writes nothing, or "" when it goes ahead."""
        settings = self._services.settings
        if settings.learning_paused:
            return "learning is paused"
        if inputs.interactions == 0 and inputs.journal_shown == 0:
            return (f"there were no conversations in the last "
                    f"{settings.reflection_lookback_hours} hours and no new journal entry")
        profile = profile_of(self._provider, settings.model_jobs)
        if not profile.may(Job.REFLECTION):
            return (f"{profile.model} ({profile.size_words}) is too small to reflect; "
                    "it waits for a capable model")
        return ""

    # --- gather --------------------------------------------------------------------------

    def _gather(self, now: datetime, gate: ExclusionGate) -> _Inputs:
        since = now - timedelta(hours=self._services.settings.reflection_lookback_hours)
        with self._services.storage.read() as session:
            rows = list(session.scalars(select(Interaction).where(
                Interaction.created_at >= since, Interaction.created_at <= now,
                Interaction.user_message != "").order_by(Interaction.created_at,
                                                         Interaction.id)))
            session.expunge_all()
        in_window = len(rows)
        rows = [row for row in rows
                if not gate.drop(f"{row.user_message}\n{row.agent_response}")]
        current = self.about_you.current()
        profile = current.content if current else "(no profile yet: start fresh)"
        facts = "\n".join(f"- {fact.key}: {fact.value} ({fact.category})"
                          for fact in self._services.facts.list()) or "(none)"
        follow_ups = "\n".join(f"- {item.text}" for item in self.follow_ups.list("open")
                               ) or "(none)"
        habits = "\n".join(f"- [{item.status}] {item.rule}" for item in self.habits.list()
                              ) or "(none)"
        unread = self._services.journal.unreflected()
        fixed = estimate_tokens(load_prompt("reflection") + profile + facts + follow_ups
                                + habits)
        room = chars_for(self._provider.context_window - REFLECTION_MAX_TOKENS - fixed - 200)
        hidden = [entry.id for entry in unread
                  if gate.drop(f"{entry.title or ''}\n{entry.content}")]
        shown = self._journal_that_fits([entry for entry in unread if entry.id not in hidden],
                                         room // 2)
        journal = "\n\n".join(text for _, text in shown)
        turns = self._newest_that_fit(rows, room - len(journal))
        return _Inputs("\n\n".join(turns), len(turns), len(rows) - len(turns),
                       in_window - len(rows), journal,
                       tuple(hidden) + tuple(entry_id for entry_id, _ in shown), len(shown),
                       profile, facts, follow_ups, habits)

    @staticmethod
    def _journal_that_fits(entries: list[JournalEntry], room_chars: int
                           ) -> list[tuple[int, str]]:
        """(id, text) of the oldest unread entries that fit ``room_chars`` (half the
        window at most, so the conversations keep room), in time order; the rest are read
        by the next run."""
        kept: list[tuple[int, str]] = []
        for entry in entries:
            heading = f"[{entry.created_at:%Y-%m-%d %H:%M}]" + (
                f" {entry.title}" if entry.title else "")
            text = f"{heading}\n{entry.content[:MAX_JOURNAL_CHARS]}"
            if len(text) + 2 > room_chars:
                break
            kept.append((entry.id, text))
            room_chars -= len(text) + 2
        return kept

    @staticmethod
    def _newest_that_fit(rows: list[Interaction], room_chars: int) -> list[str]:
        """The most recent turns that fit the model's window, in time order."""
        kept: list[str] = []
        for row in reversed(rows):
            turn = (f"[{row.created_at:%Y-%m-%d %H:%M}]\n"
                    f"User: {row.user_message[:MAX_TURN_CHARS]}")
            if row.agent_response:
                turn += f"\nAssistant: {row.agent_response[:MAX_TURN_CHARS]}"
            if len(turn) + 2 > room_chars:
                break
            kept.append(turn)
            room_chars -= len(turn) + 2
        return kept[::-1]

    # --- model ---------------------------------------------------------------------------

    def _ask(self, inputs: _Inputs, now: datetime, cancel: CancelToken | None) -> str:
        user = (f"Today is {now.astimezone():%A %Y-%m-%d}.\n\n"
                f"<existing_profile>\n{inputs.profile}\n</existing_profile>\n\n"
                f"<existing_facts>\n{inputs.facts}\n</existing_facts>\n\n"
                f"<open_intentions>\n{inputs.follow_ups}\n</open_intentions>\n\n"
                f"<learnings>\n{inputs.habits}\n</learnings>\n\n"
                f"<conversations>\n{inputs.transcript or '(none)'}\n</conversations>")
        if inputs.journal:
            user += f"\n\n<journal>\n{inputs.journal}\n</journal>"
        messages = [Message("system", load_prompt("reflection")), Message("user", user)]
        parts = [chunk.text for chunk in self._provider.chat_stream(
            messages, cancel=cancel, max_tokens=REFLECTION_MAX_TOKENS)]
        if cancel is not None and cancel.cancelled:
            raise LLMCancelled("The reflection was cancelled.",
                               "Nothing was changed; run it again when you like.")
        raw = "".join(parts).strip()
        if not raw:
            raise LLMError("The model gave an empty answer to the reflection.",
                           "Nothing was changed. Try again, or use a larger model.")
        return raw

    # --- apply ---------------------------------------------------------------------------

    def _apply(self, parsed: ParsedReflection, report: ReflectionReport, gate: ExclusionGate,
               now: datetime) -> None:
        report.dropped = dict(parsed.dropped)
        report.warnings = list(parsed.warnings)
        self._apply_facts(parsed, report, gate)
        if parsed.profile is not None:
            self._apply_profile(parsed.profile, report, gate)
        for follow_up in parsed.follow_ups:
            if gate.drop(f"{follow_up.text}\n{follow_up.context}"):
                report.excluded += 1
                continue
            _, created = self.follow_ups.add(
                follow_up.text, context=follow_up.context,
                follow_up_at=now + timedelta(days=follow_up.follow_up_days))
            report.follow_ups_added += created
        for habit in parsed.habits:
            if gate.drop(habit.rule):
                report.excluded += 1
                continue
            observation = self.habits.observe(habit.rule, habit.category,
                                                 run_started_at=now, now=now)
            report.habits_added += observation.action == "added"
            report.habits_promoted += observation.action == "promoted"
            if observation.before is not None:
                report.habits_before.append(
                    {"id": observation.habit.id, "status": observation.before.status,
                     "recurrence_count": observation.before.recurrence_count,
                     "last_seen": observation.before.last_seen.isoformat()})

    def _apply_facts(self, parsed: ParsedReflection, report: ReflectionReport,
                     gate: ExclusionGate) -> None:
        facts = self._services.facts
        for fact in parsed.facts:
            if gate.drop(f"{fact.key} {fact.value}"):
                report.excluded += 1
                continue
            try:
                known = facts.get(fact.key)
                if (known is not None and known.source in PROTECTED_FACT_SOURCES
                        and known.value != fact.value):
                    report.facts_protected += 1
                    continue
                change = facts.remember(fact.key, fact.value, category=fact.category,
                                        source="reflection", confidence=0.7)
            except InvalidInputError as exc:
                report.dropped["facts"] = report.dropped.get("facts", 0) + 1
                report.warnings.append(f"fact {fact.key!r} not saved: {exc.message}")
                continue
            report.facts_added += change.action == "created"
            report.facts_updated += change.action == "updated"

    def _apply_profile(self, text: str, report: ReflectionReport, gate: ExclusionGate) -> None:
        """Lines naming an excluded term are left out; the rest is capped and saved."""
        lines = [line for line in text.splitlines() if not gate.drop(line)]
        report.excluded += len(text.splitlines()) - len(lines)
        content, report.profile_truncated = cap_words("\n".join(lines))
        if report.profile_truncated:
            report.warnings.append("About you was longer than 550 words and was shortened")
        before = self.about_you.current()
        after = self.about_you.save(content, "reflection", run_id=report.run_id)
        report.profile_changed = before is None or after.id != before.id
        if report.profile_changed:
            report.diff = unified_diff(before.content if before else "", after.content,
                                       f"About you v{before.id}" if before else "no About you",
                                       f"About you v{after.id}")
