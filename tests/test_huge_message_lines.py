"""Issue 24, item 4 (session 14): a message of many short lines (a pasted log) in a LINE, KakaoTalk or Signal
log is held as a long line is.

The reader gathered a message's further lines in a list of strings and joined them twice (its text and its
record): 4.5 times the message at its peak. Now, once they are longer than ``linelog.SPILL``, they are
gathered into one ``linelog.Cut`` (its middle in an unnamed file, ``Spool``), and the message's text is held
in a file (``HeldText``) as a long line's is. Measured in a child process (its peak RSS, VmHWM); and read with
tiny thresholds, every message gives the same text, record and identity as read whole.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_huge_message_worker import _LOGS, WORDS, _hold_in_part, _read_log, bounded, read_as_whole

from refind_cli.errors import InputError
from refind_cli.importers import container, sigtop
from refind_cli.records import HeldText, Message

MB = 1 << 20


def _pasted(folder: Path, fmt: str, mb: int) -> Path:
    """A log whose middle message is ``mb`` MB of short lines (LINE quotes a text of several lines)."""
    head, short, line, name = _LOGS[fmt]
    lines = "\n".join(f"{WORDS}{i}" for i in range(mb * MB // (len(WORDS) + 7)))
    body = f'"{lines}"' if fmt == "line" else lines
    path = folder / name
    path.write_text(head + short + line(0, body or "hi") + "\n" + line(1, "ok") + "\n")
    return path


@pytest.mark.parametrize("fmt", sorted(_LOGS))
def test_a_message_of_many_short_lines_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path, fmt: str):
    # Before: a string a line in a list, then the text and the record joined (36 and 72 MB over a one-line
    # chat), 4.5 times the message. Now the lines up to a spill and the head and tail held.
    bounded(tmp_path, fmt, lambda folder, mb: _pasted(folder, fmt, mb))


@pytest.mark.parametrize("fmt", sorted(_LOGS))
def test_a_message_of_many_short_lines_is_held(tmp_path: Path, fmt: str):
    path = _pasted(tmp_path, fmt, 2)
    messages = _read_log(path, fmt)
    assert [type(m.text) for m in messages] == [str, HeldText, str]
    held = messages[1].text
    assert isinstance(held, HeldText)
    lines = held.whole().split("\n")
    assert lines[0] == f"{WORDS}0" and lines[-1] == f"{WORDS}{len(lines) - 1}"


# KakaoTalk CSV: a record longer than a spill is read as Cut lines and gathered; its message held.
_CELL = st.lists(
    st.sampled_from(["word ", WORDS, "\n", '"', ",", ";", "\x01", "é😀", "[Photo]"]), max_size=4
).map("".join)


def _csv_cell(text: str, quoted: bool) -> str:
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if quoted or any(c in text for c in '\n",') else text


_CSV_RECORD = st.builds(
    lambda i, sender, text, n, quoted: (
        f"2024-02-01 11:{i:02d}:00,{_csv_cell(sender, True)}," + _csv_cell(text + WORDS * n, quoted)
    ),
    st.integers(0, 59),
    st.sampled_from(["Ann", "Jack", "Kim, Jiwoo", 'Bo "B"', ""]),
    _CELL,
    st.integers(0, 20),
    st.booleans(),
)


def _read_csv(path: Path) -> list[object]:
    try:
        return list(_read_log(path, "kakaotalk"))
    except InputError as exc:
        return [exc]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(_CSV_RECORD, min_size=1, max_size=5), chunk=st.integers(16, 300))
def test_a_csv_record_held_in_part_reads_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, records: list[str], chunk: int
):
    """Tiny thresholds (records over 300 characters held): the same messages, records and identities as read
    whole; or, where a held record's message holds a quote, a control character, or (unquoted) a comma, one
    error line naming its line."""
    path = tmp_path / "KakaoTalk_Chat_Jack.csv"
    path.write_text(
        "Date,User,Message\n" + '2024-02-01 10:59:00,"Ann","first"\n' * 150 + "\n".join(records) + "\n"
    )
    monkeypatch.setattr(container, "CHUNK", chunk)
    expected = _read_csv(path)
    with monkeypatch.context() as held_in_part:
        _hold_in_part(held_in_part)
        got = _read_csv(path)
    if got and isinstance(got[-1], InputError) and "not read" in str(got[-1]):
        event("a held record refused")
        line = int(str(got[-1]).rsplit("line ", 1)[1].split(":")[0])
        starts = list(itertools.accumulate((r.count("\n") + 1 for r in records), initial=152))
        refused = expected[150 + starts.index(line)]  # after the 150 short ones (the header is line 1)
        assert isinstance(refused, Message) and isinstance(refused.text, str)
        assert re.search('["\x00-\x04]', refused.text) or (refused.text and not refused.raw.endswith('"'))
        assert len(refused.raw) > 300
        return
    if expected and isinstance(expected[-1], InputError):
        assert [str(e) for e in got] == [str(e) for e in expected]
        return
    read_as_whole(expected, got, "a CSV record held in part")


def _csv(folder: Path, mb: int, pasted: bool) -> Path:
    lines = "\n".join(f"{WORDS}{i}" for i in range(mb * MB // (len(WORDS) + 7)))
    body = f'"{lines}"' if pasted else WORDS * (mb * MB // len(WORDS))
    path = folder / "KakaoTalk_Chat_Jack.csv"
    path.write_text(
        f'Date,User,Message\n2024-02-01 10:59:00,"Ann","hi"\n2024-02-01 11:00:00,"Jack",{body or "hi"}\n'
    )
    return path


@pytest.mark.parametrize("pasted", [False, True])
def test_a_long_csv_message_is_read_and_costs_the_worker_no_more_when_twice_as_long(
    tmp_path: Path, pasted: bool
):
    """Before, a message over the ``csv`` module's field limit (128K characters) was refused, the import with
    it, once its record was held whole; now it is held in a file."""
    bounded(tmp_path, "kakaotalk", lambda folder, mb: _csv(folder, mb, pasted))
    messages = _read_log(_csv(tmp_path, 2, pasted), "kakaotalk")
    assert [type(m.text) for m in messages] == [str, HeldText]
    assert messages[1].raw == (
        '2024-02-01 11:00:00,"Jack","\x00"' if pasted else '2024-02-01 11:00:00,"Jack",\x00'
    )


def test_a_long_csv_message_that_cannot_be_held_is_one_error_line(tmp_path: Path):
    path = tmp_path / "KakaoTalk_Chat_Jack.csv"
    path.write_text(f'Date,User,Message\n2024-02-01 11:00:00,"Jack","{WORDS * 40_000}""quoted"""\n')
    with pytest.raises(InputError, match=r"line 2: a record longer than .* holds a double quote"):
        _read_log(path, "kakaotalk")


# sigtop: a body longer than a spill (one line, or many) is gathered into a Cut as the block is read.
_SIGTOP_BODY = st.lists(
    st.sampled_from(["word", WORDS, WORDS * 8, "", " ", "> quoted", "From: Ann", "\x01", "é😀"]), max_size=12
).map("\n".join)
_SIGTOP_BLOCK = st.builds(
    lambda who, quote, edited, body: (
        f"From: {who}\nType: {'outgoing' if who == 'You' else 'incoming'}\nSent: Mon, 28 May 2018 10:00:00 +0000\n"
        + ("Edited: 2 versions\n\n| Version: 1\n|\n| " + body.replace("\n", "\n| ") if edited else "")
        + ("\n> quoted line\n> another" if quote and not edited else "")
        + ("" if edited else f"\n\n{body}")
        + "\n"
    ),
    st.sampled_from(["Ann", "You", "Jack (+4912345)"]),
    st.booleans(),
    st.booleans(),
    _SIGTOP_BODY,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blocks=st.lists(_SIGTOP_BLOCK, min_size=1, max_size=4), chunk=st.integers(16, 300))
def test_a_sigtop_body_held_in_part_reads_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, blocks: list[str], chunk: int
):
    """Tiny thresholds (bodies over 300 characters gathered, texts over 200 held): the same messages,
    records and identities as read whole."""
    path = tmp_path / "Jack.txt"
    first = "From: Ann\nType: incoming\nSent: Mon, 28 May 2018 09:00:00 +0000\n\nfirst\n"
    path.write_text("Conversation: Jack\n\n" + "\n".join([first] * 60 + blocks))
    monkeypatch.setattr(container, "CHUNK", chunk)
    expected = _read_log(path, "signal")
    with monkeypatch.context() as held_in_part:
        _hold_in_part(held_in_part)
        held_in_part.setattr(sigtop, "LONG_TEXT", 200)
        got = _read_log(path, "signal")
    read_as_whole(expected, got, "a sigtop body held in part")


def _sigtop(folder: Path, mb: int, pasted: bool) -> Path:
    lines = "\n".join(f"{WORDS}{i}" for i in range(mb * MB // (len(WORDS) + 7)))
    body = (lines if pasted else WORDS * (mb * MB // len(WORDS))) or "hi"
    blocks = [("Ann", "hi"), ("Jack (+4912345)", body), ("Ann", "ok")]
    path = folder / "Jack.txt"
    path.write_text(
        "Conversation: Jack\n\n"
        + "\n".join(
            f"From: {who}\nType: incoming\nSent: Mon, 28 May 2018 10:{i:02d}:00 +0000\n\n{text}\n"
            for i, (who, text) in enumerate(blocks)
        )
    )
    return path


@pytest.mark.parametrize("pasted", [False, True])
def test_a_long_sigtop_message_costs_the_worker_no_more_when_twice_as_long(tmp_path: Path, pasted: bool):
    """Before: a line as written, its block's lines, the record and the body joined (2x one line, 4.5x
    many)."""
    bounded(tmp_path, "signal", lambda folder, mb: _sigtop(folder, mb, pasted))
    messages = _read_log(_sigtop(tmp_path, 2, pasted), "signal")
    assert [type(m.text) for m in messages] == [str, HeldText, str]
