"""Issue 24, item 4 (session 17): one huge message in a sigtop export's edited message, and in a Meta
(Instagram, Messenger) message file.

- sigtop: an edited message's text is its newest version's body, written ``|``-prefixed among the versions.
  The block was read whole: its cut line, the block's lines, the record joined (holding an emoji elsewhere,
  four bytes a character) and the text, 10.3 times the message (session 16). Now a newest version whose
  body is one cut line, the block's only one, is held in a file (``HeldText``), the record holding ``HELD``
  after the line's prefix. Measured in a child process (its peak RSS, VmHWM); read with tiny thresholds,
  every message gives the same text, record and identity as read whole.
- Meta: the thread's fingerprint read each of its files again, whole, while the first file's messages were
  held (one copy of the file more); now hashed as the files stream, to the same fingerprint.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_huge_message_worker import WORDS, _worker_peak_kb, bounded, read_as_whole, read_held_in_part
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.search  # noqa: F401 (registers `import` and `search`)
from refind_cli.frontends.cli import app
from refind_cli.importers import container, meta, read_export, sigtop
from refind_cli.records import HELD, LONG_TEXT, HeldText, Message
from refind_cli.storage import raw as raw_record
from refind_cli.storage.archive import Archive

MB = 1 << 20
_OLDER = "we're out of chairs 😅 can you bring two?"


def _edited_block(body: str, older: str = _OLDER) -> str:
    """An edited message as sigtop writes it, its newest version's body the one line ``body``."""
    return (
        "From: You\nType: outgoing\nSent: Mon, 28 May 2018 10:01:00 +0000\nEdited: 2 versions\n\n"
        f"| Version: 2\n| Sent: Mon, 28 May 2018 10:02:00 +0000\n|\n| {body}\n"
        f"|\n| Version: 1\n| Sent: Mon, 28 May 2018 10:01:00 +0000\n|\n| {older}"
    )


def _conversation(folder: Path, block: str) -> Path:
    path = folder / "Jack.txt"
    path.write_text(
        "Conversation: Jack (+4912345)\n\n"
        "From: Jack (+4912345)\nType: incoming\nSent: Mon, 28 May 2018 10:00:00 +0000\n\nhi\n\n"
        f"{block}\n\n"
        "From: Jack (+4912345)\nType: incoming\nSent: Mon, 28 May 2018 10:03:00 +0000\n\nok\n"
    )
    return path


def _long(mb: int) -> str:
    return WORDS * (mb * MB // len(WORDS)) or "hi"


def _read(path: Path, fmt: str = "signal") -> list[Message]:
    return [m for export in read_export(path, fmt, UTC) for m in export.messages]


def test_a_long_edited_sigtop_message_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path):
    # Before: the cut line read whole, the record joined (four bytes a character: the older version's
    # emoji) and the text: about 9 times the message over a one-line chat's.
    bounded(tmp_path, "signal", lambda folder, mb: _conversation(folder, _edited_block(_long(mb))))


def test_a_long_edited_sigtop_message_is_held_and_its_record_rebuilt(tmp_path: Path):
    body = _long(2) + " é😀 end"
    block = _edited_block(body)
    messages = _read(_conversation(tmp_path, block))
    assert [type(m.text) for m in messages] == [str, HeldText, str]
    held = messages[1]
    assert isinstance(held.text, HeldText)
    assert held.text.whole() == body
    assert held.edited and held.own and held.kind == "text"
    assert held.raw.count(HELD) == 1 and held.raw.replace(HELD, held.text.whole()) == block


def test_a_long_edited_sigtop_message_is_imported_and_stored_as_written(tmp_path: Path):
    body = _long(2) + " é😀 \u2028 \t end"
    block = _edited_block(body)
    _imported_as_written(_conversation(tmp_path, block), tmp_path / "home", body, block)


def _imported_as_written(path: Path, home: Path, body: str, record: str) -> None:
    """Imported through the CLI, the chat's middle message is stored with ``body`` and ``record`` as
    written, and found by its last word."""
    runner = CliRunner()
    done = runner.invoke(app, ["--home", str(home), "import", str(path)])
    assert done.exit_code == 0, done.output
    with Archive.open(home) as archive:
        stored = list(archive.stored_messages(1))
    assert [m.text for m in stored] == ["hi", body, "ok"] and stored[1].raw == record
    found = runner.invoke(app, ["--home", str(home), "search", "dull boy end", "--json"])
    assert found.exit_code == 0 and len(json.loads(found.stdout)["results"]) == 1, found.output


# An edited message's versions: each a few fields, perhaps a quote, a body of lines (long ones among them,
# blank ones written "|" or "| "), the newest first; and lines sigtop writes that look like a version's.
_LINE = st.sampled_from(["word", WORDS, *[WORDS * 8] * 3, "", " ", "> quoted", "Version: 3", "\x01", "é😀"])
_VERSION = st.tuples(
    st.booleans(),  # a quote
    # Lines, or one long line (held where it is the newest version's, the block's only long line).
    st.lists(_LINE, min_size=1, max_size=4)
    | st.sampled_from([WORDS * 8, " é😀 " + WORDS * 9 + "\t", "> " + WORDS * 8]).map(lambda line: [line]),
    st.sampled_from(["|", "| "]),  # how its blank lines are written
)


def _versions(versions: list[tuple[bool, list[str], str]]) -> str:
    written = []
    for n, (quote, body, blank) in zip(range(len(versions), 0, -1), versions, strict=False):
        lines = [f"Version: {n}", "Sent: Mon, 28 May 2018 10:02:00 +0000", ""]
        lines += ["> From: Ann", "> " + WORDS, ""] if quote else []
        written.append("\n".join(f"| {line}" if line else blank for line in [*lines, *body]))
    return "\n|\n".join(written)  # a "|" line between two versions


_EDITED = st.builds(
    lambda who, stamp, versions: (
        f"From: {who}\nType: {'outgoing' if who == 'You' else 'incoming'}\n"
        f"Sent: Mon, 28 May 2018 10:{stamp:02d}:00 +0000\nEdited: {len(versions)} versions\n\n"
        + _versions(versions)
    ),
    st.sampled_from(["Ann", "You", "Jack (+4912345)"]),
    st.integers(0, 59),
    st.lists(_VERSION, min_size=1, max_size=3),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(_EDITED, min_size=1, max_size=4), chunk=st.integers(16, 300))
def test_an_edited_sigtop_message_held_in_part_reads_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: list[str], chunk: int
):
    """Tiny thresholds (lines over 300 characters cut, texts over 200 held): the same messages, records and
    identities as read whole."""
    path = tmp_path / "Jack.txt"
    first = "From: Ann\nType: incoming\nSent: Mon, 28 May 2018 09:00:00 +0000\n\nfirst\n"
    # Not ASCII from its first line: an ASCII start is read on (up to a megabyte) to tell its encoding, and
    # then lines are not cut in chunks of ``chunk`` bytes.
    path.write_text("Conversation: Jäck\n\n" + "\n".join([first] * 60 + blocks) + "\n")
    expected, got = read_held_in_part(monkeypatch, path, "signal", sigtop, chunk)
    event(f"edited held: {sum(isinstance(m.text, HeldText) and m.edited for m in got) > 0}")
    read_as_whole(expected, got, "an edited sigtop message held in part")


# Meta: a message file of a thread, its one long message's content ASCII (escaped in JSON: quotes, newlines).
_META_WORDS = 'all work and no play makes "jack" a dull boy\n'


def _meta_messages(body: str) -> list[dict[str, object]]:
    return [
        {"sender_name": "Jack", "timestamp_ms": 1700000002000, "content": "ok"},
        {"sender_name": "Maya", "timestamp_ms": 1700000001000, "content": body, "reactions": []},
        {"sender_name": "Jack", "timestamp_ms": 1700000000000, "content": "hi"},
    ]


def _thread(folder: Path, messages: list[dict[str, object]], name: str = "message_1.json") -> Path:
    thread = folder / "your_instagram_activity" / "messages" / "inbox" / "jack_123"
    thread.mkdir(parents=True, exist_ok=True)
    data = {
        "participants": [{"name": "Jack"}, {"name": "Maya"}],
        "messages": messages,
        "title": "Jack",
        "thread_path": "inbox/jack_123",
    }
    (thread / name).write_text(json.dumps(data))
    return folder


def _meta_long(mb: int) -> str:
    return _META_WORDS * (mb * MB // len(_META_WORDS)) or "hi"


def _record(obj: dict[str, object]) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)  # the record as main made it


def test_a_long_meta_message_is_held_and_its_record_rebuilt(tmp_path: Path):
    body = _meta_long(2) + "\\ \t\x00 end"
    messages = _meta_messages(body)
    got = _read(_thread(tmp_path, messages), "instagram")
    assert [type(m.text) for m in got] == [str, HeldText, str]
    held = got[1]
    assert isinstance(held.text, HeldText) and held.text.whole() == body
    rest, form = raw_record.cut(held.raw, (HELD, None, held.sender, None))
    assert raw_record.joined(rest, form, (body, None, held.sender, None)) == _record(messages[1])


@pytest.mark.parametrize(
    "long",
    [
        {"content": "x" * (LONG_TEXT + 1), "photos": [{"uri": "a/b/photo_1.jpg"}]},  # its text is more
        {"content": "Ä\x85" * (LONG_TEXT // 2 + 1)},  # mojibake, repaired: its text is not its content
        {"content": "x" * (LONG_TEXT + 1), "sender_name": "\x00"},  # HELD written elsewhere in its record
    ],
)
def test_a_long_meta_message_that_cannot_be_held_is_read_whole(tmp_path: Path, long: dict[str, object]):
    message = {"sender_name": "Maya", "timestamp_ms": 1700000001000, **long}
    got = _read(_thread(tmp_path, [message]), "instagram")
    assert isinstance(got[0].text, str) and got[0].raw == _record(message)
    assert got[0].text.startswith("ą" if "Ä" in str(long["content"]) else "x")


def test_a_long_meta_message_is_imported_and_stored_as_written(tmp_path: Path):
    body = _meta_long(2) + " end"
    messages = _meta_messages(body)
    path = _thread(tmp_path / "export", messages)
    _imported_as_written(path, tmp_path / "home", body, _record(messages[1]))


def test_long_meta_messages_alike_but_for_their_text_are_told_apart_in_a_files_copies(tmp_path: Path):
    """A copy of a message file (``message_1 (2).json``) repeats its messages, which are left out; two held
    texts whose records are alike (each holds ``HELD``) are told apart by their text."""
    first, second = _meta_long(2) + "one", _meta_long(2) + "two"
    messages = [{"sender_name": "Maya", "timestamp_ms": 1700000001000, "content": c} for c in (first, second)]
    _thread(tmp_path, messages)
    _thread(tmp_path, messages[::-1], "message_1 (2).json")
    got = _read(tmp_path, "instagram")
    assert sorted(m.text.whole() for m in got if isinstance(m.text, HeldText)) == [first, second]
    assert len(got) == 2


def test_a_meta_threads_fingerprint_is_its_files_as_before(tmp_path: Path):
    """Hashed as the files stream: the same fingerprint as of their bytes whole (an import's unchanged-file
    check compares it with an earlier one's), from a folder, a zip and one file."""
    folder = _thread(tmp_path / "export", _meta_messages("long " * 1000))
    _thread(folder, _meta_messages("older"), "message_2.json")
    thread = folder / "your_instagram_activity" / "messages" / "inbox" / "jack_123"
    parts = [
        p for n in (2, 1) for p in (f"inbox/{n}/0".encode(), (thread / f"message_{n}.json").read_bytes())
    ]
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for file in thread.iterdir():
            zf.write(file, file.relative_to(folder).as_posix())
    for path in (folder, archive):
        assert next(meta.read(path, "instagram")).fingerprint == container.fingerprint(parts)
    one = thread / "message_1.json"
    assert next(meta.read(one, "instagram")).fingerprint == container.fingerprint([b"/1/0", one.read_bytes()])


def test_a_long_meta_message_costs_no_more_than_its_file_read_whole(tmp_path: Path):
    # Before: the file read twice (its fingerprint, while the first file's messages were held), the record
    # made beside its encoded content, then the record and the text held: 4 times the message (32 MB more
    # for 8 MB more). Now the bytes read and decoded (the file is read whole by design), the text in a file:
    # about 2.5 times. The reading's part of an import, in a child process (its VmHWM).
    peaks = {}
    for mb in (8, 16):
        folder = _thread(tmp_path / str(mb), _meta_messages(_meta_long(mb)))
        peaks[mb] = _worker_peak_kb(folder, "instagram") / 1024
    assert peaks[16] - peaks[8] < 3 * 8, peaks  # main: 33 MB more


# sigtop's quote: the long part is in the record only (its text is short); the rows that hold its rest were
# held twice in the writer (marshalled, as they came, and unmarshalled) and in the worker (and the record read
# last, while the batch was sent). The writing process's part of an import through the worker, in a child
# process (its VmHWM). Since session 18 the record itself is held apart (``test_huge_message_ten``).
_WRITER_CHILD = """
import sys
from datetime import UTC
from pathlib import Path
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive
with Archive.open(Path(sys.argv[2])) as archive:
    result = import_file(archive, Path(sys.argv[1]), tz=UTC, worker=True)
    assert result.error is None, result.error
with open("/proc/self/status") as fh:
    print(next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")))
"""


def _quoted(folder: Path, mb: int) -> Path:
    return _conversation(
        folder,
        "From: You\nType: outgoing\nSent: Mon, 28 May 2018 10:01:00 +0000\n\n"
        f"> From: Jack (+4912345)\n> {_long(mb)}\n\nyes",
    )


def test_a_long_sigtop_quote_is_held_once_by_the_writer(tmp_path: Path):
    # Main: 41 MB more for 8 MB more (5 times: the rows as they came and unmarshalled, SQLite's copies); now
    # 32 MB (SQLite's copies of the value and its record are left: the record is not held apart).
    root = Path(__file__).resolve().parent.parent
    peaks = {}
    for mb in (8, 16):
        (tmp_path / str(mb)).mkdir()
        path = _quoted(tmp_path / str(mb), mb)
        run = subprocess.run(
            [sys.executable, "-c", _WRITER_CHILD, str(path), str(tmp_path / str(mb) / "home")],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
            check=True,
        )
        peaks[mb] = int(run.stdout.split()[-1]) / 1024
    assert peaks[16] - peaks[8] < 4.5 * 8, peaks
    messages = _read(path)
    assert [m.text for m in messages] == ["hi", "yes", "ok"]
    assert isinstance(messages[1].raw, HeldText) and f"> {_long(16)}\n" in messages[1].raw.whole()
