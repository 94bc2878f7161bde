"""The dream cycle's stages, in the order they run: a module of its own so that
``hearth dream --help`` can name them without importing the cycle and the engine."""

from __future__ import annotations

STAGES = ("process", "triage", "distil", "enrich", "decay", "merge", "link", "rem",
          "reflect", "summaries")
