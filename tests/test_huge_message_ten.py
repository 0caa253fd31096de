"""Issue 24, item 4 (session 18): a sigtop message quoting a huge one. Its text is short: the 50 MB are in its
raw record only, which was read whole (the cut line, the block joined: four bytes a character where the
record holds an emoji elsewhere), cut (``raw.cut``: three copies), sent and stored whole (SQLite's bound
value and row record): 379 MB for a 50-MB quote (session 17). Now a record whose cut lines are not the
text's (a quote's, an older version's) is held in a file (``HeldText``), kept whole (not cut), sent in
pieces and stored apart (``long_raws``, m042), a piece at a time.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest
from cli_runs import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_huge_message_eight import _conversation, _edited_block, _long
from test_huge_message_worker import WORDS, bounded, read_as_whole, read_held_in_part

from refind_cli.importers import linelog, read_export, sigtop
from refind_cli.ingest import import_file
from refind_cli.records import HeldText, Message
from refind_cli.storage.archive import Archive
from refind_cli.storage.schema import applied_migrations

MB = 1 << 20


def _pasted(mb: int, prefix: str) -> str:
    """A pasted log of ``mb`` MB, its lines written after ``prefix`` (as a version's or a quote's are)."""
    return f"{WORDS.strip()}\n{prefix}" * (mb * MB // len(WORDS))


def _quote_block(quote: str, text: str = "yes 😀") -> str:
    return (
        "From: You\nType: outgoing\nSent: Mon, 28 May 2018 10:01:00 +0000\n\n"
        f"> From: Jack (+4912345)\n> {quote}\n>\n> é\n\n{text}"
    )


def _read(path: Path) -> list[Message]:
    return [m for export in read_export(path, "signal", UTC) for m in export.messages]


def _stored(home: Path) -> list[Message]:
    with Archive.open(home) as archive:
        return list(archive.stored_messages(1))


@pytest.mark.parametrize("worker", [False, True])
def test_a_long_quote_is_held_in_its_record_and_stored_apart(tmp_path: Path, worker: bool):
    block = _quote_block(_long(2) + " zanzibar")
    path = _conversation(tmp_path, block)
    messages = _read(path)
    assert [m.text for m in messages] == ["hi", "yes 😀", "ok"]
    assert [type(m.raw) for m in messages] == [str, HeldText, str]
    held = messages[1].raw
    assert isinstance(held, HeldText) and held.whole() == block and len(held) == len(block)
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        assert import_file(archive, path, tz=UTC, worker=worker).error is None
        stored = list(archive.stored_messages(1))
        # Kept whole: its row's raw an empty BLOB, the record a row of long_raws.
        assert archive.db.execute("SELECT typeof(raw), raw_form FROM messages WHERE seq = 2").fetchall() == [
            ("blob", None)
        ]
        assert archive.db.execute("SELECT seq, chars FROM long_raws").fetchall() == [(2, len(block))]
    assert stored[1].raw == block and [m.text for m in stored] == ["hi", "yes 😀", "ok"]
    assert [m._replace(raw="") for m in stored] == [m._replace(raw="") for m in messages]


def test_an_edited_message_whose_older_version_is_long_holds_its_record(tmp_path: Path):
    block = _edited_block("two chairs 😅", older=_long(2) + " é")
    path = _conversation(tmp_path, block)
    messages = _read(path)
    assert messages[1].text == "two chairs 😅" and messages[1].edited
    assert isinstance(messages[1].raw, HeldText) and messages[1].raw.whole() == block
    assert run(tmp_path / "home", "import", str(path)).exit_code == 0
    assert _stored(tmp_path / "home")[1].raw == block


def test_forget_removes_a_held_record_from_every_file(tmp_path: Path):
    path = _conversation(tmp_path, _quote_block(_long(2) + " zanzibar", "yes quokka"))
    home = tmp_path / "home"
    assert run(home, "import", str(path)).exit_code == 0
    assert run(home, "forget", "--matching", "quokka", "--yes").exit_code == 0
    with Archive.open(home) as archive:
        assert [m.text for m in archive.stored_messages(1)] == ["hi", "ok"]
        assert archive.db.execute("SELECT count(*) FROM long_raws").fetchone() == (0,)
        archive.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert not any(b"zanzibar" in p.read_bytes() for p in home.rglob("*") if p.is_file())


def test_a_held_record_moves_with_its_message_when_chats_merge(tmp_path: Path):
    block = _quote_block(_long(2))
    home = tmp_path / "home"
    assert run(home, "import", str(_conversation(tmp_path, block))).exit_code == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "WhatsApp Chat with Ann.txt").write_text("01/02/2024, 10:59 - Ann: hello\n")
    assert run(home, "import", str(other / "WhatsApp Chat with Ann.txt")).exit_code == 0
    assert run(home, "chats", "merge", "2", "1").exit_code == 0
    with Archive.open(home) as archive:
        [chat] = archive.chats()
        stored = list(archive.stored_messages(chat.info.seq))
    assert [m.raw for m in stored if m.text == "yes 😀"] == [block]


def test_m042_upgrades_an_archive_written_before_it_in_place(tmp_path: Path):
    """An archive as main wrote it (no long_raws; its records in their rows) is read as it stands, then gets
    m042 when opened for writing, and takes a held record from then on."""
    home = tmp_path / "home"
    short = _conversation(tmp_path, "From: You\nType: outgoing\nSent: Mon, 28 May 2018 10:01:00 +0000\n\nyes")
    assert run(home, "import", str(short)).exit_code == 0
    with Archive.open(home) as archive, archive.transaction():
        archive.db.execute("DROP TABLE long_raws")
        archive.db.execute("DELETE FROM migrations WHERE name = 'm042_long_raws_apart'")
    before = _read(short)
    with Archive.open(home, readonly=True) as archive:
        assert "m042_long_raws_apart" not in applied_migrations(archive.db)
        assert list(archive.stored_messages(1)) == before
    quoted = tmp_path / "quoted"
    quoted.mkdir()
    block = _quote_block(_long(2))
    assert run(home, "import", str(_conversation(quoted, block))).exit_code == 0
    with Archive.open(home) as archive:
        assert applied_migrations(archive.db)[-1] == "m042_long_raws_apart"
        stored = list(archive.stored_messages(1))  # the same conversation: its quoting message added
    assert [m for m in stored if m.raw != block] == before and [m.raw for m in stored].count(block) == 1


# A sigtop block that quotes (its ``>`` lines, long ones among them), then its body's lines; a long line
# anywhere, so that with tiny thresholds the record is held, the text held, or both read whole.
_QUOTE_LINE = st.sampled_from(
    ["> From: Ann", "> " + WORDS, "> " + WORDS * 9, ">", "> é😀 " + WORDS * 8, "> \x01"]
)
_BODY_LINE = st.sampled_from(["word", WORDS, WORDS * 9, "é😀", "\x01", " "])
_QUOTED = st.builds(
    lambda who, stamp, quote, body: (
        f"From: {who}\nType: incoming\nSent: Mon, 28 May 2018 10:{stamp:02d}:00 +0000\n\n"
        + "\n".join(quote)
        + "\n\n"
        + "\n".join(body)
    ),
    st.sampled_from(["Ann", "You", "Jack (+4912345)"]),
    st.integers(0, 59),
    st.lists(_QUOTE_LINE, min_size=1, max_size=4),
    st.lists(_BODY_LINE, min_size=1, max_size=3),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(_QUOTED, min_size=1, max_size=4), chunk=st.integers(16, 300))
def test_a_quoting_sigtop_message_held_in_part_reads_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: list[str], chunk: int
):
    """Tiny thresholds (lines over 300 characters cut): the same messages, records and identities as read
    whole."""
    path = tmp_path / "Jack.txt"
    first = "From: Ann\nType: incoming\nSent: Mon, 28 May 2018 09:00:00 +0000\n\nfirst\n"
    path.write_text("Conversation: Jäck\n\n" + "\n".join([first] * 60 + blocks) + "\n")
    expected, got = read_held_in_part(monkeypatch, path, "signal", sigtop, chunk)
    read_as_whole(expected, got, "a quoting sigtop message's text held")


def _quoted(folder: Path, mb: int) -> Path:
    """A 50-MB quote's shape: the record holds an emoji elsewhere (four bytes a character, read whole)."""
    return _conversation(folder, _quote_block(_long(mb)))


def test_a_long_quote_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path):
    # Before: the cut line read whole, the block joined into the record, then cut (three copies of it).
    bounded(tmp_path, "signal", _quoted, 4)


def test_an_edited_pasted_log_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path):
    # Before: a million short lines held, the text and the record joined (four bytes a character: the older
    # version's emoji), then ``raw.cut`` looking for the text in each of its forms: 841 MB for 50 MB.
    bounded(
        tmp_path,
        "signal",
        lambda folder, mb: _conversation(folder, _edited_block(f"two\n| {_pasted(mb, '| ')}")),
        4,
    )


# The writing process's part of an import through the worker, in a child (its VmHWM), SQLite's page cache
# made small (1 MB), as ``test_huge_message_apart`` does, so that what it holds beyond its pages is seen.
_WRITER_CHILD = """
import sys
from datetime import UTC
from pathlib import Path
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive
with Archive.open(Path(sys.argv[2])) as archive:
    archive.db.execute("PRAGMA cache_size=-1024")
    result = import_file(archive, Path(sys.argv[1]), tz=UTC, worker=True)
    assert result.error is None, result.error
with open("/proc/self/status") as fh:
    print(next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")))
"""


def test_a_long_quote_costs_the_writer_no_more_when_twice_as_long(tmp_path: Path):
    # Before: the rows as they came and unmarshalled, SQLite's bound value and row record (four bytes a
    # character: the record holds an emoji). Now the record goes from a file to its row of long_raws a piece
    # at a time.
    root = Path(__file__).resolve().parent.parent
    peaks = {}
    for mb in (4, 8):
        (tmp_path / str(mb)).mkdir()
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                _WRITER_CHILD,
                str(_quoted(tmp_path / str(mb), mb)),
                str(tmp_path / f"h{mb}"),
            ],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
            check=True,
        )
        peaks[mb] = int(done.stdout.split()[-1]) / 1024
    assert peaks[8] - peaks[4] < 4, peaks


def test_the_worker_protocol_sends_a_long_rest_in_pieces_and_puts_it_back(tmp_path: Path):
    """A row whose text and rest are both long: both sent ahead, put back in their places, in order."""
    from refind_cli.ingest import worker

    events: list[tuple[str, object]] = []
    text, rest = "t" * (worker.PIECE + 1), "r" * (worker.PIECE * 2 + 1)
    row = (None, 1, "u", 0, None, "Ann", None, text, "text", None, None, None, 0, rest, 1, 0, None)
    sent = worker._texts_apart([row, (*row[:7], "short", *row[8:13], "x", *row[14:])], events.append)
    assert sent[0][7] is None and sent[0][13] is None and sent[1][7] == "short"
    assert [kind for kind, _ in events].count("text") == 2
    queue = [*events, ("messages", (worker._packed(sent), 9)), ("end", (2, None, None))]
    received = worker._Received(lambda: queue.pop(0), tmp_path)
    batches = 0
    for batch in received:  # read as it is stored: the spool is emptied after
        got = batch[0]
        assert isinstance(got[7], HeldText) and got[7].whole() == text
        assert isinstance(got[13], HeldText) and got[13].whole() == rest
        assert batch[1] == sent[1]
        batches += 1
    received.close()
    assert batches == 1 and received.seen == 2


@pytest.mark.parametrize(
    "block",
    [
        # The newest version's body of several lines, one long: written "|"-prefixed, not as its text is.
        _edited_block(f"two chairs\n| {_long(2)} é\n|\n| 😅"),
        # A long quote and a long body: the text held, the record held whole beside it.
        _quote_block(_long(2), f"yes {_long(2)} 😀\nand more"),
        # Pasted logs, short lines past a spill: every line after the fields gathered, the text read again.
        _edited_block("two\n|\n| " + _pasted(2, "| ") + "end é"),
        _quote_block("a\n> " + _pasted(2, "> "), "yes\n" + _pasted(2, "") + "end"),
    ],
    ids=["edited, lines", "quote and body", "edited, a pasted log", "quote and body, pasted logs"],
)
def test_a_long_text_whose_record_cannot_hold_it_in_place_is_held_with_its_record(tmp_path: Path, block: str):
    path = _conversation(tmp_path, block)
    expected = _read_whole(path)[1]
    got = _read(path)[1]
    assert isinstance(got.text, HeldText) and isinstance(got.raw, HeldText)
    assert got.text.whole() == expected.text and got.raw.whole() == block == expected.raw
    home = tmp_path / "home"
    assert run(home, "import", str(path)).exit_code == 0
    stored = _stored(home)
    assert stored[1] == expected
    with Archive.open(home) as archive:
        apart = [archive.db.execute(f"SELECT seq FROM {t}").fetchall() for t in ("long_texts", "long_raws")]
    assert apart == [[(2,)], [(2,)]]


def _read_whole(path: Path) -> list[Message]:
    """As read before lines were cut: every line whole (``linelog.SPILL`` out of reach)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(linelog, "SPILL", 1 << 40)
        return _read(path)
