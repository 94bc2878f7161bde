"""Profile versions, follow_ups with rationed follow-ups, habits the user controls, and
the commands that show them. Real database; the CLI runs through Typer's runner."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import typer
from sqlalchemy import select
from typer.testing import CliRunner

from cli import reflection_cmd
from core.config import Settings
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.follow_ups import FollowUpService
from core.knowledge.habits import HabitService, normalise_rule
from core.knowledge.about_you import (
    MAX_ABOUT_YOU_WORDS, AboutYouService, cap_words, sections_present)
from core.storage.orm import Habit, AuditEntry

NOW = datetime(2026, 3, 10, 9, 0, tzinfo=timezone.utc)


def audit(storage, prefix: str) -> list[AuditEntry]:
    with storage.read() as session:
        return list(session.scalars(select(AuditEntry).where(
            AuditEntry.action.startswith(prefix)).order_by(AuditEntry.id)))


# --- profile ------------------------------------------------------------------------------


def test_profile_versions_are_kept_compared_and_restored(storage) -> None:
    profiles = AboutYouService(storage)
    assert profiles.current() is None and profiles.versions() == []
    first = profiles.save("## Personal\nLikes tea.\n", "reflection")
    assert profiles.save("## Personal\nLikes tea.", "user").id == first.id  # unchanged
    second = profiles.save("## Personal\nLikes coffee.", "user")
    assert profiles.diff(first.id, second.id) == (
        f"--- About you v{first.id}\n+++ About you v{second.id}\n@@ -1,2 +1,2 @@\n"
        " ## Personal\n-Likes tea.\n+Likes coffee.\n")
    assert profiles.diff(second.id, second.id) == ""
    restored = profiles.restore(first.id)
    assert (restored.source, restored.content) == ("restore", "## Personal\nLikes tea.")
    assert [v.id for v in profiles.versions()] == [restored.id, second.id, first.id]
    assert [v.words for v in profiles.versions()] == [2, 2, 2]
    assert [e.actor for e in audit(storage, "about_you.")] == ["reflection", "user", "restore"]


def test_profile_refuses_empty_text_and_unknown_versions(storage) -> None:
    profiles = AboutYouService(storage)
    with pytest.raises(InvalidInputError):
        profiles.save("   \n", "user")
    with pytest.raises(NotFoundError):
        profiles.restore(99)
    assert profiles.versions() == []


def test_cap_words_cuts_each_section_by_its_share() -> None:
    text = ("intro words here\n## Personal\n" + " ".join(["a"] * 600)
            + "\n## Notes\n- " + " ".join(["b"] * 300))
    capped, cut = cap_words(text, limit=90)
    assert cut and sections_present(capped) == {"Personal", "Notes"}
    lines = capped.splitlines()
    # 904 words into 90: intro 3*90//904=0, Personal 600*90//904=59, Notes 301*90//904=29
    # (the bullet marker "-" counts as one of the Notes section's 301 words)
    assert lines[0] == "## Personal"  # the intro's budget is 0 words
    assert lines[1] == " ".join(["a"] * 59) + "…"
    assert lines[3] == "- " + " ".join(["b"] * 28) + "…"
    assert cap_words("## Notes\nshort", limit=MAX_ABOUT_YOU_WORDS) == ("## Notes\nshort", False)


# --- follow_ups ---------------------------------------------------------------------------


@pytest.fixture
def follow_ups(storage) -> FollowUpService:
    return FollowUpService(storage, Settings(follow_ups_per_day=2))


def test_intentions_are_deduplicated_while_open(follow_ups) -> None:
    first, created = follow_ups.add("Call  the dentist", follow_up_at=NOW)
    twin, again = follow_ups.add("call the dentist")
    assert created and not again and twin.id == first.id
    follow_ups.resolve(first.id)
    _, reopened = follow_ups.add("call the dentist")
    assert reopened
    with pytest.raises(InvalidInputError):
        follow_ups.add("   ")


def test_follow_ups_are_rationed_per_day_and_not_repeated(follow_ups, storage) -> None:
    ids = [follow_ups.add(f"task {i}", follow_up_at=NOW - timedelta(hours=i))[0].id
           for i in range(4)]
    follow_ups.add("not yet", follow_up_at=NOW + timedelta(days=2))
    follow_ups.add("no date")
    assert [i.text for i in follow_ups.due(NOW)] == ["task 3", "task 2", "task 1", "task 0"]

    first = follow_ups.to_deliver(NOW)
    assert [i.text for i in first] == ["task 3", "task 2"]
    assert all(i.last_followed_up_at == NOW for i in first)
    assert follow_ups.to_deliver(NOW + timedelta(hours=1)) == []  # the day's quota is used

    next_day = NOW + timedelta(days=1)
    assert [i.text for i in follow_ups.to_deliver(next_day)] == ["task 3", "task 2"]
    follow_ups.resolve(ids[3])
    follow_ups.dismiss(ids[2])
    follow_ups.snooze(ids[1], next_day + timedelta(days=5))
    day_after = NOW + timedelta(days=2, hours=1)
    assert [i.text for i in follow_ups.to_deliver(day_after)] == ["task 0", "not yet"]
    assert {i.text: i.status for i in follow_ups.list()} == {
        "task 0": "open", "task 1": "open", "task 2": "dismissed", "task 3": "resolved",
        "not yet": "open", "no date": "open"}
    assert [e.action for e in audit(storage, "follow_up.")] == [
        "follow_up.resolve", "follow_up.dismiss", "follow_up.snooze"]


def test_closed_intentions_cannot_be_answered_again(follow_ups) -> None:
    item, _ = follow_ups.add("water the plants")
    follow_ups.dismiss(item.id)
    with pytest.raises(InvalidInputError, match="already dismissed"):
        follow_ups.snooze(item.id, NOW)
    with pytest.raises(NotFoundError):
        follow_ups.resolve(404)
    with pytest.raises(InvalidInputError):
        follow_ups.list("sleeping")


def test_no_follow_ups_when_the_setting_is_zero(storage) -> None:
    service = FollowUpService(storage, Settings(follow_ups_per_day=0))
    service.add("task", follow_up_at=NOW - timedelta(days=1))
    assert service.to_deliver(NOW) == []


# --- habits ----------------------------------------------------------------------------


def test_rules_are_normalised_and_bounded() -> None:
    assert normalise_rule("  Always  CONFIRM before deleting. ") == "always confirm before deleting"
    with pytest.raises(InvalidInputError):
        normalise_rule("x" * 201)
    with pytest.raises(InvalidInputError):
        normalise_rule(" . ")


def test_the_user_promotes_demotes_and_deletes_learnings(storage) -> None:
    habits = HabitService(storage)
    day1, day2 = NOW, NOW + timedelta(days=1)
    rule = habits.observe("Be brief", "Style Notes", run_started_at=day1, now=day1).habit
    assert (rule.category, rule.status) == ("style_notes", "candidate")
    assert habits.promote(rule.id).status == "active"
    assert [item.id for item in habits.active()] == [rule.id]
    demoted = habits.demote(rule.id)
    assert (demoted.status, demoted.recurrence_count) == ("candidate", 1)
    assert habits.observe("be brief", run_started_at=day2, now=day2).action == "promoted"
    habits.delete(rule.id)
    with storage.read() as session:
        assert session.scalars(select(Habit)).all() == []
    entries = audit(storage, "habit.")
    assert [e.action for e in entries] == ["habit.promote", "habit.demote",
                                           "habit.delete"]
    assert entries[-1].arguments == {"id": rule.id, "category": "style_notes"}
    assert "brief" not in json.dumps([e.arguments for e in entries]) + entries[-1].result_summary
    with pytest.raises(NotFoundError):
        habits.delete(rule.id)


# --- the commands -------------------------------------------------------------------------


@pytest.fixture
def cli(isolated_home: Path, embedder, monkeypatch: pytest.MonkeyPatch):
    """The commands on a throwaway Typer app; every open reuses the loaded embedder and
    this test's ``HEARTH_HOME``."""
    monkeypatch.setattr("core.app.OnnxEmbedder", lambda *args, **kwargs: embedder)
    app = typer.Typer()
    for command in (reflection_cmd.reflect, reflection_cmd.follow_ups, reflection_cmd.habits,
                    reflection_cmd.about_you):
        app.command()(command)

    def invoke(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(app, list(args))
        return result.exit_code, result.output
    return invoke


def test_the_commands_list_and_change_things(cli, embedder) -> None:
    from core.app import Hearth
    with Hearth.open(embedder=embedder) as hearth:
        item, _ = FollowUpService(hearth.storage, hearth.settings).add("call mum")
        rule = HabitService(hearth.storage).observe(
            "be brief", run_started_at=NOW, now=NOW).habit
        profiles = AboutYouService(hearth.storage)
        old = profiles.save("## Personal\nLikes tea.", "reflection")
        new = profiles.save("## Personal\nLikes coffee.", "user")

    code, out = cli("follow-ups", "--snooze", str(item.id), "--days", "2", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "open"
    code, out = cli("follow-ups", "--resolve", str(item.id), "--json")
    assert json.loads(out)[0]["status"] == "resolved"
    code, out = cli("follow-ups", "--resolve", "1", "--dismiss", "1")
    assert code != 0

    code, out = cli("habits", "--promote", str(rule.id), "--json")
    assert json.loads(out)[0]["status"] == "active"
    code, out = cli("habits", "--delete", str(rule.id), "--json")
    assert json.loads(out) == {"deleted": rule.id}
    assert json.loads(cli("habits", "--json")[1]) == []

    code, out = cli("about-you", "--diff", str(old.id), str(new.id), "--json")
    assert "+Likes coffee." in json.loads(out)["diff"]
    code, out = cli("about-you", "--restore", str(old.id), "--json")
    assert json.loads(out)["content"] == "## Personal\nLikes tea."
    code, out = cli("about-you", "--history", "--json")
    assert [v["source"] for v in json.loads(out)] == ["restore", "user", "reflection"]


def test_reflect_runs_with_the_configured_model_and_closes_it(cli, embedder, monkeypatch) -> None:
    from core.app import Hearth
    from core.llm import selection
    from core.storage.orm import Interaction
    from support.scripted_llm import ScriptedLLM

    closed: list[bool] = []

    class Model(ScriptedLLM):
        def close(self) -> None:
            closed.append(True)

    answer = ("---PROFILE---\n## Personal\nAna.\n## Notes\nNew here.\n---FACTS---\n"
              '[{"key": "name", "value": "Ana", "category": "personal"}]\n'
              "---INTENTIONS---\n[]\n---LEARNINGS---\n[]")
    # the command imports build_provider when it runs, so the selection module's is the one
    monkeypatch.setattr(selection, "build_provider", lambda settings: Model([answer]))
    code, out = cli("reflect", "--json")
    assert code == 0 and json.loads(out)["skipped"] and closed == [True]
    with Hearth.open(embedder=embedder) as hearth, hearth.storage.write() as session:
        session.add(Interaction(user_message="I'm Ana", agent_response="Hi Ana"))
    code, out = cli("reflect")
    assert code == 0, out
    assert "facts +1" in out and "+## Personal" in out
