"""Records a reader must gather before it hands any on, put aside on disk once they are many: the messages of
a file whose chats are named by all their senders (Teams), a channel's messages sorted by time (Slack).

A reader that held them all would need memory that grows with the chat: a million messages took gigabytes,
where issue 26 bounds a 1M-message import at 250 MB whatever the messages' shape. A ``Spool`` holds up to
``HELD`` records in memory, as such a reader always did (a chat of a few thousand messages never touches the
disk); past that, it pickles them to an unnamed temporary file (gone when closed, or with the process) in
slices of about ``SLICE_BYTES`` (beside the archive, as ``linelog.Spool`` writes a long text), and reads them back a slice at a time. ``Sorted`` sorts so: runs of
``HELD`` records sorted in memory, put aside, and merged. Where no temporary file can be written (a full
disk), the records are held in memory, as before.

Records are pickled: plain tuples of plain values pickle fastest (a ``Message`` as ``tuple(message)``, made
again by ``Message._make``: a named tuple's pickling calls back into Python for each one).
"""

from __future__ import annotations

import heapq
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Generic, TypeVar

T = TypeVar("T")

# Records held in memory before any goes to disk: a message with its raw record is a KB or two.
HELD = 20_000
# The pickled bytes of a slice, about: what a reading back holds of a group at a time (a merge, of each run).
SLICE_BYTES = 64 << 10
_FIRST_SLICE = 64  # records in the first slice, before their size is known
# The runs a sort merges at most at once: a million messages are 50 runs, merged once.
FAN_IN = 64


class Spool(Generic[T]):
    """Records put aside by group (a chat of a file, a run of a sort), read back group by group in the order
    they were put (``records``)."""

    def __init__(self, held: int | None = None) -> None:
        self._held = HELD if held is None else held
        self._pending: dict[int, list[T]] = {}
        self._count = 0
        self._file: IO[bytes] | None = None
        self._slices: dict[int, list[tuple[int, int]]] = {}
        self._per_slice = _FIRST_SLICE

    def put(self, group: int, record: T) -> None:
        self._pending.setdefault(group, []).append(record)
        self._count += 1
        if self._count >= self._held:
            self._flush()

    def extend(self, group: int, records: list[T]) -> None:
        self._pending.setdefault(group, []).extend(records)
        self._count += len(records)
        if self._count >= self._held:
            self._flush()

    def records(self, group: int) -> Iterator[T]:
        """The group's records put so far, in the order they were put; a slice at a time from the disk. What
        is put aside while they are read (a merge's run, into another group) does not change them."""
        return self._read(list(self._slices.get(group, ())), list(self._pending.get(group, ())))

    def _read(self, slices: list[tuple[int, int]], pending: list[T]) -> Iterator[T]:
        for offset, size in slices:
            assert self._file is not None
            self._file.seek(offset)
            yield from pickle.loads(self._file.read(size))
        yield from pending

    def _flush(self) -> None:
        try:
            if self._file is None:
                from refind_cli.importers.linelog import spool_folder

                # Beside the archive, as a long text is held (the system's temporary folder may be memory).
                self._file = tempfile.TemporaryFile(dir=spool_folder())  # noqa: SIM115 (closed by ``close``)
            out = self._file
            out.seek(0, 2)
            for group, records in self._pending.items():
                slices = self._slices.setdefault(group, [])
                start = 0
                while start < len(records):
                    piece = records[start : start + self._per_slice]
                    data = pickle.dumps(piece, pickle.HIGHEST_PROTOCOL)
                    slices.append((out.tell(), len(data)))
                    out.write(data)
                    start += len(piece)
                    # The next slice's records, from these ones' size: a slice stays near SLICE_BYTES
                    # whether a record is a line or a megabyte.
                    self._per_slice = max(1, SLICE_BYTES * len(piece) // max(len(data), 1))
        except OSError:  # no room on the disk: held in memory, as a reader did before
            self._held = sys.maxsize
            return
        self._pending = {}
        self._count = 0

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._pending = {}


class Sorted(Generic[T]):
    """Records given one at a time (``add``), read back sorted by ``key``, stably: the order ``sorted``
    gives them. At most ``held`` are sorted in memory at a time; more are sorted in runs of that many, put
    aside (``Spool``) and merged (``heapq.merge`` keeps equal keys in the order of the runs). A merge reads a
    slice of each run at a time: where more than ``FAN_IN`` runs of a size lie aside, they are merged into
    one, so that a merge holds no more than that many slices however long the input."""

    def __init__(self, key: Callable[[T], Any], held: int | None = None) -> None:
        self._key = key
        self._held = HELD if held is None else held
        self._run: list[T] = []
        self._runs: list[tuple[int, int]] = []  # the runs put aside, in the input's order: (merges, group)
        self._groups = 0
        self._spool: Spool[T] = Spool(self._held)

    def add(self, record: T) -> None:
        self._run.append(record)
        if len(self._run) >= self._held:
            self._run.sort(key=self._key)
            self._put(0, self._run)
            self._run = []

    def _put(self, merges: int, records: Iterable[T]) -> None:
        group, self._groups = self._groups, self._groups + 1
        for record in records:
            self._spool.put(group, record)
        self._runs.append((merges, group))
        tail = self._runs[-FAN_IN:]
        if len(tail) == FAN_IN and all(m == merges for m, _ in tail):
            # The last runs, next to each other in the input: merged, they are one run of it.
            del self._runs[-FAN_IN:]
            self._put(merges + 1, heapq.merge(*(self._spool.records(g) for _, g in tail), key=self._key))

    def __iter__(self) -> Iterator[T]:
        self._run.sort(key=self._key)
        if not self._runs:
            return iter(self._run)
        runs: list[Iterable[T]] = [self._spool.records(group) for _, group in self._runs]
        return heapq.merge(*runs, self._run, key=self._key)

    def close(self) -> None:
        self._spool.close()
        self._run = []
