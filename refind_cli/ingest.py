"""Export files -> archive: reading, identity, segmentation and the per-file transaction.

One file is one transaction: a file that fails to parse writes nothing (not even its ledger entry), and the
other files of the same command still import. Re-importing adds only messages whose identity is new, then
re-segments the chats that changed and rewrites only the sessions whose turns actually differ.

A large export is read in a worker process (parsing, identities, rows) while this process stores the rows
and plans the sessions: on two cores that took 40 % less time than doing both here (bench/RESULTS.md).
"""

from __future__ import annotations

import collections
import contextlib
import fcntl
import hashlib
import os
import pickle
import signal
import subprocess
import sys
import traceback
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from refind_cli import __version__, segment
from refind_cli.archive import Archive, StoredSession, to_us
from refind_cli.clock import zone_fingerprint
from refind_cli.errors import InputError
from refind_cli.importers import container, read_export
from refind_cli.records import Chat, Message

# Rows per batch: about 1 MB pickled, which the pipe from the worker holds while the worker builds the next.
BATCH = 5_000
# Duplicate identities are told apart by their order of occurrence; duplicates share a timestamp, so only
# the counts of recent timestamps are kept, which bounds memory on a million-message file.
RECENT_STAMPS = 256

# (messages read so far, the share of the export read: 0..1, or None where there is no file to measure)
Progress = Callable[[int, float | None], None]
# Within one chat: (messages stored so far, characters of their raw records)
_ChatProgress = Callable[[int, int], None]


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
    chat_uid: str


@dataclass(frozen=True, slots=True)
class FileImportResult:
    path: str
    format: str | None
    chats: tuple[ChatImportResult, ...] = ()
    error: str | None = None
    # The ledger entry of an earlier import of the same content with the same settings, when this one
    # therefore did not read the export again.
    unchanged_since: int | None = None


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
            (lambda n, _read: progress(n, None)) if progress else None,
            restore_forgotten,
        )
    except BaseException:
        if own:
            archive.rollback()
        raise
    if own:
        archive.commit()
    return result


@dataclass(frozen=True, slots=True)
class _Plan:
    """What importing a chat needs to know of the archive."""

    chat_seq: int
    chat_uid: str
    # No stored messages: sessions are planned while the messages stream in, so the chat is never held in
    # memory or read back.
    fresh: bool
    next_message_seq: int
    forgotten: frozenset[str]
    import_seq: int | None
    pairing: str
    gap_us: int


class _Batches(Protocol):
    """A chat's rows in batches. ``seen`` counts the messages read (forgotten ones too) once exhausted;
    ``read`` is how much of the export they came from, in characters of their raw records, so far."""

    seen: int
    read: int

    def __iter__(self) -> Iterator[list[tuple]]: ...


def _import_chat(
    archive: Archive,
    chat: Chat,
    messages: Iterable[Message],
    segmenting: str,
    import_seq: int | None,
    progress: _ChatProgress | None,
    restore_forgotten: bool,
) -> ChatImportResult:
    plan, segmented_before = _open_chat(archive, chat, segmenting, import_seq, restore_forgotten)
    rows = _Rows(plan, messages)
    return _write_chat(archive, chat, plan, rows, progress, segmenting != segmented_before)


def _open_chat(
    archive: Archive, chat: Chat, segmenting: str, import_seq: int | None, restore_forgotten: bool
) -> tuple[_Plan, str]:
    """The chat's row in the archive, and its plan; also how it was segmented before (``""`` if new)."""
    chat_seq, segmented_before = archive.upsert_chat(
        chat.source, chat.key, chat.name, chat.kind, chat.raw, segmenting
    )
    chat_uid = archive.chat_uid(chat_seq)
    if restore_forgotten:
        archive.restore_forgotten(chat_uid)
    pairing, gap_us = _segmenting(segmenting)
    plan = _Plan(
        chat_seq,
        chat_uid,
        not archive.has_messages(chat_seq),
        archive.next_message_seq(),
        archive.forgotten_uids(chat_uid),
        import_seq,
        pairing,
        gap_us,
    )
    return plan, segmented_before


def _write_chat(
    archive: Archive,
    chat: Chat,
    plan: _Plan,
    batches: _Batches,
    progress: _ChatProgress | None,
    resegmenting: bool,
) -> ChatImportResult:
    """Store a chat's rows; plan a fresh chat's sessions while the rows stream past, an updated one's after."""
    chat_seq = plan.chat_seq
    stored = _Stored(archive, batches, progress)
    if not plan.fresh:
        collections.deque(stored, maxlen=0)
        changed = 0
        if resegmenting:
            changed = resegment_chat(archive, chat_seq)
        elif stored.added:
            # New rows got seqs from next_message_seq on; only what follows the earliest of them can change.
            changed = resegment_chat(archive, chat_seq, archive.replan_start(chat_seq, plan.next_message_seq))
    else:
        unthreaded = _Unthreaded(stored)
        writer = _SessionWriter(archive, chat_seq, {})
        writer.write(segment.split_by_gap(plan.chat_uid, unthreaded, plan.gap_us, plan.pairing))
        writer.flush()
        if unthreaded.out_of_order or stored.duplicates:
            # Out-of-order lines or duplicate ids within the file: plan again from the stored, sorted rows.
            archive.delete_sessions(writer.written)
            changed = resegment_chat(archive, chat_seq)
        else:
            if unthreaded.threaded:
                _resegment(
                    archive, plan.chat_uid, chat_seq, writer, plan.gap_us, plan.pairing, threaded_only=True
                )
            changed = writer.changed
    n_sessions, n_turns = archive.session_counts(chat_seq)
    seen = batches.seen
    if not seen or (plan.forgotten and not n_sessions):
        # Nothing (left) to keep: a chat whose every message was forgotten does not come back empty.
        archive.delete_chat_if_empty(chat_seq)
    return ChatImportResult(
        chat_seq,
        chat.name,
        chat.source,
        stored.added,
        seen - stored.added,
        n_sessions,
        n_turns,
        changed,
        plan.chat_uid,
    )


def _segmenting_key(pairing: str, session_gap: timedelta) -> str:
    """How a chat is cut, as stored with it: "<pairing>:<gap in microseconds>"."""
    return f"{pairing}:{int(session_gap.total_seconds() * 1_000_000)}"


def _segmenting(segmenting: str) -> tuple[str, int]:
    pairing, _, gap = segmenting.partition(":")
    return pairing, int(gap)


def resegment_chat(archive: Archive, chat_seq: int, start: int | None = None) -> int:
    """Plan a chat's sessions again from its stored messages, the way it was segmented on import; rewrite
    only the sessions that differ. With ``start``, the unthreaded sessions that begin before it are known
    to be unchanged and are left as they are. Returns how many sessions changed (new, rewritten or gone)."""
    chat_uid, segmenting = archive.chat_segmenting(chat_seq)
    pairing, gap_us = _segmenting(segmenting)
    existing = archive.session_signatures(chat_seq, start)
    writer = _SessionWriter(archive, chat_seq, existing)
    _resegment(archive, chat_uid, chat_seq, writer, gap_us, pairing, threaded_only=False, start=start)
    gone = [seq for sid, (seq, _sig) in existing.items() if sid not in writer.kept]
    archive.delete_sessions(gone)
    return writer.changed + len(gone)


class _Rows:
    """A chat's messages as archive rows, in batches. Pure: runs here, or in the import worker.
    A fresh chat's rows get their seqs here, so its sessions can be planned before the rows are stored."""

    def __init__(self, plan: _Plan, messages: Iterable[Message]) -> None:
        self.plan = plan
        self.messages = messages
        self.seen = self.read = 0

    def __iter__(self) -> Iterator[list[tuple]]:
        # The import's hottest loop: one pass per message, with everything it touches in locals.
        plan = self.plan
        forgotten = plan.forgotten
        chat_seq, import_seq = plan.chat_seq, plan.import_seq
        uid = _Identity().uid
        seq = plan.next_message_seq if plan.fresh else None
        batch: list[tuple] = []
        for m in self.messages:
            ts = to_us(m.timestamp)
            identity = uid(m, ts)
            self.seen += 1
            self.read += len(m.raw)
            if identity in forgotten:
                continue
            batch.append(
                (
                    seq,
                    chat_seq,
                    identity,
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
                    import_seq,
                )
            )
            if seq is not None:
                seq += 1
            if len(batch) >= BATCH:
                yield batch
                batch = []
        if batch:
            yield batch


class _Stored:
    """Rows, stored batch by batch as they pass; counts what was new."""

    def __init__(self, archive: Archive, batches: _Batches, progress: _ChatProgress | None) -> None:
        self.archive = archive
        self.batches = batches
        self.progress = progress
        self.added = self.rows = 0
        self.duplicates = False  # a row's identity was stored already: the seqs planned for the rest are off

    def __iter__(self) -> Iterator[tuple]:
        for batch in self.batches:
            n = self.archive.insert_messages(batch)
            self.duplicates |= n != len(batch)
            self.added += n
            self.rows += len(batch)
            if self.progress:
                self.progress(self.rows, self.batches.read)
            yield from batch


class _Unthreaded:
    """What segmentation needs of the unthreaded rows, while they come in time order."""

    def __init__(self, rows: Iterable[tuple]) -> None:
        self.rows = rows
        self.out_of_order = False  # the streamed plan is unusable
        self.threaded = False  # explicit threads are planned from the stored rows afterwards

    def __iter__(self) -> Iterator[segment.SegMessage]:
        seg_message = segment.SegMessage
        last = -(1 << 62)
        for seq, _c, uid, ts, _l, sender, _si, text, _k, _so, thread, _r, _e, _ra, _i in self.rows:
            if thread is not None:
                self.threaded = True
            elif not self.out_of_order:
                if ts < last:
                    self.out_of_order = True
                else:
                    last = ts
                    yield seg_message(seq, uid, ts, sender or "", None, text)


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
            turns = [
                (i, t[0].ts, t[-1].ts, t[0].sender, _turn_text(t), turn_seqs)
                for i, (t, turn_seqs) in enumerate(zip(s.turns, seqs, strict=True), start=1)
            ]
            n_messages = sum(map(len, s.turns))
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
            self.pending = []
            self.replacing = False


def _rows(rows: Iterable[tuple]) -> Iterator[segment.SegMessage]:
    return map(segment.SegMessage._make, rows)


def _turn_text(turn: tuple[segment.SegMessage, ...]) -> str:
    if len(turn) == 1:
        return turn[0].text
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
    start: int | None = None,
) -> None:
    """Re-plan a chat's sessions from the stored rows (the unthreaded ones from ``start`` on, if given) and
    write the ones that differ."""
    # Streamed: sessions are written while the plan is still being read (other tables, same connection).
    if not threaded_only:
        rows = archive.segment_rows(chat_seq, threaded=False, start=start)
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
    worker: bool | None = None,
    reread: bool = False,
) -> FileImportResult:
    """Import one export in one transaction. An unreadable export is reported, and leaves nothing behind.
    Content imported before with the same settings is not read again (its result says so), unless
    ``reread``; reading it again would add nothing.
    ``worker``: read the export and build its rows in a second process while this one writes (default: for
    large exports on a machine with more than one core)."""
    from refind_cli.importers import detect

    try:
        fmt = detect(path) if fmt == "auto" else fmt
        digest = file_digest(path)
        size = _export_size(path)
        if worker is None:
            worker = size >= WORKER_MIN_BYTES and _can_use_a_worker()
    except InputError as exc:
        return FileImportResult(str(path), None if fmt == "auto" else fmt, error=str(exc))
    except OSError as exc:
        return FileImportResult(str(path), fmt, error=f"{path}: cannot read ({exc.strerror or exc})")
    segmenting = _segmenting_key("burst", session_gap)
    settings = f"refind {__version__}; zone {zone_fingerprint(tz)}; segmenting {segmenting}"
    archive.begin()
    try:
        import_seq = archive.start_import(str(path.resolve()), digest, fmt, _now(), settings)
        unchanged = (
            None if reread or restore_forgotten else _unchanged(archive, digest, fmt, settings, segmenting)
        )
        if unchanged is not None:
            chats = unchanged[1]
        else:
            chats = []
            report = _FileProgress(progress, size) if progress else None
            chat_progress = report.chat if report else None
            if worker:
                results = _import_in_worker(
                    archive, path, fmt, tz, segmenting, import_seq, chat_progress, restore_forgotten
                )
            else:
                results = (
                    _import_chat(
                        archive, e.chat, e.messages, segmenting, import_seq, chat_progress, restore_forgotten
                    )
                    for e in read_export(path, fmt, tz)
                )
            with contextlib.closing(results):
                for result in results:
                    chats.append(result)
                    if report:
                        report.chat_done()
        counts = {
            "chats": len(chats),
            "messages_added": sum(c.messages_added for c in chats),
            "messages_skipped": sum(c.messages_skipped for c in chats),
            # Messages read per chat that holds any: what a later import of the same content reports.
            "seen": {c.chat_uid: c.messages_added + c.messages_skipped for c in chats if c.sessions},
        }
        if unchanged is not None:
            counts["unchanged_since"] = unchanged[0]
        archive.finish_import(import_seq, _now(), counts)
    except InputError as exc:
        archive.rollback()
        return FileImportResult(str(path), fmt, error=str(exc))
    except BaseException:
        archive.rollback()
        raise
    archive.commit()
    return FileImportResult(str(path), fmt, tuple(chats), unchanged_since=unchanged[0] if unchanged else None)


def _unchanged(
    archive: Archive, digest: str, fmt: str, settings: str, segmenting: str
) -> tuple[int, list[ChatImportResult]] | None:
    """When the same content was imported before with the same settings, and every chat it filled is
    still there, cut the same way: the earlier import's ledger entry, and what reading the export again
    would report (nothing added; every message skipped, as stored or forgotten). Else None."""
    earlier = archive.earlier_import(digest, fmt, settings)
    if earlier is None or "seen" not in earlier[1]:
        return None
    results = []
    for chat_uid, seen in earlier[1]["seen"].items():
        found = archive.chat_by_uid(chat_uid)
        if found is None or found[1] != segmenting:
            return None
        info = archive.chat(found[0])
        n_sessions, n_turns = archive.session_counts(info.seq)
        results.append(
            ChatImportResult(info.seq, info.name, info.source, 0, seen, n_sessions, n_turns, 0, chat_uid)
        )
    return earlier[0], results


# --- reading in a second process ----------------------------------------------------------------------
#
# Reading an export and turning its messages into rows (parsing, identities) is pure Python; storing them
# and planning sessions is SQLite plus Python. For a large export a worker process does the first while this
# one does the second, which splits the work about evenly. They talk in pickles over the worker's stdin and
# stdout. The writer sends (path, format, zone). The worker sends, per chat, ("chat", Chat) and waits for
# the chat's _Plan; then batches of ("messages", (rows, characters of raw records read so far)); then
# ("end", messages seen). At the end: ("done", None), or ("error", InputError) for an unreadable export, or
# ("crash", traceback) for a bug.
#
# A plain subprocess rather than multiprocessing: its "spawn" re-runs the caller's main module, which a
# script without an ``if __name__ == "__main__"`` guard does not survive, and "fork" would copy whatever
# threads (a progress display) this process runs.

# Below this much text the worker's start-up (a fresh interpreter, about 0.2 s) costs more than it saves.
WORKER_MIN_BYTES = 4 << 20
_PIPE_BUFFER = 1 << 20


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _can_use_a_worker() -> bool:
    # One core gains nothing; an embedded interpreter cannot start another one.
    return _cores() > 1 and bool(sys.executable)


def _sender(stream: BinaryIO) -> Callable[[object], None]:
    def send(obj: object) -> None:
        pickle.dump(obj, stream, pickle.HIGHEST_PROTOCOL)
        stream.flush()

    return send


def serve_worker() -> None:
    """The worker process: reads an export and sends each chat's rows, made with the plan sent back."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the writer decides what an interrupt means
    # The protocol gets the real stdout; anything else printed goes to stderr.
    send = _sender(os.fdopen(os.dup(1), "wb", buffering=_PIPE_BUFFER))
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    try:
        path, fmt, tz = pickle.load(requests)
        try:
            for export in read_export(path, fmt, tz):
                send(("chat", export.chat))
                rows = _Rows(pickle.load(requests), export.messages)
                for batch in rows:
                    send(("messages", (batch, rows.read)))
                send(("end", rows.seen))
        except InputError as exc:
            send(("error", exc))
        except Exception:
            send(("crash", traceback.format_exc()))
        else:
            send(("done", None))
    except (BrokenPipeError, EOFError):
        # The writer is gone (it gave up, or was killed): there is nobody to tell.
        os._exit(1)


class _Received:
    """A chat's row batches as the worker sends them."""

    def __init__(self, receive: Callable[[], tuple[str, Any]]) -> None:
        self.receive = receive
        self.seen = self.read = 0

    def __iter__(self) -> Iterator[list[tuple]]:
        while (event := self.receive())[0] == "messages":
            batch, self.read = event[1]
            yield batch
        self.seen = event[1]


def _import_in_worker(
    archive: Archive,
    path: Path,
    fmt: str,
    tz: tzinfo,
    segmenting: str,
    import_seq: int,
    progress: _ChatProgress | None,
    restore_forgotten: bool,
) -> Iterator[ChatImportResult]:
    """Each chat's result, written here as a worker process reads the export."""
    package_root = str(Path(__file__).resolve().parent.parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])),
    }
    process = subprocess.Popen(
        [sys.executable, "-c", "from refind_cli.ingest import serve_worker; serve_worker()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=_PIPE_BUFFER,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    # Through the default 64 KB pipe the two processes take turns every 64 KB; with 1 MB (Linux's limit for
    # an ordinary user) the worker runs a batch or more ahead: 2 s less waiting on a million messages.
    with contextlib.suppress(AttributeError, OSError):  # F_SETPIPE_SZ is Linux's
        fcntl.fcntl(process.stdout.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BUFFER)
    send = _sender(process.stdin)
    events = process.stdout

    def receive() -> tuple[str, Any]:
        try:
            kind, payload = pickle.load(events)
        except EOFError:
            raise RuntimeError(f"{path}: the import worker stopped (exit code {process.wait()})") from None
        if kind == "error":
            raise payload
        if kind == "crash":
            raise RuntimeError(f"{path}: the import worker failed:\n{payload}")
        return kind, payload

    try:
        send((path, fmt, tz))
        while (event := receive())[0] == "chat":
            chat = event[1]
            plan, segmented_before = _open_chat(archive, chat, segmenting, import_seq, restore_forgotten)
            send(plan)
            batches = _Received(receive)
            yield _write_chat(archive, chat, plan, batches, progress, segmenting != segmented_before)
    finally:
        if process.poll() is None:
            process.kill()  # done, or the writer gave up early: the rest of the export is not wanted
        process.wait()
        process.stdin.close()
        events.close()


class _FileProgress:
    """Each chat's progress as the file's: messages so far, and the share of the export's text read."""

    def __init__(self, report: Progress, size: int) -> None:
        self.report = report
        self.size = size
        self.messages = self.read = 0
        self.current = (0, 0)

    def chat(self, messages: int, read: int) -> None:
        self.current = (messages, read)
        share = min(1.0, (self.read + read) / self.size) if self.size else None
        self.report(self.messages + messages, share)

    def chat_done(self) -> None:
        self.messages += self.current[0]
        self.read += self.current[1]
        self.current = (0, 0)


def _export_size(path: Path) -> int:
    """How much text an export holds, in bytes: a file's size, a folder's files, a zip's text and JSON
    entries uncompressed (its photos and videos are not read)."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    if zipfile.is_zipfile(path):
        with container.open_zip(path) as zf:
            return sum(
                info.file_size for info in zf.infolist() if info.filename.lower().endswith((".txt", ".json"))
            )
    return path.stat().st_size


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
