"""The agent over a real archive and index: the search adapter, and ``ask``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from refind_cli.agent.events import AskResult
from refind_cli.agent.runner import run
from refind_cli.agent.tools import SearchFn

if TYPE_CHECKING:
    from refind_cli.archive import Archive
    from refind_cli.index import TurnIndex
    from refind_cli.request import SearchRequest
    from refind_cli.results import SearchResult


def archive_search(archive: Archive, index: TurnIndex) -> SearchFn:
    """The agent's search function over a real archive and index: each request runs whole."""
    from refind_cli.search import search

    def search_fn(request: SearchRequest) -> SearchResult:
        return search(archive, index, request)

    return search_fn


def ask(
    archive: Archive,
    index: TurnIndex,
    question: str,
    *,
    chats: Sequence[int] | None = None,
    speakers: Sequence[str] | None = None,
    now: datetime | None = None,
    tz: tzinfo | None = None,
    since: datetime | None = None,
    **options: Any,
) -> AskResult:
    """``run`` over an archive and its index, optionally limited to some chats and to what some speakers
    said (names as the archive holds them; every search keeps to them, whatever ``from`` a model asks
    for), and to messages from ``since`` on. ``options`` are ``run``'s."""
    zone = tz or datetime.now().astimezone().tzinfo
    assert zone is not None
    asked = (now or datetime.now(zone)).astimezone(zone)
    search_fn = archive_search(archive, index)
    if speakers is not None:
        search_fn = _only_from(search_fn, tuple(speakers))
    if since is not None:
        search_fn = _not_before(search_fn, since)
    languages = sorted(
        {lang for chat, lang in archive.chat_languages().items() if chats is None or chat in chats}
    )
    return run(
        question,
        search_fn=search_fn,
        span=archive.time_span(),
        languages=languages,
        now=asked,
        tz=zone,
        chats=chats,
        doc_freq=index.doc_freq,
        speakers=speakers,
        **options,
    )


def _only_from(search_fn: SearchFn, speakers: tuple[str, ...]) -> SearchFn:
    def said_by(request: SearchRequest) -> SearchResult:
        return search_fn(replace(request, speakers=speakers))

    return said_by


def _not_before(search_fn: SearchFn, since: datetime) -> SearchFn:
    def from_since(request: SearchRequest) -> SearchResult:
        start = since if request.since is None else max(request.since, since)
        return search_fn(replace(request, since=start))

    return from_since
