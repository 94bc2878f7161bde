"""A demo data folder: what Hearth looks like after a few weeks with one person.

Everything goes through core's public services (transcript import, facts, profile, the
event processor, reflection's habits, follow_ups, the dream stages, real chat turns), so
the screenshots show real records: real vectors, edges computed by the link and REM stages,
context logs written by real turns. Only the language model is scripted (canned answers),
because the demo must look the same on every machine and needs no model.

    .venv/bin/python tools/demo_data.py /tmp/hearth-demo
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the scripted model the tests use

from support.scripted_llm import ScriptedLLM, failing  # noqa: E402

from core.app import Hearth  # noqa: E402
from core.consolidation.dream import DreamCycle  # noqa: E402
from core.consolidation.processor import MemoryProcessor  # noqa: E402
from core.learning.events import add_event  # noqa: E402
from core.knowledge.memories import MemorySpec  # noqa: E402
from core.storage.orm import utcnow  # noqa: E402
from core.transfer.transcript import import_transcript  # noqa: E402

CONVERSATIONS = ROOT / "benchmarks" / "data" / "conversations"

FACTS = [
    ("name", "Maya", "personal"), ("home_city", "Lisbon", "location"),
    ("partner", "Jonas", "personal"), ("sister", "Ines, lives in Porto", "personal"),
    ("job", "product designer", "work"), ("employer", "Tidewater Studio", "work"),
    ("favourite_tea", "sencha, no sugar", "preference"),
    ("allergy", "penicillin", "health"), ("knee", "physiotherapy twice a week", "health"),
    ("running_goal", "half marathon in April", "general"),
    ("reading", "Piranesi by Susanna Clarke", "preference"),
    ("morning_routine", "run at 7, then tea", "general"),
    ("language", "learning Japanese (N4)", "general"), ("cat", "Miso, a grey tabby", "personal"),
]
UPDATED = [("home_city", "Porto", "location"), ("job", "design lead", "work")]

PROFILE_V1 = """## Personal
Maya is a product designer in Lisbon who lives with her partner Jonas and their cat Miso.
## Goals & Values
Wants to run a half marathon; values time outdoors.
## Communication Style
Thinks out loud; likes short, concrete answers.
## Patterns & Rhythms
Runs early; plans the week on Sunday evenings.
## Preferences
Sencha without sugar; literary fiction.
## Notes
Knee physiotherapy started in January."""

PROFILE_V2 = PROFILE_V1.replace("product designer in Lisbon", "design lead who moved to Porto") \
    .replace("Wants to run a half marathon; values time outdoors.",
             "Training for the April half marathon; values time outdoors and her sister Ines.")

SCAFFOLD_ANSWER = {
    "updated_scaffold": {
        "people": {"Jonas": "partner", "Ines": {"relation": "sister", "city": "Porto"},
                   "Miso": "cat"},
        "work": {"role": "design lead", "studio": "Tidewater", "focus": ["design system",
                                                                          "hiring"]},
        "health": {"knee": "physiotherapy", "allergy": "penicillin"},
        "rhythms": {"run": "07:00", "planning": "Sunday evening"},
    },
    "updated_working_memory": "Maya is preparing for the April half marathon and settling "
                              "into the new role; she asked to be reminded about the race "
                              "registration.",
    "facts_to_embed": ["Maya registered interest in the Porto half marathon."],
}

LEARNINGS = [("Keep answers short and concrete; offer details on request.", "communication"),
             ("Confirm dates before adding them to plans.", "decision_making")]
CANDIDATE = ("Suggest a walk when Maya mentions a long day at the desk.", "wellbeing")

INTENTIONS = [("Register for the Porto half marathon", "registration closes in March", -1),
              ("Book the physiotherapy follow-up", "knee check after six weeks", 3),
              ("Send Ines the photos from the weekend", "", 7)]

CURATED = [  # (text, category, tier, importance): what consolidation and the user made
    ("Maya is training for the Porto half marathon in April.", "health", "core", 0.95),
    ("Maya's knee responds well to physiotherapy twice a week.", "health", "recall", 0.7),
    ("Long runs stay slow; stop if the knee aches.", "health", "recall", 0.6),
    ("Maya moved to Porto to be closer to her sister Ines.", "people", "core", 0.9),
    ("Ines works at a design school in Porto.", "people", "recall", 0.5),
    ("Jonas is learning to bake sourdough.", "people", "recall", 0.4),
    ("Miso the cat needs his booster vaccination in spring.", "errands", "recall", 0.5),
    ("Maya leads the design system work at Tidewater Studio.", "work", "core", 0.85),
    ("Hiring two junior designers is this quarter's goal.", "work", "recall", 0.6),
    ("Weekly design review is on Thursday mornings.", "work", "recall", 0.55),
    ("Maya prefers sencha without sugar.", "preference", "recall", 0.45),
    ("Maya reads literary fiction; Piranesi is a favourite.", "preference", "recall", 0.5),
    ("Summary of spring: new job, the move to Porto, and marathon training.", "general",
     "archival", 0.8),
    ("Summary of winter: knee injury, physiotherapy and a slower running season.", "health",
     "archival", 0.75),
]

CHATS = [
    ("Training plan", [
        ("Can you help me plan my running week? My knee still feels stiff after long runs.",
         "Here is a gentle week that keeps your **knee** in mind:\n\n"
         "| Day | Run | Notes |\n|---|---|---|\n| Mon | rest | physio exercises |\n"
         "| Tue | 6 km easy | flat route |\n| Thu | 5 × 800 m | soft surface |\n"
         "| Sat | 14 km long | stop if the knee aches |\n\n"
         "Keep the long run slow; your half marathon is in **April**, so there is time."),
        ("What should I eat before the long run?",
         "A light breakfast 60–90 minutes before: toast with honey and a banana works for "
         "most people. Skip anything new on race week.")]),
    ("Moving to Porto", [
        ("Remind me what I told you about Ines?",
         "Your sister **Ines** lives in Porto; she moved there last spring for her job, and "
         "you were looking forward to being closer to her."),
    ]),
]


PROFILE_V3 = PROFILE_V2.replace("Knee physiotherapy started in January.",
                                "Knee physiotherapy started in January; the knee is better "
                                "and long runs are back.")


def _learning_answers(profile: str = PROFILE_V2) -> str:
    rules = [{"rule": rule, "category": category} for rule, category in LEARNINGS]
    return (f"---PROFILE---\n{profile}\n\n---FACTS---\n[]\n\n---INTENTIONS---\n[]\n\n"
            f"---LEARNINGS---\n{json.dumps(rules)}\n")


def demo_model() -> ScriptedLLM:
    """The demo's stand-in for a model: reflects with the next profile, chats politely."""

    def answer(kind: str, messages: Any, _extra: Any) -> str:
        if kind == "chat" and any("---PROFILE---" in m.content for m in messages):
            return _learning_answers(PROFILE_V3)
        return "Noted. I'll keep that in mind."

    return ScriptedLLM(answer, name="demo", model="scripted replies", supports_tools=False)


def seed(home: Path) -> None:
    """Fill ``home`` (a new, empty data folder) with the demo person's memory."""
    with Hearth.open(home) as hearth:
        for path in sorted(CONVERSATIONS.glob("*.json")):
            import_transcript(path, hearth.storage, hearth.memories)
        for key, value, category in FACTS:
            hearth.facts.remember(key, value, category, source="user")
        for key, value, category in UPDATED:
            hearth.facts.remember(key, value, category, source="reflection")
        hearth.about_you.save(PROFILE_V1, source="reflection")
        _process_events(hearth)
        hearth.memories.add_many([MemorySpec(text, category=category, tier=tier,
                                             importance=importance, source="consolidation")
                                  for text, category, tier, importance in CURATED])
        _habits(hearth)
        for text, context, days in INTENTIONS:
            hearth.follow_ups.add(text, context=context,
                                  follow_up_at=utcnow() + timedelta(days=days))
        for stage in ("link", "rem"):
            DreamCycle(hearth.consolidation(), ScriptedLLM()).run(trigger="scheduled", only=stage)
        _chats(hearth)
        _daily(hearth)
        _agents(hearth)


def _process_events(hearth: Hearth) -> None:
    for text in ("Maya starts as design lead next month.",
                 "Maya wants a reminder to register for the half marathon."):
        add_event(hearth.storage, "observation", text, {"source": "chat"})
    MemoryProcessor(hearth.consolidation(), ScriptedLLM([json.dumps(SCAFFOLD_ANSWER)])).run()
    add_event(hearth.storage, "observation", "Maya's flight to Osaka is on March 3.",
              {"source": "chat"})
    for _ in range(hearth.settings.event_max_attempts):  # a poison event, shown not dropped
        MemoryProcessor(hearth.consolidation(),
                        ScriptedLLM([failing("Ollama is not running.")] * 3)).run()


def _habits(hearth: Hearth) -> None:
    from core.consolidation.reflection import ReflectionEngine

    now = utcnow()
    for offset in (2, 1):  # seen on two nights: active
        for rule, category in LEARNINGS:
            hearth.habits.observe(rule, category, run_started_at=now - timedelta(
                days=offset))
    hearth.habits.observe(*CANDIDATE, run_started_at=now)
    with hearth.storage.write() as session:  # a conversation for reflection to read
        from core.storage.orm import Interaction

        session.add(Interaction(user_message="I got the design lead job! We're moving to "
                                "Porto.", agent_response="Congratulations!",
                                created_at=now - timedelta(hours=3)))
    ReflectionEngine(hearth.consolidation(),
                     ScriptedLLM([_learning_answers()])).run(trigger="scheduled")


def _chats(hearth: Hearth) -> None:
    replies: list[Any] = [reply for _, turns in CHATS for _, reply in turns]
    conversation = hearth.conversation(ScriptedLLM(replies, name="ollama",
                                                           model="llama3.2:3b",
                                                           supports_tools=False))
    for title, turns in CHATS:
        session_id = conversation.sessions.new_session(title)
        for message, _ in turns:
            for _event in conversation.send(session_id, message):
                pass


def _daily(hearth: Hearth) -> None:
    """Tasks, reminders, notes, journal entries, saved articles and scheduled prompts around
    today, so the daily views show every section (overdue, today, reminders, follow-ups, no
    date, done; a paused prompt, an alert with its own quiet time)."""
    from core.daily import when
    from core.operations import journal, notes, prompts, read_later, reminders, tasks
    from sqlalchemy import select

    from core.storage.orm import ChatSession, JournalEntry

    today, now = when.today(), utcnow()
    tasks.add(hearth, "Send the signed Porto lease back", due_date=today - timedelta(days=2))
    tasks.add(hearth, "Register for the half marathon", due_date=today,
              details="Early-bird price ends tonight.")
    tasks.add(hearth, "Book the physio for the knee", due_date=today, due_time="17:30")
    tasks.add(hearth, "Renew the gym membership", due_date=today + timedelta(days=9))
    tasks.add(hearth, "Look up climbing gyms in Porto")
    tasks.add(hearth, "Sort the moving boxes")
    done = tasks.add(hearth, "Reply to Ana about the kickoff", due_date=today).value
    tasks.complete(hearth, done.id)
    reminders.add(hearth, "Call mum about Sunday lunch", now + timedelta(hours=3))
    reminders.add(hearth, "Stretch before the long run", now + timedelta(hours=16))
    pinned = notes.add(hearth, "Half marathon plan",
                       "Long run on Sundays, +1 km a week.\nTempo on Wednesdays.\n"
                       "Race day: gels at km 8 and 15.").value
    notes.pin(hearth, pinned.id)
    notes.add(hearth, "Porto apartments", "Bonfim: 2 bedrooms, near the metro.\n"
              "Cedofeita: bright, but the street is loud at night.")
    with hearth.storage.read() as reading:
        session = reading.scalars(select(ChatSession.id).where(
            ChatSession.title == "Training plan")).first()
    hearth.notes.save_summary("Training plan", "Maya follows a 10-week plan for the half "
                              "marathon; long runs on Sundays, tempo on Wednesdays.",
                              session_id=session)
    entries = (
        (3, "First week as design lead. The team is kind but the roadmap is a mess; I "
            "spent two days just listening. Ran 12 km on Sunday, knee held up."),
        (1, "Saw the Bonfim apartment. Loved the light. Worried about leaving Lisbon "
            "friends, but Ana says Porto is three hours away, not the moon."),
        (0, "Short run before work. Felt good. Need to book the physio before it gets worse."),
    )
    for days_ago, content in entries:
        entry = journal.add(hearth, content).value
        with hearth.storage.write() as session_:  # the demo spans a few days
            row = session_.get(JournalEntry, entry.id)
            assert row is not None
            row.created_at = row.updated_at = now - timedelta(days=days_ago, hours=2)
            if days_ago > 1:
                row.included_in_reflection_at = now - timedelta(days=days_ago - 1)
    article = read_later.add(hearth, "https://example.org/running/knee-pain-in-runners",
                        title="Knee pain in runners: what helps",
                        note="For the physio visit",
                        text="Most knee pain in runners comes from doing too much too soon. "
                             "Strength training for the hips and a slower build-up of "
                             "weekly distance help more than new shoes.").value
    hearth.read_later.set_summary(article.id, "Build distance slowly and train hip strength; "
                                  "shoes matter less than load.")
    read_later.add(hearth, "https://example.org/design/leading-a-design-team",
              title="Leading a design team in your first 90 days",
              text="Listen first, write down the team's rituals, change one thing at a time.")
    read = read_later.add(hearth, "https://example.org/porto/neighbourhoods",
                     title="Porto neighbourhoods for newcomers").value
    read_later.mark(hearth, read.id, "read")
    prompts.add(hearth, "Morning plan", "What is on my plate today, and what should I do "
                "first?", "0 8 * * 1-5")
    prompts.add(hearth, "Sunday review", "How did the week go? What did I finish, and what "
                "slipped?", "0 18 * * 0")
    prompts.add(hearth, "Race countdown", "How many weeks to the half marathon, and is the "
                "plan on track?", "0 7 1 * *", enabled=False)
    prompts.set_alert(hearth, "task_overdue", cooldown_minutes=4 * 60)


def _agents(hearth: Hearth) -> None:
    """Two local agents over MCP: an editor that may only read, and a desktop assistant
    that may write, with a fact and an observation waiting for review, and its own token
    for HTTP."""
    from core.agents.tools import AgentTools
    from core.operations import agents

    agents.grant(hearth, "zed", "read")
    AgentTools(hearth.agent_services(), "zed").call("search_memory",
                                                    {"query": "half marathon plan"})
    agents.grant(hearth, "claude-desktop", "write")
    desktop = AgentTools(hearth.agent_services(), "claude-desktop")
    desktop.call("read_profile", {})
    desktop.call("remember_fact", {"key": "preferred editor", "value": "Zed",
                                   "category": "work"})
    desktop.call("record_observation", {"content": "Asked for a packing list for Porto "
                                        "in March."})
    agents.add_token(hearth, "claude-desktop")


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/hearth-demo")
    if target.exists() and any(target.iterdir()):
        sys.exit(f"{target} is not empty; give a new folder.")
    seed(target)
    print(f"demo data in {target}")
