"""Messages held in a file while an export is read, given back group by group in time order.

A reader whose chats are complete only at the file's end (an SMS backup: its threads' rows interleave, and
each thread is given in time order) held every message until then: 796 MB at a million (bench/RESULTS.md,
issue 26 item 2, session 15). Here each message goes, marshalled, to an unnamed file beside the archive
(``linelog.spool_file``) as it is read, and only its time and its place are kept (24 bytes); a group's
messages are sorted by time (stably: those of one time keep the order they were added in) and read back from
the file when the group is given. Records below ``hold`` bytes in all never reach the file.

A record is a tuple marshal takes (strings, numbers, None, booleans): the reader turns it into its message
when it is given back. A text too long to hold is written to the file apart from the records as it is read
(``put``), and given back as a ``HeldText`` over the file (``held``).
"""

from __future__ import annotations

import contextlib
import itertools
import marshal
import operator
import os
from array import array
from collections.abc import Callable, Iterator
from typing import IO, Any

from refind_cli.importers import container, linelog
from refind_cli.records import HeldText

# Bytes of records held in memory before they are written: below it an export is sorted without a file.
HOLD = 8 << 20
# The bytes of the file's pages read back before they are let go of (``container.let_go``).
_LET_GO_BYTES = 32 << 20
_PAGE = 4096
# A group of this many records is sorted by numpy (8 bytes a record, where a list of ints takes 80); a
# smaller one by Python, so that a small backup does not import numpy (0.1-0.3 s of CPU, 12 MB).
_NUMPY_FROM = 1 << 16
# A string longer than this (in characters) is written apart from its record, a piece at a time.
LONG = 1 << 20
_SPOOLED = "the messages of an export whose chats end only with it"


class TimeSpool:
    """Records added by group with a time (an int), given back by group in time order (``given``)."""

    def __init__(self, hold: int | None = None) -> None:
        self.hold = HOLD if hold is None else hold
        self.pending = bytearray()  # the records not yet written, after the file's ``written`` bytes
        self.written = 0
        self.file: IO[bytes] | None = None
        self.ends = array("q")  # where each record ends, in the order they were added
        self.times: list[array[int]] = []  # by group: its records' times
        self.numbers: list[array[int]] = []  # and their numbers (in ``ends``)

    def group(self) -> int:
        """A new group's number."""
        self.times.append(array("q"))
        self.numbers.append(array("q"))
        return len(self.times) - 1

    def add(self, group: int, time: int, record: tuple[Any, ...], long: bool = False) -> None:
        """``long``: the record may hold a string of more than ``LONG`` characters, which is then written
        apart, a piece at a time (``_apart``)."""
        self.times[group].append(time)
        self.numbers[group].append(len(self.ends))
        if long and any(type(field) is str and len(field) > LONG for field in record):
            self._apart(record)
            return
        data = marshal.dumps(record)
        self.ends.append(self.written + len(self.pending) + len(data))
        if len(self.pending) + len(data) < self.hold:
            self.pending += data
        else:
            self._write(self.pending)
            self._write(data)  # not copied into ``pending`` first

    def _apart(self, record: tuple[Any, ...]) -> None:
        """A record with long strings, written as a list: the length of its marshalled head, then its fields,
        a long string's place holding its UTF-8 length (a 1-tuple); the long strings' bytes after the head.
        Marshalled whole, a long message's text and raw record were one more copy each (bench/RESULTS.md,
        issue 24 item 4, session 16)."""
        fields = [
            (sum(len(piece.encode()) for piece in _pieces(field)),)
            if type(field) is str and len(field) > LONG
            else field
            for field in record
        ]
        head = b""
        while len(head) != len(head := marshal.dumps([len(head), *fields])):  # its own length, settled
            pass
        self._write(self.pending)
        self._write(head)
        for field in record:
            if type(field) is str and len(field) > LONG:
                for piece in _pieces(field):
                    self._write(piece.encode())
        self.ends.append(self.written)

    def put(self, data: bytes) -> int:
        """``data`` written to the file after the records added so far, apart from them (a piece of a long
        text, read before its record: ``held`` gives it back); where it starts in the file. Pieces put one
        after another with no record added between them lie one after another."""
        self._write(self.pending)
        at = self.written
        self._write(data)
        self.ends.append(self.written)  # a number no group holds: the next record starts after the piece
        return at

    def read(self, at: int, size: int) -> bytes:
        """``size`` bytes put at ``at``, read without moving the file's position (records are written on)."""
        if not size:  # nothing was put: there may be no file
            return b""
        assert self.file is not None
        self.file.flush()
        return os.pread(self.file.fileno(), size, at)

    def held(self, at: int, size: int, chars: int) -> HeldText:
        """A text of ``chars`` characters put at ``at`` as a ``HeldText``, over a file of its own: whoever
        takes it closes it once it is read (the import's worker does), and this one stays open."""
        assert self.file is not None
        self.file.flush()
        return HeldText(os.fdopen(os.dup(self.file.fileno()), "rb"), at, size, chars)

    def count(self, group: int) -> int:
        return len(self.times[group])

    def span(self, group: int) -> tuple[int, int]:
        """The group's earliest and latest time (it has records)."""
        times = self.times[group]
        return min(times), max(times)

    def _write(self, data: bytes | bytearray) -> None:
        """``data`` to the file (the records pending: written, none is pending)."""
        if not data:
            return
        if self.file is None:
            self.file = linelog.spool_file(_SPOOLED)
        try:
            self.file.write(data)
        except OSError as exc:
            raise linelog.unwritable(exc, _SPOOLED) from None
        self.written += len(data)
        if data is self.pending:
            self.pending = bytearray()

    def given(self, group: int) -> Iterator[tuple[Any, ...]]:
        """The group's records, by time; of one time, in the order they were added. Groups are given one
        after another: the records are read from the file through a map, let go of as they are read."""
        ends = self.ends
        with self._bytes() as (data, let_go):
            touched = 0
            for number in _by_time(self.times[group], self.numbers[group]):
                start = ends[number - 1] if number else 0
                stop = ends[number]
                record = marshal.loads(data[start:stop])
                if type(record) is list:
                    record = _whole(record, data, start)
                # A record touches a page at least, wherever it lies. Let go of before the record is given:
                # a long one's pages were as many again as its strings while it was imported (session 17).
                touched += max(stop - start, _PAGE)
                if touched >= _LET_GO_BYTES:
                    let_go()
                    touched = 0
                yield record

    @contextlib.contextmanager
    def _bytes(self) -> Iterator[tuple[memoryview, Callable[[], object]]]:
        """All the records' bytes (slices of them are not copies), and what lets go of the pages read since
        it was last called."""
        if self.file is None:
            with memoryview(self.pending) as view:
                yield view, lambda: None
            return
        self._write(self.pending)
        self.file.flush()
        import mmap

        with (
            mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ) as data,
            memoryview(data) as view,
        ):
            yield view, lambda: container.let_go(data, 0, self.written)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
        self.pending = bytearray()


def _by_time(times: array[int], numbers: array[int]) -> array[int]:
    """``numbers`` in the order of their ``times``; of one time, in the order they are in."""
    if all(map(operator.le, times, itertools.islice(times, 1, None))):  # a backup's usual order
        return numbers
    if len(times) < _NUMPY_FROM:
        return array("q", [numbers[i] for i in sorted(range(len(times)), key=times.__getitem__)])
    import numpy as np

    order = np.frombuffer(numbers, dtype=np.int64)[np.argsort(np.frombuffer(times, np.int64), kind="stable")]
    return array("q", order.tobytes())


def _pieces(text: str) -> Iterator[str]:
    return (text[i : i + LONG] for i in range(0, len(text), LONG))


def _whole(written: list[Any], data: memoryview, start: int) -> tuple[Any, ...]:
    """A record ``_apart`` wrote, at ``start`` of ``data``, with its long strings read back."""
    at = start + written[0]
    fields = []
    for field in written[1:]:
        if type(field) is tuple:
            fields.append(str(data[at : at + field[0]], "utf-8"))
            at += field[0]
        else:
            fields.append(field)
    return tuple(fields)
