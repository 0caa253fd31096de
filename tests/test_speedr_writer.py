"""The import's writer and index step, made cheaper without changing what they write (issue 26 item 2, session
14): a fresh chat's sessions planned from each batch's columns (``storage.sessions.FreshPlan``) are the
sessions ``segment.split_by_gap`` plans from the same messages, turn by turn and in their stored form, wherever
the batches are cut and whatever rows they hold (hidden, threaded, out of time order, seqs with holes); every
turn read and analysed by two processes in parts makes the documents one process makes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_index_analysed import FIELDS, _turns
from test_index_analysed import archive as archive  # a fixture
from test_segment import SEC

from refind_cli.index import analysed
from refind_cli.index.tantivy_backend import TantivyIndex
from refind_cli.method import segment
from refind_cli.method.segment import PAIRINGS, Caps, SegMessage, split_by_gap
from refind_cli.records import Kind
from refind_cli.storage.archive import Archive
from refind_cli.storage.sessions import FreshPlan, Unthreaded, _stored_turn

ROWS = st.lists(
    st.tuples(
        st.integers(-1, 3),  # seconds after the previous row: 0 makes equal times, -1 a row out of order
        st.sampled_from(["a", "b", None]),
        st.sampled_from(["", "hi", "a longer message"]),
        st.sampled_from([Kind.TEXT, Kind.TEXT, Kind.TEXT, Kind.HIDDEN]),
        st.sampled_from([None, None, None, None, "t1"]),
        st.integers(1, 2),  # how far the seq is from the row before's: 2 leaves a hole
    ),
    max_size=60,
)


def rows_of(spec: list[tuple]) -> list[tuple]:
    """Rows as ``ingest.rows.Rows`` makes them, of what the planning reads."""
    rows, ts, seq = [], 0, 0
    for step, sender, text, kind, thread, skip in spec:
        ts += step * SEC
        seq += skip
        rows.append(
            (seq, 1, f"u{seq}", ts, None, sender, None, text, kind, None, thread, None, 0, "", 1, 0, None)
        )
    return rows


def as_planned(sessions: list) -> list[tuple]:
    """Sessions as ``SessionWriter`` stores them: id, start, end, messages, turns listed and stored."""
    planned = []
    for s in sessions:
        listed = [segment.turn_seqs(t) for t in s.turns]
        stored = list(map(_stored_turn, s.turns, listed))
        planned.append((s.id, s.thread, s.start, s.end, sum(map(len, s.turns)), listed, stored))
    return planned


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    spec=ROWS,
    cuts=st.lists(st.integers(0, 60), max_size=8),
    pairing=st.sampled_from(PAIRINGS),
    small=st.booleans(),
)
def test_a_fresh_plan_fed_in_batches_is_the_gap_split_of_its_rows(
    monkeypatch: pytest.MonkeyPatch, spec: list, cuts: list[int], pairing: str, small: bool
):
    if small:  # every cap reached in a few rows
        monkeypatch.setattr(segment, "CAPS", Caps(turn_messages=3, turn_chars=20, session_messages=5))
    rows = rows_of(spec)
    fresh = FreshPlan("chat", 2 * SEC, pairing)
    start = 0
    for end in [*sorted(cuts), len(rows)]:
        fresh.feed(rows[start:end])
        start = max(start, end)
    fresh.close()
    unthreaded = Unthreaded()
    messages: list[SegMessage] = list(unthreaded.of(rows))
    expected = as_planned(list(split_by_gap("chat", messages, 2 * SEC, pairing)))
    assert (fresh.unthreaded.out_of_order, fresh.unthreaded.threaded) == (
        unthreaded.out_of_order,
        unthreaded.threaded,
    )
    assert [tuple(s) for s in fresh.sessions] == expected


@pytest.mark.parametrize("part", [1, 2, 7, 1000])
def test_two_processes_taking_the_sessions_in_parts_make_the_same_documents(
    empty_home: Path, archive: Archive, monkeypatch: pytest.MonkeyPatch, part: int
) -> None:
    """Every turn read and analysed by two processes, a part of the sessions each in turn: the documents,
    and their order, of one process reading them all here."""
    index = TantivyIndex.open(empty_home)
    here = _turns(archive, index, None)
    started = []
    child = analysed.python_child
    monkeypatch.setattr(analysed, "python_child", lambda *a: started.append(a) or child(*a))
    monkeypatch.setattr(analysed, "CHILD_MIN_SESSIONS", 1)
    monkeypatch.setattr(analysed, "CHILDREN_MIN_SESSIONS", 1)
    monkeypatch.setattr(analysed, "PART", part)
    assert _turns(archive, index, None) == here
    assert len(started) == 2
    some = [1, 2, 5, 9, 10, 11, 30]  # the turns of sessions named: one process
    assert _turns(archive, index, some) == [t for t in here if t[0] in some]
    assert len(started) == 3


def test_a_failing_process_of_two_is_reported(tmp_path: Path) -> None:
    not_an_archive = tmp_path / "archive.db"
    not_an_archive.write_text("not SQLite")
    with pytest.raises(RuntimeError, match="analysis process failed"):
        list(analysed._in_child(not_an_archive, None, True, {}, FIELDS, None, [(1, 1), (2, 2), (3, 3)]))
