"""SMS Backup & Restore XML: Android's usual backup of text messages (FORMATS.md §4c). Signal Android's old
plaintext backup (``SignalPlaintextBackup.xml``) is written in the same layout, so it is read here too: Signal
was then the phone's SMS app, and its backup holds the phone's SMS beside Signal's own messages.

The root ``<smses count=…>`` holds ``<sms address date type body contact_name …/>`` rows and ``<mms date
msg_box address …>`` rows with ``<parts><part ct text data/></parts>`` and ``<addrs><addr address
type/></addrs>``. Messages of every conversation come interleaved (all SMS first, then all MMS), so a chat
is the set of addresses a message went to or came from (a group's are ``~``-joined), and its messages are
gathered before it is handed on: in a file (``timespool``), each one's time and place in memory.

Backups run to hundreds of MB (an MMS carries its photos as base64), so the file is never built into a
tree: expat (what ``ElementTree.iterparse`` runs on) calls back for the elements that matter, and a part's
``data`` is measured, never stored. The file is hostile until shown otherwise: a DTD (the door to
entity expansion and external entities) is refused, as the app never writes one.

Two traps of real files are repaired on the way into the parser: emoji written as two character references
to UTF-16 surrogates (``&#55357;&#56832;``), which XML forbids, are joined into one; a reference to a
character XML cannot hold (a lone surrogate, a control character) becomes U+FFFD.

A backup made again later holds the earlier one's rows with the new ones among them: new SMS after the old
SMS, before the old MMS, and new MMS after those, under a root whose ``count`` and ``backup_date`` changed. Its
reading leaves a mark (``Mark.each``: the file's, for all its threads) holding each part's bytes as a length
and a hash, the SMS rows' and the MMS rows', and each thread's state after them: a later backup whose parts
begin with those bytes is read without parsing them (``_Reader.route``), and its threads take up that state.
Positions and hashes are of the bytes the parser reads (UTF-8, references repaired), not the file's.

A body of megabytes (a pasted log, a hostile file) is never held: where a start tag runs past ``_LONG_TAG``
bytes, an SMS row's ``body`` value is cut out of the bytes the parser reads, checked to be written as the
app writes it (``records.sms_written``, a form of the archive's cut of a record) and read into the time spool
as it comes; the message's text is given held in its file (``HeldText``), its record holding the body as
``sms_written(HELD)`` writes it. A body written otherwise is handed to the parser as it was. A backup read so
leaves no mark: the parser's positions are no longer the file's.
"""

from __future__ import annotations

import codecs
import contextlib
import gc
import json
import re
import warnings
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from functools import partial
from pathlib import Path
from typing import Any
from xml.parsers import expat

import xxhash

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import fields, timespool
from refind_cli.importers.container import iter_file_chunks, member_of, named_head, utf8_chunks
from refind_cli.importers.timespool import TimeSpool
from refind_cli.records import (
    HELD,
    LONG_TEXT,
    Chat,
    ChatExport,
    Kind,
    Mark,
    Message,
    NotResumable,
    sms_written,
)

FORMAT = "sms"

_SNIFF_BYTES = 4096
# The root element, after the XML declaration, the app's comment and a stylesheet instruction.
# A DTD for <smses> is claimed too, so that it is refused as such rather than as an unknown format.
_SNIFF = re.compile(rb"\A\s*(?:<[?!][^>]*>\s*)*(?:<smses[\s>/]|<!DOCTYPE\s+smses\b)")
_OWN = "Me"
# What the app writes where a field has no value.
_NULL = frozenset({"", "null"})
_UNKNOWN = frozenset({"", "null", "(Unknown)"})
# sms ``type``: 1 received; 2 sent, 3 draft, 4 outbox, 5 failed, 6 queued are the phone's own.
_RECEIVED_SMS = frozenset({"1"})
# mms ``msg_box``: 1 inbox; 2 sent, 3 drafts, 4 outbox are the phone's own.
_RECEIVED_MMS = frozenset({"1"})
# addr ``type``: PduHeaders FROM (137), TO (151), CC (130), BCC (129).
_FROM = "137"
# What the phone writes for its own number in an MMS it sent.
_OWN_TOKEN = "insert-address-token"
# Part types that are the message's layout, not its content.
_LAYOUT = frozenset({"application/smil"})
_TEXT_TYPES = frozenset({"text/plain"})
_PHONE_PUNCT = re.compile(r"[\s\-().]")
# What comes before the first row: the declarations, a comment, the root's tag.
_PROLOG_BYTES = 16 << 20
# The bytes ``bytes.rstrip`` strips: the ASCII white space that ``str.rstrip`` strips too.
_ASCII_SPACE = frozenset(b" \t\n\r\x0b\x0c")
# A part's file, base64 in the backup: never kept, its length said in its place.
_BASE64 = re.compile(rb'(\sdata=)(["\'])([^"\']*)\2')


def _not_kept(m: re.Match[bytes]) -> bytes:
    return b'%s"(%d characters of base64, not kept)"' % (m.group(1), len(m.group(3)))


# Character references XML forbids but the app writes: UTF-16 surrogates (and the ordinary characters whose
# numbers look alike) and C0 control characters other than tab, line feed and carriage return.
_BAD_REF = re.compile(rb"&#(5[5-7]\d{3});|&#(?:[0-8]|1[1-24-9]|2\d|3[01]);")
_HIGH = range(0xD800, 0xDC00)
_LOW = range(0xDC00, 0xE000)
_REPLACEMENT = b"&#65533;"
# A chunk's tail from an "&" this close to its end may be a reference cut in two: it waits for the next chunk.
_CARRY = 24
# A row's start tag, and an MMS row's: where a grown backup's parts are found before they are parsed.
_ROW = re.compile(rb"<[sm]ms[\s/>]")
_MMS = re.compile(rb"<mms[\s/>]")
# A start tag that runs this many bytes past its "<" is looked at before the parser reads on: an SMS row's body
# open there is cut out and held (``_Reader.pieces``).
_LONG_TAG = timespool.LONG
# An SMS row's start tag up to its body's value.
_BODY_OPEN = re.compile(rb'<sms(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|\'[^\']*\'))*\s+body\s*=\s*"')
# How a held body is written in its record: the form the archive's cut finds it by, and ``HELD`` so. The
# record must not hold ``HELD`` as the JSON forms before it write it: the cut would take that form.
_WRITE = sms_written
_HELD_WRITTEN = _WRITE(HELD)
_JSON_HELD = "\\u0000"
# The references ``_WRITE`` writes, read back (any other is left as written, and the body then differs from
# what ``_WRITE`` writes of it); the characters a parser does not read back as ``_WRITE`` writes them (tab
# and CR, which it reads as a space; those XML forbids).
_REFERENCE = re.compile(r"&(amp|lt|gt|quot|#\d{1,7});")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "#39": "'", "#10": "\n"}
_UNREAD = re.compile("[\x00-\x09\x0b-\x1f\ud800-\udfff\ufffe\uffff]")
# What ``_WRITE`` never writes as it is: a value holding one is not its writing.
_UNWRITTEN = re.compile("[<>'\x00-\x1f\ud800-\udfff\ufffe\uffff\U00010000-\U0010ffff]")
# The longest reference ``_WRITE`` writes (``&#1114111;``), and then some: one cut by a piece's end waits.
_LONGEST_REFERENCE = 12
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    head = named_head(path, path.name, _SNIFF_BYTES)
    return _SNIFF.match(head) is not None


# --- repair ------------------------------------------------------------------------------------------


def _repair(data: bytes) -> bytes:
    """``data`` with each pair of surrogate references joined into one, and each reference XML forbids
    replaced by U+FFFD."""
    out = []
    pos = 0
    matches = list(_BAD_REF.finditer(data))
    i = 0
    while i < len(matches):
        m = matches[i]
        out.append(data[pos : m.start()])
        number = m.group(1)
        code = -1 if number is None else int(number)  # -1: a control character
        low = matches[i + 1] if i + 1 < len(matches) else None
        if code in _HIGH and low and low.start() == m.end() and low.group(1) and int(low.group(1)) in _LOW:
            out.append(b"&#%d;" % (0x10000 + ((code - 0xD800) << 10) + (int(low.group(1)) - 0xDC00)))
            m = low
            i += 1
        elif code < 0 or code in _HIGH or code in _LOW:
            out.append(_REPLACEMENT)
        else:  # 55000-55295 and 57344-57999 are ordinary characters
            out.append(m.group())
        pos = m.end()
        i += 1
    out.append(data[pos:])
    return b"".join(out)


def _is_high(ref: bytes) -> bool:
    """Whether ``ref`` is a whole reference to a high surrogate (``&#55357;``)."""
    return ref[:2] == b"&#" and ref[-1:] == b";" and ref[2:-1].isdigit() and int(ref[2:-1]) in _HIGH


def repaired(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """The file's bytes with the character references XML forbids made readable (see the module's notes).
    A reference cut by a chunk boundary is held back until it is whole."""
    carry = b""
    for chunk in chunks:
        data = carry + chunk
        cut = data.rfind(b"&", max(0, len(data) - _CARRY))
        if cut >= 0:
            # The reference just before may be the high half of a pair, which waits for its low half.
            if _is_high(data[max(0, cut - 8) : cut]):
                cut -= 8
            data, carry = data[:cut], data[cut:]
        else:
            carry = b""
        yield _repair(data) if b"&#" in data else data
    if carry:
        yield _repair(carry)


# --- long bodies -------------------------------------------------------------------------------------


def _character(m: re.Match[str]) -> str:
    name = m.group(1)
    named = _NAMED.get(name)
    if named is not None:
        return named
    code = int(name[1:]) if name[0] == "#" else -1
    return chr(code) if 0x10000 <= code <= 0x10FFFF else m.group()


def _read_back(written: bytes | bytearray) -> tuple[str, int] | None:
    """The text of a piece of a body's value, where the piece is exactly what ``_WRITE`` writes of it (so a
    parser reads it as that text), and the characters written; None where it is not."""
    try:
        value = written.decode()
    except UnicodeDecodeError:  # the parser names it
        return None
    if _UNWRITTEN.search(value):  # told at once, where writing the text to compare costs a call an emoji
        return None
    text = _REFERENCE.sub(_character, value) if "&" in value else value
    return None if _UNREAD.search(text) or _WRITE(text) != value else (text, len(value))


def _settled(data: bytearray) -> int:
    """Where the bytes of ``data`` that can be read now end: before a reference or a UTF-8 character its end
    cuts in two, which waits for the bytes after it."""
    end = len(data)
    amp = data.rfind(b"&", max(0, end - _LONGEST_REFERENCE))
    if amp >= 0 and data.find(b";", amp) < 0:
        end = amp
    for back in range(1, min(4, end) + 1):
        byte = data[end - back]
        if byte < 0x80:
            break
        if byte >= 0xC0:  # a character's first byte: 2, 3 or 4 bytes
            if (2 if byte < 0xE0 else 3 if byte < 0xF0 else 4) > back:
                end -= back
            break
    return end


# --- reading -----------------------------------------------------------------------------------------


def read(
    path: Path, *, tz: tzinfo, after: Mark | None = None, spool: TimeSpool | None = None
) -> Iterator[ChatExport]:
    """One chat per set of addresses, in the order the file first names them; each chat's messages in time
    order. The times are the phone's epoch milliseconds, so ``tz`` changes nothing. ``after``: the mark an
    earlier reading of a loose backup of this name left; its rows are passed over where this file holds them
    as they were, and the threads' messages after them are read (NotResumable where it cannot: the file is
    then read whole, which also names any fault in it where it lies). The messages are held in ``spool``
    until the file ends (a thread is complete only then)."""
    earlier = _Earlier.of(after) if after is not None else None
    if after is not None and (earlier is None or member_of(path) is not None):
        raise NotResumable
    reader = _Reader(path, earlier, spool or TimeSpool())
    try:
        yield from _read(reader, path, earlier)
    except BaseException:  # an error, or the reading dropped: its file goes now, not when it is collected
        reader.spool.close()
        raise


def _read(reader: _Reader, path: Path, earlier: _Earlier | None) -> Iterator[ChatExport]:
    # The rows make a dict or more each, and the cycle collector would walk the heap they pass through again
    # and again. The reading makes one cycle (the parser and its handlers), collected once the collector runs
    # again.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with contextlib.closing(iter_file_chunks(path)) as chunks:
            stream = repaired(utf8_chunks(chunks, partial(InputError, path)))
            reader.feed(stream if earlier is None else reader.route(stream, earlier))
    except InputError:
        if earlier is None:
            raise
        raise NotResumable from None
    finally:
        if collecting:
            gc.enable()
    spool = reader.spool
    for thread in reader.threads.values():
        # A message no later than the thread's latest before the mark would sort among the messages
        # passed over, and could share their times: only a whole reading places it and counts it right.
        if thread.passed and spool.count(thread.group) and spool.span(thread.group)[0] <= thread.latest:
            raise NotResumable
    reader.counted()
    mark = reader.mark()
    for thread in reader.threads.values():
        yield ChatExport(thread.chat(), _messages(spool, thread.group), lambda: mark, passed=thread.passed)
    reader.gaps.warn()


def _messages(spool: TimeSpool, group: int) -> Iterator[Message]:
    """A thread's messages in time order, from the records ``_Reader`` spooled: its time in microseconds,
    then the message's other fields."""
    epoch, us = _EPOCH, _US
    for record in spool.given(group):
        if type(record[2]) is tuple:  # a body held in the spool's file: (where, bytes, characters)
            yield Message(epoch + us * record[0], record[1], spool.held(*record[2]), *record[3:])
        else:
            yield Message(epoch + us * record[0], *record[1:])


def _us(when: datetime) -> int:
    return (when - _EPOCH) // _US


@dataclass(frozen=True, slots=True)
class _Earlier:
    """What a mark holds of the backup read before: its SMS rows' and MMS rows' bytes (a length and a hash
    each), the rows they hold, and each thread in the order it was first met: its addresses, its names after
    the SMS rows (None where it had none then) and after all of them, its messages and the latest time."""

    sms: tuple[int, str]
    mms: tuple[int, str]
    rows: int
    threads: tuple[tuple[list[str], dict[str, str] | None, dict[str, str], int, int], ...]

    @classmethod
    def of(cls, mark: Mark) -> _Earlier | None:
        try:
            state = json.loads(mark.state)
            sms, mms = state["sms"], state["mms"]
            threads = tuple((a, n0, n1, int(n), int(t)) for a, n0, n1, n, t in state["threads"])
            return cls((int(sms[0]), str(sms[1])), (int(mms[0]), str(mms[1])), int(state["rows"]), threads)
        except (ValueError, KeyError, TypeError):
            return None


class _Thread:
    __slots__ = ("addresses", "group", "key", "latest", "names", "passed")

    def __init__(self, key: str, addresses: list[str], group: int) -> None:
        self.key = key
        self.addresses = addresses
        self.names: dict[str, str] = {}
        self.group = group  # its messages' in the spool
        self.passed = 0  # its messages in the rows passed over (``after``)
        self.latest = 0  # the latest of their times, in microseconds

    def chat(self) -> Chat:
        shown = [self.names.get(a, a) for a in self.addresses]
        raw = json.dumps({"addresses": self.addresses, "names": shown}, ensure_ascii=False)
        kind = "group" if len(self.addresses) > 1 else "direct"
        return Chat(FORMAT, self.key, ", ".join(shown) or "(no address)", kind, raw)


class _Reader:
    """expat's callbacks over one backup: rows become messages, gathered by thread.

    Only start tags are listened to outside an MMS: an ``<sms>`` row is an empty element, and a million rows
    made an end callback each cost a quarter of the reading. A row ends where the next one starts (or the root
    ends); whether the root was closed is expat's to say when the input ends."""

    def __init__(self, path: Path, earlier: _Earlier | None, spool: TimeSpool) -> None:
        self.path = path
        self.spool = spool
        self.gaps = fields.Gaps(path)  # what the app always writes and a row lacks
        self.threads: dict[str, _Thread] = {}
        self.earlier = earlier
        self.seen: dict[tuple[str, str | None], tuple[_Thread, dict[str, str], str | None]] = {}
        self.rows = earlier.rows if earlier is not None else 0
        self.root = False  # <smses> was read
        self.long_first = False  # the first row's tag runs past _PROLOG_BYTES
        self.count: str | None = None
        self.mms: tuple[dict[str, str], list[dict[str, Any]], list[dict[str, str]]] | None = None
        self.mms_depth = 0  # elements open inside the current <mms>, itself included
        # A row's raw record is its XML as written, from its start tag to the next row's: the bytes since the
        # current row began are kept (``buf`` starts at byte ``base`` of the stream), and a row is made a
        # message once the next one starts.
        self.buf = bytearray()
        self.base = 0
        self.row_start: int | None = None
        # The bodies cut out of the bytes the parser reads (``pieces``), in order: where each was cut in those
        # bytes, and where it lies in the spool's file, its bytes and its characters.
        self.cuts: list[tuple[int, int, int, int]] = []
        # And where the parser counted each one's start (its line and column) and its characters as written:
        # the parser counts the columns after it on that line as many fewer (``error``).
        self.moved: list[tuple[int, int, int]] = []
        self.pending: (
            tuple[dict[str, str], list[dict[str, Any]], list[dict[str, str]]] | dict[str, str] | None
        )
        self.pending = None
        # What a mark is made of. Where the rows begin, and where the MMS rows' part begins (the first MMS
        # row's start; or where the earlier backup's MMS rows were passed over), in the bytes the parser reads;
        # each part's bytes hashed once they are whole rows; the threads' names where the SMS part ended.
        self.first_row: int | None = None
        self.split: int | None = None
        self.hashes = (xxhash.xxh3_128(), xxhash.xxh3_128())
        self.lengths = [0, 0]
        self.split_names: dict[str, dict[str, str]] | None = None
        self.start = 0  # where the rows begin in the file's bytes as the parser would read them all
        # The app's layout: rows side by side in the root, SMS before MMS. Else no mark: parts found by their
        # bytes would not be where the parser's rows are.
        self.flat = True
        if earlier is not None:
            for addresses, before, _, passed, latest in earlier.threads:
                thread = self._thread(addresses, before) if before is not None else None
                if thread is not None:
                    thread.passed, thread.latest = passed, latest
        parser = expat.ParserCreate("UTF-8")  # what ``utf8_chunks`` hands it, whatever the declaration says
        parser.buffer_text = True
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartDoctypeDeclHandler = self._doctype
        parser.EntityDeclHandler = self._entity
        parser.ExternalEntityRefHandler = self._external
        parser.StartElementHandler = self._start
        self.parser = parser

    def error(self, what: str) -> InputError:
        p = self.parser
        line, column = p.CurrentLineNumber, p.CurrentColumnNumber
        column += sum(written for at, start, written in self.moved if at == line and start <= column)
        return InputError(self.path, what, f"line {line}, column {column + 1}")

    def feed(self, chunks: Iterator[bytes]) -> None:
        parse = self.parser.Parse
        buf = self.buf
        try:
            for chunk in self.pieces(chunks):
                buf += chunk
                parse(chunk, False)
                if self.row_start is not None:
                    self._hash(self.row_start)
                    del buf[: self.row_start - self.base]
                    self.base = self.row_start
                elif len(buf) > _PROLOG_BYTES and not self.long_first:
                    # expat may not have reached the first row's tag: kept. It calls back at a start tag's end,
                    # so a first row whose tag (its body) runs past these bytes is read on, as a later one is.
                    if _ROW.search(buf) is None:
                        raise self.error(f"no message in the first {_PROLOG_BYTES >> 20} MB; not a backup")
                    self.long_first = True
        except expat.ExpatError as exc:
            raise self.error(f"invalid XML ({expat.ErrorString(exc.code)})") from None
        try:
            parse(b"", True)
        except expat.ExpatError:
            raise self._truncated() from None
        end = buf.rfind(b"</smses")
        self._row_ends(self.base + (end if end >= 0 else len(buf)))
        self.flat = self.flat and end >= 0
        self._hash(self.base + max(end, 0))
        if self.split_names is None:
            self._sms_part_ends()
        # The last row's bytes, and the parser's buffer (which grew to the longest tag: a long body's row):
        # the messages are given from the spool, and nothing asks the parser where it is any more.
        self.buf = bytearray()
        del self.parser

    def pieces(self, chunks: Iterator[bytes]) -> Iterator[bytes | bytearray | memoryview]:
        """The bytes the parser reads: ``chunks`` less each long SMS body's value (``_body``). The bytes from
        a chunk's last "<" on wait for the next "<", or until they are ``_LONG_TAG`` long: a long tag is then
        looked at before the parser reads it."""
        since = bytearray()  # from the last "<" on, not handed on yet
        passing = False  # in a long tag that is not a body's: handed on as it comes, up to the next "<"
        back: bytes | bytearray | None = None  # what a body's reading left of the bytes it took
        while True:
            chunk: bytes | bytearray | None = back if back is not None else next(chunks, None)
            back = None
            if chunk is None:
                break
            first = chunk.find(b"<")
            before = chunk if first < 0 else chunk[:first]  # the tag ``since`` holds goes on there
            if passing:
                yield before
            else:
                since += before
                if len(since) > _LONG_TAG:
                    at = self._body_at(since)
                    if at is None:
                        passing = True
                        yield since
                    else:
                        head, data = since[:at], since[at:]
                        yield head
                        if first >= 0:
                            data += memoryview(chunk)[first:]
                        back, passing = yield from self._body(data, chunks, self._after(head))
                    since = bytearray()
                    if at is not None:
                        continue
            if first < 0:
                continue
            passing = False
            if since:
                yield since
                since = bytearray()
            last = chunk.rfind(b"<")
            with memoryview(chunk) as view:
                yield view[first:last]
                since += view[last:]
        if since:
            yield since

    def _body_at(self, tag: bytearray) -> int | None:
        """Where the value of ``tag``'s body begins, where ``tag`` is the start of an SMS row's tag (in the
        root, not in an MMS) that holds one; else None."""
        if not self.root or self.mms_depth:
            return None
        m = _BODY_OPEN.match(tag)
        return None if m is None else m.end()

    def _after(self, head: bytearray) -> tuple[int, int]:
        """Where the parser counts the end of ``head``, a start tag's first bytes it just read: its line, and
        its column in characters as written."""
        text, p = head.decode(), self.parser
        lines = text.count("\n")
        if lines:
            return p.CurrentLineNumber + lines, len(text) - text.rfind("\n") - 1
        return p.CurrentLineNumber, p.CurrentColumnNumber + len(text)  # the parser is at the tag's "<"

    def _body(
        self, data: bytearray, chunks: Iterator[bytes], where: tuple[int, int]
    ) -> Generator[bytes, None, tuple[bytes | bytearray, bool]]:
        """A body's value read into the spool, from ``data`` and the chunks after it, up to its closing quote,
        each piece checked to be as ``_WRITE`` writes its text (``_read_back``): the bytes from the quote on are
        returned, and the cut is noted for the row's end (``cuts``) and for the parser's columns after it
        (``moved``; ``where`` it begins). A piece written otherwise (or the file's end inside the value): the
        value read so far is handed to the parser as it was (written again from its text, which is those
        bytes), and the bytes from the piece on are returned, with True."""
        self.flat = False  # the parser's positions are no longer the file's
        position = self.base + len(self.buf)  # the bytes handed to the parser so far
        spool = self.spool
        at = size = chars = written = 0
        while True:
            quote = data.find(b'"')
            end = quote if quote >= 0 else _settled(data)
            read = _read_back(data[:end])
            if read is None:
                yield from self._written_again(at, size)
                return data, True
            text, length = read
            written += length
            if text:
                encoded = text.encode()
                put = spool.put(encoded)
                at = put if not size else at  # pieces put one after another lie one after another
                size += len(encoded)
                chars += len(text)
            if quote >= 0:
                self.cuts.append((position, at, size, chars))
                self.moved.append((*where, written))
                return data[quote:], False
            chunk = next(chunks, None)
            if chunk is None:
                yield from self._written_again(at, size)
                return data[end:], True
            data = data[end:]
            data += chunk

    def _written_again(self, at: int, size: int) -> Iterator[bytes]:
        """The value of a body read into the spool (``size`` bytes at ``at``) as the file wrote it."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        for start in range(at, at + size, _LONG_TAG):
            yield _WRITE(decoder.decode(self.spool.read(start, min(_LONG_TAG, at + size - start)))).encode()

    def counted(self) -> None:
        """Says where the root's count differs from the rows read."""
        if self.count is not None and self.count.isdigit() and int(self.count) != self.rows:
            warnings.warn(
                InputWarning(
                    self.path,
                    f'the backup says count="{self.count}" but holds {self.rows} messages; all of them were read',
                ),
                stacklevel=3,
            )

    def route(self, stream: Iterator[bytes], earlier: _Earlier) -> Iterator[bytes]:
        """The bytes of a backup grown from the earlier one that the parser is to read: the earlier rows, the
        SMS part's and the MMS part's, are hashed where they lie in it (the first row on; the first MMS row
        after them on) and passed over; NotResumable where they differ."""
        rest = _Rest(stream)
        self.start = yield from rest.until(_ROW)
        # The rows' bytes begin there: the new rows are hashed on from it, with the space before each.
        self.first_row = rest.fed
        for part, (length, digest) in enumerate((earlier.sms, earlier.mms)):
            if part:
                if not length:  # the earlier backup held no MMS: all the rest is new
                    break
                yield from rest.until(_MMS)
                self.split = rest.fed
            for piece in rest.take(length):
                self.hashes[part].update(piece)
                self.lengths[part] += len(piece)
            if self.lengths[part] != length or self.hashes[part].hexdigest() != digest:
                raise NotResumable
        yield from rest.rest()

    def _hash(self, stop: int) -> None:
        """The bytes before ``stop`` (a row's start, or the rows' end) and after the ones hashed, into their
        part's hash: whole rows (and the space after them)."""
        if self.first_row is None:
            return
        start, split = max(self.base, self.first_row), self.split
        if split is None or split >= stop:
            parts = [(0, start, stop)]
        elif split <= start:
            parts = [(1, start, stop)]
        else:
            parts = [(0, start, split), (1, split, stop)]
        for part, lo, hi in parts:
            if hi > lo:
                self.hashes[part].update(self.buf[lo - self.base : hi - self.base])
                self.lengths[part] += hi - lo

    def _sms_part_ends(self) -> None:
        """The SMS rows read (and, in a grown backup, the earlier MMS rows passed over): the threads' names
        then, and the threads those MMS rows held, with their names after them."""
        self.split_names = {key: dict(thread.names) for key, thread in self.threads.items()}
        if self.earlier is not None:
            for addresses, _, after, passed, latest in self.earlier.threads:
                thread = self._thread(addresses, after)
                thread.passed, thread.latest = passed, latest

    def mark(self) -> Mark | None:
        """Where a later backup, grown from this one, can be read on from; None where this one's rows are not
        laid out as the app lays them, or there are none."""
        if not self.flat or (self.first_row is None and self.earlier is None):
            return None
        count, span = self.spool.count, self.spool.span
        threads = [
            [
                thread.addresses,
                (self.split_names or {}).get(key),
                thread.names,
                thread.passed + count(thread.group),
                span(thread.group)[1] if count(thread.group) else thread.latest,
            ]
            for key, thread in self.threads.items()
        ]
        sms, mms = [(n, h.hexdigest()) for n, h in zip(self.lengths, self.hashes, strict=True)]
        state = json.dumps(
            {"sms": sms, "mms": mms, "rows": self.rows, "threads": threads}, ensure_ascii=False
        )
        start = self.start if self.earlier is not None else self.first_row or 0
        return Mark(start + sms[0], state, sms[1] + mms[1], each=True)

    def _truncated(self) -> InputError:
        if not self.root:
            return self.error("no <smses> element; not an SMS Backup & Restore file")
        return self.error(
            f"the file ends inside <smses>, after {self.rows - (self.mms is not None)} complete messages: the "
            "backup was cut short (make it again, or import a complete copy)"
        )

    # Every declaration reaches expat through a DTD, so refusing DTDs refuses entity expansion and external
    # entities both; the other two handlers are a second lock.
    def _doctype(self, *_: Any) -> None:
        raise self.error("a DTD (<!DOCTYPE>); refusing XML that can declare entities (the app writes none)")

    def _entity(self, *_: Any) -> None:
        raise self.error("an entity declaration; refusing XML that declares entities")

    def _external(self, *_: Any) -> int:
        raise self.error("an external entity; refusing XML that reads other files")

    def _start(self, name: str, attrs: dict[str, str]) -> None:
        if self.mms_depth:
            self.mms_depth += 1
            mms = self.mms
            if mms is not None:
                if name == "part":
                    mms[1].append(attrs)
                elif name == "addr":
                    mms[2].append(attrs)
        elif name == "sms" or name == "mms":
            if not self.root:
                raise self.error(f"the root is <{name}>, not <smses>; not an SMS Backup & Restore file")
            index = self.parser.CurrentByteIndex
            if self.pending is not None:
                self._row_ends(index)
            if self.first_row is None:
                self.first_row = index
            if name == "mms" and self.split is None:
                self.split = index
            if self.split is not None and index >= self.split:
                self.flat = self.flat and name == "mms"
                if self.split_names is None:
                    self._sms_part_ends()
            self.row_start = index
            self.rows += 1
            if name == "sms":
                self.pending = attrs
            else:
                self.mms = (attrs, [], [])
                self.mms_depth = 1
                self.parser.EndElementHandler = self._end_in_mms
        elif not self.root:
            if name != "smses":
                raise self.error(f"the root is <{name}>, not <smses>; not an SMS Backup & Restore file")
            self.root = True
            self.count = attrs.get("count")
        else:  # anything else belongs to the row before it, and stays in that row's raw record
            self.flat = False

    def _end_in_mms(self, name: str) -> None:
        self.mms_depth -= 1
        if not self.mms_depth:
            self.pending = self.mms
            self.mms = None
            self.parser.EndElementHandler = None

    def _row_ends(self, end: int) -> None:
        """The row before byte ``end`` is whole: made a message, its raw the XML up to there."""
        pending = self.pending
        if pending is None or self.row_start is None:
            return
        base, buf = self.base, self.buf
        start, stop = self.row_start - base, end - base
        if isinstance(pending, dict) and self.cuts and self.cuts[0][0] < end:
            self._held_row(pending, start, stop, self.cuts.pop(0))
        elif isinstance(pending, dict):
            # An SMS row is one empty element: one with content, or a row inside it, is not the app's layout.
            if stop - start <= timespool.LONG:  # the usual row: its copies cost less than avoiding them
                row = buf[start:stop]
                self.flat = self.flat and row.count(b"<") == 1 and row.rstrip().endswith(b"/>")
                raw = row.decode().rstrip()
            else:
                # A long body's row: its text made once from the kept bytes, the ASCII white space at its end
                # left out first, where a slice, its decoding and their stripping were three copies of it
                # (bench/RESULTS.md, issue 24 item 4, session 17).
                while stop > start and buf[stop - 1] in _ASCII_SPACE:
                    stop -= 1
                self.flat = (
                    self.flat and buf.count(b"<", start, stop) == 1 and buf.endswith(b"/>", start, stop)
                )
                with memoryview(buf) as view:
                    raw = str(view[start:stop], "utf-8")
                if raw and raw[-1].isspace():  # white space beyond ASCII, as ``str.rstrip`` strips it
                    raw = raw.rstrip()
            self._sms(pending, raw)
        else:
            row = buf[start:stop]
            # Most MMS rows carry no file: the pattern is run only on those that may.
            self._mms(*pending, (_BASE64.sub(_not_kept, row) if b"data=" in row else row).decode().rstrip())
        self.pending = None

    def _held_row(self, attrs: dict[str, str], start: int, stop: int, cut: tuple[int, int, int, int]) -> None:
        """An SMS row whose body was cut out (``_body``): its text held in the spool's file where it is the
        body alone and longer than ``LONG_TEXT``, its record the row with ``HELD`` written in the body's place;
        else read back and made the message as the row was written."""
        position, at, size, chars = cut
        cut_at = position - self.base
        head, tail = self.buf[start:cut_at].decode(), self.buf[cut_at:stop].decode().rstrip()
        if chars > LONG_TEXT and attrs.get("subject", "null") in _NULL and _JSON_HELD not in head + tail:
            self._sms(attrs, f"{head}{_HELD_WRITTEN}{tail}", (at, size, chars))
            return
        body = self.spool.read(at, size).decode()
        attrs["body"] = body
        self._sms(attrs, f"{head}{_WRITE(body)}{tail}")

    def _thread_of(self, listed: str, contact: str | None) -> tuple[_Thread, dict[str, str], str | None]:
        """The thread of a row's ``address``, the names the row shows its members by, and the sender of an SMS
        received from it. Rows repeat the same pair, so each is worked out once."""
        found = self.seen.get((listed, contact))
        if found is None:
            addresses, names = _members(listed, contact)
            sender = names.get(_address(listed), listed) or None
            found = self.seen[(listed, contact)] = (self._thread(addresses, names), names, sender)
        return found

    def _thread(self, addresses: list[str], names: dict[str, str]) -> _Thread:
        key = "~".join(addresses)
        thread = self.threads.get(key)
        if thread is None:
            thread = self.threads[key] = _Thread(key, addresses, self.spool.group())
        for address, name in names.items():
            known = thread.names.get(address)
            # A contact name, once met, wins over the address as written.
            if known is None or (known != name and _address(known) == address != _address(name)):
                thread.names[address] = name
        return thread

    def _time(self, value: str) -> datetime:
        try:
            ms = int(value)
            # MMS rows of some app versions hold seconds, as Android's own MMS table does.
            return datetime.fromtimestamp(ms / 1000 if ms > 100_000_000_000 else ms, UTC)
        except (ValueError, OverflowError, OSError):
            raise self.error(f"unreadable date {value!r} (milliseconds since 1970 expected)") from None

    def _sms(self, attrs: dict[str, str], raw: str, held: tuple[int, int, int] | None = None) -> None:
        """``held``: where the body lies in the spool's file, its bytes and characters (``_held_row``)."""
        get = attrs.get
        address = get("address", "")
        contact = get("contact_name")
        if address in _NULL:
            # Rows with neither are told apart by nothing: said, as they share one chat.
            if contact is not None and contact not in _UNKNOWN:
                self.gaps.lack("text message", "address", "kept apart by contact name")
            else:
                self.gaps.lack("text message", "address or contact name", "one chat, '(no address)'")
        found = self.seen.get((address, contact)) or self._thread_of(address, contact)
        own = get("type") not in _RECEIVED_SMS
        text = get("body", "null")
        if text == "null":
            self.gaps.lack("text message", "body")
            text = ""
        subject = get("subject", "null")
        if subject not in _NULL:
            text = f"{subject}\n{text}" if text else subject
        try:
            when = datetime.fromtimestamp(int(get("date", "")) / 1000, UTC)
        except (ValueError, OverflowError, OSError):
            when = self._time(get("date", ""))  # says what is wrong
        # The message's fields, its time first, as ``_messages`` makes it again.
        us = _us(when)
        self.spool.add(
            found[0].group,
            us,
            (
                us,
                _OWN if own else found[2],
                text if held is None else held,  # a held body's row has no subject: its text is the body
                Kind.TEXT,
                None,
                None if own else address or None,
                None,
                None,
                None,
                False,
                raw,
                own,
            ),
            len(raw) > timespool.LONG,  # the raw record is as long as the text, or longer
        )

    def _mms(
        self, attrs: dict[str, str], parts: list[dict[str, Any]], addrs: list[dict[str, str]], raw: str
    ) -> None:
        own = attrs.get("msg_box") not in _RECEIVED_MMS
        listed = attrs.get("address", "")
        if listed in _NULL:  # older rows: the thread's members only in <addrs>
            listed = "~".join(
                a.get("address", "")
                for a in addrs
                if a.get("address", _OWN_TOKEN) != _OWN_TOKEN and not (own and a.get("type") == _FROM)
            )
        thread, names, _ = self._thread_of(listed, attrs.get("contact_name"))
        sender: str | None = _OWN
        sender_id = None
        if not own:
            sender_id = next((a.get("address") for a in addrs if a.get("type") == _FROM), None)
            sender_id = sender_id or (thread.addresses[0] if thread.addresses else None)
            sender = names.get(_address(sender_id), sender_id) if sender_id else None
        subject = attrs.get("sub", "")
        lines = [subject] if subject not in _NULL else []
        files = []
        for part in parts:
            ct = part.get("ct", "")
            if ct in _LAYOUT:
                continue
            text = part.get("text", "null")
            if ct in _TEXT_TYPES and "data" not in part:
                if text not in _NULL:
                    lines.append(text)
                elif text == "null":
                    self.gaps.lack("text part", "text")
                continue
            label = next((part[k] for k in ("cl", "name", "fn") if part.get(k, "null") not in _NULL), "")
            files.append(f"{label} ({ct})" if label else ct or "(attachment)")
        kind = Kind.ATTACHMENT if files else Kind.TEXT if lines else Kind.MEDIA
        us = _us(self._time(attrs.get("date", "")))
        text = "\n".join(lines + files)
        self.spool.add(
            thread.group,
            us,
            (us, sender, text, kind, None, sender_id, None, None, None, False, raw, own),
            len(raw) > timespool.LONG,
        )


class _Rest:
    """A stream of bytes handed on in pieces: up to a pattern, a length passed over, the rest. ``pos``: the
    stream's bytes handed on or passed over; ``fed``: those handed on."""

    def __init__(self, stream: Iterator[bytes]) -> None:
        self.stream = stream
        self.data = b""
        self.pos = self.fed = 0

    def until(self, pattern: re.Pattern[bytes]) -> Generator[bytes, None, int]:
        """The bytes before the pattern's first match (all where it has none); where it lies."""
        while (m := pattern.search(self.data)) is None:
            # The last bytes wait for the next chunk: a match may begin among them.
            yield from self._hand(max(0, len(self.data) - 8))
            chunk = next(self.stream, None)
            if chunk is None:
                yield from self._hand(len(self.data))
                return self.pos
            self.data += chunk
        yield from self._hand(m.start())
        return self.pos

    def _hand(self, n: int) -> Iterator[bytes]:
        if n:
            piece, self.data = self.data[:n], self.data[n:]
            self.pos += n
            self.fed += n
            yield piece

    def take(self, n: int) -> Iterator[bytes]:
        """The next ``n`` bytes (fewer where the stream ends), not handed on."""
        while n:
            if not self.data and (chunk := next(self.stream, None)) is not None:
                self.data = chunk
            if not self.data:
                return
            piece, self.data = self.data[:n], self.data[n:]
            self.pos += len(piece)
            n -= len(piece)
            yield piece

    def rest(self) -> Iterator[bytes]:
        yield from self._hand(len(self.data))
        for chunk in self.stream:
            self.pos += len(chunk)
            self.fed += len(chunk)
            yield chunk


def _address(value: str) -> str:
    return _PHONE_PUNCT.sub("", value)


def _members(listed: str, contact: str | None) -> tuple[list[str], dict[str, str]]:
    """A thread's members as its key (each address without its formatting, sorted, once) and the names the
    row shows them by: the contact name where there is one (``contact_name`` lists a group's names in the
    order of its addresses), else the address as written."""
    if listed in _NULL:  # a row without its address: told apart by the name it shows, where there is one
        if contact is None or contact in _UNKNOWN:
            return [], {}
        listed = contact
    written = listed.split("~")
    members = [_address(a) for a in written]
    names = dict(zip(members, written, strict=True))
    if contact is not None and contact not in _UNKNOWN:
        split = [contact] if len(members) == 1 else contact.split(", ")
        if len(split) == len(members):
            names.update((a, n) for a, n in zip(members, split, strict=True) if n not in _UNKNOWN)
    names.pop("", None)
    return sorted(names), names
