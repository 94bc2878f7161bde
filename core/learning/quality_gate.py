"""The quality gate: model output that summarises or replaces memory must earn its place.

Why: a misbehaving model gave the dream fifty one-letter summaries ("Combined 8 memories
into one summary: 'x'"), each demoting its originals. Schemas bound the shape of an
answer, not whether it says anything about what it summarises. So a merge summary, a
distilled sentence and a chat summary pass three checks before they are written:

* **length**: at least ``MIN_WORDS`` words and ``MIN_CHARS`` characters (the bound above
  is each schema's own);
* **no template holes**: ``[event_date]``, ``{name}``, ``<insert date>`` (``TEMPLATE_HOLE``);
* **grounded in its originals by embedding coverage**: with the real embedder, the text's
  cosine with each original; an original is covered at ``COVERED`` or more, and at least
  ``share`` of the originals (and at least one) must be. A merge summary must cover half its
  cluster; a distilled sentence or a chat summary, which sum up one part of a chat, one
  exchange of it.

Measured with bge-small (documents on both sides): summaries that say what their
originals say scored 0.74-0.86 against most of them; a generic "The user talked about
some things" at most 0.64, an unrelated sentence at most 0.64, "x" at most 0.56; a summary
naming only one of four originals covered one of them (it scored 0.87 with that one and
0.66-0.69 with the rest). ``COVERED`` sits at 0.70, between the two groups;
``tests/core/learning/test_quality_gate.py`` holds these cases.

A rejected output is logged (kind of output, the ids it would have summarised, the reason:
never its text) and nothing is written; what it summarised stays as it was.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.embedding.protocol import Embedder

log = logging.getLogger(__name__)

MIN_WORDS = 3
MIN_CHARS = 12
COVERED = 0.70
"""Cosine from which an original counts as covered (see the module docstring)."""
TEMPLATE_HOLE = re.compile(
    r"\[[A-Za-z][\w .'/-]{0,40}\](?!\()|\{\{?\s*\w[\w .]{0,40}\}\}?"
    r"|<\s*(?:insert|your|name|date|time|event)[^>]{0,40}>", re.IGNORECASE)
"""A placeholder a model left unfilled; a Markdown link ``[text](url)`` is not one."""


@dataclass(frozen=True)
class Verdict:
    """Whether the text may be written, and if not, why (a reason without its text)."""

    passed: bool
    reason: str = ""


def check(embedder: Embedder, text: str, originals: Sequence[str], *,
          share: float) -> Verdict:
    """The gate for ``text`` summarising ``originals`` (see the module docstring)."""
    words = text.split()
    if len(words) < MIN_WORDS or len(text.strip()) < MIN_CHARS:
        return Verdict(False, f"too short ({len(words)} words)")
    if TEMPLATE_HOLE.search(text):
        return Verdict(False, "a template hole")
    shown = [original for original in originals if original.strip()]
    if not shown:
        return Verdict(True)
    vectors = np.asarray(embedder.embed_documents([text, *shown]), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    covered = int((vectors[1:] @ vectors[0] >= COVERED).sum())
    needed = max(1, math.ceil(share * len(shown)))
    if covered < needed:
        return Verdict(False, f"not grounded in its originals (covers {covered} of "
                              f"{len(shown)}, needs {needed})")
    return Verdict(True)


def rejected(kind: str, ids: Sequence[int | str], verdict: Verdict) -> None:
    """Log a rejection: the kind of output, what it was about (ids) and why."""
    log.warning("a %s for %s was rejected by the quality gate: %s; nothing was written",
                kind, list(ids), verdict.reason)
