"""What the library's operations return: search hits, imports, chats and sessions, forget plans, health.
Records only, importing nothing heavy, so renderers and front ends can take them without loading the
archive, the index engine or the importers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from refind_cli.records import ChatInfo, Turn
from refind_cli.request import SearchRequest

if TYPE_CHECKING:
    from refind_cli.dates.timeline import Timeline


@dataclass(frozen=True, slots=True)
class WindowTurn:
    turn: Turn
    hit: bool  # the result's own turn (the others are context)


@dataclass(frozen=True, slots=True)
class Hit:
    rank: int  # 1-based
    score: float  # the fused RRF score, or BM25 when fusion is off
    turn: Turn
    chat: ChatInfo
    window: tuple[WindowTurn, ...]
    bm25: float  # the turn's own BM25 score
    terms: tuple[str, ...]  # the query terms this turn contains (analysed form), for highlighting


@dataclass(frozen=True, slots=True)
class SearchResult:
    request: SearchRequest
    hits: tuple[Hit, ...]
    total: int  # turns that match the query and pass the filters
    timeline: Timeline | None = None  # how every match spreads over time, when asked for

    @property
    def query(self) -> str:
        return self.request.query


@dataclass(frozen=True, slots=True)
class ChatSummary:
    info: ChatInfo
    messages: int
    sessions: int
    turns: int
    first: datetime | None
    last: datetime | None
    lang: str = ""  # ISO 639-1, "und" (too little text), "" (imported before languages were told)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    seq: int
    id: str
    chat: ChatInfo
    start: datetime
    end: datetime
    n_turns: int
    n_messages: int
