"""Telegram Desktop export: ``result.json`` ("Machine-readable JSON"), loose, in a folder or in a zip.

Two shapes: a single-chat export whose top level is the dialog itself (``{name, type, id,
messages}``), and a full account export whose dialogs sit under ``chats.list`` and ``left_chats.list``.

Exports reach hundreds of MB, so the file is never loaded whole: ``ijson`` walks it as a stream of parse
events, each message is built on its own, and every dialog's messages are handed out lazily while the
parser stands inside that dialog. The exporter writes control characters as ``\\xHH``, which is not JSON;
``_JsonStream`` rewrites those escapes to ``\\u00HH`` on the way into the parser.

A one-chat ``result.json`` exported again later is the earlier one with messages added at the end of its
list: its reading leaves a mark (``jsonstream.Head``), and a later reading reads the dialog's keys, then its
messages on from the mark (``ingest.resume`` checks that the file's bytes before it are the same; in a zip,
the reader checks them against the hash the mark holds).

An account export exported again later has new messages in some of its dialogs: each dialog's fingerprint
is the hash of its bytes (``jsonstream.Items``), and a dialog whose bytes an earlier reading fingerprinted
(``known``) is passed over unparsed where the import has it already (``ingest.resume.Prints``).

A zipped account export is copied to a temporary file to be walked so. Each dialog's print keeps where it lay
in the zip's member (``_Place``: the member's CRC-32 and size, which the zip's directory holds, the dialog's
index and the CRC-32 of the member's bytes from the dialog on). The exporter puts the dialogs with new messages
first, so a later member ends with an earlier one's last dialogs, byte for byte: where the CRC-32 of its bytes
before one of them, joined to the earlier CRC-32 of its bytes from there on (``crc32.joined``), is its own,
the member is inflated and copied only up to there, and those dialogs are told as they were, unread.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import re
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError
from refind_cli.importers import container, crc32, fields, jsonstream
from refind_cli.importers.container import (
    iter_file_chunks,
    member_of,
    named_file,
    named_head,
    zipped_file,
)
from refind_cli.records import Chat, ChatExport, Kind, Mark, Message, NotResumable

FORMAT = "telegram"

RESULT = "result.json"
_SNIFF_BYTES = 64 << 10
_DIALOG_TYPES = (
    "personal_chat",
    "bot_chat",
    "saved_messages",
    "replies",
    "private_group",
    "private_supergroup",
    "public_supergroup",
    "private_channel",
    "public_channel",
)
_SNIFF_DIALOG = re.compile(rb'"type"\s*:\s*"(?:' + b"|".join(t.encode() for t in _DIALOG_TYPES) + rb')"')
# A one-chat file whose dialog type another tool dropped: its messages' own keys.
_SNIFF_MESSAGES = re.compile(rb'"messages"\s*:\s*\[.*?"(?:date_unixtime|text_entities)"\s*:', re.S)
_SNIFF_ACCOUNT = re.compile(rb'"(?:personal_information|left_chats|frequent_contacts)"\s*:|"chats"\s*:\s*\{')
_PARSER_BLOCK = 64 << 10
MAX_TOKEN = 8 << 20
_STARTS = frozenset({"start_map", "start_array"})
_DIRECT_TYPES = frozenset({"personal_chat", "bot_chat", "saved_messages"})
_DELETED = "Deleted account"
# Where an account export's dialogs lie: the lists of its sections.
_SECTIONS = ("chats", "left_chats")
_LISTS = [(section, "list") for section in _SECTIONS]


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    head = named_head(path, RESULT, _SNIFF_BYTES)
    return head.startswith(b"{") and any(
        p.search(head) for p in (_SNIFF_DIALOG, _SNIFF_ACCOUNT, _SNIFF_MESSAGES)
    )


# --- reading -----------------------------------------------------------------------------------------


def read(
    path: Path, *, tz: tzinfo, after: Mark | None = None, known: Collection[str] = ()
) -> Iterator[ChatExport]:
    """``after``: a mark of an earlier reading of this loose one-chat file; its messages are read on from the
    mark (NotResumable where the file is not such a file). ``known``: fingerprints of dialogs that earlier
    readings left; a dialog of an account export whose bytes they fingerprint is not parsed unless its
    messages are read."""
    with named_file(path, RESULT, "a Telegram Desktop export") as (chunks, where, entry):
        loose = where == path and entry is None
        # A zip's result.json: its marks hold the hash of its bytes before them (``Mark.digest``), which the
        # ledger's hash of the zip does not tell.
        zipped = zipped_file(path, RESULT) if entry is not None and member_of(path) is None else None
        if after is not None and not (zipped if after.digest else loose):
            raise NotResumable
        tail = None
        if after is not None:
            between = json.loads(after.state).get("between")  # the items before the mark
            span = jsonstream.Span(zipped or path, 0)
            if not isinstance(between, int) or (
                after.digest and not (span.reach(after.offset) and span.digest() == after.digest)
            ):
                raise NotResumable
            tail = _Tail(span, jsonstream.Head(after.offset, between))
        with contextlib.ExitStack() as stack:
            # A file on disk (loose or in a folder) can be walked for its dialogs' places; a zipped account
            # export is copied to one first (``_spooled``).
            on_disk: Path | None = (
                where if entry is None and member_of(where) is None and tail is None else None
            )
            spool = (
                None
                if zipped is None or after is not None
                else _spooled(zipped, known, stack, lambda: read(path, tz=tz))
            )
            if spool is not None:
                on_disk = spool.copy
                chunks = iter_file_chunks(on_disk)
                stack.callback(spool.close)
            items = jsonstream.Items(on_disk, _LISTS, known) if on_disk is not None else None
            if items is not None:
                stack.enter_context(contextlib.closing(items))
            marks = (
                tail.file if tail is not None and zipped else jsonstream.Span(zipped, 0) if zipped else loose
            )
            # A reading that passes over dialogs, goes on from a head or stops where the member ends as an
            # earlier one did reads in other blocks: an error is the one a whole reading meets, its place too.
            whole = functools.partial(_whole_error, path, tz) if items is not None and known else None
            exports = _parse(chunks, where, entry, tz, marks, tail, items, spool, whole)
            yield from exports if whole is None else jsonstream.exact(exports, lambda: True, whole)


def _whole_error(path: Path, tz: tzinfo) -> InputError | None:
    """The error a whole reading of the export meets first, if any."""
    return jsonstream.whole_error(read(path, tz=tz))


# Where a dialog's print says where it lay in a zipped account export (``_Place``): after the head it names.
_PLACED = ".z."


@dataclass(frozen=True, slots=True)
class _Place:
    """Where a dialog lay in a zipped account export's ``result.json``, as its print keeps it: the member's
    CRC-32 and size (its zip's directory holds them), the dialog's index among the member's dialogs and their
    count, where it began and the CRC-32 of the member's bytes from there on; and the chat its reading told.
    A later member whose last bytes are those (``container.spooled_until``) holds the same dialogs there,
    unread."""

    whole: int
    size: int
    index: int
    count: int
    start: int
    rest: int
    chat: Chat

    def text(self) -> str:
        chat = self.chat
        told = base64.urlsafe_b64encode(json.dumps([chat.key, chat.name, chat.kind, chat.raw]).encode())
        fields_ = (self.whole, self.size, self.index, self.count, self.start, self.rest)
        return _PLACED + ".".join(map(str, fields_)) + "." + told.decode()

    @classmethod
    def of(cls, fingerprint: str) -> _Place | None:
        """The place a dialog's print keeps (its tail's, ``jsonstream.Items.fingerprint``); None where none."""
        parts = fingerprint.split(":")
        _, placed, text = parts[4].partition(_PLACED) if len(parts) > 5 else ("", "", "")
        with contextlib.suppress(ValueError, TypeError):
            *numbers, told = text.split(".") if placed else []
            whole, size, index, count, start, rest = map(int, numbers)
            key, name, kind, raw = map(str, json.loads(base64.urlsafe_b64decode(told)))
            return cls(whole, size, index, count, start, rest, Chat(FORMAT, key, name, kind, raw))
        return None


def _with_place(place: str, _head: jsonstream.Head | None, tail: str) -> str:
    """A print's tail (``jsonstream.Walk.printed``) with the dialog's place after it."""
    return tail + place


def _placed(fingerprint: str, place: str) -> str:
    """A print with ``place`` in its tail instead of the one it held (after its head, if any)."""
    parts = fingerprint.split(":")
    parts[4] = parts[4].partition(_PLACED)[0] + place
    return ":".join(parts)


class _Spool:
    """An account export's zipped ``result.json`` copied to a temporary file (``copy``), so that its dialogs
    can be found by their bytes and passed over as a loose file's are; up to where the member's last bytes
    are shown to be an earlier member's from one of its dialogs on (``at``: where that dialog begins, None
    where the member was copied whole), whose prints say so (``_Place``): those dialogs (``rest``) are told
    as the earlier readings told them, their bytes never inflated. ``sums``: the member's CRC-32 and size
    (None: not a zip's member as ``container.member_sums`` reads one; no place is kept then), ``count`` its
    dialogs (None where the copy's bytes do not tell them all)."""

    def __init__(
        self,
        copy: Path,
        sums: tuple[int, int] | None,
        rest: list[tuple[str, _Place]],
        count: int | None,
        whole: Callable[[], Iterator[ChatExport]],
    ) -> None:
        self.copy = copy
        self.sums = sums if count is not None else None
        self.rest = rest
        self.at = copy.stat().st_size - 1 if rest else None
        self.count = count
        self._crc = crc32.Running(copy)
        self._whole = whole
        self._reading: Iterator[ChatExport] | None = None

    def place(self, index: int, start: int, chat: Chat) -> str:
        """What the print of the dialog ``index`` that begins at ``start`` keeps of its place; "" where none."""
        if self.sums is None or self.count is None:
            return ""
        whole, size = self.sums
        rest = crc32.after(whole, self._crc.reach(start), size - start)
        return _Place(whole, size, index, self.count, start, rest, chat).text()

    def told(self, context: str) -> Iterator[ChatExport]:
        """The dialogs from ``at`` on, as the prints of the earlier member's tell them (the reading's
        ``context``, the account, in their prints: one read under another is read again)."""
        for fingerprint, place in self.rest:
            parts = fingerprint.split(":")
            print_ = ":".join([*parts[:5], jsonstream.hashed(context)])
            yield ChatExport(place.chat, self._later(place.chat), fingerprint=print_)

    def _later(self, chat: Chat) -> Iterator[Message]:
        """The messages of a dialog told unread, where they are asked for: the member read whole once,
        on to the dialog (those asked for come in its order)."""
        if self._reading is None:
            self._reading = self._whole()
        for export in self._reading:
            if export.chat == chat:
                yield from export.messages
                return

    def close(self) -> None:
        self._crc.close()
        if isinstance(self._reading, Generator):
            self._reading.close()


def _spooled(
    member: Path,
    known: Collection[str],
    stack: contextlib.ExitStack,
    whole: Callable[[], Iterator[ChatExport]],
) -> _Spool | None:
    """An account export's zipped ``result.json`` copied for as long as ``stack`` lasts (``_Spool``; ``whole``:
    the export read whole, given no prints); None for a one-chat export (its marks go on from a head) or where no temporary file can be written (it is then
    read as it streams)."""
    if not _SNIFF_ACCOUNT.search(named_head(member, RESULT, _SNIFF_BYTES)):
        return None
    # The earlier members' dialogs by member, then index; each end of a member whose dialogs from there on
    # all have their prints known.
    members: dict[tuple[int, int], dict[int, tuple[str, _Place]]] = {}
    for fingerprint in known:
        if (place := _Place.of(fingerprint)) is not None:
            members.setdefault((place.whole, place.size), {})[place.index] = (fingerprint, place)
    ends: list[tuple[int, int, int]] = []
    froms: list[tuple[dict[int, tuple[str, _Place]], int, int]] = []  # a member's dialogs, from, count
    for dialogs in members.values():
        count = next(iter(dialogs.values()))[1].count
        first = count
        while first - 1 in dialogs and dialogs[first - 1][1].count == count:
            first -= 1
        for index in range(first, count):
            place = dialogs[index][1]
            ends.append((place.size - place.start, place.rest, len(froms)))
            froms.append((dialogs, index, count))
    sums = container.member_sums(member)
    spool = container.spooled_until(member, stack, ends if sums is not None else [])
    if spool is None:
        return None
    copy, found = spool
    rest = [] if found is None else [froms[found][0][i] for i in range(*froms[found][1:])]
    before = _dialogs_before(copy, copy.stat().st_size - 1 if rest else None)
    if rest and before is None:  # the copy's bytes do not lead to a dialog there: the member copied whole
        again = container.spooled(member, stack)
        if again is None:
            return None
        copy, rest, before = again, [], _dialogs_before(again, None)
    return _Spool(copy, sums, rest, None if before is None else before + len(rest), whole)


def _dialogs_before(copy: Path, stop: int | None) -> int | None:
    """The dialogs of the copy that begin before ``stop`` (None: all of them), where its bytes tell them
    (``jsonstream.Items``); None where they do not (one begins at ``stop`` where given)."""
    items = jsonstream.Items(copy, _LISTS, ())
    with contextlib.closing(items):
        count = 0
        while (start := items.begin()) is not None:
            if start == stop:
                return count
            count += 1
        return count if stop is None and items.whole else None


@dataclass(frozen=True, slots=True)
class _Tail:
    """A loose file (its bytes before the head are checked by the import ledger) and a ``Head`` of its
    messages."""

    file: jsonstream.Span
    head: jsonstream.Head


def _parse(
    chunks: Generator[bytes, None, None],
    path: Path,
    entry: str | None,
    tz: tzinfo,
    marks: bool | jsonstream.Span = False,
    tail: _Tail | None = None,
    items: jsonstream.Items | None = None,
    spool: _Spool | None = None,
    whole: Callable[[], InputError | None] | None = None,
) -> Iterator[ChatExport]:
    # Closed here, not by the garbage collector: an error's traceback keeps the parser (and the open file)
    # alive in a reference cycle, and a caller that reads many bad files ran out of file descriptors.
    with contextlib.closing(chunks):
        parser = _Parser(chunks, path, entry, tz, marks, tail, items, spool, whole)
        with contextlib.closing(parser):
            yield from parser.chats()


_ESCAPE = re.compile(rb"\\[\\x]")


def _fix_escapes(data: bytes) -> bytes:
    """``\\xHH`` -> ``\\u00HH``. Matching ``\\\\`` as a pair first keeps an escaped backslash followed by
    ``x`` (``\\\\x41``, the text ``\\x41``) as it is. ``data`` must not end inside an escape."""
    if b"\\x" not in data:
        return data
    return _ESCAPE.sub(lambda m: b"\\u00" if m.group() == b"\\x" else m.group(), data)


# yajl's time on a token spanning its read blocks grows with the square of the token's length; Telegram caps a
# message at 4,096 characters, so a run of MAX_TOKEN is no real export. Nesting is not capped: a value too
# deep to store is refused when it is dumped.
_RULES = jsonstream.Rules(
    block=_PARSER_BLOCK,
    max_token=MAX_TOKEN,
    max_depth=None,
    export="a Telegram Desktop export",
    repair=_fix_escapes,
)
# The byte stream the parser reads: a BOM stripped, the exporter's escapes repaired.
_JsonStream = functools.partial(jsonstream.Stream, rules=_RULES)


def _input_error(path: Path, entry: str | None, what: str, where: str | None) -> InputError:
    place = ", ".join(p for p in (entry, where) if p) or None
    return InputError(path, what, place)


class _Parser:
    """Walks the parse events of one ``result.json`` and turns dialogs into ``ChatExport`` records."""

    def __init__(
        self,
        chunks: Iterator[bytes],
        path: Path,
        entry: str | None,
        tz: tzinfo,
        marks: bool | jsonstream.Span = False,
        tail: _Tail | None = None,
        items: jsonstream.Items | None = None,
        spool: _Spool | None = None,
        whole: Callable[[], InputError | None] | None = None,
    ) -> None:
        # A plain function, not a bound method, makes the errors: the stream must not point back at the
        # parser (a cycle that only the garbage collector would break).
        stream = _JsonStream(chunks, functools.partial(_input_error, path, entry))
        # Read blocks end after an item where they can: heads of its arrays (``Head``) are where marks go, and
        # where a dialog's end is found from.
        stream.cut_after = b"}" if marks or items else b""
        self._events = jsonstream.JsonEvents(stream)
        self._error = self._events.error
        self._gaps = fields.Gaps(path)
        self._tz = tz
        self._failed: InputError | None = None
        # Whose export it is: the account's user id ("user123", as messages' from_id), where the export
        # says it (personal_information of a whole-account export).
        self._owner: str | None = None
        self._mine: Callable[[str | None], bool] = _nobody
        # A one-chat file's reading leaves a mark (``marks``: a zipped file's bytes, which its mark holds the
        # hash of); ``tail``: the file from a mark on, to go on from.
        self._marks = bool(marks)
        self._span = marks if isinstance(marks, jsonstream.Span) else None
        self._tail = tail
        self._tail_chunks: Generator[bytes, None, None] | None = None
        # The first message without an id: one at or before a mark would make the identities of later
        # messages depend on it (``storage.identity``), so no mark is left before it.
        self._unnamed: int | None = None
        # An account export's dialogs: where each lies, and those read before as they are (``Items``).
        self._walk = None if items is None else jsonstream.Walk(self._events, items)
        # A zipped account export's copy: where each dialog lies in it is kept in its print, and the dialogs
        # from ``spool.at`` on are told unread (``_Spool``); ``_begun``: the dialogs begun so far.
        self._spool = spool
        self._begun = 0
        self._rested = False
        self._whole = whole  # the error a whole reading meets, where this one reads in other blocks

    def chats(self) -> Iterator[ChatExport]:
        event, _ = self._events.next()
        if event != "start_map":
            raise self._error("not a Telegram export: the top level is not a JSON object", None)
        found = yield from self._dialog("", root=True)
        if not self._rested:
            self._events.finish()
        self._gaps.warn()
        if not found:
            raise self._error('not a Telegram export: no "messages" and no "chats" list', None)

    def _dialog(
        self, where: str, *, root: bool, item: tuple[str, int] | None = None
    ) -> Generator[ChatExport, None, bool]:
        """One dialog object, its ``{`` already read, through its ``}``. Returns whether it held chats.

        Real exports put ``name``, ``type`` and ``id`` before ``messages``, so the chat can be announced
        and its messages streamed. If they come later, this one dialog's messages are buffered.

        ``item``: the dialog's section and place in its list, in an account export. Where the file tells where
        it lies (``Items``) its reading tells its fingerprint, and a dialog whose bytes a known fingerprint
        covers is passed over unparsed if its messages are not asked for."""
        meta: dict[str, Any] = {}
        walk = self._walk if item is not None else None
        index = None
        if walk is not None:
            walk.begin()
            if walk.start is not None and self._spool is not None:
                if walk.start == self._spool.at:  # the earlier member's last dialogs from here on
                    yield from self._spool.told(self._owner or "")
                    self._rested = True
                    return True
                index, self._begun = self._begun, self._begun + 1
        buffered: list[Message] | None = None
        found = False
        prefix = f"{where}." if where else ""
        for key, event, value in self._events.members():
            if key == "messages":
                if event != "start_array":
                    raise self._error("messages is not a list", f"{prefix}messages")
                found = True
                self._mine = self._own_messages(meta)
                passed = None
                if self._tail is not None:
                    passed = self._go_on(self._tail) if root and _announced(meta) else None
                    if passed is None:
                        raise NotResumable
                elif walk is not None and item is not None and _announced(meta):
                    # A dialog that grew since an earlier reading: read on from a head of its messages.
                    passed = walk.go_on([item[0], "list", None, "messages"])
                self._unnamed = None  # in this dialog
                messages = self._messages(f"{prefix}messages", passed)
                if self._whole is not None:
                    messages = jsonstream.exact(messages, lambda: True, self._whole)
                if _announced(meta):
                    chat = self._chat(meta, where)
                    told = None if walk is None else walk.fingerprint(self._owner or "")
                    place = "" if index is None or walk is None else self._place(index, walk, chat)
                    # Its place in a zipped member kept in its print: one read before elsewhere is told anew.
                    fingerprint = told if told is None or not place else _placed(told, place)
                    yield ChatExport(
                        chat,
                        messages,
                        self._mark if root and self._marks else None,
                        fingerprint,
                        None
                        if walk is None
                        else walk.printed(self._keeps, functools.partial(_with_place, place)),
                        0 if walk is None else walk.passed,
                        formerly=told if told != fingerprint else None,
                    )
                    if (
                        walk is not None
                        and item is not None
                        and walk.pass_over(messages, [item[0], "list"], item[1])
                    ):
                        return True
                    for _ in messages:  # whatever the consumer left unread
                        pass
                    if self._failed:
                        raise self._failed
                else:
                    buffered = list(messages)
            elif root and key in ("chats", "left_chats"):
                if event != "start_map":
                    raise self._error(f"{key} is not an object", key)
                found = True
                yield from self._section(key)
                if self._rested:
                    return True
            elif root and key == "personal_information" and event == "start_map":
                owner = _ident(self._events.value(event, value, key).get("user_id"))
                self._owner = None if owner is None else f"user{owner}"
            elif event in _STARTS and root:
                self._events.skip()  # account-wide sections (contacts, sessions, ...) can be large
            else:
                meta[key] = self._events.value(event, value, f"{prefix}{key}")
        if walk is not None:
            walk.done()
        if buffered is not None:
            mine = self._own_messages(meta)
            yield ChatExport(self._chat(meta, where), [m._replace(own=mine(m.sender_id)) for m in buffered])
        return found

    def _own_messages(self, meta: dict[str, Any]) -> Callable[[str | None], bool]:
        """Which sender ids in this dialog are the exporting person: the account's id where the export gives
        it; else, in a one-to-one chat (whose id is the other person's), every sender but that other; every
        message of the chat with oneself (saved messages). Nobody's, where the export does not say."""
        kind = meta.get("type")
        if kind == "saved_messages":
            return _everybody
        owner = self._owner
        if owner is not None:
            return lambda sender: sender == owner
        peer = _ident(meta.get("id"))
        if kind == "personal_chat" and peer is not None:
            return lambda sender: sender is not None and sender != f"user{peer}"
        return _nobody

    def _section(self, name: str) -> Iterator[ChatExport]:
        for key, event, _ in self._events.members():
            if key != "list":
                if event in _STARTS:
                    self._events.skip()
                continue
            if event != "start_array":
                raise self._error("list is not a list", f"{name}.list")
            index = 0
            while True:
                event, _ = self._events.next()
                if event == "end_array":
                    break
                if event != "start_map":
                    raise self._error("a dialog is not a JSON object", f"{name}.list[{index}]")
                yield from self._dialog(f"{name}.list[{index}]", root=False, item=(name, index))
                if self._rested:
                    return
                index += 1

    def _messages(self, where: str, passed: jsonstream.Ends | None) -> Iterator[Message]:
        n = 0 if passed is None else passed.count
        try:
            for obj, place in self._events.array(where, passed):
                message = self._message(obj, place)
                if message.source_id is None and self._unnamed is None:
                    self._unnamed = n
                n += 1
                yield message
        except InputError as exc:
            self._failed = exc
            raise

    def _go_on(self, tail: _Tail) -> jsonstream.Ends | None:
        """The root dialog's messages read on from the tail: the bytes before it are not parsed again."""
        self._tail_chunks = tail.file.chunks(tail.head.offset)
        return self._events.go_on(
            tail.head, self._tail_chunks, tail.file.before(tail.head.offset), ["messages"]
        )

    def close(self) -> None:
        if self._tail_chunks is not None:
            self._tail_chunks.close()
        if self._walk is not None:
            self._walk.close()

    def _place(self, index: int, walk: jsonstream.Walk, chat: Chat) -> str:
        """What the dialog's print keeps of where it lies in a zipped member (``_Place``); "" where nothing."""
        start = walk.start
        return "" if self._spool is None or start is None else self._spool.place(index, start, chat)

    def _keeps(self, head: jsonstream.Head) -> bool:
        """Whether a later reading of the dialog may go on from ``head``: not where a message before it has
        no id (its hashed identity would make later identities depend on it)."""
        return self._unnamed is None or self._unnamed >= head.items

    def _mark(self) -> Mark | None:
        """Where a later reading of this one-chat file, grown since, can go on from: each message is one
        item of its list, so the messages read before the mark are its items."""
        head = self._events.head
        if head is None or not self._keeps(head):
            return None
        digest = ""
        if self._span is not None:
            if not self._span.reach(head.offset):
                return None
            digest = self._span.digest()
        return Mark(head.offset, json.dumps({"between": head.items}), digest, head.items)

    def _chat(self, meta: dict[str, Any], where: str) -> Chat:
        ident = self._gaps.key("dialog", "id", meta.get("id"), meta.get("name"), meta.get("type"))
        kind_name = kind if isinstance(kind := meta.get("type"), str) else ""
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            name = _fallback_name(kind_name, ident)
        return Chat(
            source=FORMAT,
            key=ident,
            name=name,
            kind=_chat_kind(kind_name),
            raw=self._events.dump(meta, where or None),
        )

    def _message(self, obj: Any, where: str) -> Message:
        if not isinstance(obj, dict):
            raise self._error("a message is not a JSON object", where)
        date = obj.get("date")
        service = obj.get("type") == "service"
        # ``text_entities`` holds the same text in parts, where a tool dropped ``text``.
        found = obj.get("text")
        found = obj.get("text_entities") if found is None else found
        if found is None:
            self._gaps.lack("message", "text")
        text = _text(found, lambda what: self._error(what, f"{where}.text"))
        if service:
            sender, sender_id = _str(obj.get("actor")), _ident(obj.get("actor_id"))
            kind, text = Kind.SYSTEM, _join(_describe_service(obj), text)
        else:
            sender = _DELETED if "from" in obj and obj["from"] is None else _str(obj.get("from"))
            sender_id = _ident(obj.get("from_id"))
            kind, text = _content(obj, text, lambda what, key: self._error(what, f"{where}.{key}"))
        return Message(
            timestamp=self._timestamp(obj, where),
            sender=sender,
            text=text,
            kind=kind,
            source_id=_ident(obj.get("id")),
            sender_id=sender_id,
            local_time=date if isinstance(date, str) else None,
            reply_to=_ident(obj.get("reply_to_message_id")),
            edited="edited" in obj or "edited_unixtime" in obj,
            raw=self._events.dump(obj, where),
            own=self._mine(sender_id),
        )

    def _timestamp(self, obj: dict[str, Any], where: str) -> datetime:
        unix, date = obj.get("date_unixtime"), obj.get("date")
        try:
            if isinstance(unix, str | int) and not isinstance(unix, bool):
                return datetime.fromtimestamp(int(unix), UTC)
            if isinstance(date, str):
                wall = datetime.fromisoformat(date)
                return (wall if wall.tzinfo else wall.replace(tzinfo=self._tz)).astimezone(UTC)
        except (ValueError, OverflowError, OSError):
            key = "date_unixtime" if unix is not None else "date"
            raise self._error(f"unreadable time {obj.get(key)!r}", f"{where}.{key}") from None
        raise self._error("message has no date", where)


def _nobody(_sender: str | None) -> bool:
    return False


def _everybody(_sender: str | None) -> bool:
    return True


def _announced(meta: dict[str, Any]) -> bool:
    """Whether the dialog's identity is complete before its messages: ``name`` is absent only for the
    two chats Telegram names itself."""
    return (
        "id" in meta and "type" in meta and ("name" in meta or meta["type"] in ("saved_messages", "replies"))
    )


def _fallback_name(kind_name: str, ident: str) -> str:
    if kind_name == "saved_messages":
        return "Saved Messages"
    if kind_name == "replies":
        return "Replies"
    if kind_name in ("personal_chat", "bot_chat"):
        return _DELETED
    return f"Unnamed chat {ident}"


def _chat_kind(kind_name: str) -> str:
    if kind_name in _DIRECT_TYPES:
        return "direct"
    if "group" in kind_name:
        return "group"
    if "channel" in kind_name:
        return "channel"
    return "chat"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _ident(value: Any) -> str | None:
    """Ids are ints, or strings such as ``"user123"`` (old exports wrote ints there too)."""
    return fields.ident(value)


def _text(value: Any, error: Callable[[str], InputError]) -> str:
    """``text`` is a string, or a list of strings and ``{type, text, ...}`` parts joined verbatim."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise error("text is neither a string nor a list")
    parts = []
    for part in value:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(part["text"])
        else:
            raise error("a text part is neither a string nor an object with a text")
    return "".join(parts)


def _join(*parts: str | None) -> str:
    return "\n".join(p for p in parts if p)


def _content(obj: dict[str, Any], text: str, error: Callable[[str, str], InputError]) -> tuple[str, str]:
    """Kind and readable text of an ordinary message."""
    location = obj.get("location_information")
    if isinstance(location, dict):
        place = _join(_str(obj.get("place_name")), _str(obj.get("address")))
        if not place and location.get("latitude") is not None:
            place = f"{location.get('latitude')}, {location.get('longitude')}"
        return Kind.LOCATION, text or place
    poll = obj.get("poll")
    if isinstance(poll, dict):
        answers = listed if isinstance(listed := poll.get("answers"), list) else []
        lines = [_text(poll.get("question"), lambda what: error(what, "poll.question"))]
        for answer in answers:
            if isinstance(answer, dict):
                lines.append(_text(answer.get("text"), lambda what: error(what, "poll.answers")))
        return Kind.TEXT, _join(text, *lines)
    if text:
        return Kind.TEXT, text
    contact = obj.get("contact_information")
    if isinstance(contact, dict):
        name = " ".join(p for p in (_str(contact.get(k)) for k in ("first_name", "last_name")) if p)
        return Kind.ATTACHMENT, _join(name, _str(contact.get("phone_number")))
    media = obj.get("file", obj.get("photo"))
    if media is not None or "media_type" in obj:
        # Without media in the export the path is a note such as "(File not included. ...)".
        included = isinstance(media, str) and not media.startswith("(")
        label = [_str(obj.get(k)) for k in ("file_name", "title", "performer", "sticker_emoji")]
        return (Kind.ATTACHMENT if included else Kind.MEDIA), _join(*label)
    return Kind.TEXT, text


def _names(value: Any) -> str:
    if not isinstance(value, list):
        return ""
    return ", ".join(m if isinstance(m, str) else _DELETED for m in value)


def _describe_service(obj: dict[str, Any]) -> str:
    """A readable line for a service message, from its ``action`` and the fields that go with it."""
    actor = _str(obj.get("actor")) or _DELETED
    action = _str(obj.get("action"))
    title = _str(obj.get("title"))
    members = _names(obj.get("members"))
    if action is None:
        return _str(obj.get("information_text")) or ""
    quoted = f' "{title}"' if title else ""
    with_members = f" with {members}" if members else ""
    simple = {
        "create_group": f"{actor} created group{quoted}{with_members}",
        "create_channel": f"{actor} created channel{quoted}",
        "edit_group_title": f"{actor} changed the group name to{quoted}",
        "edit_group_photo": f"{actor} changed the group photo",
        "delete_group_photo": f"{actor} removed the group photo",
        "invite_members": f"{actor} invited {members}",
        "migrate_to_supergroup": f"{actor} converted this group to a supergroup",
        "migrate_from_group": f"{actor} converted group{quoted} to this supergroup",
        "clear_history": f"{actor} cleared the history",
        "take_screenshot": f"{actor} took a screenshot",
        "joined_telegram": f"{actor} joined Telegram",
        "group_call": f"{actor} started a video chat",
        "invite_to_group_call": f"{actor} invited {members} to the video chat",
        "topic_created": f"{actor} created topic{quoted}",
    }
    if action in simple:
        return simple[action]
    if action == "remove_members":
        return f"{actor} left" if members == actor else f"{actor} removed {members}"
    if action == "join_group_by_link":
        inviter = _str(obj.get("inviter"))
        return f"{actor} joined the group via an invite link" + (f" from {inviter}" if inviter else "")
    if action == "pin_message":
        pinned = _ident(obj.get("message_id"))
        return f"{actor} pinned message {pinned}" if pinned else f"{actor} pinned a message"
    if action == "phone_call":
        # A number however a tool wrote it: 734, 734.0, "734".
        seconds = fields.number(obj.get("duration_seconds"))
        details = [f"{fields.text(seconds)} s"] if seconds is not None else []
        details += [reason] if (reason := _str(obj.get("discard_reason"))) else []
        return f"{actor} called" + (f" ({', '.join(details)})" if details else "")
    return f"{actor} {action.replace('_', ' ')}{quoted}" + (f": {members}" if members else "")
