"""Microsoft Teams, as its privacy export gives a person's messages (FORMATS.md §4c): JSON arrays in
``teams/<team id>/messages_<id>.json`` (channel posts) and ``users/<user id>/messages_<id>.json`` (chats), in
the export's zip, its unpacked folder, or one such file alone.

A message is ``{Id, Body{ContentType, Content}, CreatedDateTime (ISO with offset), LastEditedDateTime,
DeletedDateTime, ReplyToId, From{User{Id, DisplayName}}, Attachments, Reactions, MessageType,
ChannelIdentity{ChannelId, TeamId} | ChatId}``. A chat is its ``ChatId`` or its channel; a channel post and
its replies (``ReplyToId``) are one thread. HTML bodies are made readable; ``raw`` keeps the record.

A later export holds the same files, some grown: each chat's fingerprint names its file's name and bytes (in a
zip, the CRC-32 and size its directory holds), so a file read before as it is is not parsed again.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import re
import zipfile
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError
from refind_cli.importers import container, fields, jsonstream
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
    block=64 << 10, max_token=16 << 20, max_depth=64, not_this="; not a Teams export", full_stop=False
)
_DROP = frozenset({"attachment", "systemeventmessage"})
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_PEOPLE = frozenset({"message", ""})


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
                with contextlib.closing(container.iter_member_chunks(zf, name, path)) as chunks:
                    yield next(chunks, b"")[:_SNIFF_BYTES]
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
    in a zip, else the bytes), its chunks, and the path and zip entry errors name."""

    name: str
    stamp: Callable[[], bytes]
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
                functools.partial(container.read_file, file),
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
                    functools.partial(container.member_stamp, zf.getinfo(name)),
                    functools.partial(container.iter_member_chunks, zf, name, path),
                    path,
                    f"entry {name!r}",
                )
    else:
        yield _File(
            path.name,
            functools.partial(container.read_file, path),
            functools.partial(container.iter_file_chunks, path),
            path,
            None,
        )


# The kind of a chat's fingerprint: its file's name and bytes hashed, its place among the file's chats, and
# the chat as its reading told it (all of a file's chats are told at once, from all of its messages).
_PRINTS = "teams-file-1"


def _chats(file: _File, tz: tzinfo, earlier: dict[str, dict[str, tuple[str, Chat]]]) -> Iterator[ChatExport]:
    digest = container.fingerprint([_PRINTS.encode(), file.name.encode(), file.stamp()])
    told = earlier.get(digest, {})
    places = [f"{n}/{len(told)}" for n in range(len(told))]
    if told and all(place in told for place in places):  # each of the file's chats read before as it is
        for n, place in enumerate(places):
            text, chat = told[place]
            yield ChatExport(chat, _later(file, tz, n), fingerprint=text)
        return
    with contextlib.closing(file.chunks()) as chunks:
        exports = list(_file(chunks, file.path, file.entry, tz))
    for n, export in enumerate(exports):
        yield export._replace(fingerprint=_print(digest, f"{n}/{len(exports)}", export.chat))


def _later(file: _File, tz: tzinfo, n: int) -> Iterator[Message]:
    """The messages of the file's ``n``-th chat, the file parsed once they are asked for."""
    with contextlib.closing(file.chunks()) as chunks:
        yield from list(_file(chunks, file.path, file.entry, tz))[n].messages


def _print(digest: str, place: str, chat: Chat) -> str:
    told = base64.urlsafe_b64encode(json.dumps([chat.key, chat.name, chat.kind, chat.raw]).encode())
    return " ".join((_PRINTS, digest, place, told.decode()))


def _earlier(known: Collection[str]) -> dict[str, dict[str, tuple[str, Chat]]]:
    """The chats ``_print`` told, by their file's digest and their place among its chats."""
    found: dict[str, dict[str, tuple[str, Chat]]] = {}
    for text in known:
        kind, digest, place, told = [*text.split(" "), "", "", ""][:4]
        if kind != _PRINTS:
            continue
        with contextlib.suppress(ValueError, TypeError):
            key, name, chat_kind, raw = json.loads(base64.urlsafe_b64decode(told))
            found.setdefault(digest, {})[place] = (text, Chat(FORMAT, key, name, chat_kind, raw))
    return found


def _file(chunks: Iterator[bytes], path: Path, entry: str | None, tz: tzinfo) -> Iterator[ChatExport]:
    """One message file's chats. A file is one chat's or channel's history, so it is gathered whole and
    handed on chat by chat: a reply names its thread's root, which may come later in the file."""

    def error(what: str, where: str | None) -> InputError:
        return InputError(path, what, ", ".join(p for p in (entry, where) if p) or None)

    events = jsonstream.JsonEvents(jsonstream.Stream(chunks, error, _RULES))
    event, _ = events.next()
    if event != "start_array":
        raise error("not a Teams message file: the top level is not a JSON list", None)
    chats: dict[str, tuple[Chat, list[dict[str, Any]], list[str]]] = {}
    gaps = fields.Gaps(path)
    # A file is one chat's or channel's history, named by its id (``messages_<id>.json``): where a message
    # no longer names its chat, the file's name does.
    named = re.sub(r"^entry '(.*)'$", r"\1", entry or path.name).rsplit("/", 1)[-1]
    for obj, where in events.array(""):
        if not isinstance(obj, dict):
            raise error("a message is not a JSON object", where)
        chat = _chat_of(obj)
        if chat is None:
            gaps.lack("message", "ChatId or ChannelIdentity", "keyed by its file's name")
            chat = Chat(FORMAT, fields.derived("file", named), named, "chat")
        body = obj.get("Body")
        if not isinstance(body, dict) or body.get("Content") is None:
            gaps.lack("message", "Body.Content")
        chats.setdefault(chat.key, (chat, [], []))[1].append(obj)
        chats[chat.key][2].append(where)
    events.finish()
    for chat, objs, places in chats.values():
        roots = {r for o in objs if (r := ident(o.get("ReplyToId")))} if chat.kind == "channel" else set()
        messages = [_message(o, w, roots, tz, error) for o, w in zip(objs, places, strict=True)]
        names = sorted({m.sender for m in messages if m.sender and m.kind != Kind.SYSTEM})
        if chat.kind == "chat" and names:
            chat = Chat(FORMAT, chat.key, ", ".join(names), "group" if len(names) > 2 else "direct", chat.raw)
        yield ChatExport(chat, messages)
    gaps.warn()


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
    roots: set[str],
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
