"""Discord's own data package (Settings > Data & Privacy > Request data), as its zip or unpacked folder
(FORMATS.md §4b).

``messages/index.json`` maps each channel id to a name ("Direct Message with aylin", "general in Some
Server"); each channel has a folder ``messages/c<id>/`` (``Messages/<id>/`` in older packages) with
``channel.json`` and its messages in ``messages.csv`` (``ID,Timestamp,Contents,Attachments``) or, in newer
packages, ``messages.json`` (a list of objects with the same keys). ``account/user.json`` names the account.

The package holds only the account owner's own messages: every chat it makes says so in its name, so that a
reader of a hit (or the agent) does not take a channel's silence for everyone else's. Its chats are a
source of their own, apart from DiscordChatExporter's, for the same reason.

Contents are Discord markdown as typed: mentions of friends (``<@id>``) are resolved from the account's
relationships, custom emoji (``<:name:id>``) become ``:name:``. Times are written by Discord's servers in
UTC, so a time without an offset is UTC whatever ``tz`` says.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import functools
import io
import itertools
import json
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, tzinfo
from pathlib import Path, PurePosixPath
from typing import Any

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import csvlong, fields
from refind_cli.importers.container import (
    files_matching,
    fingerprint,
    is_zip,
    iter_file_chunks,
    iter_member_chunks,
    member_names,
    open_zip,
    utf8_chunks,
)
from refind_cli.importers.discord import join, json_events, snowflake, timestamp
from refind_cli.records import HELD, LONG_TEXT, Chat, ChatExport, HeldText, Kind, Message

FORMAT = "discord-package"

INDEX = "messages/index.json"
USER = "account/user.json"
ONLY_YOURS = " (only your messages)"
# index.json, channel.json and user.json are small; a larger one is no package.
MAX_SMALL = 64 << 20
_TOO_LARGE = f"is larger than {MAX_SMALL >> 20} MB; not a Discord data package"
_CHANNEL_FOLDER = re.compile(r"c?(\d{1,20})")
_MENTION = re.compile(r"<@!?(\d{1,20})>")
_EMOJI = re.compile(r"<a?:(\w{1,64}):\d{1,20}>")
# The longest text ``_readable`` rewrites: an animated custom emoji with a 64-character name.
_REWRITTEN = len("<a::>") + 64 + 20
_KINDS = {1: "direct", 3: "group"}
_MESSAGE_FILES = ("messages.csv", "messages.json")
_HELD_JSON = json.dumps(HELD)[1:-1]  # how a record's JSON writes HELD: "\\u0000"
_SUBSET_MEMBER = re.compile(r"^(.*?)messages/c?\d{1,20}/messages\.(?:csv|json)$", re.I)


@dataclass(frozen=True, slots=True)
class _Package:
    """The package's files by lower-cased path relative to its top (``messages/c1/channel.json``), each
    with what reads it and what an error about it names."""

    files: dict[str, str]  # lower-cased relative path -> path as stored (zip entry or file path)
    chunks: Callable[[str], Generator[bytes, None, None]]  # closed by the reader, not the collector
    error: Callable[[str, str, str | None], InputError]  # stored path, what, where


def _folder_package(root: Path) -> _Package | None:
    """The package whose top is ``root``, or whose ``messages`` folder ``root`` is; None if neither."""
    messages = _child(root, "messages")
    if messages is None and _CHANNEL_FOLDER.fullmatch(next(iter(_folders(root)), "-")):
        messages = root
    if messages is None or not ((messages / "index.json").is_file() or _has_channel(messages)):
        return None
    files: dict[str, str] = {}
    with os.scandir(messages) as entries:
        for entry in entries:
            if entry.is_file():
                files[f"messages/{entry.name.lower()}"] = entry.path
    for folder in _folders(messages):
        if _CHANNEL_FOLDER.fullmatch(folder):
            with os.scandir(messages / folder) as entries:
                for entry in entries:
                    if entry.is_file():
                        files[f"messages/{folder.lower()}/{entry.name.lower()}"] = entry.path
    account = _child(messages.parent, "account")
    if account is not None:
        with os.scandir(account) as entries:
            files.update((f"account/{e.name.lower()}", e.path) for e in entries if e.is_file())
    return _Package(files, lambda stored: iter_file_chunks(Path(stored)), InputError)


def _has_channel(messages: Path) -> bool:
    """Whether a package without its index (a subset another tool kept) has a channel's messages."""
    return any(
        _CHANNEL_FOLDER.fullmatch(f) and any((messages / f / n).is_file() for n in _MESSAGE_FILES)
        for f in _folders(messages)
    )


def _folders(folder: Path) -> list[str]:
    with os.scandir(folder) as entries:
        return sorted(e.name for e in entries if e.is_dir())


def _child(folder: Path, name: str) -> Path | None:
    """A subfolder by its name in any case: packages write ``messages/`` or ``Messages/``."""
    return next((folder / n for n in _folders(folder) if n.lower() == name), None)


def _zip_package(path: Path, zf: zipfile.ZipFile) -> _Package | None:
    names = member_names(zf)
    indexes = files_matching(zf, r"(?:.*/)?index\.json", re.IGNORECASE)
    found = [n for n in indexes if n.lower() == INDEX or n.lower().endswith("/" + INDEX)]
    if found:
        # A zip made from the unpacked folder adds a folder level; the shallowest index is the package's.
        index = min(found, key=lambda n: (n.count("/"), n))
        prefix = index[: len(index) - len(INDEX)]
    else:  # a subset without the index: its shallowest channel's messages file says where the top is
        listed = files_matching(zf, r"(?:.*/)?messages\.(?:csv|json)", re.IGNORECASE)
        subset = [m for n in listed if (m := _SUBSET_MEMBER.search(n))]
        if not subset:
            return None
        prefix = min(subset, key=lambda m: (m.string.count("/"), m.string))[1]
    files: dict[str, str] = {}
    for name in names:
        relative = name[len(prefix) :].lower()
        if name.startswith(prefix) and relative.startswith(("messages/", "account/")):
            files.setdefault(relative, name)

    def error(stored: str, what: str, where: str | None) -> InputError:
        return InputError(path, what, ", ".join(p for p in (f"entry {stored!r}", where) if p))

    return _Package(files, lambda stored: iter_member_chunks(zf, stored, path), error)


@contextlib.contextmanager
def _opened(path: Path) -> Iterator[_Package | None]:
    if path.is_dir():
        try:
            yield _folder_package(path)
        except OSError as exc:
            raise InputError(path, f"cannot list the folder ({exc.strerror or exc})") from None
    elif is_zip(path):
        with open_zip(path) as zf:
            yield _zip_package(path, zf)
    else:
        yield None


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    try:
        with _opened(path) as package:
            return package is not None
    except (InputError, OSError, ValueError):
        return False


# --- reading -----------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo) -> Iterator[ChatExport]:
    """Discord writes UTC, so ``tz`` is not needed."""
    with _opened(path) as package:
        if package is None:
            raise InputError(path, f"no {INDEX}; not a Discord data package")
        if INDEX in package.files:
            index = _small_json(package, INDEX)
        else:
            index = {}
            what = (
                f"no {INDEX} (a part of a package?); channels without a channel.json are named by their ids"
            )
            warnings.warn(InputWarning(path, what), stacklevel=2)
        if not isinstance(index, dict):
            raise package.error(package.files[INDEX], "is not a JSON object of channel names", None)
        account = _account(package)
        gaps = fields.Gaps(path)
        channels: dict[str, dict[str, str]] = {}
        for relative, stored in package.files.items():
            parts = relative.split("/")
            if len(parts) == 3 and (m := _CHANNEL_FOLDER.fullmatch(parts[1])):
                channels.setdefault(m[1], {})[parts[2]] = stored
        for ident in sorted(channels, key=int):
            files = channels[ident]
            messages = files.get("messages.json") or files.get("messages.csv")
            if messages is None:  # a tool that copied part of the package left them out
                gaps.lack("channel folder", "messages.csv or messages.json", "passed over")
                continue
            info = _small_json(package, files["channel.json"]) if "channel.json" in files else {}
            chat = _chat(package, ident, index.get(ident), info if isinstance(info, dict) else {})
            rows = (
                _json_rows(package, messages)
                if messages == files.get("messages.json")
                else _csv_rows(package, messages)
            )
            # Its messages are built where they are read: the file's bytes (its chunks, cut alike for the same
            # bytes) and the account, which names the author and mentions, are all they depend on.
            with contextlib.closing(package.chunks(messages)) as chunks:
                printed = fingerprint(itertools.chain([repr(account).encode()], chunks))  # streamed
            read = fields.unrounded(_messages(rows, account, _errors(package, messages), gaps), gaps)
            yield ChatExport(chat, read, fingerprint=printed)
        gaps.warn()


def _small_json(package: _Package, relative_or_stored: str) -> Any:
    """A whole small file (index, channel, account), read under the same limits as the messages."""
    stored = package.files.get(relative_or_stored, relative_or_stored)
    with contextlib.closing(package.chunks(stored)) as chunks:
        events = json_events(
            _at_most(chunks, lambda: package.error(stored, _TOO_LARGE, None)), _errors(package, stored)
        )
        event, value = events.next()
        value = events.value(event, value, "")
        events.finish()
        return value


def _at_most(chunks: Iterator[bytes], error: Callable[[], InputError]) -> Iterator[bytes]:
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_SMALL:
            raise error()
        yield chunk


def _errors(package: _Package, stored: str) -> Callable[[str, str | None], InputError]:
    return lambda what, where: package.error(stored, what, where or None)


@dataclass(frozen=True, slots=True)
class _Account:
    """Who wrote every message of the package, and the names of the account's friends (for mentions)."""

    name: str
    ident: str | None
    names: dict[str, str]


def _account(package: _Package) -> _Account:
    user = _small_json(package, USER) if USER in package.files else {}
    user = user if isinstance(user, dict) else {}
    names: dict[str, str] = {}
    relations = found if isinstance(found := user.get("relationships"), list) else []
    for relation in relations:
        other = relation.get("user") if isinstance(relation, dict) else None
        if isinstance(other, dict) and (ident := snowflake(other.get("id"))) and (name := _name(other)):
            names[ident] = name
    my_id = snowflake(user.get("id"))
    me = _name(user) or "me"
    if my_id:
        names[my_id] = me
    return _Account(me, my_id, names)


def _name(user: dict[str, Any]) -> str | None:
    for key in ("global_name", "username"):
        if isinstance(value := user.get(key), str) and value:
            return value
    return None


def _chat(package: _Package, ident: str, indexed: Any, info: dict[str, Any]) -> Chat:
    guild = found if isinstance(found := info.get("guild"), dict) else {}
    name = indexed if isinstance(indexed, str) and indexed else None
    if name is None and isinstance(info.get("name"), str) and info["name"]:
        name = info["name"] + (f" in {guild['name']}" if isinstance(guild.get("name"), str) else "")
    kind_code = fields.ident(info.get("type"))  # 1, 1.0 or "1", as a tool wrote it
    if kind_code is not None and kind_code.isdigit():
        kind = _KINDS.get(int(kind_code), "channel")
    else:
        kind = "direct" if (name or "").startswith("Direct Message with") else "channel"
    raw = json.dumps({"id": ident, "index": indexed, "channel": info}, ensure_ascii=False, sort_keys=True)
    return Chat(FORMAT, ident, (name or f"channel {ident}") + ONLY_YOURS, kind, raw)


def _csv_rows(package: _Package, stored: str) -> Iterator[tuple[dict[str, Any], str, str]]:
    with contextlib.closing(package.chunks(stored)) as chunks:
        utf8 = utf8_chunks(chunks, functools.partial(package.error, stored), legacy=True)
        text = io.TextIOWrapper(io.BufferedReader(_ChunkReader(utf8)), encoding="utf-8", newline="")
        records = None
        above = 0  # lines before the header
        try:
            first = text.readline(1 << 16)  # a header, not a whole file without a line end
            hint = fields.separator_hint(first)  # Excel's "sep=," line before the header
            if hint:
                first = text.readline(1 << 16)
                above = 1
            # A record longer than the csv module's field limit is read by csvlong's scanner, its message
            # held in a file: a message holds at most 4,000 characters in Discord, but a package another tool
            # wrote or joined may hold more, and one long message is no reason to refuse the export.
            records = csvlong.Records(text, hint or fields.separator(first), [first])
            rows = iter(records)
            first_row = next(rows, None)
            if first_row is None:
                return  # an empty file: a channel without messages
            header = [h.strip().removeprefix("\ufeff") if isinstance(h, str) else "" for h in first_row]
            if "Timestamp" not in header:
                raise package.error(
                    stored, "no Timestamp column; not a Discord messages.csv", f"line {above + 1}"
                )
            for row in rows:
                if row:
                    where = f"line {records.number + above}"
                    record = dict(zip(header, row, strict=False))
                    if any(isinstance(value, HeldText) for value in row):
                        yield _held_row(record, row, where, functools.partial(package.error, stored))
                        continue
                    raw = json.dumps(record, ensure_ascii=False, sort_keys=True)
                    yield record, where, raw
        except csv.Error as exc:
            # A quote that never closes is read to the end of the file (held there, not in memory): the
            # record it opens is named.
            raise package.error(
                stored, f"invalid CSV ({exc})", f"line {(records.start if records else 1) + above}"
            ) from None
        except UnicodeDecodeError as exc:
            raise package.error(
                stored,
                f"invalid UTF-8 (byte 0x{exc.object[exc.start]:02x})",
                f"line {(records.number if records else 1) + above}",
            ) from None


def _held_row(
    record: dict[str, Any],
    row: list[str | HeldText],
    where: str,
    error: Callable[[str, str], InputError],
) -> tuple[dict[str, Any], str, str]:
    """A record holding a field longer than ``LONG_TEXT`` (``csvlong``): only its Contents can be, held in its
    file, the raw record holding ``HELD`` in its place (written ``\\u0000`` in its JSON, once). Anything
    else is refused in one line, never read whole."""
    rest = {key: value for key, value in record.items() if key != "Contents"}
    if not isinstance(record.get("Contents"), HeldText) or any(
        isinstance(v, HeldText) for v in rest.values()
    ):
        what = f"a field other than Contents longer than {LONG_TEXT:,} characters; not a Discord messages.csv"
    elif (raw := json.dumps({**rest, "Contents": HELD}, ensure_ascii=False, sort_keys=True)).count(
        _HELD_JSON
    ) != 1:
        what = f"a message longer than {LONG_TEXT:,} characters whose other fields hold a NUL: not read"
    else:
        return record, where, raw
    for value in row:
        if isinstance(value, HeldText):
            value.file.close()
    raise error(what, where)


class _ChunkReader(io.RawIOBase):
    """Byte chunks as a raw binary file, so that the csv module reads a zip entry through its limits."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._rest = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._rest:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._rest = chunk
        n = min(len(buffer), len(self._rest))
        buffer[:n] = self._rest[:n]
        self._rest = self._rest[n:]
        return n


def _json_rows(package: _Package, stored: str) -> Iterator[tuple[dict[str, Any], str, str]]:
    with contextlib.closing(package.chunks(stored)) as chunks:
        events = json_events(chunks, _errors(package, stored))
        event, _ = events.next()
        if event != "start_array":
            raise events.error("not a list of messages", None)
        for obj, where in events.array(""):
            if not isinstance(obj, dict):
                raise events.error("a message is not a JSON object", where)
            yield obj, where, events.dump(obj, where)
        events.finish()


def _messages(
    rows: Iterator[tuple[dict[str, Any], str, str]],
    account: _Account,
    error: Callable[[str, str | None], InputError],
    gaps: fields.Gaps,
) -> Iterator[tuple[Any, Message]]:
    """Each message with its id as the file wrote it (``fields.unrounded``)."""
    for row, where, raw in rows:
        if row.get("Contents") is None:
            gaps.lack("message", "Contents")
        yield row.get("ID"), _message(row, where, raw, account, error)


def _message(
    row: dict[str, Any],
    where: str,
    raw: str,
    account: _Account,
    error: Callable[[str, str | None], InputError],
) -> Message:
    ident = snowflake(row.get("ID"))
    contents = row.get("Contents")
    attachments = row.get("Attachments")
    urls = attachments.split() if isinstance(attachments, str) else []
    text: str | HeldText
    if isinstance(contents, HeldText):
        text = _held_text(contents, urls, account.names, lambda what: error(what, where))
    else:
        contents = contents if isinstance(contents, str) else ""
        text = join(_readable(contents, account.names), *(_file_name(url) for url in urls))
    return Message(
        timestamp=timestamp(row.get("Timestamp"), ident, UTC, lambda what: error(what, f"{where}.Timestamp")),
        sender=account.name,
        text=text,
        kind=Kind.ATTACHMENT if urls else Kind.TEXT,
        source_id=ident,
        sender_id=account.ident,
        raw=raw,
        own=True,  # the package holds only its owner's messages
    )


def _held_text(
    contents: HeldText, urls: list[str], names: dict[str, str], error: Callable[[str], InputError]
) -> HeldText:
    """A long message's text held in its file, where it is its Contents as written: one with attachments,
    whose names its text adds, or with a custom emoji or a friend's mention, which its text writes otherwise,
    would need its record held too, and is refused in one line."""
    what = "attachments" if urls else _rewritten(contents, names)
    if what is not None:
        contents.file.close()
        raise error(
            f"a message longer than {LONG_TEXT:,} characters with {what}: not read (a long message is held"
            " only where its text is its Contents as written)"
        )
    return contents


def _rewritten(contents: HeldText, names: dict[str, str]) -> str | None:
    """What a held text holds that ``_readable`` writes otherwise, read a piece at a time; None if nothing."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    tail = ""
    for piece in contents.pieces():
        text = tail + decoder.decode(piece)
        if _EMOJI.search(text):
            return "a custom emoji"
        if any(m[1] in names for m in _MENTION.finditer(text)):
            return "a mention of a friend"
        tail = text[-_REWRITTEN:]
    return None


def _file_name(url: str) -> str:
    return PurePosixPath(url.split("?", 1)[0]).name


def _readable(text: str, names: dict[str, str]) -> str:
    text = _EMOJI.sub(r":\1:", text)
    return _MENTION.sub(lambda m: f"@{names[m[1]]}" if m[1] in names else m[0], text)
