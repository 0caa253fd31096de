"""A search request: what to look for and where, built once from what the user (or the agent) typed and
carried whole to the engine. Results carry their request, so renderers echo the filters from the result.
What the other operations are asked is in ``operations``. A named tuple, as the records are (``records``): a
search imports no ``dataclasses``.

The since/until rule lives here and only here: each bound is read with ``cldr.bound`` (the start,
or the inclusive end, of what the text names), and a range whose start is after its end is refused. The
command line, the agent's ``search_chat`` and the offline planner all go through ``time_range``; the planner
and the agent hand datetimes on, never date strings, so no time of day is lost on the way.
"""

from __future__ import annotations

# No ``from __future__ import annotations``: a named tuple's string annotations cost a search (``records``).
from collections.abc import Iterable
from datetime import datetime, tzinfo

from refind_cli.errors import RefindError
from refind_cli.typed import NamedTuple

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Self

DEFAULT_K = 5
DEFAULT_WINDOW = 2
# A search shows k hits with 2 * window + 1 turns each: at these bounds 41,000 turns at most (`-k 1000000
# --window 1000` ran 977 s at 1.4 GB). More context is `refind show`'s.
MAX_K = 1000
MAX_WINDOW = 20
# One search ranks by plain BM25: measured by fold on the dev sets (bench/recall_cv.py), it beat session fusion
# on LoCoMo in 9 of the 10 held-out folds at K = 5 and 10 (5 at K = 10), and tied on LongMemEval.
SESSION_RANK = False
# A conversation's searches (a model's rounds: refind's agent, an MCP connection) fuse sessions: three rounds
# of the question's words, each skipping the sessions shown before, found more on LoCoMo fused in 4 of 5
# held-out folds (bench/RESULTS.md, issue 27).
ROUNDS_SESSION_RANK = True
# How hits are ordered: by the ReFind score (fused or BM25), or the newest matches first.
SORTS = ("score", "time")
# How the agent talks to a model: native tool calls, JSON actions in text, or whichever the model takes.
PROTOCOLS = ("auto", "tools", "text")


def time_range(
    since: str | None,
    until: str | None,
    *,
    now: datetime,
    tz: tzinfo,
    names: tuple[str, str] = ("--since", "--until"),
) -> tuple[datetime | None, datetime | None]:
    """The instants ``since`` and ``until`` name (either may be None), read against ``now`` in ``tz``.
    ``names`` are how the caller calls the two values, for the error message (``RefindError``)."""
    lo = time_bound(names[0], since, now=now, tz=tz, end=False)
    hi = time_bound(names[1], until, now=now, tz=tz, end=True)
    if lo is not None and hi is not None and lo > hi:
        raise RefindError(f"{names[0]} {since!r} is after {names[1]} {until!r}")
    return lo, hi


def time_bound(name: str, text: str | None, *, now: datetime, tz: tzinfo, end: bool) -> datetime | None:
    """The start (or, with ``end``, the inclusive end) of what ``text`` names; ``name`` is the option's."""
    if text is None:
        return None
    from refind_cli.dates.cldr import bound

    try:
        return bound(text, now=now, tz=tz, end=end)
    except ValueError as exc:
        raise RefindError(f"{name}: {exc}") from None


class _Search(NamedTuple):
    query: str
    k: int
    window: int
    since: datetime | None
    until: datetime | None
    chats: tuple[int, ...] | None
    chat_names: tuple[str, ...] | None
    sources: tuple[str, ...] | None  # the --source values, kept to echo them (``chats`` holds their chats)
    exclude_sessions: tuple[str, ...]
    session_rank: bool
    speakers: tuple[str, ...] | None
    sort: str


class SearchRequest(_Search):
    """One search. ``since``/``until`` are inclusive bounds on a turn's start time; ``chats`` are chat seqs
    (None: every chat; empty: none); ``chat_names`` are the ``--chat`` values as typed, kept to echo them;
    ``exclude_sessions`` are session ids to skip; ``session_rank`` False ranks by plain BM25; ``speakers``
    are the ``--from`` values as typed (the search resolves them: a name, a sender id, or the start of one
    name); ``sort`` "time" returns the newest ``k`` matches instead of the best. It checks itself when built,
    and so does each copy ``_replace`` makes."""

    __slots__ = ()

    def __new__(
        cls,
        query: str,
        k: int = DEFAULT_K,
        window: int = DEFAULT_WINDOW,
        since: datetime | None = None,
        until: datetime | None = None,
        chats: tuple[int, ...] | None = None,
        chat_names: tuple[str, ...] | None = None,
        sources: tuple[str, ...] | None = None,
        exclude_sessions: tuple[str, ...] = (),
        session_rank: bool = SESSION_RANK,
        speakers: tuple[str, ...] | None = None,
        sort: str = "score",
    ) -> Self:
        if k < 1:
            raise RefindError(f"-k: {k} is not at least 1")
        if k > MAX_K:
            raise RefindError(f"-k: {k} is more than {MAX_K}")
        if window < 0:
            raise RefindError(f"--window: {window} is not at least 0")
        if window > MAX_WINDOW:
            raise RefindError(f"--window: {window} is more than {MAX_WINDOW}")
        if sort not in SORTS:
            raise RefindError(f"--sort: {sort!r} is not one of {', '.join(SORTS)}")
        if since is not None and until is not None and since > until:
            raise RefindError("--since is after --until")
        return super().__new__(
            cls,
            query,
            k,
            window,
            since,
            until,
            chats,
            chat_names,
            sources,
            exclude_sessions,
            session_rank,
            speakers,
            sort,
        )

    @classmethod
    def _make(cls, iterable: Iterable[Any]) -> Self:  # type: ignore[override]  # (mypy's is generic in the tuple)
        # What ``_replace`` builds its copy with: through ``__new__``, so that the copy is checked too.
        return cls(*iterable)

    def for_query(self, query: str) -> SearchRequest:
        """The same filters for another query (``refind search -`` reads many)."""
        return self._replace(query=query)
