"""Issue 24, item 4 (session 11): a huge message of a line-based log is held twice by the import's worker (as
written and its text), not three or four times. WhatsApp: the reading window and the stamps found in it let
the record go before its message is made (``linelog.stamp_lines`` holds positions, never the text, between
two stamps; ``Window.let_go``). LINE, KakaoTalk, Signal logs: a long line is let go of as it is given
(``iter_lines``), and a message's kind is read from its first line in place, not from a stripped copy.
Python memory is measured with tracemalloc (exact, whatever the machine's load).
"""

from __future__ import annotations

import pickle
import warnings
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_huge_message_held import traced_peak

from refind_cli.importers import container, kakaotalk, linelog, read_export, whatsapp
from refind_cli.ingest.rows import ChatPlan, Rows
from refind_cli.ingest.worker import _texts_apart
from refind_cli.records import Kind, Message

MB = 1 << 20
LINE = "all work and no play makes jack a dull boy "
# What does not grow with the message: a chunk of the file read and decoded, a batch of 5,000 short rows.
FIXED = 5 * MB


def worker_peak(path: Path, fmt: str = "whatsapp") -> int:
    """tracemalloc's peak of the worker's part of an import (``serve_worker``), sending nowhere."""
    plan = ChatPlan(1, f"{fmt}:Jack", True, 1, frozenset(), 1, "burst", 3_600_000_000)

    def send(event: object) -> None:
        pickle.dumps(event, pickle.HIGHEST_PROTOCOL)

    def read() -> None:
        for export in read_export(path, fmt, UTC):
            rows = Rows(plan, export.messages)
            for batch in rows:
                send(("messages", (_texts_apart(batch, send), rows.read)))

    return traced_peak(read)


@pytest.mark.parametrize("after_lines", [1, 20_000])
def test_the_worker_holds_a_huge_message_followed_by_others_twice_not_three_times(
    tmp_path: Path, after_lines: int
):
    body = LINE * (8 * MB // len(LINE))
    after = "".join(f"01/02/2024, 11:01 - Ann: ok {i}\n" for i in range(after_lines))  # 1 line or ~600 KB
    path = tmp_path / "WhatsApp Chat with Jack.txt"
    path.write_text(f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n{after}")
    peak = worker_peak(path)
    # Before: 3 times and more (the window's text, the record as written and its text, the text read past it).
    assert peak < 2 * len(body) + FIXED, f"{peak / len(body):.2f} times the message"


@pytest.mark.parametrize("after_lines", [0, 20_000])
def test_the_worker_holds_a_huge_line_message_twice_not_three_times(tmp_path: Path, after_lines: int):
    body = LINE * (8 * MB // len(LINE))  # it ends with a space: a stripped copy would be one more
    head = "[LINE] Chat history with Jack\nSaved on: 2024/02/01 12:00\n\n2024/02/01(Thu)\n"
    after = "".join(f"11:01\tAnn\tok {i}\n" for i in range(after_lines))  # ~400 KB
    path = tmp_path / "[LINE] Chat with Jack.txt"
    path.write_text(f"{head}10:59\tAnn\thi\n11:00\tJack\t{body}\n{after}")
    peak = worker_peak(path, "line")
    # Before: 3.4 times (last) and 4.5 times (followed): the piece of text and its lines held while the reader
    # made the message, and the first line stripped for its kind.
    assert peak < 2 * len(body) + FIXED, f"{peak / len(body):.2f} times the message"


@given(st.text(st.sampled_from(" \t\u3000\u2028\x1cab\n")))
def test_strip_bounds_are_where_strip_cuts(text: str):
    start, end = linelog.strip_bounds(text)
    assert text[start:end] == text.strip()


@given(
    st.sampled_from(["", " ", "  \t", "\u3000", " " * 70]),
    st.sampled_from(
        [
            "사진",
            "<Photo>",
            "사진 3장",
            "Photos 12",
            "File: a.pdf",
            "Voice Call 0:42",
            "Ann invited Bo.",
            "hello",
            "",
        ]
    ),
    st.sampled_from(["", " ", "\t \u3000", " " * 130]),
)
def test_a_kind_read_in_place_is_the_kind_of_the_stripped_line(before: str, line: str, after: str):
    text = before + line + after
    assert kakaotalk.grammar().kind_of(text) == kakaotalk.grammar().kind_of(text.strip())
    assert kakaotalk.grammar().kind_of(text) == _kind_of_a_copy(kakaotalk.grammar(), text.strip())


def _kind_of_a_copy(grammar: linelog.Grammar, line: str) -> str:
    """Grammar.kind_of as it was, on a stripped line."""
    kind = grammar.kinds.get(line)
    if kind is not None:
        return kind
    m = grammar.kind_pattern.match(line) if grammar.kind_pattern is not None else None
    return grammar.kind_patterns[int(m.lastgroup[1:])][1] if m is not None and m.lastgroup else Kind.TEXT


# Bodies with what the text is cut around: marks and isolates at either end or inside, trailing newlines, an
# edited marker, a leading LRM, a colon, media placeholders.
_BODIES = st.lists(
    st.sampled_from(
        [
            "hi",
            "x²",
            "\u200e",
            "\u200f",
            "\u2066@Bo\u2069",
            "\n",
            " ",
            "<This message was edited>",
            "IMG-1.jpg (file attached)",
            "<Media omitted>",
            "at 10:30",
            "Joe: x",
            "\ufeff",
        ]
    ),
    max_size=6,
).map("".join)
_RECORDS = st.one_of(
    st.builds(lambda i: f"18/03/2022, 14:{i:02d} - Ann: word {i}", st.integers(0, 59)),
    st.builds(lambda n: "18/03/2022, 14:56 - Bo: " + "\n".join(["line"] * n), st.integers(2, 6)),
    st.builds(lambda n: "18/03/2022, 14:57 - Bo: " + "long " * n, st.integers(20, 200)),
    st.just("31/02/2022, 10:01 - Ann: a date that cannot be"),  # malformed: warned with its line number
    st.just("[18/03/2022, 14:58:09] Cy: another shape"),
    st.just('18/03/2022, 14:59 - Ann changed the subject to "Re: plans"'),
    st.builds(lambda body: "18/03/2022, 15:00 - Bo: " + body, _BODIES),
    st.builds(lambda body: "18/03/2022, 15:01 - Ann:" + body, _BODIES),  # no space after the colon
    st.builds(lambda body: "18/03/2022, 15:02 - " + body, _BODIES),  # no author
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(_RECORDS, min_size=2, max_size=14), chunk=st.integers(16, 200))
def test_letting_a_long_record_go_reads_the_same_messages_and_line_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, records: list[str], chunk: int
):
    """Every record let go of as if it were long, the file streamed in small chunks: the same messages and
    the same warnings (their line numbers) as read whole."""
    path = tmp_path / "WhatsApp Chat with Ann.txt"
    path.write_text("18/03/2022, 14:55 - Ann: first\n" + "\n".join(records) + "\n")

    def read() -> tuple[list[Message], list[str]]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            messages = [m for export in read_export(path, "whatsapp", UTC) for m in export.messages]
        return messages, [str(w.message) for w in caught]

    expected = read()
    monkeypatch.setattr(whatsapp, "_LONG_RECORD", 0)
    monkeypatch.setattr(container, "CHUNK", chunk)
    assert read() == expected
