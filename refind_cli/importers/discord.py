"""DiscordChatExporter JSON: one file per channel or thread (FORMATS.md §4, §4b).

The root is ``{guild, channel, dateRange, exportedAt, messages[], messageCount}``; each message carries its
snowflake id, a type (``Default`` and ``Reply`` are people talking, the other types are system events: joins,
pins, calls, renames), an ISO time with its offset, the author (``nickname`` is the name shown in the server),
attachments, embeds, stickers, reactions and a ``reference`` to the message it replies to. Every message is
kept; system and bot messages and those that are only a file or a sticker are flagged by their kind.

The tool's other outputs (CSV, HTML, plain text) lack message ids and write times in the exporting
machine's own format, so they are recognised only to say so: export the channel again as JSON.

Exports of busy channels run to hundreds of MB, so the file is streamed (``jsonstream``): one message is
built at a time.

A channel exported again later is the earlier export with messages added at the end of its list, but its first
bytes differ (``exportedAt``, the date range, a renamed channel): a loose file's reading leaves a mark between
two messages (``jsonstream.Head``) with the hash of the list's bytes before it, from its ``[`` on. A later
reading of a file of the same name reads the guild and channel again, finds the list's opening, checks that
hash over as many bytes from there, and parses only the messages after them (NotResumable where they differ:
a message edited, deleted, or reacted to since).
"""

from __future__ import annotations

import contextlib
import json
import re
import warnings
from collections.abc import Callable, Generator, Iterator
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container, fields, jsonstream
from refind_cli.importers.container import iter_file_chunks
from refind_cli.records import Chat, ChatExport, Kind, Mark, Message, NotResumable

FORMAT = "discord"

_SNIFF_BYTES = 64 << 10
_SNIFF_JSON = (re.compile(rb'"guild"\s*:\s*\{'), re.compile(rb'"channel"\s*:\s*\{'))
# A file another tool rewrote without the guild and channel objects: the messages list, its messages shaped as
# the exporter writes them (an author object that starts with its snowflake id).
_SNIFF_REWRITTEN = (
    re.compile(rb'"messages"\s*:\s*\['),
    re.compile(rb'"author"\s*:\s*\{\s*"id"\s*:\s*"\d{1,20}"'),
    re.compile(rb'"timestamp"\s*:\s*"'),
)
# The exporter's default file name ends with the channel id: "Guild - channel [123456789].json".
_NAMED_ID = re.compile(r"\[(\d{1,20})\]")
# The exporter's other outputs, by their first bytes: told apart only to name them in the error.
_OTHER_OUTPUTS = (
    ("CSV", re.compile(rb"AuthorID[,;]Author[,;]Date[,;]Content")),
    ("plain-text", re.compile(rb"={40,}\r?\nGuild: ")),
    ("HTML", re.compile(rb"<!DOCTYPE html>.*class=\"(?:preamble|chatlog)", re.S | re.I)),
)
# A Discord message holds at most 4,000 characters and an embed 6,000, so a string this long is no real
# export; yajl re-scans a token that spans its read blocks, so its time grows with the square of the length.
MAX_TOKEN = 8 << 20
# Real exports nest six levels deep (message, embed, author); a deeper value is refused before it is built.
MAX_DEPTH = 64
_RULES = jsonstream.Rules(block=64 << 10, max_token=MAX_TOKEN, max_depth=MAX_DEPTH, export="a Discord export")
_SNOWFLAKE = re.compile(r"\d{1,20}")
_DISCORD_EPOCH_MS = 1420070400000
_PEOPLE = frozenset({"Default", "Reply", "0", "19"})
# What a system message says when the exporter left its content empty.
_SYSTEM_TEXT = {
    "RecipientAdd": "added someone to the group",
    "RecipientRemove": "removed someone from the group",
    "Call": "started a call",
    "ChannelNameChange": "changed the channel name",
    "ChannelIconChange": "changed the channel icon",
    "ChannelPinnedMessage": "pinned a message",
    "GuildMemberJoin": "joined the server",
    "ThreadCreated": "started a thread",
}
_DIRECT = "DirectTextChat"
_GROUP = "DirectGroupTextChat"


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    try:
        head = container.sniff_head(path, _SNIFF_BYTES)
    except InputError:
        return False
    return _is_json_export(head) or _other_output(head) is not None


def _is_json_export(head: bytes) -> bool:
    return head.lstrip().startswith(b"{") and (
        all(p.search(head) for p in _SNIFF_JSON) or all(p.search(head) for p in _SNIFF_REWRITTEN)
    )


def _other_output(head: bytes) -> str | None:
    return next((name for name, pattern in _OTHER_OUTPUTS if pattern.match(head.lstrip())), None)


# --- reading -----------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """``after``: a mark an earlier reading of a loose file of this name left; its messages are read on from
    the mark (NotResumable where this file does not go on from it)."""
    other = _other_output(container.sniff_head(path, _SNIFF_BYTES))
    if other:
        raise InputError(
            path,
            f"a DiscordChatExporter {other} export; refind reads its JSON output: export the channel again "
            "as JSON (--format Json)",
        )
    loose = container.member_of(path) is None
    if after is not None and not loose:
        raise NotResumable
    with contextlib.closing(iter_file_chunks(path)) as chunks:
        events = json_events(chunks, lambda what, where: InputError(path, what, where), marks=loose)
        reader = _Reader(events, tz, path, loose, after)
        with contextlib.closing(reader):
            yield from reader.chats()


def json_events(
    chunks: Iterator[bytes], error: container.ErrorMaker, marks: bool = False
) -> jsonstream.JsonEvents:
    """ijson's events over byte chunks, with the limits every Discord JSON file is read under. Errors are
    made by ``error`` (what, where) so that they name the file, or the zip entry, the caller reads.
    ``marks``: its read blocks end after a "}" where they can, so that a list read leaves a ``Head``."""
    stream = jsonstream.Stream(chunks, error, _RULES)
    stream.cut_after = b"}" if marks else b""
    return jsonstream.JsonEvents(stream)


def tap(path: Path, after: Mark) -> jsonstream.Span | None:
    """What ``after.digest`` is checked against in this file, for the ledger's pass over it to hash on the
    way (``records.Tap``): the messages list's bytes from its "[" on, as many as the mark's."""
    start = _list_start(path)
    if start is None:
        return None
    span = jsonstream.Span(path, start)
    span.goal = _offset(span, after)
    return span


def _list_start(path: Path) -> int | None:
    return jsonstream.array_start(container.read_file_part(path, 0, _SNIFF_BYTES), "messages")


def _offset(span: jsonstream.Span | None, after: Mark) -> int | None:
    """Where in this file the mark lies: as far from the list's opening as it lay in the earlier file; None
    where the mark says nothing of that."""
    state = json.loads(after.state)
    items, start = state.get("between"), state.get("start")
    if span is None or not isinstance(items, int) or not isinstance(start, int) or not after.digest:
        return None
    return span.start + after.offset - start


class _Reader:
    """One exported channel: its ``guild`` and ``channel``, then its messages one at a time."""

    def __init__(
        self,
        events: jsonstream.JsonEvents,
        tz: tzinfo,
        path: Path,
        marks: bool = False,
        after: Mark | None = None,
    ) -> None:
        self._events = events
        self._tz = tz
        self._path = path
        self._gaps = fields.Gaps(path)
        self._marks = marks  # a loose file: its reading leaves a mark
        self._after = after
        # The messages list's bytes from its "[" on, hashed up to the latest mark (``jsonstream.Span``).
        self._span: jsonstream.Span | None = None
        self._tail: Generator[bytes, None, None] | None = None
        # The first message without an id: its identity is counted among identical ones, so the messages
        # after it could not be stored without reading it: no mark after it.
        self._unnamed: int | None = None

    def close(self) -> None:
        if self._tail is not None:
            self._tail.close()

    def chats(self) -> Iterator[ChatExport]:
        events = self._events
        event, _ = events.next()
        if event != "start_map":
            raise events.error("not a DiscordChatExporter export: the top level is not a JSON object", None)
        meta: dict[str, Any] = {}
        buffered: list[Message] | None = None
        found = False
        for key, event, value in events.members():
            if key != "messages":
                meta[key] = events.value(event, value, key)
                continue
            if event != "start_array":
                raise events.error("messages is not a list", "messages")
            first = not found
            found = True
            named = "guild" in meta and _keyed(meta.get("channel"))
            if first and named and (self._marks or self._after):
                self._span = self._opening()
            passed = None
            if self._after is not None:
                passed = self._go_on(self._after) if first and named else None
                if passed is None:
                    raise NotResumable
            messages = self._messages(passed)
            if named:
                yield ChatExport(self._chat(meta), messages, self._mark if first and self._span else None)
                for _ in messages:  # whatever the consumer left unread
                    pass
            else:  # not the exporter's order: hold this channel's messages until it is named
                buffered = list(messages)
        events.finish()
        if not found:
            raise events.error('not a DiscordChatExporter export: no "messages" list', None)
        if buffered is not None:
            chat = self._chat(meta) if _keyed(meta.get("channel")) else self._unnamed_chat(buffered)
            yield ChatExport(chat, buffered)
        self._gaps.warn()

    def _messages(self, passed: jsonstream.Ends | None) -> Iterator[Message]:
        n = 0 if passed is None else passed.count
        for obj, where in self._events.array("messages", passed):
            message = self._message(obj, where)
            if message.source_id is None and self._unnamed is None:
                self._unnamed = n
            n += 1
            yield message

    def _opening(self) -> jsonstream.Span | None:
        """The messages list's bytes from its "[" on (found in the file's first bytes, which the parser
        read up to it: the guild, the channel, the dates); as far as the ledger's pass hashed them, where it
        did (``tap``)."""
        start = _list_start(self._path)
        taken = self._after.taken if self._after is not None else None
        if isinstance(taken, jsonstream.Span) and taken.start == start:
            return taken
        return None if start is None else jsonstream.Span(self._path, start)

    def _go_on(self, after: Mark) -> jsonstream.Ends | None:
        """The messages read on from the mark, where the list's bytes before it are the earlier file's."""
        span, offset = self._span, _offset(self._span, after)
        if span is None or offset is None:
            return None
        if not span.reach(offset) or span.digest() != after.digest:
            return None
        self._tail = span.chunks(offset)
        return self._events.go_on(
            jsonstream.Head(offset, json.loads(after.state)["between"]),
            self._tail,
            span.before(offset),
            ["messages"],
        )

    def _mark(self) -> Mark | None:
        """Where a later reading of this file, grown, can go on from: each message is one item of the list."""
        head, span = self._events.head, self._span
        if head is None or span is None or (self._unnamed is not None and self._unnamed < head.items):
            return None
        if head.offset < span.start or not span.reach(head.offset):
            return None
        state = json.dumps({"between": head.items, "start": span.start})
        return Mark(head.offset, state, span.digest(), read=head.items)

    def _unnamed_chat(self, messages: list[Message]) -> Chat:
        """The channel of a file without its guild and channel objects (a rewritten file): keyed by the id in
        the exporter's file name, else by its earliest message, which stays the same as the channel grows."""
        named = _NAMED_ID.search(self._path.name)
        ids = [int(m.source_id) for m in messages if m.source_id]
        if named:
            key, how = named[1], "the channel id in the file name"
        elif ids:
            key, how = f"m{min(ids)}", "its earliest message"
        else:
            raise self._events.error("no channel object, and no message ids to key the channel by", "channel")
        what = f"no guild or channel object (a file another tool rewrote?); the channel is keyed by {how}"
        warnings.warn(InputWarning(self._path, what), stacklevel=2)
        return Chat(FORMAT, key, container.unmarked(self._path.stem), "channel", "")

    def _chat(self, meta: dict[str, Any]) -> Chat:
        """The channel a channel object with an id names (``_keyed``)."""
        channel, guild = meta.get("channel"), meta.get("guild")
        if not isinstance(channel, dict):
            raise self._events.error("no channel object", "channel")
        key = snowflake(channel.get("id"))
        if key is None:
            raise self._events.error("the channel has no id", "channel.id")
        guild = guild if isinstance(guild, dict) else {}
        kind_name = _str(channel.get("type"))
        kind = "direct" if kind_name == _DIRECT else "group" if kind_name == _GROUP else "channel"
        name = _str(channel.get("name")) or f"channel {key}"
        guild_name = _str(guild.get("name"))
        if kind == "channel" and guild_name:
            name = f"{name} in {guild_name}"  # as Discord's own data package names server channels
        return Chat(FORMAT, key, name, kind, self._events.dump({"guild": guild, "channel": channel}, None))

    def _message(self, obj: Any, where: str) -> Message:
        if not isinstance(obj, dict):
            raise self._events.error("a message is not a JSON object", where)
        ident = snowflake(obj.get("id"))
        author = found if isinstance(found := obj.get("author"), dict) else {}
        sender = _str(author.get("nickname")) or _str(author.get("name")) or None
        content = _str(obj.get("content")) or ""
        if obj.get("content") is None:  # the exporter writes "" for a message without words
            self._gaps.lack("message", "content")
        kind_name = _str(obj.get("type")) or "Default"
        files = [_str(a.get("fileName")) for a in _objects(obj.get("attachments"))]
        stickers = [_str(s.get("name")) for s in _objects(obj.get("stickers"))]
        if kind_name not in _PEOPLE:
            kind = Kind.SYSTEM
            content = content or f"{sender or 'Someone'} {_SYSTEM_TEXT.get(kind_name, kind_name)}"
        elif author.get("isBot") is True:
            kind = Kind.BOT
        elif files:
            kind = Kind.ATTACHMENT
        elif stickers and not content:
            kind = Kind.MEDIA
        else:
            kind = Kind.TEXT
        reference = found if isinstance(found := obj.get("reference"), dict) else {}
        return Message(
            timestamp=timestamp(
                obj.get("timestamp"),
                ident,
                self._tz,
                lambda what: self._events.error(what, f"{where}.timestamp"),
            ),
            sender=sender,
            text=join(content, *files, *stickers, *_embed_texts(obj.get("embeds"))),
            kind=kind,
            source_id=ident,
            sender_id=snowflake(author.get("id")),
            reply_to=snowflake(reference.get("messageId")),
            edited=bool(obj.get("timestampEdited")),
            raw=self._events.dump(obj, where),
        )


def _embed_texts(embeds: Any) -> Iterator[str | None]:
    """What a link preview or a bot's card says: its author, title, description and fields."""
    for embed in _objects(embeds):
        author = embed.get("author")
        yield _str(author.get("name")) if isinstance(author, dict) else None
        yield _str(embed.get("title"))
        yield _str(embed.get("description"))
        for field in _objects(embed.get("fields")):
            yield _str(field.get("name"))
            yield _str(field.get("value"))


# --- shared with the data package (discord_package.py) -------------------------------------------------


def timestamp(value: Any, ident: str | None, tz: tzinfo, error: Callable[[str], InputError]) -> datetime:
    """An ISO time (its offset kept; read in ``tz`` without one), or else the instant the snowflake id
    holds (milliseconds since 2015 in its top 42 bits)."""
    if isinstance(value, str) and value:
        try:
            when = datetime.fromisoformat(value)
            return (when if when.tzinfo else when.replace(tzinfo=tz)).astimezone(UTC)
        except (ValueError, OverflowError):
            if ident is None:
                raise error(f"unreadable time {value!r}") from None
    if ident is not None:
        with contextlib.suppress(ValueError, OverflowError, OSError):
            return datetime.fromtimestamp(((int(ident) >> 22) + _DISCORD_EPOCH_MS) / 1000, UTC)
    raise error("the message has no time")


def join(*parts: str | None) -> str:
    return "\n".join(p for p in parts if p)


def _keyed(channel: Any) -> bool:
    """A channel object that keys its channel: a tool that rewrote the file may null it or drop its id."""
    return isinstance(channel, dict) and snowflake(channel.get("id")) is not None


def snowflake(value: Any) -> str | None:
    """A Discord id: a string of digits (an int in hand-made files)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        value = str(value)
    return value if isinstance(value, str) and _SNOWFLAKE.fullmatch(value) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _objects(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
