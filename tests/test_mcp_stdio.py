"""The stdio wire of `refind mcp` (``mcp_stdio``), below the protocol: lines of any size, the last without its
newline, stray output kept off the protocol, files and pipes, every request answered before stdin ends, a
client gone.
The protocol over this wire is tested in test_mcp.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.frontends.mcp.stdio import Lines, Writer
from refind_cli.storage.archive import Archive

INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}

ECHO = """
import os, sys, anyio
from refind_cli.frontends.mcp import stdio as mcp_stdio

async def main():
    with mcp_stdio.wire(lambda: print("written", file=sys.stderr)) as wire:
        lines, out = wire
        print("stray print")
        os.write(1, b"stray write\\n")
        async for line in lines:
            await out.write(line.upper())
            await out.write("|")
            await out.flush()
    print("after")

anyio.run(main)
"""


def echo(stdin: int | None, data: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", ECHO],
        input=data if stdin is None else None,
        stdin=stdin,
        capture_output=True,
        timeout=60,
    )


def test_lines_of_any_size_come_through_whole_and_only_they_reach_stdout() -> None:
    big = "é" * 100_000  # 200 KB: many reads, and a multi-byte character across their edges
    p = echo(None, f"one\n{big}\n\nlast without newline".encode())
    assert p.returncode == 0, p.stderr
    assert p.stdout.decode() == f"ONE\n|{big.upper()}\n|\n|LAST WITHOUT NEWLINE|after\n"
    # Stray output went to stderr while serving; stdout came back afterwards.
    assert p.stderr.decode().splitlines() == ["stray print", "stray write"] + ["written"] * 4


def test_undecodable_bytes_are_replaced_as_the_sdk_reads_them() -> None:
    p = echo(None, b"caf\xe9\n")
    assert p.stdout.decode() == "CAF\ufffd\n|after\n"


@settings(max_examples=60, deadline=None)
@given(
    # Newlines often, multi-byte characters, their pieces alone, bytes that are never UTF-8.
    data=st.lists(
        st.sampled_from([b"\n", b"a", b"\r", "\u00e9".encode(), b"\xc3", b"\xa9", b"\xff"]), max_size=400
    ).map(b"".join)
    | st.binary(max_size=3000),
    cuts=st.lists(st.integers(1, 50), max_size=30),
)
def test_lines_are_the_decoded_input_however_it_arrives(data: bytes, cuts: list[int]) -> None:
    """Whatever the pieces the pipe delivers, the lines are the input decoded as the SDK decodes it, split
    after every newline."""
    read, write = os.pipe()

    async def main() -> list[str]:
        async def feed() -> None:
            rest = data
            for cut in cuts:
                os.write(write, rest[:cut])
                rest = rest[cut:]
                await anyio.sleep(0)
            os.write(write, rest)
            os.close(write)

        got: list[str] = []
        async with anyio.create_task_group() as tg:
            tg.start_soon(feed)
            async for line in Lines(read, poll=True):
                got.append(line)
        return got

    try:
        lines = anyio.run(main)
    finally:
        os.close(read)
    assert "".join(lines) == data.decode("utf-8", "replace")
    assert all(line.endswith("\n") for line in lines[:-1]) and "" not in lines
    assert all("\n" not in line[:-1] for line in lines)  # split at every newline, not past one


def test_a_file_or_nothing_on_stdin_is_read_as_it_is(tmp_path: Path) -> None:
    """epoll refuses files and the null device, which never make a reader wait: they are read without it."""
    requests = tmp_path / "requests.jsonl"
    requests.write_text("x\ny")
    with open(requests, "rb") as f:
        assert echo(f.fileno()).stdout == b"X\n|Y|after\n"
    assert echo(subprocess.DEVNULL).stdout == b"after\n"


def test_a_client_gone_is_a_closed_stream() -> None:
    read, write = os.pipe()
    os.close(read)
    out = Writer(write, lambda: pytest.fail("nothing was written"))

    async def send() -> None:
        await out.write("{}\n")
        await out.flush()

    try:
        with pytest.raises(anyio.ClosedResourceError):
            anyio.run(send)
    finally:
        os.close(write)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty archive for `refind mcp` to serve."""
    home = tmp_path / "home"
    Archive.open(home).close()
    return home


@pytest.mark.parametrize("stdin", ["file", "pipe"])
def test_refind_mcp_answers_every_request_read_before_stdin_ends(
    home: Path, tmp_path: Path, stdin: str
) -> None:
    """`refind mcp < requests.jsonl`, or a client that writes its requests and closes: the SDK's transport
    left the last ones unanswered (it cancels requests in progress when stdin ends)."""
    search = {"name": "search_chat", "arguments": {"keywords": "dentist"}}
    requests = "".join(
        json.dumps(r) + "\n"
        for r in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": search},
            {"jsonrpc": "2.0", "id": 3, "method": "ping"},
            {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": search},
        )
    )
    refind = [sys.executable, "-m", "refind_cli", "--home", str(home), "mcp"]
    for _ in range(3):
        if stdin == "file":
            (tmp_path / "requests.jsonl").write_text(requests)
            with open(tmp_path / "requests.jsonl", "rb") as f:
                p = subprocess.run(refind, stdin=f, capture_output=True, timeout=120)
        else:
            p = subprocess.run(refind, input=requests.encode(), capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr
        replies = [json.loads(line) for line in p.stdout.decode().splitlines()]
        assert sorted(r["id"] for r in replies) == [1, 2, 3, 4]


def test_refind_mcp_ends_quietly_when_its_client_stops_reading(home: Path) -> None:
    """The SDK's transport ended this with a BrokenPipeError traceback and exit 1."""
    with subprocess.Popen(
        [sys.executable, "-m", "refind_cli", "--home", str(home), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as p:
        assert p.stdin and p.stdout and p.stderr

        def send(message: dict[str, object]) -> None:
            assert p.stdin
            p.stdin.write((json.dumps(message) + "\n").encode())
            p.stdin.flush()

        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT})
        assert json.loads(p.stdout.readline())["id"] == 1
        p.stdout.close()
        for i in range(3):
            call = {"name": "search_chat", "arguments": {"keywords": "dentist"}}
            send({"jsonrpc": "2.0", "id": 2 + i, "method": "tools/call", "params": call})
        p.stdin.close()
        assert p.wait(timeout=60) == 0
        assert p.stderr.read() == b""
