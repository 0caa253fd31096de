from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fake_index import MemoryIndex

from refind_cli.errors import BusyError
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.index.tantivy_backend import _runs
from refind_cli.ingest import import_chat
from refind_cli.method.search import search
from refind_cli.records import Chat, Message
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import LUCENE_STOPWORDS, Analyzer

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
CHAT = Chat("test", "c1", "Alice")


def msgs(*specs: tuple[float, str, str]) -> list[Message]:
    """(hours after T0, sender, text)."""
    return [Message(T0 + timedelta(hours=h), who, text) for h, who, text in specs]


@pytest.fixture
def archive(empty_home: Path) -> Iterator[Archive]:
    with Archive.open(empty_home) as arch:
        import_chat(
            arch,
            CHAT,
            msgs(
                (0, "Alice", "I need a dentist"),
                (0.1, "Bob", "try Dr. Paris"),
                (0.2, "Alice", "thanks"),
                (5, "Alice", "the dentist was great"),
                (5.1, "Bob", "told you"),
            ),
        )
        yield arch


def test_open_is_read_only_and_empty(empty_home: Path, archive: Archive) -> None:
    idx = Index.open(empty_home)
    assert idx.generation is None and idx.num_docs == 0
    assert not list((empty_home / "index").glob("g-*"))
    assert search(archive, idx, SearchRequest("dentist")).hits == ()


def test_sync_indexes_every_turn_and_is_idempotent(empty_home: Path, archive: Archive) -> None:
    idx = Index.open(empty_home)
    assert idx.sync(archive) == archive.counts()["turns"] == 5
    assert archive.index_queue() == []
    assert idx.sync(archive) == 0
    assert idx.num_docs == 5
    # A second process sees the same generation.
    again = Index.open(empty_home)
    assert again.generation == idx.generation and again.num_docs == 5


# The fake engine follows the archive's index queue as tantivy does.
ENGINES = {"tantivy": Index.open, "memory": lambda home: MemoryIndex()}


@pytest.mark.parametrize("engine", ENGINES)
def test_sync_upserts_changed_sessions(empty_home: Path, archive: Archive, engine: str) -> None:
    idx = ENGINES[engine](empty_home)
    idx.sync(archive)
    import_chat(archive, CHAT, msgs((0.15, "Carol", "root canal tomorrow")))
    assert archive.index_queue() != []
    idx.sync(archive)
    assert idx.num_docs == archive.counts()["turns"] == 6
    assert [h.turn.text for h in search(archive, idx, SearchRequest("root canal")).hits] == [
        "root canal tomorrow"
    ]


@pytest.mark.parametrize("engine", ENGINES)
def test_deleted_sessions_leave_the_index(empty_home: Path, archive: Archive, engine: str) -> None:
    idx = ENGINES[engine](empty_home)
    idx.sync(archive)
    first = search(archive, idx, SearchRequest("paris")).hits[0].turn
    with archive.transaction():
        archive.delete_sessions([first.session_seq])
    idx.sync(archive)
    assert idx.num_docs == archive.counts()["turns"] == 2
    assert search(archive, idx, SearchRequest("paris")).total == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_doc_freq_counts_the_turns_holding_a_term(empty_home: Path, archive: Archive, engine: str) -> None:
    idx = ENGINES[engine](empty_home)
    idx.sync(archive)
    assert idx.doc_freq("dentist") == search(archive, idx, SearchRequest("dentist")).total == 2
    assert idx.doc_freq("alic") == 3  # the speaker's name is indexed with the text, analysed
    assert idx.doc_freq("xylophon") == 0


def test_crash_before_queue_cleared_is_repaired(empty_home: Path, archive: Archive, monkeypatch) -> None:
    idx = Index.open(empty_home)
    idx.sync(archive)
    import_chat(archive, CHAT, msgs((0.15, "Carol", "root canal tomorrow")))
    queued = archive.index_queue()

    def crash(seqs: object) -> None:
        raise RuntimeError("killed")

    with monkeypatch.context() as m:
        m.setattr(archive, "clear_index_queue", crash)
        with pytest.raises(RuntimeError):
            idx.sync(archive)
    # The documents were committed but the queue still says stale: the next sync redoes the same work.
    assert archive.index_queue() == queued
    idx.sync(archive)
    assert archive.index_queue() == []
    assert idx.num_docs == archive.counts()["turns"] == 6
    assert search(archive, idx, SearchRequest("root canal")).total == 1


def test_failed_write_commits_nothing(empty_home: Path, archive: Archive, monkeypatch) -> None:
    idx = Index.open(empty_home)
    idx.sync(archive)
    import_chat(archive, CHAT, msgs((9, "Bob", "orthodontist next week")))

    def broken(*_: object) -> str:
        raise RuntimeError("disk on fire")

    with monkeypatch.context() as m:
        m.setattr(idx.analyzer, "index_text", broken)
        with pytest.raises(RuntimeError):
            idx.sync(archive)
    # The deletes of the failed sync were rolled back too.
    assert Index.open(empty_home).num_docs == 5
    idx.sync(archive)
    assert idx.num_docs == 6


def test_lost_index_is_rebuilt_by_sync(empty_home: Path, archive: Archive) -> None:
    Index.open(empty_home).sync(archive)
    shutil.rmtree(empty_home / "index")
    idx = Index.open(empty_home)
    assert archive.index_queue() == []
    assert idx.sync(archive) == 5
    assert search(archive, idx, SearchRequest("dentist")).total == 2


def test_other_format_is_not_reused(empty_home: Path, archive: Archive) -> None:
    Index.open(empty_home).sync(archive)
    lucene = Index.open(empty_home, analyzer=Analyzer(LUCENE_STOPWORDS, name="lucene"))
    assert lucene.generation is None
    assert lucene.sync(archive) == 5
    assert Index.open(empty_home).generation is None  # and back: the default format is gone now
    no_speaker = Index.open(
        empty_home, analyzer=Analyzer(LUCENE_STOPWORDS, name="lucene"), speaker_in_text=False
    )
    assert no_speaker.generation is None
    assert len(list((empty_home / "index").glob("g-*"))) == 1


def test_rebuild_swaps_generation_and_other_handles_follow(empty_home: Path, archive: Archive) -> None:
    a = Index.open(empty_home)
    a.sync(archive)
    old = a.generation
    b = Index.open(empty_home)
    assert b.rebuild(archive) == 5
    assert b.generation != old
    assert [p.name for p in (empty_home / "index").glob("g-*")] == [b.generation]
    # `a` still points at the removed generation; its next write must land in the live one.
    import_chat(archive, CHAT, msgs((9, "Bob", "orthodontist next week")))
    a.sync(archive)
    assert a.generation == b.generation
    fresh = Index.open(empty_home)
    assert fresh.num_docs == 6
    assert search(archive, fresh, SearchRequest("orthodontist")).total == 1


def test_second_writer_waits_then_gives_up(empty_home: Path, archive: Archive) -> None:
    holder = Index.open(empty_home)
    messages: list[str] = []
    waiter = Index.open(empty_home, on_wait=messages.append, wait_timeout=0.3)
    with holder._write_lock(), pytest.raises(BusyError, match="another refind process"):
        waiter.sync(archive)
    assert len(messages) == 1
    # Readers are never blocked, and once the lock is free the writer proceeds.
    assert waiter.sync(archive) == 5


def test_the_method_never_imports_the_engine() -> None:
    code = (
        "import sys\n"
        "import refind_cli.method.search, refind_cli.frontends.render.search, refind_cli.index\n"
        "sys.path.insert(0, 'tests')\n"
        "import fake_index\n"
        "print('tantivy' in sys.modules)\n"
        "import pathlib, tempfile\n"
        "from refind_cli.index import DEFAULT_ENGINE, open_index\n"
        "index = open_index(pathlib.Path(tempfile.mkdtemp()) / 'home')\n"
        "print('tantivy' in sys.modules, DEFAULT_ENGINE, type(index).__name__)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.stdout.split() == ["False", "True", "tantivy", "TantivyIndex"], p.stderr


def test_runs_of_consecutive_sessions() -> None:
    # The sync deletes each run's documents with one range query, so a run must never bridge a gap.
    assert list(_runs([1, 2, 3, 5, 7, 8, 10])) == [(1, 3), (5, 5), (7, 8), (10, 10)]
    assert list(_runs([4])) == [(4, 4)]
    assert list(_runs([])) == []
