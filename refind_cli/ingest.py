"""Export files -> archive: reading, identity, segmentation and the per-file transaction.

One file is one transaction: a file that fails to parse writes nothing (not even its ledger entry), and the
other files of the same command still import. Re-importing adds only messages whose identity is new, then
re-segments the chats that changed and rewrites only the sessions whose turns actually differ.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

from refind_cli import locks, segment
from refind_cli.archive import Archive, StoredSession, to_us
from refind_cli.errors import InputError
from refind_cli.importers import read_export
from refind_cli.records import Chat, Message

WRITE_LOCK = ".write.lock"
BATCH = 20_000
# Duplicate identities are told apart by their order of occurrence; duplicates share a timestamp, so only
# the counts of recent timestamps are kept, which bounds memory on a million-message file.
RECENT_STAMPS = 256

Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class ChatImportResult:
    chat_id: int
    name: str
    source: str
    messages_added: int
    messages_skipped: int
    sessions: int  # sessions of the chat after the import
    turns: int
    sessions_changed: int


@dataclass(frozen=True, slots=True)
class FileImportResult:
    path: str
    format: str | None
    chats: tuple[ChatImportResult, ...] = ()
    error: str | None = None


@dataclass
class _Identity:
    """Message identity: the source's id where one exists, else (timestamp, sender, text, occurrence)."""

    recent: dict[int, dict[str, int]] = field(default_factory=dict)  # insertion-ordered: oldest first

    def uid(self, m: Message, ts: int) -> str:
        if m.source_id is not None:
            return "id:" + m.source_id
        digest = hashlib.blake2b(f"{ts}\x00{m.sender or ''}\x00{m.text}".encode(), digest_size=10).hexdigest()
        seen = self.recent.get(ts)
        if seen is None:
            # The common case: a timestamp not met yet, so the first occurrence.
            self.recent[ts] = {digest: 1}
            if len(self.recent) > RECENT_STAMPS:
                del self.recent[next(iter(self.recent))]
            return "h:" + digest
        n = seen.get(digest, 0)
        seen[digest] = n + 1
        return f"h:{digest}:{n}" if n else "h:" + digest


def import_chat(
    archive: Archive,
    chat: Chat,
    messages: Iterable[Message],
    *,
    session_gap: timedelta = timedelta(hours=1),
    pairing: str = "burst",
    import_seq: int | None = None,
    progress: Progress | None = None,
    restore_forgotten: bool = False,
) -> ChatImportResult:
    """Add one chat's messages and bring its sessions and turns up to date. Runs inside the caller's
    transaction when there is one, else in its own. Messages the user forgot stay forgotten unless
    ``restore_forgotten``."""
    if pairing not in segment.PAIRINGS:
        raise ValueError(f"pairing must be one of {segment.PAIRINGS}")
    own = not archive.db.in_transaction
    if own:
        archive.begin()
    try:
        result = _import_chat(
            archive,
            chat,
            messages,
            _segmenting_key(pairing, session_gap),
            import_seq,
            progress,
            restore_forgotten,
        )
    except BaseException:
        if own:
            archive.rollback()
        raise
    if own:
        archive.commit()
    return result


def _import_chat(
    archive: Archive,
    chat: Chat,
    messages: Iterable[Message],
    segmenting: str,
    import_seq: int | None,
    progress: Progress | None,
    restore_forgotten: bool,
) -> ChatImportResult:
    chat_seq, segmented_before = archive.upsert_chat(
        chat.source, chat.key, chat.name, chat.kind, chat.raw, segmenting
    )
    chat_uid = archive.chat_uid(chat_seq)
    if restore_forgotten:
        archive.restore_forgotten(chat_uid)
    feed = _Feed(archive, chat_seq, messages, import_seq, progress, archive.forgotten_uids(chat_uid))
    if not archive.has_messages(chat_seq):
        # A new chat: segment while the messages stream in, so the chat is never held in memory or re-read.
        pairing, gap_us = _segmenting(segmenting)
        writer = _SessionWriter(archive, chat_seq, {})
        feed.next_seq = archive.next_message_seq()
        writer.write(segment.split_by_gap(chat_uid, feed.in_order(), gap_us, pairing))
        writer.flush()
        if feed.broken:
            # Out-of-order lines or duplicate ids within the file: plan again from the stored, sorted rows.
            archive.delete_sessions(writer.written)
            changed = resegment_chat(archive, chat_seq)
        else:
            if feed.threaded:
                _resegment(archive, chat_uid, chat_seq, writer, gap_us, pairing, threaded_only=True)
            changed = writer.changed
    else:
        feed.drain()
        changed = resegment_chat(archive, chat_seq) if feed.added or segmenting != segmented_before else 0
    n_sessions, n_turns = archive.db.execute(
        "SELECT count(*), coalesce(sum(n_turns), 0) FROM sessions WHERE chat_seq = ?", (chat_seq,)
    ).fetchone()
    if not feed.seen or (feed.forgotten and not n_sessions):
        # Nothing (left) to keep: a chat whose every message was forgotten does not come back empty.
        archive.delete_chat_if_empty(chat_seq)
    return ChatImportResult(
        chat_seq, chat.name, chat.source, feed.added, feed.seen - feed.added, n_sessions, n_turns, changed
    )


def _segmenting_key(pairing: str, session_gap: timedelta) -> str:
    """How a chat is cut, as stored with it: "<pairing>:<gap in microseconds>"."""
    return f"{pairing}:{int(session_gap.total_seconds() * 1_000_000)}"


def _segmenting(segmenting: str) -> tuple[str, int]:
    pairing, _, gap = segmenting.partition(":")
    return pairing, int(gap)


def resegment_chat(archive: Archive, chat_seq: int) -> int:
    """Plan a chat's sessions again from its stored messages, the way it was segmented on import; rewrite
    only the sessions that differ. Returns how many sessions changed (new, rewritten or gone)."""
    chat_uid, segmenting = archive.chat_segmenting(chat_seq)
    pairing, gap_us = _segmenting(segmenting)
    existing = archive.session_signatures(chat_seq)
    writer = _SessionWriter(archive, chat_seq, existing)
    _resegment(archive, chat_uid, chat_seq, writer, gap_us, pairing, threaded_only=False)
    gone = [seq for sid, (seq, _sig) in existing.items() if sid not in writer.kept]
    archive.delete_sessions(gone)
    return writer.changed + len(gone)


class _Feed:
    """Stores a chat's messages in batches as they stream in."""

    def __init__(
        self,
        archive: Archive,
        chat_seq: int,
        messages: Iterable[Message],
        import_seq: int | None,
        progress: Progress | None,
        forgotten: frozenset[str],
    ) -> None:
        self.archive = archive
        self.forgotten = forgotten
        self.chat_seq = chat_seq
        self.messages = messages
        self.import_seq = import_seq
        self.progress = progress
        self.identity = _Identity()
        self.next_seq: int | None = None  # set: rows get these seqs, so segmentation can use them unread
        self.batch: list[tuple] = []
        self.added = self.seen = 0
        self.broken = False  # the streamed plan is unusable: out-of-order times or a duplicate identity
        self.threaded = False

    def _row(self, m: Message) -> tuple | None:
        """The message as a row, or None for a message the user forgot (counted as skipped)."""
        ts = to_us(m.timestamp)
        uid = self.identity.uid(m, ts)
        if uid in self.forgotten:
            self.seen += 1
            return None
        seq = None
        if self.next_seq is not None:
            seq = self.next_seq
            self.next_seq += 1
        return (
            seq,
            self.chat_seq,
            uid,
            ts,
            m.local_time,
            m.sender,
            m.sender_id,
            m.text,
            m.kind,
            m.source_id,
            m.thread,
            m.reply_to,
            int(m.edited),
            m.raw,
            self.import_seq,
        )

    def _flush(self) -> None:
        if not self.batch:
            return
        n = self.archive.insert_messages(self.batch)
        if n != len(self.batch) and self.next_seq is not None:
            self.broken = True
        self.added += n
        self.seen += len(self.batch)
        self.batch.clear()
        if self.progress:
            self.progress(self.seen)

    def drain(self) -> None:
        for m in self.messages:
            row = self._row(m)
            if row is None:
                continue
            self.batch.append(row)
            if len(self.batch) >= BATCH:
                self._flush()
        self._flush()

    def in_order(self) -> Iterator[segment.SegMessage]:
        """Store every message; yield the unthreaded ones for segmentation while they come in time order."""
        last = -(1 << 62)
        for m in self.messages:
            row = self._row(m)
            if row is None:
                continue
            self.batch.append(row)
            if m.thread is not None:
                self.threaded = True
            elif not self.broken:
                ts = row[3]
                if ts < last:
                    self.broken = True
                else:
                    last = ts
                    yield segment.SegMessage(row[0], row[2], ts, m.sender or "", None, m.text)
            if len(self.batch) >= BATCH:
                self._flush()
        self._flush()


class _SessionWriter:
    """Writes planned sessions in batches, skipping the ones whose stored version is identical."""

    FLUSH = 2_000

    def __init__(self, archive: Archive, chat_seq: int, existing: dict[str, tuple[int, str]]) -> None:
        self.archive = archive
        self.chat_seq = chat_seq
        self.existing = existing
        self.next_seq = archive.next_session_seq()
        self.pending: list[StoredSession] = []
        self.replacing = False
        self.kept: set[str] = set()
        self.written: list[int] = []
        self.changed = 0

    def write(self, sessions: Iterable[segment.PlannedSession]) -> None:
        for s in sessions:
            self.kept.add(s.id)
            signature = s.signature
            old = self.existing.get(s.id)
            if old is not None and old[1] == signature:
                continue
            if old is None:
                seq = self.next_seq
                self.next_seq += 1
            else:
                seq = old[0]
                self.replacing = True
            turns = [
                (i, t[0].ts, t[-1].ts, t[0].sender, _turn_text(t), ",".join(str(m.seq) for m in t))
                for i, t in enumerate(s.turns, start=1)
            ]
            n_messages = sum(len(t) for t in s.turns)
            self.pending.append(
                StoredSession(
                    seq, s.id, self.chat_seq, s.thread, s.start, s.end, n_messages, signature, turns
                )
            )
            self.written.append(seq)
            self.changed += 1
            if len(self.pending) >= self.FLUSH:
                self.flush()

    def flush(self) -> None:
        if self.pending:
            self.archive.store_sessions(self.pending, replace=self.replacing)
            self.pending.clear()
            self.replacing = False


def _rows(rows: Iterable[tuple]) -> Iterator[segment.SegMessage]:
    return map(segment.SegMessage._make, rows)


def _turn_text(turn: tuple[segment.SegMessage, ...]) -> str:
    if all(m.sender == turn[0].sender for m in turn):
        return "\n".join(m.text for m in turn)
    return "\n".join(f"{m.sender}: {m.text}" for m in turn)


def _resegment(
    archive: Archive,
    chat_uid: str,
    chat_seq: int,
    writer: _SessionWriter,
    gap_us: int,
    pairing: str,
    *,
    threaded_only: bool,
) -> None:
    """Re-plan a chat's sessions from the stored rows and write the ones that differ."""
    # Streamed: sessions are written while the plan is still being read (other tables, same connection).
    if not threaded_only:
        rows = archive.segment_rows(chat_seq, threaded=False)
        writer.write(segment.split_by_gap(chat_uid, _rows(rows), gap_us, pairing))
    writer.write(
        segment.split_by_thread(chat_uid, _rows(archive.segment_rows(chat_seq, threaded=True)), pairing)
    )
    writer.flush()


def file_digest(path: Path) -> str:
    """SHA-256 of an export: of the file, or of a folder's files with their relative names."""
    h = hashlib.sha256()
    files = [p for p in sorted(path.rglob("*")) if p.is_file()] if path.is_dir() else [path]
    for p in files:
        if p != path:
            h.update(str(p.relative_to(path)).encode() + b"\x00")
        with p.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    return h.hexdigest()


def import_file(
    archive: Archive,
    path: Path,
    *,
    fmt: str = "auto",
    tz: tzinfo,
    session_gap: timedelta = timedelta(hours=1),
    progress: Progress | None = None,
    restore_forgotten: bool = False,
) -> FileImportResult:
    """Import one export in one transaction. An unreadable export is reported, and leaves nothing behind."""
    from refind_cli.importers import detect

    try:
        fmt = detect(path) if fmt == "auto" else fmt
        digest = file_digest(path)
    except InputError as exc:
        return FileImportResult(str(path), None if fmt == "auto" else fmt, error=str(exc))
    except OSError as exc:
        return FileImportResult(str(path), fmt, error=f"{path}: cannot read ({exc.strerror or exc})")
    archive.begin()
    try:
        import_seq = archive.start_import(str(path.resolve()), digest, fmt, _now())
        chats = []
        total = 0

        def chat_progress(n: int) -> None:
            if progress:
                progress(total + n)

        segmenting = _segmenting_key("burst", session_gap)
        for export in read_export(path, fmt, tz):
            result = _import_chat(
                archive,
                export.chat,
                export.messages,
                segmenting,
                import_seq,
                chat_progress,
                restore_forgotten,
            )
            chats.append(result)
            total += result.messages_added + result.messages_skipped
        counts = {
            "chats": len(chats),
            "messages_added": sum(c.messages_added for c in chats),
            "messages_skipped": sum(c.messages_skipped for c in chats),
        }
        archive.finish_import(import_seq, _now(), counts)
    except InputError as exc:
        archive.rollback()
        return FileImportResult(str(path), fmt, error=str(exc))
    except BaseException:
        archive.rollback()
        raise
    archive.commit()
    return FileImportResult(str(path), fmt, tuple(chats))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_lock(
    home: Path, *, on_wait: Callable[[str], None] | None = None, timeout: float = 600.0
) -> AbstractContextManager[None]:
    """One writer at a time per home: a second import waits (saying so once) instead of failing."""
    return locks.exclusive(
        home / WRITE_LOCK,
        timeout=timeout,
        waiting=f"waiting for another refind process writing to {home} ...",
        busy=f"{home}: another refind process is writing; gave up after {timeout:.0f} s",
        on_wait=on_wait,
    )


def try_write_lock(home: Path) -> AbstractContextManager[bool]:
    """The write lock if it is free right now (True), else False: readers never wait for a writer."""
    return locks.exclusive_if_free(home / WRITE_LOCK)
