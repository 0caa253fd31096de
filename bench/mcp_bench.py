"""`refind mcp` on a large archive: time from spawning the server to its first search_chat answer, and the
latency of search_chat calls over one connection, beside `refind search --json` in a fresh process and the
library's own search in this process, for the same queries (those of bench/search_bench.py).

Every MCP figure is measured at the client (the SDK's stdio client): protocol, JSON, and the client's check
of each result against the tool's output schema included. Run bench/search_bench.py with the same
``--workdir`` first: it builds the 1M-turn archive there (or reuses it).

``--baseline DIR`` also runs the server of another checkout (say ``git archive main | tar -x -C DIR``) on
the same archive, its calls interleaved with this checkout's query by query and its starts with this one's,
so that a before/after comparison sees the same machine load on a shared machine. The load average is
printed at the start and the end. The per-call figures come in rounds, each on a fresh server: on the 2
shared cores one round's p50 can sit a millisecond or two from the next, so the median of the rounds is the
figure, with the range of their p50s beside it.

Usage: python bench/mcp_bench.py [--workdir /tmp/refind-bench-work] [--queries 200] [--starts 7] [--seed 7]
                                 [--rounds 5] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
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

from search_bench import sample_queries

from refind_cli.facade import Home
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive


def server(home: Path, checkout: Path | None = None) -> StdioServerParameters:
    """`refind mcp` of this checkout, or of ``checkout`` (its package first on the path, in its folder)."""
    args = ["-m", "refind_cli", "--home", str(home), "mcp"]
    if checkout is None:
        return StdioServerParameters(command=sys.executable, args=args)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    return StdioServerParameters(command=sys.executable, args=args, cwd=checkout, env=env)


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


async def first_answer(params: StdioServerParameters, query: str) -> float:
    """Seconds from spawning the server to the first search_chat result."""
    t0 = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("search_chat", {"keywords": query})
        seconds = time.perf_counter() - t0
    assert not result.is_error, result.content
    return seconds


async def per_call(home: Path, queries: list[str], baseline: Path | None) -> dict[str, list[float]]:
    """Milliseconds of each search_chat call over one connection (a fresh server), interleaved query by query
    with the library's search in this process, so that all see the same machine load: search_chat with
    include_seen (the plain search), ``Home.search`` (no MCP), then search_chat excluding the sessions this
    connection was shown (up to 5 more each call); with a baseline, its two calls after each of ours."""
    checkouts = {"": None} | ({"baseline ": baseline} if baseline is not None else {})
    ms: dict[str, list[float]] = {f"{name}{what}": [] for what in ("mcp", "mcp seen") for name in checkouts}
    ms["library"] = []
    async with contextlib.AsyncExitStack() as stack:
        sessions = {}
        for name, checkout in checkouts.items():
            read, write = await stack.enter_async_context(stdio_client(server(home, checkout)))
            sessions[name] = await stack.enter_async_context(ClientSession(read, write))
            await sessions[name].initialize()
        lib = stack.enter_context(Home(home))
        for q in queries[:20]:  # page the index in, on every side
            for session in sessions.values():
                await session.call_tool("search_chat", {"keywords": q, "include_seen": True})
            lib.search(SearchRequest(q))
        order = [(name, "mcp") for name in sessions] + [("", "library")]
        order += [(name, "mcp seen") for name in sessions]
        for q in queries:
            for name, what in order:
                t0 = time.perf_counter()
                if what == "library":
                    lib.search(SearchRequest(q))
                else:
                    arguments = {"keywords": q, "include_seen": what == "mcp"}
                    result = await sessions[name].call_tool("search_chat", arguments)
                    assert not result.is_error, result.content
                ms[name + what].append((time.perf_counter() - t0) * 1000)
    return ms


def rounds_figure(rounds: list[list[float]]) -> str:
    """p50 / p95 over several rounds: the median of the rounds' figures, and the range of their p50s."""
    p50s = [statistics.median(r) for r in rounds]
    p95s = [statistics.quantiles(r, n=100, method="inclusive")[94] for r in rounds]
    spread = f"  (p50s {min(p50s):.2f}-{max(p50s):.2f})" if len(rounds) > 1 else ""
    return f"{statistics.median(p50s):7.2f} / {statistics.median(p95s):7.2f}{spread}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/refind-bench-work"))
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--starts", type=int, default=7, help="server starts timed")
    ap.add_argument("--seed", type=int, default=7, help="as given to search_bench.py (the same queries)")
    ap.add_argument("--baseline", type=Path, help="another checkout whose server runs beside this one's")
    ap.add_argument("--rounds", type=int, default=5, help="per-call rounds, each on a fresh connection")
    args = ap.parse_args()
    home = args.workdir / "home"
    if not (home / "archive.db").exists():
        sys.exit(f"no archive in {home}: run bench/search_bench.py --workdir {args.workdir} first")
    baseline = args.baseline.resolve() if args.baseline else None

    with Archive.open(home, readonly=True) as arch:
        queries = sample_queries(arch, args.queries, np.random.default_rng(args.seed + 1))
        turns = arch.counts()["turns"]
    print(
        f"{turns:,} turns, {len(queries)} queries of 2-5 words (bench/search_bench.py's); {load()}\n",
        flush=True,
    )

    starts: dict[str, list[float]] = {"": [], "baseline ": []}
    for q in queries[: args.starts]:
        starts[""].append(anyio.run(first_answer, server(home), q))
        if baseline is not None:
            starts["baseline "].append(anyio.run(first_answer, server(home, baseline), q))
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
    for name, seconds in starts.items():
        if seconds:
            print(
                f"{name}spawn `refind mcp` -> first search_chat answer: median {statistics.median(seconds):.2f} s, "
                f"max {max(seconds):.2f} s over {len(seconds)} starts"
            )
    print(
        f"`refind search --json` in a fresh process:       median {statistics.median(cold):.2f} s, "
        f"max {max(cold):.2f} s over {len(cold)} runs\n",
        flush=True,
    )

    runs = [anyio.run(per_call, home, queries, baseline) for _ in range(args.rounds)]
    print(
        f"per call, ms p50 / p95 ({args.rounds} rounds, each a fresh connection; the median of the rounds):"
    )
    names = ("", "baseline ") if baseline is not None else ("",)
    rows = [(f"{name}search_chat over MCP, include_seen=true", name + "mcp", "") for name in names]
    rows.append(("Home.search in this process (no MCP)", "library", ""))
    rows += [
        (f"{name}search_chat over MCP, seen excluded", name + "mcp seen", f"  (up to {5 * len(queries)})")
        for name in names
    ]
    for label, key, note in rows:
        print(f"  {label:<50} {rounds_figure([run[key] for run in runs])}{note}")
    if baseline is not None:
        # Each query's two calls ran back to back: their difference is the change, with far less of the
        # machine's noise than the difference of two medians.
        for what in ("mcp", "mcp seen"):
            paired = [a - b for run in runs for a, b in zip(run[what], run["baseline " + what], strict=True)]
            print(f"  this - baseline, {what}, per query: median {statistics.median(paired):+.2f} ms")
    print(load())


if __name__ == "__main__":
    main()
