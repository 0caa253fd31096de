"""The stdio wire of `refind mcp`: requests read on the event loop as they arrive, each response written
whole with one system call, no thread in between.

The SDK's stdio transport reads and writes through worker threads, three hand-offs between threads a call;
with this wire a search_chat call at 1M turns took 0.42 ms less, a ping 0.50 ms instead of 0.89
(bench/RESULTS.md). Every request read before stdin ends is answered before the server ends: under the
SDK's transport the last ones went unanswered when stdin closed right after them (`refind mcp <
requests.jsonl`). Like the SDK's, it moves the protocol off the standard descriptors while it serves: fd 0
reads the null device and fd 1 writes to stderr, so a stray read or print cannot touch the protocol, and
both are put back at the end.

A response waits until the client has read enough of the last one to make room in the pipe: the server
serves one call at a time anyway.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import anyio.lowlevel
from mcp_types import INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter

from refind_cli.errors import RefindError

CHUNK = 1 << 16


class Lines:
    """The lines of a readable descriptor, as text (undecodable bytes replaced, as the SDK reads them).
    ``poll``: wait until it is readable (a pipe, a socket, a terminal); a file is read as it is."""

    def __init__(self, fd: int, *, poll: bool) -> None:
        self._fd = fd
        self._poll = poll
        self._buffer = bytearray()
        self._scanned = 0  # the buffer holds no newline before this
        self._eof = False

    def __aiter__(self) -> Lines:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0 or (self._eof and self._buffer):
                cut = end + 1 if end >= 0 else len(self._buffer)
                line = self._buffer[:cut].decode("utf-8", "replace")
                del self._buffer[:cut]
                self._scanned = 0
                return line
            if self._eof:
                # The SDK cancels the requests still in progress when stdin ends: let every request read so
                # far be answered first (a call runs without waiting on anything, so none is left behind).
                await anyio.wait_all_tasks_blocked()
                raise StopAsyncIteration
            self._scanned = len(self._buffer)
            if self._poll:
                await anyio.wait_readable(self._fd)
            else:
                await anyio.lowlevel.checkpoint()
            data = os.read(self._fd, CHUNK)
            self._eof = not data
            self._buffer += data


class Requests:
    """The JSON-RPC messages among ``lines``: only they reach the SDK, which drops anything else without a
    word. A line that is not JSON is answered -32700 and one that is not JSON-RPC -32600 through ``refuse``;
    lone surrogates (valid JSON that the SDK's parser refuses) become U+FFFD, so that request is answered."""

    def __init__(self, lines: Lines, refuse: Callable[[str], Awaitable[None]]) -> None:
        self._lines = lines
        self._refuse = refuse

    def __aiter__(self) -> Requests:
        return self

    async def __anext__(self) -> str:
        async for line in self._lines:
            message, refusal = _message(line)
            if message is not None:
                return message
            if refusal is not None:
                await self._refuse(refusal)
        raise StopAsyncIteration


def _message(line: str) -> tuple[str | None, str | None]:
    """A line as the SDK can read it, or else the error response it gets (None for a blank line)."""
    try:
        jsonrpc_message_adapter.validate_json(line, by_name=False)
        return line, None
    except ValueError:
        pass
    if not line.strip():
        return None, None
    try:
        message = json.loads(line)
    except ValueError:
        return None, _error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    except RecursionError:
        return None, _error(None, PARSE_ERROR, "Parse error: JSON nested too deeply")
    fixed = json.dumps(_without_lone_surrogates(message))
    try:
        jsonrpc_message_adapter.validate_json(fixed, by_name=False)
        return fixed, None
    except ValueError:
        ident = message.get("id") if isinstance(message, dict) else None
        ident = ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None
        return None, _error(ident, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")


def _without_lone_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value


def _error(ident: str | int | None, code: int, message: str) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}) + "\n"


class Writer:
    """What the SDK writes, sent on each flush with blocking writes (one system call unless the pipe fills);
    ``written`` runs after each flush: what the server put off until its answer was out."""

    def __init__(self, fd: int, written: Callable[[], None]) -> None:
        self._fd = fd
        self._written = written
        self._pending: list[str] = []

    async def write(self, text: str) -> None:
        self._pending.append(text)

    async def send(self, text: str) -> None:
        """``text`` on its own, at once: an answer of the wire's (it never suspends, so it cannot fall
        between the SDK's write and flush of another)."""
        await self.write(text)
        await self.flush()

    async def flush(self) -> None:
        data = memoryview("".join(self._pending).encode("utf-8"))
        self._pending.clear()
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except BrokenPipeError:
            # The client is gone; the SDK's writer ends quietly on a closed stream.
            raise anyio.ClosedResourceError from None
        self._written()


@contextlib.contextmanager
def wire(written: Callable[[], None]) -> Iterator[tuple[Lines, Writer]]:
    """The protocol's own descriptors while serving; ``written`` runs after every message sent. Where the
    standard descriptors cannot be moved (no descriptor left, no null device), they are served in place:
    a stray print could then reach the protocol, but every request read is still answered (the SDK's own
    transport, which would serve then, drops the lines it cannot validate). RefindError when stdin or
    stdout is not open."""
    # Python leaves sys.stdin/stdout None when the descriptor was closed at start; the number may since have
    # gone to a file this process opened, which must never be read as requests or written to.
    if sys.stdin is None:
        raise RefindError("stdin: not open (refind mcp reads its requests there)")
    if sys.stdout is None:
        raise RefindError("stdout: not open (refind mcp writes its answers there)")
    mode = os.fstat(0).st_mode
    # epoll waits on these; a file or the null device always reads at once (and epoll refuses them).
    poll = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(0)
    sys.stdout.flush()
    moved: list[tuple[int, int]] = []  # (standard fd, the duplicate that keeps what it was)
    try:
        for fd in (0, 1):
            moved.append((fd, fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)))
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        os.dup2(2, 1)
    except OSError:
        _restore(moved)
        moved = []
    if not moved:
        yield Lines(0, poll=poll), Writer(1, written)
        return
    try:
        yield Lines(moved[0][1], poll=poll), Writer(moved[1][1], written)
    finally:
        _restore(moved)


def _restore(moved: list[tuple[int, int]]) -> None:
    for fd, keep in moved:
        with contextlib.suppress(OSError):
            os.dup2(keep, fd)
        os.close(keep)
