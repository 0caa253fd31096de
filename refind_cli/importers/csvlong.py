"""CSV records of any length: the ``csv`` module reads a file's records, and a record longer than its field
limit (``csv.field_size_limit()``, 128K characters, which is process-wide and is not raised here) is read by
a scanner of this module's own, which gives each field as the ``csv`` module would, a field longer than
``LONG_TEXT`` written to an unnamed file as it is read (``HeldText``): one huge message costs a few
megabytes, not itself.

The dialect is the ``csv`` module's default with ``strict=True`` and the file's separator: a field is quoted
when it starts with a quote, a quote inside it written doubled; a quote inside an unquoted field is itself.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterable, Iterator
from typing import TextIO

from refind_cli.importers.linelog import Spool
from refind_cli.records import LONG_TEXT, HeldText

# A line is read at most this many characters at a time: a longer one is a long record's, never held whole.
PIECE = 1 << 16
# Characters of a held field written to its file at a time.
_WRITE = 1 << 18
_NEWLINES = "\r\n"


class _Long(Exception):
    """The record being read is longer than the ``csv`` module may read."""


class Records:
    """The rows of a CSV text file (``text`` opened with ``newline=""``) as lists of fields, a field
    ``str`` or, longer than ``LONG_TEXT``, ``HeldText``. ``first``: lines already read from it, given first.
    ``number``: the lines read so far (the last row's last line, once it is given); ``start``: the first line
    of the row being read."""

    def __init__(self, text: TextIO, delimiter: str, first: Iterable[str] = ()) -> None:
        self.delimiter = delimiter
        self.start = 0
        self._lines = _Lines(text, first)

    @property
    def number(self) -> int:
        return self._lines.number

    def __iter__(self) -> Iterator[list[str | HeldText]]:
        lines = self._lines
        while True:
            self.start = lines.number + 1
            try:
                for row in csv.reader(lines, strict=True, delimiter=self.delimiter):
                    lines.taken, lines.size = [], 0
                    yield row  # type: ignore[misc]  # a list of str is a list of str | HeldText
                    self.start = lines.number + 1
                return
            except _Long:
                pass
            taken, lines.taken, lines.size = lines.taken, [], 0
            found = record(itertools.chain(taken, lines.more()), self.delimiter)
            if found is None:
                return
            yield found


class _Lines:
    """A text file's lines for the csv reader, and those it was given since its last row (``taken``); a line
    that makes them longer than it may read (or a line longer than ``PIECE``) raises ``_Long``."""

    def __init__(self, text: TextIO, first: Iterable[str]) -> None:
        self.text = text
        self.first = iter(first)
        self.next: str = ""  # a line read after a piece that ends in CR, to see whether it is its LF
        self.number = 0
        self.taken: list[str] = []
        self.size = 0
        self.limit = csv.field_size_limit()

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self.first, None) or self.read()
        if not line:
            raise StopIteration
        self.taken.append(line)
        self.size += len(line)
        whole = line[-1] in _NEWLINES or len(line) < PIECE  # not, a long line's first piece
        self.number += whole
        if not whole or self.size > self.limit:
            raise _Long
        return line

    def more(self) -> Iterator[str]:
        """The lines after those taken, in pieces of at most ``PIECE`` characters."""
        while line := self.read():
            self.number += line[-1] in _NEWLINES or len(line) < PIECE
            yield line

    def read(self) -> str:
        """A line, or its next ``PIECE`` characters; a CR LF is never cut in two."""
        line, self.next = self.next or self.text.readline(PIECE), ""
        if len(line) == PIECE and line[-1] == "\r":
            self.next = self.text.readline(PIECE)
            if self.next == "\n":
                line, self.next = line + "\n", ""
        return line


def cells(line: str, delimiter: str) -> list[str]:
    """The fields of one record written as ``line`` (its lines joined), as ``csv.reader([line])`` gives
    them, whatever its length (it is in memory already: none is held in a file)."""
    if len(line) <= csv.field_size_limit():
        return next(csv.reader([line], strict=True, delimiter=delimiter), [])
    return [f for f in record([line], delimiter, single=True, hold=False) or [] if isinstance(f, str)]


# The scanner's states, as the csv module names them.
_START_RECORD, _START_FIELD, _IN_FIELD, _IN_QUOTED, _QUOTE_IN_QUOTED = range(5)
_UNQUOTED_END = (
    "new-line character seen in unquoted field - do you need to open the file in universal-newline mode?"
)


def record(
    pieces: Iterable[str], delimiter: str, single: bool = False, hold: bool = True
) -> list[str | HeldText] | None:
    """The first record of ``pieces`` (text, cut anywhere) as ``csv.reader`` reads it from the lines they
    join, or None where they hold none; the pieces after the line that ends it are not read. ``single``: the
    pieces are one line for the csv module, in which a line end outside quotes followed by more is an error
    (read from a file by lines, nothing follows one in its line). ``hold``: a field longer than
    ``LONG_TEXT`` is held in a file."""
    ends = re.compile(f"[{re.escape(delimiter)}\r\n]")
    fields: list[str | HeldText] = []
    field = _Field(hold)
    state = _START_RECORD
    try:
        for piece in pieces:
            at, n = 0, len(piece)
            while at < n:
                if state == _START_RECORD:
                    if piece[at] in _NEWLINES:  # a blank line: a record of no fields
                        return _ended(fields, piece, at, single)
                    state = _START_FIELD
                if state == _START_FIELD:
                    if piece[at] == '"':
                        state, at = _IN_QUOTED, at + 1
                        continue
                    state = _IN_FIELD
                if state == _IN_FIELD:
                    m = ends.search(piece, at)
                    stop = n if m is None else m.start()
                    field.add(piece[at:stop])
                    if m is None:
                        break
                    fields.append(field.value())
                    field = _Field(hold)
                    if piece[stop] in _NEWLINES:
                        return _ended(fields, piece, stop, single)
                    state, at = _START_FIELD, stop + 1
                elif state == _IN_QUOTED:
                    stop = piece.find('"', at)
                    field.add(piece[at:] if stop < 0 else piece[at:stop])
                    if stop < 0:
                        break
                    state, at = _QUOTE_IN_QUOTED, stop + 1
                else:  # a quote in a quoted field: doubled, or its end
                    c = piece[at]
                    if c == '"':
                        field.add('"')
                        state, at = _IN_QUOTED, at + 1
                        continue
                    if c != delimiter and c not in _NEWLINES:
                        raise csv.Error(f"'{delimiter}' expected after '\"'")
                    fields.append(field.value())
                    field = _Field(hold)
                    if c in _NEWLINES:
                        return _ended(fields, piece, at, single)
                    state, at = _START_FIELD, at + 1
        if state == _IN_QUOTED:
            raise csv.Error("unexpected end of data")
        if state == _START_RECORD:
            return None
        fields.append(field.value())  # the file's last line, without a line end
        return fields
    except BaseException:
        field.close()
        for value in fields:
            if isinstance(value, HeldText):
                value.file.close()
        raise


def _ended(fields: list[str | HeldText], piece: str, at: int, single: bool) -> list[str | HeldText]:
    if single and piece[at:].strip(_NEWLINES):
        raise csv.Error(_UNQUOTED_END)
    return fields


class _Field:
    """A field's characters as they are read: in memory up to ``LONG_TEXT``, then in a file (``hold``)."""

    __slots__ = ("hold", "parts", "size", "spool")

    def __init__(self, hold: bool) -> None:
        self.hold = hold
        self.parts: list[str] = []
        self.size = 0
        self.spool: Spool | None = None

    def add(self, text: str) -> None:
        if not text:
            return
        self.parts.append(text)
        self.size += len(text)
        if self.hold and self.size > (_WRITE if self.spool else LONG_TEXT):
            if self.spool is None:
                self.spool = Spool()
            self._write()

    def _write(self) -> None:
        assert self.spool is not None
        for part in self.parts:
            for at in range(0, len(part), _WRITE):
                self.spool.write(part[at : at + _WRITE])
        self.parts, self.size = [], 0

    def value(self) -> str | HeldText:
        if self.spool is None:
            return "".join(self.parts)
        self._write()
        return self.spool.held("", "")

    def close(self) -> None:
        if self.spool is not None:
            self.spool.file.close()
