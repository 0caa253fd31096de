"""Messages -> sessions -> turns. Pure: no storage, no formats.

A session is one stretch of conversation: an explicit thread (Slack ``thread_ts``) is a session of its own;
other messages of a chat are split wherever a silence is longer than the session gap. A turn is a burst:
consecutive messages by one sender inside a session; with ``pairing="exchange"`` (assistant-style chats) a
turn is the session opener's burst plus the replies up to the opener's next burst.

Segmentation streams: it walks messages in time order and yields each session as soon as it closes, so a
million-message chat never sits in memory as a whole.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

PAIRINGS = ("burst", "exchange")


class SegMessage(NamedTuple):
    """What segmentation needs of a stored message. A named tuple, not a frozen dataclass: one is built per
    message on the import's hot path, and construction measured 0.03 µs against 1.5 µs."""

    seq: int  # archive row id: the tie-breaker for equal timestamps
    uid: str  # stable message identity, the seed of session ids
    ts: int  # microseconds since the epoch, UTC
    sender: str
    thread: str | None
    text: str


_SENDER = operator.attrgetter("sender")


@dataclass(frozen=True, slots=True)
class PlannedSession:
    id: str
    thread: str | None
    start: int
    end: int
    turns: tuple[tuple[SegMessage, ...], ...]

    @property
    def signature(self) -> str:
        return signature([turn_seqs(t) for t in self.turns])


def turn_seqs(turn: tuple[SegMessage, ...]) -> str:
    """A turn's message seqs as stored: "12,13,14"."""
    return str(turn[0].seq) if len(turn) == 1 else ",".join([str(m.seq) for m in turn])


def signature(turn_seqs: list[str]) -> str:
    """Identifies a session's turn structure: equal signatures mean nothing to re-store or re-index."""
    return hashlib.blake2b("".join([s + ";" for s in turn_seqs]).encode(), digest_size=12).hexdigest()


def session_id(chat_uid: str, first_uid: str) -> str:
    # Derived from the chat and the session's first message, so re-importing the same data gives the same id.
    return hashlib.blake2b(f"{chat_uid}\x00{first_uid}".encode(), digest_size=6).hexdigest()


def split_turns(messages: list[SegMessage], pairing: str) -> tuple[tuple[SegMessage, ...], ...]:
    if pairing == "burst":
        return tuple(tuple(burst) for _, burst in itertools.groupby(messages, _SENDER))
    # "exchange": a turn starts where the opener speaks again after someone else.
    turns: list[list[SegMessage]] = []
    opener = messages[0].sender
    previous: str | None = None
    for m in messages:
        if not turns or (m.sender == opener and previous != opener):
            turns.append([m])
        else:
            turns[-1].append(m)
        previous = m.sender
    return tuple(tuple(t) for t in turns)


def _session(chat_uid: str, messages: list[SegMessage], thread: str | None, pairing: str) -> PlannedSession:
    return PlannedSession(
        id=session_id(chat_uid, messages[0].uid),
        thread=thread,
        start=messages[0].ts,
        end=messages[-1].ts,
        turns=split_turns(messages, pairing),
    )


def split_by_gap(
    chat_uid: str, ordered: Iterable[SegMessage], gap_us: int, pairing: str = "burst"
) -> Iterator[PlannedSession]:
    """Sessions of messages given in time order: a new one after each silence longer than ``gap_us``."""
    current: list[SegMessage] = []
    for m in ordered:
        if current and m.ts - current[-1].ts > gap_us:
            yield _session(chat_uid, current, None, pairing)
            current = []
        current.append(m)
    if current:
        yield _session(chat_uid, current, None, pairing)


def split_by_thread(
    chat_uid: str, ordered_by_thread: Iterable[SegMessage], pairing: str = "burst"
) -> Iterator[PlannedSession]:
    """One session per thread; messages must come grouped by thread and in time order within it."""
    current: list[SegMessage] = []
    for m in ordered_by_thread:
        if current and m.thread != current[-1].thread:
            yield _session(chat_uid, current, current[-1].thread, pairing)
            current = []
        current.append(m)
    if current:
        yield _session(chat_uid, current, current[-1].thread, pairing)
