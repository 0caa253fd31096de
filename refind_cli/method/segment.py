"""Messages -> sessions -> turns. Pure: no storage, no formats.

A session is one stretch of conversation: an explicit thread (Slack ``thread_ts``) is a session of its own;
other messages of a chat are split wherever a silence is longer than the session gap. A turn is a burst:
consecutive messages by one sender inside a session; with ``pairing="exchange"`` (assistant-style chats) a
turn is the session opener's burst plus the replies up to the opener's next burst.

Both are capped (``CAPS``), so that hostile or machine-made input (400,000 messages by one sender a second
apart) cannot make one turn or one session of everything: a turn closes at a number of messages or of
characters, a session at a number of messages. The caps lie far beyond anything real conversations reach, so
under them segmentation is exactly the uncapped one, and so are the ids of sessions and turns.

Segmentation streams: it walks messages in time order and yields each session as soon as it closes, so a
million-message chat never sits in memory as a whole.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from refind_cli.typed import NamedTuple

PAIRINGS = ("burst", "exchange")


class SegMessage(NamedTuple):
    """What segmentation needs of a stored message. A named tuple, not a frozen dataclass: one is built per
    message on the import's hot path, and construction measured 0.03 µs against 1.5 µs."""

    seq: int  # archive row id: the tie-breaker for equal timestamps
    uid: str  # stable message identity, the seed of session ids
    ts: int  # microseconds since the epoch, UTC
    sender: str
    thread: str | None
    # The length of the message's text, not the text: the caps are all segmentation reads of it, and a
    # session being planned holds up to ``Caps.session_messages`` messages (10,000 texts of 15 KB held 150 MB).
    chars: int


_SENDER = operator.attrgetter("sender")
_CHARS = operator.attrgetter("chars")


@dataclass(frozen=True, slots=True)
class Caps:
    """Bounds on a turn and a session. Measured on real and benchmark chats (the sample exports, LoCoMo,
    LongMemEval-S with and without its session boundaries), the largest turn held 10 messages and 42,885
    characters, the largest session 365 messages: each cap is ten times or more beyond that."""

    turn_messages: int = 100
    turn_chars: int = 100_000  # characters of message text, separators not counted
    # A session closes at this many messages, inside a run of equal timestamps too (25,000 lines stamped
    # the same minute made one session); a re-plan starts where no earlier session reaches
    # (``Archive.replan_start``).
    session_messages: int = 10_000

    @property
    def key(self) -> str:
        """Part of how a chat was cut, as stored with it: other caps mean planning the chat again."""
        return f"{self.turn_messages}/{self.turn_chars}/{self.session_messages}"


CAPS = Caps()


@dataclass(frozen=True, slots=True)
class PlannedSession:
    id: str
    thread: str | None
    start: int
    end: int
    turns: tuple[tuple[SegMessage, ...], ...]

    @property
    def signature(self) -> bytes:
        return signature([turn_seqs(t) for t in self.turns])


def turn_seqs(turn: tuple[SegMessage, ...]) -> str:
    """A turn's message seqs as stored: "12,13,14"."""
    return str(turn[0].seq) if len(turn) == 1 else ",".join([str(m.seq) for m in turn])


def signature(turn_seqs: list[str]) -> bytes:
    """Identifies a session's turn structure: equal signatures mean nothing to re-store or re-index. Stored
    as its bytes (since m022; its hex before); 8 of them since m033, the first 8 of the 12 stored before, so
    an archive upgraded by cutting its signatures finds its sessions unchanged."""
    joined = f"{';'.join(turn_seqs)};" if turn_seqs else ""  # each followed by ";"
    return hashlib.blake2b(joined.encode(), digest_size=12).digest()[:8]


def session_id(chat_uid: str, first_uid: str) -> str:
    # Derived from the chat and the session's first message, so re-importing the same data gives the same id.
    return hashlib.blake2b(f"{chat_uid}\x00{first_uid}".encode(), digest_size=6).hexdigest()


def split_turns(messages: list[SegMessage], pairing: str) -> tuple[tuple[SegMessage, ...], ...]:
    starts = [0, *turn_starts(list(map(_SENDER, messages)), pairing)]
    ends = capped_turns(starts, len(messages), list(map(_CHARS, messages)))
    return tuple([tuple(messages[a:b]) for a, b in zip([0, *ends[:-1]], ends, strict=True)])


def turn_starts(senders: list[str], pairing: str) -> list[int]:
    """Where a turn begins among a session's messages (their senders, in order), but at its first. From the
    messages' columns, so that an import plans a fresh chat's turns without a SegMessage a message
    (``storage.sessions.FreshPlan``)."""
    if pairing == "burst":
        return changes(senders)
    # "exchange": a turn starts where the opener speaks again after someone else.
    opener = senders[0]
    return [i for i in range(1, len(senders)) if senders[i] == opener and senders[i - 1] != opener]


def changes(senders: list[str]) -> list[int]:
    """Where the sender changes (a burst's turn begins), compared at C speed."""
    return list(itertools.compress(range(1, len(senders)), map(operator.ne, senders[1:], senders)))


def capped_turns(starts: list[int], end: int, chars: list[int]) -> list[int]:
    """Where each turn ends (the index after its last message), the turns beginning at ``starts`` (the
    first where the session does) and the session ending before ``end``, indices into ``chars`` (the
    messages' lengths): each turn over a cap cut into consecutive pieces within the caps."""
    if end - starts[0] == len(starts):  # a message a turn (most turns): none is over a cap
        return [*starts[1:], end]
    caps = CAPS
    most, limit = caps.turn_messages, caps.turn_chars
    ends: list[int] = []
    a = starts[0]
    for b in itertools.chain(itertools.islice(starts, 1, None), (end,)):
        # A loop, not a generator: planning runs once per message of an import.
        if b - a == 1 or (b - a <= most and sum(chars[a:b]) <= limit):
            ends.append(b)
        else:
            for length in _piece_lengths(chars[a:b], caps):
                a += length
                ends.append(a)
        a = b
    return ends


def _piece_lengths(chars: list[int], caps: Caps) -> list[int]:
    """How many messages each consecutive piece of an over-cap turn (its messages' lengths) holds, each
    piece within the caps (a message longer than the character cap is a piece of its own: a message is
    never cut)."""
    lengths: list[int] = []
    n = total = 0
    for c in chars:
        if n and (n >= caps.turn_messages or total + c > caps.turn_chars):
            lengths.append(n)
            n = total = 0
        n += 1
        total += c
    lengths.append(n)
    return lengths


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
    split = GapSplit(chat_uid, gap_us, pairing)
    yield from split.feed(ordered)
    yield from split.close()


class GapSplit:
    """``split_by_gap`` fed a part of the messages at a time (an import plans a chat's sessions batch by
    batch, and sends each batch on before the next is read): ``feed`` yields the sessions the part closes,
    ``close`` the last one."""

    def __init__(self, chat_uid: str, gap_us: int, pairing: str) -> None:
        self.chat_uid, self.gap_us, self.pairing = chat_uid, gap_us, pairing
        self.current: list[SegMessage] = []  # the session still open

    def feed(self, ordered: Iterable[SegMessage]) -> Iterator[PlannedSession]:
        chat_uid, gap_us, pairing, cap = self.chat_uid, self.gap_us, self.pairing, CAPS.session_messages
        current = self.current
        last = current[-1].ts if current else 0  # the time of the open session's last message
        for m in ordered:
            ts = m.ts
            if current and (ts - last > gap_us or len(current) >= cap):
                yield _session(chat_uid, current, None, pairing)
                current = self.current = []
            current.append(m)
            last = ts

    def close(self) -> Iterator[PlannedSession]:
        if self.current:
            yield _session(self.chat_uid, self.current, None, self.pairing)
            self.current = []


def split_by_thread(
    chat_uid: str, ordered_by_thread: Iterable[SegMessage], pairing: str = "burst"
) -> Iterator[PlannedSession]:
    """One session per thread (more for a thread beyond the session cap); messages must come grouped by
    thread and in time order within it."""
    cap = CAPS.session_messages
    current: list[SegMessage] = []
    for m in ordered_by_thread:
        if current and (m.thread != current[-1].thread or len(current) >= cap):
            yield _session(chat_uid, current, current[-1].thread, pairing)
            current = []
        current.append(m)
    if current:
        yield _session(chat_uid, current, current[-1].thread, pairing)
