"""A database with at least one row in every table, for tests of whole-database copies
(export and import, ``hearth migrate``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from core.embedding.reembed import backfill_embeddings
from core.knowledge.facts import FactService
from core.storage import orm

T0 = datetime(2025, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc)


def fill_every_table(storage, embedder) -> None:
    """At least one row in every table, with the awkward cases: a supersede chain that
    points forward, an edge, JSON columns, microsecond times, non-ASCII text."""
    facts = FactService(storage, embedder)
    facts.remember("home_city", "Lisboa", category="location")
    facts.remember("home_city", "Porto — Ribeira", category="location")
    with storage.write() as s:
        run = orm.Run(kind="reflection", stages={"facts": {"ms": 12.5}}, counts={"facts": 2},
                      status="ok", started_at=T0, finished_at=T0 + timedelta(seconds=3))
        chat = orm.ChatSession(id="chat-1", title="Moving", started_at=T0,
                               compaction_summary="Talked about the move.", compacted_through=1)
        s.add_all([run, chat])
        s.flush()
        event = orm.ContextEvent(event_type="chat", content="moved to Porto",
                                 source_metadata={"turn": 1, "tags": ["a", "ß"]}, created_at=T0)
        interaction = orm.Interaction(session_id=chat.id, user_message="I moved to Porto",
                                      agent_response="Congratulations!", tools_used=["remember"],
                                      latency_ms=123.4, created_at=T0)
        s.add_all([event, interaction])
        s.flush()
        memories = [orm.Memory(content=text, session_id=chat.id, interaction_id=interaction.id,
                               event_id=event.id, tags=["home"], entities={"places": ["Porto"]},
                               created_at=T0 + timedelta(minutes=i))
                    for i, text in enumerate(["Lives in Lisbon", "Lives in Porto",
                                              "Lives in Porto, Ribeira district"])]
        s.add_all(memories)
        s.flush()
        memories[0].superseded_by, memories[0].is_valid = memories[1].id, False
        memories[1].superseded_by, memories[1].is_valid = memories[2].id, False
        s.add_all([
            orm.MemoryEdge(from_id=memories[2].id, to_id=memories[0].id, kind="summary_of",
                           weight=0.75),
            orm.Note(title="Summary: moving", content="Packing list for the move",
                     session_id=chat.id),
            orm.AboutYouVersion(content="Lives in Porto.", run_id=run.id),
            orm.NotesAboutYouVersion(data={"home": {"city": "Porto"}}, run_id=run.id),
            orm.WorkingMemoryVersion(content="Settling in.", run_id=run.id),
            orm.Habit(rule="Answer in short paragraphs", status="active",
                              recurrence_count=2),
            orm.FollowUp(text="Register at the câmara", follow_up_at=T0),
            orm.AuditEntry(action="tool.call", arguments={"name": "x"}, result_summary="ok"),
            orm.ContextLog(interaction_id=interaction.id, session_id=chat.id,
                           system_prompt_sha256="ab" * 32,
                           items=[{"kind": "memory", "id": 1, "score": 0.5, "tokens": 7}],
                           tokens={"system": 120, "context": 7}),
            orm.Task(title="Register at the câmara", due_date="2025-01-03", due_time="09:30",
                     notified_kind="task_due_today", notified_at=T0, source="assistant"),
            orm.Reminder(message="Call the movers", remind_at=T0, zone="Europe/Lisbon",
                         status="sent", sent_at=T0, snooze_count=1),
            orm.ScheduledPrompt(name="Morning plan", prompt="Plan my day.", cron="0 9 * * 1-5",
                                zone="Europe/Lisbon", enabled=False, last_run_at=T0),
            orm.JournalEntry(content="First night in Porto — noisy street.", title=None,
                             included_in_reflection_at=T0),
            orm.ReadLaterItem(url="https://example.org/porto", title="Porto guide",
                              note="for Sunday", text="Ribeira and the bridges.",
                              tags=["porto", "ribeira"], status="read"),
            orm.AlertRule(kind="task_overdue", enabled=False, cooldown_minutes=90,
                          last_fired_at=T0),
            orm.PendingAction(action="task.create", arguments={"title": "Buy plants"},
                              preview="Add the task “Buy plants”.", source_message="add a task",
                              session_id=chat.id, interaction_id=interaction.id,
                              expires_at=T0 + timedelta(minutes=30), status="expired",
                              decided_at=T0),
        ])
        agent = orm.Agent(name="claude-desktop", access="write", trusted=False,
                          first_seen_at=T0, last_seen_at=T0 + timedelta(hours=1),
                          scope="search", hidden_categories=["health"], asked_at=T0,
                          answered_at=T0 + timedelta(minutes=5))
        s.add(agent)
        s.flush()
        s.add(orm.AgentWrite(agent_id=agent.id, action="remember_fact",
                             arguments={"key": "bike", "value": "a green Brompton"},
                             preview="Remember bike = a green Brompton.", status="accepted",
                             created_at=T0, decided_at=T0, result="created fact bike"))
        s.add(orm.AgentToken(agent_id=agent.id, token_sha256="5e" * 32, created_at=T0,
                             last_used_at=T0 + timedelta(minutes=5)))
        s.add_all([orm.ForgottenImport(key_sha256="0f" * 32, forgotten_at=T0),
                   orm.ImportRun(source="chatgpt", started_at=T0,
                                 finished_at=T0 + timedelta(seconds=5), added=3,
                                 undone_at=T0 + timedelta(days=1)),
                   orm.DeletedEntry(kind="fact", title="bike colour: blau",
                                    rows={"user_facts": [{"id": 99, "key": "bike_colour",
                                                          "value": "blau"}]},
                                    deleted_at=T0, purge_after=T0 + timedelta(days=36500))])
    backfill_embeddings(storage, embedder)
