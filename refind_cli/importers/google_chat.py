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

import json
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import fields
from refind_cli.importers.container import (
    decode_text,
    files_matching,
    fingerprint,
    is_file,
    is_zip,
    member_names,
    open_zip,
    read_file,
    read_member,
    sniff_head,
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


@dataclass(frozen=True, slots=True)
class _Group:
    """One group's files: how to read each (None: not there), and what errors name."""

    folder: str  # the group folder's name ("" for a messages.json alone)
    messages: Callable[[], bytes]
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
                    partial(read_member, zf, name, path),
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
            partial(read_file, f / MESSAGES),
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
            partial(read_file, path),
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
    """A group's chat; its messages are built where they are read (``ChatExport.fingerprint``: the group's
    files and the account, all they depend on besides the zone, which the import's settings hold)."""
    raw = group.messages()
    data = _json(raw, group.path, group.where)
    if not isinstance(data, dict) or not isinstance(data.get("messages", []), list):
        raise InputError(group.path, f'not a {{"messages": [...]}} object; not {WHAT}', group.where)
    raw_info = group.info() if group.info else b""
    info = as_dict(_json(raw_info, group.path, group.where)) if group.info else {}
    entries = as_list(data.get("messages"))
    first_id = next((text_of(as_dict(e).get("message_id")) for e in entries if isinstance(e, dict)), "")
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
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            where = ", ".join(p for p in (group.where, f"messages[{index}]") if p)
            raise InputError(group.path, "a message is not a JSON object", where)

    def messages() -> Iterator[Message]:
        times = _times(entries, group, tz)
        gaps = fields.Gaps(group.path)
        for entry, when in zip(entries, times, strict=True):
            if entry.get("text") is None and not entry.get("attached_files"):
                gaps.lack("message", "text")
            yield _message(entry, me, when)
        gaps.warn()

    return ChatExport(chat, messages(), fingerprint=fingerprint([raw, raw_info, (me or "").encode()]))


def _times(entries: list[dict[str, Any]], group: _Group, tz: tzinfo) -> list[datetime]:
    """Each message's time. One whose ``created_date`` cannot be read (other tools have seen ``Unknown
    Date``) takes the time of the message before it, the first ones that of the first readable one; one
    warning for the file says how many."""
    times = [created(text_of(e.get("created_date")), tz) for e in entries]
    undated = [i for i, t in enumerate(times) if t is None]
    if not undated:
        return [t for t in times if t is not None]
    known = next((t for t in times if t is not None), None)
    if known is None:
        raise InputError(group.path, "no message has a created_date refind can read", group.where)
    filled: list[datetime] = []
    for t in times:
        known = t or (filled[-1] if filled else known)
        filled.append(known)
    first = entries[undated[0]].get("created_date")
    what = (
        f"{len(undated):,} message{'s' if len(undated) > 1 else ''} whose created_date cannot be read, the "
        f"first at messages[{undated[0]}] ({first!r}); each takes the time of the message before it"
    )
    warnings.warn(InputWarning(group.path, what, group.where), stacklevel=3)
    return filled


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
