"""The agent's tools: the registry that declares them, and the toolbox that runs them over one run's state.

A tool declares its name, description and JSON schema (what a model is shown), how its arguments are
checked, how it runs against the run's state (the ``Toolbox``), and the event its result carries. The native
tool specs, the text protocol's list of actions, argument parsing and dispatch are all derived from the
registry, so a new tool is one ``register`` call; the built-in tools register through the same call
(``builtin_tools``). A name the registry does not hold is an error, never run as some other tool.

The ``Toolbox`` is the state every tool acts on: the hits of the last search, the notes, the sessions already
returned (excluded from every later search: the only state kept across rounds) and the rounds made. A model
drives it through native tool calls or the plain-text protocol; the offline planner drives the same toolbox,
so both paths produce the same rounds, notes and events.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from refind_cli.agent.events import Event, EventSink, Note, Round, ToolError, ignore
from refind_cli.errors import RefindError
from refind_cli.method.search_tools import MalformedCall, Reading, Seen

if TYPE_CHECKING:
    from collections.abc import Sequence

    from refind_cli.listings import ChatSummary
    from refind_cli.reports import SessionView
    from refind_cli.request import SearchRequest
    from refind_cli.results import Hit, SearchResult


class ToolFailed(Exception):
    """A call that was understood but could not run (a bad block number, an unreadable date): the model is
    told why, and the call leaves no round."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str  # what the model reads
    event: Event | None = None  # what the trace shows
    turn_ids: tuple[str, ...] = ()  # the turns the call returned or kept, recorded in its round
    finished: bool = False  # the call ends stage 1


Parse = Callable[[dict[str, Any]], dict[str, Any]]
Execute = Callable[["Toolbox", dict[str, Any]], ToolResult]
SearchFn = Callable[["SearchRequest"], "SearchResult"]
DocFreq = Callable[[str], int]  # turns holding an analysed term, archive-wide (TurnIndex.doc_freq)


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool. ``parse`` turns the decoded JSON object into the arguments ``execute`` takes (and a round
    records), raising MalformedCall; ``execute`` raises ToolFailed for a call it cannot carry out."""

    name: str
    description: str
    parameters: Mapping[str, Any]  # the JSON schema of the arguments object
    parse: Parse
    execute: Execute
    text_usage: str | None = None  # its arguments as the text protocol shows them; default: from the schema

    @property
    def spec(self) -> dict[str, Any]:
        """The native (OpenAI-style) tool definition."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    @property
    def needs_input(self) -> bool:
        """Whether a text-protocol action must carry an Action Input: only when the schema requires some."""
        return bool(self.parameters.get("required"))

    @property
    def usage(self) -> str:
        if self.text_usage is not None:
            return self.text_usage
        properties = self.parameters.get("properties") or {}
        example = {key: f"<{prop.get('type', 'value')}>" for key, prop in properties.items()}
        return f"{json.dumps(example)} ({self.description})"


class Registry:
    """Tools by name, in registration order (the order a model sees them in)."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> Tool:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is registered already")
        self._tools[tool.name] = tool
        return tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(tuple(self._tools.values()))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise MalformedCall(f"unknown tool {name!r}") from None

    def specs(self) -> list[dict[str, Any]]:
        return [tool.spec for tool in self]

    def parse(self, name: str, raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate and normalise a call's arguments (JSON text or an object); MalformedCall says what is
        wrong, for the retry."""
        tool = self.get(name)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            args: Any = {}
        elif isinstance(raw, str):
            try:
                args = json.loads(raw)
            except json.JSONDecodeError as err:
                raise MalformedCall(f"the arguments of {name} are not valid JSON ({err.msg})") from None
        else:
            args = dict(raw)
        if not isinstance(args, dict):
            raise MalformedCall(f"the arguments of {name} must be a JSON object")
        return tool.parse(args)


TOOLS = Registry()  # the tools every run offers unless it is given others


def register(tool: Tool) -> Tool:
    """Add a tool to the default registry: the built-ins come in this way, and so does any new tool."""
    return TOOLS.register(tool)


@dataclass
class Toolbox:
    """One run's tools and their shared state. Read-only: nothing here writes anywhere."""

    search_fn: SearchFn
    now: datetime  # what relative dates in tool arguments are read against
    tz: tzinfo
    max_rounds: int  # searches per run
    on_event: EventSink = ignore
    tools: Registry = TOOLS
    chats: tuple[int, ...] | None = None  # the run's scope: chat seqs every search is limited to
    doc_freq: DocFreq | None = None  # from the index when there is one; else counted by searches
    seen_sessions: Seen = field(default_factory=Seen)
    last_hits: tuple[Hit, ...] = ()
    notes: list[Note] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    searches: int = 0

    @property
    def exhausted(self) -> bool:
        return self.searches >= self.max_rounds

    def reading(self) -> Reading:
        """The run as the read tools read it: its scope as it stands now, its seen sessions, its clock; a
        model's searches fuse sessions (the method's rounds, measured in bench/RESULTS.md)."""
        return Reading(
            _Searching(self.search_fn),
            lambda _tz: self.now,
            self.tz,
            self.chats,
            seen=self.seen_sessions,
            session_rank=True,
        )

    def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        """Run a registered tool on parsed arguments; MalformedCall for a name the registry does not hold."""
        tool = self.tools.get(name)
        return self.apply(name, args, lambda: tool.execute(self, args))

    def apply(self, name: str, arguments: dict[str, Any], execute: Callable[[], ToolResult]) -> ToolResult:
        """Run one call and keep its trace: a round and the result's event, or a ToolError the model reads.
        ``arguments`` are what the round records (the offline planner's searches pass readable ones)."""
        try:
            result = execute()
        except ToolFailed as err:
            self.on_event(ToolError(name, str(err)))
            return ToolResult(f"error: {err}")
        self.rounds.append(Round(len(self.rounds) + 1, name, dict(arguments), result.turn_ids))
        if result.event is not None:
            self.on_event(result.event)
        return result


@dataclass(frozen=True, slots=True)
class _Searching:
    """The agent's reader: it searches the archive it was given; browsing is not among its tools."""

    search_fn: SearchFn

    def search(self, request: SearchRequest) -> SearchResult:
        return self.search_fn(request)

    def show(self, turn_id: str, context: int) -> SessionView:
        raise RefindError("the agent has no tool that shows a conversation")

    def chats(self) -> Sequence[ChatSummary]:
        raise RefindError("the agent has no tool that lists the chats")

    def chat_ids(self, names: Sequence[str], within: tuple[int, ...] | None) -> tuple[int, ...] | None:
        raise RefindError("the agent's searches keep to the run's chats")
