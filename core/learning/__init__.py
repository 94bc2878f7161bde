"""Learning from the conversation: what a user says becomes facts and memories, in the
background, without ever blocking or breaking the reply.

This package holds the steps that need no language model (the exclusion gate, which runs
before any write, and the explicit-fact rules); the LLM-driven steps plug in beside them.
"""

from core.learning.exclusions import ExclusionGate
from core.learning.explicit_facts import ExplicitFact, category_for_key, extract_explicit_facts

__all__ = ["ExclusionGate", "ExplicitFact", "category_for_key", "extract_explicit_facts"]
