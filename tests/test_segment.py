import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.method import segment
from refind_cli.method.segment import (
    CAPS,
    PAIRINGS,
    Caps,
    SegMessage,
    split_by_gap,
    split_by_thread,
    split_turns,
)

MIN = 60_000_000


def msgs(spec: list[tuple[int, str]], thread: str | None = None) -> list[SegMessage]:
    """(minute, sender) pairs -> SegMessages with increasing seqs."""
    return [
        SegMessage(i + 1, f"u{i}", minute * MIN, sender, thread, len(f"text {i}"))
        for i, (minute, sender) in enumerate(spec)
    ]


def test_gap_splits_only_on_silences_longer_than_the_gap():
    ms = msgs([(0, "a"), (60, "b"), (121, "a"), (122, "a")])
    sessions = list(split_by_gap("chat", ms, 60 * MIN))
    assert [[m.seq for t in s.turns for m in t] for s in sessions] == [[1, 2], [3, 4]]
    assert sessions[0].start == 0 and sessions[0].end == 60 * MIN


def test_bursts_group_consecutive_messages_by_one_sender():
    ms = msgs([(0, "a"), (1, "a"), (2, "b"), (3, "a"), (4, "a"), (5, "a")])
    turns = split_turns(ms, "burst")
    assert [[m.seq for m in t] for t in turns] == [[1, 2], [3], [4, 5, 6]]


def test_exchange_pairs_opener_with_replies():
    ms = msgs([(0, "user"), (1, "assistant"), (2, "assistant"), (3, "user"), (4, "user"), (5, "assistant")])
    turns = split_turns(ms, "exchange")
    assert [[m.seq for m in t] for t in turns] == [[1, 2, 3], [4, 5, 6]]


def test_threads_are_sessions_of_their_own():
    ms = [
        *msgs([(0, "a"), (500, "b")], thread="t1"),
        SegMessage(9, "u9", 1 * MIN, "c", "t2", 1),
        SegMessage(10, "u10", 2 * MIN, "a", "t2", 1),
    ]
    ordered = sorted(ms, key=lambda m: (m.thread, m.ts))
    sessions = list(split_by_thread("chat", ordered))
    assert [s.thread for s in sessions] == ["t1", "t2"]
    # A thread is never split by silence: the reply 500 minutes later stays in the thread's session.
    assert len(sessions[0].turns) == 2


def test_ids_and_signatures_are_deterministic_and_depend_on_content():
    a = list(split_by_gap("chat", msgs([(0, "a"), (1, "b")]), 60 * MIN))
    b = list(split_by_gap("chat", msgs([(0, "a"), (1, "b")]), 60 * MIN))
    c = list(split_by_gap("other", msgs([(0, "a"), (1, "b")]), 60 * MIN))
    d = list(split_by_gap("chat", msgs([(0, "a"), (1, "b"), (2, "a")]), 60 * MIN))
    assert a[0].id == b[0].id != c[0].id
    assert a[0].signature == b[0].signature != d[0].signature
    assert a[0].id == d[0].id


# --- caps ---------------------------------------------------------------------------------------------------

SEC = 1_000_000


def one_sender(n: int, *, text: str = "x", step: int = SEC, thread: str | None = None) -> list[SegMessage]:
    return [SegMessage(i + 1, f"u{i}", i * step, "a", thread, len(text)) for i in range(n)]


def test_a_burst_beyond_the_message_cap_splits_into_capped_turns():
    n = 2 * CAPS.turn_messages + 1
    (session,) = split_by_gap("chat", one_sender(n), 60 * MIN)
    assert [len(t) for t in session.turns] == [CAPS.turn_messages, CAPS.turn_messages, 1]
    assert [m.seq for t in session.turns for m in t] == list(range(1, n + 1))


def test_a_burst_beyond_the_character_cap_splits_but_never_a_message():
    big = "y" * (CAPS.turn_chars // 2 + 1)
    turns = split_turns(one_sender(3, text=big), "burst")
    assert [len(t) for t in turns] == [1, 1, 1]
    # One message longer than the cap is one turn: a message is never cut.
    assert [len(t) for t in split_turns(one_sender(1, text="z" * (CAPS.turn_chars + 1)), "burst")] == [1]


def test_an_exchange_beyond_the_cap_splits_too():
    ms = [SegMessage(1, "u0", 0, "user", None, 1)]
    ms += [
        SegMessage(i + 2, f"u{i + 1}", (i + 1) * SEC, "assistant", None, 1) for i in range(CAPS.turn_messages)
    ]
    assert [len(t) for t in split_turns(ms, "exchange")] == [CAPS.turn_messages, 1]


def test_a_session_beyond_the_cap_closes_at_the_cap_even_among_equal_timestamps():
    cap = CAPS.session_messages
    sessions = list(split_by_gap("chat", one_sender(2 * cap + 5), 60 * MIN))
    assert [sum(map(len, s.turns)) for s in sessions] == [cap, cap, 5]
    assert len({s.id for s in sessions}) == 3
    # Issue 24: 25,000 messages of one minute made one session.
    equal = [SegMessage(i + 1, f"u{i}", 0 if i <= cap + 2 else SEC, "a", None, 1) for i in range(cap + 5)]
    assert [sum(map(len, s.turns)) for s in split_by_gap("chat", equal, 60 * MIN)] == [cap, 5]


def test_a_thread_beyond_the_session_cap_becomes_several_sessions():
    cap = CAPS.session_messages
    sessions = list(split_by_thread("chat", one_sender(cap + 1, thread="t1")))
    assert [(s.thread, sum(map(len, s.turns))) for s in sessions] == [("t1", cap), ("t1", 1)]


SPEC = st.lists(
    st.tuples(
        st.integers(0, 3),  # seconds after the previous message: 0 makes equal timestamps
        st.sampled_from(["a", "b"]),
        st.sampled_from(["", "hi", "a longer message"]),
    ),
    max_size=60,
)


def spec_messages(spec: list[tuple[int, str, str]]) -> list[SegMessage]:
    out, ts = [], 0
    for i, (step, sender, text) in enumerate(spec):
        ts += step * SEC
        out.append(SegMessage(i + 1, f"u{i}", ts, sender, None, len(text)))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=SPEC, pairing=st.sampled_from(PAIRINGS))
def test_replanning_from_any_session_start_repeats_the_capped_plan(
    monkeypatch: pytest.MonkeyPatch, spec: list, pairing: str
):
    """Re-planning after an import starts at the start time of a stored session that no earlier session
    reaches (Archive.replan_start) and reads the rows from that time on: it must plan the same sessions and
    turns as the streamed plan did."""
    monkeypatch.setattr(segment, "CAPS", Caps(turn_messages=3, turn_chars=20, session_messages=5))
    ms = spec_messages(spec)
    planned = list(split_by_gap("chat", ms, 2 * SEC, pairing))
    for i, s in enumerate(planned):
        if i and planned[i - 1].end >= s.start:
            continue  # cut at the cap inside a run of equal times: a re-plan starts before it
        again = list(split_by_gap("chat", [m for m in ms if m.ts >= s.start], 2 * SEC, pairing))
        assert again == planned[i:]
    for s in planned:
        assert sum(map(len, s.turns)) <= 5
        for t in s.turns:
            assert len(t) == 1 or (len(t) <= 3 and sum(m.chars for m in t) <= 20)


@settings(max_examples=100, deadline=None)
@given(spec=SPEC, pairing=st.sampled_from(PAIRINGS))
def test_under_the_caps_the_plan_is_the_uncapped_one(spec: list, pairing: str):
    ms = spec_messages(spec)
    capped = list(split_by_gap("chat", ms, 2 * SEC, pairing))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(segment, "CAPS", Caps(10**9, 10**9, 10**9))
        assert list(split_by_gap("chat", ms, 2 * SEC, pairing)) == capped
