"""Reading an export in a second process.

Reading an export and turning its messages into rows (parsing, identities) is pure Python; storing them
and planning sessions is SQLite plus Python. For a large export a worker process does the first while this
one does the second, which splits the work about evenly. They talk in pickles over the worker's stdin and
stdout. The writer sends (path, format, zone, the fingerprints earlier imports left, the folder where a long
text is held while it is read: ``linelog.spooling_in``). The worker sends, per chat, ("chat", (Chat, its
fingerprint)) and waits for the chat's ChatPlan (None: the chat needs no reading, ``resume.Prints``); then
batches of ("messages", (rows, characters of raw records read so far)), the rows marshalled (``_packed``),
a text or a raw record's rest longer than ``PIECE`` characters sent ahead of its batch as ("piece", its UTF-8
bytes) events and a ("text", its length), its row holding None in its place (a row's text before its rest);
then
("end", (messages seen, where a later reading can go on from: a ResumePoint or None, the chat's fingerprint
where it is told once the chat is read)). At the end: ("done", None), or ("error", RefindError) for an unreadable export
or a long text that cannot be held (a full disk), or
("crash", traceback) for a bug.
The process is started by ``processes.python_child``.
"""

from __future__ import annotations

import contextlib
import marshal
import operator
import os
import pickle
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Generator, Iterator
from datetime import tzinfo
from pathlib import Path
from typing import IO, Any

from refind_cli.collector import collector_paused
from refind_cli.errors import RefindError, input_warnings
from refind_cli.importers import read_export
from refind_cli.importers.linelog import spooling_in
from refind_cli.ingest.chats import open_chat, write_chat
from refind_cli.ingest.progress import ChatProgress
from refind_cli.ingest.resume import Prints, ResumePoint, point_after, printed
from refind_cli.ingest.rows import Planned, Rows
from refind_cli.processes import can_use_a_child, python_child
from refind_cli.records import LONG_TEXT, HeldText
from refind_cli.reports import ChatImportResult
from refind_cli.storage.archive import Archive

# Below this much text the worker's start-up (a fresh interpreter, about 0.2 s) costs more than it saves.
WORKER_MIN_BYTES = 4 << 20
_PIPE_BUFFER = 1 << 20
# A longer text goes to the writer in pieces of this many characters: pickled whole, a 50-MB message was one
# more 50-MB copy in the worker (its UTF-8 bytes), beside the text itself. The writer keeps the pieces in a
# file beside the archive until their row is stored, and stores them from there a piece at a time
# (``HeldText``): joined, the text was one more copy in the writer. A text this long is the one the archive
# stores apart (``database.LONG_TEXT``), never in SQLite's memory whole either.
PIECE = LONG_TEXT
_TEXT, _REST = 7, 13  # where a row holds its text and its raw record's rest (``ingest.rows``)
_text, _rest = operator.itemgetter(_TEXT), operator.itemgetter(_REST)


can_use_a_worker = can_use_a_child


def _sender(stream: IO[bytes]) -> Callable[[object], None]:
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
        path, fmt, tz, known, folder = pickle.load(requests)
        try:
            with input_warnings(lambda text: send(("warning", text))), spooling_in(folder):
                for export in read_export(path, fmt, tz, known=known):
                    send(("chat", (export.chat, export.fingerprint, export.at, export.formerly)))
                    plan = pickle.load(requests)
                    if plan is None:  # read before as it is (``ingest.resume.Prints``)
                        continue
                    rows = Rows(plan, export.messages, seen=export.passed)
                    for batch in rows:
                        packed = _packed(_texts_apart(batch, send))
                        del batch  # held once while it is sent: marshalled
                        send(("messages", (packed, rows.read)))
                        del packed
                    point = point_after(export, rows.identity, rows.seen)
                    send(("end", (rows.seen, point, printed(export))))
        except RefindError as exc:
            send(("error", exc))
        except Exception:
            send(("crash", traceback.format_exc()))
        else:
            send(("done", None))
    except (BrokenPipeError, EOFError):
        # The writer is gone (it gave up, or was killed): there is nobody to tell.
        os._exit(1)


def _texts_apart(batch: list[tuple], send: Callable[[object], None]) -> list[tuple]:
    """``batch`` with each text and raw record's rest longer than ``PIECE`` sent ahead in pieces, and None
    in its place. (One a reader held in a file, ``HeldText``, is always that long.)"""
    if not batch or (  # the usual batch, at C speed
        max(map(len, map(_text, batch))) <= PIECE and max(map(len, map(_rest, batch))) <= PIECE
    ):
        return batch
    for i, row in enumerate(batch):
        for column in _TEXT, _REST:
            text = row[column]
            if len(text) > PIECE:
                if isinstance(text, HeldText):
                    with text.file:  # sent: its file goes
                        for piece in text.pieces(PIECE):
                            send(("piece", piece))
                else:
                    for start in range(0, len(text), PIECE):
                        send(("piece", text[start : start + PIECE].encode()))
                send(("text", len(text)))
                row = (*row[:column], None, *row[column + 1 :])
        batch[i] = row
    return batch


def _packed(batch: list[tuple]) -> bytes | list[tuple]:
    """A batch as it crosses the pipe: marshalled, which writes and reads its rows (tuples of strings,
    numbers and None) in half the time pickle takes, inside the pickled event as one bytes object. A row
    holding any other type (marshal takes none, not even a subclass of str) goes pickled as it is."""
    try:
        return marshal.dumps(batch)
    except ValueError:
        return batch


def _unpacked(batch: bytes | list[tuple]) -> list[tuple]:
    return marshal.loads(batch) if isinstance(batch, bytes) else batch


class _Received:
    """A chat's row batches as the worker sends them; a text sent in pieces is held in ``spool`` (a file
    without a name, made when one first comes) until its batch is stored."""

    def __init__(self, receive: Callable[[], tuple[str, Any]], folder: str) -> None:
        self.receive = receive
        self.folder = folder
        self.spool: IO[bytes] | None = None
        self.seen = self.read = 0
        self.point: ResumePoint | None = None
        self.printed: str | None = None  # the chat's fingerprint, told once it was read

    def __iter__(self) -> Iterator[list[tuple]]:
        texts: list[HeldText] = []  # for the next batch's rows that hold None instead
        start = 0  # where the text being received starts in the spool
        while (event := self.receive())[0] != "end":
            kind, payload = event
            if kind == "piece":
                if self.spool is None:
                    # Lives across the chat's batches: ``close()`` closes it.
                    self.spool = tempfile.TemporaryFile(dir=self.folder)  # noqa: SIM115
                self.spool.write(payload)
            elif kind == "text":
                assert self.spool is not None
                end = self.spool.tell()
                texts.append(HeldText(self.spool, start, end - start, payload))
                start = end
            else:
                packed, self.read = payload
                del event, payload  # the rows are held once: unmarshalled
                batch = _unpacked(packed)
                del packed
                if texts:
                    given = iter(texts)
                    batch = [
                        row if row[_TEXT] is not None and row[_REST] is not None else _filled(row, given)
                        for row in batch
                    ]
                    texts = []
                handed = [batch]  # and let go of here (``Rows``)
                del batch
                yield handed.pop()
                if self.spool is not None and start:  # the batch is stored: its texts are not needed
                    self.spool.seek(0)
                    self.spool.truncate()
                    start = 0
        self.seen, self.point, self.printed = event[1]

    def close(self) -> None:
        if self.spool is not None:
            self.spool.close()


def _filled(row: tuple, given: Iterator[HeldText]) -> tuple:
    """A row with the text and the rest sent ahead in pieces (None in their places) put back, in order."""
    for column in _TEXT, _REST:
        if row[column] is None:
            row = (*row[:column], next(given), *row[column + 1 :])
    return row


def import_in_worker(
    archive: Archive,
    path: Path,
    fmt: str,
    tz: tzinfo,
    segmenting: str,
    import_seq: int,
    progress: ChatProgress | None,
    restore_forgotten: bool,
    warn: Callable[[str], None],
    points: Callable[[ResumePoint | None], None],
    prints: Prints,
) -> Generator[ChatImportResult, None, None]:
    """Each chat's result, written here as a worker process reads the export (but those read before as they
    are: ``prints``); the worker's input warnings go to ``warn``, where a later reading of each chat can go
    on from to ``points``. The cycle collector is paused meanwhile (``collector.collector_paused``): what
    this process does here, receive rows and store them, makes no garbage in cycles to speak of."""
    process = python_child("from refind_cli.ingest import serve_worker; serve_worker()", _PIPE_BUFFER)
    assert process.stdin is not None and process.stdout is not None
    send = _sender(process.stdin)
    events = process.stdout

    def receive() -> tuple[str, Any]:
        try:
            kind, payload = pickle.load(events)
            while kind == "warning":
                warn(payload)
                kind, payload = pickle.load(events)
        except EOFError:
            raise RuntimeError(f"{path}: the import worker stopped (exit code {process.wait()})") from None
        if kind == "error":
            raise payload
        if kind == "crash":
            raise RuntimeError(f"{path}: the import worker failed:\n{payload}")
        return kind, payload

    try:
        with collector_paused():
            send((path, fmt, tz, prints.known(), archive.folder))
            while (event := receive())[0] == "chat":
                chat, fingerprint, at, formerly = event[1]
                plan, segmented_before = open_chat(archive, chat, segmenting, import_seq, restore_forgotten)
                resegmenting = segmenting != segmented_before
                skipped = prints.unchanged(archive, chat, fingerprint, at, plan, resegmenting, formerly)
                send(None if skipped else plan)
                if skipped is not None:
                    points(None)
                    yield skipped
                    continue
                batches = _Received(receive, archive.folder)
                with contextlib.closing(batches):
                    result = write_chat(archive, chat, plan, Planned(plan, batches), progress, resegmenting)
                prints.took(fingerprint or batches.printed, result, at)
                points(batches.point)
                yield result
    finally:
        if process.poll() is None:
            process.kill()  # done, or the writer gave up early: the rest of the export is not wanted
        process.wait()
        process.stdin.close()
        events.close()
