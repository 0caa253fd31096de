"""Issue 24, item 4 (session 12): a text over ``LONG_TEXT`` characters is stored apart (``m040``), so that
neither storing it nor `chats merge` makes SQLite hold it whole.

SQLite's own memory is measured with its high-water mark (``apsw.memory_high_water``: exact, whatever the
machine's load), which counts its page cache too: the cache is made small here (1 MB) where a test writes
the text, so that the bound says what SQLite holds beyond the pages it caches anyway. Before: the text cast
from a zeroblob in its row (the value, then the row's record: twice the message), and a merge rewriting its
row (the text loaded, the record built again).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import apsw
import pytest
from cli_runs import run

from refind_cli.ingest import import_chat, import_file
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import LONG_TEXT
from refind_cli.storage.schema import migrate

MB = 1 << 20
LINE = "all work and no play makes jack a dull boy "


def whatsapp(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"WhatsApp Chat with {name}.txt"
    path.write_text(
        f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - {name}: {body}\n01/02/2024, 11:01 - Ann: ok\n"
    )
    return path


def body_of(chars: int) -> str:
    """At least ``chars`` characters; one of two bytes, so that bytes and characters differ."""
    return "abc é " + LINE * (chars // len(LINE) + 1)


def sqlite_peak(run_it: object) -> int:
    """How far SQLite's memory rose above what it held before ``run_it()``."""
    assert callable(run_it)
    before = apsw.memory_used()
    apsw.memory_high_water(True)
    run_it()
    return apsw.memory_high_water(True) - before


@pytest.mark.parametrize("worker", [True, False], ids=["sent in pieces", "in this process"])
def test_storing_a_long_text_does_not_make_sqlite_hold_it(tmp_path: Path, worker: bool):
    body = body_of(6 * MB)
    path = whatsapp(tmp_path / "in", "Jack", body)
    with Archive.open(tmp_path / "home") as archive:
        archive.db.execute("PRAGMA cache_size=-1024")
        results = []
        peak = sqlite_peak(lambda: results.append(import_file(archive, path, tz=UTC, worker=worker)))
        assert [m.text for m in archive.stored_messages(1)] == ["hi", body, "ok"]
        # The text's own row is not counted as a message.
        assert [(c.messages_added, c.messages_skipped) for c in results[0].chats] == [(3, 0)]
        assert archive.db.execute("SELECT chars FROM long_texts").fetchall() == [(len(body),)]
    # Before: 2.0x the message (the text cast from a zeroblob in its row, then the row's record).
    assert peak < 0.3 * len(body), f"{peak / len(body):.2f} times the message"


def test_merging_a_chat_with_a_long_text_does_not_make_sqlite_hold_it(tmp_path: Path):
    body = body_of(6 * MB)
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        for name, text in (("Jack", body), ("Zed", "hello")):
            assert (
                import_file(archive, whatsapp(tmp_path / name, name, text), tz=UTC, worker=False).error
                is None
            )
    assert run(home, "search", "abc").exit_code == 0  # the index is built before the merge
    done: list[int] = []
    peak = sqlite_peak(lambda: done.append(run(home, "chats", "merge", "Zed", "Jack").exit_code))
    assert done == [0]
    with Archive.open(home) as archive:
        assert [c.info.seq for c in archive.chats()] == [2]
        # Ann's "hi" and "ok" are in both chats: kept once.
        assert sorted(m.text for m in archive.stored_messages(2)) == sorted(["hi", "hello", body, "ok"])
    found = run(home, "search", "abc", "--json")
    assert found.exit_code == 0 and f'"text_length": {len(body)}' in found.stdout
    # Before: 3.0x the message (its row loaded and rewritten, its pages cached); now the pages of the part
    # the index reads (1M characters) and the rest of the command, which do not grow with the message.
    assert peak < 0.5 * len(body), f"{peak / len(body):.2f} times the message"


def test_a_forgotten_long_text_leaves_no_byte_behind(tmp_path: Path):
    body = "zanzibar " + "x" * LONG_TEXT
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        assert (
            import_file(archive, whatsapp(tmp_path / "in", "Jack", body), tz=UTC, worker=False).error is None
        )
    assert run(home, "forget", "--matching", "zanzibar", "--yes").exit_code == 0
    with Archive.open(home) as archive:
        assert archive.db.execute("SELECT count(*) FROM long_texts").fetchall() == [(0,)]
        assert [m.text for m in archive.stored_messages(1)] == ["hi", "ok"]
        archive.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert b"zanzibar" not in b"".join(p.read_bytes() for p in home.glob("archive.db*"))


def test_a_long_text_kept_in_its_row_before_m040_is_read_as_before(tmp_path: Path):
    """An archive's long texts stored before m040 stay in their rows: every reader takes both places."""
    body = body_of(LONG_TEXT + 10)
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        assert (
            import_file(archive, whatsapp(tmp_path / "in", "Jack", body), tz=UTC, worker=False).error is None
        )
        with archive.transaction():
            archive.db.execute(
                "UPDATE messages SET text = (SELECT CAST(l.text AS TEXT) FROM long_texts l WHERE l.seq = messages.seq)"
                " WHERE typeof(text) = 'blob'"
            )
            archive.db.execute("DELETE FROM long_texts")
        assert [m.text for m in archive.stored_messages(1)] == ["hi", body, "ok"]
        assert [t.text for t in archive.iter_turns() if len(t.text) > 2] == [body]
    found = run(home, "search", "abc", "--json")
    assert found.exit_code == 0 and f'"text_length": {len(body)}' in found.stdout


def test_m040_moves_a_long_text_kept_in_its_row_apart_a_piece_at_a_time(tmp_path: Path):
    body = body_of(6 * MB)
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        assert (
            import_file(archive, whatsapp(tmp_path / "in", "Jack", body), tz=UTC, worker=False).error is None
        )
        with archive.transaction():  # as the release before m040 stored it
            archive.db.execute(
                "UPDATE messages SET text = (SELECT CAST(l.text AS TEXT) FROM long_texts l WHERE l.seq = messages.seq)"
                " WHERE typeof(text) = 'blob'"
            )
            archive.db.execute("DROP TABLE long_texts")
            archive.db.execute("DELETE FROM migrations WHERE name = 'm040_long_texts_apart'")
    db = apsw.Connection(str(home / "archive.db"))
    db.execute("PRAGMA cache_size=-1024")
    peak = sqlite_peak(lambda: migrate(db))
    db.close()
    with Archive.open(home) as archive:
        assert archive.db.execute("SELECT seq, chars FROM long_texts").fetchall() == [(2, len(body))]
        assert [m.text for m in archive.stored_messages(1)] == ["hi", body, "ok"]
    found = run(home, "search", "abc", "--json")
    assert found.exit_code == 0 and f'"text_length": {len(body)}' in found.stdout
    assert peak < 0.3 * len(body), f"{peak / len(body):.2f} times the message"


def test_a_long_text_both_merged_chats_hold_is_kept_once(tmp_path: Path):
    body = body_of(LONG_TEXT + 10)
    when = datetime(2024, 2, 1, 11, tzinfo=UTC)
    with Archive.open(tmp_path / "home") as archive:
        for key in ("a", "b"):
            import_chat(archive, Chat("test", key, key.upper()), [Message(when, "Ann", body)])
        with archive.transaction():
            archive.merge_chats(1, 2)
        assert archive.db.execute("SELECT seq FROM long_texts").fetchall() == [(1,)]
        assert [m.text for m in archive.stored_messages(1)] == [body]
