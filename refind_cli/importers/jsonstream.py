"""Streaming JSON for the exports that run to hundreds of MB (Telegram, ChatGPT/Claude, Discord).

Such a file is never loaded whole: ``ijson``'s low-level events (``basic_parse``) are read over the file's
byte chunks and built into one value at a time. Not ``ijson.items``: it builds a prefix string for every
nesting level of every event, so a deeply nested hostile file needs memory that grows with the square of
its depth; here nesting is counted instead, and refused past a format's cap. Every fault of the parser or of
the UTF-8 becomes the importer's one-line ``InputError`` with a place.

Each format reads under its own ``Rules``: the caps differ with what its real exports hold, and the
wording of a few errors with what its importer has always said.

A grown export is the earlier one with items added at the end of an array (a chat's messages). An array read
to its end leaves a ``Head``: a place between two of its items where the parser's read block ended, the
next item (a JSON object or array) beginning in a later block, so that the bytes before it hold the first
items whole and nothing of the next but a comma and white space. A file whose first bytes are the same (the
caller checks their hash) is read on from there by a fresh parser (``go_on``): the bytes before it are
never parsed again. An export whose first bytes change with every export (Discord's ``exportedAt``) is
checked from the array's opening on (``array_start``, ``Span``): where that lies in the new file is found
in its first bytes.

A file of many chats (a Telegram account export's dialogs, a ChatGPT or Claude ``conversations.json``)
changes in a few of them: ``Items``, the one byte scanner, tells where each item of its lists lies without
parsing it, and finds those whose bytes an earlier reading fingerprinted, so that the parser passes over them
(``JsonEvents.go_on`` from the item's end) or is never given them (``conversations.scan``).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from refind_cli.errors import InputError
from refind_cli.importers import container
from refind_cli.importers.container import (
    ErrorMaker,
    file_encoding,
    iter_file_chunks,
    read_file_part,
    utf8_chunks,
)

if TYPE_CHECKING:
    import mmap

_T = TypeVar("_T")
_STARTS = frozenset({"start_map", "start_array"})
_FIRST_READ = 4 << 10
_ENDS = frozenset({"end_map", "end_array"})
# What nesting is told by: a string (in which a brace is text), or a bracket; last, a quote whose string does
# not end before the bytes do (``close`` counts on from it a block at a time).
_TOKENS = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"|[{}\[\]]|"', re.S)
_OPENS_ARRAY = re.compile(rb"\s*:\s*\[")


@dataclass(frozen=True, slots=True)
class Head:
    """The file's first ``offset`` bytes hold the first ``items`` of an array whole, then at most a comma
    and white space: the next item begins after them."""

    offset: int
    items: int


def start_at(head: Head) -> str:
    """A head of a file's top-level list as one of the ``known`` a reading is given (``start_in``): an
    earlier file's bytes before it hold the first ``items`` of the list, whose chats an import took."""
    return f"@{head.offset}.{head.items}"


def start_in(known: Collection[str]) -> Head | None:
    """The head ``start_at`` put among ``known``, if any."""
    for entry in known:
        offset, _, items = entry.removeprefix("@").partition(".")
        if entry.startswith("@") and offset.isdigit() and items.isdigit():
            return Head(int(offset), int(items))
    return None


def array_start(head: bytes, key: str) -> int | None:
    """The offset just after the ``[`` that opens the array of ``key`` in the top-level object, where
    ``head`` (a file's first bytes, which the parser read as JSON) holds it; else None."""
    wanted = json.dumps(key).encode()
    depth = 0
    for token in _TOKENS.finditer(head):
        found = token.group()
        if found[:1] == b'"':
            # At the top level a string followed by a colon is a key; a value is followed by "," or "}".
            if depth == 1 and found == wanted and (opens := _OPENS_ARRAY.match(head, token.end())):
                return opens.end()
        else:
            depth += 1 if found in b"{[" else -1
    return None


def whole_error(chats: Iterable[Any]) -> InputError | None:
    """The error a whole reading meets first, if any: ``chats`` (a reader's ``ChatExport`` records) read
    through, every message."""
    try:
        for chat in chats:
            collections.deque(chat.messages, maxlen=0)
    except InputError as exc:
        return exc
    return None


def exact(
    items: Iterator[_T], moved: Callable[[], bool], whole: Callable[[], InputError | None]
) -> Iterator[_T]:
    """``items``, an error in them the one a whole reading meets first (``whole``, ``whole_error``) where the
    parser ``moved`` (went on after an item passed over, or from a head): it then reads in other blocks, and
    an error's place ("near byte") would differ."""
    try:
        yield from items
    except InputError as exc:
        raise ((whole() or exc) if moved() else exc) from None


class Span:
    """A loose file's bytes from ``start`` on, hashed as far as ``stop``: what an export whose first bytes
    change with every export is checked by, from an array's opening (``array_start``) to a ``Head`` of it.
    ``reach`` goes on hashing from where it stopped, so that a file is hashed once."""

    def __init__(self, path: Path, start: int, goal: int | None = None) -> None:
        import xxhash  # only resumable JSON exports pay for the hash

        self.path = path
        self.start = start
        self.stop = start
        self.goal = goal  # where ``feed`` stops (a ``records.Tap``)
        self._hash = xxhash.xxh3_128()

    def feed(self, at: int, chunk: bytes | memoryview) -> None:
        """The file's bytes from ``at`` on, as another pass over the file reads them: hashed where they carry
        the span on towards its goal."""
        if self.goal is not None and at <= self.stop < min(at + len(chunk), self.goal):
            take = chunk[self.stop - at : self.goal - at]
            self._hash.update(take)
            self.stop += len(take)

    def reach(self, stop: int) -> bool:
        """Hash on to byte ``stop``; False where the file ends before it."""
        if stop > self.stop:
            with contextlib.closing(iter_file_chunks(self.path, self.stop)) as chunks:
                for chunk in chunks:
                    take = chunk[: stop - self.stop]
                    self._hash.update(take)
                    self.stop += len(take)
                    if self.stop >= stop:
                        break
        return self.stop == stop

    def digest(self) -> str:
        return self._hash.hexdigest()

    def before(self, offset: int) -> bytes:
        """The bytes just before ``offset`` (``JsonEvents.go_on`` reads the last of them)."""
        return read_file_part(self.path, max(0, offset - 4096), min(4096, offset))  # a zip's member too

    def chunks(self, offset: int) -> Generator[bytes, None, None]:
        return iter_file_chunks(self.path, offset)


@dataclass(frozen=True, slots=True)
class Rules:
    """How one format's JSON is read, and how a few of its faults are worded.

    ``max_token`` refuses a single value longer than any real export holds, and caps how far a read block
    grows while one token spans blocks (``Stream.read``)."""

    block: int  # bytes the parser reads at a time
    max_token: int  # the longest single value, in bytes
    max_depth: int | None  # the deepest nesting of a built value; None: as deep as it comes
    export: str = "this file"  # what the overlong value's error says the cap is for: "a Discord export"
    utf8_fault: str | None = None  # what bad UTF-8 is called; None: "invalid JSON (<the codec's words>)"
    full_stop: bool = True  # whether the parser's words keep their closing "."
    # Rewrites the bytes on their way into the parser; never given a chunk that ends in an unpaired backslash.
    repair: Callable[[bytes], bytes] | None = None


class Stream:
    """A read-only binary file over byte chunks, for ijson: UTF-8 without a BOM, whatever the file's encoding
    (``container.utf8_chunks``), refuses an overlong value, applies ``rules.repair``. ``consumed`` counts the
    file's bytes taken so far, ``handed`` those passed on to the parser (give or take what a repair adds; in
    the file's bytes for UTF-8, a BOM included, in UTF-8's for a file transcoded from UTF-16 or 32).
    ``part``: the chunks are a part of a UTF-8 file from elsewhere than its start (``utf8_chunks``)."""

    def __init__(self, chunks: Iterator[bytes], error: ErrorMaker, rules: Rules, part: bool = False) -> None:
        self.error = error
        self.rules = rules
        self._chunks = utf8_chunks(self._counted(chunks), error, self._transcoding, part=part)
        self._since_quote = 0
        self._buf = b""
        self._pos = 0
        self._carry = b""  # held back: a backslash before its escape
        self.consumed = 0
        self.at_eof = False
        self.exact = True  # ``handed`` counts source bytes: no repair has changed a length
        self.reads = 0
        self.read_to = 0  # ``handed`` after the latest read
        self.cut_after = b""  # where a read block ends if it can (``Head``)
        # What must follow ``cut_after`` where a block is cut, if anything: the opening of an array's next
        # object, where an item's objects close inside it as often as it does (a Hangouts event's
        # ``chat_message`` before its ``event_id``), so that the last "}" of a block is seldom an item's.
        self.cut_before: re.Pattern[bytes] | None = None
        self.first_read = 0  # the first block's most bytes, where it is not the parser's (``go_on``)
        self._token = 0  # bytes handed since the last quote that opens or closes a string

    def _transcoding(self) -> None:
        self.exact = False  # ``handed`` counts UTF-8 bytes, not the UTF-16 or 32 file's: no resume point

    def _counted(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        for chunk in chunks:
            self.consumed += len(chunk)
            yield chunk

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        if self.first_read and size:  # not ijson's probe, read(0)
            size, self.first_read = min(size, self.first_read) if size > 0 else self.first_read, 0
        while self._pos >= len(self._buf):
            if self.at_eof or not self._refill():
                return b""
        if 0 < size < self._token:
            # yajl re-scans a token that spans its read blocks from the token's start on every block, so a
            # string of n bytes read in blocks of b costs n * n / b: a block as long as the token so far
            # (capped by the longest token the format takes) doubles it each time, and the cost stays linear.
            size = min(self._token, self.rules.max_token)
            self._gather(size)
        end = len(self._buf) if size < 0 else self._pos + size
        if self.cut_after and end < len(self._buf):
            # A block that ends just after an item's close leaves a ``Head`` there (the next item opens in
            # the next block): an item's last byte is a "}" more often than not where the window ends.
            cut = self._cut(self._pos + size // 2, end)
            end = end if cut < 0 else cut + 1
        out = self._buf[self._pos : end]
        self._pos += len(out)
        self.read_to = self.handed
        quote = _last_quote(out)
        self._token = self._token + len(out) if quote < 0 else len(out) - quote - 1
        return out

    def _cut(self, start: int, end: int) -> int:
        """Where in the held bytes from ``start`` to ``end`` a read block is best cut: the last
        ``cut_after`` there (followed by ``cut_before``, where set, among the last ``_CUTS_LOOKED_AT``),
        else -1."""
        last = cut = self._buf.rfind(self.cut_after, start, end)
        if self.cut_before is None:
            return cut
        for _ in range(_CUTS_LOOKED_AT):
            if cut < 0 or self.cut_before.match(self._buf, cut + 1):
                return cut
            cut = self._buf.rfind(self.cut_after, start, cut)
        return last

    def _gather(self, size: int) -> None:
        """Hold at least ``size`` bytes not yet handed, where the file has them."""
        while len(self._buf) - self._pos < size and not self.at_eof:
            rest = self._buf[self._pos :]
            self._refill()
            self._buf, self._pos = rest + self._buf, 0

    @property
    def handed(self) -> int:
        return self.consumed - len(self._carry) - (len(self._buf) - self._pos)

    def _refill(self) -> bool:
        chunk = next(self._chunks, None)
        if chunk is None:
            self.at_eof = True
            # What was held back goes to the parser as it is: a dangling backslash is the parser's to reject.
            self._buf, self._pos, self._carry = self._carry, 0, b""
            return bool(self._buf)
        last_quote = chunk.rfind(b'"')
        self._since_quote = self._since_quote + len(chunk) if last_quote < 0 else len(chunk) - last_quote - 1
        if self._since_quote > self.rules.max_token:
            raise self.error(
                f"a single JSON value runs past {self.rules.max_token >> 20} MB, refind's limit for one value"
                f" of {self.rules.export} (a message that long is not read)",
                f"byte {self.consumed}",
            )
        data = self._carry + chunk
        repair = self.rules.repair
        if repair is None:
            self._buf, self._pos, self._carry = data, 0, b""
            return True
        trailing = len(data) - len(data.rstrip(b"\\")) if data.endswith(b"\\") else 0
        if trailing % 2:  # an escape cut in two by the chunk boundary: repaired once it is whole
            data, self._carry = data[:-1], data[-1:]
        else:
            self._carry = b""
        self._buf, self._pos = repair(data), 0
        self.exact = self.exact and len(self._buf) == len(data)
        return True


# Places looked at for a cut followed by ``Stream.cut_before``, back from a block's end: past them, the block
# ends after the last ``cut_after`` (a head less likely there, never a wrong one).
_CUTS_LOOKED_AT = 256
# What follows the end of an object that is an item of an array of objects, another following it.
NEXT_OBJECT = re.compile(rb"[ \t\r\n]*+,[ \t\r\n]*+\{")

# Escaped quotes looked at before a block is taken for one inside a string: past them, a longer read block
# costs some memory, never a wrong parse.
_QUOTES_LOOKED_AT = 64


def _last_quote(block: bytes) -> int:
    """Where the last quote in ``block`` that is not escaped lies (one after an even run of backslashes),
    or -1."""
    quote = block.rfind(b'"')
    for _ in range(_QUOTES_LOOKED_AT):
        if quote < 0:
            return -1
        run = _run(block, quote)
        if run % 2 == 0:
            return quote
        quote = block.rfind(b'"', 0, quote - run)
    return -1


def _run(block: bytes, quote: int, carried: int = 0) -> int:
    """The backslashes just before ``quote`` (and the ``carried`` ones that ended the bytes before the block,
    if the run reaches its start): an odd run escapes the quote."""
    at = quote
    while at and block[at - 1] == 0x5C:  # a backslash
        at -= 1
    return quote - at + (carried if at == 0 else 0)


class JsonEvents:
    """ijson's basic parse events over a ``Stream``, read under its rules; errors are made by its ``error``,
    so that they name the file, or the zip entry, the caller reads."""

    def __init__(self, stream: Stream) -> None:
        import ijson  # only imports of JSON exports pay for the parser

        self.error = stream.error
        self._stream = stream
        self.rules = stream.rules
        self._max_depth = sys.maxsize if stream.rules.max_depth is None else stream.rules.max_depth
        self._faults: tuple[type[Exception], ...] = (ijson.JSONError, UnicodeDecodeError)
        self._events = self._parse(stream)

    def _parse(self, stream: Stream) -> Iterator[tuple[str, Any]]:
        import ijson

        return cast(
            Iterator[tuple[str, Any]], ijson.basic_parse(stream, use_float=True, buf_size=self.rules.block)
        )

    def next(self) -> tuple[str, Any]:
        try:
            return next(self._events)
        except self._faults as exc:
            raise self._fault(exc) from None
        except StopIteration:
            raise self.error("truncated JSON", f"byte {self._stream.consumed}") from None

    def finish(self) -> None:
        """Read on to the end, so that trailing garbage is rejected rather than ignored."""
        try:
            for _ in self._events:
                pass
        except self._faults as exc:
            raise self._fault(exc) from None

    def skip(self) -> None:
        """Skip the rest of a container whose opening event was just read."""
        depth = 1
        while depth:
            event, _ = self.next()
            if event in _STARTS:
                depth += 1
            elif event in _ENDS:
                depth -= 1

    def value(self, event: str, value: Any, where: str) -> Any:
        """The whole value whose first event was just read; ``where`` names it if it nests too deeply. Runs
        once per event of every message, so the loop is flat: one branch per event, no calls."""
        if event not in _STARTS:
            return value
        max_depth = self._max_depth
        root: Any = {} if event == "start_map" else []
        top, containers, keys = root, [root], [None]
        try:
            for event, value in self._events:
                if event == "map_key":
                    keys[-1] = value
                elif event == "start_map" or event == "start_array":
                    if len(containers) >= max_depth:
                        raise self.error(f"nested more than {max_depth} levels deep", where)
                    new: Any = {} if event == "start_map" else []
                    if type(top) is dict:
                        top[keys[-1]] = new
                    else:
                        top.append(new)
                    top = new
                    containers.append(new)
                    keys.append(None)
                elif event == "end_map" or event == "end_array":
                    containers.pop()
                    keys.pop()
                    if not containers:
                        return root
                    top = containers[-1]
                elif type(top) is dict:
                    top[keys[-1]] = value
                else:
                    top.append(value)
        except self._faults as exc:
            raise self._fault(exc) from None
        raise self.error("truncated JSON", f"byte {self._stream.consumed}")

    def array(self, where: str, passed: Ends | None = None) -> Iterator[tuple[Any, str]]:
        """The items of the array whose ``[`` was just read (``passed``: read on from a ``Head`` of it,
        ``go_on``), each with its place (``where[3]``). Once the array is read, ``head`` is its latest."""
        ends = passed or Ends(self._stream)
        index = ends.count
        while True:
            event, value = self.next()
            if event == "end_array":
                self.head = ends.head()
                return
            ends.begins(event)
            place = f"{where}[{index}]"
            yield self.value(event, value, place), place
            index += 1
            ends.ended(index)

    def members(self) -> Iterator[tuple[str, str, Any]]:
        """The members of the object whose ``{`` was just read, through its ``}``: each key, with the first
        event of its value and that event's value (a container is read on by the caller before the next
        member: ``value``, ``skip``, ``array`` or a walk of its own)."""
        while True:
            event, key = self.next()
            if event == "end_map":
                return
            event, value = self.next()
            yield key, event, value

    def go_on(
        self, head: Head, chunks: Iterator[bytes], before: bytes, keys: Sequence[str | None]
    ) -> Ends | None:
        """Read on from ``head`` with a fresh parser over ``chunks`` (the file from ``head.offset`` on), as
        if the bytes before had been read: the array is the value of ``keys`` in nested objects from the top
        (``[]``: the top level; None: an item of a list, ``["chats", "list", None, "messages"]``).
        ``before``: the bytes just before the head, which say whether its comma was read. For ``array`` to go
        on from; None where they do not end as a head's bytes do."""
        last = before.rstrip(b" \t\r\n")[-1:]
        if last not in (b",", b"}", b"]"):
            return None
        opening = b"".join(b"[0," if key is None else b"{" + json.dumps(key).encode() + b":" for key in keys)
        opening += b"[0" + last.strip(b"}]")
        stream = Stream(itertools.chain([opening], chunks), self.error, self.rules, part=True)
        stream.consumed = head.offset - len(opening)  # counts the file's bytes (the opening starts no BOM)
        stream.cut_after, stream.cut_before = self._stream.cut_after, self._stream.cut_before
        # The parser reads a block's events before handing on the first: a short first block, where what
        # follows the head may be passed over in turn (the next dialog read before: ``Items``).
        stream.first_read = _FIRST_READ
        self._stream = stream
        self._events = self._parse(stream)
        # Each object's start and key (a list's start and stand-in item), the array's start, its stand-in item.
        for _ in range(2 * len(keys) + 2):
            self.next()
        return Ends(stream, head.items)

    head: Head | None = None

    def dump(self, obj: Any, where: str | None) -> str:
        """A record's raw JSON as the archive keeps it."""
        try:
            return json.dumps(obj, ensure_ascii=False, sort_keys=True)
        except RecursionError:  # only where the rules set no depth cap
            raise self.error("nested too deeply", where) from None

    def _fault(self, exc: Exception) -> InputError:
        stream = self._stream
        if isinstance(exc, UnicodeDecodeError) and self.rules.utf8_fault:
            return self.error(self.rules.utf8_fault, f"near byte {stream.handed}")
        # yajl's message is several lines with a caret drawing; its first line says what went wrong. It can
        # come as the repr of bytes, with its line breaks written as "\\n".
        lines = str(exc).strip().removeprefix("b'").removeprefix('b"').replace("\\n", "\n").splitlines()
        detail = lines[0].strip() if lines else type(exc).__name__
        detail = detail if self.rules.full_stop else detail.rstrip(".")
        if stream.at_eof and "premature EOF" in detail:
            return self.error("truncated JSON: the data stops in the middle", f"byte {stream.consumed}")
        # The parser reads ahead a block at a time, so the fault lies in the block before this byte.
        return self.error(f"invalid JSON ({detail})", f"near byte {stream.handed}")


class Ends:
    """Where an array's items ended, for its ``Head``: the parser hands the events of a block on once it has
    read the block, so an item that ended while ``handed`` was H lies in the first H bytes; if the next item
    is an object or an array and begins in a later block, its opening is not in them either."""

    def __init__(self, stream: Stream, count: int = 0) -> None:
        self.stream = stream
        self.count = count
        self.latest: Head | None = None
        self._reads = -1  # the stream's reads when the latest item ended
        self._read_to = 0

    def ended(self, count: int) -> None:
        self.count = count
        self._reads = self.stream.reads
        self._read_to = self.stream.read_to

    def begins(self, event: str) -> None:
        """The next item's first event was read."""
        if self._reads >= 0 and self.stream.reads != self._reads and event in _STARTS:
            self.latest = Head(self._read_to, self.count)

    def head(self) -> Head | None:
        return self.latest if self.stream.exact else None


# The tokens of JSON text that ``Items`` walks at C speed: a string, a key, white space, a scalar; a value
# in brackets is passed over by ``close``.
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"')
_SCALAR = re.compile(rb"[^,\]}\s]*+")
_SPACE = re.compile(rb"[ \t\r\n]*+")
_KEY = re.compile(rb"[ \t\r\n]*+(" + _STRING.pattern + rb")[ \t\r\n]*+:[ \t\r\n]*+")
_OPEN = frozenset(b"{[")
# An item's fingerprint names it by this many of its first bytes (``Items.known``).
_OPENING = 256
# Read at a time by ``close``: most items are a few KB (a conversation, a message), some many MB (a dialog),
# so the block starts small and doubles.
_CLOSE_BLOCKS = (16 << 10, 1 << 20)


class _Unlike(Exception):
    """The bytes are not JSON as ``Items`` walks it: it tells no more places (the parser says what is wrong)."""


def close(buf: bytes | mmap.mmap, pos: int, depth: int) -> int:
    """The offset just after the outermost of the ``depth`` containers that ``pos`` (between two tokens)
    lies in closes: the quotes that are not escaped (backslash runs counted, across blocks too) and the
    brackets outside strings, found by numpy a block at a time (measured faster than a walk of the tokens by
    regular expressions on a ChatGPT and a Telegram export: bench/RESULTS.md, session 12). The first block
    is walked by a regular expression: most values close in it (a conversation, a message), and a re-import
    that reads a few of them after its head would spend more on importing numpy (0.1-0.3 s of CPU) than on
    the walk (bench/RESULTS.md, session 13)."""
    stop = min(len(buf), pos + _CLOSE_BLOCKS[0])
    for token in _TOKENS.finditer(buf, pos, stop):
        first = buf[token.start()]
        if first == 0x22:
            if token.end() - token.start() == 1:  # a string the block cuts: counted by blocks from its quote
                stop = token.start()
                break
            continue
        depth += 1 if first in _OPEN else -1
        if depth == 0:
            return token.end()
    pos = stop
    import numpy as np

    kinds = _bracket_kinds()
    in_string, slashes, size = 0, 0, _CLOSE_BLOCKS[0]
    while pos < len(buf):
        block = buf[pos : pos + size]
        a = np.frombuffer(block, np.uint8)
        quotes = np.flatnonzero(a == 0x22)
        if len(quotes):
            after_slash = np.flatnonzero(a[np.maximum(quotes - 1, 0)] == 0x5C).tolist()
            if quotes[0] == 0 and slashes:
                after_slash = [0, *after_slash]  # the backslashes that ended the block before
            escaped = [i for i in after_slash if _run(block, int(quotes[i]), slashes) % 2]
            if escaped:
                quotes = np.delete(quotes, escaped)
        marks = np.flatnonzero(kinds[a])
        outside = marks[((np.searchsorted(quotes, marks) + in_string) & 1) == 0]
        depths = depth + np.cumsum(kinds[a[outside]], dtype=np.int64)
        closed = np.flatnonzero(depths == 0)
        if len(closed):
            return pos + int(outside[closed[0]]) + 1
        depth = int(depths[-1]) if len(depths) else depth
        in_string = (in_string + len(quotes)) & 1
        trail = len(block) - len(block.rstrip(b"\\"))
        slashes = trail + slashes if trail == len(block) else trail
        pos += len(block)
        size = min(2 * size, _CLOSE_BLOCKS[1])
    raise _Unlike  # a container that does not close


@functools.cache
def _bracket_kinds() -> Any:
    """By byte: 1 for an opening bracket, -1 for a closing one, else 0."""
    import numpy as np

    kinds = np.zeros(256, np.int8)
    kinds[[ord("{"), ord("[")]] = 1
    kinds[[ord("}"), ord("]")]] = -1
    return kinds


# A short value in brackets, nested three deep at most (an entry's list of names, of ``{"html": ...}``, a
# small object of such), is matched by one regular expression within its first bytes, before ``close`` (a
# Python step a token; before its first block was walked so, numpy's block cost about a millisecond whatever
# the value's size: 30,000 such values 29 s of a 36 s Gemini re-import, bench/RESULTS.md, session 13).
def _nested(levels: int) -> bytes:
    inner = b""
    for _ in range(levels):
        inner = rb'[\[{](?:[^\[\]{}"]++|' + _STRING.pattern + (b"|" + inner if inner else b"") + rb")*+[\]}]"
    return inner


_SHORT = re.compile(_nested(3))
_SHORT_BYTES = 64 << 10


@functools.cache
def _with_member(key: bytes) -> re.Pattern[bytes]:
    """An object whose keys are written plain (no escape, so that no two spell one key), ``key`` once among
    them with a string value (its group), the other values strings, scalars or short values: what
    ``Items.member`` matches."""
    space = rb"[ \t\r\n]*+"
    value = rb'(?:[^,\]}\s"\[{]++|' + _STRING.pattern + b"|" + _nested(3) + b")"
    other = b'"(?!' + re.escape(key[1:]) + rb')[^"\\]*+"' + space + b":" + space + value
    return re.compile(
        rb"\{"
        + space
        + b"(?:"
        + other
        + space
        + b","
        + space
        + b")*+"
        + re.escape(key)
        + space
        + b":"
        + space
        + b"("
        + _STRING.pattern
        + b")(?:"
        + space
        + b","
        + space
        + other
        + b")*+"
        + space
        + rb"\}"
    )


def _value_end(buf: bytes | mmap.mmap, pos: int) -> int:
    """The offset just after the value that begins at ``pos``."""
    if pos >= len(buf):
        raise _Unlike
    if buf[pos] in _OPEN:
        short = _SHORT.match(buf, pos, pos + _SHORT_BYTES)
        return short.end() if short is not None else close(buf, pos + 1, 1)
    found = _STRING.match(buf, pos) if buf[pos] == 0x22 else _SCALAR.match(buf, pos)
    if found is None or found.end() == pos:
        raise _Unlike
    return found.end()


def _space(buf: bytes | mmap.mmap, pos: int) -> int:
    return _SPACE.match(buf, pos).end()  # type: ignore[union-attr]  # it matches the empty string


def _object(
    buf: bytes | mmap.mmap, pos: int, path: tuple[str, ...], paths: frozenset[tuple[str, ...]]
) -> Generator[int, int | None, int]:
    """The object whose ``{`` is just before ``pos``, walked as ``Items.walk`` says; returns its end."""
    pos = _space(buf, pos)
    if buf[pos : pos + 1] == b"}":
        return pos + 1
    while True:
        key = _KEY.match(buf, pos)
        if key is None:
            raise _Unlike
        try:
            inner = (*path, json.loads(key.group(1)))
        except ValueError:
            raise _Unlike from None
        pos = key.end()
        opens = buf[pos : pos + 1]
        if opens == b"[" and inner in paths:
            pos = yield from _items(buf, pos + 1)
        elif opens == b"{" and any(p[: len(inner)] == inner for p in paths):
            pos = yield from _object(buf, pos + 1, inner, paths)
        else:
            pos = _value_end(buf, pos)
        pos = _space(buf, pos)
        if buf[pos : pos + 1] == b"}":
            return pos + 1
        if buf[pos : pos + 1] != b",":
            raise _Unlike
        pos += 1


def _items(buf: bytes | mmap.mmap, pos: int) -> Generator[int, int | None, int]:
    """The array whose ``[`` is just before ``pos``: yields where each item begins, is sent where it ends
    (None: found here); returns the array's end."""
    pos = _space(buf, pos)
    if buf[pos : pos + 1] == b"]":
        return pos + 1
    return (yield from _items_from(buf, pos))


def _items_from(buf: bytes | mmap.mmap, pos: int) -> Generator[int, int | None, int]:
    """``_items`` from an item's start on."""
    while True:
        end = yield pos
        pos = _space(buf, _value_end(buf, pos) if end is None else end)
        if buf[pos : pos + 1] == b"]":
            return pos + 1
        if buf[pos : pos + 1] != b",":
            raise _Unlike
        pos = _space(buf, pos + 1)


def _members(buf: bytes | mmap.mmap, pos: int) -> tuple[int, dict[bytes, tuple[int, int]]]:
    """The end of the object that begins at ``pos``, and where each of its values lies, by its key as
    written (with its quotes)."""
    spans: dict[bytes, tuple[int, int]] = {}
    pos = _space(buf, pos + 1)
    if buf[pos : pos + 1] == b"}":
        return pos + 1, spans
    while True:
        key = _KEY.match(buf, pos)
        if key is None:
            raise _Unlike
        pos = _value_end(buf, key.end())
        spans[bytes(key.group(1))] = (key.end(), pos)
        pos = _space(buf, pos)
        if buf[pos : pos + 1] == b"}":
            return pos + 1, spans
        if buf[pos : pos + 1] != b",":
            raise _Unlike
        pos += 1


def _document(
    buf: bytes | mmap.mmap, paths: frozenset[tuple[str, ...]], start: Head | None
) -> Generator[int, int | None, int]:
    """The top-level value, walked as ``Items`` says; returns its end."""
    pos = _space(buf, 3 if buf[:3] == b"\xef\xbb\xbf" else 0)
    opens = buf[pos : pos + 1]
    if start is not None and () in paths:
        return (yield from _items_from(buf, start.offset))
    if opens == b"{":
        return (yield from _object(buf, pos + 1, (), paths))
    if opens == b"[" and () in paths:
        return (yield from _items(buf, pos + 1))
    raise _Unlike


@dataclass(frozen=True, slots=True)
class Known:
    """An item whose bytes an earlier reading fingerprinted: where it ends, its fingerprint, and what its
    reader kept of it besides (the fingerprint's ``tail``)."""

    end: int
    fingerprint: str
    tail: str


@dataclass(frozen=True, slots=True)
class Grown:
    """An item whose first bytes an earlier reading fingerprinted, up to a ``Head`` of its messages: the
    bytes after it are new (messages added at their end). ``tail``: that fingerprint's (its reader's, after
    the head's ``offset.items.hash``); ``context``: the hash of what else that reading depended on."""

    head: Head
    tail: str = ""
    context: str = ""


# How far the walk goes before the map's pages behind it are let go of (``Items._let_go``).
_LET_GO_BYTES = 32 << 20


def let_go(buf: bytes | mmap.mmap, dropped: int, start: int) -> int:
    """Drops a map's pages from ``dropped`` to ``start`` from this process once they are
    ``_LET_GO_BYTES`` (``container.let_go``: a walk from the file's start has passed them); where the pages
    are dropped to now."""
    if start - dropped < _LET_GO_BYTES or not hasattr(buf, "madvise"):
        return dropped
    return container.let_go(cast("mmap.mmap", buf), dropped, start)


class Items:
    """The items of the arrays at ``paths`` of a loose UTF-8 JSON file (keys from the top-level object:
    ``("chats", "list")``; ``()``: the top level is the array), in the order a parser meets them: where each
    begins and ends, found from the file's bytes without parsing them (``begin``, ``ended``); a
    fingerprint of an item's bytes (``fingerprint``); and an item whose bytes one of ``known``
    fingerprinted (``known``), found by its first bytes and checked by its hash. ``start``: the walk of a
    top-level array begins at that item (the bytes before it are an earlier file's, whose items an earlier
    reading took). Once the bytes are not JSON as it walks them, it tells nothing more (``whole`` stays
    False); nor does it tell anything of a file whose start tells another encoding than UTF-8 (UTF-8
    encoded twice, UTF-16: ``container.file_encoding``), whose items' bytes are not their text's.

    The parser reads every byte but those of the known items it passes over, which are the bytes of an item
    of an earlier file that was read whole as valid JSON: the places before each item are those a parser of
    the file would find. A reader that parses no byte between the items (``conversations.scan``) has the
    walk check them: it ends ``whole`` only where they are commas and white space."""

    def __init__(
        self,
        path: Path,
        paths: Sequence[Sequence[str]],
        known: Collection[str],
        start: Head | None = None,
    ) -> None:
        import mmap

        self.path = path
        self._file = path.open("rb")
        try:
            size = os.fstat(self._file.fileno()).st_size
            self._buf: bytes | mmap.mmap = (
                mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
            )
        except (OSError, ValueError):
            self._buf = b""
        self.whole = False
        self._dropped = 0  # the map's bytes before this are let go (``_let_go``)
        self._walk: Generator[int, int | None, int] | None = None
        if file_encoding(path).codec == "utf-8":
            self._walk = _document(self._buf, frozenset(map(tuple, paths)), start)
        self._started = False
        self._end: int | None = None
        # By the length of their first bytes, then those bytes' hash: the items' sizes, hashes, fingerprints,
        # tails (a head: the offset in the item, the messages before it, the bytes' hash) and contexts' hashes.
        self._known: dict[int, dict[str, dict[tuple[int, str], tuple[str, str, str]]]] = {}
        for fingerprint in known:
            parts = fingerprint.split(":")  # ``fingerprint``'s, and the context ``Walk`` adds
            if len(parts) >= 5 and parts[0].isdigit() and parts[2].isdigit():
                openings = self._known.setdefault(int(parts[0]), {})
                item = (":".join(parts[:5]), parts[4], ":".join(parts[5:]))
                openings.setdefault(parts[1], {})[(int(parts[2]), parts[3])] = item

    def begin(self) -> int | None:
        """Where the next item begins; None where that is not told."""
        if self._walk is None:
            return None
        try:
            start = self._walk.send(self._end) if self._started else next(self._walk)
        except StopIteration as stop:  # the top-level value's end
            self._walk = None
            self.whole = _space(self._buf, stop.value) == len(self._buf)
            return None
        except (_Unlike, IndexError):
            self._walk = None
            return None
        self._started, self._end = True, None
        self._let_go(start)
        return start

    def _let_go(self, start: int) -> None:
        self._dropped = let_go(self._buf, self._dropped, start)

    def members(self, start: int) -> tuple[int, dict[bytes, tuple[int, int]]] | None:
        """The end of the object that begins at ``start``, and where each of its values lies (by its key as
        written, quotes and all); None where its bytes are not such an object."""
        try:
            return _members(self._buf, start)
        except (_Unlike, IndexError):
            return None

    def member(self, start: int, key: bytes) -> tuple[int, tuple[int, int]] | None:
        """The end of the object that begins at ``start``, and where the string value of its member ``key``
        (as written, quotes and all, no escape in it) lies, where the object's bytes tell both at once (one
        regular expression: its keys written plain, ``key`` once, its values strings, scalars or short
        values). None where they do not (``members`` then tells)."""
        found = _with_member(key).match(self._buf, start, start + _SHORT_BYTES)
        return None if found is None else (found.end(), found.span(1))

    def read(self, start: int, end: int) -> bytes:
        if end - start <= _OPENING:  # a short value (a time, a name): from the map, as the walk reads it
            return bytes(self._buf[start:end])
        return read_file_part(self.path, start, end - start)

    def holds(self, start: int, end: int, needles: Sequence[bytes]) -> bool:
        """Whether the file's bytes from ``start`` to ``end`` hold any of ``needles``: read from the file, not
        the map (its pages would count as this process's memory)."""
        overlap = max(map(len, needles)) - 1
        at, carried = start, b""
        while at < end:
            chunk = carried + os.pread(self._file.fileno(), min(4 << 20, end - at), at)
            if len(chunk) == len(carried):
                return False
            if any(needle in chunk for needle in needles):
                return True
            at += len(chunk) - len(carried)
            carried = chunk[-overlap:] if overlap else b""
        return False

    def fetch(self, start: int, end: int) -> bytes:
        """The bytes from ``start`` to ``end`` read from the file, not the map: a reader that goes back to
        items the walk passed (in another order) would bring their pages back into its resident memory,
        where ``_let_go`` dropped them."""
        return os.pread(self._file.fileno(), end - start, start)

    def ended(self, end: int | None) -> None:
        """Where the item ``begin`` told of ends, where the caller knows it (else it is found from its bytes)."""
        self._end = end

    def end_of(self, start: int, inside: int | None = None, depth: int = 2) -> int | None:
        """Where the item that begins at ``start`` ends: found from ``inside`` on (a place between two items
        of its array of messages, ``Head``, ``depth`` containers deep in the item) where given."""
        try:
            return close(self._buf, inside, depth) if inside is not None else _value_end(self._buf, start)
        except (_Unlike, IndexError):
            return None

    def known(self, start: int) -> Known | Grown | None:
        """The item at ``start`` where its bytes are those of one ``known`` fingerprinted; else where its
        bytes up to a head of its messages are."""
        heads: list[tuple[str, str]] = []
        for length, openings in self._known.items():  # a length or two: _OPENING, and items shorter
            for (size, digest), (print_, head, context) in openings.get(
                self._hash(start, length, 64), {}
            ).items():
                if start + size <= len(self._buf) and self._hash(start, size, 128) == digest:
                    return Known(start + size, print_, print_.rsplit(":", 1)[1])
                heads.append((head, context))
        for head, context in heads:
            offset, items, digest = [*head.split("."), "", "", ""][:3]
            if offset.isdigit() and items.isdigit() and self._hash(start, int(offset), 128) == digest:
                return Grown(Head(start + int(offset), int(items)), head, context)
        return None

    def fingerprint(self, start: int, end: int, tail: str = "-") -> str:
        """The fingerprint of the item's bytes: its first bytes' hash (to be found by), its whole one, and
        ``tail``: what its reader keeps of it besides (no colon in it; ``head_tail``, a ``Grown``'s)."""
        opening = min(end - start, _OPENING)
        return (
            f"{opening}:{self._hash(start, opening, 64)}:{end - start}:{self._hash(start, end - start, 128)}"
            f":{tail}"
        )

    def head_tail(self, start: int, head: Head) -> str:
        """A fingerprint's tail that names a head of the item's messages, with the hash of the bytes before
        it (to go on from)."""
        return f"{head.offset - start}.{head.items}.{self._hash(start, head.offset - start, 128)}"

    def chunks(self, offset: int) -> Generator[bytes, None, None]:
        """The file's bytes from ``offset`` on: a short first read, where the parser may stop soon after."""
        size = 16 << 10
        while chunk := os.pread(self._file.fileno(), size, offset):
            offset, size = offset + len(chunk), 1 << 20
            yield chunk

    def before(self, offset: int) -> bytes:
        return bytes(self._buf[max(0, offset - 64) : offset])

    def _hash(self, start: int, size: int, bits: int) -> str:
        import xxhash

        h = xxhash.xxh3_64() if bits == 64 else xxhash.xxh3_128()
        if size <= _OPENING:
            h.update(self._buf[start : start + size])
            return h.hexdigest()
        # Read, not hashed from the map: the map's pages would count as this process's memory.
        self._file.seek(start)
        while size > 0:
            chunk = self._file.read(min(size, 1 << 22))
            if not chunk:
                break
            h.update(chunk)
            size -= len(chunk)
        return h.hexdigest()

    def close(self) -> None:
        if not isinstance(self._buf, bytes):
            self._buf.close()
        self._file.close()


class Walk:
    """A parser's way through the items that ``Items`` places (a Telegram dialog, a Skype conversation), each
    an object whose messages are its inner list: ``begin`` at an item's ``{``; its fingerprint, told at once
    where its bytes are known (``fingerprint``), else once its messages are read (``printed``); ``pass_over``
    it where they were not asked for; ``done`` at its ``}``. The fingerprint holds a ``context`` too: what
    else its reading depends on (the account, names learnt from other items)."""

    def __init__(self, events: JsonEvents, items: Items) -> None:
        self.events = events
        self.items = items
        self._chunks: Generator[bytes, None, None] | None = None
        self._start: int | None = None
        self._known: Known | None = None
        self._grown: Grown | None = None
        self._end: int | None = None
        self._context = ""
        self._keeps: Callable[[Head], bool] = lambda _head: False
        self._tail: Callable[[Head | None, str], str] | None = None
        self.passed = 0  # the item's messages before the head its reading went on from (``go_on``)
        # How deep in the item its messages' array lies: 2 for ``{"messages": [...]}``, 3 where an object
        # between holds it (Hangouts' ``{"conversation_state": {"event": [...]}}``); set by its reader.
        self.depth = 2

    def begin(self) -> None:
        self._start = self.items.begin()
        found = None if self._start is None else self.items.known(self._start)
        self._known = found if isinstance(found, Known) else None
        self._grown = found if isinstance(found, Grown) else None
        self._end = None if self._known is None else self._known.end
        self.passed = 0
        self.depth = 2
        self.events.head = None  # the head of this item's messages, once they are read

    def go_on(self, keys: Sequence[str | None], context: str | None = None) -> Ends | None:
        """Where the item grew since a head of its messages that an earlier reading left, read on from
        there (``JsonEvents.go_on``; ``keys`` lead to its messages); None where it did not. ``context``: what
        else the reading depends on (``fingerprint``'s), where the messages before the head depend on it: not
        read on where the earlier reading's was another."""
        if self._grown is None or (context is not None and self._grown.context != hashed(context)):
            return None
        head = self._grown.head
        self.close()
        self._chunks = self.items.chunks(head.offset)
        passed = self.events.go_on(head, self._chunks, self.items.before(head.offset), keys)
        if passed is not None:  # else the bytes before it are not as a head's: it was not left there
            self.passed = head.items
        return passed

    @property
    def start(self) -> int | None:
        """Where the item ``begin`` was told of begins; None where that is not told."""
        return self._start

    def span(self) -> tuple[int, int] | None:
        """Where the item begins and ends in the file (its end found from its bytes where no known
        fingerprint tells it); None where its place is not told."""
        if self._start is None:
            return None
        if self._end is None:  # found from the head it grew from, where there is one: a short way
            head = None if self._grown is None else self._grown.head.offset
            self._end = self.items.end_of(self._start, head, self.depth)
        return None if self._end is None else (self._start, self._end)

    def unread(self) -> tuple[int, int] | None:
        """The item's bytes that no earlier reading read as they are (all of them, or those after the head
        of its messages it grew from); None where its place is not told."""
        span = self.span()
        return (
            None if span is None else (span[0] if self._grown is None else self._grown.head.offset, span[1])
        )

    def fingerprint(self, context: str) -> str | None:
        self._context = context
        return None if self._known is None else self._with_context(self._known.fingerprint)

    def printed(
        self, keeps: Callable[[Head], bool], tail: Callable[[Head | None, str], str] | None = None
    ) -> Callable[[], str | None] | None:
        """``keeps``: whether a later reading may go on from a head of the item's messages (not where a
        message before it has no id: the identities of those after it would depend on it). ``tail``: what
        the fingerprint keeps, told once the messages are read, given the head kept (None: none) and the
        tail that names it ("-": none): what a reading that passes over the item, or goes on from the head,
        must know of it besides (``kept``)."""
        self._keeps = keeps
        self._tail = tail
        return None if self._start is None or self._known is not None else self._printed

    @property
    def kept(self) -> str:
        """The ``tail`` of the known item's fingerprint, or of the one whose head the reading went on from."""
        if self._known is not None:
            return self._known.tail
        return "" if self._grown is None or not self.passed else self._grown.tail

    def pass_over(self, messages: Iterator[Any], keys: Sequence[str], index: int) -> bool:
        """Go on after the item, the ``index``-th of the list at ``keys``, with a fresh parser where its
        bytes are known and its messages were not asked for (True): its bytes are never parsed."""
        import inspect

        if self._known is None or inspect.getgeneratorstate(messages) != inspect.GEN_CREATED:  # type: ignore[arg-type]
            return False
        end = self._known.end
        self.close()
        self._chunks = self.items.chunks(end)
        self.events.go_on(Head(end, index + 1), self._chunks, self.items.before(end), keys)
        self.items.ended(end)
        self._start = None
        return True

    def done(self) -> None:
        if self._start is not None:
            self.items.ended(self._end_of(self._start))
        self._start = None

    def close(self) -> None:
        if self._chunks is not None:
            self._chunks.close()

    def _end_of(self, start: int) -> int | None:
        """Where the item that begins at ``start``, its messages read, ends: found from the latest head of
        its messages (the bytes after it are at most a read block), else from its start."""
        if self._end is None:
            head = self.events.head
            inside = head.offset if head and head.offset > start else None
            self._end = self.items.end_of(start, inside, self.depth)
        return self._end

    def _printed(self) -> str | None:
        start = self._start
        end = None if start is None else self._end_of(start)
        if start is None or end is None:
            return None
        head = self.events.head
        head = head if head is not None and start < head.offset < end and self._keeps(head) else None
        tail = "-" if head is None else self.items.head_tail(start, head)
        if self._tail is not None:
            tail = self._tail(head, tail)
        return self._with_context(self.items.fingerprint(start, end, tail))

    def _with_context(self, fingerprint: str) -> str:
        return f"{fingerprint}:{hashed(self._context)}"


def hashed(context: str) -> str:
    """A reading's context as fingerprints hold it (``Walk``)."""
    import xxhash

    return xxhash.xxh3_64_hexdigest(context.encode())
