"""What the user prefers, likes or dislikes. "I prefer window seats" always counts; "I love
jazz" only inside "remember that", because "I love that!" is a reaction, not a fact."""

from __future__ import annotations

import re

from core.learning.explicit_facts.engine import Context, Found, rule
from core.learning.explicit_facts.values import NOT_A_VALUE, clean, key_of, words_of

@rule("prefers", r"i\s+(?:(?:really|much|generally|usually|always)\s+)?"
      r"(?P<verb>prefer|like|love|enjoy|hate|dislike|can't\s+stand)\s+(?P<y>.+)")
def prefers(match: re.Match[str], context: Context) -> Found:
    verb = match["verb"].lower()
    if verb != "prefer" and not context.explicit:
        return []   # "I love that!" is a reaction; "remember that I love jazz" is a fact
    value = clean(match["y"], NOT_A_VALUE | {"you", "your", "when", "the way"})
    if value is None:
        return []
    prefix = {"prefer": "prefers", "like": "likes", "love": "likes", "enjoy": "likes"}.get(
        verb, "dislikes")
    return [(key_of(prefix, *words_of(value)[:4]), value, "preference")]
