"""Recall's signals (``RecallResult.signals``) in words, for the memory list and its detail
pane: the list shows a short line per result, the pane one line per signal.

Why words rather than the raw dict: "its words · its meaning" (and, behind Details, the ranks
and scores) tells a person why a memory came up; ``{"text": {"rank": 1, ...}}`` does not.
"""

from __future__ import annotations

from typing import Any

Signals = dict[str, dict[str, Any]]


def _words(entry: dict[str, Any]) -> str:
    return f"words #{entry['rank']} (BM25 {entry['score']:.2f})"


def _meaning(entry: dict[str, Any]) -> str:
    part = f", passage {entry['window'] + 1}" if "window" in entry else ""
    return f"meaning #{entry['rank']} (similarity {entry['similarity']:.2f}{part})"


def _graph(entry: dict[str, Any]) -> str:
    return f"linked from #{entry['from']} ({entry['kind']} edge, weight {entry['weight']:.2f})"


WAYS = (("text", "its words"), ("vector", "its meaning"), ("context", "the turn next to it"),
        ("summary", "its summary"), ("graph", "a linked memory"),
        ("metadata", "your question's date or kind"))
"""How a search can find a memory, in words, in the order recall tries them."""


def ways_found(signals: Signals) -> list[str]:
    """The ways a search found a memory, without scores or ranks (those are in
    ``describe_signals``, behind the detail pane's Details)."""
    return [word for key, word in WAYS if key in signals]


def summarise(signals: Signals) -> str:
    """One short line for a table cell: how the memory was found, in words ("its words ·
    its meaning, passage 2")."""
    ways = ways_found(signals)
    vector = signals.get("vector", {})
    if "window" in vector:
        ways[ways.index("its meaning")] += f", passage {vector['window'] + 1}"
    return " · ".join(ways)


def describe_signals(signals: Signals) -> list[str]:
    """Every signal and scoring step, one line each, in the order recall applies them."""
    lines = []
    if "text" in signals:
        lines.append("Found by its words: " + _words(signals["text"]))
    if "vector" in signals:
        lines.append("Found by its meaning: " + _meaning(signals["vector"]))
    if "context" in signals:
        lines.append(f"Next to a matching turn: +{signals['context']['gain']:.2f}")
    if "summary" in signals:
        summary = signals["summary"]
        lines.append(f"Its summary #{summary['id']} matched: +{summary['gain']:.2f}")
    if "cues" in signals:
        named = {"speaker": "said by the person asked about", "date": "near the date asked",
                 "time_words": "says when"}
        lines.append("Question cues: " + ", ".join(
            f"{named.get(cue, cue)} +{boost:.2f}" for cue, boost in signals["cues"].items()))
    if "fusion" in signals:
        lines.append(f"Relevance: {signals['fusion']['relevance']:.2f} of 1")
    if "recency" in signals:
        recency = signals["recency"]
        lines.append(f"Recency: {recency['age_days']:.1f} days old, "
                     f"boost +{recency['boost']:.3f}")
    if "strength" in signals:
        strength = signals["strength"]
        lines.append(f"Strength {strength['strength']:.2f}: score × {strength['factor']:.2f}")
    if "tier" in signals and signals["tier"]["factor"] != 1.0:
        tier = signals["tier"]
        lines.append(f"Kept under a summary ({tier['tier']}): score × {tier['factor']:.2f}")
    if "diversity" in signals:
        spread = signals["diversity"]
        lines.append(f"Similar to {spread['like']['kind']} #{spread['like']['id']} above "
                     f"it (similarity {spread['cosine']:.2f}): −{spread['penalty']:.2f}, so "
                     f"different matches come first")
    if "graph" in signals:
        lines.append("Added from the graph: " + _graph(signals["graph"]))
    if "metadata" in signals:
        asked = signals["metadata"]
        lines.append(f"Added because the question names a {asked['kind']} "
                     f"(\"{asked['phrase']}\")")
    return lines
