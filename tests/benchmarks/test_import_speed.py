"""The import speed benchmark's export is one ChatGPT's importer accepts whole, its import
counts add up, and its breakdown plans exactly what the import embedded."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.chat_text import MAX_ANSWER_WORDS, MIN_ANSWER_WORDS
from benchmarks.import_speed import (
    KINDS,
    generated_conversation,
    generated_export,
    messages_of,
    planned_inputs,
    run_import,
    run_rows,
)
from core.transfer.chat_export import check_export
from core.transfer.chatgpt import CHATGPT

CONVERSATIONS = 2


def test_the_generated_export_is_a_deterministic_chatgpt_export(tmp_path: Path) -> None:
    export = generated_export(CONVERSATIONS, seed=5)
    assert export == generated_export(CONVERSATIONS, seed=5)
    assert export[1] == generated_conversation(1, seed=5)  # the same whatever N is
    assert export != generated_export(CONVERSATIONS, seed=6)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    messages = [message for conversation in export for message in messages_of(conversation)]
    checked = check_export(path, CHATGPT)
    assert (checked.conversations, checked.turns, checked.left_out) == (
        CONVERSATIONS, len(messages), 0)
    for conversation in export:
        roles = [role for role, _ in messages_of(conversation)]
        assert 4 <= len(roles) <= 30
        assert roles == ["user", "assistant"] * (len(roles) // 2)
    for role, body in messages:
        words = len(body.split())
        if role == "user":
            assert 10 <= words <= 60 and "\n" not in body
        else:
            assert MIN_ANSWER_WORDS <= words <= MAX_ANSWER_WORDS and "\n\n" in body


def test_the_import_keeps_every_message_and_its_figures_add_up(tmp_path: Path,
                                                                embedder) -> None:
    export = generated_export(CONVERSATIONS)
    messages = sum(len(messages_of(conversation)) for conversation in export)
    run = run_import(tmp_path, export, embedder=embedder)
    assert run.report.turns == run.report.memories_created == messages
    assert run.rows["memories"] == run.rows["memory vectors"] == messages
    assert run.rows["interactions"] == run.rows["interactions without a vector"] == messages
    assert run.rows["sessions"] == CONVERSATIONS
    assert 0 < run.embed_wall_s < run.wall_s and run.cpu_s > 0
    assert 0 < run.check_s < run.wall_s and run.fts_s >= 0
    assert run.rss_peak_mb >= run.rss_before_mb > 0
    assert run.traced_peak_mb is not None and run.traced_peak_mb > 0
    assert run.later_inputs >= messages  # each interaction's vector, left for later

    planned = planned_inputs(export, embedder)
    assert planned.total() == run.embedded_inputs
    assert sum(planned.messages.values()) == messages
    for role in ("user", "assistant"):  # three views a message
        for kind in KINDS[:3]:
            assert len(planned.inputs[role, kind]) == planned.messages[role]
    windows = sum(len(planned.inputs[role, kind]) for role in ("user", "assistant")
                  for kind in KINDS[3:])
    assert windows == run.rows["memory windows"]

    rows = run_rows(run, seed=30, generated=2_000)
    assert f"{CONVERSATIONS} conversations (of the 2,000 generated" in rows[0]["value"]
    assert "messages/s" in rows[2]["value"]
