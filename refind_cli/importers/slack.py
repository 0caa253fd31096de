"""Slack workspace export, as the downloaded zip or its unpacked folder.

Top level: ``channels.json``, ``groups.json``, ``dms.json``, ``mpims.json`` and ``users.json`` (or
``org_users.json`` on Enterprise Grid), all optional, and one folder per conversation holding one
``YYYY-MM-DD.json`` array of messages per day. A thread's replies are filed under the day they were
written, so a conversation is read whole and ordered by ``ts`` rather than by file.

Text is Slack's mrkdwn. What the index needs from it: mentions resolved to names, links kept as both label
and URL (``label (url)``; just the URL when the label only repeats it), special mentions as ``@here``,
entities unescaped. ``*bold*`` and ``:emoji:`` stay as written: the analyzer drops the punctuation.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import json
import re
import warnings
import zipfile
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import fields, spool
from refind_cli.importers.container import (
    decode_text,
    fingerprint,
    is_zip,
    member_names,
    member_stamp,
    open_zip,
    prefix_fingerprints,
    read_file,
    read_member,
)
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "slack"

_DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}\.json")
# Conversation lists, in the order a folder name is looked up: a DM folder is its id, the others a name.
_LISTS = (
    ("channels.json", "channel"),
    ("groups.json", "channel"),
    ("mpims.json", "group"),
    ("dms.json", "direct"),
)
_USER_LISTS = ("users.json", "org_users.json")
_METADATA = frozenset(name for name, _ in _LISTS) | frozenset(_USER_LISTS)
_SYSTEM_SUBTYPES = frozenset(
    f"{prefix}_{event}"
    for prefix in ("channel", "group")
    for event in ("join", "leave", "topic", "purpose", "name", "archive", "unarchive")
) | {"bot_add", "bot_remove", "pinned_item", "unpinned_item", "channel_convert_to_private"}
_TS = re.compile(r"(\d{1,12})(?:\.(\d{1,9}))?")
_MARKUP = re.compile(r"<([^<>]*)>")
_ENTITY = re.compile(r"&(amp|lt|gt);")
_ENTITIES = {"amp": "&", "lt": "<", "gt": ">"}
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?://)?")


# --- the export as a tree of named files, zipped or not --------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tree:
    """File names relative to the export's top folder, and a reader that raises InputError naming the file."""

    names: frozenset[str]
    read: Callable[[str], bytes]
    place: Callable[[str], tuple[Path, str | None]]  # path and "where" for errors about one file
    # What stands for a file's bytes in its channel's fingerprint: in a zip, the CRC-32 and size its central
    # directory holds (nothing decompressed); in a folder, the bytes themselves.
    stamp: Callable[[str], bytes]


def _folder_tree(root: Path) -> _Tree:
    names: set[str] = set()
    try:
        for child in root.iterdir():
            if child.is_file():
                names.add(child.name)
            elif child.is_dir():
                names.update(f"{child.name}/{f.name}" for f in child.iterdir() if f.is_file())
    except OSError as exc:
        raise InputError(root, f"cannot list the folder ({exc.strerror or exc})") from None
    return _Tree(
        frozenset(names),
        lambda name: read_file(root / name),
        lambda name: (root / name, None),
        lambda name: read_file(root / name),
    )


def _zip_tree(path: Path, zf: zipfile.ZipFile) -> _Tree:
    names = member_names(zf)
    prefix = _top_folder(names)
    return _Tree(
        frozenset(n[len(prefix) :] for n in names) if prefix else frozenset(names),
        lambda name: read_member(zf, prefix + name, path),
        lambda name: (path, f"entry {prefix + name!r}"),
        lambda name: member_stamp(zf, prefix + name),
    )


def _top_folder(names: list[str]) -> str:
    """A zip made from the export folder, rather than by Slack, holds everything under one folder."""
    top = names[0].split("/", 1)[0] + "/" if names else ""
    if all(map(str.startswith, names, itertools.repeat(top))):
        inner = [n[len(top) :] for n in names]
        if any(n in _METADATA or _is_day_file(n) for n in inner):
            return top
    return ""


def _is_day_file(name: str) -> bool:
    parts = name.split("/")
    return len(parts) == 2 and bool(_DAY_FILE.fullmatch(parts[1]))


def _is_slack(names: frozenset[str] | list[str]) -> bool:
    return "channels.json" in names or any(_is_day_file(n) for n in names)


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    try:
        if path.is_dir():
            return _is_slack(_folder_tree(path).names)
        if is_zip(path):
            with open_zip(path) as zf:
                return _is_slack(_zip_tree(path, zf).names)
    except (InputError, OSError, ValueError):
        return False
    return False


# --- reading -----------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """Slack times are epoch seconds, so ``tz`` is not needed. ``known``: the channels' fingerprints that
    earlier readings left (``_Point``); a channel that grew by days since one is read from those days on."""
    if path.is_dir():
        yield from _read_tree(path, _folder_tree(path), known)
    elif is_zip(path):
        with open_zip(path) as zf:
            yield from _read_tree(path, _zip_tree(path, zf), known)
    else:
        raise InputError(path, "a Slack export is a zip or a folder of JSON files")


@dataclass(frozen=True, slots=True)
class _Directory:
    """Who and what ids stand for: users by id, channel names by id, conversation records by folder."""

    users: dict[str, dict[str, Any]]
    channels: dict[str, str]
    conversations: dict[str, tuple[str, dict[str, Any]]]  # folder -> (kind, record)
    me: str | None  # the exporting user, when the DM list shows one
    workspace: str | None  # the team id most users belong to, when the user lists name teams
    owner: str | None  # the workspace's primary owner, when the user list marks one


def _read_tree(path: Path, tree: _Tree, known: Collection[str] = ()) -> Iterator[ChatExport]:
    directory = _directory(tree)
    named = _named_workspace(path)
    folders: dict[str, list[str]] = {}
    for name in sorted(tree.names):
        if _is_day_file(name):
            folder, day = name.split("/")
            folders.setdefault(folder, []).append(day)
    if not folders and not (directory.users or directory.channels or directory.conversations):
        raise InputError(
            path, "no Slack conversations: no channels.json or users.json, no <channel>/YYYY-MM-DD.json"
        )
    if folders and not any(name in tree.names for name in _USER_LISTS):
        # Its people's names are in users.json: without it, a message names its sender only where it carries
        # a profile. A drive's download in parts may hold it in another part.
        what = (
            "no users.json: a sender is named as the message names them, else by their id (a part of a "
            "download in parts? import the parts from one folder)"
        )
        warnings.warn(InputWarning(path, what), stacklevel=2)
    names = _names(directory)
    points = _Point.parse(known)
    gaps = fields.Gaps(path)
    for folder, days in folders.items():
        chat = _chat(folder, directory, named)
        context = [names, chat.source.encode(), chat.key.encode()]
        channel = _Channel(tree, folder, days, directory, context, gaps, points)
        earlier = channel.earlier
        # Read before as it is: the point after all the days of a reading (the other one, after all but its
        # last, is a shorter channel's, whose messages that reading counted too many of).
        same = next(
            (p for p in earlier if p.whole and p.days == len(days) and p.digest == channel.digest(p.days)),
            None,
        )
        if same is not None:  # its messages are built only where asked for
            yield ChatExport(chat, channel.messages(), fingerprint=same.text)
            continue
        grown = sorted((p for p in earlier if p.days < len(days)), key=lambda p: -p.days)
        start = next((p for p in grown if p.digest == channel.digest(p.days)), None)
        passed = channel.go_on(start) if start is not None else 0
        yield ChatExport(chat, channel.messages(), printed=channel.printed, passed=passed)
    gaps.warn()


@dataclass(frozen=True, slots=True)
class _Point:
    """What a channel's reading leaves for the next one, in its fingerprint: of its first ``days`` day files,
    the hash of their names and stamps (with the names its messages take and the chat's key: ``digest``),
    the latest ``ts`` of their messages and how many they hold. A later export whose first ``days`` files
    hash the same is read from the file after them on, as long as every message there is later than
    ``last``: a reply lies in the day file of its parent or a later one, so none of the files passed over
    marks a message read now as threaded (nor the reverse, which would change a stored row the full reading
    keeps too). Two are left, after all the days and after all but the last: the last day file of an export
    made that day grows."""

    tag: str  # which chat (a hash of its key and the names its messages take)
    days: int
    last: tuple[int, int]
    count: int
    digest: str
    text: str  # the whole fingerprint this point was found in
    whole: bool = False  # the point after all the days of the reading that left it

    def write(self) -> str:
        return f"{self.days}:{self.last[0]}.{self.last[1]:09d}:{self.count}:{self.digest}"

    @classmethod
    def parse(cls, known: Collection[str]) -> dict[str, list[_Point]]:
        """The points of the fingerprints ``_Channel.printed`` wrote, by chat; others are passed over."""
        found: dict[str, list[_Point]] = {}
        for text in known:
            kind, _, rest = text.partition(" ")
            tag, *points = rest.split(" ")
            if kind != _PRINTS:
                continue
            for n, point in enumerate(points, 1):
                with contextlib.suppress(ValueError):
                    days, last, count, digest = point.split(":")
                    seconds, nanos = last.split(".")
                    when = (int(seconds), int(nanos))
                    made = cls(tag, int(days), when, int(count), digest, text, n == len(points))
                    found.setdefault(tag, []).append(made)
        return found


_PRINTS = "slack-days-1"  # the kind of a channel's fingerprint (``_Point``)


class _Channel:
    """One conversation's day files read as a chat: whole, or from a ``_Point`` of an earlier reading on."""

    def __init__(
        self,
        tree: _Tree,
        folder: str,
        days: list[str],
        directory: _Directory,
        context: list[bytes],
        gaps: fields.Gaps,
        points: dict[str, list[_Point]],
    ) -> None:
        self.tree, self.folder, self.days, self.directory, self.gaps = tree, folder, days, directory, gaps
        # A channel's messages are made of its day files and the names of users and channels, no more.
        self.context = context
        self.tag = fingerprint(context)[:16]
        self.earlier = points.get(self.tag, [])  # the points earlier readings of it left
        # What ``digest`` gives: the hash of the context and the first n day files' names and stamps, for each
        # n a point of an earlier reading is checked at or one of this reading's is written at; the files'
        # stamps hashed in one pass, not held (a folder's stamps are the files' bytes).
        wanted = {p.days for p in self.earlier} | {len(days) - 1, len(days)}
        stamps = ((day.encode(), tree.stamp(f"{folder}/{day}")) for day in days)
        self._digests = prefix_fingerprints(context, stamps, wanted)
        self.start: _Point | None = None
        self.read: _Gathered | None = None  # the day files from the start on, once read

    def digest(self, days: int) -> str | None:
        """The hash of the first ``days`` day files (with the context); None for a count no point asks for."""
        return self._digests.get(days)

    def go_on(self, start: _Point) -> int:
        """Read the day files after ``start``'s; the messages before them, where every message read is
        later than those (else the channel is read whole: 0)."""
        read = self._gather(self.days[start.days :])
        if any(earliest is not None and earliest <= start.last for _, _, earliest in read.days):
            read.sorted.close()
            return 0
        self.start, self.read = start, read
        return start.count

    def messages(self) -> Iterator[Message]:
        """Its messages, in ``ts`` order (a stable sort keeps same-ts messages in file order)."""
        if self.read is None:
            self.read = self._gather(self.days)
        read = self.read
        try:
            for _, rooted, made in read.sorted:
                message = Message._make(made)
                # A message that starts a thread only where a reply names it: the replies are all read now.
                if rooted and message.source_id in read.replied:
                    message = message._replace(thread=message.source_id)
                yield message
        finally:
            read.sorted.close()

    def _gather(self, days: list[str]) -> _Gathered:
        """The messages of ``days``' files, built as each file is read and put in ``ts`` order
        (``spool.Sorted``: a channel of a million messages is not held whole), and what the channel's
        fingerprint and a thread's root need of them."""
        read = _Gathered(spool.Sorted(_by_ts), set(), [])
        for day in days:
            entries = self._day(day)
            for key, obj, timestamp, raw in entries:
                message = _message(obj, timestamp, raw, _NO_REPLIES, self.directory)
                ts, thread = obj["ts"], _str(obj.get("thread_ts"))
                if thread and thread != ts:
                    read.replied.add(thread)
                read.sorted.add((key, thread == ts and message.thread is None, tuple(message)))
            keys = [entry[0] for entry in entries]
            read.days.append((len(entries), max(keys, default=None), min(keys, default=None)))
        return read

    def printed(self) -> str | None:
        """Its fingerprint, its day files read: the points after all of them and after all but the last."""
        if self.read is None:
            return None
        start = self.start or _Point(self.tag, 0, (-1, 0), 0, "", "")
        points = [start] if start.days else []
        count, last = start.count, start.last
        for n, (entries, latest, _) in enumerate(self.read.days, start.days + 1):
            count += entries
            last = last if latest is None else max(last, latest)
            if n >= len(self.days) - 1:
                points.append(_Point(self.tag, n, last, count, self._digests[n], ""))
        return " ".join([_PRINTS, self.tag, *(p.write() for p in points[-2:])])

    def _day(self, day: str) -> list[_Entry]:
        name = f"{self.folder}/{day}"
        data = _load_json(self.tree, name)
        path, where = self.tree.place(name)
        if not isinstance(data, list):
            raise InputError(path, "a day file is not a JSON array of messages", where)
        entries = []
        for index, obj in enumerate(data):
            place = _join_where(where, f"message {index}")
            if not isinstance(obj, dict):
                raise InputError(path, "a message is not a JSON object", place)
            key, timestamp = _parse_ts(obj.get("ts"), path, place)
            if obj.get("text") is None:  # Slack writes "" for a message of files alone
                self.gaps.lack("message", "text")
            try:
                raw = json.dumps(obj, ensure_ascii=False, sort_keys=True)
            except RecursionError:
                raise InputError(path, "message nested too deeply", place) from None
            entries.append((key, obj, timestamp, raw))
        return entries


# A message of a day file: its ``ts`` as exact (seconds, nanoseconds), its object, time and raw record.
_Entry = tuple[tuple[int, int], dict[str, Any], datetime, str]
# A message as ``_Gathered`` sorts it: its ``ts``, whether it starts a thread only if a reply names it, its
# fields (``Message._make`` makes it again).
_Built = tuple[tuple[int, int], bool, tuple[Any, ...]]
_NO_REPLIES: frozenset[str] = frozenset()


def _by_ts(built: _Built) -> tuple[int, int]:
    return built[0]


@dataclass(frozen=True, slots=True)
class _Gathered:
    """A channel's day files read: its messages in ``ts`` order, the threads its replies name, and each
    day's messages with their latest and earliest ``ts`` (None: none)."""

    sorted: spool.Sorted[_Built]
    replied: set[str]
    days: list[tuple[int, tuple[int, int] | None, tuple[int, int] | None]]


def _names(directory: _Directory) -> bytes:
    """What a message's sender and text take from the directory: users' names by id, channels' by id."""
    users = {ident: _user_name(user) for ident, user in directory.users.items()}
    return json.dumps([sorted(users.items()), sorted(directory.channels.items())]).encode()


def _load_list(tree: _Tree, name: str) -> list[dict[str, Any]]:
    if name not in tree.names:
        return []
    data = _load_json(tree, name)
    path, where = tree.place(name)
    if not isinstance(data, list):
        raise InputError(path, "is not a JSON array", where)
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            raise InputError(path, "an entry is not a JSON object", _join_where(where, f"item {index}"))
    return data


def _load_json(tree: _Tree, name: str) -> Any:
    path, where = tree.place(name)
    text = decode_text(tree.read(name), path, where)
    try:
        data = json.loads(text)
        return _scrub(data) if _SURROGATE_ESCAPE.search(text) else data
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"invalid JSON ({exc.msg})", _join_where(where, f"line {exc.lineno} column {exc.colno}")
        ) from None
    except RecursionError:
        raise InputError(path, "JSON nested too deeply", where) from None


def _scrub(value: Any) -> Any:
    """Replace lone surrogates (a ``\\ud83d`` whose pair was cut off) with U+FFFD: such strings cannot be
    stored as UTF-8 at all. Escaped pairs were already joined into one character by the JSON decoder."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {_scrub(k): _scrub(v) for k, v in value.items()}
    return value


def _join_where(where: str | None, detail: str) -> str:
    return f"{where}, {detail}" if where else detail


def _directory(tree: _Tree) -> _Directory:
    users: dict[str, dict[str, Any]] = {}
    for name in _USER_LISTS:
        for record in _load_list(tree, name):
            if isinstance(record.get("id"), str):
                users[record["id"]] = record
    channels: dict[str, str] = {}
    conversations: dict[str, tuple[str, dict[str, Any]]] = {}
    dms: list[dict[str, Any]] = []
    for name, kind in _LISTS:
        for record in _load_list(tree, name):
            ident, label = _str(record.get("id")), _str(record.get("name"))
            if ident and label:
                channels[ident] = label
            # Folders are named by channel name (by id for DMs); some tools name them all by id.
            for folder in (label, ident):
                if folder and folder not in conversations:
                    conversations[folder] = (kind, record)
            if kind == "direct":
                dms.append(record)
    return _Directory(users, channels, conversations, _exporter(dms), _workspace(users), _owner(users))


def _exporter(dms: list[dict[str, Any]]) -> str | None:
    """A personal export's DMs all include its owner; an admin's export of everyone's DMs has no such user."""
    common: set[str] | None = None
    for record in dms:
        members = {m for m in record.get("members") or [] if isinstance(m, str)}
        common = members if common is None else common & members
    return next(iter(common)) if common and len(common) == 1 and len(dms) > 1 else None


def _workspace(users: dict[str, dict[str, Any]]) -> str | None:
    """The workspace the export comes from: the team of most of its users (guests from other teams of a
    shared channel are few); the smallest id on a tie, so the same export always gives the same answer.
    Channel ids are unique only within a workspace, and exports of two workspaces can reuse them."""
    teams = collections.Counter(t for u in users.values() if (t := _str(u.get("team_id"))))
    return min(teams, key=lambda team: (-teams[team], team)) if teams else None


def _owner(users: dict[str, dict[str, Any]]) -> str | None:
    """The workspace's primary owner: one a workspace, the same in each of its exports."""
    return min((i for i, u in users.items() if u.get("is_primary_owner") is True), default=None)


# "Acme Slack export Jan 1 2024 - Mar 1 2024.zip", as Slack names the download (and its unpacked folder).
_EXPORT_NAME = re.compile(r"(.+?) Slack export\b", re.IGNORECASE)


def _named_workspace(path: Path) -> str | None:
    """The workspace's name, from the name Slack gives the export: the last resort, since a user may rename
    the file (and an earlier release's key where nothing else told the workspace)."""
    found = _EXPORT_NAME.match(path.name)
    return f"name:{found[1].strip()}" if found else None


def _created(record: dict[str, Any]) -> str | None:
    """When the conversation was made (epoch seconds, a number or a string of digits): with its id, it tells
    one workspace's ``#general`` from another's that reuses the id, and stays the same in every export."""
    value = fields.ident(record.get("created"))  # 1449252889, 1449252889.0 or "1449252889"
    return str(int(value)) if value is not None and value.isascii() and value.isdigit() else None


def _user_name(user: dict[str, Any]) -> str | None:
    """A users.json record (names under ``profile``) or a message's ``user_profile`` (names at the top)."""
    profile = found if isinstance(found := user.get("profile"), dict) else {}
    candidates = (profile.get("display_name"), profile.get("real_name"), user.get("display_name"))
    for value in (*candidates, user.get("real_name"), user.get("name")):
        if isinstance(value, str) and value.strip():
            return value
    return None


def _name_of(ident: str, directory: _Directory) -> str:
    user = directory.users.get(ident)
    return (_user_name(user) if user else None) or ident


def _chat(folder: str, directory: _Directory, named: str | None) -> Chat:
    kind, record = directory.conversations.get(folder, (_guess_kind(folder), {}))
    ident = _str(record.get("id")) or folder
    key = _key(ident, record, directory, named)
    # Earlier releases keyed a chat by its id alone, or by the export's name where no user named a team.
    former = f"{named}/{ident}" if named and directory.workspace is None else ident
    former_key = None if former == key else former
    members = [m for m in record.get("members") or [] if isinstance(m, str)]
    if kind == "direct":
        others = [m for m in dict.fromkeys(members) if m != directory.me] or members[:1]
        name = ", ".join(_name_of(m, directory) for m in others) or folder
    elif kind == "group":
        names = [_name_of(m, directory) for m in members if m != directory.me]
        name = ", ".join(names) or _mpim_name(folder)
    else:
        name = "#" + (_str(record.get("name")) or folder)
    raw = json.dumps(record, ensure_ascii=False, sort_keys=True) if record else ""
    return Chat(source=FORMAT, key=key, name=name, kind=kind, raw=raw, former_key=former_key)


def _key(ident: str, record: dict[str, Any], directory: _Directory, named: str | None) -> str:
    """The conversation's id within its workspace, told by what the export holds, surest first: the team of
    its users, the conversation's own creation time, the workspace's primary owner, the export's name (a
    user may rename the file); else the id alone."""
    if directory.workspace:
        return f"{directory.workspace}/{ident}"
    if created := _created(record):
        return f"{ident}@{created}"
    workspace = f"owner:{directory.owner}" if directory.owner else named
    return f"{workspace}/{ident}" if workspace else ident


def _guess_kind(folder: str) -> str:
    if folder.startswith("mpdm-"):
        return "group"
    if re.fullmatch(r"D[A-Z0-9]{6,}", folder):
        return "direct"
    return "channel"


def _mpim_name(folder: str) -> str:
    """``mpdm-alice--bob--carol-1`` -> ``alice, bob, carol``."""
    core = re.sub(r"-\d+$", "", folder.removeprefix("mpdm-"))
    return ", ".join(p for p in core.split("--") if p) or folder


# --- messages ----------------------------------------------------------------------------------------


def _parse_ts(value: Any, path: Path, where: str) -> tuple[tuple[int, int], datetime]:
    """``"1736554801.872639"`` -> exact (seconds, microseconds); a float would round the last digit."""
    match = _TS.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        raise InputError(path, f"message has no valid ts ({value!r})", where)
    seconds = int(match.group(1))
    micros = int((match.group(2) or "0").ljust(6, "0")[:6])
    try:
        timestamp = datetime.fromtimestamp(seconds, UTC) + timedelta(microseconds=micros)
    except (OverflowError, OSError, ValueError):
        raise InputError(path, f"ts {value!r} is out of range", where) from None
    return (seconds, int((match.group(2) or "0").ljust(9, "0"))), timestamp


def _message(
    obj: dict[str, Any], timestamp: datetime, raw: str, replied: Collection[str], directory: _Directory
) -> Message:
    ts = obj["ts"]
    thread_ts = _str(obj.get("thread_ts"))
    is_reply = thread_ts is not None and thread_ts != ts
    has_replies = thread_ts == ts and (
        _positive(obj.get("reply_count")) or bool(obj.get("replies")) or ts in replied
    )
    user = _str(obj.get("user"))
    return Message(
        timestamp=timestamp,
        sender=_sender(obj, user, directory),
        text=_text(obj, directory),
        kind=_kind(obj),
        source_id=ts,
        sender_id=user,
        thread=thread_ts if is_reply or has_replies else None,
        reply_to=thread_ts if is_reply else None,
        edited="edited" in obj,
        raw=raw,
    )


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _sender(obj: dict[str, Any], user: str | None, directory: _Directory) -> str | None:
    known = directory.users.get(user) if user else None
    if known and (name := _user_name(known)):
        return name
    profile = obj.get("user_profile")
    if isinstance(profile, dict) and (name := _user_name(profile)):
        return name
    bot = obj.get("bot_profile")
    for value in (obj.get("username"), bot.get("name") if isinstance(bot, dict) else None):
        if isinstance(value, str) and value.strip():
            return value
    return user


def _kind(obj: dict[str, Any]) -> str:
    subtype = _str(obj.get("subtype"))
    if subtype == "tombstone":
        return Kind.DELETED
    if subtype in _SYSTEM_SUBTYPES:
        return Kind.SYSTEM
    if subtype == "bot_message" or obj.get("bot_id"):
        return Kind.BOT
    if subtype == "file_share" or obj.get("files") or obj.get("file"):
        return Kind.ATTACHMENT
    return Kind.TEXT


def _text(obj: dict[str, Any], directory: _Directory) -> str:
    text = obj.get("text")
    if isinstance(text, str) and text:
        return render(text, directory.users, directory.channels)
    parts: list[str] = []
    for attachment in _objects(obj.get("attachments")):
        body = _str(attachment.get("text")) or _str(attachment.get("fallback"))
        for part in (_str(attachment.get("pretext")), _str(attachment.get("title")), body):
            if part:
                parts.append(render(part, directory.users, directory.channels))
    files = _objects(obj.get("files")) + _objects([obj.get("file")])
    parts.extend(name for f in files if (name := _str(f.get("name")) or _str(f.get("title"))))
    return "\n".join(parts)


def _objects(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# --- mrkdwn ------------------------------------------------------------------------------------------


def _unescape(text: str) -> str:
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(1)], text)


def render(text: str, users: dict[str, dict[str, Any]], channels: dict[str, str]) -> str:
    """Slack mrkdwn -> searchable plain text. ``users`` maps ids to users.json records, ``channels`` ids
    to names."""
    out: list[str] = []
    last = 0
    for match in _MARKUP.finditer(text):
        out.append(_unescape(text[last : match.start()]))
        out.append(_render_token(match.group(1), users, channels))
        last = match.end()
    out.append(_unescape(text[last:]))
    return "".join(out)


def _render_token(token: str, users: dict[str, dict[str, Any]], channels: dict[str, str]) -> str:
    target, _, label = token.partition("|")
    label = _unescape(label)
    if target.startswith("@"):
        user = users.get(target[1:])
        name = (_user_name(user) if user else None) or label.removeprefix("@") or target[1:]
        return "@" + name
    if target.startswith("#"):
        return "#" + (channels.get(target[1:]) or label.removeprefix("#") or target[1:])
    if target.startswith("!"):
        command = target[1:]
        if label:
            return label
        if command in ("here", "channel", "everyone", "group"):
            return "@" + command
        # <!subteam^S123> or <!date^...> without a fallback: the id is all there is.
        return "@" + command.split("^", 1)[-1] if command.startswith("subteam^") else command
    url = _unescape(target)
    if not label or label == url or _SCHEME.sub("", url) == label:
        return label or url
    return f"{label} ({url})"
