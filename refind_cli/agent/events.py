"""What the agent emits while it works, and what it returns. The agent never prints: a renderer listens.

Every record is a small frozen dataclass so a renderer (terminal, JSON, a test) can match on the type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from refind_cli.records import ChatInfo, Turn


@dataclass(frozen=True, slots=True)
class Usage:
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None  # None while any call's cost is unknown (model not in litellm's price map)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, prompt_tokens: int, completion_tokens: int, cost_usd: float | None) -> Usage:
        # One unpriced call makes the total unknown: a partial sum would understate what was spent.
        known = self.cost_usd is not None or self.llm_calls == 0
        cost = (self.cost_usd or 0.0) + cost_usd if known and cost_usd is not None else None
        return Usage(
            self.llm_calls + 1,
            self.prompt_tokens + prompt_tokens,
            self.completion_tokens + completion_tokens,
            cost,
        )

    def __add__(self, other: Usage) -> Usage:
        if other.llm_calls == 0:
            return self
        if self.llm_calls == 0:
            return other
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Usage(
            self.llm_calls + other.llm_calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
        )


@dataclass(frozen=True, slots=True)
class Note:
    """The full original block of one search result, saved verbatim: the hit turn with its context window."""

    session_id: str
    hit_turn_id: str
    chat: ChatInfo
    turns: tuple[Turn, ...]  # in session order
    text: str  # the block exactly as the search showed it

    @property
    def turn_ids(self) -> tuple[str, ...]:
        return tuple(t.id for t in self.turns)


@dataclass(frozen=True, slots=True)
class Round:
    """One tool call of stage 1, in the order made. ``result_turn_ids``: hit turns of a search, the noted
    turns of take_note, nothing for finish_search."""

    n: int
    tool: str
    arguments: dict[str, Any]
    result_turn_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Citation:
    session_id: str
    turn_id: str
    chat: str
    timestamp: datetime
    speaker: str
    text: str
    length: int | None = None  # the turn's whole length in characters, where ``text`` is only its start


@dataclass(frozen=True, slots=True)
class Direct:
    """The offline answer's direct answer: what the question asks for (when, who, where, number, yes/no,
    what) and the answer of that kind its first quote holds, as shown (None: the notes hold none); for a
    "when" question the range that answer names."""

    kind: str
    value: str | None
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True, slots=True)
class AskResult:
    question: str
    answer: str
    citations: tuple[Citation, ...]
    rounds: tuple[Round, ...]
    notes: tuple[Note, ...]
    model: str | None
    usage: Usage
    mode: str  # "model" | "offline-extractive"
    stop_reason: str  # why stage 1 ended: finish_search, max_rounds, max_tokens, max_cost, malformed, ...
    asked_at: datetime
    direct: Direct | None = None  # the extractive answer's direct answer (offline only)

    @property
    def found(self) -> bool:
        return bool(self.citations)


# ---- events ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RemoteNotice:
    """Chat text is about to leave this machine: printed before the first call to a remote provider."""

    model: str
    provider: str


@dataclass(frozen=True, slots=True)
class HitSummary:
    rank: int
    turn_id: str
    session_id: str
    chat: str
    timestamp: datetime
    speaker: str


@dataclass(frozen=True, slots=True)
class SearchDone:
    n: int  # 1-based search number
    keywords: str
    date_from: str | None
    date_to: str | None
    top_k: int
    hits: tuple[HitSummary, ...]
    total: int
    excluded_sessions: int


@dataclass(frozen=True, slots=True)
class NoteTaken:
    indices: tuple[int, ...]
    notes: tuple[Note, ...]


@dataclass(frozen=True, slots=True)
class ToolRan:
    """A call of a tool the renderers need not know: its name, its arguments and one line on what it did.
    A new tool emits this (or its own subclass), so every trace shows it without knowing it."""

    tool: str
    arguments: dict[str, Any]
    summary: str


@dataclass(frozen=True, slots=True)
class ToolError:
    """A tool call that was understood but could not run (bad index, bad date): the model is told why."""

    tool: str
    message: str


@dataclass(frozen=True, slots=True)
class Thought:
    text: str


@dataclass(frozen=True, slots=True)
class ModelCall:
    stage: str  # "search" | "answer"
    model: str
    usage: Usage  # this call only
    total: Usage  # the run so far


@dataclass(frozen=True, slots=True)
class SearchFinished:
    reason: str
    searches: int
    notes: int


@dataclass(frozen=True, slots=True)
class AgentWarning:
    message: str


@dataclass(frozen=True, slots=True)
class Answered:
    result: AskResult


Event = (
    RemoteNotice
    | SearchDone
    | NoteTaken
    | ToolRan
    | ToolError
    | Thought
    | ModelCall
    | SearchFinished
    | AgentWarning
    | Answered
)
EventSink = Callable[[Event], None]


def ignore(_event: Event) -> None:
    """The default sink: a library caller that wants no trace."""


@dataclass
class Collector:
    """A sink that keeps every event, for tests and for callers that render afterwards."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]
