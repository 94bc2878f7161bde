#!/usr/bin/env python3
"""Validate the Hearth retrieval evaluation set (stdlib only).

Checks every conversation in conversations/*.json and every line of
questions.jsonl, then prints counts.  Exits non-zero if anything is wrong.

    python3 benchmarks/data/validate.py
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
CONV_DIR = DATA_DIR / "conversations"
QUESTIONS = DATA_DIR / "questions.jsonl"
KINDS = ("keyword", "paraphrase", "temporal", "multi")


def main() -> int:
    errors: list[str] = []

    def err(msg: str) -> None:
        errors.append(msg)

    turn_owner: dict[str, str] = {}  # turn_id -> conversation_id
    conv_ids: set[str] = set()
    session_ids: set[str] = set()
    n_sessions = 0
    turns_per_conv: Counter[str] = Counter()

    files = sorted(CONV_DIR.glob("*.json"))
    if not files:
        err(f"no conversation files in {CONV_DIR}")

    for path in files:
        where = path.name
        try:
            conv = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            err(f"{where}: cannot parse: {e}")
            continue
        if not isinstance(conv, dict):
            err(f"{where}: top level must be an object")
            continue
        for key in ("conversation_id", "participants", "sessions"):
            if key not in conv:
                err(f"{where}: missing field {key!r}")
        cid = conv.get("conversation_id")
        if not isinstance(cid, str) or not cid:
            err(f"{where}: conversation_id must be a non-empty string")
            continue
        if cid in conv_ids:
            err(f"{where}: duplicate conversation_id {cid}")
        conv_ids.add(cid)
        participants = conv.get("participants")
        if not isinstance(participants, list) or not participants:
            err(f"{cid}: participants must be a non-empty list")
            participants = []
        sessions = conv.get("sessions")
        if not isinstance(sessions, list) or not sessions:
            err(f"{cid}: sessions must be a non-empty list")
            continue

        prev_start: datetime | None = None
        for s in sessions:
            n_sessions += 1
            for key in ("session_id", "started_at", "turns"):
                if key not in s:
                    err(f"{cid}: session missing field {key!r}")
            sid = s.get("session_id")
            if not isinstance(sid, str) or not sid.startswith(cid + "-s"):
                err(f"{cid}: bad session_id {sid!r}")
                sid = str(sid)
            if sid in session_ids:
                err(f"{cid}: duplicate session_id {sid}")
            session_ids.add(sid)

            started = s.get("started_at")
            try:
                ts = datetime.fromisoformat(str(started))
                if ts.tzinfo is None:
                    err(f"{sid}: started_at {started!r} has no UTC offset")
                elif prev_start is not None and ts <= prev_start:
                    err(f"{sid}: sessions not in chronological order")
                else:
                    prev_start = ts
            except ValueError:
                err(f"{sid}: started_at {started!r} is not ISO-8601")

            turns = s.get("turns")
            if not isinstance(turns, list) or not turns:
                err(f"{sid}: turns must be a non-empty list")
                continue
            for t in turns:
                for key in ("turn_id", "speaker", "text"):
                    if key not in t:
                        err(f"{sid}: turn missing field {key!r}: {t}")
                tid = t.get("turn_id")
                if not isinstance(tid, str) or not tid.startswith(sid + "-t"):
                    err(f"{sid}: bad turn_id {tid!r}")
                if tid in turn_owner:
                    err(f"{sid}: duplicate turn_id {tid}")
                turn_owner[str(tid)] = cid
                if participants and t.get("speaker") not in participants:
                    err(f"{tid}: speaker {t.get('speaker')!r} not in participants")
                if not isinstance(t.get("text"), str) or not t.get("text", "").strip():
                    err(f"{tid}: empty text")
                turns_per_conv[cid] += 1

    # ---- questions ----
    kinds: Counter[str] = Counter()
    q_per_conv: Counter[str] = Counter()
    q_ids: set[str] = set()
    n_questions = 0
    try:
        lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        err(f"cannot read {QUESTIONS}: {e}")
        lines = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"questions.jsonl:{lineno}"
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            err(f"{where}: invalid JSON: {e}")
            continue
        n_questions += 1
        for key in ("id", "conversation_id", "question", "answer_turn_ids", "kind"):
            if key not in q:
                err(f"{where}: missing field {key!r}")
        qid = q.get("id")
        if qid in q_ids:
            err(f"{where}: duplicate id {qid}")
        q_ids.add(qid)
        cid = q.get("conversation_id")
        if cid not in conv_ids:
            err(f"{where} ({qid}): unknown conversation_id {cid!r}")
        if not isinstance(q.get("question"), str) or not q.get("question", "").strip():
            err(f"{where} ({qid}): empty question")
        kind = q.get("kind")
        if kind not in KINDS:
            err(f"{where} ({qid}): kind {kind!r} not one of {KINDS}")
        kinds[str(kind)] += 1
        q_per_conv[str(cid)] += 1
        answers = q.get("answer_turn_ids")
        if not isinstance(answers, list) or not answers:
            err(f"{where} ({qid}): answer_turn_ids must be a non-empty list")
            continue
        if len(set(answers)) != len(answers):
            err(f"{where} ({qid}): repeated answer_turn_id")
        if kind == "multi" and len(answers) < 2:
            err(f"{where} ({qid}): multi question needs 2+ answer turns")
        for a in answers:
            if a not in turn_owner:
                err(f"{where} ({qid}): answer turn {a!r} does not exist")
            elif turn_owner[a] != cid:
                err(f"{where} ({qid}): answer turn {a} belongs to {turn_owner[a]}, not {cid}")

    # ---- report ----
    print(f"conversations: {len(conv_ids)}")
    print(f"sessions:      {n_sessions}")
    print(f"turns:         {len(turn_owner)}")
    for cid in sorted(turns_per_conv):
        print(f"  {cid:<14} {turns_per_conv[cid]:>4} turns  {q_per_conv.get(cid, 0):>3} questions")
    print(f"questions:     {n_questions}")
    for k in KINDS:
        share = 100 * kinds[k] / n_questions if n_questions else 0
        print(f"  {k:<11} {kinds[k]:>4}  ({share:.0f}%)")

    if errors:
        print(f"\nFAILED with {len(errors)} error(s):", file=sys.stderr)
        for e in errors:
            print(f"  - {e}", file=sys.stderr)
        return 1
    print("\nOK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
