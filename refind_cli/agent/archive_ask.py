"""The agent over a real archive and index: the search adapter, and ``ask``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from refind_cli.agent.budget import DEFAULT_BUDGET
from refind_cli.agent.events import AskResult, EventSink, Note, ignore
from refind_cli.agent.runner import run
from refind_cli.agent.tools import TOOLS, Registry, SearchFn

if TYPE_CHECKING:
    from refind_cli.agent.conversation import Earlier
    from refind_cli.agent.llm import LLMClient, ModelConfig
    from refind_cli.index import TurnIndex
    from refind_cli.operations import AskRequest
    from refind_cli.request import SearchRequest
    from refind_cli.results import SearchResult
    from refind_cli.storage.archive import Archive


def archive_search(archive: Archive, index: TurnIndex) -> SearchFn:
    """The agent's search function over a real archive and index: each request runs whole."""
    from refind_cli.method.search import search

    def search_fn(request: SearchRequest) -> SearchResult:
        return search(archive, index, request)

    return search_fn


def ask(
    archive: Archive,
    index: TurnIndex,
    request: AskRequest,
    *,
    on_event: EventSink = ignore,
    tools: Registry = TOOLS,
    client_factory: Callable[[ModelConfig], LLMClient] | None = None,
    earlier: Sequence[Earlier] = (),
    more: Sequence[Note] = (),
    since: datetime | None = None,
) -> AskResult:
    """``run`` over an archive and its index, limited to the request's chats and to what its speakers said
    (every search keeps to them, whatever ``from`` a model asks for), and to messages from ``since`` on. In
    a conversation, ``earlier`` are the exchanges before and ``more`` the notes taken already (``run``)."""
    chats = request.chats
    search_fn = archive_search(archive, index)
    if request.speakers is not None:
        search_fn = _only_from(search_fn, request.speakers)
    if since is not None:
        search_fn = _not_before(search_fn, since)
    languages = sorted(
        {lang for chat, lang in archive.chat_languages().items() if chats is None or chat in chats}
    )
    return run(
        request.question,
        search_fn=search_fn,
        span=archive.time_span(),
        languages=languages,
        config=request.config,
        answer_config=request.answer_config,
        offline=request.config is None,
        protocol=request.protocol,
        budget=request.budget or DEFAULT_BUDGET,
        now=request.now.astimezone(request.tz),
        tz=request.tz,
        chats=chats,
        tools=tools,
        on_event=on_event,
        client_factory=client_factory,
        doc_freq=index.doc_freq,
        earlier=earlier,
        more=more,
        speakers=request.speakers,
    )


def _only_from(search_fn: SearchFn, speakers: tuple[str, ...]) -> SearchFn:
    def said_by(request: SearchRequest) -> SearchResult:
        return search_fn(request._replace(speakers=speakers))

    return said_by


def _not_before(search_fn: SearchFn, since: datetime) -> SearchFn:
    def from_since(request: SearchRequest) -> SearchResult:
        start = since if request.since is None else max(request.since, since)
        return search_fn(request._replace(since=start))

    return from_since
