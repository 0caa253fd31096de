"""What a search returns: its hits, each with its window of turns. Records only, importing nothing heavy, so
renderers and front ends can take them without loading the archive, the index engine or the importers. A
chat and a session as listed are in ``listings``, what the other operations report in ``reports``: a
search builds none of their classes."""

from __future__ import annotations

from refind_cli.records import ChatInfo, Turn
from refind_cli.request import SearchRequest

# No ``from __future__ import annotations``: a named tuple's string annotations cost a search (``records``).
from refind_cli.typed import NamedTuple

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from refind_cli.dates.timeline import Timeline


class WindowTurn(NamedTuple):
    turn: Turn
    hit: bool  # the result's own turn (the others are context)


class Hit(NamedTuple):
    rank: int  # 1-based
    score: float  # the fused RRF score, or BM25 when fusion is off
    turn: Turn
    chat: ChatInfo
    window: tuple[WindowTurn, ...]
    bm25: float  # the turn's own BM25 score
    terms: tuple[str, ...]  # the query terms this turn contains (analysed form), for highlighting


class SearchResult(NamedTuple):
    request: SearchRequest
    hits: tuple[Hit, ...]
    total: int  # turns that match the query and pass the filters
    timeline: Timeline | None = None  # how every match spreads over time, when asked for

    @property
    def query(self) -> str:
        return self.request.query
