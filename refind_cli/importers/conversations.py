"""A ``conversations.json`` of an assistant's data export (ChatGPT, Claude.ai), read one conversation at a time.

The file is a list of conversation objects; third-party tools also write one conversation alone, or the list
wrapped as ``{"conversations": [...]}``. It comes loose, in the export's zip, or in the unpacked export folder
(beside files that are not conversations: ``user.json``, ``users.json``, ``projects.json``, ...).

A year of chats makes hundreds of MB, so the file is never loaded whole: ``ijson`` walks its parse events and
each conversation is built on its own, then dropped once its messages are read. The parse events carry no
JSON paths on purpose: ijson's path prefixes grow with the nesting, so a hostile file of deep brackets costs
memory with the square of its depth; here nesting is counted and refused past ``MAX_DEPTH``.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError
from refind_cli.importers import container, fields, jsonstream
from refind_cli.importers.container import named_file, named_head
from refind_cli.records import Chat, ChatExport, Message

FILE = "conversations.json"
SNIFF_BYTES = 64 << 10
# yajl re-scans a token that spans its read blocks, so a token's cost grows with its square over the block
# size: a 32 MB string costs 0.4 s in 1 MB blocks (6 s in 64 KB ones). An attachment's extracted text (a
# whole PDF) is the longest real string; past the cap the file is refused rather than read for minutes.
PARSER_BLOCK = 1 << 20
MAX_TOKEN = 32 << 20
# Real conversations nest about ten levels (a message's metadata holds the deepest); far beyond that is a
# hostile file.
MAX_DEPTH = 100


# --- where the file is -----------------------------------------------------------------------------------


def head(path: Path, name: str = FILE) -> bytes:
    """The first bytes of the conversations file (``name``) of a loose file, a zip or a folder (b"" if there
    is none), without a BOM or leading white space. Never raises."""
    return named_head(path, name, SNIFF_BYTES)


def sniffed(path: Path, holding: re.Pattern[bytes]) -> bool:
    """Whether the conversations file's first bytes (``head``) open a list or an object and hold what
    ``holding`` finds (a key only one format's conversations have)."""
    start = head(path)
    return start[:1] in (b"[", b"{") and bool(holding.search(start))


def read(
    path: Path, what: str, name: str = FILE, lists: tuple[str, ...] = ("conversations",)
) -> Iterator[tuple[str, dict[str, Any], Reader]]:
    """Each conversation object of the export at ``path``: where it is (``[3]``), the object, and the reader,
    which names places in errors. ``what`` names the format in errors ("a ChatGPT data export"); ``name`` is
    the export's file (Grok's is ``prod-grok-backend.json``); ``lists``, the keys of a top-level object
    whose lists hold the conversations."""
    with named_file(path, name, what) as (chunks, where, entry):
        yield from _read(chunks, where, entry, what, lists)


def _read(
    chunks: Generator[bytes, None, None], path: Path, entry: str | None, what: str, lists: tuple[str, ...]
) -> Iterator[tuple[str, dict[str, Any], Reader]]:
    # Closed here, not by the garbage collector, so that a run over many bad files keeps no files open.
    with contextlib.closing(chunks):
        reader = Reader(chunks, path, entry, what, lists)
        for where, obj in reader.conversations():
            yield where, obj, reader


# --- a grown export, by its conversations' bytes -----------------------------------------------------------

# From this size on, a loose file's conversations are found by a scan of its bytes before any is parsed
# (``scan``): a conversation read before as it is then costs a hash of its bytes, not its parse.
SCAN_MIN_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class Scanned:
    """A conversation found by ``scan``: where it is (``[3]``), the fingerprint of its bytes (its
    ``ChatExport.fingerprint``), the conversation without its bulk (``None`` in place of the value of the
    key ``scan`` was given; None where those bytes are not a JSON object), its whole reading, and its
    offset in the file with its index in the list (``ChatExport.at``)."""

    where: str
    fingerprint: str
    meta: dict[str, Any] | None
    whole: Callable[[], dict[str, Any]]
    at: tuple[int, int]


def scan(
    path: Path, what: str, bulk: str, known: Collection[str] = ()
) -> Iterator[tuple[Scanned, Reader]] | None:
    """The conversations of a loose file of at least ``SCAN_MIN_BYTES`` whose top level is a list, by their
    bytes (``jsonstream.Items``); each is parsed only when its ``whole`` is asked for, as ``read`` parses
    it. A conversation whose bytes one of ``known`` fingerprinted costs a hash; where ``known`` holds a
    start (``jsonstream.start_in``), the list is walked from there (the bytes before it are an earlier
    file's, whose conversations an earlier import took). None for any other file: ``read`` reads it.
    Errors are those a whole reading of the file meets first (``Reader.first_error``)."""
    if not path.is_file() or container.member_of(path) is not None or path.stat().st_size < SCAN_MIN_BYTES:
        return None
    if container.read_file_part(path, 0, SNIFF_BYTES).lstrip(b" \t\r\n")[:1] != b"[":
        return None  # a BOM, or another top level
    start = jsonstream.start_in(known)
    items = jsonstream.Items(path, [()], known, start)
    reader = Reader(iter(()), path, None, what)
    return _scan(items, reader, json.dumps(bulk).encode(), 0 if start is None else start.items)


def _scan(
    items: jsonstream.Items, reader: Reader, bulk: bytes, index: int
) -> Iterator[tuple[Scanned, Reader]]:
    with contextlib.closing(items):
        while (start := items.begin()) is not None:
            where = f"[{index}]"
            at = (start, index)
            index += 1
            found = items.known(start)
            if isinstance(found, jsonstream.Known):
                end, fingerprint, cut = found.end, found.fingerprint, _cut(found.tail, start)
            elif (members := items.members(start)) is not None:
                end, spans = members
                cut = spans.get(bulk)
                tail = "-" if cut is None else f"{cut[0] - start}.{cut[1] - start}"
                fingerprint = items.fingerprint(start, end, tail)
            else:  # no object: what a whole reading makes of it (a null is passed over)
                skipped = items.end_of(start)
                if skipped is None:
                    break  # the bytes are no JSON: the whole reading's error, below
                if reader.one(items.read(start, skipped), start, where) is not None:
                    error = reader.error("a conversation is not a JSON object", where)
                    raise reader.first_error(where, error)
                items.ended(skipped)
                continue
            items.ended(end)
            yield _scanned(items, reader, at, fingerprint, end, cut), reader
        if not items.whole:
            raise reader.first_error(None, reader.error(f"not {reader.what}: the list does not end as JSON"))


def found(item: Scanned, chat: Chat | None, read: Callable[[dict[str, Any]], ChatExport]) -> ChatExport:
    """A conversation ``scan`` found, as its reader ``read`` reads it: where its ``chat`` is told from all but
    its bulk, its bulk is parsed only where its messages are read (a conversation read before as it is:
    never); else it is read whole now (and leaves no head after it: ``ChatExport.at``)."""
    if chat is None:
        return read(item.whole())._replace(fingerprint=item.fingerprint)

    def messages() -> Iterator[Message]:
        yield from read(item.whole()).messages

    return ChatExport(chat, messages(), fingerprint=item.fingerprint, at=item.at)


def each(
    path: Path,
    what: str,
    bulk: str,
    known: Collection[str],
    chat: Callable[[dict[str, Any]], Chat | None],
    conversation: Callable[[dict[str, Any], str, Reader, fields.Gaps], ChatExport],
) -> Iterator[ChatExport]:
    """Each conversation of the export at ``path``, as ``conversation`` reads it from its object, its place,
    the reader and the gaps (said once all are read): found by its bytes where ``scan`` reads the file, its
    chat told by ``chat`` from all but its ``bulk`` (None where that cannot tell it: it is read whole,
    ``found``); else as ``read`` parses it."""
    gaps = fields.Gaps(path)
    scanned = scan(path, what, bulk, known)
    if scanned is None:
        for where, conv, reader in read(path, what):
            yield conversation(conv, where, reader, gaps)
    else:
        for item, reader in scanned:
            yield _found(item, reader, gaps, chat, conversation)
    gaps.warn()


def _found(
    item: Scanned,
    reader: Reader,
    gaps: fields.Gaps,
    chat: Callable[[dict[str, Any]], Chat | None],
    conversation: Callable[[dict[str, Any], str, Reader, fields.Gaps], ChatExport],
) -> ChatExport:
    told = None if item.meta is None else chat(item.meta)
    return found(item, told, lambda conv: conversation(conv, item.where, reader, gaps))


def _cut(tail: str, start: int) -> tuple[int, int] | None:
    """Where a conversation's bulk lies, from its fingerprint's tail (offsets in it)."""
    offsets = tail.split(".")
    if len(offsets) != 2 or not all(o.isdigit() for o in offsets):
        return None
    return start + int(offsets[0]), start + int(offsets[1])


def _scanned(
    items: jsonstream.Items,
    reader: Reader,
    at: tuple[int, int],
    fingerprint: str,
    end: int,
    cut: tuple[int, int] | None,
) -> Scanned:
    start, where = at[0], f"[{at[1]}]"
    meta: Any = None
    if cut is not None:
        rest = items.read(start, cut[0]) + b"null" + items.read(cut[1], end)
        with contextlib.suppress(InputError):  # what the whole reading says, and where, once it is read
            # By the same parser as the whole: the same values ("\ud800" read as "?", no 1e400).
            meta = reader.one(rest, start, where, exact=False)

    def whole() -> dict[str, Any]:
        obj = reader.one(items.read(start, end), start, where)
        if not isinstance(obj, dict):
            raise reader.first_error(where, reader.error("a conversation is not a JSON object", where))
        return obj

    return Scanned(where, fingerprint, meta if isinstance(meta, dict) else None, whole, at)


# --- reading ---------------------------------------------------------------------------------------------


class Reader:
    """Walks the parse events of one conversations file and builds each conversation object."""

    def __init__(
        self,
        chunks: Iterator[bytes],
        path: Path,
        entry: str | None,
        what: str,
        lists: tuple[str, ...] = ("conversations",),
    ) -> None:
        self.path = path
        self.entry = entry
        self.what = what
        self.lists = lists
        # Read at each import, so that a test can lower the caps.
        rules = jsonstream.Rules(
            block=PARSER_BLOCK,
            max_token=MAX_TOKEN,
            max_depth=MAX_DEPTH,
            export=what,
            utf8_fault="invalid UTF-8 in the JSON text",
            full_stop=False,
        )
        self._events = jsonstream.JsonEvents(jsonstream.Stream(chunks, self.error, rules))

    def error(self, what: str, where: str | None = None) -> InputError:
        """An InputError naming the file, the zip entry if any, and the place."""
        place = ", ".join(p for p in (self.entry, where) if p) or None
        return InputError(self.path, what, place)

    def one(self, data: bytes, start: int, where: str, *, exact: bool = True) -> Any:
        """The one JSON value ``data`` holds, the file's bytes from ``start`` on, read under the same rules as
        the whole file; ``exact``: its error is the one a whole reading meets first (``first_error``)."""
        block = self._events.rules.block  # in the chunks a whole file comes in: an overlong value is seen
        chunks = (data[at : at + block] for at in range(0, len(data), block))
        stream = jsonstream.Stream(chunks, self.error, self._events.rules, part=True)
        stream.consumed = start
        events = jsonstream.JsonEvents(stream)
        try:
            event, value = events.next()
            obj = events.value(event, value, where)
            events.finish()
        except InputError as exc:
            if not exact:
                raise
            raise self.first_error(where, exc) from None
        return obj

    def first_error(self, where: str | None, error: InputError) -> InputError:
        """The error a whole reading of the file meets first, up to the conversation at ``where`` (None:
        anywhere), where it meets one; else ``error``: what a reading by the bytes met (it read the file in
        other blocks, or parsed no byte between its conversations)."""
        try:
            for place, _, _ in read(self.path, self.what):
                if place == where:
                    break
        except InputError as exc:
            return exc
        return error

    def conversations(self) -> Iterator[tuple[str, dict[str, Any]]]:
        event, _ = self._events.next()
        if event == "start_array":
            yield from self._items("")
        elif event == "start_map":
            yield from self._object()
        else:
            raise self.error(f"not {self.what}: the top level is neither a list nor an object")
        self._events.finish()

    def _items(self, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
        for obj, place in self._events.array(where):
            if obj is not None:  # Claude exports hold null entries
                if not isinstance(obj, dict):
                    raise self.error("a conversation is not a JSON object", place)
                yield place, obj

    def _object(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """A top-level object: ``{"conversations": [...]}`` (or another of ``lists``), or one conversation
        alone."""
        meta: dict[str, Any] = {}
        wrapped = False
        for key, event, value in self._events.members():
            if key in self.lists:
                if event != "start_array":  # never one conversation that happens to hold such a key
                    raise self.error(f"not {self.what}: {key} is not a list", key)
                wrapped = True
                yield from self._items(key)
            else:
                meta[key] = self._events.value(event, value, key)
        if not wrapped:
            yield "", meta


# --- values ----------------------------------------------------------------------------------------------


def epoch_time(value: Any) -> datetime | None:
    """Epoch seconds (a number, or a numeric string) as aware UTC; None for anything else or out of range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and fields.number(value) is None:
        return iso_time(value)
    value = fields.number(value)
    if value is None:
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (ValueError, OverflowError, OSError):
        return None


def iso_time(value: Any) -> datetime | None:
    """An ISO-8601 time (``2026-04-07T09:48:12.123456Z``) as aware UTC; a time without an offset is UTC.
    None for anything else."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)


# A string value, a number as its text, or "" for anything else (``fields.text``).
text_of = fields.text


def join(*parts: str) -> str:
    return "\n".join(p for p in parts if p)


def active_path(current: Any, parents: dict[str, str], own: dict[str, datetime | None]) -> set[str]:
    """The nodes of a conversation tree from the leaf the person last saw (``current``) up to the root;
    ``parents`` maps a node to its parent, ``own`` every node to its time. Without a usable ``current`` (Grok
    names none), the leaf is the latest message: what the app would show after the last answer. The other
    branches are regenerated answers and edited prompts."""
    if not isinstance(current, str) or current not in own:
        timed = [(t, nid) for nid, t in own.items() if t is not None]
        if not timed:
            return set()
        current = max(timed)[1]
    path: set[str] = set()
    at: str | None = current
    while at is not None and at not in path:  # a cycle in a hostile file ends the walk
        path.add(at)
        at = parents.get(at)
    return path


def as_list(value: Any) -> list[Any]:
    """A list value, or [] for anything else."""
    return value if isinstance(value, list) else []


def as_dict(value: Any) -> dict[str, Any]:
    """An object value, or {} for anything else."""
    return value if isinstance(value, dict) else {}


def fingerprint(conversation: dict[str, Any]) -> str:
    """A conversation's ``ChatExport.fingerprint``: the hash of all of it, as parsed."""
    return container.fingerprint([json.dumps(conversation, check_circular=False).encode()])


def dump(obj: Any) -> str:
    """A record's raw JSON as the archive keeps it."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)
