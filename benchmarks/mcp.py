"""What MCP costs (``docs/mcp.md``): ``search_memory`` through a real ``hearth mcp`` server
(a child process over stdio, driven by the SDK's own ``ClientSession``, as a user's MCP
client does) against the same recall through ``RecallService`` in process, on the same
10k-memory store; and the server's start-up to its first answer.

The store is a copy of the scale suite's cached 10k store (``benchmarks/scale.py``; the
cache itself is never changed). Its first 10k vectors are real embeddings of the first 10k
generated texts, so embedding just those texts gives the same store as the 100k list does.
Queries alternate between the two paths in blocks of ``BLOCK``, so the noise of a shared
machine falls on both alike; the ratio of the medians is the protocol's overhead (JSON-RPC
over pipes, the SDK's validation, the tool's audit row and result shaping).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.stats import percentiles

SIZE = 10_000
QUERIES = 100
WARM_UP = 5
BLOCK = 10
"""Queries run in blocks of this many, MCP then in process, alternating: per-query
alternation measured each side with the other process's ONNX threads still spinning from
its last inference (in process came out ×2 slower than over MCP)."""
AGENT = "benchmark"
LIMIT = 5
"""``search_memory``'s default number of results."""


def bench_mcp() -> list[dict[str, str]]:
    import anyio

    from benchmarks.recall import cached_document_vectors, memory_texts, query_texts
    from benchmarks.scale import _cached_store
    from core.config import Settings
    from core.embedding import OnnxEmbedder

    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    real = cached_document_vectors(memory_texts(SIZE), embedder)
    cached, _ = _cached_store(SIZE, real, embedder.model_id)
    questions = query_texts(WARM_UP + QUERIES)
    with tempfile.TemporaryDirectory(prefix="hearth-bench-mcp-") as scratch:
        home = Path(scratch) / "home"
        shutil.copytree(cached, home, ignore=shutil.ignore_patterns("*.lock", "made.json"))
        _grant(home, settings, embedder)
        measured = anyio.run(_measure, home, questions)
    rows = [{"benchmark": f"hearth mcp start-up to first search_memory answer "
                          f"({SIZE // 1000}k memories, stdio)",
             "value": f"{measured['started']:.2f} s"}]
    for key, label in (("search", f"search_memory ({SIZE // 1000}k, {QUERIES} queries): "
                                  "RecallService in process → over MCP (stdio)"),
                       ("round trip", "list_facts, no facts (the protocol's round trip): "
                                      "AgentTools in process → over MCP (stdio)")):
        mcp_ms, direct_ms = measured[key]
        (m50, m95), (d50, d95) = percentiles(mcp_ms), percentiles(direct_ms)
        rows.append({"benchmark": f"{label}, p50 / p95",
                     "value": f"{d50:.1f} / {d95:.1f} ms → {m50:.1f} / {m95:.1f} ms "
                              f"(×{m50 / d50:.2f} / ×{m95 / d95:.2f})"})
    return rows


def _grant(home: Path, settings: Any, embedder: Any) -> None:
    from core.app import Hearth
    from core.operations import agents

    with Hearth.open(home, settings=settings, embedder=embedder) as hearth:
        agents.grant(hearth, AGENT, "read")


async def _measure(home: Path, questions: Sequence[str]) -> dict[str, Any]:
    """Seconds from spawning the server to its first answer, and per figure the MCP and
    in-process milliseconds. The in-process side opens the folder as the server does (its
    own settings and embedder)."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from core.agents.tools import AgentTools
    from core.app import Hearth
    from core.recall import RecallQuery
    from core.storage.port import IndexedKind

    kinds = (IndexedKind.MEMORY, IndexedKind.NOTE)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "cli.main", "--home", str(home), "mcp",
                                      "--agent", AGENT], env=dict(os.environ))
    with open(home / "server.stderr", "w") as errlog, Hearth.open(home) as hearth:
        tools = AgentTools(hearth.agent_services(), AGENT)
        spawned = time.perf_counter()
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            await _call(session, "search_memory", {"query": questions[0], "limit": LIMIT})
            started = time.perf_counter() - spawned
            search = await _alternate(
                questions,
                lambda q: _call(session, "search_memory", {"query": q, "limit": LIMIT}),
                lambda q: hearth.recall.recall(RecallQuery(text=q, k=LIMIT, kinds=kinds)))
            round_trip = await _alternate(
                questions, lambda _q: _call(session, "list_facts", {}),
                lambda _q: tools.call("list_facts", {}))
    return {"started": started, "search": search, "round trip": round_trip}


async def _alternate(questions: Sequence[str], over_mcp: Callable[[str], Awaitable[object]],
                     in_process: Callable[[str], object]) -> tuple[list[float], list[float]]:
    """(MCP ms, in-process ms) of each question, in blocks of ``BLOCK`` per side; the first
    ``WARM_UP`` of each side left out."""
    mcp_ms: list[float] = []
    direct_ms: list[float] = []
    for start in range(0, len(questions), BLOCK):
        block = questions[start:start + BLOCK]
        for question in block:
            began = time.perf_counter()
            await over_mcp(question)
            mcp_ms.append((time.perf_counter() - began) * 1000)
        for question in block:
            began = time.perf_counter()
            in_process(question)
            direct_ms.append((time.perf_counter() - began) * 1000)
    return mcp_ms[WARM_UP:], direct_ms[WARM_UP:]


async def _call(session: Any, tool: str, arguments: dict[str, Any]) -> None:
    result = await session.call_tool(tool, arguments)
    if result.is_error or not result.structured_content:
        raise RuntimeError(f"{tool} failed over MCP: {result.content}")
