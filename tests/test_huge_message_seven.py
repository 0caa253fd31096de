"""Issue 24, item 4 (session 17): one huge message in an iMessage HTML conversation (imessage-exporter).

The reader held the record from its start in its window, the bubble's text in pieces, then joined, then the
record sliced out: 6.9 times the message beside the same page with a 1 KB message (session 16). Now a
bubble's run of text longer than ``linelog.SPILL`` is checked, as it is read, to be written as
``records.html_written`` writes it (``storage.raw``'s form 3), and held in a file (``HeldText``), the record
holding ``HELD`` written ``&#0;`` in its place; anything else is read whole, as before. Measured in a child
process (its peak RSS, VmHWM); read with tiny thresholds, every message gives the same text, record and
identity as read whole.
"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_huge_message_six import _long
from test_huge_message_worker import WORDS, _worker_peak_kb, bounded, read_as_whole
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.search  # noqa: F401 (registers `import` and `search`)
from refind_cli.frontends.cli import app
from refind_cli.importers import imessage, linelog, read_export
from refind_cli.records import HELD, HeldText, Message, html_written
from refind_cli.storage import raw as raw_record
from refind_cli.storage.archive import Archive


def _message(stamp: str, who: str, parts: str, sent: bool = False) -> str:
    side = '<div class="sent iMessage">' if sent else '<div class="received">'
    return (
        f'<div class="message">\n    {side}\n        <p><span class="timestamp">{stamp}</span>\n'
        f'            <span class="sender">{who}</span>\n        </p>\n        <hr>\n'
        f"        {parts}\n    </div>\n</div>\n\n"
    )


def _bubble(written: str) -> str:
    return f'<div class="message_part"><span class="bubble">{written}</span></div>'


def _page(folder: Path, written: str, name: str = "Jack.html") -> Path:
    """Three messages, the middle one's bubble ``written`` (as the page writes it)."""
    path = folder / name
    path.write_text(
        '<html>\n<meta charset="UTF-8">\n\n'
        + _message("May 17, 2022  5:29:42 PM", "Jack", _bubble("hi"))
        + _message("May 17, 2022  5:30:00 PM (Read by you after 1 hour, 49 seconds)", "Me", written, True)
        + _message("May 17, 2022  5:31:00 PM", "Jack", _bubble("ok"))
        + "</html>\n"
    )
    return path


def _read(path: Path) -> list[Message]:
    return [m for export in read_export(path, "imessage", UTC) for m in export.messages]


def _read_sms(path: Path) -> list[Message]:
    return [m for export in read_export(path, "sms", UTC) for m in export.messages]


@pytest.mark.parametrize("pasted", [False, True])
def test_a_long_imessage_page_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path, pasted: bool):
    # Before: the record in the window, the bubble's pieces, their join and the record sliced out (about
    # 6x the message). Now a piece of the page, and the text's run in a file.
    bounded(tmp_path, "imessage", lambda folder, mb: _page(folder, _bubble(_long(mb, pasted) or "hi")))


# Written as imessage-exporter writes a text (its ``sanitize_html``), across every piece's boundary: entities,
# emoji (four UTF-8 bytes), line breaks and white space at both ends.
_WRITTEN_TEXT = "\n  " + (WORDS + 'é😀 & <b> "q" it\'s \u2028\n') * 60_000 + "end \n"


def test_a_long_imessage_bubble_is_held_and_its_record_rebuilt(tmp_path: Path):
    written = (
        _bubble(html_written(_WRITTEN_TEXT)) + '\n        <span class="expressive">Sent with Echo</span>'
    )
    messages = _read(_page(tmp_path, written))
    assert [type(m.text) for m in messages] == [str, HeldText, str]
    held = messages[1]
    assert isinstance(held.text, HeldText) and held.own and held.kind == "text"
    assert held.text.whole() == _WRITTEN_TEXT.strip("\n ")
    assert held.raw.count("&#0;") == 1 and "\x00" not in held.raw
    rest, form = raw_record.cut(held.raw, (HELD, held.local_time, held.sender, held.sender_id))
    assert form == raw_record.FORMS.index(html_written)
    page = (tmp_path / "Jack.html").read_text()
    record = page[page.index('<div class="message">\n    <div class="sent') :].split("\n\n")[0]
    assert raw_record.joined(rest, form, (held.text.whole(), held.local_time, held.sender, None)) == record


def _imported(path: Path, home: Path) -> list[Message]:
    """``path`` imported into ``home`` through the CLI: its chat's messages as stored."""
    r = CliRunner().invoke(app, ["--home", str(home), "import", str(path)])
    assert r.exit_code == 0, r.output
    with Archive.open(home) as archive:
        return list(archive.stored_messages(1))


def test_a_long_imessage_bubble_is_imported_and_shown_as_written(tmp_path: Path):
    path = _page(tmp_path, _bubble(html_written(_WRITTEN_TEXT)))
    stored = _imported(path, tmp_path / "home")
    assert [m.text for m in stored] == ["hi", _WRITTEN_TEXT.strip("\n "), "ok"]
    page = path.read_text()
    assert stored[1].raw == page[page.index('<div class="message">\n    <div class="sent') :].split("\n\n")[0]
    found = CliRunner().invoke(app, ["--home", str(tmp_path / "home"), "search", "dull boy end", "--json"])
    assert len(json.loads(found.stdout)["results"]) == 1, found.output


def test_a_page_grown_after_a_held_bubble_is_read_on_from_its_mark(tmp_path: Path):
    # The mark's offset is the page's UTF-8 bytes up to the last record's end: counted as the held run passed.
    path = _page(tmp_path, _bubble(_long(3, True) + " é😀"))
    export = next(imessage.read(path, tz=UTC))
    assert [type(m.text) for m in export.messages] == [str, HeldText, str]
    mark = export.end()
    assert mark is not None and path.read_bytes()[: mark.offset].endswith(b"</div>\n</div>")
    later = _message("May 17, 2022  5:32:00 PM", "Jack", _bubble("later"))
    path.write_text(path.read_text().replace("</html>\n", later + "</html>\n"))
    assert [m.text for m in next(imessage.read(path, tz=UTC, after=mark)).messages] == ["later"]


def test_a_long_bubble_written_otherwise_is_read_whole(tmp_path: Path):
    # An apostrophe written as a reference (older exporters), a line break as markup: the record is not the
    # text written as form 3 writes it, so both are read whole, as before.
    for written in (WORDS.replace("'", "&#x27;") + "it&#x27;s ") * 40_000, (WORDS + "<br>") * 40_000:
        messages = _read(_page(tmp_path, _bubble(written)))
        assert [type(m.text) for m in messages] == [str, str, str]
        assert "\x00" not in messages[1].raw and _bubble(written) in messages[1].raw


# A message's parts: bubbles whose text mixes what form 3 writes with what it does not (references it does
# not write, markup, comments, markers), attachments, and what the exporter nests (tapbacks, replies).
_TEXT = st.sampled_from(
    [
        WORDS * 8,
        "word",
        " \n ",
        "\n",
        "&amp;",
        "&lt;b&gt;",
        "&quot;",
        '"',
        "'",
        "&#x27;",
        "&amp",
        "é😀",
        "<br>",
        "<b>bold</b>",
        "<!-- c -->",
        "\x01",
        "&#0;",
        "\\u0000",
        "Edited 5 seconds later: ",
        "This message was deleted from the conversation!",
    ]
)
_PART = st.one_of(
    st.lists(_TEXT, min_size=1, max_size=12).map(lambda texts: _bubble("".join(texts))),
    st.just('<div class="message_part"><img src="attachments/a.jpg" loading="lazy"></div>'),
    st.just('<div class="reactions"><p>Tapbacks:</p><div class="reaction">Loved by Jack</div></div>'),
    st.lists(_TEXT, max_size=6).map(
        lambda texts: (
            '<div class="replies"><div class="reply">'
            + _message("May 17, 2022  5:40:00 PM", "Ann", _bubble("".join(texts)))
            + "</div></div>"
        )
    ),
)
_MESSAGE = st.builds(
    lambda minute, who, parts: _message(
        f"May 17, 2022  5:{minute:02d}:00 PM", who, "\n".join(parts), who == "Me"
    ),
    st.integers(0, 59),
    st.sampled_from(["Me", "Jack", "Ann &amp; Bo"]),
    st.lists(_PART, min_size=1, max_size=3),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(_MESSAGE, min_size=1, max_size=4), chunk=st.integers(7, 300))
def test_an_imessage_page_held_in_part_reads_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, messages: list[str], chunk: int
):
    """Tiny thresholds (a run of text over 120 characters held, over 60 a text held) and pieces of the page
    of a few characters: the same messages, records and identities as read whole."""
    path = tmp_path / "Jack.html"
    # The encoding is told from the first 4 KB (read as one piece): the messages come after them.
    told = f"<!-- {'é' * 4096} -->\n"
    path.write_text('<html>\n<meta charset="UTF-8">\n' + told + "".join(messages) + "</html>\n")
    expected = list(imessage._html(path, UTC, None, chunk).messages)
    with monkeypatch.context() as held_in_part:
        held_in_part.setattr(linelog, "SPILL", 120)
        held_in_part.setattr(imessage, "LONG_TEXT", 60)
        unhold = imessage._Html._unhold

        def undone(parser: imessage._Html) -> str:
            event("a run held, then read whole")
            return unhold(parser)

        held_in_part.setattr(imessage._Html, "_unhold", undone)
        got = list(imessage._html(path, UTC, None, chunk).messages)
    read_as_whole(expected, got, "an iMessage bubble held")


# --- SMS Backup & Restore: a huge body (partial: the body is still read whole, once less) ----------------

_SMS_SAMPLE = Path(__file__).resolve().parent.parent / "sample_exports" / "sms-20261004213000.xml"


def _backup(folder: Path, mb: int) -> Path:
    path = folder / "sms-20261004213000.xml"
    body = _long(mb, False) or "hi"
    path.write_text(_SMS_SAMPLE.read_text().replace("Your code is 481516. Never share it.", body, 1))
    return path


def test_a_long_sms_body_costs_the_worker_less_than_six_times_its_size(tmp_path: Path):
    # Before: the row's bytes kept, expat's buffer (its tag), the body, the row sliced, decoded and stripped,
    # then the body and the record read back from the spool while the parser was kept: 6.9 times a 16 MB
    # body over the 0 MB file. Now the record made once from the bytes, the parser let go of: 5.5 times.
    peaks = {}
    for mb in (0, 16):
        folder = tmp_path / str(mb)
        folder.mkdir()
        peaks[mb] = _worker_peak_kb(_backup(folder, mb), "sms") / 1024
    assert peaks[16] - peaks[0] < 6 * 16, peaks


def _row(i: int, body: str) -> str:
    return (
        f'<sms protocol="0" address="+49 170 5550101" date="{1790000000000 + i * 1000}" type="1"'
        f' subject="null" body="{body}" read="1" contact_name="Oma" />'
    )


# Between rows: the app's line break and indent, and what a hand-edited file may hold (XML white space and
# white space beyond ASCII, which the record's stripping takes too; a word).
_BETWEEN = st.lists(
    st.sampled_from([" ", "\n", "\r\n", "\t", "\xa0", "\u2028", "\u3000", "\x85", "x"]), max_size=4
)
_BODY_WRITTEN = st.lists(
    st.sampled_from(["word ", "é😀", "&amp;", "&#10;", "&#39;", "&lt;b&gt;", "&#55357;&#56832;", " "]),
    max_size=8,
)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(_BODY_WRITTEN, _BETWEEN), min_size=1, max_size=5), long_at=st.integers(-1, 4))
def test_an_sms_record_is_its_row_as_written(rows: list[tuple[list[str], list[str]]], long_at: int):
    """Each message's record is its row as the file writes it, up to the next row, without the white space
    at its end: a long body's (over the spool's pieces and the file's chunks) too."""
    import tempfile

    written = ["".join(body) + ("é😀 " * 500_000 if i == long_at else "") for i, (body, _) in enumerate(rows)]
    records = [
        _row(i, body) + "".join(between)
        for i, (body, (_, between)) in enumerate(zip(written, rows, strict=True))
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sms-1.xml"
        head = f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<smses count=\"{len(rows)}\">\n  "
        path.write_text(head + "".join(records) + "</smses>\n")
        messages = _read_sms(path)
    # The last row's record ends where the root's end tag starts; a surrogate pair's references are joined.
    expected = [record.rstrip().replace("&#55357;&#56832;", "&#128512;") for record in records]
    assert [m.raw for m in messages] == expected
    assert all(isinstance(m.text, str) for m in messages)
