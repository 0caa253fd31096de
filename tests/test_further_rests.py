"""Further rests held once by their chat (m030): a WhatsApp sender saved as a phone number is written
between direction marks, so their lines leave a rest of their own beside the chat's commonest; each is held
once by the chat (``chats.rests``), a row's ``raw`` its one-byte key. Every record reads back as exported,
through a merge too; an archive written by main before (tests/fixtures/release-5.archive.db) upgrades in
place and reads the same. And a session's id stored as the 6 bytes its hex spells (m031), its turns without
their chat (m032), its signature in 8 bytes (m033): read as before, and the same export imported again
finds every session unchanged."""

from __future__ import annotations

import shutil
from datetime import UTC
from pathlib import Path

from marked_senders import PHONE_CHAT, phone_chat

from refind_cli.importers import read_export
from refind_cli.ingest import import_file
from refind_cli.storage import raw
from refind_cli.storage.archive import Archive
from refind_cli.storage.schema import applied_migrations

FIXTURE = Path(__file__).parent / "fixtures" / "release-5.archive.db"
MARKED = "\x02 - \u202a\x03\u202c: \x01"  # a line's rest where its sender is a number between marks
PLAIN = "\x02 - \x03: \x01"


def _export(tmp_path: Path) -> Path:
    path = tmp_path / PHONE_CHAT
    path.write_text(phone_chat(), encoding="utf-8")
    return path


def _stored(archive: Archive) -> dict[str, list]:
    return {c.info.name: list(archive.stored_messages(c.info.seq)) for c in archive.chats()}


def _rows(archive: Archive, name: str) -> list[str | bytes]:
    return [
        r[0]
        for r in archive.db.execute(
            "SELECT m.raw FROM messages m JOIN chats c ON c.seq = m.chat_seq WHERE c.name = ? ORDER BY m.seq",
            (name,),
        )
    ]


def test_the_rest_of_a_number_between_marks_is_held_once_and_every_record_reads_as_exported(tmp_path: Path):
    export = _export(tmp_path)
    [exported] = read_export(export, "auto", UTC)
    with Archive.open(tmp_path / "home") as archive:
        assert import_file(archive, export, tz=UTC, worker=False).error is None
        [chat] = [c.info for c in archive.chats()]
        assert list(archive.stored_messages(chat.seq)) == list(exported.messages)
        # The commonest rest (26 of 40 lines: two numbers between marks) is the chat's, the other the first
        # further one: no row keeps a rest of its own.
        assert (chat_rest := archive.chatwide(chat.seq)).rest == MARKED and chat_rest.rests == (PLAIN,)
        assert set(_rows(archive, chat.name)) == {"", b"\x00"}


def test_a_rest_that_holds_what_a_person_wrote_is_not_shared():
    assert raw.unwritten(MARKED) and raw.unwritten(PLAIN)
    assert not raw.unwritten("\x02 - Dr. \x03: \x01")  # a title written before the name
    assert not raw.unwritten("\x02 - \u202a\x03\u202c 2: \x01")
    assert not raw.unwritten("\x01" + "-" * 100)  # longer than a line's punctuation


def test_a_chat_merged_into_another_keeps_every_record(tmp_path: Path):
    first = _export(tmp_path)
    second = tmp_path / "WhatsApp Chat with Wall Crew.txt"
    # Its commonest rest is the plain one (one number saved as a name), so its keys mean other rests.
    crew = phone_chat().replace("route", "wall").replace("\u202a+351 912 345 678\u202c", "Noah Weber")
    second.write_text(crew, encoding="utf-8")
    with Archive.open(tmp_path / "home") as archive:
        assert import_file(archive, first, tz=UTC, worker=False).error is None
        [into] = [c.info for c in archive.chats()]
        before = list(archive.stored_messages(into.seq))
        assert import_file(archive, second, tz=UTC, worker=False).error is None
        [moved] = [c.info for c in archive.chats() if c.info.seq != into.seq]
        assert archive.chatwide(moved.seq).rests == (MARKED,) and archive.chatwide(into.seq).rests == (PLAIN,)
        moving = list(archive.stored_messages(moved.seq))
        assert b"\x00" in _rows(archive, moved.name)
        archive.merge_chats(into.seq, moved.seq)
        merged = list(archive.stored_messages(into.seq))
        assert sorted(merged, key=repr) == sorted(before + moving, key=repr)


def test_an_archive_of_main_before_upgrades_in_place_and_reads_the_same(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(FIXTURE, home / "archive.db")
    with Archive.open(home, readonly=True) as archive:
        assert "m030_further_rests" not in applied_migrations(archive.db)
        before = _stored(archive)
        assert set(_rows(archive, "Boulder Crew")) == {MARKED, PLAIN}
    with Archive.open(home) as archive:
        with archive.transaction():  # the first write applies the migrations
            pass
        assert "m030_further_rests" in applied_migrations(archive.db)
        assert _stored(archive) == before
        [crew] = [c.info for c in archive.chats() if c.info.name == "Boulder Crew"]
        # Neither rest was the chat's before (m019 shared only ASCII): both are further ones now.
        assert set(archive.chatwide(crew.seq).rests) == {MARKED, PLAIN}
        assert set(_rows(archive, "Boulder Crew")) == {b"\x00", b"\x01"}


def _session_readings(archive: Archive) -> tuple:
    """What readers get of sessions by their ids: every turn's id, each session, its neighbours, its turns."""
    turns = [(t.id, t.session_id, t.ordinal, t.text) for t in archive.iter_turns()]
    ids = sorted({sid for _, sid, _, _ in turns})
    return (
        turns,
        archive.session_seqs(ids),
        [archive.session(sid) for sid in ids],
        [archive.neighbour_sessions(sid) for sid in ids],
        [[t.id for t in archive.session_turns(sid)] for sid in ids],
        archive.turns([tid for tid, _, _, _ in turns[::7]]).keys(),
    )


def test_session_ids_are_stored_as_their_bytes_and_read_as_before(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(FIXTURE, home / "archive.db")
    with Archive.open(home, readonly=True) as archive:
        before = _session_readings(archive)
        assert {r[0] for r in archive.db.execute("SELECT typeof(id) FROM sessions")} == {"text"}
    with Archive.open(home) as archive:
        with archive.transaction():  # the first write applies the migrations
            pass
        assert "m031_session_ids_as_bytes" in applied_migrations(archive.db)
        assert {r[0] for r in archive.db.execute("SELECT length(id) FROM sessions")} == {6}
        assert _session_readings(archive) == before
        # The export imported again finds every session as it was (signatures cut to 8 bytes by m033 are
        # what the segmenter makes now), nothing added.
        [again] = import_file(archive, _export(tmp_path), tz=UTC, worker=False).chats
        assert (again.messages_added, again.sessions_changed) == (0, 0)
        assert {r[0] for r in archive.db.execute("SELECT length(signature) FROM sessions")} == {8}
        # A new import stores its sessions' ids as bytes too; an id that is no session's finds nothing.
        added = tmp_path / "WhatsApp Chat with Wall Crew.txt"
        added.write_text(phone_chat().replace("route", "wall"), encoding="utf-8")
        result = import_file(archive, added, tz=UTC, worker=False)
        assert result.error is None and result.chats[0].sessions_changed > 0
        assert {r[0] for r in archive.db.execute("SELECT typeof(id) FROM sessions")} == {"blob"}
        assert archive.session("not hex") is None and archive.session_seqs(["0123456789ab"]) == {}
