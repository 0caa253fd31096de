"""What the import worker sends and how it makes it cheaply (bench/RESULTS.md, issue 26 item 2, session 14):
batches marshalled across the pipe, identities hashed from a copied state, a time converted once per
minute, short rests shared within a batch. Each must leave the rows exactly as they were."""

from __future__ import annotations

import hashlib
import pickle
from datetime import UTC, datetime, timedelta

from refind_cli.ingest import worker
from refind_cli.ingest.rows import BATCH, ChatPlan, Rows
from refind_cli.records import Message
from refind_cli.storage.database import to_us
from refind_cli.storage.identity import Identity

ROW = (1, 2, "w:00ff", 1_546_329_600_000_000, "01/01/2019, 08:00", "Ana", None, "hé ✓", "text", None, None)


def _crossed(batch: list[tuple]) -> list[tuple]:
    """The batch as the writer reads it back: packed, pickled inside its event, unpickled, unpacked."""
    event = pickle.loads(pickle.dumps(("messages", (worker._packed(batch), 7)), pickle.HIGHEST_PROTOCOL))
    packed, read = event[1]
    assert read == 7
    return worker._unpacked(packed)


def test_a_batch_of_plain_rows_crosses_marshalled_and_comes_back_equal():
    batch = [
        ROW,
        (*ROW[:2], "id:x", -(10**17), None, None, "U1", "", "media", "x", "t", "r", 1, "\x02 - \x01"),
    ]
    assert isinstance(worker._packed(batch), bytes)
    back = _crossed(batch)
    assert back == batch
    assert all(type(row) is tuple for row in back)


class Named(str):
    """A str subclass, which marshal does not take."""


def test_a_row_holding_another_type_crosses_pickled():
    batch = [ROW, (*ROW[:7], Named("subclassed text"), *ROW[8:])]
    assert worker._packed(batch) is batch
    back = _crossed(batch)
    assert back == batch
    assert type(back[1][7]) is Named


def test_identities_are_blake2b_of_time_sender_and_text():
    identity = Identity()
    for when, sender, text in [("01/01/2019, 08:00", "Ana", "hi"), ("1/1/19 8:00", None, "x" * 100_000)]:
        whole = hashlib.blake2b(f"{when}\x00{sender or ''}\x00{text}".encode(), digest_size=10).hexdigest()
        assert identity.uid(None, when, 0, sender, text) == "w:" + whole
    # The same message again: its occurrence counts; the state it started from was not touched.
    assert identity.uid(None, "01/01/2019, 08:00", 0, "Ana", "hi").endswith(":1")
    long = "é" * ((1 << 20) + 3)  # hashed in pieces
    whole = hashlib.blake2b(f"t\x00b\x00{long}".encode(), digest_size=10).hexdigest()
    assert Identity().uid(None, "t", 0, "b", long) == "w:" + whole


def _message(when: datetime, text: str, stamp: str, after: str = "") -> Message:
    return Message(when, "Ana", text, local_time=stamp, raw=f"{stamp} - Ana: {text}{after}")


def test_rows_convert_each_time_and_share_equal_short_rests():
    plan = ChatPlan(1, "c", True, 1, frozenset(), 1, "burst", 3_600_000_000)
    start = datetime(2024, 3, 1, 9, tzinfo=UTC)
    later = start + timedelta(minutes=1)
    # Equal times that are different objects, one object met again after another: each row its own.
    times = [start, later, start, datetime(2024, 3, 1, 9, tzinfo=UTC), later, later]
    messages = [_message(t, f"m{i}", f"{t:%d/%m/%Y, %H:%M}") for i, t in enumerate(times)]
    # Rests longer than a chat holds once (``raw.SHARED_LONGEST``) are left as cut, not looked up.
    messages += [_message(later, f"n{i}", "s", "!" * 70) for i in range(2)]
    batches = list(Rows(plan, messages))
    rows = [row for batch in batches for row in batch]
    assert [row[3] for row in rows] == [to_us(t) for t in times] + [to_us(later)] * 2
    assert all(row[13] == "\x02 - \x03: \x01" for row in rows[:-2])
    assert len({id(row[13]) for row in rows[:-2]}) == 1  # one string, sent once
    assert rows[-1][13] == rows[-2][13] == "\x02 - \x03: \x01" + "!" * 70


def test_rests_are_shared_within_a_batch_only():
    plan = ChatPlan(1, "c", True, 1, frozenset(), 1, "burst", 3_600_000_000)
    when = datetime(2024, 3, 1, 9, tzinfo=UTC)
    messages = [_message(when + timedelta(minutes=i), f"t{i}", f"s{i}") for i in range(BATCH + 1)]
    first, second = list(Rows(plan, messages))
    assert first[0][13] is first[-1][13]
    assert second[0][13] == first[0][13] and second[0][13] is not first[0][13]
