"""The system prompt: who Hearth is, how to use its memory, and what it knows for sure.

It must be **byte-identical from request to request while memory is unchanged**, so that
providers can keep it in their prompt cache (Ollama and llama.cpp reuse the evaluated prefix
of a prompt). So nothing here depends on the time, the user's message or the retrieval:
those go into the user turn. Facts, the profile and active habits are read in a fixed
order (categories in ``core.knowledge.facts.CATEGORIES`` order, keys alphabetical, habits by id).

Sections, in order:

1. identity (``resources/prompts/identity.md``);
2. memory instructions, with the order in which to look things up
   (``memory_tools.md`` when the model can call tools, else ``memory_plain.md``);
3. ``## What I know about you``: permanent facts grouped by category, shown as
   ``- key: value`` so the model can name the key in remember_fact / forget_fact;
4. ``## Your memory of this user (narrative)``: the newest profile, capped at
   ``settings.about_you_char_cap`` characters followed by a truncation notice;
5. the working memory and the schema-free scaffold the event processor maintains,
   the scaffold as JSON with sorted keys so it renders identically while unchanged;
6. ``## What I have learned about working with you``: active habits.

A person can have more facts than a small model's window holds: the whole prompt is kept
within ``max_tokens`` (the caller passes half the context window) by listing facts up to
that size and saying how many more exist (recall_facts finds them). Which ones are shown
is deterministic, so the prompt stays cacheable.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.llm.token_estimates import chars_for, estimate_tokens
from core.knowledge.facts import CATEGORIES
from core.llm.prompts import load_prompt
from core.storage.orm import (
    Habit,
    AboutYouVersion,
    NotesAboutYouVersion,
    UserFact,
    WorkingMemoryVersion,
)

FACTS_HEADER = ("## What I know about you\n"
                "Verified permanent facts — treat these as ground truth.")
ABOUT_YOU_HEADER = ("## Your memory of this user (narrative)\n"
                  "Let this shape your tone and priorities, not only your answers.")
HABITS_HEADER = "## What I have learned about working with you"
WORKING_MEMORY_HEADER = "## What is on the user's mind lately (working memory)"
NOTES_ABOUT_YOU_HEADER = "## Structured notes about the user (keys are my own)"
PERSONA_HEADER = ("## How the user asked me to answer\n"
                  "Follow this unless it conflicts with the rules above.")
WORKING_MEMORY_CHARS = 3500
NOTES_ABOUT_YOU_CHARS = 4000
ABOUT_YOU_TRUNCATED = "[...profile truncated for context]"


@dataclass(frozen=True)
class FactLine:
    id: int
    key: str
    value: str
    category: str


@dataclass(frozen=True)
class MemorySnapshot:
    """The parts of memory that go into the system prompt, read in one transaction."""

    facts: tuple[FactLine, ...]
    about_you_id: int | None
    about_you: str
    habits: tuple[tuple[int, str], ...]
    working_memory_id: int | None = None
    working_memory: str = ""
    notes_about_you_id: int | None = None
    notes_about_you: str = ""


@dataclass(frozen=True)
class SystemPrompt:
    """The prompt text, its hash (logged with each exchange) and what it contains."""

    text: str
    sha256: str
    tokens: int
    items: tuple[dict[str, Any], ...]


def read_snapshot(session: Session) -> MemorySnapshot:
    """Facts, the current profile and active habits (plain columns: cheap with 1,000s)."""
    order = {category: index for index, category in enumerate(CATEGORIES)}
    rows = session.execute(select(UserFact.id, UserFact.key, UserFact.value,
                                  UserFact.category)).all()
    facts = sorted((FactLine(*row) for row in rows),
                   key=lambda f: (order.get(f.category, len(order)), f.category, f.key))
    profile = session.execute(select(AboutYouVersion.id, AboutYouVersion.content).order_by(
        AboutYouVersion.created_at.desc(), AboutYouVersion.id.desc()).limit(1)).first()
    habits = session.execute(select(Habit.id, Habit.rule).where(
        Habit.status == "active").order_by(Habit.id)).all()
    working = session.execute(select(WorkingMemoryVersion.id, WorkingMemoryVersion.content)
                              .order_by(WorkingMemoryVersion.id.desc()).limit(1)).first()
    scaffold = session.execute(select(NotesAboutYouVersion.id, NotesAboutYouVersion.data)
                               .order_by(NotesAboutYouVersion.id.desc()).limit(1)).first()
    return MemorySnapshot(
        facts=tuple(facts),
        about_you_id=profile.id if profile else None,
        about_you=(profile.content.strip() if profile else ""),
        habits=tuple((row.id, row.rule.strip()) for row in habits if row.rule.strip()),
        working_memory_id=working.id if working else None,
        working_memory=(working.content.strip() if working else ""),
        notes_about_you_id=scaffold.id if scaffold and scaffold.data else None,
        # sorted keys: the same scaffold always renders the same bytes (prompt caching)
        notes_about_you=(json.dumps(scaffold.data, sort_keys=True, ensure_ascii=False)
                  if scaffold and scaffold.data else ""))


def one_line(text: str) -> str:
    """Whitespace collapsed: a stored value cannot start a new section of the prompt."""
    return " ".join(text.split())


def build_system_prompt(snapshot: MemorySnapshot, *, supports_tools: bool,
                        about_you_char_cap: int, max_tokens: int,
                        persona: str = "") -> SystemPrompt:
    """Render the system prompt for this memory snapshot (a pure function of its inputs);
    ``persona`` is the user's own instructions for how to answer (Settings)."""
    items: list[dict[str, Any]] = []
    head = [load_prompt("identity"), load_prompt("memory_tools" if supports_tools
                                                 else "memory_plain")]
    if persona.strip():
        head.append(f"{PERSONA_HEADER}\n{persona.strip()}")
    tail: list[str] = []
    if snapshot.about_you:
        profile, truncated = _capped_about_you(snapshot.about_you, about_you_char_cap)
        tail.append(f"{ABOUT_YOU_HEADER}\n{profile}")
        items.append({"type": "about_you", "id": snapshot.about_you_id, "score": None,
                      "tokens": estimate_tokens(profile), "truncated": truncated})
    for header, text, cap, kind, item_id in (
            (WORKING_MEMORY_HEADER, snapshot.working_memory, WORKING_MEMORY_CHARS,
             "working_memory", snapshot.working_memory_id),
            (NOTES_ABOUT_YOU_HEADER, snapshot.notes_about_you, NOTES_ABOUT_YOU_CHARS,
             "notes_about_you", snapshot.notes_about_you_id)):
        if text:
            shown = text if len(text) <= cap else text[:cap].rstrip() + " […]"
            tail.append(f"{header}\n{shown}")
            items.append({"type": kind, "id": item_id, "score": None,
                          "tokens": estimate_tokens(shown), "truncated": len(text) > cap})
    if snapshot.habits:
        lines = [f"- {one_line(rule)}" for _, rule in snapshot.habits]
        tail.append(HABITS_HEADER + "\n" + "\n".join(lines))
        items.extend({"type": "habit", "id": habit_id, "score": None,
                      "tokens": estimate_tokens(line)}
                     for (habit_id, _), line in zip(snapshot.habits, lines, strict=True))
    fixed_chars = len("\n\n".join([*head, *tail, ""])) + 1  # the facts' slot, final newline
    facts_section, fact_items = _facts_section(
        snapshot.facts, chars_for(max_tokens) - fixed_chars,
        hint=": search them with recall_facts" if supports_tools else "")
    sections = head + ([facts_section] if facts_section else []) + tail
    text = "\n\n".join(sections) + "\n"
    return SystemPrompt(text=text, sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        tokens=estimate_tokens(text), items=tuple(fact_items + items))


def _capped_about_you(profile: str, cap: int) -> tuple[str, bool]:
    """The profile's own headings one level down (its ``## Personal`` sits inside our
    ``##`` section), cut to ``cap`` characters with a notice."""
    profile = re.sub(r"^#", "##", profile, flags=re.MULTILINE)
    if len(profile) <= cap:
        return profile, False
    return profile[:cap].rstrip() + "\n" + ABOUT_YOU_TRUNCATED, True


def _facts_section(facts: tuple[FactLine, ...], room_chars: int,
                   hint: str) -> tuple[str, list[dict[str, Any]]]:
    """Facts grouped by category, as many as fit in ``room_chars``, then how many did not."""
    if not facts:
        return "", []
    entries: list[tuple[FactLine, list[str]]] = []
    category = None
    for fact in facts:
        heading = [] if fact.category == category else ["", f"*{fact.category.capitalize()}*"]
        entries.append((fact, [*heading, f"- {fact.key}: {one_line(fact.value)}"]))
        category = fact.category
    notice = f"\n[...{len(facts)} more facts not shown{hint}]"
    total = len(FACTS_HEADER) + sum(len(line) + 1 for _, lines in entries for line in lines)
    room = room_chars if total <= room_chars else room_chars - len(notice) - 1
    lines, used = [FACTS_HEADER], len(FACTS_HEADER)
    items: list[dict[str, Any]] = []
    for fact, fact_lines in entries:
        cost = sum(len(line) + 1 for line in fact_lines)
        if used + cost > room:
            lines.append(f"\n[...{len(facts) - len(items)} more facts not shown{hint}]")
            break
        lines.extend(fact_lines)
        used += cost
        items.append({"type": "fact", "id": fact.id, "key": fact.key, "score": None,
                      "tokens": estimate_tokens(fact_lines[-1])})
    return "\n".join(lines), items
