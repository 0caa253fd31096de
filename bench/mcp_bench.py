"""`refind mcp` on a large archive: time from spawning the server to its first search_chat answer, and the
latency of search_chat calls over one connection, beside `refind search --json` in a fresh process and the
library's own search in this process, for the same queries (those of bench/search_bench.py).

Every MCP figure is measured at the client (the SDK's stdio client): protocol, JSON, and the client's check
of each result against the tool's output schema included. Run bench/search_bench.py with the same
``--workdir`` first: it builds the 1M-turn archive there (or reuses it).

Usage: python bench/mcp_bench.py [--workdir /tmp/refind-bench-work] [--queries 200] [--starts 7] [--seed 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import anyio
import numpy as np
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_bench import percentiles, sample_queries

from refind_cli.archive import Archive
from refind_cli.facade import Home
from refind_cli.request import SearchRequest


def server(home: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "refind_cli", "--home", str(home), "mcp"]
    )


async def first_answer(home: Path, query: str) -> float:
    """Seconds from spawning the server to the first search_chat result."""
    t0 = time.perf_counter()
    async with stdio_client(server(home)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("search_chat", {"keywords": query})
        seconds = time.perf_counter() - t0
    assert not result.is_error, result.content
    return seconds


async def per_call(home: Path, queries: list[str]) -> dict[str, list[float]]:
    """Milliseconds of each search_chat call over one connection, interleaved query by query with the
    library's search in this process, so that both see the same machine load: search_chat with
    include_seen (the plain search), ``Home.search`` (no MCP), then search_chat excluding the sessions
    this connection was shown (up to 5 more each call)."""
    ms: dict[str, list[float]] = {"mcp": [], "library": [], "mcp seen": []}
    async with stdio_client(server(home)) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        with Home(home) as lib:
            for q in queries[:20]:  # page the index in, on both sides
                await session.call_tool("search_chat", {"keywords": q, "include_seen": True})
                lib.search(SearchRequest(q))
            for q in queries:
                for what in ms:
                    t0 = time.perf_counter()
                    if what == "library":
                        lib.search(SearchRequest(q))
                    else:
                        arguments = {"keywords": q, "include_seen": what == "mcp"}
                        result = await session.call_tool("search_chat", arguments)
                        assert not result.is_error, result.content
                    ms[what].append((time.perf_counter() - t0) * 1000)
    return ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/refind-bench-work"))
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--starts", type=int, default=7, help="server starts timed")
    ap.add_argument("--seed", type=int, default=7, help="as given to search_bench.py (the same queries)")
    args = ap.parse_args()
    home = args.workdir / "home"
    if not (home / "archive.db").exists():
        sys.exit(f"no archive in {home}: run bench/search_bench.py --workdir {args.workdir} first")

    with Archive.open(home, readonly=True) as arch:
        queries = sample_queries(arch, args.queries, np.random.default_rng(args.seed + 1))
        turns = arch.counts()["turns"]
    print(f"{turns:,} turns, {len(queries)} queries of 2-5 words (bench/search_bench.py's)\n", flush=True)

    starts = [anyio.run(first_answer, home, q) for q in queries[: args.starts]]
    cold = []
    for q in queries[: args.starts]:
        t0 = time.perf_counter()
        p = subprocess.run(
            [sys.executable, "-m", "refind_cli", "--home", str(home), "search", q, "--json"],
            capture_output=True,
            text=True,
        )
        cold.append(time.perf_counter() - t0)
        assert p.returncode in (0, 1), p.stderr
    print(
        f"spawn `refind mcp` -> first search_chat answer: median {statistics.median(starts):.2f} s, "
        f"max {max(starts):.2f} s over {len(starts)} starts\n"
        f"`refind search --json` in a fresh process:       median {statistics.median(cold):.2f} s, "
        f"max {max(cold):.2f} s over {len(cold)} runs\n",
        flush=True,
    )

    ms = anyio.run(per_call, home, queries)
    print("per call, ms p50 / p95:")
    print(f"  search_chat over MCP, include_seen=true          {percentiles(ms['mcp'])}")
    print(f"  Home.search in this process (no MCP)             {percentiles(ms['library'])}")
    print(
        f"  search_chat over MCP, seen sessions excluded     {percentiles(ms['mcp seen'])}  (up to {5 * len(queries)})"
    )


if __name__ == "__main__":
    main()
