"""A large index build reads and analyses the turns in a second process (``index.analysed``): the same
documents, in the same order, as this process would make."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from refind_cli.index import analysed, chat_analyzers
from refind_cli.index.tantivy_backend import _FIELDS, TantivyIndex
from refind_cli.ingest import import_chat
from refind_cli.method.search import search
from refind_cli.records import Chat, Message
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
WORDS = "dentist appointment Wohnung besichtigt flight keys Lisbon Häuser running ran 東京タワー 🎉".split()


def _messages(n: int, senders: tuple[str, ...]) -> list[Message]:
    return [
        Message(
            T0 + timedelta(minutes=7 * i + (300 if i % 9 == 0 else 0) * i),
            senders[i % 3 % len(senders)],
            " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 2 + i % 5)),
        )
        for i in range(n)
    ]


@pytest.fixture
def archive(empty_home: Path) -> Iterator[Archive]:
    """Three chats: two speakers, one, and one in German (analysed by another analyzer)."""
    with Archive.open(empty_home) as arch:
        import_chat(arch, Chat("test", "two", "Two"), _messages(120, ("Ana", "Ben")))
        import_chat(arch, Chat("test", "one", "One"), _messages(40, ("Cy",)))
        import_chat(arch, Chat("test", "de", "De"), _messages(60, ("Dora", "Emil", "Finn")))
        with arch.transaction():
            arch.set_chat_language(3, "de", 60, True)
        yield arch


FIELDS = _FIELDS


def _turns(archive: Archive, index: TantivyIndex, sessions: list[int] | None) -> list[analysed.AnalysedTurn]:
    """The turns as the documents the index is given hold them."""
    batches = index._documents(archive, sessions)
    return [tuple(json.loads(doc)[name] for name in FIELDS) for batch in batches for doc in batch]


def test_the_second_process_makes_the_same_documents(
    empty_home: Path, archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = TantivyIndex.open(empty_home)
    assert chat_analyzers(index, archive)  # the German chat is analysed otherwise
    here = _turns(archive, index, None)
    some = [1, 2, 5, 9, 10, 11, 30]
    here_some = _turns(archive, index, some)
    assert len(here) == archive.counts()["turns"] and 0 < len(here_some) < len(here)
    started = []
    child = analysed.python_child
    monkeypatch.setattr(analysed, "python_child", lambda *a: started.append(a) or child(*a))
    monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 1)
    assert _turns(archive, index, None) == here
    assert _turns(archive, index, some) == here_some
    assert len(started) == 2


def test_an_index_built_with_the_second_process_searches_alike(
    empty_home: Path, archive: Archive, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    shutil.copytree(empty_home, other)
    with Archive.open(other) as copy:
        monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 1)
        started = []
        child = analysed.python_child
        monkeypatch.setattr(analysed, "python_child", lambda *a: started.append(a) or child(*a))
        built = TantivyIndex.open(other)
        assert built.sync(copy) == archive.counts()["turns"]
        assert len(started) == 1
        monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 10**9)
        here = TantivyIndex.open(empty_home)
        assert here.sync(archive) == archive.counts()["turns"]
        for query in ("dentist", "Wohnung", "running", "東京", "🎉", "Ana flight", '"flight keys"'):
            request = SearchRequest(query, k=50)
            found = search(copy, built, request)
            assert found.hits and found == search(archive, here, request), query


def test_inside_a_transaction_the_turns_are_analysed_here(
    empty_home: Path, archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second process reads the last commit: what this connection wrote and did not commit it cannot see."""

    def no_child(*_args: object) -> None:
        raise AssertionError("no second process inside a transaction")

    monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 1)
    monkeypatch.setattr(analysed, "python_child", no_child)
    index = TantivyIndex.open(empty_home)
    with archive.transaction():
        assert len(_turns(archive, index, None)) == archive.counts()["turns"]


def test_a_failing_second_process_is_reported(tmp_path: Path) -> None:
    not_an_archive = tmp_path / "archive.db"
    not_an_archive.write_text("not SQLite")
    with pytest.raises(RuntimeError, match="analysis process failed"):
        list(analysed._in_child(not_an_archive, None, True, {}, FIELDS))
