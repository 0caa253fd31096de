"""Senders' names held once (m020): a message's ``sender`` is its name's key in the table ``senders``; and a
text message's kind is stored as '' (m021); a session's signature as bytes (m022). Every reader gets the names and kinds as before (stats by sender
and kind, speakers, turns, every field of every message); an archive written by the release before
(tests/fixtures/release-4.archive.db) upgrades in place and reads the same, and is read as it stands by a
reader that cannot migrate it, even when another process migrates it meanwhile; a name goes with the last
message that had it."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from samples import JONAS, SAMPLES, TELEGRAM
from test_chatwide import FIXTURE
from test_migrations import home_holding

from refind_cli.ingest import import_file
from refind_cli.method.stats import stats
from refind_cli.records import Kind
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import sender_key
from refind_cli.storage.schema import MIGRATIONS, applied_migrations, connect


def _names(archive: Archive) -> dict[str, bytes]:
    return {name: key for key, name in archive.db.execute("SELECT key, name FROM senders")}


def _readings(archive: Archive) -> tuple:
    """What readers get of the senders: who spoke, each person's stats, the turns' speakers."""
    people = sorted({name for name, _, _ in archive.speakers()})
    return (
        sorted(archive.speakers(), key=repr),
        [stats(archive, tz=UTC, senders=[name]) for name in people],
        stats(archive, tz=UTC, senders=["", people[0]]),
        [(t.id, t.speaker, t.text) for t in archive.iter_turns()],
    )


def test_each_name_is_held_once_and_every_message_keeps_its_own(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:
        for export in (JONAS, TELEGRAM, SAMPLES / "chatgpt-export.zip"):
            assert import_file(archive, export, tz=UTC, worker=False).error is None
        names = _names(archive)
        assert len(names) >= 4 and sorted(names.values(), key=lambda k: (len(k), k)) == [
            sender_key(i) for i in range(len(names))
        ]
        # Every message's sender is a key of one byte or none; each name is in the file once.
        assert archive.db.execute(
            "SELECT count(*) FROM messages WHERE sender NOT NULL AND (typeof(sender) != 'blob' OR length(sender) != 1)"
        ).fetchone() == (0,)
        assert archive.db.execute("SELECT count(*) FROM messages WHERE sender IS NULL").fetchone()[0] > 0
        people = {name for name, _, _ in archive.speakers()}
        assert people == set(names) | {""}
        jonas = stats(archive, tz=UTC, senders=["Jonas Becker"])
        assert 0 < jonas.messages < stats(archive, tz=UTC).messages
        assert [p for p, _ in jonas.people] == ["Jonas Becker"]
        # Text is the kind stored as ''; the others by name; every reader reads "text".
        stored = dict(archive.db.execute("SELECT kind, count(*) FROM messages GROUP BY kind").fetchall())
        assert stored[""] > 5 * sum(n for kind, n in stored.items() if kind) and Kind.TEXT not in stored
        assert dict(stats(archive, tz=UTC).kinds)[Kind.TEXT] == stored[""]
        kinds = {m.kind for c in archive.chats() for m in archive.stored_messages(c.info.seq)}
        assert Kind.TEXT in kinds and "" not in kinds and len(kinds) >= 3


def test_a_name_goes_with_the_last_message_that_had_it_and_a_new_one_takes_a_new_key(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:
        for export in (JONAS, TELEGRAM):
            assert import_file(archive, export, tz=UTC, worker=False).error is None
        names = _names(archive)
        gone = "Jonas Becker"
        with archive.transaction():
            archive.forget_messages(
                [
                    r[0]
                    for r in archive.db.execute("SELECT seq FROM messages WHERE sender = ?", (names[gone],))
                ]
            )
        assert _names(archive) == {n: k for n, k in names.items() if n != gone}
        highest = max(names.values(), key=lambda k: (len(k), k))
        with archive.transaction():
            added = archive._lean([(None, 1, "w:" + "0" * 20, 0, None, "Someone new", *[None] * 11)])
        assert added[0][5] == sender_key(int.from_bytes(highest) + 1)  # the row's sender, stored as its key


def test_an_archive_of_the_release_before_upgrades_and_reads_the_same(tmp_path: Path):
    home = home_holding(FIXTURE, tmp_path)
    with Archive.open(home, readonly=True) as old:
        assert "m020_senders_held_once" not in applied_migrations(old.db)
        stored = {r[0] for r in old.db.execute("SELECT sender FROM messages WHERE sender NOT NULL")}
        before = _readings(old)
        before_sessions = old.db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    with Archive.open(home) as archive:
        assert applied_migrations(archive.db) == [name for name, _ in MIGRATIONS]
        assert set(_names(archive)) == stored and len(stored) > 5
        assert archive.db.execute(
            "SELECT count(*) FROM messages WHERE typeof(sender) = 'text'"
        ).fetchone() == (0,)
        texts = f"kind = '{Kind.TEXT}'"
        named, counted, implied = archive.db.execute(
            f"SELECT (SELECT count(*) FROM messages WHERE {texts}), (SELECT count(*) FROM message_counts WHERE {texts}),"
            " (SELECT count(*) FROM messages WHERE kind = '')"
        ).fetchone()
        assert named == counted == 0 and implied > 100
        # m022: each session's signature as its bytes, 8 of them since m033 (a re-import finds them equal:
        # test_chatwide).
        assert archive.db.execute(
            "SELECT count(*), sum(typeof(signature) = 'blob' AND length(signature) = 8) FROM sessions"
        ).fetchone() == (before_sessions, before_sessions)
        assert _readings(archive) == before


def test_a_reader_of_the_release_before_reads_names_before_and_after_another_migrates_it(tmp_path: Path):
    home = home_holding(FIXTURE, tmp_path)
    with Archive.open(home, readonly=True) as reader:
        with reader.snapshot():
            before = _readings(reader)
        connect(home / "archive.db").close()  # another process's upgrade
        with reader.snapshot():
            assert "m020_senders_held_once" in applied_migrations(reader.db)
            assert _readings(reader) == before
