"""Stored messages -> stored sessions and turns: planning a chat's sessions (refind_cli.method.segment) and writing
only the ones that differ from what is stored. Imports use it as messages arrive; forget uses it to cut a
chat again from what is left."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import timedelta

from refind_cli.method import segment
from refind_cli.records import Kind
from refind_cli.storage.archive import Archive, StoredSession
from refind_cli.storage.database import run_of_seqs


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
            old = self.existing.get(s.id)
            if old is not None:
                # Only stored sessions can be gone. Keeping every id of a fresh chat held about 15 MB for a
                # million messages (bench/RESULTS.md).
                self.kept.add(s.id)
            seqs = [segment.turn_seqs(t) for t in s.turns]
            signature = segment.signature(seqs)
            if old is not None and old[1] == signature:
                continue
            if old is None:
                seq = self.next_seq
                self.next_seq += 1
            else:
                seq = old[0]
                self.replacing = True
            # No text, times or speaker: a turn's are its messages' (read from them, refind_cli.storage.queries).
            turns = list(enumerate(map(_stored_turn, s.turns, seqs), start=1))
            n_messages = sum(map(len, s.turns))
            self.pending.append(
                StoredSession(
                    seq, s.id, self.chat_seq, s.thread, s.start, s.end, n_messages, signature, turns
                )
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
