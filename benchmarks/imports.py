"""Importing a ChatGPT export: the checking pass over a large file (time and peak memory),
the import's throughput against the transcript import of the same turns (the baseline:
both share ``core.transfer.turns``), a re-import that finds nothing new, and one after
every turn was deleted (each key looked up in ``forgotten_imports`` and left out).

Run alone: ``python -m benchmarks.imports``; in the table: ``--only imports``."""

from __future__ import annotations

import json
import random
import tempfile
import time
import tracemalloc
from pathlib import Path

from sqlalchemy import select

from benchmarks.stats import percentiles, timed_ms
from core.app import Hearth
from core.storage.orm import Memory
from core.transfer.chat_export import check_export, import_chat_export
from core.transfer.chatgpt import CHATGPT
from core.transfer.transcript import import_transcript

CONVERSATIONS, TURNS = 40, 10
LARGE_CONVERSATIONS, LARGE_TEXT = 400, 30_000  # a ~49 MB export for the checking pass
REIMPORTS = 7
WORDS = ("river flat budget lease garden tomato boat engine sister birthday cake Lisbon "
         "Porto tram coffee passport trip doctor").split()


def chatgpt_conversation(conversation_id: str, title: str, created: int,
                         texts: list[str], prefix: str) -> dict:
    """One conversation as ChatGPT's export holds it: a root node without a message, then
    one node per text (user and assistant in turn, a second apart) each the child of the
    one before, ``current_node`` the last; node and message ids are ``<prefix>-m<n>``."""
    mapping: dict[str, dict] = {"root": {"id": "root", "message": None, "parent": None}}
    parent = "root"
    for turn, text in enumerate(texts):
        node = f"{prefix}-m{turn}"
        mapping[node] = {"id": node, "parent": parent, "message": {
            "id": node, "author": {"role": "user" if turn % 2 == 0 else "assistant"},
            "create_time": created + turn,
            "content": {"content_type": "text", "parts": [text]}, "recipient": "all"}}
        parent = node
    return {"conversation_id": conversation_id, "title": title, "create_time": created,
            "mapping": mapping, "current_node": parent}


def _conversation(index: int, turns: int, text_size: int | None = None) -> dict:
    texts = [" ".join(random.choice(WORDS) for _ in range(25)) + "." if text_size is None
             else "ab c " * (text_size // 5) for _ in range(turns)]
    return chatgpt_conversation(f"conv-{index:05d}", f"Chat {index}",
                                1_700_000_000 + index * 1_000, texts, f"c{index}")


def _as_transcript(export: list[dict]) -> dict:
    """The same turns as one transcript of one session per conversation."""
    sessions = []
    for conversation in export:
        turns = [{"turn_id": f"{conversation['conversation_id']}:{key}",
                  "speaker": "User" if node["message"]["author"]["role"] == "user"
                  else "ChatGPT", "text": node["message"]["content"]["parts"][0]}
                 for key, node in conversation["mapping"].items() if node["message"]]
        sessions.append({"session_id": conversation["conversation_id"],
                         "started_at": "2023-11-14T22:13:20Z", "turns": turns})
    return {"conversation_id": "bench", "participants": [], "sessions": sessions}


def bench_imports() -> list[dict]:
    random.seed(7)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        large = root / "large.json"
        with large.open("w", encoding="utf-8") as out:
            out.write("[")
            for index in range(LARGE_CONVERSATIONS):
                out.write(("," if index else "") + json.dumps(
                    _conversation(index, 4, LARGE_TEXT)))
            out.write("]")
        size = large.stat().st_size
        tracemalloc.start()
        took = timed_ms(lambda: check_export(large, CHATGPT))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        checks = [timed_ms(lambda: check_export(large, CHATGPT)) for _ in range(3)]
        rows.append({"benchmark": f"checking pass over a {size / 1e6:.1f} MB export",
                     "value": f"median {sorted(checks)[1]:.0f} ms "
                              f"({size / 1e3 / sorted(checks)[1]:.0f} MB/s); peak Python "
                              f"memory {peak / 1e6:.1f} MB (traced run {took:.0f} ms)",
                     "target": "peak far below the file"})

        export = [_conversation(index, TURNS) for index in range(CONVERSATIONS)]
        path = root / "conversations.json"
        path.write_text(json.dumps(export), encoding="utf-8")
        turns = CONVERSATIONS * TURNS
        with Hearth.open(root / "chat-home") as hearth:
            hearth.embedder.embed_documents(["warm up"])
            start = time.perf_counter()
            import_chat_export(path, CHATGPT, hearth.storage, hearth.memories)
            chat_s = time.perf_counter() - start
            again = [timed_ms(lambda h=hearth: import_chat_export(
                path, CHATGPT, h.storage, h.memories)) for _ in range(REIMPORTS)]
            with hearth.storage.read() as session:
                every = list(session.scalars(select(Memory.id)))
            hearth.forgetting.delete_memories(every)
            forgotten = [timed_ms(lambda h=hearth: import_chat_export(
                path, CHATGPT, h.storage, h.memories)) for _ in range(REIMPORTS)]
        with Hearth.open(root / "transcript-home") as hearth:
            hearth.embedder.embed_documents(["warm up"])
            start = time.perf_counter()
            import_transcript(_as_transcript(export), hearth.storage, hearth.memories)
            transcript_s = time.perf_counter() - start
        rows.append({"benchmark": f"ChatGPT import, {turns} turns (embedding included)",
                     "value": f"{chat_s:.1f} s = {turns / chat_s:.1f} turns/s; transcript "
                              f"of the same turns {transcript_s:.1f} s = "
                              f"{turns / transcript_s:.1f} turns/s (×{chat_s / transcript_s:.2f})",
                     "target": "≈ the transcript import"})
        p50, p95 = percentiles(again)
        rows.append({"benchmark": f"re-import of the same export ({turns} turns, nothing new)",
                     "value": f"p50 {p50:.0f} ms, p95 {p95:.0f} ms", "target": ""})
        f50, f95 = percentiles(forgotten)
        rows.append({"benchmark": f"re-import after deleting all {turns} turns (all left out)",
                     "value": f"p50 {f50:.0f} ms, p95 {f95:.0f} ms "
                              f"(×{f50 / p50:.2f} the re-import above)", "target": "≈ 1"})
    return rows


if __name__ == "__main__":
    for row in bench_imports():
        print(f"{row['benchmark']}: {row['value']}")
