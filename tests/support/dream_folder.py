"""A data folder prepared so that one real dream changes something of every kind a user
reviews: old paraphrases about marathon training to merge, a greeting for triage to set
aside, a conversation from today for the reflection, which rewrites one profile section.

The model is scripted (``dreaming_model``, module-level so a dream's child process can
unpickle it); everything else (decay, clustering, links, the run records) is the real
dream cycle.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from core.app import Hearth
from core.llm.token_estimates import clip
from core.knowledge.memories import MemorySpec
from core.storage.orm import Interaction, utcnow
from support.scripted_llm import ScriptedLLM

MARATHON = ["I am training for the Porto marathon in May.",
            "Training for the May marathon in Porto takes most of my weekends.",
            "My marathon training for Porto in May is going well."]
OTHERS = ["The quarterly report is due on Friday.", "Liam is allergic to peanuts.",
          "Fixed the backup script by deleting the lock file."]
GREETING = "Hello there!"
SUMMARY = "The user is training for the Porto marathon in May, mostly on weekends."
MERGE_START = f"Combined 3 memories about marathon training into one summary: “{SUMMARY}”"
"""How the changelog's merge line starts; it goes on to name the memories combined."""


def merge_line(ids: list[int]) -> str:
    """The whole merge line for the marathon memories ``ids`` (in ``MARATHON``'s order):
    each original's id and the first 40 characters of its text."""
    named = ", ".join(f"#{memory_id} “{clip(text, 40)}”"
                      for memory_id, text in zip(ids, MARATHON, strict=True))
    return f"{MERGE_START}, from {named}"

PROFILE_BEFORE = """## Personal
Ana is a nurse who lives by the sea.
## Goals & Values
Wants to learn the piano.
## Notes
Likes tea."""
PROFILE_AFTER = PROFILE_BEFORE.replace("Wants to learn the piano.",
                                       "Wants to run the Porto marathon in May.")
REFLECTION = f"---PROFILE---\n{PROFILE_AFTER}\n\n---FACTS---\n[]\n\n---INTENTIONS---\n[]\n\n" \
             "---LEARNINGS---\n[]\n"


def prepare(hearth: Hearth) -> dict[str, Any]:
    """Fill ``hearth``; returns the ids of the memories a dream should change."""
    old = utcnow() - timedelta(days=400)  # stale after decay: merge takes them
    marathon = hearth.memories.add_many([
        MemorySpec(text, source="import", category="health", created_at=old,
                   entities={"people": [], "places": ["Porto"],
                             "topics": ["marathon training"]})
        for text in MARATHON])
    others = hearth.memories.add_many([MemorySpec(text, source="import") for text in OTHERS])
    greeting = hearth.memories.add(GREETING, source="conversation")
    hearth.about_you.save(PROFILE_BEFORE, "user")
    with hearth.storage.write() as session:
        session.add(Interaction(user_message="I signed up for the Porto marathon!",
                                agent_response="Great news.",
                                created_at=utcnow() - timedelta(hours=1)))
    return {"marathon": list(marathon), "others": list(others),
            "greeting": greeting.id}


def answer(kind: str, _messages: Any, extra: dict[str, Any]) -> str:
    if kind == "chat":
        return REFLECTION
    if "summary" in extra["schema"].get("properties", {}):
        return json.dumps({"summary": SUMMARY})
    return "no answer for this step"  # enrich: left for the next night, as a weak model does


def dreaming_model() -> ScriptedLLM:
    return ScriptedLLM(answer)
