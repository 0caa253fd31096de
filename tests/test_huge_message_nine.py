"""Issue 24, item 4 (session 18): one huge body in an SMS Backup & Restore backup.

The reader kept the row's bytes, expat buffered the row's start tag whole, and the body was made from both:
6.7 times the message beside the same backup with a 1 KB body (session 17). Now a start tag that runs past
``sms._LONG_TAG`` bytes is looked at before the parser reads it: an SMS row's open body is cut out of the
bytes the parser reads, checked piece by piece to be written as ``records.sms_written`` writes it
(``storage.raw``'s form 4), and read into the time spool's file; its text is given as a ``HeldText``, its
record holding ``HELD`` written ``&#00;`` in its place. A body written otherwise is handed to the parser as
it was. Read with tiny thresholds and chunks, every message gives the same text, record and identity as read
whole.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_huge_message_worker import WORDS, bounded, read_as_whole
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401 (registers `import`)
from refind_cli.errors import InputError
from refind_cli.frontends.cli import app
from refind_cli.importers import sms
from refind_cli.records import HELD, HeldText, Message, sms_written
from refind_cli.storage import raw as raw_record
from refind_cli.storage.archive import Archive

# The app's comment (beyond ASCII), then white space: the chunks after the first 4 KB reach the reader as they
# are read (its first chunks are joined until they tell the encoding, ``container.more_to_tell``).
_HEAD = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
    f'<!--File Created By SMS Backup & Restore, mañana-->\n<smses count="{{}}">{" " * 4096}\n'
)


def _app_written(text: str) -> str:
    """``text`` as the app writes a body: as ``sms_written``, but an emoji as its two UTF-16 halves."""
    return re.sub(r"&#(\d{6});", lambda m: _halves(int(m.group(1))), sms_written(text))


def _halves(code: int) -> str:
    return f"&#{0xD800 + ((code - 0x10000) >> 10)};&#{0xDC00 + ((code - 0x10000) & 0x3FF)};"


def _row(i: int, body: str, subject: str = "null", after: str = "") -> str:
    return (
        f'<sms protocol="0" address="+49 170 5550101" date="{1790000000000 + i * 1000}" type="{1 + i % 2}"'
        f' subject="{subject}" body="{body}"{after} read="1" contact_name="Oma" />'
    )


def _backup(folder: Path, bodies: list[str]) -> Path:
    """A backup of a row for each written body, between short ones."""
    path = folder / "sms-1.xml"
    rows = [_row(0, "hi"), *(_row(i + 1, body) for i, body in enumerate(bodies)), _row(len(bodies) + 1, "ok")]
    path.write_text(_HEAD.format(len(rows)) + "".join(f"  {row}\n" for row in rows) + "</smses>\n")
    return path


def _read(path: Path) -> list[Message]:
    return [m for export in sms.read(path, tz=UTC) for m in export.messages]


# Across every piece's boundary: references, emoji (two references, one after the reader joins them; four
# UTF-8 bytes written as they are is not how the app writes them), line breaks, white space at both ends.
_TEXT = "  \n" + (WORDS + 'é ❤️ 😀 & <b> "q" it\'s\n') * 30_000 + "end \n "


def test_a_long_sms_body_is_held_and_its_record_rebuilt(tmp_path: Path):
    path = _backup(tmp_path, [_app_written(_TEXT)])
    messages = _read(path)
    assert [type(m.text) for m in messages] == [str, HeldText, str]
    held = messages[1]
    assert isinstance(held.text, HeldText) and held.own and held.sender == "Me"
    assert held.text.whole() == _TEXT  # as written: nothing stripped, nothing normalised
    assert held.raw.count("&#00;") == 1 and "\x00" not in held.raw
    rest, form = raw_record.cut(held.raw, (HELD, held.local_time, held.sender, held.sender_id))
    assert form == raw_record.FORMS.index(sms_written)
    # The row as the parser reads it: a surrogate pair's references joined into one.
    row = _row(1, _app_written(_TEXT)).replace("&#55357;&#56832;", "&#128512;")
    assert raw_record.joined(rest, form, (_TEXT, held.local_time, held.sender, held.sender_id)) == row
    exports = sms.read(path, tz=UTC)  # kept: its spool goes when the reading is dropped
    export = next(exports)
    list(export.messages)
    assert export.end() is None  # the parser's positions are not the file's: no mark


def test_a_long_sms_body_is_imported_and_shown_as_written(tmp_path: Path):
    path = _backup(tmp_path, [_app_written(_TEXT)])
    home = tmp_path / "home"
    for _ in range(2):  # the second adds nothing: the held text's identity is the text's
        r = CliRunner().invoke(app, ["--home", str(home), "import", str(path), "--reread"])
        assert r.exit_code == 0, r.output
    with Archive.open(home) as archive:
        stored = list(archive.stored_messages(1))
    assert [m.text for m in stored] == ["hi", _TEXT, "ok"]
    assert stored[1].raw == _row(1, _app_written(_TEXT)).replace("&#55357;&#56832;", "&#128512;")


def test_a_long_sms_body_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path):
    # Before: about 6 times the body (session 17). Now a tag's start, a piece or two of the body read on.
    def export(folder: Path, mb: int) -> Path:
        return _backup(folder, [_app_written(WORDS * (mb * 2**20 // len(WORDS))) or "hi"])

    bounded(tmp_path, "sms", export, 4)


def test_a_backup_cut_short_inside_a_long_body_says_so(tmp_path: Path):
    path = _backup(tmp_path, [WORDS * 40_000])
    data = path.read_bytes()
    path.write_bytes(data[: data.index(b"dull", 1_500_000)])
    with pytest.raises(InputError, match="cut short"):
        _read(path)


def test_an_error_after_long_bodies_is_placed_as_in_the_file(tmp_path: Path):
    # The parser does not read the bodies cut out: the columns after them on their line are counted again.
    body = _app_written("é😀 " + WORDS * 30_000)
    path = tmp_path / "sms-1.xml"
    path.write_text(_HEAD.format(2) + f"  {_row(1, body)} {_row(2, body)} <sms body=x/>\n</smses>\n")
    errors = []
    for long_tag in (sms._LONG_TAG, 1 << 30):  # cut, and read whole as before
        with pytest.MonkeyPatch.context() as patch, pytest.raises(InputError) as caught:
            patch.setattr(sms, "_LONG_TAG", long_tag)
            _read(path)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "line 4, column " in errors[0], errors


# A body's pieces: as the app writes them, and written otherwise (a reference it does not write, a character
# it writes as a reference, white space the parser reads as a space), which the reader hands on as written.
_WRITTEN = st.sampled_from(["word", " ", "é", "❤️", "&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&#10;"])
_EMOJI = st.just("&#55357;&#56832;")
_OTHERWISE = st.sampled_from(["&#233;", "'", ">", "\t", "\n", "&#13;", "&#128512;", "&#x41;", "&apos;"])


@st.composite
def _bodies(draw: st.DrawFn) -> tuple[str, str]:
    """A row's written body and its subject."""
    written = st.one_of(_WRITTEN, _WRITTEN, _EMOJI)
    pieces = draw(st.lists(written, min_size=draw(st.sampled_from([0, 8, 8])), max_size=40))
    if draw(st.integers(0, 3)) == 0:  # written otherwise somewhere
        pieces.insert(draw(st.integers(0, len(pieces))), draw(_OTHERWISE))
    return "".join(pieces), draw(st.sampled_from(["null", "null", "null", "Re: &amp;"]))


def _chunked(size: int) -> object:
    def chunks(path: Path, start: int = 0) -> Iterator[bytes]:
        data = path.read_bytes()[start:]
        return (data[i : i + size] for i in range(0, len(data), size))

    return chunks


@settings(max_examples=120, deadline=None)
@given(
    rows=st.lists(_bodies(), min_size=1, max_size=4),
    mms=st.booleans(),
    after=st.sampled_from(["", "", ' service_center="' + "x" * 80 + '"']),
    chunk=st.integers(1, 40),
    past_body=st.integers(0, 30),
)
def test_sms_bodies_held_in_part_read_as_read_whole(
    rows: list[tuple[str, str]], mms: bool, after: str, chunk: int, past_body: int
):
    """With tiny thresholds (a tag long 0-30 bytes past its body's start, a text held past 10 characters)
    and chunks of 1-40 bytes: each message is the message read whole, its held record rebuilt exactly; an
    MMS row's long text is never cut; nor is a long attribute after a body (``after``)."""
    records = [_row(i, body, subject, after) for i, (body, subject) in enumerate(rows)]
    if mms:
        text = rows[0][0]
        records.append(
            f'<mms date="1790000009000" msg_box="1" address="+4917611112222"><parts><part ct="text/plain"'
            f' text="{text}" /></parts><addrs><addr address="+4917611112222" type="137" /></addrs></mms>'
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sms-1.xml"
        path.write_text(_HEAD.format(len(records)) + "\n".join(records) + "\n</smses>\n")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sms, "iter_file_chunks", _chunked(chunk))
            expected = _read(path)
            patch.setattr(sms, "_LONG_TAG", _row(0, "").index('body="') + 6 + past_body)
            patch.setattr(sms, "LONG_TEXT", 10)
            got = _read(path)
    read_as_whole(expected, got, "an SMS body held")
