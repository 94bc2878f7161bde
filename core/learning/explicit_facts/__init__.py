"""Explicit facts, caught by rules: what the user states outright is stored without any LLM.

The embedded model is too weak to trust with "remember that my locker code is 4471", and
the user expects that sentence to be kept, on any machine, every time. So a small table of
readable rules runs on every user message before the LLM extraction, and what they find is
stored with the user's own authority (highest priority). English only.

``reading`` reads a message into clauses and tries each against ``rules.RULES``, in order;
``engine`` is what a rule is and what it finds, ``values`` how a value is cut out of a
clause, and each family of rules is a module of its own (``places``, ``identity``,
``health``, ``preferences``, ``work``, ``people``, ``statements``, ``corrections``). How a
message is read, what the rules know and what they refuse on purpose: ``docs/learning.md``,
"The explicit-fact rules"."""

from core.learning.explicit_facts.engine import ATTRIBUTE_WORDS, ExplicitFact, category_for_key
from core.learning.explicit_facts.reading import (
    MAX_CLAUSE_CHARS,
    MAX_MESSAGE_CHARS,
    extract_explicit_facts,
)
from core.learning.explicit_facts.values import MAX_VALUE_CHARS

__all__ = [
    "ATTRIBUTE_WORDS",
    "MAX_CLAUSE_CHARS",
    "MAX_MESSAGE_CHARS",
    "MAX_VALUE_CHARS",
    "ExplicitFact",
    "category_for_key",
    "extract_explicit_facts",
]
