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

import contextlib
import json
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Generator, Iterator
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
    is_file,
    is_zip,
    iter_file_chunks,
    iter_member_chunks,
    member_names,
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
    given a chunk at a time, with its size (what its fingerprint hashes before its bytes)."""

    folder: str  # the group folder's name ("" for a messages.json alone)
    messages: Callable[[], Generator[bytes, None, None]]
    size: int
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


def read(path: Path, *, tz: tzinfo) -> Iterator[ChatExport]:
    if path.is_dir():
        groups, user = _folder_groups(path)
        yield from _groups(groups, user, tz)
    elif is_zip(path):
        with open_zip(path) as zf:
            groups, user = _zip_groups(path, zf)
            if not groups:
                raise InputError(path, f"no Google Chat/Groups/*/messages.json in this zip; not {WHAT}")
            yield from _groups(groups, user, tz)
    else:
        info = path.with_name(GROUP_INFO)
        group = _Group(
            "",
            partial(iter_file_chunks, path),
            file_size(path),
            partial(read_file, info) if is_file(info) and info != path else None,
            path,
            None,
        )
        yield from _groups([group], _user_info(path.parent.parent.parent), tz)


def _json(data: bytes, path: Path, where: str | None) -> Any:
    try:
        return json.loads(decode_text(data, path, where))
    except json.JSONDecodeError as exc:
        place = ", ".join(p for p in (where, f"line {exc.lineno}") if p)
        what = "truncated JSON" if exc.pos >= len(exc.doc.rstrip()) else f"invalid JSON ({exc.msg})"
        raise InputError(path, what, place) from None
    except RecursionError:
        raise InputError(path, "nested too deeply", where) from None


def _groups(groups: list[_Group], user: Callable[[], bytes] | None, tz: tzinfo) -> Iterator[ChatExport]:
    me = None
    if user is not None:
        try:
            me = text_of(as_dict(as_dict(json.loads(user())).get("user")).get("email")) or None
        except (ValueError, RecursionError):
            me = None  # only marks the account's own messages; the chats read the same without it
    for group in groups:
        yield _group(group, me, tz)


def _group(group: _Group, me: str | None, tz: tzinfo) -> ChatExport:
    """A group's chat; its messages are built where they are read, as the file streams (``_entries``: it is
    never held whole), after its first message is read for the chat's key. ``ChatExport.fingerprint``: the
    group's files and the account, all they depend on besides the zone, which the import's settings hold."""
    entries = _entries(group)
    first = next(entries, None)
    raw_info = group.info() if group.info else b""
    info = as_dict(_json(raw_info, group.path, group.where)) if group.info else {}
    first_id = text_of(first[0].get("message_id")) if first is not None else ""
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
    with contextlib.closing(group.messages()) as chunks:
        told = streamed_fingerprint(
            [
                (group.size, chunks),
                (len(raw_info), [raw_info]),
                (len((me or "").encode()), [(me or "").encode()]),
            ]
        )

    def messages() -> Iterator[Message]:
        gaps = fields.Gaps(group.path)
        dates = _Dates(group, tz)
        with contextlib.closing(entries):
            for entry, where in [first] if first is not None else []:
                yield from _built(entry, where, dates, gaps, me)
            for entry, where in entries:
                yield from _built(entry, where, dates, gaps, me)
        dates.done()
        gaps.warn()

    return ChatExport(chat, messages(), fingerprint=told)


def _entries(group: _Group) -> Generator[tuple[dict[str, Any], str], None, None]:
    """The items of the file's ``messages`` list, each with its place (``messages[3]``), as the file streams;
    an error where the file is not a ``{"messages": [...]}`` object or an item is not a JSON object."""
    error = _error(group)
    with contextlib.closing(group.messages()) as chunks:
        events = jsonstream.JsonEvents(jsonstream.Stream(chunks, error, _RULES))
        if events.next()[0] != "start_map":
            raise InputError(group.path, f'not a {{"messages": [...]}} object; not {WHAT}', group.where)
        while (found := events.next())[0] == "map_key":
            event, value = events.next()
            if found[1] != "messages":
                events.value(event, value, found[1])  # what else the object holds: read past
                continue
            if event != "start_array":
                raise InputError(group.path, f'not a {{"messages": [...]}} object; not {WHAT}', group.where)
            for entry, where in events.array("messages"):
                if not isinstance(entry, dict):
                    raise error("a message is not a JSON object", where)
                yield entry, where
        events.finish()


def _error(group: _Group) -> ErrorMaker:
    def error(what: str, where: str | None) -> InputError:
        return InputError(group.path, what, ", ".join(p for p in (group.where, where) if p) or None)

    return error


def _built(
    entry: dict[str, Any], where: str, dates: _Dates, gaps: fields.Gaps, me: str | None
) -> Iterator[Message]:
    """The message of ``entry``, and of those before it that waited for a readable date (``_Dates``)."""
    for made, when in dates.of(entry, where):
        if made.get("text") is None and not made.get("attached_files"):
            gaps.lack("message", "text")
        yield _message(made, me, when)


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
