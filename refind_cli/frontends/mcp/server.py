"""`refind mcp`: the chat archive as tools for any agent, over the Model Context Protocol (stdio).

Every read tool ``search_tools.READ_TOOLS`` declares, served as declared (no tool has code of its own here),
and one prompt:
- ``search_chat``: the ReFind search, the very tool refind's agent has (plus ``chats`` and ``include_seen``);
  its result is `refind search --json`'s object. Sessions a connection was already shown are excluded from
  its later searches, as in the agent's rounds.
- ``get_context``: the turns around a turn, as `refind show --json` gives them.
- ``list_chats``: the chats, as `refind chats --json` gives them.
- the ``refind`` prompt: the method's search-and-cite instructions for a question.

Built on the facade: each call reads inside ``Home.reading``, so it sees what another process imported up to
that moment, from one commit of the archive. Calls run one at a time on the event loop (each takes
milliseconds; the archive connection and the index are not shared across threads). Nothing here can import,
forget or change anything. The SDK's low-level server is used because the tools' schemas come from the
layer rather than from Python signatures; the SDK's client checks every result against its output schema.

Importing this module imports the MCP SDK (pydantic, starlette, ...): only `refind mcp` does.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, cast

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from refind_cli import __version__
from refind_cli.errors import RefindError
from refind_cli.facade import Home
from refind_cli.frontends.mcp import stdio as mcp_stdio
from refind_cli.frontends.render import json_text
from refind_cli.frontends.render.imports import chats_json
from refind_cli.frontends.render.search import session_json, to_json
from refind_cli.method.search_tools import (
    DATA_NOTE,
    READ_TOOLS,
    SCHEMAS,
    SEARCH_GUIDE,
    MalformedCall,
    Reading,
    ReadTool,
    Seen,
    run_chats,
    situation,
)

PROMPT = "refind"


class ToolError(Exception):
    """A call the server refuses: bad arguments, an unknown chat or turn. The client reads the message."""


# -- the tools ----------------------------------------------------------------------------------------------


@dataclass
class Spent:
    """What calls leave to free once their answers are out: their searches' engine matches (an object per
    matching turn) and the collector paused since, so that it does not scan them in the meantime. The wire
    releases it after each message it writes. Freeing is ~1.2 ms of the median search at 1M turns, spent
    while the client reads the answer."""

    held: list[object] = field(default_factory=list)
    _resume: bool = False  # the collector ran before a call paused it

    @contextlib.contextmanager
    def holding(self) -> Iterator[list[object]]:
        """Hold what a call's searches leave (the collector paused); a call that fails frees it at once."""
        if not self._resume and gc.isenabled():
            gc.disable()
            self._resume = True
        try:
            yield self.held
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        self.held.clear()
        if self._resume:
            self._resume = False
            gc.enable()


@dataclass
class ArchiveTools:
    """The tools of one connection over one home. ``scope`` limits everything to some chats (``--chat``);
    ``scope_names`` are those options as typed, echoed like `refind search --chat`."""

    home: Home
    tz: tzinfo
    scope: tuple[int, ...] | None = None
    scope_names: tuple[str, ...] | None = None
    seen: Seen = field(default_factory=Seen)  # sessions returned to this connection
    now: Callable[[tzinfo], datetime] = datetime.now
    # Set when the wire frees it after each answer; without, a search frees its matches as it returns.
    spent: Spent | None = None
    reading: Reading = field(init=False)

    def __post_init__(self) -> None:
        reader = self.home.reader(keep=None if self.spent is None else self.spent.held)
        self.reading = Reading(reader, self.now, self.tz, self.scope, self.scope_names, self.seen)

    def prompt(self, question: str) -> str:
        """The ReFind method's instructions, for one question."""
        now = self.now(self.tz)
        chats = run_chats(self.reading, {})  # counts every chat's messages: ~50 ms at 1M, so once
        firsts = [c.first for c in chats if c.first is not None]
        lasts = [c.last for c in chats if c.last is not None]
        span = (min(firsts), max(lasts)) if firsts and lasts else None
        return f"""Answer a question about my own chat history (messaging apps and AI assistant chats) from the messages themselves, found with the refind tools.

{situation(now, self.tz, span, [c.lang for c in chats])}

Search first, in rounds:
{SEARCH_GUIDE}
- Keep the evidence verbatim: the turns that bear on the question, word for word, with their turn ids.
  get_context shows more of a conversation around a turn.
- Stop when the evidence answers the question or nothing more turns up.

Then answer:
- Use only the evidence found; do not guess. If it does not answer the question, say so plainly (and what
  it does show, if anything useful).
- Cite the turn ids you rely on, e.g. [abc123-4], right after each claim.
- Resolve relative dates ("tomorrow", "next Friday") against the date of the message that says them.
- Be brief: a direct answer in one to four sentences.
{DATA_NOTE} The tools only read the archive.

Question: {question}"""


# -- the protocol ---------------------------------------------------------------------------------------------

# Each shape of result as a client reads it: the JSON `refind search`, `show` and `chats` print.
_JSON: dict[str, Callable[[Any, tzinfo], dict[str, Any]]] = {
    "search": to_json,
    "session": session_json,
    "chats": chats_json,
}
_READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def _serve(tool: ReadTool) -> Run:
    def run(tools: ArchiveTools, args: dict[str, Any]) -> dict[str, Any]:
        try:
            parsed = tool.parse(args)
        except MalformedCall as err:
            raise ToolError(str(err)) from None
        return _JSON[tool.shape](tool.run(tools.reading, parsed), tools.tz)

    return run


Run = Callable[[ArchiveTools, dict[str, Any]], dict[str, Any]]


def served(read_tools: Sequence[ReadTool]) -> tuple[tuple[tuple[types.Tool, ReadTool], ...], dict[str, Run]]:
    """The MCP tools for read tools, each as it is declared (its schemas, its annotations), and their runs:
    a read tool the library declares is served with no code of its own here."""
    listed = tuple(
        (
            types.Tool(
                name=tool.name,
                description=tool.description,
                input_schema=dict(tool.parameters),
                output_schema=SCHEMAS[tool.shape],
                annotations=_READ_ONLY.model_copy(update={"idempotent_hint": True})
                if tool.idempotent
                else _READ_ONLY,
            ),
            tool,
        )
        for tool in read_tools
    )
    return listed, {tool.name: _serve(tool) for tool in read_tools}


_TOOLS, _RUN = served(READ_TOOLS)
_PROMPT = types.Prompt(
    name=PROMPT,
    description=(
        "Answer a question from your chats with the ReFind method: search in rounds with varied keywords, "
        "narrow by date, keep the evidence verbatim, answer only from it and cite turn ids."
    ),
    arguments=[types.PromptArgument(name="question", description="What to find out.", required=True)],
)


def call(tools: ArchiveTools, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
    """One tool call, read at the latest commit; a refused call is a tool error the client reads. The text
    block is the structured result as compact JSON, for clients that read only text (the spec's advice)."""
    run = _RUN.get(name)
    try:
        if run is None:
            raise ToolError(f"unknown tool {name!r} (the tools are {', '.join(_RUN)})")
        held = contextlib.nullcontext() if tools.spent is None else tools.spent.holding()
        with held, tools.home.reading():
            result = run(tools, dict(arguments or {}))
    except (ToolError, RefindError) as err:
        return types.CallToolResult(content=[types.TextContent(text=str(err))], is_error=True)
    return types.CallToolResult(
        content=[types.TextContent(text=json_text(result, compact=True))], structured_content=result
    )


def build(
    home: Home,
    *,
    tz: tzinfo,
    scope: Sequence[int] | None,
    scope_names: Sequence[str] | None,
    spent: Spent | None = None,
) -> Server:
    """The server over ``home``; each connection gets its own tools (and its own seen sessions). With
    ``spent``, searches leave their matches there for the wire to free after each answer."""

    @contextlib.asynccontextmanager
    async def connection(_server: Server) -> AsyncIterator[ArchiveTools]:
        yield ArchiveTools(
            home,
            tz,
            tuple(scope) if scope is not None else None,
            tuple(scope_names) if scope_names is not None else None,
            spent=spent,
        )

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tool for tool, _ in _TOOLS])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return call(ctx.lifespan_context, params.name, params.arguments)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[_PROMPT])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        question = (params.arguments or {}).get("question", "").strip()
        if params.name != PROMPT or not question:
            raise MCPError(types.INVALID_PARAMS, f"the prompt is {PROMPT!r} and takes a question")
        tools: ArchiveTools = ctx.lifespan_context
        with tools.home.reading():
            text = tools.prompt(question)
        message = types.PromptMessage(role="user", content=types.TextContent(text=text))
        return types.GetPromptResult(description=_PROMPT.description, messages=[message])

    server = Server(
        "refind",
        version=__version__,
        instructions=(
            "Read-only search over the user's own chat archive. Start with search_chat (keywords, not "
            "questions); cite the turn ids you use. The refind prompt carries the whole method."
        ),
        lifespan=connection,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )
    # The SDK wraps every message in an OpenTelemetry span, for an exporter refind never installs (and would
    # not send the user's calls to): 0.16 ms a call, dropped as the SDK documents.
    server.middleware = []
    return server


def serve(home: Home, *, tz: tzinfo, chats: Sequence[str] | None = None) -> None:
    """Serve ``home`` over stdin/stdout until the client closes the connection. ``chats`` limits the server
    to those chats (RefindError when one matches nothing)."""
    import anyio

    # A server lives on: with numpy loaded, every search of 2,000 matches or more fuses in it (5.5 ms against
    # 27 in Python at 25,000 matches), not only those after a first very broad one. ~0.15 s of the start.
    import numpy  # noqa: F401

    with home.reading():
        scope = home.chat_ids(chats)
    names = tuple(chats) if chats else None
    spent = Spent()

    async def run() -> None:
        with mcp_stdio.wire(spent.release) as (lines, writer):
            server = build(home, tz=tz, scope=scope, scope_names=names, spent=spent)
            # The SDK reads lines from the one and writes to the other, as from its own thread-backed files.
            stdin = cast("Any", mcp_stdio.Requests(lines, writer.send))
            async with stdio_server(stdin, cast("Any", writer)) as (read, write):
                await server.run(read, write, server.create_initialization_options())

    anyio.run(run)
