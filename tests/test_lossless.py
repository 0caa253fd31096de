"""The lossless promise with each message's text stored once: every field an export gives a chat and its
messages (the raw record too) comes back out of the archive exactly, for every sample export; a turn's text,
which is not stored, reads as its messages make it; an archive of the last release keeps both through the
upgrade."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st
from samples import SAMPLES

from refind_cli.importers import read_export
from refind_cli.ingest import import_file
from refind_cli.storage import raw
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import sender_name, seqs_of
from refind_cli.storage.schema import applied_migrations

FIXTURE = Path(__file__).parent / "fixtures" / "release-1.archive.db"
EXPORTS = sorted(p for p in SAMPLES.iterdir() if p.suffix not in {".py", ".md"})


_FIELD = st.none() | st.text()


@given(st.text(), st.tuples(st.text(), _FIELD, _FIELD, _FIELD))
def test_a_record_comes_back_from_what_is_left_of_it_and_the_fields(record: str, fields: tuple):
    rest, form = raw.cut(record, fields)
    assert raw.joined(rest, form, fields) == record
    assert len(rest) <= len(record) or form is not None


@given(st.lists(st.text(), min_size=5, max_size=5), st.tuples(st.text(min_size=1), _FIELD, _FIELD, _FIELD))
def test_fields_inside_their_record_are_cut_out(between: list[str], fields: tuple):
    for form in raw.FORMS:
        # A record as an export writes one: its fields in some order with other text around them.
        written = [form(v) for v in fields if v]
        record = between[0] + "".join(w + b for w, b in zip(written, between[1:], strict=False))
        rest, number = raw.cut(record, fields)
        assert raw.joined(rest, number, fields) == record
        if not any(c in record for c in "\x01\x02\x03\x04"):
            assert number is not None and len(rest) <= len(record)


def test_a_whatsapp_line_keeps_only_its_punctuation():
    line = "18/03/2022, 14:56 - Dmitry S: Hello"
    fields = ("Hello", "18/03/2022, 14:56", "Dmitry S", None)
    rest, form = raw.cut(line, fields)
    assert (rest, form) == ("\x02 - \x03: \x01", 0)
    assert raw.joined(rest, form, fields) == line


# Each field is cut where it first occurs in what the fields before it left (the text first): a line's time,
# sender and text in that order are cut in one step, and these are not such lines.
@pytest.mark.parametrize(
    ("line", "fields", "rest"),
    [
        # The text is in the time: cut there, and the time is no longer whole.
        ("1/1/19, 10:00 - Al: 1", ("1", "1/1/19, 10:00", "Al", None), "\x01/1/19, 10:00 - \x03: 1"),
        # The sender is in the time too: cut where it is outside the time.
        ("12/01/2019, 10:00 - 10: hi", ("hi", "12/01/2019, 10:00", "10", None), "\x02 - \x03: \x01"),
        # The sender is only in the text: not cut.
        ("1/1/19, 10:00 - Ann: hi Bo", ("hi Bo", "1/1/19, 10:00", "Bo", None), "\x02 - Ann: \x01"),
        # The sender's first place outside the time is in another name.
        ("1/1/19, 10:00 - Bob: hello Bo", ("hello Bo", "1/1/19, 10:00", "Bo", None), "\x02 - \x03b: \x01"),
    ],
)
def test_fields_are_cut_where_they_first_occur(line: str, fields: tuple, rest: str):
    assert raw.cut(line, fields) == (rest, 0)
    assert raw.joined(rest, 0, fields) == line


# Written times are rebuilt from instants and the offset of the clock (storage.written): in a zone with
# offsets other than 0, and half hours.
@pytest.mark.parametrize("tz", [UTC, ZoneInfo("America/St_Johns")], ids=str)
def test_every_field_of_every_sample_export_comes_back_from_the_archive(tmp_path: Path, tz: tzinfo):
    assert len(EXPORTS) >= 20  # every format the samples hold
    with Archive.open(tmp_path / "home") as archive:
        for export in EXPORTS:
            expected = {
                (e.chat.source, e.chat.key): (e.chat, list(e.messages))
                for e in read_export(export, "auto", tz)
            }
            result = import_file(archive, export, tz=tz, worker=False)
            assert result.error is None, export
            for chat_result in result.chats:
                info = archive.chat(chat_result.chat_id)
                chat, messages = expected.pop((info.source, info.key))
                stored_raw, kind = archive.db.execute(
                    "SELECT raw, kind FROM chats WHERE seq = ?", (info.seq,)
                ).fetchone()
                assert (info.name, kind, stored_raw) == (chat.name, chat.kind, chat.raw)
                assert list(archive.stored_messages(info.seq)) == messages, (export, chat.key)
            assert not any(messages for _chat, messages in expected.values()), export
        # Once each: a text export's line keeps little more than its punctuation; a JSON or XML record keeps
        # what no column holds, its text cut out too in all but a few.
        lines, texts, cut, all_ = archive.db.execute(
            "SELECT sum(CASE WHEN c.source IN ('whatsapp', 'line') THEN length(m.raw) END),"
            " sum(CASE WHEN c.source IN ('whatsapp', 'line') THEN length(m.text) END),"
            " sum(m.raw_form IS NOT NULL), count(*) FROM messages m JOIN chats c ON c.seq = m.chat_seq"
        ).fetchone()
        assert lines < texts // 4 and cut > all_ * 0.9
        # Written times and the rests of WhatsApp's lines are held once by their chat.
        stamps, rebuilt, shared = archive.db.execute(
            "SELECT count(m.local_time), count(m.wall), sum(m.raw = '' AND m.raw_form NOT NULL)"
            " FROM messages m JOIN chats c ON c.seq = m.chat_seq WHERE c.source = 'whatsapp'"
        ).fetchone()
        assert rebuilt > 10 * stamps and shared > rebuilt / 2


def test_a_turn_reads_as_its_messages_make_it(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:
        for export in ("WhatsApp Chat with Jonas Becker.txt", "chatgpt-export.zip"):
            import_file(archive, SAMPLES / export, tz=UTC, worker=False)
        columns = {r[1] for r in archive.db.execute("PRAGMA table_info(turns)")}
        assert "text" not in columns
        texts = {
            seq: (sender or "", text)
            for seq, sender, text in archive.db.execute(
                f"SELECT seq, {sender_name('sender')}, text FROM messages"
            )
        }
        turns = list(archive.iter_turns())
        shapes = set()
        forms = set()  # (a run, a list) of stored forms of turns' seqs
        for turn in turns:
            stored = archive.db.execute(
                "SELECT message_seqs FROM turns WHERE session_seq = ? AND ordinal = ?",
                (turn.session_seq, turn.ordinal),
            ).fetchone()[0]
            seqs = seqs_of(stored)
            forms.add(("+" in stored, "," in stored))
            parts = [texts[s] for s in seqs]
            senders = len({sender for sender, _ in parts})
            shapes.add((min(len(parts), 2), senders))
            if senders == 1:
                assert turn.text == "\n".join(text for _, text in parts)
            else:
                assert turn.text == "\n".join(f"{sender}: {text}" for sender, text in parts)
        assert shapes >= {(1, 1), (2, 1), (2, 2)}  # one message; a burst; a question and its answer
        assert forms >= {(False, False), (True, False)}  # one message; a run


def _records_and_turns(archive: Archive) -> tuple[list[tuple[int, str]], list[tuple[int, int, str]]]:
    """(seq, raw record) of every message, as ``stored_messages`` rebuilds it; (session seq, ordinal, text)
    of every turn."""
    records = []
    for c in archive.chats():
        seqs = [
            r[0]
            for r in archive.db.execute(
                "SELECT seq FROM messages WHERE chat_seq = ? ORDER BY seq", (c.info.seq,)
            )
        ]
        records += [(seq, m.raw) for seq, m in zip(seqs, archive.stored_messages(c.info.seq), strict=True)]
    # (Not by turn id: m004 renamed sessions.)
    return sorted(records), sorted((t.session_seq, t.ordinal, t.text) for t in archive.iter_turns())


def test_an_archive_of_the_last_release_keeps_every_record_and_turn_text_through_the_upgrade(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(FIXTURE, home / "archive.db")
    with sqlite3.connect(FIXTURE) as old:
        records = old.execute("SELECT seq, raw FROM messages ORDER BY seq").fetchall()
        turn_texts = sorted(old.execute("SELECT session_seq, ordinal, text FROM turns").fetchall())
        size = old.execute("SELECT sum(length(raw)) FROM messages").fetchone()[0]
    with Archive.open(home, readonly=True) as archive:  # read as it stands, before any migration
        assert _records_and_turns(archive) == (records, turn_texts)
    with Archive.open(home) as archive:
        assert "m013_text_once" in applied_migrations(archive.db)
        rests, texts = archive.db.execute(
            "SELECT sum(length(raw)), sum(length(text)) FROM messages"
        ).fetchone()
        assert size - rests > texts * 0.8  # the records no longer hold their texts
        assert _records_and_turns(archive) == (records, turn_texts)
    assert (home / "archive.db").stat().st_size < FIXTURE.stat().st_size  # given back (VACUUM)
