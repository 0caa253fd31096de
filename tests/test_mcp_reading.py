"""What each MCP call costs besides the search, in-process: the read at the latest commit (``Home.reading``)
and the collector paused during a call. The protocol itself is tested in test_mcp.py."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from refind_cli.facade import Home
from refind_cli.frontends.mcp import server as mcp_server
from refind_cli.frontends.mcp.server import ArchiveTools, ToolError, call
from refind_cli.index.tantivy_backend import TantivyIndex
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Message
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def write(home: Path, name: str, text: str) -> None:
    """Another writer: a chat imported and indexed, as `refind import` in another process does."""
    with Archive.open(home) as arch:
        import_chat(arch, Chat("whatsapp", name.lower(), name), [Message(T0, "Ann", text)])
        Index.open(home).sync(arch)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    write(home, "Family", "the piano lesson")
    return home


@pytest.fixture
def attaches(monkeypatch: pytest.MonkeyPatch) -> list[TantivyIndex]:
    """The index objects that went to read CURRENT and reload, once per time."""
    seen: list[TantivyIndex] = []
    attach = TantivyIndex._attach

    def counted(self: TantivyIndex) -> None:
        seen.append(self)
        attach(self)

    monkeypatch.setattr(TantivyIndex, "_attach", counted)
    return seen


def test_reading_sees_every_commit_and_rereads_nothing_without_one(
    home: Path, attaches: list[TantivyIndex]
) -> None:
    with Home.open(home) as reader:
        for _ in range(2):  # opening the index, then its first refresh
            with reader.reading():
                assert reader.search(SearchRequest("piano")).total == 1
        index = reader.index()
        before = attaches.count(index)
        for _ in range(3):
            with reader.reading():
                assert reader.search(SearchRequest("piano")).total == 1
        assert attaches.count(index) == before  # neither CURRENT nor meta.json changed: nothing reread
        write(home, "Work", "a piano in the lobby")
        with reader.reading():
            assert reader.search(SearchRequest("piano")).total == 2
        assert attaches.count(index) == before + 1


@pytest.fixture
def tools(home: Path) -> Iterator[ArchiveTools]:
    with Home.open(home) as h:
        yield ArchiveTools(h, UTC)


def test_a_call_runs_with_the_collector_paused(tools: ArchiveTools, monkeypatch: pytest.MonkeyPatch) -> None:
    during: list[bool] = []

    def spy(_tools: ArchiveTools, args: dict[str, Any]) -> dict[str, Any]:
        during.append(gc.isenabled())
        if args.get("fail"):
            raise ToolError("refused")
        return {}

    monkeypatch.setitem(mcp_server._RUN, "list_chats", spy)
    assert not call(tools, "list_chats", {}).is_error
    assert call(tools, "list_chats", {"fail": True}).is_error
    assert during == [False, False] and gc.isenabled()  # enabled again, after an error too
    gc.disable()
    try:
        call(tools, "list_chats", {})
        assert not gc.isenabled()  # a caller's choice is left as it was
    finally:
        gc.enable()


def test_a_served_call_leaves_its_matches_to_free_after_the_answer(home: Path) -> None:
    """With the wire's release, a search's engine matches outlive the call (the collector paused) until the
    answer is written; a refused call keeps nothing."""
    spent = mcp_server.Spent()
    with Home.open(home) as h:
        tools = ArchiveTools(h, UTC, spent=spent)
        result = call(tools, "search_chat", {"keywords": "piano"})
        assert not result.is_error and result.structured_content["total"] == 1
        assert spent.held and not gc.isenabled()
        spent.release()
        assert not spent.held and gc.isenabled()
        # Calls answered before the wire wrote (concurrent ones) add theirs; one write frees all.
        call(tools, "search_chat", {"keywords": "piano", "include_seen": True})
        call(tools, "search_chat", {"keywords": "lesson", "include_seen": True})
        assert len(spent.held) == 2
        assert call(tools, "search_chat", {"keywords": "piano", "top_k": 0}).is_error
        assert not spent.held and gc.isenabled()
