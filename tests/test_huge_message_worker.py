"""Issue 24, item 4 (session 13): the import worker's memory does not grow with the longest message.

A line log's record longer than ``linelog.SPILL`` is held by the reading window as its head and tail, the
characters between written to an unnamed file as they are read (``linelog.Spool``); its message's text is
that file (``HeldText``), its record holds ``HELD`` in the text's place, its identity is hashed from the file
and the worker sends it from there in pieces. Measured in a child process (its peak RSS, VmHWM): what the
machine's load cannot change. And read with tiny thresholds, every record gives the same messages, records,
identities and warnings as read whole.
"""

from __future__ import annotations

import errno
import io
import json
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401 (registers `import`)
from refind_cli.frontends.cli import app
from refind_cli.importers import container, linelog, read_export, whatsapp
from refind_cli.ingest import import_file
from refind_cli.records import HELD, HeldText, Message
from refind_cli.storage import raw as raw_record
from refind_cli.storage.archive import Archive
from refind_cli.storage.identity import Identity

MB = 1 << 20
WORDS = "all work and no play makes jack a dull boy "

# The worker's part of an import (``serve_worker``: read, rows, texts sent in pieces) in a child process,
# sending to /dev/null; prints the child's peak RSS in kB.
_WORKER_CHILD = """
import pickle, sys
from datetime import UTC
from pathlib import Path
from refind_cli.importers import read_export
from refind_cli.ingest.rows import ChatPlan, Rows
from refind_cli.ingest.worker import _texts_apart
path, fmt = Path(sys.argv[1]), sys.argv[2]
plan = ChatPlan(1, "c", True, 1, frozenset(), 1, "burst", 3_600_000_000)
with open("/dev/null", "wb") as sink:
    send = lambda event: pickle.dump(event, sink, pickle.HIGHEST_PROTOCOL)
    for export in read_export(path, fmt, UTC):
        rows = Rows(plan, export.messages)
        for batch in rows:
            send(("messages", (_texts_apart(batch, send), rows.read)))
with open("/proc/self/status") as fh:
    print(next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")))
"""


def _whatsapp(folder: Path, mb: int) -> Path:
    body = WORDS * (mb * MB // len(WORDS))
    path = folder / "WhatsApp Chat with Jack.txt"
    path.write_text(
        f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n01/02/2024, 11:01 - Ann: ok\n"
    )
    return path


def _line(folder: Path, mb: int) -> Path:
    body = WORDS * (mb * MB // len(WORDS))
    path = folder / "[LINE] Chat with Jack.txt"
    head = "[LINE] Chat history with Jack\nSaved on: 2024/02/01 12:00\n\n2024/02/01(Thu)\n"
    path.write_text(f"{head}10:59\tAnn\thi\n11:00\tJack\t{body}\n11:01\tAnn\tok\n")
    return path


def _worker_peak_kb(path: Path, fmt: str) -> int:
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", _WORKER_CHILD, str(path), fmt],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return int(out.stdout.split()[-1])


@pytest.mark.parametrize(("fmt", "export"), [("whatsapp", _whatsapp), ("line", _line)])
def test_the_worker_peak_is_the_same_for_a_message_twice_as_long(
    tmp_path: Path, fmt: str, export: Callable[[Path, int], Path]
):
    # Before: the record as written and its text, twice the message (24 and 48 MB over the one-line chat).
    # Now the window's head, tail and a piece or two read on, whatever the message's length.
    bounded(tmp_path, fmt, export, 12)


def bounded(tmp_path: Path, fmt: str, export: Callable[[Path, int], Path], mb: int = 8) -> None:
    """The worker's peak for a message of ``mb`` and twice as many MB, over a one-line chat's: under 16 MB,
    and the same within 4 MB."""
    peaks = {}
    for size in (0, mb, 2 * mb):
        folder = tmp_path / str(size)
        folder.mkdir()
        peaks[size] = _worker_peak_kb(export(folder, size), fmt) / 1024
    over = {size: peaks[size] - peaks[0] for size in (mb, 2 * mb)}
    assert over[2 * mb] < 16, f"{over} MB over a one-line chat's {peaks[0]:.0f} MB"
    assert over[2 * mb] - over[mb] < 4, f"{over} MB over a one-line chat's {peaks[0]:.0f} MB"


def test_a_held_message_is_imported_whole_and_once(tmp_path: Path):
    path = _whatsapp(tmp_path, 3)
    home = tmp_path / "home"
    body = path.read_text().split("Jack: ", 1)[1].split("\n", 1)[0]
    with Archive.open(home) as archive:
        added = []
        for worker in (True, False, True):  # then read again in this process, and by the worker again
            result = import_file(archive, path, tz=UTC, worker=worker, reread=True)
            assert result.error is None
            added.append(sum(c.messages_added for c in result.chats))
        assert added == [3, 0, 0]  # its identity is the same however it was read
        assert [m.text for m in archive.stored_messages(1)] == ["hi", body, "ok"]
    assert os.listdir(home) == ["archive.db"]  # the files that held it had no name


def test_the_files_that_hold_a_long_text_have_no_name(tmp_path: Path):
    """So an import stopped any way (an error, Ctrl-C, a kill) leaves none behind: nothing is there to remove."""
    path = _whatsapp(tmp_path, 2)
    folder = tmp_path / "spools"
    folder.mkdir()
    with linelog.spooling_in(folder):
        messages, _ = _read(path)
        assert isinstance(messages[1].text, HeldText)  # its file open, and nowhere in the folder
        assert os.listdir(folder) == []


def test_an_unreadable_export_after_a_long_message_leaves_nothing(tmp_path: Path):
    path = _whatsapp(tmp_path, 2)
    with path.open("ab") as fh:
        fh.write(b"01/02/2024, 11:02 - Ann: \xff\n")  # not UTF-8: the import is undone whole
    home = tmp_path / "home"
    for worker in (True, False):
        with Archive.open(home) as archive:
            result = import_file(archive, path, tz=UTC, worker=worker)
            assert result.error is not None and "invalid" in result.error
            assert archive.db.execute("SELECT count(*) FROM messages").fetchone() == (0,)
        assert os.listdir(home) == ["archive.db"]


class _FullDisk(io.BytesIO):
    def write(self, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_held_text_that_cannot_be_written_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    path = _whatsapp(tmp_path, 2)  # under the worker's 4 MB: read in the importing process
    home = tmp_path / "home"
    monkeypatch.setattr(linelog.tempfile, "TemporaryFile", lambda dir: _FullDisk())
    r = CliRunner().invoke(app, ["--home", str(home), "import", "--tz", "UTC", str(path)])
    assert r.exit_code == 2, r.output
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"refind: error: {home}: ")
    assert "disk is full" in r.stderr
    monkeypatch.undo()
    assert json.loads(CliRunner().invoke(app, ["--home", str(home), "chats", "--json"]).stdout)["chats"] == []


# Bodies with what a text is cut around: marks and isolates at either end or inside, trailing newlines, an
# edited marker, markers a record is kept whole for, a leading LRM, a colon, placeholders.
_PARTS = st.sampled_from(
    [
        "word ",
        WORDS,
        "\n",
        "\u200e",
        "\u2066@Bo\u2069",
        " <This message was edited>",
        "\x01",
        "\x00",
        "<Media omitted>",
        "Joe: x",
        "é€😀",
        "18/03/2022, 14:59 - ",
    ]
)
_ENDS = st.lists(_PARTS, max_size=3).map("".join)
# A long run of words between ends of any of those parts (anything in the middle can be only in the file).
_LONG = st.builds(lambda a, n, b: a + WORDS * n + b, _ENDS, st.integers(0, 40), _ENDS)
_RECORDS = st.one_of(
    st.builds(lambda i: f"18/03/2022, 14:{i:02d} - Ann: word {i}", st.integers(0, 59)),
    st.builds(lambda body: "18/03/2022, 15:00 - Bo: " + body, _LONG),
    st.builds(lambda body: "18/03/2022, 15:00 - Bo: \u200e" + body + "\u200e", _LONG),
    st.builds(lambda body: "18/03/2022, 15:00 - Bo: " + WORDS * 3 + "\n" + body, _LONG),
    st.builds(lambda body: "31/02/2022, 10:01 - Ann: " + body, _LONG),  # malformed, warned with its line
    st.builds(lambda body: "18/03/2022, 15:02 - " + body, _LONG),  # no author
)


def _hold_in_part(patch: pytest.MonkeyPatch) -> None:
    """Thresholds so small that a line of a few hundred characters is held in part, as a long one is."""
    patch.setattr(linelog, "HELD_HEAD", 48)
    patch.setattr(linelog, "HELD_TAIL", 160)
    patch.setattr(linelog, "SPILL", 300)
    patch.setattr(linelog, "_LONG_PIECE", 64)


def read_as_whole(expected: list[Message], got: list[Message], held_event: str) -> None:
    """``got``, read with some texts held in part, are ``expected``, read whole: the same messages, the same
    identities, each held record rebuilt exactly from what is left of it and its fields."""
    assert len(got) == len(expected)
    ids, ids_held = Identity(), Identity()
    for m, held in zip(expected, got, strict=True):
        assert isinstance(m.text, str)
        uid = ids.uid(m.source_id, m.local_time, 0, m.sender, m.text)
        assert ids_held.uid(held.source_id, held.local_time, 0, held.sender, held.text) == uid
        if isinstance(held.raw, HeldText):  # a record held whole (sigtop's long quote), its text read or held
            event("a record held")
            assert held.raw.whole() == m.raw
            text = held.text.whole() if isinstance(held.text, HeldText) else held.text
            held = held._replace(text=text, raw=m.raw)
        if isinstance(held.text, HeldText):
            event(held_event)
            fields = (m.local_time, m.sender, m.sender_id)
            rest, form = raw_record.cut(held.raw, (HELD, *fields))
            write = raw_record.FORMS[form or 0]  # as a line log writes it, or as a JSON record (session 15)
            assert held.raw.count(write(HELD)) == 1 and held.raw.replace(write(HELD), write(m.text)) == m.raw
            assert raw_record.joined(rest, form, (m.text, *fields)) == m.raw  # the record, rebuilt exactly
            held = held._replace(text=held.text.whole(), raw=m.raw)
        assert held == m


def _read(path: Path) -> tuple[list[Message], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages = [m for export in read_export(path, "whatsapp", UTC) for m in export.messages]
    return messages, [str(w.message) for w in caught]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    records=st.lists(_RECORDS, min_size=1, max_size=8),
    chunk=st.integers(16, 300),
    crlf=st.booleans(),
    long_first=st.booleans(),
)
def test_a_record_held_in_part_reads_as_read_whole(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    records: list[str],
    chunk: int,
    crlf: bool,
    long_first: bool,
):
    """Tiny thresholds (a head of 48 characters, a tail of 160, records over 300 held in part, lines over
    64 given in pieces): the same messages, the same records rebuilt, the same identities and warnings."""
    path = tmp_path / "WhatsApp Chat with Ann.txt"
    # Short messages first, or one long one: the text is decoded once its encoding is told (4 KB,
    # ``container.ENCODING_BYTES``). A long first record is held in part by the first pass (the dates) too.
    first = (
        f"18/03/2022, 14:55 - Ann: {WORDS * 100}\n"
        if long_first
        else "18/03/2022, 14:55 - Ann: first\n" * 150
    )
    text = first + "\n".join(records) + "\n"
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode())
    monkeypatch.setattr(container, "CHUNK", chunk)
    monkeypatch.setattr(whatsapp, "_KIND_LINE", 16)
    expected, warned = _read(path)
    with monkeypatch.context() as held_in_part:  # undone before hypothesis's next example
        _hold_in_part(held_in_part)
        got, warned_held = _read(path)
    assert warned_held == warned
    read_as_whole(expected, got, "a record held in part")


def test_the_held_path_is_taken(tmp_path: Path):
    """A long record of each shape the held path reads is held, not read whole (the property above
    compares the two readings; this says the held one happened)."""
    path = _whatsapp(tmp_path, 2)
    messages, _ = _read(path)
    assert [type(m.text) for m in messages] == [str, HeldText, str]
    assert json.dumps(messages[1].raw) == json.dumps(f"01/02/2024, 11:00 - Jack: {HELD}")


# LINE, KakaoTalk and Signal logs: a line longer than a piece is given as a ``linelog.Cut``.
_LINE_PARTS = st.sampled_from(["word ", WORDS, '"', " ", "\u200e", "\x01", "☎ ", "[File] "])
_LINE_ENDS = st.lists(_LINE_PARTS, max_size=3).map("".join)
_LONG_LINE = st.builds(lambda a, n, b: a + WORDS * n + b, _LINE_ENDS, st.integers(0, 40), _LINE_ENDS)
# A pasted log (session 14): many short lines, gathered once longer than a spill; words, blank and white lines
# (dropped before a day line only), quotes, marks, a marker a record is read whole for, a placeholder, lines
# that look like day lines; then blank lines, before the next message.
_SHORT = st.sampled_from(
    [
        "word",
        WORDS,
        "",
        "  ",
        '"',
        "\u200e",
        "\x01",
        "[Photo]",
        "Monday, May 28, 2018",
        "2024/02/01(Thu)",
        "é😀",
    ]
)
_PASTED = st.builds(
    lambda lines, n, quoted, blanks: (
        ('"' if quoted else "") + "\n".join(lines * n) + ('"' if quoted else "") + blanks
    ),
    st.lists(_SHORT, min_size=1, max_size=6),
    st.integers(1, 60),
    st.booleans(),
    st.sampled_from(["", "\n", "\n\n", "\n  \n" * 40]),
)
_BODY = st.one_of(
    st.lists(_LONG_LINE, min_size=1, max_size=3).map("\n".join),
    st.builds(lambda n: f'"{WORDS * n}"', st.integers(0, 40)),  # quoted on one line: LINE keeps its quotes
    _PASTED,
)
_LOGS = {
    "line": (
        "[LINE] Chat history with Jack\nSaved on: 2024/02/01 12:00\n\n2024/02/01(Thu)\n",
        "10:59\tAnn\tfirst\n",
        lambda i, body: f"11:{i:02d}\tJack\t{body}",
        "[LINE] Chat with Jack.txt",
    ),
    "signal": (
        "",
        "[2024-02-01 10:59] Ann: first\n",
        lambda i, body: f"[2024-02-01 11:{i:02d}] Jack: {body}",
        "chat.md",
    ),
    "kakaotalk": (
        "KakaoTalk Chats with Minji\nDate Saved : May 29, 2018, 9:46 AM\n\nMonday, May 28, 2018\n",
        "May 28, 2018, 9:40 AM, Ann : first\n",
        lambda i, body: f"May 28, 2018, 10:{i:02d} AM, Jack : {body}",
        "KakaoTalk_Chats.txt",
    ),
}


def _read_log(path: Path, fmt: str) -> list[Message]:
    return [m for export in read_export(path, fmt, UTC) for m in export.messages]


def read_held_in_part(
    patch: pytest.MonkeyPatch, path: Path, fmt: str, reader: object, chunk: int
) -> tuple[list[Message], list[Message]]:
    """``path`` read in chunks of ``chunk`` bytes, whole, then with tiny thresholds (``_hold_in_part``; texts
    over 200 characters held by ``reader``, the module whose ``LONG_TEXT`` says it)."""
    patch.setattr(container, "CHUNK", chunk)
    expected = _read_log(path, fmt)
    with patch.context() as held_in_part:
        _hold_in_part(held_in_part)
        held_in_part.setattr(reader, "LONG_TEXT", 200)
        return expected, _read_log(path, fmt)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    fmt=st.sampled_from(sorted(_LOGS)),
    bodies=st.lists(_BODY, min_size=1, max_size=5),
    chunk=st.integers(16, 300),
)
def test_a_line_held_in_part_reads_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, bodies: list[str], chunk: int
):
    """Tiny thresholds (lines over 300 characters cut, as a head of 48 and a tail of 160; further lines over
    300 gathered so): the same messages, the same records rebuilt, the same identities as read whole."""
    head, short, line, name = _LOGS[fmt]
    path = tmp_path / name
    path.write_text(head + short * 150 + "\n".join(line(i, body) for i, body in enumerate(bodies)) + "\n")
    monkeypatch.setattr(container, "CHUNK", chunk)
    expected = _read_log(path, fmt)
    with monkeypatch.context() as held_in_part:
        _hold_in_part(held_in_part)
        got = _read_log(path, fmt)
    read_as_whole(expected, got, f"{fmt}: a message held in part")
