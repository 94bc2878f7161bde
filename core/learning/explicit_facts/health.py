"""Allergies and diet: "I'm allergic to peanuts", "I have a nut allergy", "I'm vegetarian",
"I don't eat pork"."""

from __future__ import annotations

import re

from core.learning.explicit_facts.engine import I_AM, Context, Found, rule
from core.learning.explicit_facts.values import clean

_NOT_FOOD = {"much", "a lot", "anything", "enough", "well", "properly", "out", "late",
             "after", "before", "here", "there", "right", "that", "this", "it", "them",
             "often", "regularly"}


@rule("allergic_to", I_AM + r"\s+(?:(?:very|severely|highly|really|quite|mildly|slightly|"
      r"also|deathly|seriously)\s+)?allergic\s+to\s+(?P<y>.+)")
def allergic_to(match: re.Match[str], context: Context) -> Found:
    value = clean(match["y"], {"anything", "nothing", "everything", "it", "that", "this"})
    return [("allergies", value, "health")] if value else []


@rule("allergic_to", r"i(?:\s+have|'ve\s+got|\s+have\s+got)\s+(?:an?\s+)?(?:(?:severe|mild|"
      r"bad|serious|slight)\s+)?(?P<y>[\w -]{2,40}?)\s+allerg(?:y|ies)")
def has_allergy(match: re.Match[str], context: Context) -> Found:
    value = clean(match["y"], {"no", "an", "some"})
    return [("allergies", value, "health")] if value else []


@rule("diet", I_AM + r"\s+(?:(?:a|an|now|strictly|fully|mostly|also)\s+)*"
      r"(?P<y>(?:vegetarian|vegan|pescatarian|pescetarian|gluten[- ]free|lactose[- ]intolerant|"
      r"dairy[- ]free|coeliac|celiac|halal|kosher)\b.*)")
def diet(match: re.Match[str], context: Context) -> Found:
    value = clean(match["y"], set())
    return [("dietary_restrictions", value, "health")] if value else []


@rule("doesnt_eat", r"i\s+(?:don't|do\s+not|can't|cannot|never)\s+eat\s+(?P<y>.+)")
def doesnt_eat(match: re.Match[str], context: Context) -> Found:
    value = clean(match["y"], _NOT_FOOD)
    return [("dietary_restrictions", f"no {value}", "health")] if value else []
