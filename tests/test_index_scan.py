"""An index build of every turn reads the turns from one pass over the messages (``Queries.index_rows`` with
no sessions named): the same rows as the query that rebuilds each turn's text in SQL, which reads named
sessions; and a first import's compaction runs beside the build (``TurnIndex.sync``'s ``meanwhile``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from refind_cli.facade import Home
from refind_cli.index import INDEXED_CHARS, analysed
from refind_cli.index.tantivy_backend import TantivyIndex
from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Kind, Message
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
WORDS = "dentist appointment Wohnung flight keys Lisbon Häuser 東京タワー 🎉 straße".split()


def _text(i: int) -> str:
    text = " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 2 + i % 6))
    return text + "\nsecond line" if i % 7 == 0 else text


def _messages(n: int, senders: tuple[str | None, ...], start: datetime = T0) -> list[Message]:
    return [
        Message(
            start + timedelta(minutes=5 * i + (200 if i % 11 == 0 else 0) * i),
            senders[i % 3 % len(senders)],
            "x" * 70 + f" long {i}" if i % 13 == 5 else _text(i),
            kind=Kind.HIDDEN if i % 17 == 3 else Kind.TEXT,
        )
        for i in range(n)
    ]


def _one(archive: Archive, sql: str) -> int:
    return int(str(archive.db.execute(sql).fetchall()[0][0]))


def _every_session(archive: Archive) -> list[int]:
    return [row[0] for row in archive.db.execute("SELECT seq FROM sessions")]


def _same_rows(archive: Archive) -> int:
    """The pass's rows equal the query's over every session, at the full length and cut short; how many."""
    sessions = _every_session(archive)
    counts = set()
    for chars in (INDEXED_CHARS, 40):
        scanned = list(archive.index_rows(None, chars=chars))
        assert scanned == list(archive.index_rows(sessions, chars=chars))
        assert any(len(row[5]) == chars for row in scanned) == (chars == 40)
        counts.add(len(scanned))
    [count] = counts
    return count


@pytest.fixture
def archive(empty_home: Path) -> Iterator[Archive]:
    """Chats whose turns come in every shape: runs of one sender, several senders in one turn (an
    exchange), a sender's name unset, hidden messages, texts longer than a cut, times before 1970, messages
    that came out of order (turns listing seqs that go back), threads, and a chat that grew after another
    was imported (its new turns' messages lie after the other chat's)."""
    with Archive.open(empty_home) as arch:
        import_chat(arch, Chat("test", "two", "Two"), _messages(90, ("Ana", "Ben")))
        import_chat(arch, Chat("test", "ex", "Ex"), _messages(60, ("Cy", "Dee", None)), pairing="exchange")
        before = _messages(30, ("Eve", "Fay"), datetime(1969, 12, 31, 23, 0, 0, 500_000, tzinfo=UTC))
        import_chat(arch, Chat("test", "old", "Old"), before)
        shuffled = _messages(50, ("Gus", "Hal"))
        import_chat(arch, Chat("test", "shuffled", "Shuffled"), shuffled[25:] + shuffled[:25])
        threaded = [
            m._replace(thread=f"t{i % 4}" if i % 3 else None)
            for i, m in enumerate(_messages(40, ("Ivy", "Jo")))
        ]
        import_chat(arch, Chat("test", "threads", "Threads"), threaded)
        import_chat(arch, Chat("test", "two", "Two"), _messages(30, ("Ana", "Ben"), T0 + timedelta(days=400)))
        yield arch


def test_the_pass_gives_the_query_s_rows(archive: Archive) -> None:
    turns = [str(row[0]) for row in archive.db.execute("SELECT message_seqs FROM turns")]
    assert any("+" in seqs for seqs in turns)  # runs
    listed = [[int(seq) for seq in seqs.split(",")] for seqs in turns if "," in seqs]
    assert any(seqs != sorted(seqs) for seqs in listed)  # seqs that go back
    assert _one(archive, "SELECT count(*) FROM messages WHERE ts < 0") > 0
    assert _same_rows(archive) == archive.counts()["turns"]


def test_the_pass_reads_what_the_query_reads_where_rows_are_odd(archive: Archive) -> None:
    """A turn whose first message is gone is left out, one whose later message is gone holds the rest; a
    sender whose key the senders table lacks reads as no name; a text stored as a BLOB (apart) in a turn of
    several is read as the query reads it."""
    with archive.transaction():
        runs = [str(r[0]) for r in archive.db.execute("SELECT message_seqs FROM turns") if "+" in str(r[0])]
        first_gone, later_gone, blob_in = runs[0], runs[3], runs[5]
        archive.db.execute("DELETE FROM messages WHERE seq = ?", (int(first_gone.split("+")[0]),))
        archive.db.execute("DELETE FROM messages WHERE seq = ?", (int(later_gone.split("+")[0]) + 1,))
        archive.db.execute(
            "UPDATE messages SET text = CAST(text AS BLOB) WHERE seq = ?", (int(blob_in.split("+")[0]),)
        )
        archive.db.execute("UPDATE messages SET sender = x'7f7f' WHERE seq % 10 = 3")
    assert _same_rows(archive) == archive.counts()["turns"] - 1


def test_a_first_sync_compacts_beside_the_build_with_the_queue_emptied(
    empty_home: Path, archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In the second process's build the work runs in a thread while the documents are added, after the
    queue was emptied; the index holds every turn; the archive is compacted."""
    monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 1)
    index = TantivyIndex.open(empty_home)
    seen: list[tuple[bool, list[int]]] = []

    def work() -> None:
        import threading

        seen.append((threading.current_thread() is threading.main_thread(), archive.index_queue()))
        archive.compact()

    assert archive.index_queue()
    assert index.sync(archive, meanwhile=work) == archive.counts()["turns"] == index.num_docs
    assert seen == [(False, [])]
    assert _one(archive, "PRAGMA freelist_count") == 0
    # Synced already: the work runs after (nothing to build).
    assert index.sync(archive, meanwhile=work) == 0
    assert seen[1] == (True, [])


def test_work_beside_the_build_that_fails_fails_the_sync(
    empty_home: Path, archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 1)
    index = TantivyIndex.open(empty_home)

    def work() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        index.sync(archive, meanwhile=work)
    # Nothing indexed, the queue emptied: the next sync (a reader's catch-up) indexes every turn.
    assert index.num_docs == 0 and not archive.index_queue()
    assert index.sync(archive) == archive.counts()["turns"] == index.num_docs


def test_in_this_process_the_work_runs_once_the_turns_are_read(empty_home: Path, archive: Archive) -> None:
    import threading

    index = TantivyIndex.open(empty_home)
    ran: list[bool] = []
    assert (
        index.sync(
            archive, meanwhile=lambda: ran.append(threading.current_thread() is threading.main_thread())
        )
        > 0
    )
    assert ran == [True]
    assert index.num_docs == archive.counts()["turns"]


def test_in_this_process_the_compaction_follows_the_reading(empty_home: Path, archive: Archive) -> None:
    """The pass leaves no statement running when the turns end before the messages do (a hidden message
    last): VACUUM refuses to run beside one."""
    import_chat(archive, Chat("test", "last", "Last"), _messages(21, ("Kim", "Lu")))
    last = archive.db.execute("SELECT kind FROM messages ORDER BY seq DESC LIMIT 1").fetchall()
    assert last == [(Kind.HIDDEN,)]
    index = TantivyIndex.open(empty_home)
    assert index.sync(archive, meanwhile=archive.compact) == archive.counts()["turns"] == index.num_docs
    assert _one(archive, "PRAGMA freelist_count") == 0


def test_a_first_import_is_indexed_and_compacted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 1)
    export = tmp_path / "WhatsApp Chat with Bench.txt"
    lines = [
        f"0{1 + i // 1440 % 9}/01/2020, {i // 60 % 24:02d}:{i % 60:02d} - {('Ana', 'Ben')[i % 3 % 2]}: {_text(i)}"
        for i in range(3000)
    ]
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with Home.open(tmp_path / "home") as home:
        [result] = home.import_files([export], Home.import_options(tz=UTC))
        assert result.error is None
        archive = home.archive()
        assert _one(archive, "PRAGMA freelist_count") == 0
        assert not archive.index_queue()
        assert home.index().num_docs == archive.counts()["turns"] > 0
