"""Google Chat from Google Takeout (FORMATS.md §4c): ``Takeout/Google Chat/Groups/<group>/messages.json``
beside ``group_info.json``, one folder per space or direct message (``Space …``, ``DM …``), and
``Google Chat/Users/User <id>/user_info.json`` naming the exporting account. Read from the Takeout zip, the
``Google Chat`` folder, its ``Groups`` folder, one group's folder, or one ``messages.json`` alone. Hangouts,
which Google Chat replaced, is a source of its own (``hangouts.py``).

``messages.json`` is ``{"messages": [{creator{name, email, user_type}, created_date, text, attached_files,
topic_id, message_id, ...}]}``, oldest first. One chat per group, keyed by the group id that starts every
``message_id`` (``<group>/<topic>/<message>``), else by the folder's name; named by ``group_info.json``'s
``name``, else (a DM) by the other members. Every message is kept: attached files make it
``Kind.ATTACHMENT`` with their names as lines, a bot's are ``Kind.BOT``. The account's own messages (its
email in ``user_info.json``) are ``Message.own``.

``created_date`` is written out in English with its zone: ``Monday, April 27, 2015 at 8:29:01 PM UTC``
(``\\u202f`` before ``PM`` in newer files). A zone other than UTC/GMT is the exporting machine's: read in
``--tz``. A date that cannot be read is the time of the message before, with a warning.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import itertools
import json
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import fields, jsonstream, spool
from refind_cli.importers.container import (
    ErrorMaker,
    decode_text,
    file_size,
    files_matching,
    fingerprint,
    is_file,
    is_zip,
    iter_file_chunks,
    iter_member_chunks,
    member_names,
    member_stamp,
    open_zip,
    read_file,
    read_member,
    sniff_head,
    streamed_fingerprint,
)
from refind_cli.importers.conversations import as_dict, as_list, dump, join, text_of
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "google-chat"
WHAT = "a Google Chat export (Takeout Google Chat/Groups)"
MESSAGES = "messages.json"
GROUP_INFO = "group_info.json"
USER_INFO = "user_info.json"
SNIFF_BYTES = 64 << 10

_SNIFF = (
    re.compile(rb'"messages"\s*:\s*\['),
    re.compile(rb'"creator"\s*:\s*\{'),
    re.compile(rb'"created_date"\s*:\s*"'),
)
_GROUP_MEMBER = re.compile(r"(?:^|/)Groups/([^/]+)/messages\.json$")
_USER_MEMBER = re.compile(r"(?:^|/)Users/[^/]+/user_info\.json$")
_DATE = re.compile(
    r"(?:\w+, )?(?P<date>\w+ \d{1,2}, \d{4}) at (?P<time>\d{1,2}:\d\d:\d\d)[ \u202f\xa0](?P<ampm>[AP]M)"
    r"(?: (?P<zone>\S+))?"
)
_UTC_ZONES = frozenset({"UTC", "GMT"})
# A group's messages.json is read as a stream (a group of a million messages runs to hundreds of MB).
_RULES = jsonstream.Rules(
    block=64 << 10,
    max_token=16 << 20,
    max_depth=64,
    export="a Google Chat export",
    utf8_fault="invalid UTF-8; not a text export",
    full_stop=False,
)


@dataclass(frozen=True, slots=True)
class _Group:
    """One group's files: how to read each (None: not there), and what errors name. Its messages.json is
    given a chunk at a time, and stood for in its print by a stamp (``_Print``)."""

    folder: str  # the group folder's name ("" for a messages.json alone)
    messages: Callable[[], Generator[bytes, None, None]]
    size: int
    stamp: Callable[[], bytes]
    info: Callable[[], bytes] | None
    path: Path  # the file or zip errors name
    where: str | None  # the zip entry


# --- where the files are ---------------------------------------------------------------------------------


def _zip_groups(path: Path, zf: zipfile.ZipFile) -> tuple[list[_Group], Callable[[], bytes] | None]:
    names = member_names(zf)
    present = set(names)
    groups = []
    for name in sorted(names):
        if m := _GROUP_MEMBER.search(name):
            info = str(PurePosixPath(name).with_name(GROUP_INFO))
            groups.append(
                _Group(
                    m[1],
                    partial(iter_member_chunks, zf, name, path),
                    zf.getinfo(name).file_size,
                    partial(member_stamp, zf, name),
                    partial(read_member, zf, info, path) if info in present else None,
                    path,
                    f"entry {name!r}",
                )
            )
    user = next((n for n in sorted(names) if _USER_MEMBER.search(n)), None)
    return groups, partial(read_member, zf, user, path) if user else None


def _folder_groups(root: Path) -> tuple[list[_Group], Callable[[], bytes] | None]:
    """The groups of a ``Google Chat`` folder, of its ``Groups`` folder, or of one group's folder."""
    if (root / MESSAGES).is_file():
        folders = [root]
        base = root.parent.parent
    elif (root / "Groups").is_dir():
        folders = _subfolders(root / "Groups")
        base = root
    elif root.name == "Groups":
        folders = _subfolders(root)
        base = root.parent
    else:
        return [], None
    groups = [
        _Group(
            f.name,
            partial(iter_file_chunks, f / MESSAGES),
            file_size(f / MESSAGES),
            partial(_file_stamp, f / MESSAGES),
            partial(read_file, f / GROUP_INFO) if (f / GROUP_INFO).is_file() else None,
            f / MESSAGES,
            None,
        )
        for f in folders
        if (f / MESSAGES).is_file()
    ]
    return groups, _user_info(base)


def _user_info(base: Path) -> Callable[[], bytes] | None:
    """The reader of ``Users/User <id>/user_info.json`` in the ``Google Chat`` folder ``base``, if it is."""
    users = _subfolders(base / "Users") if (base / "Users").is_dir() else []
    user = next((u / USER_INFO for u in users if (u / USER_INFO).is_file()), None)
    return partial(read_file, user) if user else None


def _file_stamp(path: Path) -> bytes:
    """What stands for a file's bytes in its group's print: their hash (a zip member's is its CRC-32 and size:
    ``member_stamp``)."""
    with contextlib.closing(iter_file_chunks(path)) as chunks:
        return f"xxh3 {streamed_fingerprint([(file_size(path), chunks)])}".encode()


def _subfolders(folder: Path) -> list[Path]:
    with os.scandir(folder) as entries:
        return sorted(Path(e.path) for e in entries if e.is_dir())


def _is_messages(head: bytes) -> bool:
    head = head.lstrip()
    return head[:1] == b"{" and all(p.search(head) for p in _SNIFF)


def _head(path: Path) -> bytes:
    return sniff_head(path, SNIFF_BYTES)


def sniff(path: Path) -> bool:
    try:
        if path.is_dir():
            # By content too: other exports' folders hold a messages.json (Skype's); a group's may be empty.
            return any(_SNIFF[0].search(_head(g.path)) for g in _folder_groups(path)[0])
        if is_zip(path):
            with open_zip(path) as zf:
                return any(_GROUP_MEMBER.search(n) for n in files_matching(zf, r"(?:.*/)?messages\.json"))
        return _is_messages(_head(path))
    except (InputError, OSError, ValueError):
        return False


# --- reading ---------------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """``known``: the groups' fingerprints that earlier readings left (``_Print``): a group printed as it is
    is not read unless its messages are asked for, one grown since is read from the print's head on."""
    if path.is_dir():
        groups, user = _folder_groups(path)
        yield from _groups(groups, user, tz, known)
    elif is_zip(path):
        with open_zip(path) as zf:
            groups, user = _zip_groups(path, zf)
            if not groups:
                raise InputError(path, f"no Google Chat/Groups/*/messages.json in this zip; not {WHAT}")
            yield from _groups(groups, user, tz, known)
    else:
        info = path.with_name(GROUP_INFO)
        group = _Group(
            "",
            partial(iter_file_chunks, path),
            file_size(path),
            partial(_file_stamp, path),
            partial(read_file, info) if is_file(info) and info != path else None,
            path,
            None,
        )
        yield from _groups([group], _user_info(path.parent.parent.parent), tz, known)


def _json(data: bytes, path: Path, where: str | None) -> Any:
    try:
        return json.loads(decode_text(data, path, where))
    except json.JSONDecodeError as exc:
        place = ", ".join(p for p in (where, f"line {exc.lineno}") if p)
        what = "truncated JSON" if exc.pos >= len(exc.doc.rstrip()) else f"invalid JSON ({exc.msg})"
        raise InputError(path, what, place) from None
    except RecursionError:
        raise InputError(path, "nested too deeply", where) from None


def _groups(
    groups: list[_Group], user: Callable[[], bytes] | None, tz: tzinfo, known: Collection[str]
) -> Iterator[ChatExport]:
    me = None
    if user is not None:
        try:
            me = text_of(as_dict(as_dict(json.loads(user())).get("user")).get("email")) or None
        except (ValueError, RecursionError):
            me = None  # only marks the account's own messages; the chats read the same without it
    prints = _Print.parse(known)
    former = frozenset(text for text in known if _FORMER.fullmatch(text))
    for group in groups:
        yield _group(group, me, tz, prints, former)


def _group(
    group: _Group, me: str | None, tz: tzinfo, prints: dict[str, list[_Print]], former: frozenset[str]
) -> ChatExport:
    """A group's chat; its messages are built where they are read, as the file streams (``_Reading``: it is
    never held whole). A group an earlier reading printed (``_Print``, by its ``tag``) is taken as it is where
    its messages' stamp is the same (nothing inflated, its key from the print), and read on from the print's
    head where its messages' first bytes are the same; any other is read whole, after its first message is
    read for the chat's key. Its fingerprint is told once its messages are read (``_Reading.printed``).
    ``former``: the fingerprints an earlier release left (``_FORMER``), each the hash of a group's files: a
    group whose files hash as one did is read before as it is, and printed from now on without its messages
    read (``ChatExport.formerly``)."""
    raw_info = group.info() if group.info else b""
    info = as_dict(_json(raw_info, group.path, group.where)) if group.info else {}
    reading = _Reading(group, me, tz, fingerprint([group.folder.encode(), raw_info, (me or "").encode()]))
    earlier = prints.get(reading.tag, [])
    whole = reading.whole() if earlier else ""
    same = next((p for p in earlier if p.whole == whole), None)
    grown = None if same is not None else next((p for p in _by_items(earlier) if reading.go_on(p)), None)
    if same is not None or grown is not None:
        key = (same or grown).key  # type: ignore[union-attr]  # one of them is not None
    else:
        first_id = reading.first_id()
        key = first_id.split("/", 1)[0] if "/" in first_id else group.folder.split(" ", 1)[-1]
    if not key:
        raise InputError(group.path, "no message_id and no group folder to key the chat by", group.where)
    members = [as_dict(m) for m in as_list(info.get("members"))]
    others = [text_of(m.get("name")) for m in members if text_of(m.get("email")) != me and m.get("name")]
    name = text_of(info.get("name")).strip() or ", ".join(others) or group.folder or f"Google Chat {key}"
    kind = (
        "direct"
        if group.folder.startswith("DM ") or (not info.get("name") and len(members) == 2)
        else "group"
    )
    chat = Chat(FORMAT, key, name, kind=kind, raw=dump(info) if info else "")
    reading.key = key
    if same is not None:  # its messages are read only where the import asks for them
        return ChatExport(chat, reading.messages(), fingerprint=same.text)
    if former and not earlier and (formerly := reading.former(raw_info)) in former:
        told = _Print.write(reading.tag, reading.whole(), key, None, "")
        return ChatExport(chat, reading.messages(), fingerprint=told, formerly=formerly)
    return ChatExport(chat, reading.messages(), printed=reading.printed, passed=reading.passed)


def _by_items(prints: list[_Print]) -> list[_Print]:
    """The prints with a head, the furthest first: the one a grown group goes on from."""
    return sorted((p for p in prints if p.head is not None), key=lambda p: -p.head.items)  # type: ignore[union-attr]


_PRINTS = "google-chat-1"  # the kind of a group's fingerprint (``_Print``)
# A group's fingerprint before its prints (refind up to session 16): the hash of its messages.json, its
# group_info.json and the account's email, each framed by its length (``container.fingerprint``).
_FORMER = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True, slots=True)
class _Print:
    """What a group's reading leaves for the next one, in its fingerprint: which group it is, and what its
    reading depends on besides its messages (``tag``: the hash of its folder's name, its group_info.json and
    the account's email); the hash of that and of what stands for its messages.json's bytes (``whole``: in a
    zip the CRC-32 and size its directory holds, nothing inflated; a file's hash); the chat's key (its first
    message's, which a reading that passes over its messages does not read); and a head of its messages list
    (``jsonstream.Head``) with the hash of the bytes before it (``digest``): a later export whose group's first
    bytes hash the same holds its first messages as they were, and is read on from there."""

    tag: str
    whole: str
    key: str
    head: jsonstream.Head | None
    digest: str
    text: str  # the whole fingerprint

    @staticmethod
    def write(tag: str, whole: str, key: str, head: jsonstream.Head | None, digest: str) -> str:
        place = "-" if head is None else f"{head.offset}.{head.items}.{digest}"
        return f"{_PRINTS} {tag} {whole} {base64.urlsafe_b64encode(key.encode()).decode()} {place}"

    @classmethod
    def parse(cls, known: Collection[str]) -> dict[str, list[_Print]]:
        """The prints ``write`` wrote among ``known``, by tag; other fingerprints are passed over."""
        found: dict[str, list[_Print]] = {}
        for text in known:
            kind, *parts = text.split(" ")
            if kind != _PRINTS or len(parts) != 4:
                continue
            tag, whole, coded, place = parts
            try:
                key = base64.urlsafe_b64decode(coded.encode()).decode()
            except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
                continue
            offset, items, digest = [*place.split("."), "", ""][:3]
            head = jsonstream.Head(int(offset), int(items)) if offset.isdigit() and items.isdigit() else None
            found.setdefault(tag, []).append(cls(tag, whole, key, head, digest if head else "", text))
        return found


class _Reading:
    """One group's ``messages.json`` read as its chat's messages: whole, or on from the head of an earlier
    reading's print (``go_on``: the bytes before it are hashed, never parsed); and what its print needs."""

    def __init__(self, group: _Group, me: str | None, tz: tzinfo, tag: str) -> None:
        self.group, self.me, self.tz, self.tag = group, me, tz, tag
        self.key = ""
        self.events: jsonstream.JsonEvents | None = None
        self.entries: Generator[tuple[dict[str, Any], str], None, None] | None = None
        self.first: tuple[dict[str, Any], str] | None = None  # read for the key, not yet built
        self.passed = 0  # the messages before the head gone on from
        # What a head of the list needs: one list of messages (a second would count from its own start), and
        # every message before it with an id (identities of those after would depend on one without) and a
        # date (one without takes the time before it).
        self.lists = 0
        self.unnamed: int | None = None
        self.undated: int | None = None

    def whole(self) -> str:
        """The hash of the tag and the stamp of the group's messages."""
        return fingerprint([self.tag.encode(), self.group.stamp()])

    def former(self, raw_info: bytes) -> str:
        """The group's fingerprint as an earlier release told it (``_FORMER``): its files' bytes hashed."""
        me = (self.me or "").encode()
        with contextlib.closing(self.group.messages()) as chunks:
            return streamed_fingerprint(
                [(self.group.size, chunks), (len(raw_info), [raw_info]), (len(me), [me])]
            )

    def first_id(self) -> str:
        """The first message's id, read from the start of a whole reading ("" where there is none)."""
        self.entries = self._entries()
        self.first = next(self.entries, None)
        return text_of(self.first[0].get("message_id")) if self.first is not None else ""

    def go_on(self, earlier: _Print) -> bool:
        """Read on from ``earlier``'s head where the group's first bytes up to it hash as they did then."""
        assert earlier.head is not None
        head = earlier.head
        chunks = self.group.messages()
        cut = _cut(chunks, head.offset)
        if cut is None or cut[0] != earlier.digest:
            chunks.close()
            return False
        events = self._events(iter(()))
        passed = events.go_on(head, itertools.chain([cut[2]] if cut[2] else [], chunks), cut[1], ["messages"])
        if passed is None:
            chunks.close()
            return False
        self.passed = head.items
        self.entries = self._entries(events, passed, chunks)
        return True

    def _events(self, chunks: Iterator[bytes]) -> jsonstream.JsonEvents:
        stream = jsonstream.Stream(chunks, _error(self.group), _RULES)
        stream.cut_after = b"}"  # read blocks end after a message where they can: the heads of the list
        stream.cut_before = jsonstream.NEXT_OBJECT  # not after its creator's object: the next message follows
        self.events = jsonstream.JsonEvents(stream)
        return self.events

    def _entries(
        self,
        events: jsonstream.JsonEvents | None = None,
        passed: jsonstream.Ends | None = None,
        rest: Generator[bytes, None, None] | None = None,
    ) -> Generator[tuple[dict[str, Any], str], None, None]:
        """The items of the file's ``messages`` list, each with its place (``messages[3]``), as the file streams
        (from the head ``passed`` on, where given: ``events`` read the file's chunks ``rest``); an error where
        the file is not a ``{"messages": [...]}`` object or an item is not a JSON object."""
        group = self.group
        chunks = group.messages() if events is None else rest
        with contextlib.closing(chunks) if chunks is not None else contextlib.nullcontext():
            if events is None:
                events = self._events(chunks)  # type: ignore[arg-type]  # given where events are not
                if events.next()[0] != "start_map":
                    raise InputError(
                        group.path, f'not a {{"messages": [...]}} object; not {WHAT}', group.where
                    )
            else:
                self.lists = 1
                yield from self._items(events, passed)
            while (found := events.next())[0] == "map_key":
                event, value = events.next()
                if found[1] != "messages":
                    events.value(event, value, found[1])  # what else the object holds: read past
                    continue
                if event != "start_array":
                    raise InputError(
                        group.path, f'not a {{"messages": [...]}} object; not {WHAT}', group.where
                    )
                self.lists += 1
                yield from self._items(events, None)
            events.finish()

    def _items(
        self, events: jsonstream.JsonEvents, passed: jsonstream.Ends | None
    ) -> Iterator[tuple[dict[str, Any], str]]:
        error = _error(self.group)
        n = 0 if passed is None else passed.count
        for entry, where in events.array("messages", passed):
            if not isinstance(entry, dict):
                raise error("a message is not a JSON object", where)
            if self.unnamed is None and not text_of(entry.get("message_id")):
                self.unnamed = n
            n += 1
            yield entry, where

    def messages(self) -> Iterator[Message]:
        gaps = fields.Gaps(self.group.path)
        dates = _Dates(self.group, self.tz)
        if self.entries is None:
            self.first_id()
        entries, self.entries = self.entries, None
        assert entries is not None
        first, self.first = self.first, None
        skip = 0
        try:
            if self.passed:
                first = next(entries, None)
                if first is not None and created(text_of(first[0].get("created_date")), self.tz) is None:
                    # It takes the time of the message before the head: read from the start, and build the
                    # messages from the head on.
                    entries.close()
                    self.lists, self.unnamed = 0, None  # counted again from the start
                    entries, skip, first = self._entries(), self.passed, None
            with contextlib.closing(entries):
                for n, (entry, where) in enumerate(itertools.chain([first] if first else [], entries)):
                    # The messages of ``entry`` and of those before it that waited for a readable date.
                    for made, when in dates.of(entry, where):
                        if n >= skip:
                            yield _built(made, when, gaps, self.me)
                    if self.undated is None and dates.undated:
                        self.undated = n + self.passed - skip
        except InputError as exc:
            # A reading gone on from a head reads in other blocks: the error is the one a whole reading meets.
            raise (self._first_error() or exc) if self.passed else exc from None
        dates.done()
        gaps.warn()

    def _first_error(self) -> InputError | None:
        try:
            collections.deque(_Reading(self.group, self.me, self.tz, self.tag).messages(), maxlen=0)
        except InputError as exc:
            return exc
        return None

    def printed(self) -> str | None:
        """The group's print, its messages read: with the latest head of its list where a later reading may
        go on from it."""
        head = self.events.head if self.events is not None else None
        if (
            head is None
            or self.lists != 1
            or min(
                self.unnamed if self.unnamed is not None else head.items,
                self.undated if self.undated is not None else head.items,
            )
            < head.items
        ):
            head = None
        cut = None
        if head is not None:
            with contextlib.closing(self.group.messages()) as chunks:
                cut = _cut(chunks, head.offset)
        return _Print.write(self.tag, self.whole(), self.key, head if cut else None, cut[0] if cut else "")


def _cut(chunks: Iterator[bytes], offset: int) -> tuple[str, bytes, bytes] | None:
    """Of a file's chunks, the hash of its first ``offset`` bytes, the last bytes before it (to tell a head's
    comma by: ``JsonEvents.go_on``) and the rest of the chunk it lies in; None where the file is shorter."""
    import xxhash

    h = xxhash.xxh3_128()
    at, tail = 0, b""
    for chunk in chunks:
        take = chunk[: offset - at]
        h.update(take)
        tail = (tail + take)[-_BEFORE:]
        at += len(take)
        if at == offset:
            return h.hexdigest(), tail, chunk[len(take) :]
    return None


_BEFORE = 4096  # the bytes before a head kept for ``JsonEvents.go_on``


def _error(group: _Group) -> ErrorMaker:
    def error(what: str, where: str | None) -> InputError:
        return InputError(group.path, what, ", ".join(p for p in (group.where, where) if p) or None)

    return error


def _built(entry: dict[str, Any], when: datetime, gaps: fields.Gaps, me: str | None) -> Message:
    if entry.get("text") is None and not entry.get("attached_files"):
        gaps.lack("message", "text")
    return _message(entry, me, when)


class _Dates:
    """Each message's time. One whose ``created_date`` cannot be read (other tools have seen ``Unknown
    Date``) takes the time of the message before it, the first ones that of the first readable one (they
    wait for it, put aside: ``spool.Spool``); one warning for the file says how many (``done``)."""

    def __init__(self, group: _Group, tz: tzinfo) -> None:
        self.group, self.tz = group, tz
        self.known: datetime | None = None
        self.undated = 0
        self.first: tuple[str, Any] | None = None  # the first undated message's place and date
        self.waiting: spool.Spool[dict[str, Any]] = spool.Spool()
        self.waited = 0

    def of(self, entry: dict[str, Any], where: str) -> Iterator[tuple[dict[str, Any], datetime]]:
        when = created(text_of(entry.get("created_date")), self.tz)
        if when is None:
            self.undated += 1
            self.first = self.first or (where, entry.get("created_date"))
            if self.known is None:
                self.waiting.put(0, entry)
                self.waited += 1
                return
            when = self.known
        elif self.waited:
            yield from ((waited, when) for waited in self.waiting.records(0))
            self.waiting.close()
            self.waited = 0
        self.known = when
        yield entry, when

    def done(self) -> None:
        if not self.undated:
            return
        if self.known is None:
            raise InputError(
                self.group.path, "no message has a created_date refind can read", self.group.where
            )
        assert self.first is not None
        place, stamp = self.first
        what = (
            f"{self.undated:,} message{'s' if self.undated > 1 else ''} whose created_date cannot be read, the "
            f"first at {place} ({stamp!r}); each takes the time of the message before it"
        )
        warnings.warn(InputWarning(self.group.path, what, self.group.where), stacklevel=4)


def _message(entry: dict[str, Any], me: str | None, when: datetime) -> Message:
    creator = as_dict(entry.get("creator"))
    stamp = text_of(entry.get("created_date"))
    files = [
        text_of(as_dict(f).get("original_name")) or text_of(as_dict(f).get("export_name")) or "file"
        for f in as_list(entry.get("attached_files"))
    ]
    email = text_of(creator.get("email")) or None
    if text_of(creator.get("user_type")).lower() == "bot":
        kind = Kind.BOT
    elif files:
        kind = Kind.ATTACHMENT
    else:
        kind = Kind.TEXT
    ident = text_of(entry.get("message_id")) or None
    return Message(
        timestamp=when,
        sender=text_of(creator.get("name")) or email,
        text=join(text_of(entry.get("text")), *(f"[attachment: {f}]" for f in files)),
        kind=kind,
        source_id=ident,
        sender_id=email,
        local_time=None if ident else stamp,
        raw=dump(entry),
        own=me is not None and email == me,
    )


def created(stamp: str, tz: tzinfo) -> datetime | None:
    """``Monday, April 27, 2015 at 8:29:01 PM UTC`` as aware UTC; None if it cannot be read."""
    m = _DATE.fullmatch(stamp.strip())
    if m is None:
        return None
    try:
        when = datetime.strptime(f"{m['date']} {m['time']} {m['ampm']}", "%B %d, %Y %I:%M:%S %p")
    except ValueError:
        return None
    zone = UTC if m["zone"] in _UTC_ZONES else tz
    return when.replace(tzinfo=zone).astimezone(UTC)
