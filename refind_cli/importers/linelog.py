"""The shared reader of line-based chat logs (LINE, KakaoTalk, signal-export Markdown, signalbackup-tools):
each format is a ``Grammar``, tables of line patterns and words, and this module does the reading.

A log is a title and a "saved on" line (both optional), then day lines and message lines. A message line
carries a stamp (its date, or only its time under the last day line), an optional sender and the first
line of its text; every following line that is neither a day nor a message line continues it. A message
line without a sender is a system line. A format can write its stamps in several layouts (a platform, a
locale, an app version): the first message line of a file decides which one, once; the order of dates whose
numbers do not say which is the day is learned once too, from the first date that tells it.

A log whose every message line carries its whole stamp, in a layout generated from the file rather than
listed (WhatsApp's), is read through ``Window`` and ``stamp_lines``: the text held from the record being
read, searched from stamp to stamp by one pattern.

The file is streamed line by line from its bytes, never decoded whole. Times are wall-clock times without
an offset, read in the zone the import is told. Nothing is dropped: a placeholder (``[Photo]``) or a system
line is a message of its own kind, and a line whose stamp cannot be a real time (31 February, 25:70) is
text of the message before.
"""

from __future__ import annotations

import calendar
import codecs
import contextlib
import errno
import itertools
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import IO, Any, Protocol

from refind_cli.dates import stampwords
from refind_cli.errors import InputError, RefindError
from refind_cli.importers import container
from refind_cli.records import (
    HELD,
    LONG_TEXT,
    Chat,
    ChatExport,
    HeldText,
    Kind,
    Mark,
    Message,
    NotResumable,
)

SNIFF_BYTES = 16 << 10
SNIFF_LINES = 6  # content lines a sniff looks at: a title, a saved line, a day line, messages
# Characters of a piece of text over which its lines are let go of as they are given (a Python loop a line,
# which the usual pieces, a chunk's lines, are not worth).
_LONG_PIECE = 1 << 20
# A record held in a window (``Window``) longer than its head, its tail and ``LONG_TEXT`` has the characters
# between head and tail written to a file as it is read (``Spool``): the window holds a record of any length
# in a few megabytes. The head holds its header and more than a first line a placeholder can be; the tail,
# more than the ends a reader strips (marks, newlines, an edited marker).
HELD_HEAD = 1 << 17
HELD_TAIL = 1 << 16
SPILL = LONG_TEXT + HELD_HEAD + HELD_TAIL
_SPOOL_PIECE = 1 << 18

# Invisible characters that exports put around names and stamps, and the spaces between stamp parts.
MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
WS = "[ \u00a0\u202f\u2009]"

# AM/PM markers and day periods, written before the time (Korean, Chinese, Japanese) or after it: any short
# run of words there, kept when CLDR writes it for one (``stampwords``; ``read_time``), the fewest words that
# lead to a match. (An alternation of CLDR's 800 words would be tried word by word at every line.)
_WORD_PART = rf"(?:[^\W\d_]|[{re.escape(stampwords.first_signs())}])[^\s\d:,،()\[\]\t]{{0,15}}"
AMPM_WORDS = rf"{_WORD_PART}(?:{WS}{_WORD_PART}){{0,2}}?"
# Words CLDR's time patterns write around the numbers besides AM/PM ("Kl.", "ч.", "น."), whole.
TIME_WORD = rf"{stampwords.literals('time_word')}(?![^\W\d_])"
TIME = (
    rf"(?P<time>(?:{TIME_WORD}{WS}?)?(?:(?P<ap>{AMPM_WORDS}){WS}?)?(?:{TIME_WORD}{WS}?)?"
    rf"(?P<h>\d{{1,2}}){stampwords.literals('hour_sep')}(?P<mi>\d{{1,2}})"
    rf"(?:{stampwords.literals('minute_sep')}(?P<s>\d{{1,2}}))?"
    rf"(?:{WS}?{TIME_WORD})?(?:{WS}?(?P<ap2>{AMPM_WORDS}))?(?:{WS}?{TIME_WORD})?)"
)

# Month and weekday names: English from the calendar module (the C locale); the CJK day characters and Thai
# abbreviations by hand.
MONTHS: dict[str, int] = {
    name.lower(): number
    for names in (calendar.month_name, calendar.month_abbr)
    for number, name in enumerate(names)
    if name
}
_CJK_DAYS = {"ja": "月火水木金土日", "zh": "一二三四五六日", "ko": "월화수목금토일"}
_THAI_DAYS = ("จ", "อ", "พ", "พฤ", "ศ", "ส", "อา")  # abbreviations, written with a dot
WEEKDAYS: dict[str, int] = (
    {name.lower(): n for names in (calendar.day_name, calendar.day_abbr) for n, name in enumerate(names)}
    | {c: n for n, c in enumerate(_CJK_DAYS["ja"])}
    | {c + "曜日": n for n, c in enumerate(_CJK_DAYS["ja"])}
    | {p + c: n for n, c in enumerate(_CJK_DAYS["zh"]) for p in ("", "周", "週", "星期")}
    | {"周天": 6, "週天": 6, "星期天": 6, "天": 6}
    | {c: n for n, c in enumerate(_CJK_DAYS["ko"])}
    | {c + "요일": n for n, c in enumerate(_CJK_DAYS["ko"])}
    | {c: n for n, c in enumerate(_THAI_DAYS)}
)

BUDDHIST_OFFSET = 543
BUDDHIST_FROM = 2400  # no Gregorian year of a chat is that large: a Thai year without its "BE"
YEARS = (1970, 2199)
_SECOND = timedelta(seconds=1)


@dataclass(frozen=True, slots=True)
class Layout:
    """One way a format writes its lines. ``message`` names its parts: the date (``y``, ``mo`` or ``mon``,
    ``d``; or ``a``/``b`` when which is the day is not written, ``dow`` the weekday that tells), the time
    (``TIME``'s groups), ``sender`` (absent or empty on a system line) and ``text``. A message without a date
    is on the day of the last ``days`` line. ``system``: lines without a stamp that are system messages
    (KakaoTalk's PC app writes joins and leaves so), dated like the message before."""

    message: re.Pattern[str]
    days: tuple[re.Pattern[str], ...] = ()
    system: re.Pattern[str] | None = None
    suffixes: tuple[str, ...] = ()  # the file name endings it is sniffed in; () for any


@dataclass(frozen=True, slots=True)
class Grammar:
    """A format: its layouts and the words it writes (titles, placeholders, the exporting person's name)."""

    what: str  # "a LINE chat export": for errors
    example: str  # a message line as the format writes it: for errors
    layouts: tuple[Layout, ...]
    # A first line that names the chat: its group ``name``; the kind of chat it says, "direct" or "group".
    titles: tuple[tuple[re.Pattern[str], str], ...] = ()
    saved: re.Pattern[str] | None = None  # the "saved on" line after the title
    kinds: Mapping[str, str] = field(default_factory=dict)  # whole texts (placeholders) -> Kind
    kind_patterns: tuple[tuple[re.Pattern[str], str], ...] = ()  # first lines matched -> Kind
    own: frozenset[str] = frozenset()  # the names an export gives the exporting person
    quoted: bool = False  # a multi-line text is wrapped in double quotes
    # White space around a text is layout, not text: Markdown's line-break spaces, the blank lines around a
    # quoted message.
    trim: bool = False
    # kind_patterns as one alternation, one match a message: group k<i> is kind_patterns[i].
    kind_pattern: re.Pattern[str] | None = field(init=False, default=None)
    longest_kind: int = field(init=False, default=0)  # the longest of ``kinds``

    def __post_init__(self) -> None:
        object.__setattr__(self, "longest_kind", max(map(len, self.kinds), default=0))
        if self.kind_patterns:
            joined = "|".join(f"(?P<k{i}>{p.pattern})" for i, (p, _) in enumerate(self.kind_patterns))
            object.__setattr__(self, "kind_pattern", re.compile(joined))

    def kind_of(self, first_line: str) -> str:
        """The kind of a message with a sender, from its first line, white space around it aside. Read in
        place, not stripped: the line can be a 50-MB message, which a stripped copy would hold once more."""
        if len(first_line) > _LONG_PIECE:
            start, end = strip_bounds(first_line)
        else:
            first_line = first_line.strip()
            start, end = 0, len(first_line)
        kind = self.kinds.get(first_line[start:end]) if end - start <= self.longest_kind else None
        if kind is not None:
            return kind
        m = self.kind_pattern.match(first_line, start, end) if self.kind_pattern is not None else None
        return self.kind_patterns[int(m.lastgroup[1:])][1] if m is not None and m.lastgroup else Kind.TEXT


def pattern(text: str) -> re.Pattern[str]:
    return re.compile(text)


def strip_bounds(
    text: str, chars: str | None = None, start: int = 0, end: int | None = None
) -> tuple[int, int]:
    """Where ``text[start:end].strip(chars)`` starts and ends in ``text``, without making it (the text can be a
    50-MB message)."""
    end = len(text) if end is None else end
    start = lstrip_to(text, chars, start, end)
    return start, rstrip_to(text, chars, start, end)


def lstrip_to(text: str, chars: str | None, start: int, end: int) -> int:
    """Where ``text[start:end].lstrip(chars)`` starts in ``text``."""
    while end - start >= 64 and not text[start : start + 64].strip(chars):  # a long run, 64 at a time
        start += 64
    while start < end and not text[start].strip(chars):
        start += 1
    return start


def rstrip_to(text: str, chars: str | None, start: int, end: int) -> int:
    """Where ``text[start:end].rstrip(chars)`` ends in ``text``."""
    while end - start >= 64 and not text[end - 64 : end].strip(chars):
        end -= 64
    while end > start and not text[end - 1].strip(chars):
        end -= 1
    return end


# --- lines --------------------------------------------------------------------------------------------


def iter_text(
    chunks: Iterable[bytes],
    path: Path | str,
    where: str | None,
    lines: Callable[[], int],
    bom: bool = True,
    partial: bool = False,
) -> Iterator[str]:
    """The text of an export decoded as it streams in, in pieces of whole lines (each but the last ends with
    a newline): UTF-8, 16 or 32 (``container.text_encoding``). CR LF and CR become LF; only these end a line
    (U+2028 is text). Invalid bytes are an InputError naming the line: ``lines()`` says how many newlines
    the pieces given so far hold (the reader counts them, or counts them again when asked: counting every
    piece here would cost a reader that needs no line numbers). ``bom``: False for bytes read from a mark
    on (plain UTF-8, where no BOM can be). ``partial``: a line longer than ``_LONG_PIECE`` is given in
    pieces as it comes (one that does not end with a newline goes on in the next), never held whole."""
    chunks = iter(chunks)
    found = container.Encoding("utf-8", 0)
    if bom:
        found, start = container.told_encoding(chunks, legacy=True)
        found.said(path, where)
        chunks = itertools.chain([start[found.bom :]], chunks)
        del start  # held no longer than its decoding needs it
    encoding = found.label
    decoder = codecs.getincrementaldecoder(found.codec)()
    pending = ""
    for chunk in chunks:
        try:
            text = pending + decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            line = lines() + exc.object[: exc.start].count(b"\n") + 1
            raise _decode_error(path, where, line, encoding, exc) from None
        if "\r" in text:
            held = text.endswith("\r")  # its LF may open the next chunk
            text = unify_newlines(text[:-1] if held else text) + ("\r" if held else "")
        cut = text.rfind("\n") + 1
        if partial and len(text) - cut > _LONG_PIECE:
            cut = len(text) - 1 if text.endswith("\r") else len(text)  # a CR's LF may open the next chunk
        if not cut:
            pending = text
            continue
        pending = text[cut:]
        # Given out of a list, and the text let go: a suspended generator holds its locals, and a piece can
        # be a 50-MB line, which the reader then holds again.
        piece = [text[:cut]]
        del text
        yield piece.pop()
    try:
        pending += decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise _decode_error(path, where, lines() + 1, encoding, exc) from None
    if pending.endswith("\r"):
        pending = pending[:-1] + "\n"
    if pending:
        last = [pending]  # given out of a list too: it can be a 50-MB line
        del pending
        yield last.pop()


def iter_lines(
    chunks: Iterable[bytes], path: Path | str, where: str | None = None, line: int = 0, held: bool = False
) -> Iterator[str]:
    """The lines of a text export as they stream in (``iter_text``), without their newlines. ``line``: the
    lines before these bytes, for a file read from a mark on. ``held``: a line longer than ``SPILL`` is
    given as a ``Cut``, never held whole."""
    number = line
    going: _LongLine | None = None  # a line read in pieces (``held``)
    # The count as it stands when an invalid byte is met (late binding is the point).
    for piece in iter_text(chunks, path, where, lambda: number, bom=not line, partial=held):  # noqa: B023
        lines = piece.split("\n")
        long = len(piece) > _LONG_PIECE
        del piece  # its lines are copies
        number += len(lines) - 1
        last = lines.pop()  # after the piece's last newline: a line that goes on, or the file's last
        if going is not None:
            if not lines:
                going.add(last)
                continue
            going.add(lines[0])
            lines[0] = going.line()
            going = None
        if last:
            if held:
                going = _LongLine(last)
            else:
                lines.append(last)
        if not long:
            yield from lines
            continue
        # Given out one at a time and let go of here: a piece can hold a 50-MB line, which the reader then
        # holds as written and as its text.
        lines.reverse()
        while lines:
            yield lines.pop()
    if going is not None:
        yield going.line()


class Cut(str):
    """A line longer than ``SPILL`` as ``iter_lines`` gives it when asked to: its first ``HELD_HEAD``
    characters, the characters after them in ``spool``, then ``tail`` (its last ``HELD_TAIL``). A reader that
    takes one whole (``whole``) reads it as before; ``Reader`` gives its text held in a file. The reader
    gathers a message's further lines into one too, once they are longer than ``SPILL`` (``gather``): its
    characters are then those lines joined by newlines, and ``blank`` says whether they are all blank."""

    spool: Spool
    tail: str
    blank = False

    def whole(self) -> str:
        return "".join((self, self.spool.read(), self.tail))  # joined once: each "+" was a copy of it

    def chunks(self) -> Iterator[bytes]:
        """Its characters' UTF-8, a piece at a time, its file kept (for a reader that reads it again)."""
        yield str(self).encode()
        self.spool.file.flush()
        self.spool.file.seek(0)
        while piece := self.spool.file.read(1 << 20):
            yield piece
        yield self.tail.encode()


class _LongLine:
    """Text given in pieces (a line, by ``iter_text``'s ``partial``; a message's further lines, by
    ``gather``), held until it is longer than ``SPILL``, then as a ``Cut``: its head, the characters after
    it written to the spool, the last ones held in a list until they are more than two tails."""

    def __init__(self, part: str = "", cut: Cut | None = None) -> None:
        self.parts = [part]
        self.size = len(part)
        self.cut = cut  # once spilled: the Cut, its ``tail`` set by ``line``
        self.tail = [] if cut is None else [cut.tail]  # the characters after the spool, not yet written
        self.tail_size = 0 if cut is None else len(cut.tail)

    def add(self, part: str) -> None:
        if self.cut is not None:
            self.tail.append(part)
            self.tail_size += len(part)
            if self.tail_size > 2 * HELD_TAIL:
                self._write_tail(HELD_TAIL)
            return
        self.parts.append(part)
        self.size += len(part)
        if self.size > SPILL:
            self._spill()

    def add_cut(self, cut: Cut) -> None:
        """A ``Cut``'s characters: its head, its spool (whose file goes), its tail."""
        self.add(str(cut))
        if self.cut is None:
            self._spill()
        assert self.cut is not None
        self._write_tail(0)
        self.cut.spool.add(cut.spool)
        self.tail, self.tail_size = [cut.tail], len(cut.tail)

    def _spill(self) -> None:
        text = "".join(self.parts)
        self.parts = []
        self.cut = Cut(text[:HELD_HEAD])
        self.cut.spool = Spool()
        self.tail, self.tail_size = [text[HELD_HEAD:]], max(len(text) - HELD_HEAD, 0)
        self._write_tail(HELD_TAIL)

    def _write_tail(self, keep: int) -> None:
        """The characters after the spool but their last ``keep`` written to it."""
        assert self.cut is not None
        text = "".join(self.tail)
        end = max(len(text) - keep, 0)
        spool_slices(self.cut.spool, text, 0, end)
        self.tail, self.tail_size = [text[end:]], len(text) - end

    def line(self) -> str:
        if self.cut is None:
            return "".join(self.parts)
        self._write_tail(HELD_TAIL)
        self.cut.tail = self.tail[0]
        return self.cut


def spool_slices(spool: Spool, text: str, start: int, end: int) -> None:
    """``text[start:end]`` to ``spool``, in slices: a copy of it whole (or its UTF-8) is megabytes."""
    for at in range(start, end, _SPOOL_PIECE):
        spool.write(text[at : min(at + _SPOOL_PIECE, end)])


def unify_newlines(text: str) -> str:
    """``text`` with CR LF (Windows) and a lone CR (old Macs) made LF: how every line-based reader splits
    lines. Only these three end a line: str.splitlines would also split on U+2028 and friends, which are
    message content. (iOS WhatsApp writes CR LF yet keeps bare LF inside messages: all three are ends.)"""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = text.replace("\r", "\n")
    return text


def _decode_error(
    path: Path | str, where: str | None, line: int, encoding: str, exc: UnicodeDecodeError
) -> InputError:
    place = f"{where}, line {line}" if where else f"line {line}"
    return InputError(path, f"invalid text (invalid {encoding}: {exc.reason}); not a text export", place)


def head_lines(data: bytes) -> list[str]:
    """The complete lines of a file's first bytes, leniently decoded: what a sniff looks at."""
    text = container.utf8_head(data).decode("utf-8", errors="replace")
    lines = unify_newlines(text).split("\n")
    if len(data) >= SNIFF_BYTES:
        lines.pop()  # cut off mid-line
    return lines


def file_head(path: Path) -> bytes:
    return container.read_file_part(path, 0, SNIFF_BYTES)


# --- text held from a record's start ----------------------------------------------------------------


class Spool:
    """Characters written to a file as they are read (its UTF-8), where a record is too long to hold
    (``Window``): an unnamed file beside the archive (``spooling_in``), gone once closed or with its process.
    A disk that is full or a folder that cannot be written is a RefindError, one line."""

    def __init__(self) -> None:
        self.file = spool_file()
        self.chars = self.size = self.newlines = 0

    def write(self, text: str) -> None:
        data = text.encode()
        try:
            self.file.write(data)
        except OSError as exc:
            raise unwritable(exc) from None
        self.chars += len(text)
        self.size += len(data)
        self.newlines += text.count("\n")

    def held(self, head: str, tail: str) -> HeldText:
        """``head``, the characters written, then ``tail``, as a text held in the file."""
        self.write(tail)
        try:
            self.file.flush()
        except OSError as exc:
            raise unwritable(exc) from None
        data = head.encode()
        return HeldText(self.file, 0, len(data) + self.size, len(head) + self.chars, data)

    def add(self, other: Spool, keep: bool = False) -> None:
        """The characters written to ``other``, whose file goes (unless ``keep``: it is read again)."""
        with contextlib.nullcontext() if keep else other.file:
            other.file.flush()
            other.file.seek(0)
            while piece := other.file.read(1 << 20):
                try:
                    self.file.write(piece)
                except OSError as exc:
                    raise unwritable(exc) from None
        self.chars += other.chars
        self.size += other.size
        self.newlines += other.newlines

    def count(self, byte: bytes) -> int:
        """How many times ``byte`` is in the bytes written."""
        self.file.flush()
        self.file.seek(0)
        found = 0
        while piece := self.file.read(1 << 20):
            found += piece.count(byte)
        return found

    def holds(self, pattern: re.Pattern[bytes], reach: int = 16) -> bool:
        """Whether the bytes written hold a match of ``pattern``, one no longer than ``reach`` bytes."""
        self.file.flush()
        self.file.seek(0)
        last = b""
        while piece := self.file.read(1 << 20):
            if pattern.search(last + piece):
                return True
            last = piece[-reach:]
        return False

    def read(self) -> str:
        """The characters written, whole (a reader that cannot take them held); the file goes."""
        with self.file:
            self.file.flush()
            self.file.seek(0)
            return self.file.read().decode()


# Where a long record's characters are written as they are read (``Spool``): the archive's folder, set by an
# import; None is the system's temporary folder.
_SPOOLS: ContextVar[str | None] = ContextVar("spools", default=None)
_LONG = "a long message's text"


@contextlib.contextmanager
def spooling_in(folder: str | os.PathLike[str]) -> Iterator[None]:
    """Long records read inside the block are written to files in ``folder``."""
    token = _SPOOLS.set(os.fspath(folder))
    try:
        yield
    finally:
        _SPOOLS.reset(token)


def spool_folder() -> str | None:
    """Where records put aside are written (``spooling_in``; None: the system's temporary folder)."""
    return _SPOOLS.get()


def spool_file(held: str = _LONG) -> IO[bytes]:
    """An unnamed file in the folder ``spooling_in`` names (the system's temporary folder outside it), to
    hold ``held`` while it is imported: gone once closed or with its process."""
    try:
        return tempfile.TemporaryFile(dir=_SPOOLS.get())
    except OSError as exc:
        raise unwritable(exc, held) from None


def unwritable(exc: OSError, held: str = _LONG) -> RefindError:
    """A spool file that could not be made or written, in one line."""
    place = _SPOOLS.get() or tempfile.gettempdir()
    what = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else exc.strerror or str(exc)
    return RefindError(f"{place}: cannot hold {held} there while it is imported ({what})")


class Window:
    """An export's text as it streams in, held from the start of the record being read: a reader that
    searches patterns across lines holds a piece and a record, never the file. ``text`` is what is held;
    ``dropped`` counts the characters let go before ``text[0]``. ``chunks()`` streams the file's bytes (and
    streams them again when a line number is asked for after text was let go: lines are not counted as
    the text streams, since a reader asks for them rarely). ``before``: the lines before these bytes, for a
    file read from a mark on; ``start``: False for such bytes (UTF-8, where a mark is set: not told on
    their own, ``iter_text``).

    A record longer than ``SPILL`` is held as its head and its tail: the characters between, read and
    searched already, are written to a ``Spool`` as the window reads on, and belong where ``hole`` is in
    ``text`` (a reader takes them, ``take``, before it lets the record go)."""

    def __init__(
        self,
        chunks: Callable[[], Iterable[bytes]],
        path: Path | str,
        where: str | None,
        before: int = 0,
        start: bool = True,
    ) -> None:
        self.chunks, self.path, self.where, self.before = chunks, path, where, before
        self.start = start
        self.pieces = iter_text(chunks(), path, where, self._lines_read, bom=start, partial=True)
        self.text = ""
        self.dropped = 0
        self.adding: list[str] = []  # the pieces being read on, not yet in ``text``
        self.lines: int | None = before  # the newlines before text[0]; None when not counted
        self.counting = False  # whether text let go is counted (from the first line number asked for on)
        self.hole: int | None = None  # where the spool's characters belong in ``text``
        self.spool: Spool | None = None  # the record's characters between head and tail, until taken
        self.spilled = self.spilled_lines = 0  # characters and newlines at ``hole``
        self.moved = 0  # characters the last ``more`` wrote to the spool
        self.passed = 0  # characters let go at holes passed, besides ``dropped``

    def more(self, keep: int) -> bool:
        """Lets go of the text before ``keep`` and reads on; False at the end. It reads at least an eighth of
        what it keeps, so a record longer than a piece is copied a few times (its length growing by an eighth
        at least), not once a piece. Reading as much as it kept read up to a long record's length past its end,
        which the new text held beside the old one. The text kept, searched already, is held as its head and
        tail once it is longer than ``SPILL``."""
        kept = self.text[keep:]
        added = self.adding = []
        size = 0
        for piece in self.pieces:
            added.append(piece)
            size += len(piece)
            if size >= len(kept) >> 3:
                break
        if not added:
            return False
        self._count_before(keep)
        self.moved = 0
        if len(kept) > SPILL:
            kept = self._spill(kept)
        # One join: ``kept + "".join(added)`` made the new text twice, and held the old one, the pieces and
        # both copies at once (2.5 times a long record at its last doubling, 2 times now). A lone piece is
        # joined as itself. The pieces are let go: they are in the text now.
        self.text = "".join([kept, *added] if kept else added)
        self.adding = []
        return True

    def _spill(self, kept: str) -> str:
        """``kept`` with the characters after its head (or its hole) up to its tail written to the spool."""
        if self.hole is None:
            self.hole = HELD_HEAD
            self.spool = Spool()
        # The search for stamps goes on from the tail's end: the head and the tail, joined at the hole, are
        # never searched across.
        end = len(kept) - HELD_TAIL
        if self.spool is not None:  # else taken: the reader has the record, and this is not read again
            spool_slices(self.spool, kept, self.hole, end)
        self.moved = end - self.hole
        self.spilled += self.moved
        self.spilled_lines += kept.count("\n", self.hole, end)
        return kept[: self.hole] + kept[end:]

    def take(self) -> Spool:
        """The spool of the record being read, whose characters belong at ``hole``: the reader's now."""
        assert self.spool is not None
        spool, self.spool = self.spool, None
        return spool

    def let_go(self, keep: int) -> None:
        """Lets go of the text before ``keep`` (a line's start) without reading on: a reader that has cut a
        long record out of the text lets the window's copy of it go before it makes the record's message."""
        self._count_before(keep)
        self.text = self.text[keep:]

    def _count_before(self, keep: int) -> None:
        passing = self.hole is not None and self.hole <= keep
        if self.counting:
            self.lines = (
                (self.lines or 0) + self.text.count("\n", 0, keep) + (self.spilled_lines if passing else 0)
            )
        elif keep:
            self.lines = None
        self.dropped += keep
        if self.hole is None:
            return
        if passing:
            if self.spool is not None:
                self.spool.file.close()
            self.passed += self.spilled
            self.hole, self.spool, self.spilled, self.spilled_lines = None, None, 0, 0
        else:
            self.hole -= keep

    def first_content(self) -> int | None:
        """Where the first line with visible content starts, the blank lines before it let go; None when
        there is none."""
        start = 0
        while True:
            text = self.text
            while start < len(text):
                end = text.find("\n", start)
                end = len(text) if end < 0 else end
                if _VISIBLE.search(text, start, end):  # not a copy of the line: it may be a 50-MB message
                    return start
                start = end + 1
            if not self.more(len(text)):
                return None
            start = 0

    def line_number(self, position: int) -> int:
        """The number of the line at ``position`` in ``text``."""
        held = self.spilled_lines if self.hole is not None and self.hole <= position else 0
        return self._lines_before() + self.text.count("\n", 0, position) + held + 1

    def _lines_read(self) -> int:
        return (
            self._lines_before()
            + self.spilled_lines
            + sum(text.count("\n") for text in (self.text, *self.adding))
        )

    def _lines_before(self) -> int:
        self.counting = True
        if self.lines is None:  # read again up to what was let go
            lines = self.before
            remaining = self.dropped + self.passed
            pieces = iter_text(
                self.chunks(), self.path, self.where, lambda: lines, bom=self.start, partial=True
            )
            for piece in pieces:
                lines += piece.count("\n", 0, remaining)
                remaining -= len(piece)
                if remaining <= 0:
                    break
            self.lines = lines
        return self.lines


def stamp_lines(
    window: Window,
    first: re.Match[str],
    usual: re.Pattern[str],
    other: Callable[[str, int], re.Match[str] | None],
) -> Iterator[re.Match[str]]:
    """The stamp lines of a log whose every message line carries its whole stamp, from ``first`` (matched at
    its line's start) on, in file order; the window is held from the last one's line. ``usual``: the file's
    usual stamp led by the newline before it, so the regex engine runs from stamp to stamp by itself;
    ``other(text, start)``: a stamp of another shape at a line's start, tried on the lines between two
    usual ones. Between two stamps it holds positions in the window's text, never the text or a match (which
    holds the text it was found in): a reader that has cut a long record out lets the window go up to the
    line of the stamp it was given (``Window.let_go``), and the record's text is freed."""
    end = first.end()  # where the next usual stamp is searched from
    last = first.start()  # where the last stamp given starts: the window is held from its line
    dropped = window.dropped
    held = [first]  # a stamp is given out of a list: a suspended generator holds its locals
    del first
    yield held.pop()
    search = usual.search
    while True:
        text = window.text
        if window.dropped != dropped:  # let go of by the reader, up to the last stamp's line at most
            shift = window.dropped - dropped
            dropped = window.dropped
            end -= shift
            last = max(last - shift, 0)
        m = search(text, end)
        stop = len(text) if m is None else m.start()
        found = None
        newline = text.find("\n", end, stop)
        while newline >= 0 and (found := other(text, newline + 1)) is None:
            newline = text.find("\n", newline + 1, stop)
        if found is not None:
            # The usual search goes on from its line, which it cannot match (a usual stamp starts at the
            # newline before its line): the usual stamp found, if any, is found again.
            m, end = found, found.start()
        elif m is not None:
            end = m.end()
        if m is not None:
            last = m.start()
            held.append(m)
            del m, found, text
            yield held.pop()
            continue
        # Every line that starts before the end has been tried; the next search starts at the last newline.
        end = len(text) - 1
        keep = last
        if keep < len(text) and text[keep] == "\n":
            keep += 1  # a usual stamp's match starts at the newline before its line
        del text
        if not window.more(keep):
            return
        end -= keep + window.moved
        last = 0
        dropped = window.dropped


# --- times --------------------------------------------------------------------------------------------


def day_offset(year: int, month: int, day: int, tz: tzinfo) -> timedelta | None:
    """The UTC offset of a day without a clock change; None on a day with one."""
    offsets = {
        datetime(year, month, day, 0, 0, 0, tzinfo=tz).utcoffset(),
        datetime(year, month, day, 23, 59, 59, tzinfo=tz).utcoffset(),
        datetime(year, month, day, 23, 59, 59, fold=1, tzinfo=tz).utcoffset(),
    }
    if len(offsets) != 1:
        return None
    (offset,) = offsets
    return offset if offset is not None else timedelta(0)


def on_clock_change(naive: datetime, tz: tzinfo, previous: datetime) -> datetime:
    """A wall-clock time read on a day the clocks change. A time that occurs twice is read as its first
    occurrence unless the previous message is already later, i.e. the clocks have gone back. A time that
    never occurs (skipped forward) is read as the moment of the change."""
    early = naive.replace(tzinfo=tz).astimezone(UTC)
    late = naive.replace(tzinfo=tz, fold=1).astimezone(UTC)
    if late < early:
        return _skipped_to(late, early, tz)
    return late if late > early and previous > early else early


def _skipped_to(lo: datetime, hi: datetime, tz: tzinfo) -> datetime:
    """The moment the clocks sprang forward, between a skipped time read with the offset after the change
    (``lo``) and with the one before (``hi``): such a time is read as that moment, so it stays between the
    messages written before the change and those after, as the file has it."""
    offset_after = hi.astimezone(tz).utcoffset()
    while hi - lo > _SECOND:
        middle = lo + (hi - lo) // 2
        if middle.astimezone(tz).utcoffset() == offset_after:
            hi = middle
        else:
            lo = middle
    return hi


class Clock:
    """Wall-clock times read in one zone: a day's offset is looked up once, unless its clocks change."""

    def __init__(self, tz: tzinfo) -> None:
        self.tz = tz
        self.days: dict[tuple[int, int, int], datetime | None] = {}
        self.previous = datetime.min.replace(tzinfo=UTC)

    def at(self, date: tuple[int, int, int], time: timedelta) -> datetime:
        if date not in self.days:
            offset = day_offset(*date, self.tz)
            self.days[date] = None if offset is None else datetime(*date, tzinfo=UTC) - offset
        midnight = self.days[date]
        if midnight is not None:
            return midnight + time
        # Only a day the clocks change needs the time before: its own earlier messages are the ones that
        # tell whether the clocks have gone back yet.
        self.previous = on_clock_change(datetime(*date) + time, self.tz, self.previous)
        return self.previous


def read_date(m: re.Match[str], day_first: bool | None = None) -> tuple[int, int, int] | None:
    """(year, month, day) from a match's date groups; None when they name no real day. ``day_first``: the
    order of ``a``/``b`` dates that neither their numbers nor their weekday tell, as the file's other dates
    told it (``told_order``); unknown yet, a Buddhist-era date is day first (Thai), others month first."""
    groups = m.groupdict()
    year_text = groups.get("y")
    if not year_text:
        return None
    year = int(year_text)
    buddhist = bool(groups.get("be")) or year >= BUDDHIST_FROM
    if len(year_text) <= 2:
        year += 2000
    elif buddhist:
        year -= BUDDHIST_OFFSET
    if groups.get("a"):
        options = _orders(m, year)
        if not options:
            return None
        if len(options) == 1:
            month, day = options[0]
        else:
            first = day_first if day_first is not None else buddhist
            month, day = options[1] if first else options[0]
    else:
        month_text = groups.get("mo") or ""
        month = int(month_text) if month_text else MONTHS.get((groups.get("mon") or "").lower(), 0)
        day = int(groups.get("d") or 0)
    if not (YEARS[0] <= year <= YEARS[1] and _real(year, month, day)):
        return None
    return year, month, day


def told_order(m: re.Match[str]) -> bool | None:
    """Whether an a/b date is day first, where its numbers or its weekday leave one reading; else None."""
    groups = m.groupdict()
    if not groups.get("a") or groups["a"] == groups["b"]:
        return None
    date = read_date(m)
    options = _orders(m, date[0]) if date else []
    return options[0] == (int(groups["b"]), int(groups["a"])) if len(options) == 1 else None


def infer_day_first(dates: Sequence[tuple[int, int, int]]) -> bool | None:
    """Whether the first of two ambiguous date numbers is the day, from (first, second, year) triples in
    file order; None when the dates cannot tell.

    Pustur's daysBeforeMonths: a number above 12 is a day; else, within one year, the day is the number
    that goes down (months only go up in a chronological file); else the day is the number that changes
    more. Decreases are counted rather than merely detected, so that a few out-of-order lines (WhatsApp
    writes some notices first, dated later) do not decide alone.
    """
    if any(first > 12 for first, _, _ in dates):
        return True
    if any(second > 12 for _, second, _ in dates):
        return False
    first_down = second_down = first_change = second_change = 0
    for (f0, s0, y0), (f1, s1, y1) in itertools.pairwise(dates):
        if y0 == y1:
            first_down += f1 < f0
            second_down += s1 < s0
        first_change += abs(f1 - f0)
        second_change += abs(s1 - s0)
    if first_down != second_down:
        return first_down > second_down
    if first_change != second_change:
        return first_change > second_change
    return None


def date_order(dates: Iterable[re.Match[str]]) -> bool | None:
    """Whether a file's a/b dates (matches of its date pattern, in file order) are day first: told by the
    first whose numbers or weekday leave one reading (``told_order``), else by them all (``infer_day_first``);
    None where they cannot tell."""
    seen: list[tuple[int, int, int]] = []
    for m in dates:
        if not m.groupdict().get("a"):
            continue
        told = told_order(m)
        if told is not None:
            return told
        seen.append((int(m["a"]), int(m["b"]), int(m["y"])))
    return infer_day_first(seen)


def _orders(m: re.Match[str], year: int) -> list[tuple[int, int]]:
    """The (month, day) readings of an a/b date that name a real day, month first first; of those, the ones
    on its weekday if it has one and some are."""
    a, b = int(m["a"]), int(m["b"])
    options = [md for md in dict.fromkeys([(a, b), (b, a)]) if _real(year, *md)]
    weekday = WEEKDAYS.get((m.groupdict().get("dow") or "").strip().lower().rstrip("."))
    if weekday is not None:
        on_day = [md for md in options if calendar.weekday(year, *md) == weekday]
        options = on_day or options
    return options


def _real(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]


def read_time(m: re.Match[str]) -> int | None:
    """Seconds since midnight from a match's time groups; None for a time that cannot be (25:70, 13 PM)."""
    hour, minute = int(m["h"]), int(m["mi"])
    second = int(m["s"]) if m["s"] else 0
    word = m["ap"] or m["ap2"]
    if word:
        read = stampwords.hour24(hour, minute, word)
        if read is None:  # not a word CLDR writes for a time of day, or one that does not name this hour
            return None
        hour = read
    if hour > 23 or minute > 59 or second > 59:
        return None
    return hour * 3600 + minute * 60 + second


# --- the reader -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Head:
    """What the lines before the first message say: the chat's title and kind, and the layout."""

    title: str | None
    kind: str
    layout: Layout


def _content(line: str) -> str:
    return line.strip().strip(MARKS).strip()


_VISIBLE = re.compile(f"[^\\s{MARKS}]")  # where ``_content`` of a line is not empty


def _title(grammar: Grammar, line: str) -> tuple[str, str] | None:
    for title, kind in grammar.titles:
        m = title.fullmatch(line)
        if m:
            return m["name"].strip(), kind
    return None


def _day_line(layout: Layout, line: str) -> bool:
    return any((m := day.fullmatch(line)) and read_date(m) for day in layout.days)


def _message_line(layout: Layout, line: str) -> bool:
    """Whether a line is a message line of this layout with a stamp that can be read."""
    m = layout.message.match(line)
    return bool(
        m
        and read_time(m) is not None
        and (m.re.groupindex.get("y") is None or m["y"] is None or read_date(m))
    )


def _stamped(layout: Layout, line: str) -> bool:
    return _message_line(layout, line) or _day_line(layout, line)


def sniff_lines(grammar: Grammar, lines: list[str], suffix: str) -> bool:
    """Whether a file's first lines are this format's: a title of it, or a first content line that is one of
    its day or message lines followed by another (a day line alone is a date in a novel)."""
    content = [_content(line) for line in lines]
    content = [line for line in content if line][:SNIFF_LINES]
    if not content:
        return False
    if _title(grammar, content[0]) is not None:
        return True
    for layout in grammar.layouts:
        if layout.suffixes and suffix not in layout.suffixes:
            continue
        if _stamped(layout, content[0]) and (
            len(content) == 1 or _stamped(layout, content[1]) or layout.message.match(content[0]) is not None
        ):
            return True
    return False


class Reader:
    """One file's messages under a grammar, from its lines. ``head()`` reads up to the first message line
    (raising InputError when the file is not of the format); ``messages()`` goes on from there."""

    def __init__(
        self, grammar: Grammar, lines: Iterator[str], tz: tzinfo, path: Path | str, where: str | None
    ) -> None:
        self.grammar, self.lines, self.path, self.where = grammar, lines, path, where
        self.clock = Clock(tz)
        self.number = 0
        # Where a reading from a mark starts (``go_on``), and where this reading ends (``messages``).
        self.resuming = False
        self.day: tuple[int, int, int] | None = None
        self.day_first: bool | None = None
        self.state: str | None = None

    def _place(self, number: int) -> str:
        return f"{self.where}, line {number}" if self.where else f"line {number}"

    def _next(self) -> str | None:
        line = next(self.lines, None)
        if line is not None:
            self.number += 1
        return line

    def head(self, suffix: str = "") -> Head:
        """The title, and the layout of the first message line. Day lines before it are read again by
        ``messages()``: a day line alone does not tell the layouts apart (KakaoTalk's 2014 app wrote the
        same day lines as its later ones)."""
        grammar = self.grammar
        layouts = [layout for layout in grammar.layouts if not layout.suffixes or suffix in layout.suffixes]
        title: tuple[str, str] | None = None
        seen_content = 0
        days: list[str] = []
        while (line := self._next()) is not None:
            text = _content(line)
            if not text:
                if days:
                    days.append(line)
                continue
            seen_content += 1
            if seen_content == 1 and (title := _title(grammar, text)) is not None:
                continue
            if seen_content == 2 and title is not None and grammar.saved and grammar.saved.match(text):
                continue
            stripped = line.lstrip(MARKS)
            found = next((layout for layout in layouts if _message_line(layout, stripped)), None)
            if found is not None:
                self.number -= len(days)
                self.lines = itertools.chain(days, [line], self.lines)
                name, kind = title if title else (None, "chat")
                return Head(name, kind, found)
            on_day = [layout for layout in layouts if _day_line(layout, stripped)]
            if not on_day:
                raise InputError(
                    self.path,
                    f"not {grammar.what}: expected a line like {grammar.example!r}",
                    self._place(self.number),
                )
            layouts = on_day
            days.append(line)
        if days:
            raise InputError(self.path, f"has day lines but no messages; not {grammar.what}", self.where)
        raise InputError(self.path, f"has no messages; not {grammar.what}", self.where)

    def messages(self, layout: Layout) -> Iterator[Message]:
        """The messages from the first message line on. A day line is held until the next line says what it
        is: before a message, a new day; before a line of text, text of the message before (a person can
        write a line that looks like a date)."""
        grammar = self.grammar
        message, days, system = layout.message, layout.days, layout.system
        # Each distinct time, date and sender is read once (messages of one minute, one day, one person).
        times: dict[str, tuple[timedelta, str] | None] = {}
        date_groups = tuple(g for g in _DATE_GROUPS if g in message.groupindex)
        written_dates: dict[tuple[str | None, ...], tuple[int, int, int] | None] = {}
        date_texts: dict[tuple[int, int, int], str] = {}
        senders: dict[str, str | None] = {}
        day = self.day
        day_first = self.day_first  # the order of a/b dates, once a date tells it
        resuming = self.resuming  # the message before the first line is a mark's, read already
        held_day: tuple[int, int, int] | None = None
        held: list[str] = []  # the held day line and the blank lines after it
        clock = self.clock
        # The message being read, kept in locals (a million messages make an object each costly): its time
        # (None before the first), local time text, sender, first line as written and as text, further lines.
        when: datetime | None = None
        local = ""
        sender: str | None = None
        first_raw = first_text = ""
        more: list[str] | None = None

        cut = False  # whether the message holds a line cut (``Cut``): its text is then held in a file
        further = 0  # the characters of ``more`` not gathered into a ``Cut`` (``gather``), newlines counted
        first = self.number + 1
        number = first - 1
        for number, line in enumerate(self.lines, first):
            stripped = line.lstrip(MARKS) if line[:1] in MARKS else line
            # Message lines first: they are most lines, and no layout's message line is also a day line.
            m = message.match(stripped)
            # A line cut is read by its head: the start of a message whose text runs on past it, or a line of
            # text. One whose head cannot tell (a message line whose text ends in it, blanks) is read whole.
            line_cut = isinstance(line, Cut)
            if line_cut and not (m.end("text") == len(stripped) if m is not None else _content(line)):
                assert isinstance(line, Cut)
                line = line.whole()
                stripped = line.lstrip(MARKS) if line[:1] in MARKS else line
                m = message.match(stripped)
                line_cut = False
            date = None
            time: tuple[timedelta, str] | None = None
            if m is not None:
                time_text = m["time"]
                time = times.get(time_text, _UNSEEN)
                if time is _UNSEEN:
                    time = times[time_text] = _time_of(m)
                date = held_day or day
                if date_groups:
                    written = m.group(*date_groups) if len(date_groups) > 1 else (m[date_groups[0]],)
                    if written[0] is not None:
                        date = written_dates.get(written, _UNSEEN)
                        if date is _UNSEEN:
                            date = written_dates[written] = read_date(m, day_first)
            if time is not None and date is not None:
                assert m is not None
                if when is not None:
                    yield _message(grammar, when, local, sender, first_raw, first_text, more, cut)
                cut = line_cut
                if held_day is not None:
                    day, held_day = held_day, None
                    held.clear()
                date_text = date_texts.get(date)
                if date_text is None:
                    date_text = date_texts[date] = f"{date[0]:04d}-{date[1]:02d}-{date[2]:02d} "
                name = m["sender"]
                sender = None
                if name:
                    sender = senders.get(name, _UNSEEN)
                    if sender is _UNSEEN:
                        sender = senders[name] = name.strip().strip(MARKS) or None
                when = clock.at(date, time[0])
                local = date_text + time[1]
                first_raw, first_text, more, further = line, m["text"], None, 0
            elif m is None and days and (found := _day_of(days, stripped, day_first)) is not None:
                new_day, told = found
                if told is not None:
                    day_first = told
                if held_day is not None and when is not None:
                    more = (more or []) + held  # a day line before a day line: the first was text
                elif held_day is not None and resuming:
                    raise NotResumable  # text of the message before the mark
                held_day = new_day
                held[:] = [line]
            elif held_day is not None and not _content(line):
                held.append(line)
            elif when is not None and system is not None and system.fullmatch(stripped):
                yield _message(grammar, when, local, sender, first_raw, first_text, more, cut)
                cut = line_cut
                held_day = None
                held.clear()
                sender, first_raw, first_text, more, further = None, line, stripped, None, 0
            elif when is not None:
                cut = cut or line_cut
                if more is None:
                    more = []
                if held_day is not None:
                    more += held
                    held_day = None
                    held.clear()
                more.append(line)
                further += len(line) + 1
                if further > SPILL:  # a message of many lines (a pasted log): held as one long line is
                    more, further = gather(more)
                    cut = True
            elif _content(line):
                if resuming:
                    raise NotResumable  # a line that goes on with the message before the mark
                self.number = number
                raise InputError(
                    self.path,
                    f"expected a date or message line like {grammar.example!r}",
                    self._place(number),
                )
        if when is not None:
            yield _message(grammar, when, local, sender, first_raw, first_text, more, cut)
        if held_day is None:  # a day line at the end is dropped, or is text of the last message later
            self.state = json.dumps(
                {"day": day, "day_first": day_first, "previous": clock.previous.isoformat(), "line": number}
            )

    def go_on(self, state: str, lines: Iterator[str]) -> None:
        """Read ``lines``, the file from a mark on, as the rest of the file whose reading left ``state``."""
        known = json.loads(state)
        self.lines = lines
        self.number = known["line"]
        day = known["day"]
        self.day = (day[0], day[1], day[2]) if day else None
        self.day_first = known["day_first"]
        self.clock.previous = datetime.fromisoformat(known["previous"])
        self.resuming = True


_UNSEEN: Any = object()
# The groups that write a date, in a fixed order: a message line's written date, as a cache key.
_DATE_GROUPS = ("y", "mo", "mon", "d", "a", "b", "be", "dow")


def _time_of(m: re.Match[str]) -> tuple[timedelta, str] | None:
    seconds = read_time(m)
    if seconds is None:
        return None
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}" + (f":{seconds % 60:02d}" if m["s"] else "")
    return timedelta(seconds=seconds), text


def _day_of(
    days: tuple[re.Pattern[str], ...], line: str, day_first: bool | None
) -> tuple[tuple[int, int, int], bool | None] | None:
    """The date of a day line, and the date order it tells (``told_order``)."""
    for day in days:
        m = day.fullmatch(line)
        if m is not None and (date := read_date(m, day_first)) is not None:
            return date, told_order(m) if day_first is None else None
    return None


def _message(
    grammar: Grammar,
    when: datetime,
    local: str,
    sender: str | None,
    first_raw: str,
    first_text: str,
    more: list[str] | None,
    cut: bool = False,
) -> Message:
    """A message from its first line (as written, and its text) and its further lines (both). ``cut``: some
    of them are lines cut (``Cut``), and the text is held in a file where it can be (``_held``)."""
    if more:
        while more and is_blank(more[-1]):  # the blank lines before a day line
            if isinstance(dropped := more.pop(), Cut):
                dropped.spool.file.close()
    held = _held(grammar, first_raw, first_text, more) if cut else None
    text: str | HeldText
    if held is not None:
        text, raw, first = held
    else:
        if cut:
            first_raw, first_text, more = _read_whole(first_raw, first_text, more)
        if more:
            text, raw = "\n".join([first_text, *more]), "\n".join([first_raw, *more])
            if grammar.quoted and text.startswith('"') and text.endswith('"'):
                text = text[1:-1]
        else:
            text, raw = first_text, first_raw
        if grammar.trim:
            text = text.strip()
            first = text.partition("\n")[0]
        else:
            first = first_text
    kind = Kind.SYSTEM if sender is None else grammar.kind_of(first)
    # Positional: a named tuple's keyword construction costs twice as much, once per message.
    # (timestamp, sender, text, kind, source_id, sender_id, local_time, thread, reply_to, edited, raw, own)
    return Message(when, sender, text, kind, None, None, local, None, None, False, raw, sender in grammar.own)


def _held(
    grammar: Grammar, first_raw: str, first_text: str, more: list[str] | None
) -> tuple[HeldText, str, str] | None:
    """The text of a message that holds a line cut (``Cut``) joined into a file (``HeldText``), its record
    holding ``HELD`` in the text's place, and its first line as ``_message`` reads its kind; None where its
    record holds a marker ``raw.cut`` reads, or the quotes or white space taken off its ends reach past what
    is held in memory."""
    parts: list[str | Spool] = [first_text]  # the text, joined: what is in memory and what is in files
    if isinstance(first_raw, Cut):
        parts += [first_raw.spool, first_raw.tail]
    for line in more or ():
        parts += ["\n", str(line), line.spool, line.tail] if isinstance(line, Cut) else ["\n", line]
    spooled = [i for i, part in enumerate(parts) if isinstance(part, Spool)]
    if not spooled:  # its lines gathered were blank lines before a day line, not its own
        return None
    lead = "".join(str(part) for part in parts[: spooled[0]])
    trail = "".join(str(part) for part in parts[spooled[-1] + 1 :])
    head = str(first_raw)
    prefix = head[: len(head) - len(first_text)]
    ends = ["", ""]  # what the text leaves of the record before and after it: quotes, white space
    if grammar.quoted and more and lead.startswith('"') and trail.endswith('"'):
        lead, trail, ends = lead[1:], trail[:-1], ['"', '"']
    if grammar.trim:
        kept_lead, kept_trail = lead.lstrip(), trail.rstrip()
        ends = [ends[0] + lead[: len(lead) - len(kept_lead)], trail[len(kept_trail) :] + ends[1]]
        lead, trail = kept_lead, kept_trail
    in_memory = [prefix, *ends, *(part for part in parts if isinstance(part, str))]
    if (
        not head.endswith(first_text)
        or not lead
        or not trail
        or any(UNHELD.search(part) for part in in_memory)
        or any(part.holds(UNHELD_BYTES) for part in parts if isinstance(part, Spool))
    ):
        return None
    first = lead.partition("\n")[0] if grammar.trim else first_text
    return (
        held_between(lead, parts[spooled[0] : spooled[-1] + 1], trail),
        f"{prefix}{ends[0]}{HELD}{ends[1]}",
        first,
    )


def held_between(lead: str, parts: list[str | Spool], trail: str, keep: bool = False) -> HeldText:
    """``lead``, ``parts`` and ``trail`` joined, as a text held in a file: ``lead`` in memory, the rest
    written to a spool of its own (the files of the spools among ``parts`` go, unless ``keep``)."""
    spool = Spool()
    for part in parts:
        if isinstance(part, Spool):
            spool.add(part, keep)
        else:
            spool.write(part)
    return spool.held(lead, trail)


def held_lines(lines: list[str], skips: Sequence[int] = (), keep: bool = False) -> HeldText:
    """``lines`` joined by newlines, each but its first ``skips[i]`` characters (a prefix), as a text held
    in a file, where some are ``Cut``: the lines before the first cut one's spool in memory, the rest written
    to a spool of their own (the cut ones' files go, unless ``keep``: another text is held from them)."""
    parts: list[str | Spool] = []
    for i, line in enumerate(lines):
        if i:
            parts.append("\n")
        skip = skips[i] if skips else 0
        parts += [line[skip:], line.spool, line.tail] if isinstance(line, Cut) else [line[skip:]]
    spooled = [i for i, part in enumerate(parts) if isinstance(part, Spool)]
    lead = "".join(str(part) for part in parts[: spooled[0]])
    trail = "".join(str(part) for part in parts[spooled[-1] + 1 :])
    return held_between(lead, parts[spooled[0] : spooled[-1] + 1], trail, keep)


def gather(more: list[str]) -> tuple[list[str], int]:
    """A message's further lines, more than ``SPILL`` characters of them, as a ``Cut`` of those up to the last
    that is not blank (the first continued, where it is one), then the blank ones after it, as they were or as
    a blank ``Cut`` where they are longer than ``SPILL`` too: they are the message's only if a line with
    content follows. Returns the lines and the characters of those left as they were."""
    last = next((i for i in range(len(more) - 1, -1, -1) if not is_blank(more[i])), -1)
    kept = [gathered(more[: last + 1], blank=False)] if last >= 0 else []
    blanks = more[last + 1 :]
    size = sum(len(line) + 1 for line in blanks if not isinstance(line, Cut))
    if size > SPILL:
        blanks, size = [gathered(blanks, blank=True)], 0
    return kept + blanks, size


def gathered(lines: list[str], blank: bool = False) -> Cut:
    """``lines`` joined by newlines as one ``Cut``, its middle in a file; the first line's own, where it is
    one (its head is already held, and its spool is written on). A reader of records of several lines (a
    KakaoTalk CSV's quoted message) gathers a record longer than ``SPILL`` so."""
    first = lines[0]
    joined = _LongLine(cut=first) if isinstance(first, Cut) else _LongLine(first)
    for line in lines[1:]:
        joined.add("\n")
        if isinstance(line, Cut):
            joined.add_cut(line)
        else:
            joined.add(line)
    cut = joined.line()
    if not isinstance(cut, Cut):  # shorter than SPILL: the blank lines after them were most of the rest
        joined._spill()
        cut = joined.line()
    assert isinstance(cut, Cut)
    cut.blank = blank
    return cut


def is_blank(line: str) -> bool:
    """Whether a further line of a message is blank: blank lines before a day line are not the message's."""
    return line.blank if isinstance(line, Cut) else not line.strip()


# What the record of a message held in part must not hold (``_held``): the markers ``raw.cut`` reads,
# and ``HELD``, which it holds in the text's place.
UNHELD = re.compile("[\x00-\x04]")
UNHELD_BYTES = re.compile(UNHELD.pattern.encode())


def _read_whole(first_raw: str, first_text: str, more: list[str] | None) -> tuple[str, str, list[str] | None]:
    """A message's first line as written and as text, and its further lines, its lines cut read whole."""
    if isinstance(first_raw, Cut):
        rest = first_raw.spool.read() + first_raw.tail
        first_raw, first_text = str(first_raw) + rest, first_text + rest
    return (
        first_raw,
        first_text,
        [line.whole() if isinstance(line, Cut) else line for line in more or ()] or more,
    )


def read_log(
    grammar: Grammar,
    lines: Iterator[str],
    tz: tzinfo,
    path: Path,
    where: str | None,
    chat: Callable[[Head], Chat],
) -> ChatExport:
    """One chat export from a log's lines: the head is read (and checked) now, the messages as consumed."""
    reader = Reader(grammar, lines, tz, path, where)
    head = reader.head(path.suffix.lower())
    return ChatExport(chat=chat(head), messages=reader.messages(head.layout))


class LineFilter(Protocol):
    """Rewrites a log's lines on their way to the reader (KakaoTalk's frames around a day line). ``settled``:
    whether the lines so far leave nothing that the next line could change (a line held, or one whose
    meaning depends on the line after it), so that a reading can go on from there with a fresh filter."""

    settled: bool

    def __call__(self, lines: Iterator[str]) -> Iterator[str]: ...


def read_file_log(
    grammar: Grammar,
    path: Path,
    tz: tzinfo,
    chat: Callable[[Head], Chat],
    after: Mark | None = None,
    rewrite: Callable[[], LineFilter] | None = None,
    member: str | None = None,
) -> ChatExport:
    """``read_log`` of a loose file, or of a zip's text ``member``, whose ``end`` is where a later reading of
    it, grown, can go on from (a loose file's bytes are checked by the import ledger, a member's by the hash
    its mark holds: ``member_from``). ``after``: such a mark; the head is read again (the title names the
    chat), then the lines from the mark on, up to the first message after it now, so that NotResumable comes
    before any message. ``rewrite``: makes the filter each run of lines passes through."""
    if after is not None and bool(after.digest) != (member is not None):
        raise NotResumable  # a zip's mark read in a loose file, or the reverse
    where = None if member is None else f"entry {member!r}"
    last: LineFilter | None = None  # the filter of the latest run of lines

    def lines(chunks: Counted, line: int = 0) -> Iterator[str]:
        nonlocal last
        read = iter_lines(chunks, path, where, line=line, held=True)
        if rewrite is None:
            return read
        last = rewrite()
        return last(read)

    def counted(offset: int = 0, digest: str = "") -> Counted:
        if member is None:
            return Counted(container.iter_file_chunks(path, offset), offset)
        ends = Counted((), offset)
        ends.chunks = member_from(path, member, offset, digest, ends)
        return ends

    read = counted()
    reader = Reader(grammar, lines(read), tz, path, where)
    head = reader.head(path.suffix.lower())
    messages: Iterable[Message]
    if after is None:
        messages = reader.messages(head.layout)
    else:
        read = counted(after.offset, after.digest)
        reader.go_on(after.state, lines(read, json.loads(after.state)["line"]))
        following = reader.messages(head.layout)
        first = next(following, None)
        messages = following if first is None else itertools.chain([first], following)

    def end() -> Mark | None:
        if reader.state is None or not read.whole_lines or (last is not None and not last.settled):
            return None
        return Mark(read.size, reader.state, read.digest)

    return ChatExport(chat=chat(head), messages=messages, end=end)


class Digested(Protocol):
    """Where a zip's text's hash is told once it has streamed to its end (``member_from``)."""

    digest: str


def member_from(path: Path, member: str, offset: int, digest: str, told: Digested) -> Iterator[bytes]:
    """A zip's chat text from byte ``offset`` on, hashed as it streams (a mark of a zip's text carries the
    hash of the bytes before it): NotResumable before any byte when those before ``offset`` do not hash to
    ``digest``. Once it runs out, the hash of all its bytes is ``told``."""
    import hashlib

    h = hashlib.sha256()
    skip = offset
    with container.open_zip(path) as zf:
        for chunk in container.iter_member_chunks(zf, member, path):
            if skip:
                h.update(chunk[:skip])
                if len(chunk) < skip:
                    skip -= len(chunk)
                    continue
                chunk, skip = chunk[skip:], 0
                if h.hexdigest() != digest:
                    raise NotResumable
            h.update(chunk)
            yield chunk
    if skip:
        raise NotResumable  # the text is shorter than the mark
    told.digest = h.hexdigest()


def file_lines(path: Path) -> Iterator[str]:
    return iter_lines(container.iter_file_chunks(path), path)


class Counted:
    """A file's chunks as they pass: how many bytes, and whether they end a UTF-8 line (a mark is only
    ever set there, so the bytes after it start a line of their own)."""

    def __init__(self, chunks: Iterable[bytes], start: int = 0) -> None:
        self.chunks = chunks
        self.digest = ""  # a zip's text's hash, once it ran out (``member_from``)
        self.size = start
        self.utf8 = True
        self.last = b"\n" if start else b""  # a mark is at the end of a line

    def __iter__(self) -> Iterator[bytes]:
        chunks = self.chunks if self.size else container.telling(self.chunks, self._told)
        for chunk in chunks:
            self.size += len(chunk)
            self.last = chunk[-1:] or self.last
            yield chunk

    def _told(self, encoding: container.Encoding) -> None:
        self.utf8 = encoding.codec == "utf-8"

    @property
    def whole_lines(self) -> bool:
        return self.last == b"\n" and self.utf8
