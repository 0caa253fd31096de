"""Microsoft Teams, as its privacy export gives a person's messages (FORMATS.md §4c): JSON arrays in
``teams/<team id>/messages_<id>.json`` (channel posts) and ``users/<user id>/messages_<id>.json`` (chats), in
the export's zip, its unpacked folder, or one such file alone.

A message is ``{Id, Body{ContentType, Content}, CreatedDateTime (ISO with offset), LastEditedDateTime,
DeletedDateTime, ReplyToId, From{User{Id, DisplayName}}, Attachments, Reactions, MessageType,
ChannelIdentity{ChannelId, TeamId} | ChatId}``. A chat is its ``ChatId`` or its channel; a channel post and
its replies (``ReplyToId``) are one thread. HTML bodies are made readable; ``raw`` keeps the record.

A later export holds the same files, some grown: each chat's fingerprint names its file's name and bytes (in a
zip, the CRC-32 and size its directory holds), so a file read before as it is is not parsed again. A file of
one chat (not a channel, whose replies make a post a thread's root) whose messages each have an id leaves a
head in its fingerprint (``jsonstream.Head``: where the parser's read block ended after a message, with the
hash of the bytes before it and the senders' names so far): a later file of that name whose first bytes hash
the same is read on from there (``JsonEvents.go_on``), its messages before the head counted, not parsed.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import itertools
import json
import re
import zipfile
from collections.abc import Callable, Collection, Generator, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError
from refind_cli.importers import container, fields, jsonstream, spool
from refind_cli.importers.conversations import dump, text_of
from refind_cli.importers.htmltext import message_text
from refind_cli.importers.skype import ident
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "teams"

_SNIFF_BYTES = 64 << 10
_SNIFF = re.compile(rb'\A\[\s*(?:\]|\{.*?"CreatedDateTime"\s*:.*?"(?:ChatId|ChannelIdentity)"\s*:)', re.S)
_SNIFF_CHAT = re.compile(rb'"(?:ChatId|ChannelIdentity)"\s*:')
# Where the export keeps message files: teams/<id>/messages_<id>.json, users/<id>/messages_<id>.json.
_MEMBER = re.compile(r"(?:^|/)(?:teams|users)/[^/]+/messages_[^/]*\.json$", re.I)
_RULES = jsonstream.Rules(
    block=64 << 10, max_token=16 << 20, max_depth=64, export="a Teams export", full_stop=False
)
_DROP = frozenset({"attachment", "systemeventmessage"})
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_PEOPLE = frozenset({"message", ""})
# A chat's kinds (a channel's is "channel"): as ``_chat_of`` tells it, and once named by its senders.
_CHATS = frozenset({"chat", "direct", "group"})


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    try:
        return any(_looks_like_messages(head) for head in _heads(path, first_only=True))
    except (InputError, OSError, ValueError, zipfile.BadZipFile):
        return False


def _looks_like_messages(head: bytes) -> bool:
    head = container.utf8_head(head).lstrip()
    return _SNIFF.match(head) is not None and (head.startswith(b"[{") or _SNIFF_CHAT.search(head) is not None)


def _heads(path: Path, *, first_only: bool) -> Iterator[bytes]:
    """The first bytes of the export's message files (of the first one, with ``first_only``)."""
    if path.is_dir():
        for file in _folder_files(path):
            yield container.read_file_part(file, 0, _SNIFF_BYTES)
            if first_only:
                return
    elif container.is_zip(path):
        with container.open_zip(path) as zf:
            for name in _zip_members(zf):
                yield container.member_head(zf, name, path, _SNIFF_BYTES)
                if first_only:
                    return
    elif path.name.lower().startswith("messages_"):
        yield container.read_file_part(path, 0, _SNIFF_BYTES)


def _folder_files(root: Path) -> list[Path]:
    """The message files at the export's own depth: a sniff of any folder ``refind import DIR`` walks must not
    walk everything below it."""
    return sorted(
        p for part in ("teams", "users") for p in root.glob(f"{part}/*/messages_*.json") if p.is_file()
    )


def _zip_members(zf: zipfile.ZipFile) -> list[str]:
    return sorted(
        n
        for n in container.files_matching(zf, r"(?:.*/)?messages_[^/\n]*\.json", re.IGNORECASE)
        if _MEMBER.search(n)
    )


# --- reading -----------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """``known``: the chats' fingerprints that earlier readings left (``_print``); the chats of a message file
    whose name and bytes are those of an earlier reading's are told from there, the file parsed only where
    their messages are asked for."""
    earlier = _earlier(known)
    for file in _files(path):
        yield from _chats(file, tz, earlier)


@dataclass(frozen=True, slots=True)
class _File:
    """One message file of the export: its name in it, what stands for its bytes (``container.member_stamp``
    in a zip, else the bytes: as a fingerprint takes a part, its length and chunks), its chunks, and the path
    and zip entry errors name."""

    name: str
    stamp: Callable[[], tuple[int, Iterable[bytes]]]
    chunks: Callable[[], Generator[bytes, None, None]]
    path: Path
    entry: str | None


def _files(path: Path) -> Iterator[_File]:
    if path.is_dir():
        files = _folder_files(path)
        if not files:
            raise InputError(
                path, "no teams/*/messages_*.json or users/*/messages_*.json; not a Teams export"
            )
        for file in files:
            yield _File(
                file.relative_to(path).as_posix(),
                functools.partial(_bytes, file),
                functools.partial(container.iter_file_chunks, file),
                file,
                None,
            )
    elif container.is_zip(path):
        with container.open_zip(path) as zf:
            members = _zip_members(zf)
            if not members:
                raise InputError(path, "no teams/*/messages_*.json or users/*/messages_*.json in this zip")
            for name in members:
                yield _File(
                    name,
                    functools.partial(_listed, zf, name),
                    functools.partial(container.iter_member_chunks, zf, name, path),
                    path,
                    f"entry {name!r}",
                )
    else:
        yield _File(
            path.name,
            functools.partial(_bytes, path),
            functools.partial(container.iter_file_chunks, path),
            path,
            None,
        )


def _bytes(file: Path) -> tuple[int, Iterable[bytes]]:
    """A file's bytes as its fingerprint takes them: their length, then their chunks (never held whole: a
    chat's file may be hundreds of MB)."""
    return container.file_size(file), container.iter_file_chunks(file)


def _listed(zf: zipfile.ZipFile, name: str) -> tuple[int, Iterable[bytes]]:
    """What stands for a zip member's bytes, as its fingerprint takes it."""
    stamp = container.member_stamp(zf, name)
    return len(stamp), [stamp]


# The kind of a chat's fingerprint: its file's name and bytes hashed, its place among the file's chats, the
# chat as its reading told it (all of a file's chats are told at once, from all of its messages), and where a
# later reading of the file grown can go on from (``_Head``; "-": nowhere).
_PRINTS = "teams-file-2"
_PRINTS_BEFORE = "teams-file-1"  # without the head


@dataclass(frozen=True, slots=True)
class _Head:
    """Where a reading of a one-chat file can go on from: the file's name, the head of its list (the bytes
    before it hold its first ``items`` messages whole), those bytes' hash, and the senders' names they hold
    (the chat is named by all of them)."""

    name: str
    offset: int
    items: int
    digest: str
    senders: tuple[str, ...]

    def text(self) -> str:
        state = [self.name, self.offset, self.items, self.digest, list(self.senders)]
        return base64.urlsafe_b64encode(json.dumps(state).encode()).decode()

    @classmethod
    def of(cls, text: str) -> _Head | None:
        with contextlib.suppress(ValueError, TypeError):
            name, offset, items, digest, senders = json.loads(base64.urlsafe_b64decode(text))
            return cls(str(name), int(offset), int(items), str(digest), tuple(map(str, senders)))
        return None


@dataclass(frozen=True, slots=True)
class _Told:
    """What earlier readings' fingerprints tell: the chats by their file's digest and their place among its
    chats; the one chat of a file that left a head, by the file's name."""

    chats: dict[str, dict[str, tuple[str, Chat]]]
    heads: dict[str, tuple[_Head, Chat]]


def _chats(file: _File, tz: tzinfo, earlier: _Told) -> Iterator[ChatExport]:
    parts = (_PRINTS_BEFORE.encode(), file.name.encode())
    digest = container.streamed_fingerprint([*((len(part), [part]) for part in parts), file.stamp()])
    told = earlier.chats.get(digest, {})
    places = [f"{n}/{len(told)}" for n in range(len(told))]
    if told and all(place in told for place in places):  # each of the file's chats read before as it is
        for n, place in enumerate(places):
            text, chat = told[place]
            yield ChatExport(chat, _later(file, tz, n), fingerprint=text)
        return
    grown = earlier.heads.get(file.name)
    read = _grown(file, tz, grown) if grown is not None else None
    if read is None:
        with contextlib.closing(file.chunks()) as chunks:
            read = _file(chunks, file.path, file.entry, tz, file.name)
    exports, head = read
    if head is not None:  # the hash of the bytes before it: the file's first bytes read again
        with contextlib.closing(file.chunks()) as chunks:
            head = dataclasses.replace(head, digest=_before(chunks, head.offset)[0])
    for n, export in enumerate(exports):
        yield export._replace(fingerprint=_print(digest, f"{n}/{len(exports)}", export.chat, head))


def _before(chunks: Iterator[bytes], offset: int) -> tuple[str, bytes, bytes]:
    """Of a file's chunks: the hash of its first ``offset`` bytes ("" where it is shorter), their last few
    (``JsonEvents.go_on`` reads them), and the bytes of the chunk after them (the rest of ``chunks`` follows)."""
    import xxhash

    hasher, taken, last = xxhash.xxh3_128(), 0, b""
    for chunk in chunks:
        piece = chunk[: offset - taken]
        hasher.update(piece)
        taken += len(piece)
        last = (last + piece)[-64:]
        if taken == offset:
            return hasher.hexdigest(), last, chunk[len(piece) :]
    return "", last, b""


def _grown(
    file: _File, tz: tzinfo, grown: tuple[_Head, Chat]
) -> tuple[list[ChatExport], _Head | None] | None:
    """The file read on from the head an earlier reading of it left, where its first bytes hash as they did
    then and what follows goes on from them with messages of the same chat; else None (it is read whole)."""
    head = grown[0]
    with contextlib.closing(file.chunks()) as chunks:
        digest, last, rest = _before(chunks, head.offset)
        if digest != head.digest:
            return None
        events = jsonstream.JsonEvents(jsonstream.Stream(iter(()), _error(file.path, file.entry), _RULES))
        passed = events.go_on(
            jsonstream.Head(head.offset, head.items), itertools.chain([rest], chunks), last, []
        )
        if passed is None:
            return None
        read = _gathered(events, events.array("", passed), (file.name, file.path, file.entry), tz, grown)
    return read if len(read[0]) == 1 else None


def _later(file: _File, tz: tzinfo, n: int) -> Iterator[Message]:
    """The messages of the file's ``n``-th chat, the file parsed once they are asked for."""
    with contextlib.closing(file.chunks()) as chunks:
        yield from _file(chunks, file.path, file.entry, tz, file.name)[0][n].messages


def _print(digest: str, place: str, chat: Chat, head: _Head | None) -> str:
    told = base64.urlsafe_b64encode(json.dumps([chat.key, chat.name, chat.kind, chat.raw]).encode())
    return " ".join((_PRINTS, digest, place, told.decode(), head.text() if head is not None else "-"))


def _earlier(known: Collection[str]) -> _Told:
    """The chats ``_print`` told, by their file's digest and their place among its chats; and by their file's
    name, the one chat of each file that left a head."""
    found = _Told({}, {})
    for text in known:
        kind, digest, place, told, head_text = [*text.split(" "), "", "", "", ""][:5]
        if kind not in (_PRINTS, _PRINTS_BEFORE):
            continue
        with contextlib.suppress(ValueError, TypeError):
            key, name, chat_kind, raw = json.loads(base64.urlsafe_b64decode(told))
            chat = Chat(FORMAT, key, name, chat_kind, raw)
            found.chats.setdefault(digest, {})[place] = (text, chat)
            head = _Head.of(head_text) if place == "0/1" else None
            if head is not None:
                found.heads[head.name] = (head, chat)
    return found


def _error(path: Path, entry: str | None) -> container.ErrorMaker:
    def error(what: str, where: str | None) -> InputError:
        return InputError(path, what, ", ".join(p for p in (entry, where) if p) or None)

    return error


def _file(
    chunks: Iterator[bytes], path: Path, entry: str | None, tz: tzinfo, name: str
) -> tuple[list[ChatExport], _Head | None]:
    """One message file's chats, and where a later reading of it grown can go on from (its hash not yet
    taken). A file is one chat's or channel's history, so it is gathered whole and handed on chat by chat:
    a reply names its thread's root, which may come later in the file."""
    error = _error(path, entry)
    stream = jsonstream.Stream(chunks, error, _RULES)
    stream.cut_after = b"}"  # heads where a message ends
    events = jsonstream.JsonEvents(stream)
    event, _ = events.next()
    if event != "start_array":
        raise error("not a Teams message file: the top level is not a JSON list", None)
    return _gathered(events, events.array(""), (name, path, entry), tz)


def _gathered(
    events: jsonstream.JsonEvents,
    array: Iterator[tuple[Any, str]],
    file: tuple[str, Path, str | None],
    tz: tzinfo,
    grown: tuple[_Head, Chat] | None = None,
) -> tuple[list[ChatExport], _Head | None]:
    """The chats of a file's messages (``array``: read whole, or from ``grown``'s head on, where the chat
    and its senders so far are the head's), and the file's head after them where it can leave one.
    ``file``: its name in the export, and the path and zip entry errors name.

    A chat is named by all its senders, and a channel's post is a thread's root where a reply names it, so
    every message is read before the first chat is handed on: each is built as it is read and put aside
    (``spool.Spool``: a chat of a million messages is not held whole), the threads of a channel's roots set
    as they are handed on."""
    name, path, entry = file
    error = _error(path, entry)
    found: dict[str, _Found] = {}
    put: spool.Spool[tuple[Any, ...]] = spool.Spool()
    gaps = fields.Gaps(path)
    # A file is one chat's or channel's history, named by its id (``messages_<id>.json``): where a message
    # no longer names its chat, the file's name does.
    named = re.sub(r"^entry '(.*)'$", r"\1", entry or path.name).rsplit("/", 1)[-1]
    before = grown[0].senders if grown is not None else ()
    if grown is not None:
        found[grown[1].key] = _Found(grown[1], len(found), set(before), set(), [True])
    for obj, where in array:
        if not isinstance(obj, dict):
            raise error("a message is not a JSON object", where)
        chat = _chat_of(obj)
        if chat is None:
            gaps.lack("message", "ChatId or ChannelIdentity", "keyed by its file's name")
            chat = Chat(FORMAT, fields.derived("file", named), named, "chat")
        body = obj.get("Body")
        if not isinstance(body, dict) or body.get("Content") is None:
            gaps.lack("message", "Body.Content")
        told = found.get(chat.key)
        if told is None:
            told = found[chat.key] = _Found(chat, len(found), set(before), set(), [True])
        message = _message(obj, where, _NO_ROOTS, tz, error)
        if told.chat.kind == "channel" and message.reply_to:
            told.roots.add(message.reply_to)
        if message.sender and message.kind != Kind.SYSTEM:
            told.names.add(message.sender)
        if message.source_id is None:
            told.identified[0] = False
        put.put(told.group, tuple(message))
    events.finish()
    exports = []
    for told in found.values():
        chat = told.chat
        names = sorted(told.names)
        if chat.kind in _CHATS and names:
            kind = "group" if len(names) > 2 else "direct"
            chat = Chat(FORMAT, chat.key, ", ".join(names), kind, chat.raw)
        messages = _handed(put, told.group, told.roots)
        exports.append(ChatExport(chat, messages, passed=grown[0].items if grown is not None else 0))
    gaps.warn()
    head = events.head
    if len(exports) != 1 or exports[0].chat.kind == "channel" or head is None:
        return exports, None
    [told] = found.values()
    if not told.identified[0]:  # its identity would depend on the messages before
        return exports, None
    return exports, _Head(name, head.offset, head.items, "", tuple(sorted(told.names)))


@dataclass(frozen=True, slots=True)
class _Found:
    """A chat of a file as its messages are read: the chat, its group among the file's put aside, its
    senders' names, the posts its replies name (a channel's), whether every message has an id."""

    chat: Chat
    group: int
    names: set[str]
    roots: set[str]
    identified: list[bool]


_NO_ROOTS: frozenset[str] = frozenset()


def _handed(put: spool.Spool[tuple[Any, ...]], group: int, roots: set[str]) -> Iterator[Message]:
    """A chat's messages put aside, a channel's post that a reply names made its thread's root."""
    for made in put.records(group):
        message = Message._make(made)
        if message.thread is None and message.source_id in roots:
            message = message._replace(thread=message.source_id)
        yield message


def _chat_of(obj: dict[str, Any]) -> Chat | None:
    chat_id = ident(obj.get("ChatId"))
    if chat_id:
        return Chat(FORMAT, chat_id, chat_id, "chat", dump({"ChatId": chat_id}))
    channel = obj.get("ChannelIdentity")
    if isinstance(channel, dict) and (channel_id := ident(channel.get("ChannelId"))):
        return Chat(FORMAT, channel_id, f"channel {channel_id}", "channel", dump(channel))
    return None


def _message(
    obj: dict[str, Any],
    where: str,
    roots: Collection[str],
    tz: tzinfo,
    error: container.ErrorMaker,
) -> Message:
    body = found if isinstance(found := obj.get("Body"), dict) else {}
    content = text_of(body.get("Content"))
    # Teams writes HTML, and says so; a file that lost the ContentType still holds the markup.
    shape = text_of(body.get("ContentType")).lower() or ("html" if content.lstrip().startswith("<") else "")
    text = message_text(content, _DROP) if shape == "html" else content
    subject = text_of(obj.get("Subject"))
    if subject:
        text = f"{subject}\n{text}" if text else subject
    sender_obj = obj.get("From")
    user = sender_obj.get("User") if isinstance(sender_obj, dict) else None
    user = user if isinstance(user, dict) else {}
    files = [
        text_of(a.get("Name")) or text_of(a.get("ContentUrl"))
        for a in (obj.get("Attachments") or [])
        if isinstance(a, dict) and text_of(a.get("ContentType")) not in ("messageReference", "")
    ]
    message_id = ident(obj.get("Id"))
    reply_to = ident(obj.get("ReplyToId"))
    if text_of(obj.get("MessageType")) not in _PEOPLE:
        kind = Kind.SYSTEM
        text = text or _event(obj.get("EventDetail"))
    elif obj.get("DeletedDateTime"):
        kind = Kind.DELETED
    elif files:
        kind = Kind.ATTACHMENT
    else:
        kind = Kind.TEXT
    return Message(
        timestamp=_time(obj.get("CreatedDateTime"), tz, lambda what: error(what, f"{where}.CreatedDateTime")),
        sender=text_of(user.get("DisplayName")) or None,
        text="\n".join(p for p in (text, *files) if p),
        kind=kind,
        source_id=message_id,
        sender_id=ident(user.get("Id")),
        thread=reply_to or (message_id if message_id in roots else None),
        reply_to=reply_to,
        edited=bool(obj.get("LastEditedDateTime")),
        raw=dump(obj),
    )


def _event(detail: Any) -> str:
    """What a system message's ``EventDetail`` says happened: ``membersAdded`` from its Graph type
    (``#microsoft.graph.membersAddedEventMessageDetail``), in words."""
    kind = text_of(detail.get("@odata.type")) if isinstance(detail, dict) else ""
    name = kind.removeprefix("#microsoft.graph.").removesuffix("EventMessageDetail")
    return _CAMEL.sub(" ", name).lower()


def _time(value: Any, tz: tzinfo, error: Callable[[str], InputError]) -> datetime:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            when = datetime.fromisoformat(value)
            return (when if when.tzinfo else when.replace(tzinfo=tz)).astimezone(UTC)
    raise error(f"unreadable time {value!r}")
