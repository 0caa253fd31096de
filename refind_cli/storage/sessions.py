"""Stored messages -> stored sessions and turns: planning a chat's sessions (refind_cli.method.segment) and writing
only the ones that differ from what is stored. Imports use it as messages arrive; forget uses it to cut a
chat again from what is left."""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Iterable, Iterator
from datetime import timedelta

from refind_cli.method import segment
from refind_cli.records import Kind
from refind_cli.storage.archive import Archive, StoredSession
from refind_cli.storage.database import run_of_seqs
from refind_cli.typed import NamedTuple

# Where a row of ``ingest.rows`` holds what planning reads of it.
_SEQ, _UID, _TS, _SENDER, _TEXT, _KIND, _THREAD = map(operator.itemgetter, (0, 2, 3, 5, 7, 8, 10))


def segmenting_key(pairing: str, session_gap: timedelta) -> str:
    """How a chat is cut, as stored with it: "<pairing>:<gap in microseconds>:<caps>"."""
    return f"{pairing}:{int(session_gap.total_seconds() * 1_000_000)}:{segment.CAPS.key}"


def parse_segmenting(segmenting: str) -> tuple[str, int]:
    # Keys stored before caps existed have no third part: cutting such a chat again applies today's caps.
    pairing, gap = segmenting.split(":")[:2]
    return pairing, int(gap)


def resegment_chat(archive: Archive, chat_seq: int, start: int | None = None, threads: bool = True) -> int:
    """Plan a chat's sessions again from its stored messages, the way it was segmented on import; rewrite
    only the sessions that differ. With ``start``, the unthreaded sessions that begin before it are known
    to be unchanged and are left as they are; without ``threads``, so are its threads (no threaded message
    was added: finding the threaded ones would read the whole chat). Returns how many sessions changed
    (new, rewritten or gone)."""
    chat_uid, segmenting = archive.chat_segmenting(chat_seq)
    pairing, gap_us = parse_segmenting(segmenting)
    existing = archive.session_signatures(chat_seq, start, threads)
    writer = SessionWriter(archive, chat_seq, existing)
    replan(
        archive,
        chat_uid,
        chat_seq,
        writer,
        gap_us,
        pairing,
        threaded_only=False,
        start=start,
        threads=threads,
    )
    gone = [seq for sid, (seq, _sig) in existing.items() if sid not in writer.kept]
    archive.delete_sessions(gone)
    return writer.changed + len(gone)


class Unthreaded:
    """What segmentation needs of a fresh chat's unthreaded rows, fed a batch at a time (``of``) while they
    come in time order. Hidden messages are stored but held by no session."""

    def __init__(self) -> None:
        self.out_of_order = False  # the streamed plan is unusable
        self.threaded = False  # explicit threads are planned from the stored rows afterwards
        self.last = -(1 << 62)  # the time of the last row planned

    def of(self, rows: Iterable[tuple]) -> Iterator[segment.SegMessage]:
        seg_message = segment.SegMessage
        new = tuple.__new__  # a named tuple's own __new__ is a Python call
        hidden = Kind.HIDDEN
        last = self.last
        try:
            for seq, _c, uid, ts, _l, sender, _si, text, kind, _so, thread, _r, _e, _ra, _i, _o, _t in rows:
                if kind == hidden:
                    continue
                if thread is not None:
                    self.threaded = True
                elif not self.out_of_order:
                    if ts < last:
                        self.out_of_order = True
                    else:
                        last = ts
                        yield new(seg_message, (seq, uid, ts, sender or "", None, len(text)))
        finally:
            self.last = last


class TurnedSession(NamedTuple):
    """A planned session as it is stored: each turn's seqs listed ("12,13,14", what its signature is made
    of) and in their stored form ("12+2", ``database.stored_seqs``)."""

    id: str
    thread: str | None
    start: int
    end: int
    n_messages: int
    listed: list[str]
    stored: list[str]


class FreshPlan:
    """A fresh chat's unthreaded sessions, planned from its rows a batch at a time (``feed``, then
    ``close``) as ``segment.split_by_gap`` plans them from its SegMessages, but from the batch's columns:
    the gaps and the changes of sender found at C speed, only each turn and each session a step of Python.
    A SegMessage a message, a PlannedSession and its turns' tuples cost the import's writer 5.9 s of CPU at
    a million messages, planning and all (bench/RESULTS.md, issue 26 item 2, session 14). ``sessions``: those
    closed and not taken yet."""

    def __init__(self, chat_uid: str, gap_us: int, pairing: str) -> None:
        self.chat_uid, self.gap_us, self.pairing = chat_uid, gap_us, pairing
        self.unthreaded = Unthreaded()
        # The open session's columns: seqs, uids, times, senders, characters of the texts.
        self.open: tuple[list[int], list[str], list[int], list[str], list[int]] = ([], [], [], [], [])
        self.sessions: list[TurnedSession] = []

    def _columns(self, rows: list[tuple]) -> tuple[list[int], list[str], list[int], list[str], list[int]]:
        """The columns of the rows ``Unthreaded.of`` lets through: every row of a batch in time order with
        neither hidden nor threaded rows (what a chat export's batches are), taken whole."""
        unthreaded = self.unthreaded
        if rows and not unthreaded.out_of_order:
            times = list(map(_TS, rows))
            if (
                times[0] >= unthreaded.last
                and Kind.HIDDEN not in map(_KIND, rows)
                and list(map(_THREAD, rows)).count(None) == len(rows)
                and times == sorted(times)
            ):
                unthreaded.last = times[-1]
                senders = list(map(_SENDER, rows))
                if None in senders:
                    senders = [sender or "" for sender in senders]
                return (
                    list(map(_SEQ, rows)),
                    list(map(_UID, rows)),
                    times,
                    senders,
                    list(map(len, map(_TEXT, rows))),
                )
        kept = list(unthreaded.of(rows))
        if not kept:
            return [], [], [], [], []
        seqs, uids, times, senders, _threads, chars = map(list, zip(*kept, strict=True))
        return seqs, uids, times, senders, chars

    def feed(self, rows: list[tuple]) -> None:
        seqs, uids, times, senders, chars = self._columns(rows)
        held = self.open
        held[0].extend(seqs)
        held[1].extend(uids)
        held[2].extend(times)
        held[3].extend(senders)
        held[4].extend(chars)
        self._plan(final=False)

    def close(self) -> None:
        """Close the open session: the chat ends."""
        self._plan(final=True)

    def _plan(self, final: bool) -> None:
        """Close the sessions the open messages hold: each run between silences longer than the gap, cut
        at the session cap, but the last run unless ``final`` (more may join it), which keeps its last
        piece of the cap's length or less."""
        seqs, uids, times, senders, chars = self.open
        n = len(times)
        if not n:
            return
        cap = segment.CAPS.session_messages
        bounds: list[int] = []  # where each session closed here ends
        a = 0
        # Where a silence longer than the gap comes before a message: C speed, however many.
        gaps = itertools.compress(
            range(1, n), map(operator.gt, map(operator.sub, times[1:], times), itertools.repeat(self.gap_us))
        )
        for b in itertools.chain(gaps, (n,)):
            while b - a > cap:
                a += cap
                bounds.append(a)
            if b < n or final:
                bounds.append(b)
            a = b
        if not bounds:
            return
        burst = self.pairing == "burst"
        changes = segment.changes(senders) if burst else []
        strs = list(map(str, seqs[: bounds[-1]]))
        # Consecutive seqs (a batch without hidden rows): each turn of several is a run ("12+2").
        runs = seqs[: bounds[-1]] == list(range(seqs[0], seqs[0] + bounds[-1]))
        chat_uid, sessions = self.chat_uid, self.sessions
        start = 0
        for end in bounds:
            if burst:
                starts = [
                    start,
                    *changes[bisect.bisect_right(changes, start) : bisect.bisect_left(changes, end)],
                ]
            else:
                starts = [start + i for i in (0, *segment.turn_starts(senders[start:end], self.pairing))]
            ends = segment.capped_turns(starts, end, chars)
            starts = [start, *ends[:-1]]
            listed = [
                strs[i] if j - i == 1 else ",".join(strs[i:j]) for i, j in zip(starts, ends, strict=True)
            ]
            if runs:
                stored = [
                    strs[i] if j - i == 1 else run_of_seqs(seqs[i], j - i)
                    for i, j in zip(starts, ends, strict=True)
                ]
            else:
                stored = [
                    turn
                    if "," not in turn or seqs[i:j] != list(range(seqs[i], seqs[i] + j - i))
                    else run_of_seqs(seqs[i], j - i)
                    for turn, i, j in zip(listed, starts, ends, strict=True)
                ]
            sessions.append(
                TurnedSession(
                    segment.session_id(chat_uid, uids[start]),
                    None,
                    times[start],
                    times[end - 1],
                    end - start,
                    listed,
                    stored,
                )
            )
            start = end
        for column in self.open:
            del column[:start]


def _stored_turn(turn: tuple[segment.SegMessage, ...], listed: str) -> str:
    """``stored_seqs(listed)``, where ``listed`` spells the seqs of ``turn``: from the seqs at hand rather
    than read back from the text."""
    if len(turn) == 1:
        return listed
    first = turn[0].seq
    if [m.seq for m in turn] != list(range(first, first + len(turn))):
        return listed
    return run_of_seqs(first, len(turn))


class SessionWriter:
    """Writes planned sessions in batches, skipping the ones whose stored version is identical."""

    FLUSH = 2_000
    # And at this many turns: sessions are capped at 10,000 messages, so 2,000 of them could hold a whole
    # chat (70 sessions of 10,000 messages held 700,000 turns).
    FLUSH_TURNS = 100_000

    def __init__(self, archive: Archive, chat_seq: int, existing: dict[str, tuple[int, bytes]]) -> None:
        self.archive = archive
        self.chat_seq = chat_seq
        self.existing = existing
        self.next_seq = archive.next_session_seq()
        self.pending: list[StoredSession] = []
        self.replacing = False
        self.kept: set[str] = set()
        self.written: list[int] = []
        self.changed = 0
        self.pending_turns = 0

    def write(self, sessions: Iterable[segment.PlannedSession]) -> None:
        for s in sessions:
            listed = [segment.turn_seqs(t) for t in s.turns]
            signature = segment.signature(listed)
            if not self._unchanged(s.id, signature):
                stored = list(map(_stored_turn, s.turns, listed))
                n_messages = sum(map(len, s.turns))
                self._add(
                    TurnedSession(s.id, s.thread, s.start, s.end, n_messages, listed, stored), signature
                )

    def write_turned(self, sessions: Iterable[TurnedSession]) -> None:
        """``write`` of sessions planned in their stored form (``FreshPlan``)."""
        for s in sessions:
            signature = segment.signature(s.listed)
            if not self._unchanged(s.id, signature):
                self._add(s, signature)

    def _unchanged(self, session_id: str, signature: bytes) -> bool:
        """Whether the session is stored already as it is planned (it is kept, then)."""
        old = self.existing.get(session_id)
        if old is None:
            return False
        # Only stored sessions can be gone. Keeping every id of a fresh chat held about 15 MB for a million
        # messages (bench/RESULTS.md).
        self.kept.add(session_id)
        return old[1] == signature

    def _add(self, s: TurnedSession, signature: bytes) -> None:
        old = self.existing.get(s.id)
        if old is None:
            seq = self.next_seq
            self.next_seq += 1
        else:
            seq = old[0]
            self.replacing = True
        # No text, times or speaker: a turn's are its messages' (read from them, refind_cli.storage.queries).
        turns = list(enumerate(s.stored, start=1))
        self.pending.append(
            StoredSession(seq, s.id, self.chat_seq, s.thread, s.start, s.end, s.n_messages, signature, turns)
        )
        self.written.append(seq)
        self.changed += 1
        self.pending_turns += len(turns)
        if len(self.pending) >= self.FLUSH or self.pending_turns >= self.FLUSH_TURNS:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            self.archive.store_sessions(self.pending, replace=self.replacing)
            self.pending = []
            self.pending_turns = 0
            self.replacing = False


def _rows(rows: Iterable[tuple]) -> Iterator[segment.SegMessage]:
    return map(segment.SegMessage._make, rows)


def replan(
    archive: Archive,
    chat_uid: str,
    chat_seq: int,
    writer: SessionWriter,
    gap_us: int,
    pairing: str,
    *,
    threaded_only: bool,
    start: int | None = None,
    threads: bool = True,
) -> None:
    """Re-plan a chat's sessions from the stored rows (the unthreaded ones from ``start`` on, if given; the
    threaded ones if ``threads``) and write the ones that differ."""
    # Streamed: sessions are written while the plan is still being read (other tables, same connection).
    if not threaded_only:
        rows = archive.segment_rows(chat_seq, threaded=False, start=start)
        writer.write(segment.split_by_gap(chat_uid, _rows(rows), gap_us, pairing))
    if threads:
        threaded = archive.segment_rows(chat_seq, threaded=True)
        writer.write(segment.split_by_thread(chat_uid, _rows(threaded), pairing))
    writer.flush()
