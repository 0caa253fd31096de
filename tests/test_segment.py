from refind_cli.segment import SegMessage, split_by_gap, split_by_thread, split_turns

MIN = 60_000_000


def msgs(spec: list[tuple[int, str]], thread: str | None = None) -> list[SegMessage]:
    """(minute, sender) pairs -> SegMessages with increasing seqs."""
    return [
        SegMessage(i + 1, f"u{i}", minute * MIN, sender, thread, f"text {i}")
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
        SegMessage(9, "u9", 1 * MIN, "c", "t2", "x"),
        SegMessage(10, "u10", 2 * MIN, "a", "t2", "y"),
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
