"""A scripted OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, canned replies, no network.

Each POST to ``/v1/chat/completions`` (or ``/chat/completions``) consumes the next ``Reply`` of the script
and records the request body, so a test can assert both what the agent sent and how it reacted. When the
script runs out the server answers 400 ``script exhausted``, which makes an unexpected extra call fail loudly.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class Call:
    name: str
    arguments: str  # raw JSON text, so a test can send malformed arguments


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    calls: tuple[Call, ...] = ()
    status: int = 200
    error: str = ""
    prompt_tokens: int = 100
    completion_tokens: int = 20
    delay: float = 0.0  # seconds before the reply: a slow model, for tests that interrupt one


def text(content: str, *, prompt_tokens: int = 100, completion_tokens: int = 20) -> Reply:
    return Reply(content=content, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def tool(name: str, arguments: dict[str, Any] | str | None = None, **kwargs: Any) -> Reply:
    """One tool call; ``arguments`` as a string is sent verbatim (for malformed-call tests)."""
    return tools((name, arguments if arguments is not None else {}), **kwargs)


def tools(
    *calls: tuple[str, dict[str, Any] | str], prompt_tokens: int = 100, completion_tokens: int = 20
) -> Reply:
    made = tuple(Call(n, a if isinstance(a, str) else json.dumps(a)) for n, a in calls)
    return Reply(calls=made, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def error(status: int, message: str = "scripted error") -> Reply:
    return Reply(status=status, error=message)


@dataclass
class ScriptedLLM:
    """Serve ``script`` in order. Use as a context manager; ``api_base`` is what litellm needs."""

    script: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 0
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def remaining(self) -> int:
        return len(self.script) - self._next

    def extend(self, replies: Iterable[Reply]) -> None:
        with self._lock:
            self.script.extend(replies)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _take(self, body: dict[str, Any], path: str) -> Reply | None:
        with self._lock:
            self.requests.append(body)
            self.paths.append(path)
            if self._next >= len(self.script):
                return None
            reply = self.script[self._next]
            self._next += 1
            return reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                return

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path not in PATHS:
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                reply = owner._take(json.loads(raw or b"{}"), self.path)
                if reply is not None and reply.delay:
                    time.sleep(reply.delay)
                if reply is None:
                    self._send(
                        400, {"error": {"message": "script exhausted", "type": "invalid_request_error"}}
                    )
                elif reply.status != 200:
                    self._send(reply.status, {"error": {"message": reply.error, "type": "scripted"}})
                else:
                    self._send(200, _completion(reply, len(owner.requests)))

        return Handler


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up before its (delayed) reply is written is what a cancelled call does, not a
        fault of the script: the default would print a traceback on stderr from the handler's thread, at
        whatever later moment it writes, into another test's captured output."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _completion(reply: Reply, n: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{n}_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for i, c in enumerate(reply.calls)
        ]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 1_767_225_600,
        "model": "scripted",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if reply.calls else "stop"}
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }
