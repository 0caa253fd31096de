"""The import's writer, made cheaper without changing what it writes (issue 26 item 2, session 14): a fresh chat's
sessions planned from each batch's columns (``storage.sessions.FreshPlan``) are the sessions
``segment.split_by_gap`` plans from the same messages, turn by turn and in their stored form, wherever the
batches are cut and whatever rows they hold (hidden, threaded, out of time order, seqs with holes)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_segment import SEC

from refind_cli.method import segment
from refind_cli.method.segment import PAIRINGS, Caps, SegMessage, split_by_gap
from refind_cli.records import Kind
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
        rows.append((seq, 1, f"u{seq}", ts, None, sender, None, text, kind, None, thread, None, 0, "", 1, 0, None))
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
    assert (fresh.unthreaded.out_of_order, fresh.unthreaded.threaded) == (unthreaded.out_of_order, unthreaded.threaded)
    assert [tuple(s) for s in fresh.sessions] == expected
