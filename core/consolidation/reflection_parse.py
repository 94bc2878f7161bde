"""Reading a reflection's answer: the four-marker format below, defensively.

The model is asked for::

    ---PROFILE---      markdown profile, six sections
    ---FACTS---        [{"key", "value", "category"}]
    ---INTENTIONS---   [{"text", "follow_up_days", "context"}]
    ---LEARNINGS---    [{"rule", "category"}]

Models break this in every way: chatter before and after, the format echoed back from the
prompt before the real answer, markers reordered, code fences, stringified arrays, bad
items, output cut off by ``max_tokens``. The rules, in order:

* **parsed from the end**: a marker may appear more than once (an echo of the
  instructions); the *last* occurrence of each marker counts, and a section runs from its
  marker to the next marker of any kind, so reordered sections still land in the right place;
* the JSON sections are repaired by ``core.llm.repair.repair_json(expect="array")`` and each
  item is validated on its own: a bad item is dropped and counted, the others are kept; a
  section that holds no JSON at all yields nothing and a warning;
* **no markers at all**: the whole output is taken as the profile (a fallback,
  with a warning), and no structured data is extracted;
* a profile (from either path) is only accepted when it *looks like one*: at least
  ``MIN_PROFILE_SECTIONS`` of the six section headings. Otherwise ``profile`` is ``None``
  and the current profile is kept: a weak model's garbage must never replace what Hearth
  knows about the user. (Enforcing the word cap is the engine's job, on accepted text.)
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError, field_validator

from core.knowledge.facts import CATEGORIES
from core.llm.repair import RepairFailed, repair_json
from core.knowledge.about_you import sections_present

log = logging.getLogger(__name__)

MARKERS: tuple[str, ...] = ("PROFILE", "FACTS", "INTENTIONS", "LEARNINGS")
MIN_PROFILE_SECTIONS = 2
MAX_FOLLOW_UP_DAYS = 365

_MARKER = re.compile(r"^[ \t>*_`#]*-{3,}\s*(?P<name>PROFILE|FACTS|INTENTIONS|LEARNINGS)\s*-{3,}"
                     r"[ \t*_`]*$", re.IGNORECASE | re.MULTILINE)
_FENCE = re.compile(r"^\s*```[\w-]*\s*\n?(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)


class ReflectionFact(BaseModel):
    key: str = Field(min_length=1, max_length=200)
    value: str = Field(min_length=1, max_length=1000)
    category: str = "general"

    @field_validator("key", "value", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        """Numbers are facts too (``"age": 42``); surrounding spaces are not content."""
        return str(value).strip() if isinstance(value, (str, int, float)) else value

    @field_validator("category", mode="before")
    @classmethod
    def _category(cls, value: Any) -> str:
        """An unknown category files the fact under general rather than losing it."""
        text = str(value).strip().lower() if value is not None else ""
        return text if text in CATEGORIES else "general"


class ReflectionFollowUp(BaseModel):
    text: str = Field(min_length=1, max_length=300)
    follow_up_days: int = Field(default=3, ge=0, le=MAX_FOLLOW_UP_DAYS)
    context: str = Field(default="", max_length=1000)

    @field_validator("text", "context", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value


class ReflectionHabit(BaseModel):
    rule: str = Field(min_length=1, max_length=200)
    category: str = Field(default="general", max_length=32)

    @field_validator("rule", "category", mode="before")
    @classmethod
    def _strip(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value


Item = TypeVar("Item", bound=BaseModel)


@dataclass
class ParsedReflection:
    """What could be read. ``profile`` is ``None`` when the current one must be kept."""

    profile: str | None
    facts: list[ReflectionFact] = field(default_factory=list)
    follow_ups: list[ReflectionFollowUp] = field(default_factory=list)
    habits: list[ReflectionHabit] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    markers_found: bool = True


def split_sections(text: str) -> dict[str, str]:
    """Marker name → its section's text, using each marker's last occurrence."""
    matches = list(_MARKER.finditer(text))
    last: dict[str, re.Match[str]] = {}
    for match in matches:
        last[match.group("name").upper()] = match
    sections: dict[str, str] = {}
    for name, match in last.items():
        following = [m.start() for m in matches if m.start() > match.start()]
        sections[name] = text[match.end():min(following, default=len(text))].strip()
    return sections


def strip_fence(text: str) -> str:
    """The inside of a code fence wrapping the whole text, else the text."""
    match = _FENCE.match(text.strip())
    return match.group("body").strip() if match else text.strip()


def parse_reflection(raw: str) -> ParsedReflection:
    """Read a reflection's output; never raises (see the module docstring for the rules)."""
    sections = split_sections(raw)
    if not sections:
        parsed = ParsedReflection(profile=None, markers_found=False)
        parsed.warnings.append("the answer has none of the ---SECTION--- markers; "
                               "it was read as a profile only")
        log.warning("reflection output without markers: reading it as a profile only")
        parsed.profile = _accept_profile(raw, parsed.warnings)
        return parsed
    parsed = ParsedReflection(profile=None)
    if "PROFILE" in sections:
        parsed.profile = _accept_profile(sections["PROFILE"], parsed.warnings)
    else:
        parsed.warnings.append("the answer has no ---PROFILE--- section; profile kept")
    parsed.facts = _items(sections, "FACTS", ReflectionFact, parsed)
    parsed.follow_ups = _items(sections, "INTENTIONS", ReflectionFollowUp, parsed)
    parsed.habits = _items(sections, "LEARNINGS", ReflectionHabit, parsed)
    return parsed


def _accept_profile(text: str, warnings: list[str]) -> str | None:
    text = strip_fence(text)
    found = sections_present(text)
    if len(found) < MIN_PROFILE_SECTIONS:
        warnings.append(f"the profile has {len(found)} of the six section headings "
                        f"(at least {MIN_PROFILE_SECTIONS} needed); the current profile is kept")
        return None
    return text


ITEM_KINDS = {"FACTS": "facts", "INTENTIONS": "follow_ups", "LEARNINGS": "habits"}
"""The prompt's section names (the model's words, unchanged so its answers read the same)
and what Hearth calls their items."""


def _items(sections: dict[str, str], name: str, model: type[Item],
           parsed: ParsedReflection) -> list[Item]:
    """The valid items of one JSON section; bad ones are dropped and counted."""
    body = strip_fence(sections.get(name, ""))
    if not body:
        return []
    try:
        data = repair_json(body, expect="array")
    except RepairFailed as exc:
        parsed.warnings.append(f"{name} holds no readable JSON array ({exc.reason})")
        return []
    if not isinstance(data, list):
        parsed.warnings.append(f"{name} is not a JSON array")
        return []
    items: list[Item] = []
    for item in data:
        try:
            items.append(model.model_validate(item))
        except ValidationError:
            kind = ITEM_KINDS[name]
            parsed.dropped[kind] = parsed.dropped.get(kind, 0) + 1
    return items
