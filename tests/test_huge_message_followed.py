"""Issue 24, item 4 (session 11): a huge WhatsApp message followed by others is held twice by the worker (as
written and its text), not three times: the reading window and the stamps found in it let the record go
before its message is made (``linelog.stamp_lines`` holds positions, never the text, between two stamps;
``Window.let_go``). Python memory is measured with tracemalloc (exact, whatever the machine's load).
"""

from __future__ import annotations

import pickle
import tracemalloc
import warnings
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.importers import container, read_export, whatsapp
from refind_cli.ingest.rows import ChatPlan, Rows
from refind_cli.ingest.worker import _texts_apart
from refind_cli.records import Message

MB = 1 << 20
LINE = "all work and no play makes jack a dull boy "


def traced_peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def worker_peak(path: Path) -> int:
    """tracemalloc's peak of the worker's part of an import (``serve_worker``), sending nowhere."""
    plan = ChatPlan(1, "whatsapp:Jack", True, 1, frozenset(), 1, "burst", 3_600_000_000)

    def send(event: object) -> None:
        pickle.dumps(event, pickle.HIGHEST_PROTOCOL)

    def read() -> None:
        for export in read_export(path, "whatsapp", UTC):
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
    assert peak < 2.5 * len(body), f"{peak / len(body):.2f} times the message"


_RECORDS = st.one_of(
    st.builds(lambda i: f"18/03/2022, 14:{i:02d} - Ann: word {i}", st.integers(0, 59)),
    st.builds(lambda n: "18/03/2022, 14:56 - Bo: " + "\n".join(["line"] * n), st.integers(2, 6)),
    st.builds(lambda n: "18/03/2022, 14:57 - Bo: " + "long " * n, st.integers(20, 200)),
    st.just("31/02/2022, 10:01 - Ann: a date that cannot be"),  # malformed: warned with its line number
    st.just("[18/03/2022, 14:58:09] Cy: another shape"),
    st.just("18/03/2022, 14:59 - Ann changed the subject to \"Re: plans\""),
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
