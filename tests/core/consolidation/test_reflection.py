"""The Reflection Engine: a corpus of model outputs through the parser, then whole runs.

Parsing is pure; the runs use the scripted LLM (pipeline logic) over a real database and
the real embedder, and check what ends up stored and in the run's record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import select

from core.app import Hearth
from core.config import Settings
from core.consolidation.reflection import ReflectionEngine
from core.consolidation.reflection_parse import parse_reflection
from core.llm import CancelToken, LLMCancelled, LLMError
from core.knowledge.about_you import MAX_ABOUT_YOU_WORDS, PROFILE_SECTIONS, word_count
from core.storage.orm import Habit, Interaction, Run
from support.scripted_llm import ScriptedLLM, failing

NOW = datetime(2026, 3, 10, 2, 0, tzinfo=timezone.utc)

PROFILE = """## Personal
Ana is a nurse who lives by the sea.
## Goals & Values
Wants to run a half marathon in spring.
## Communication Style
Short, direct messages.
## Patterns & Rhythms
Works night shifts on weekends.
## Preferences
Likes tea, dislikes small talk.
## Notes
Training plan started in March."""


def answer(profile: str = PROFILE, facts: object = (), follow_ups: object = (),
           habits: object = ()) -> str:
    return (f"---PROFILE---\n{profile}\n\n---FACTS---\n{json.dumps(list(facts))}\n\n"
            f"---INTENTIONS---\n{json.dumps(list(follow_ups))}\n\n"
            f"---LEARNINGS---\n{json.dumps(list(habits))}\n")


# --- the parser corpus ----------------------------------------------------------------------

FACT = {"key": "home_city", "value": "Porto", "category": "location"}
INTENTION = {"text": "call the dentist", "follow_up_days": 3, "context": "tooth ache"}
LEARNING = {"rule": "Confirm before deleting", "category": "decision_making"}


def summary(raw: str) -> dict:
    """The parse result reduced to what the expectations name."""
    parsed = parse_reflection(raw)
    return {"profile": parsed.profile is not None,
            "facts": [(f.key, f.value, f.category) for f in parsed.facts],
            "follow_ups": [(i.text, i.follow_up_days) for i in parsed.follow_ups],
            "habits": [(item.rule, item.category) for item in parsed.habits],
            "dropped": parsed.dropped, "warnings": len(parsed.warnings),
            "markers": parsed.markers_found}


FULL = {"profile": True, "facts": [("home_city", "Porto", "location")],
        "follow_ups": [("call the dentist", 3)],
        "habits": [("Confirm before deleting", "decision_making")],
        "dropped": {}, "warnings": 0, "markers": True}
NOTHING: dict = {"profile": False, "facts": [], "follow_ups": [], "habits": [],
                 "dropped": {}, "markers": True}

CORPUS = {
    "well formed": (answer(facts=[FACT], follow_ups=[INTENTION], habits=[LEARNING]), FULL),
    "fenced json and a fenced profile": (
        f"---PROFILE---\n```markdown\n{PROFILE}\n```\n---FACTS---\n```json\n"
        f"{json.dumps([FACT])}\n```\n---INTENTIONS---\n```\n{json.dumps([INTENTION])}\n```\n"
        f"---LEARNINGS---\n```json\n{json.dumps([LEARNING])}\n```", FULL),
    "stringified arrays": (
        f"---PROFILE---\n{PROFILE}\n---FACTS---\n{json.dumps(json.dumps([FACT]))}\n"
        f"---INTENTIONS---\n{json.dumps(json.dumps([INTENTION]))}\n"
        f"---LEARNINGS---\n{json.dumps(json.dumps([LEARNING]))}", FULL),
    "chatter before and after": (
        "Sure! Here is my reflection on today.\n\n"
        + answer(facts=[FACT], follow_ups=[INTENTION], habits=[LEARNING])
        + "\nLet me know if you need anything else!", FULL),
    "format echoed before the real answer": (
        "I will answer with ---PROFILE--- style sections:\n---PROFILE---\n## Personal\n...\n"
        "---FACTS---\n[]\n---INTENTIONS---\n[]\n---LEARNINGS---\n[]\nNow the real one:\n"
        + answer(facts=[FACT], follow_ups=[INTENTION], habits=[LEARNING]), FULL),
    "reordered markers": (
        f"---LEARNINGS---\n{json.dumps([LEARNING])}\n---FACTS---\n{json.dumps([FACT])}\n"
        f"---PROFILE---\n{PROFILE}\n---INTENTIONS---\n{json.dumps([INTENTION])}\n", FULL),
    "garbage items dropped one by one": (
        answer(facts=[FACT, {"key": "", "value": "x"}, "not an object", {"value": "no key"}],
               follow_ups=[INTENTION, {"text": "later", "follow_up_days": 9999}],
               habits=[LEARNING, {"rule": "x" * 250}, {"category": "no rule"}]),
        {**FULL, "dropped": {"facts": 3, "follow_ups": 1, "habits": 2}}),
    "unknown category and numeric value are kept": (
        answer(facts=[{"key": "age", "value": 42, "category": "Biography"}]),
        {"profile": True, "facts": [("age", "42", "general")], "follow_ups": [],
         "habits": [], "dropped": {}, "warnings": 0, "markers": True}),
    "truncated in the last array": (
        answer(facts=[FACT], follow_ups=[INTENTION]).replace(
            "---LEARNINGS---\n[]\n", "---LEARNINGS---\n" + json.dumps([LEARNING])[:-1]
            + ', {"rule": "be'), FULL),
    "missing markers but a profile": (
        "Here is the updated profile:\n\n" + PROFILE,
        {"profile": True, "facts": [], "follow_ups": [], "habits": [], "dropped": {},
         "warnings": 1, "markers": False}),
    "missing markers and no profile": (
        "I'm sorry, I can't help with that.",
        {"profile": False, "facts": [], "follow_ups": [], "habits": [], "dropped": {},
         "warnings": 2, "markers": False}),
    "empty output": (
        "", {"profile": False, "facts": [], "follow_ups": [], "habits": [], "dropped": {},
             "warnings": 2, "markers": False}),
    "profile says unchanged": (
        answer(profile="(unchanged)", facts=[FACT]),
        {**NOTHING, "facts": [("home_city", "Porto", "location")], "warnings": 1}),
    "prose instead of json": (
        answer(facts=[FACT]).replace("---INTENTIONS---\n[]", "---INTENTIONS---\nNone today."),
        {"profile": True, "facts": [("home_city", "Porto", "location")], "follow_ups": [],
         "habits": [], "dropped": {}, "warnings": 1, "markers": True}),
    "tolerant marker spelling, no profile section": (
        f"--- facts ---\n{json.dumps([FACT])}\n**---Learnings---**\n{json.dumps([LEARNING])}",
        {**NOTHING, "facts": [("home_city", "Porto", "location")],
         "habits": [("Confirm before deleting", "decision_making")], "warnings": 1}),
}


@pytest.mark.parametrize("name", list(CORPUS))
def test_reflection_output_corpus(name: str) -> None:
    raw, expected = CORPUS[name]
    result = summary(raw)
    if "warnings" not in expected:
        result.pop("warnings")
    assert result == expected


def test_the_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 12


def test_fallback_profile_is_the_whole_output_without_chatter_fences() -> None:
    parsed = parse_reflection(f"```\n{PROFILE}\n```")
    assert parsed.profile == PROFILE and not parsed.markers_found


# --- the engine ----------------------------------------------------------------------------


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def talk(hearth: Hearth, *messages: str, at: datetime = NOW - timedelta(hours=3)) -> None:
    with hearth.storage.write() as session:
        for index, message in enumerate(messages):
            session.add(Interaction(user_message=message, agent_response="Noted.",
                                    created_at=at + timedelta(minutes=index)))


def reflect(hearth: Hearth, *answers: str | Exception, now: datetime = NOW,
            **kwargs) -> tuple:
    llm = ScriptedLLM(list(answers))
    report = ReflectionEngine(hearth.consolidation(), llm).run(now=now, **kwargs)
    return report, llm


def run_row(hearth: Hearth, run_id: int) -> Run:
    with hearth.storage.read() as session:
        return session.get(Run, run_id)


def test_a_run_saves_profile_facts_intentions_learnings_and_records_itself(hearth) -> None:
    talk(hearth, "I moved to Porto last month", "I should call the dentist")
    report, llm = reflect(hearth, answer(facts=[FACT], follow_ups=[INTENTION],
                                         habits=[LEARNING]))
    assert (report.facts_added, report.facts_updated, report.follow_ups_added,
            report.habits_added, report.habits_promoted) == (1, 0, 1, 1, 0)
    assert report.profile_changed and not report.skipped
    assert report.diff.startswith("--- no About you\n+++ About you v")
    assert "+## Personal\n" in report.diff

    request = llm.requests[0]
    assert request.kind == "chat" and request.max_tokens == 1500
    assert "I moved to Porto last month" in request.messages[1].content
    assert "start fresh" in request.messages[1].content

    fact = hearth.facts.get("home_city")
    assert (fact.value, fact.source) == ("Porto", "reflection")
    [follow_up] = report_engine(hearth).follow_ups.list()
    assert follow_up.follow_up_at == NOW + timedelta(days=3)
    assert (follow_up.text, follow_up.context, follow_up.status) == (
        "call the dentist", "tooth ache", "open")
    [learning] = report_engine(hearth).habits.list()
    assert (learning.rule, learning.status, learning.recurrence_count) == (
        "confirm before deleting", "candidate", 1)
    assert report_engine(hearth).about_you.current().content == PROFILE

    run = run_row(hearth, report.run_id)
    assert (run.kind, run.trigger, run.status) == ("reflection", "manual", "done")
    assert list(run.stages) == ["gather", "model", "parse", "apply"]
    assert run.stages["gather"]["counts"] == {"interactions": 2, "omitted": 0,
                                                  "excluded": 0, "journal_entries": 0}
    assert run.counts["facts_added"] == 1 and run.counts["follow_ups_added"] == 1


def report_engine(hearth: Hearth) -> ReflectionEngine:
    return ReflectionEngine(hearth.consolidation(), ScriptedLLM())


def test_user_stated_facts_win_and_reflection_facts_keep_history(hearth) -> None:
    hearth.facts.remember("partner_name", "Rui", category="personal", source="user")
    hearth.facts.remember("employer", "Acme", category="work", source="agent")
    talk(hearth, "talked about Rui and work")
    report, _ = reflect(hearth, answer(facts=[
        {"key": "partner_name", "value": "Rita", "category": "personal"},
        {"key": "employer", "value": "Globex", "category": "work"},
        {"key": "Partner Name", "value": "Rui", "category": "personal"}]))
    assert (report.facts_added, report.facts_updated, report.facts_protected) == (0, 1, 1)
    assert hearth.facts.get("partner_name").value == "Rui"
    assert hearth.facts.get("partner_name").source == "user"
    assert (hearth.facts.get("employer").value, hearth.facts.get("employer").source) == (
        "Globex", "reflection")
    assert [h.value for h in hearth.facts.history("employer")] == ["Acme"]


def test_learnings_become_active_in_a_later_run_and_reach_the_system_prompt(hearth) -> None:
    talk(hearth, "don't delete things without asking me", at=NOW - timedelta(hours=2))
    twice = [LEARNING, {"rule": "  confirm before deleting. ", "category": "x"}]
    first, _ = reflect(hearth, answer(habits=twice))
    assert (first.habits_added, first.habits_promoted) == (1, 0)
    engine = report_engine(hearth)
    assert [item.recurrence_count for item in engine.habits.list()] == [1]
    assert engine.habits.active() == []

    later = NOW + timedelta(days=1)
    talk(hearth, "again: ask before deleting", at=later - timedelta(hours=1))
    second, _ = reflect(hearth, answer(habits=[LEARNING]), now=later)
    assert (second.habits_added, second.habits_promoted) == (0, 1)
    [learning] = engine.habits.active()
    assert learning.recurrence_count == 2

    from core.conversation.system_prompt import read_snapshot
    with hearth.storage.read() as session:
        snapshot = read_snapshot(session)
    assert snapshot.habits == ((learning.id, "confirm before deleting"),)


def test_profile_versions_diff_and_restore(hearth) -> None:
    talk(hearth, "hello")
    first, _ = reflect(hearth, answer())
    changed = PROFILE.replace("Likes tea", "Likes coffee")
    talk(hearth, "I switched to coffee", at=NOW + timedelta(hours=20))
    second, _ = reflect(hearth, answer(profile=changed), now=NOW + timedelta(days=1))
    assert second.profile_changed
    assert "-Likes tea, dislikes small talk.\n+Likes coffee, dislikes small talk.\n" in (
        second.diff)
    unchanged, _ = reflect(hearth, answer(profile=changed), now=NOW + timedelta(days=1, hours=1))
    assert not unchanged.profile_changed and unchanged.diff == ""

    profiles = report_engine(hearth).about_you
    versions = profiles.versions()
    assert [v.source for v in versions] == ["reflection", "reflection"]
    oldest = versions[-1].id
    restored = profiles.restore(oldest)
    assert (restored.source, restored.content) == ("restore", PROFILE)
    assert profiles.current().id == restored.id and len(profiles.versions()) == 3


def test_garbage_keeps_the_profile_and_an_overlong_profile_is_cut_per_section(hearth) -> None:
    talk(hearth, "hello")
    reflect(hearth, answer())
    report, _ = reflect(hearth, "lol idk", now=NOW + timedelta(minutes=5))
    assert not report.profile_changed and report.warnings
    assert report_engine(hearth).about_you.current().content == PROFILE

    long_profile = "\n".join(f"## {name}\n" + " ".join(["word"] * 150)
                             for name in PROFILE_SECTIONS)
    cut, _ = reflect(hearth, answer(profile=long_profile), now=NOW + timedelta(minutes=10))
    content = report_engine(hearth).about_you.current().content
    assert cut.profile_truncated and cut.profile_changed
    assert word_count(content) <= MAX_ABOUT_YOU_WORDS
    assert all(f"## {name}" in content for name in PROFILE_SECTIONS)
    assert content.count("…") == 6


def test_nothing_to_reflect_on_is_a_skipped_run_without_a_model_call(hearth) -> None:
    talk(hearth, "old news", at=NOW - timedelta(hours=30))
    report, llm = reflect(hearth)
    assert report.skipped and "no conversations" in report.reason
    assert llm.requests == []
    assert run_row(hearth, report.run_id).status == "skipped"
    assert report_engine(hearth).about_you.current() is None


def test_a_model_failure_changes_nothing_and_fails_the_run(hearth) -> None:
    talk(hearth, "I moved to Porto")
    with pytest.raises(LLMError):
        reflect(hearth, failing("model crashed"))
    with hearth.storage.read() as session:
        run = session.scalars(select(Run)).one()
        assert session.scalars(select(Habit)).all() == []
    assert run.status == "failed" and "model crashed" in run.error
    assert run.stages["model"]["status"] == "failed"
    assert hearth.facts.list() == [] and report_engine(hearth).about_you.current() is None


def test_cancellation_records_a_cancelled_run_and_writes_nothing(hearth) -> None:
    talk(hearth, "I moved to Porto")
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(LLMCancelled):
        reflect(hearth, answer(facts=[FACT]), cancel=cancel)
    with hearth.storage.read() as session:
        assert session.scalars(select(Run)).one().status == "cancelled"
    assert hearth.facts.list() == []


def test_exclusions_hide_turns_from_the_model_and_block_writes(tmp_path, embedder) -> None:
    settings = Settings(exclusions=["divorce"])
    with Hearth.open(tmp_path / "home", settings=settings, embedder=embedder) as hearth:
        talk(hearth, "my divorce lawyer called", "I should buy running shoes")
        report, llm = reflect(hearth, answer(
            profile=PROFILE + "\nGoing through a divorce.",
            facts=[{"key": "lawyer", "value": "divorce lawyer Sousa"}, FACT],
            follow_ups=[{"text": "sign the divorce papers"}, INTENTION]))
        prompt = llm.requests[0].messages[1].content
        assert "divorce" not in prompt and "running shoes" in prompt
        assert report.excluded == 3 and report.facts_added == 1
        gather = run_row(hearth, report.run_id).stages["gather"]["counts"]
        assert (gather["interactions"], gather["excluded"]) == (1, 1)
        assert "divorce" not in report_engine(hearth).about_you.current().content
        assert [i.text for i in report_engine(hearth).follow_ups.list()] == ["call the dentist"]


def test_only_the_newest_turns_that_fit_the_window_are_sent(hearth) -> None:
    talk(hearth, *[f"message number {i} " + "x" * 500 for i in range(40)])
    llm = ScriptedLLM([answer()], context_window=4096)
    report = ReflectionEngine(hearth.consolidation(), llm).run(now=NOW)
    prompt = llm.requests[0].messages[1].content
    gather = run_row(hearth, report.run_id).stages["gather"]["counts"]
    assert gather["omitted"] > 0 and gather["interactions"] + gather["omitted"] == 40
    assert "message number 39" in prompt and "message number 0 " not in prompt


def test_learning_paused_skips_the_run(tmp_path, embedder) -> None:
    settings = Settings(learning_paused=True)
    with Hearth.open(tmp_path / "home", settings=settings, embedder=embedder) as hearth:
        talk(hearth, "hello")
        report, llm = reflect(hearth)
        assert report.skipped and report.reason == "learning is paused" and not llm.requests


def test_a_naive_time_is_refused(hearth) -> None:
    from core.errors import InvalidInputError
    with pytest.raises(InvalidInputError):
        reflect(hearth, now=NOW.replace(tzinfo=None))


def test_journal_entries_are_read_once_even_without_conversations(hearth) -> None:
    """A week of journaling and no chat: the reflection still runs, shows the model the
    entries (oldest first), and stamps them so the next run does not read them again."""
    first = hearth.journal.add("Started the pottery class today. Loved the wheel.")
    second = hearth.journal.add("I want to visit my sister in Lyon before Christmas.",
                                title="Lyon")
    report, llm = reflect(hearth, answer(follow_ups=[INTENTION]))
    assert not report.skipped and report.journal_entries == 2
    prompt = llm.requests[0].messages[1].content
    journal = prompt[prompt.index("<journal>"):]
    assert journal.index("pottery class") < journal.index("Lyon\nI want to visit my sister")
    assert {entry.id for entry in hearth.journal.unreflected()} == set()
    assert hearth.journal.get(first.id).included_in_reflection_at == NOW
    assert hearth.journal.get(second.id).included_in_reflection_at == NOW

    again, llm = reflect(hearth)
    assert again.skipped and "no new journal entry" in again.reason
    assert llm.requests == []


def test_a_failed_reflection_leaves_the_journal_unread(hearth) -> None:
    entry = hearth.journal.add("Slept badly again, the deadline is on my mind.")
    with pytest.raises(LLMError):
        reflect(hearth, failing("the model is down"))
    assert [unread.id for unread in hearth.journal.unreflected()] == [entry.id]


def test_an_excluded_journal_entry_is_never_shown_to_the_model(tmp_path, embedder) -> None:
    settings = Settings(exclusions=["divorce"])
    with Hearth.open(tmp_path / "home", settings=settings, embedder=embedder) as opened:
        talk(opened, "I started running again")
        opened.journal.add("Talked to the lawyer about the divorce papers.")
        kept = opened.journal.add("Ran 5 km by the river, felt great.")
        report, llm = reflect(opened, answer())
        prompt = llm.requests[0].messages[1].content
        assert "lawyer" not in prompt and "Ran 5 km" in prompt
        assert report.journal_entries == 1
        assert opened.journal.unreflected() == []  # the hidden one is not offered again
        assert opened.journal.get(kept.id).included_in_reflection_at is not None
