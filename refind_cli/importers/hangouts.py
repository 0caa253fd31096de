"""Google Hangouts from Google Takeout: ``Takeout/Hangouts/Hangouts.json``, loose or in the Takeout zip
(FORMATS.md §4c). Google Chat, which replaced Hangouts in 2022, has its own layout and source
(``google_chat.py``): a person who used both knows them as two apps, and types the one they mean.

Two layouts: ``{"conversations": [{"conversation": {conversation_id, conversation: {...}}, "events":
[...]}]}``, and before 2017 ``{"conversation_state": [{"conversation_id", "conversation_state":
{"conversation": {...}, "event": [...]}}]}``. A year of Hangouts runs to hundreds of MB, and one
conversation (a partner of years) to a million events, so the file is streamed an event at a time
(``jsonstream``): a conversation's events are read after its ``conversation`` (as Takeout writes them), one
at a time; those of a conversation written before its ``conversation`` (a tool that reordered the keys) are
held until it is read.

Exported again, the file has new events in a few conversations: each conversation's fingerprint is the hash
of its bytes (``jsonstream.Items``; a zipped file is copied to disk for it), and a conversation whose bytes an
earlier reading fingerprinted (``known``) is passed over unparsed where the import has it already; one that
grew at the end of its events is read on from a head of them (``jsonstream.Walk.go_on``). A conversation's
reading depends on its bytes alone: its names and the account are in it.

One chat per conversation: a ``GROUP`` is a group, named by its ``name`` or else its people; the others are
direct chats, named by the other person. Names come from ``participant_data`` (``fallback_name``); the
exporting account is ``self_conversation_state.self_read_state.participant_id``, whose messages are
``Message.own``; where a conversation does not name it, its first event with a ``self_event_state`` does,
looked for in the conversation's bytes before its events are read (``_Reader._account_in``).

Every event is a message, keyed by its ``event_id``; times are microseconds since the epoch (UTC).
``REGULAR_CHAT_MESSAGE`` (and ``SMS``) is text: its segments joined (``TEXT`` and ``LINK`` as their text,
``LINE_BREAK`` a line break); photos, places and other attachments make it ``Kind.ATTACHMENT`` (a place,
``Kind.LOCATION``), each on a line of its own. Calls (``HANGOUT_EVENT``), renames, people added or removed,
and any other event are kept as ``Kind.SYSTEM``, with a line saying what happened.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any, TypeVar

from refind_cli.errors import InputError
from refind_cli.importers import conversations, fields, jsonstream
from refind_cli.importers.container import (
    is_zip,
    iter_file_chunks,
    member_of,
    named_file,
    spooled,
    zipped_file,
)
from refind_cli.importers.conversations import as_dict, as_list, dump, join, text_of
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "hangouts"
WHAT = "a Google Hangouts export (Takeout Hangouts.json)"
FILE = "Hangouts.json"
LISTS = ("conversations", "conversation_state")

_SNIFF_OLD = re.compile(rb'"conversation_state"\s*:\s*\[')
_SNIFF = (re.compile(rb'"conversations"\s*:\s*\['), re.compile(rb'"conversation_id"\s*:\s*\{'))
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MESSAGES = frozenset({"REGULAR_CHAT_MESSAGE", "SMS"})
_CALLS = {"START_HANGOUT": "started a call", "END_HANGOUT": "ended a call"}
_MEMBERSHIP = {"JOIN": "added", "LEAVE": "removed"}
# Bytes the parser reads at a time: a grown conversation is read on from the last head of its events, a
# place where a block ended between two of them, so it reads again up to a block's events (a token longer than
# a block is read in longer ones: ``jsonstream.Stream``). A block's first read of a file chunk (1 MB) is seldom
# cut (``Stream.cut_after``): blocks of the chunk's size left the last head 4 MB before a conversation's end.
BLOCK = 64 << 10
# Where a list's conversations hold their events: the key of the object between, and the events' key.
_NEW: tuple[str, ...] = ("events",)
_OLD: tuple[str, ...] = ("conversation_state", "event")

ErrorMaker = Callable[[str, str | None], InputError]
_T = TypeVar("_T")


def sniff(path: Path) -> bool:
    head = conversations.head(path, FILE)
    return head[:1] == b"{" and (bool(_SNIFF_OLD.search(head)) or all(p.search(head) for p in _SNIFF))


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """Hangouts' times are UTC, so ``tz`` is not needed. ``known``: fingerprints of conversations that
    earlier readings left; a conversation of the file whose bytes one of them fingerprints is not parsed
    unless its messages are read."""
    with named_file(path, FILE, WHAT) as (chunks, where, entry), contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.closing(chunks))

        def error(what: str, place: str | None) -> InputError:
            return InputError(where, what, ", ".join(p for p in (entry, place) if p) or None)

        # A file on disk can be walked for its conversations' places; a zipped one is copied to disk first.
        on_disk = where if entry is None and member_of(where) is None else None
        member = (
            zipped_file(path, FILE)
            if entry is not None and is_zip(path) and member_of(path) is None
            else None
        )
        if member is not None and (on_disk := spooled(member, stack)) is not None:
            chunks = stack.enter_context(contextlib.closing(iter_file_chunks(on_disk)))
        # Read at each import, so that a test can lower the caps (``conversations``' own, but the block).
        rules = jsonstream.Rules(
            block=BLOCK,
            max_token=conversations.MAX_TOKEN,
            max_depth=conversations.MAX_DEPTH,
            export=WHAT,
            utf8_fault="invalid UTF-8 in the JSON text",
            full_stop=False,
        )
        stream = jsonstream.Stream(chunks, error, rules)
        items = None
        if on_disk is not None:
            items = stack.enter_context(
                contextlib.closing(jsonstream.Items(on_disk, [(), *((key,) for key in LISTS)], known))
            )
            # Read blocks end after an event where they can, the next one after them: heads of the events.
            stream.cut_after, stream.cut_before = b"}", jsonstream.NEXT_OBJECT
        events = jsonstream.JsonEvents(stream)
        walk = None if items is None else jsonstream.Walk(events, items)
        if walk is not None:
            stack.callback(walk.close)
        gaps = fields.Gaps(where)
        reader = _Reader(events, error, gaps, walk, lambda: jsonstream.whole_error(read(path, tz=tz)))
        yield from reader.exact(reader.chats())
        gaps.warn()


@dataclass(frozen=True, slots=True)
class _Heading:
    """What a conversation's events are read with: its chat, its people's names by id, the account (named by
    the conversation, else by its first event that names it, ``self_event_state``; None where none does)."""

    chat: Chat
    names: dict[str, str]
    me: str | None


class _Item:
    """What one conversation object holds, as its keys are read: its layout's parts, and its events where
    they came before what they are read with (held)."""

    def __init__(self) -> None:
        self.old = False  # a ``conversation_state`` (before 2017)
        self.new = False  # a ``conversation`` or ``events``
        self.outer: dict[str, Any] | None = None  # the new layout's ``conversation``
        self.ident: Any = None  # the old layout's ``conversation_id``
        self.state: dict[str, Any] | None = (
            None  # the old layout's ``conversation_state``: its ``conversation``
        )
        # By layout: the events held (with their places), None (a null), or "" (a value that is no list).
        self.events: dict[tuple[str, ...], list[tuple[Any, str]] | str | None] = {}
        self.streamed = False  # its events were read as they came (its chat told then)
        self.wrapped = False  # the top level: a list of conversations met


class _Reader:
    def __init__(
        self,
        events: jsonstream.JsonEvents,
        error: ErrorMaker,
        gaps: fields.Gaps,
        walk: jsonstream.Walk | None,
        first_error: Callable[[], InputError | None],
    ) -> None:
        self.events = events
        self.error = error
        self.gaps = gaps
        self.walk = walk
        # A parser that went on after a conversation passed over, or from a head of one, reads in other
        # blocks: an error's place ("near byte") is then the one a whole reading gives.
        self.first_error = first_error
        self.moved = False
        # Whether a later reading of the conversation being read may go on from a head of its events: its
        # key and account told by it before them, and no event without an id before the head (its identity
        # would make those after it depend on it): the first such event's index.
        self.sure = False
        self.unnamed: int | None = None

    def exact(self, items: Iterator[_T]) -> Iterator[_T]:
        """``items``, an error in them the one a whole reading meets first."""
        return jsonstream.exact(items, lambda: self.moved, self.first_error)

    def chats(self) -> Iterator[ChatExport]:
        event, _ = self.events.next()
        if event == "start_array":
            yield from self._list("", [])
        elif event == "start_map":
            yield from self._item("", None)
        else:
            raise self.error(f"not {WHAT}: the top level is neither a list nor an object", None)
        self.events.finish()

    def _list(self, where: str, keys: list[str]) -> Iterator[ChatExport]:
        """The list of conversations at ``keys`` (``[]``: the top level), its ``[`` read."""
        index = 0
        while True:
            event, _ = self.events.next()
            if event == "end_array":
                return
            if self.walk is not None:
                self.walk.begin()
            place = f"{where}[{index}]"
            if event == "start_map":
                yield from self._item(place, (keys, index))
            elif event != "null":  # a null is passed over
                raise self.error("a conversation is not a JSON object", place)
            elif self.walk is not None:
                self.walk.done()
            index += 1

    def _item(self, where: str, at: tuple[list[str], int] | None) -> Iterator[ChatExport]:
        """One conversation object, its ``{`` read, through its ``}``; ``at``: its list's keys and its index
        there, None for the top level (a list of conversations, or one conversation alone)."""
        events = self.events
        item = _Item()
        prefix = f"{where}." if where else ""
        for key, event, value in events.members():
            place = f"{prefix}{key}"
            if at is None and key in LISTS:
                if event != "start_array":  # never one conversation that happens to hold such a key
                    raise self.error(f"not {WHAT}: {key} is not a list", key)
                item.wrapped = True
                yield from self._list(key, [key])
            elif key == "conversation_state" and event == "start_map":
                item.old = True
                if (yield from self._state(place, item, at)):
                    return
            elif key == "events":
                item.new = True
                ready = item.outer is not None and not item.old
                if (yield from self._events(place, event, value, item, _NEW, ready, at)):
                    return
            else:
                found = events.value(event, value, place)
                if key == "conversation":
                    item.new, item.outer = True, as_dict(found)
                elif key == "conversation_id":
                    item.ident = found
                elif key == "conversation_state":
                    item.old, item.state = True, {}
        if self.walk is not None and at is not None:
            self.walk.done()
        if not item.streamed and not (at is None and item.wrapped):
            yield self._held(item, where)

    def _state(
        self, where: str, item: _Item, at: tuple[list[str], int] | None
    ) -> Generator[ChatExport, None, bool]:
        """The old layout's ``conversation_state``, its ``{`` read: its ``conversation`` and its ``event``.
        Returns whether the conversation was passed over (the parser is past its end)."""
        events = self.events
        state: dict[str, Any] = {}
        item.state = state
        for key, event, value in events.members():
            place = f"{where}.{key}"
            if key == "event":
                ready = "conversation" in state and item.ident is not None
                if (yield from self._events(place, event, value, item, _OLD, ready, at)):
                    return True
            else:
                found = events.value(event, value, place)
                if key == "conversation":
                    state["conversation"] = as_dict(found)
        return False

    def _events(
        self,
        where: str,
        event: str,
        value: Any,
        item: _Item,
        layout: tuple[str, ...],
        ready: bool,
        at: tuple[list[str], int] | None,
    ) -> Generator[ChatExport, None, bool]:
        """A conversation's events (the value whose first event was just read): read as they come where
        what they are read with came before them (``ready``), its chat told first; else held in ``item``.
        Returns whether the conversation was passed over (its bytes known, its messages not asked for)."""
        if event != "start_array":
            found = self.events.value(event, value, where)
            item.events[layout] = None if found is None else ""
            return False
        walk = self.walk if at is not None else None
        if walk is not None:
            walk.depth = 1 + len(layout)  # where its end is found from, after a head of its events
        if not ready or item.streamed:
            item.events[layout] = list(self.events.array(where))
            return False
        item.streamed = True
        conv, ident = _parts(item, layout)
        fingerprint = None if walk is None else walk.fingerprint("")
        # Where the conversation does not name the account, its first event that does tells it: found in
        # its bytes before its events are read (none names it where the bytes do not hold the key, or an
        # escape that could spell it), where its messages or its name need it.
        me, found = _account(conv), True
        looked = me is not None or fingerprint is None or _named_by_others(conv)
        if me is None and looked:
            me, found = self._account_in(layout)
        # A head of its events is kept where what they are read with is all before it: the account named by
        # the conversation, or by none of its events (a new one that names it is seen in its bytes).
        sure = ident is not None and found and (me is None or _account(conv) is not None)
        passed = None
        if walk is not None and at is not None and sure:
            # A conversation that grew since an earlier reading: read on from a head of its events.
            passed = walk.go_on([*at[0], None, *layout])
            self.moved = self.moved or passed is not None
        pairs = self.events.array(where, passed)
        # Where the conversation lacks its id, or the account is not found from its bytes, its first events
        # tell them: held until they do (the first event keys it, the first that names the account tells it).
        held: list[tuple[Any, str]] = []
        for pair in pairs if ident is None or not found else ():
            held.append(pair)
            me = me if found else me or _account_of(pair[0])
            if found or me is not None:
                break
        heading = self._heading(conv, ident, held, me)
        pairs = _chained(held, pairs)
        self.sure, self.unnamed = sure, None
        # Not looked for where the conversation is known and named apart from the account: its messages
        # may not be read.
        count = 0 if passed is None else passed.count
        account = None if looked else lambda: self._account_in(layout)[0]
        messages = self.exact(self._messages(pairs, heading, count, account))
        yield ChatExport(
            heading.chat,
            messages,
            fingerprint=fingerprint,
            printed=None if walk is None else walk.printed(self._keeps),
            passed=0 if walk is None else walk.passed,
        )
        if walk is not None and at is not None and walk.pass_over(messages, at[0], at[1]):
            self.moved = True
            return True
        for _ in messages:  # whatever the consumer left unread
            pass
        return False

    def _held(self, item: _Item, where: str) -> ChatExport:
        """A conversation whose events came before what they are read with, or none: read once it is."""
        if item.old:
            layout = _OLD
        elif item.new:
            layout = _NEW
        else:
            raise self.error(f"a conversation in neither Hangouts layout; not {WHAT}", where or None)
        held = item.events.get(layout)
        if held is None:
            self.gaps.lack("conversation", "events")
            held = []
        if isinstance(held, str):
            raise self.error("its events are not a list", where or None)
        conv, ident = _parts(item, layout)
        me = _account(conv) or next((m for event, _ in held if (m := _account_of(event))), None)
        heading = self._heading(conv, ident, held, me)
        self.sure, self.unnamed = False, None
        return ChatExport(heading.chat, self.exact(self._messages(iter(held), heading, 0)))

    def _heading(
        self, conv: dict[str, Any], ident: str | None, held: list[tuple[Any, str]], me: str | None
    ) -> _Heading:
        """The chat of a conversation (``conv``, its ``ident``; without one, keyed by its first event, the
        first of ``held``), with what its events are read with (``me``: the account)."""
        first = as_dict(held[0][0] if held else None)
        there = (first.get("timestamp"), first.get("event_id"), first.get("chat_message"))
        key = self.gaps.key("conversation", "id", ident, *there)
        names: dict[str, str] = {}
        for person in as_list(conv.get("participant_data")):
            person = as_dict(person)
            gaia = _gaia(person.get("id"))
            if gaia:
                names[gaia] = text_of(person.get("fallback_name")) or gaia
        group = text_of(conv.get("type")) == "GROUP"
        others = [name for gaia, name in names.items() if gaia != me]
        name = text_of(conv.get("name")).strip() or ", ".join(others) or f"Hangouts {key}"
        meta = {k: v for k, v in conv.items() if k not in ("read_state",)}
        return _Heading(
            Chat(FORMAT, key, name, kind="group" if group else "direct", raw=dump(meta)), names, me
        )

    def _messages(
        self,
        pairs: Iterator[tuple[Any, str]],
        heading: _Heading,
        count: int,
        account: Callable[[], str | None] | None = None,
    ) -> Iterator[Message]:
        """The messages of a conversation's events (``count`` of them read before); ``account``: the account,
        looked for once they are read."""
        if account is not None:
            heading = dataclasses.replace(heading, me=account())
        for event, place in pairs:
            yield self._message(event, place, heading, count)
            count += 1

    def _message(self, event: Any, place: str, heading: _Heading, count: int) -> Message:
        if not isinstance(event, dict):
            raise self.error("an event is not a JSON object", place)
        message = _message(event, place, heading.names, heading.me, self.error, self.gaps)
        if message.source_id is None and self.unnamed is None:
            self.unnamed = count
        return message

    def _account_in(self, layout: tuple[str, ...]) -> tuple[str | None, bool]:
        """The account as the first event of the conversation being read that names it tells it, found
        from its bytes (where they are at hand: else None, False): none where they hold no
        ``self_event_state`` (nor an escape that could spell it), else by a parser of its own over them,
        which builds one event at a time."""
        walk = self.walk
        span, unread = (None, None) if walk is None else (walk.span(), walk.unread())
        if walk is None or span is None or unread is None:
            return None, False
        # A head of the events is left only where none of them names the account: the bytes before the
        # head the conversation grew from hold no such event.
        if not walk.items.holds(*unread, (b"self_event_state", b"\\u")):
            return None, True
        with contextlib.closing(walk.items.chunks(span[0])) as chunks:
            events = jsonstream.JsonEvents(
                jsonstream.Stream(chunks, self.error, self.events.rules, part=True)
            )
            try:
                if events.next()[0] != "start_map":
                    return None, True
                for key in layout:  # the item's events: ``events``, or ``conversation_state`` then ``event``
                    while (found := events.next())[0] == "map_key" and found[1] != key:
                        if events.next()[0] in ("start_map", "start_array"):
                            events.skip()
                    opened = events.next()[0] if found[0] == "map_key" else ""
                    if opened != ("start_array" if key == layout[-1] else "start_map"):
                        return None, True
                for event, _ in events.array(""):
                    if (me := _account_of(event)) is not None:
                        return me, True
            except InputError:  # the reading of the conversation meets it, and says it
                pass
        return None, True

    def _keeps(self, head: jsonstream.Head) -> bool:
        """Whether a later reading of the conversation may go on from ``head`` of its events."""
        return self.sure and (self.unnamed is None or self.unnamed >= head.items)


def _parts(item: _Item, layout: tuple[str, ...]) -> tuple[dict[str, Any], str | None]:
    """A conversation's ``conversation`` and its id, as its layout holds them."""
    if layout == _OLD:
        conv = as_dict(as_dict(item.state).get("conversation"))
        ident = as_dict(item.ident).get("id")
    else:
        outer = as_dict(item.outer)
        conv, ident = as_dict(outer.get("conversation")), as_dict(outer.get("conversation_id")).get("id")
    return conv, fields.ident(ident) or fields.ident(as_dict(conv.get("id")).get("id"))


def _account(conv: dict[str, Any]) -> str | None:
    """The account, where the conversation's own read state names it."""
    return _gaia(
        as_dict(as_dict(conv.get("self_conversation_state")).get("self_read_state")).get("participant_id")
    )


def _named_by_others(conv: dict[str, Any]) -> bool:
    """Whether the conversation's name is its people's but the account's (it has none of its own)."""
    return not text_of(conv.get("name")).strip() and bool(as_list(conv.get("participant_data")))


def _account_of(event: Any) -> str | None:
    """The account, where an event names it (``self_event_state``)."""
    return _gaia(as_dict(as_dict(event).get("self_event_state")).get("user_id"))


def _chained(held: list[tuple[Any, str]], rest: Iterator[tuple[Any, str]]) -> Iterator[tuple[Any, str]]:
    yield from held
    yield from rest


def _gaia(value: Any) -> str | None:
    return fields.ident(as_dict(value).get("gaia_id"))


def _message(
    event: dict[str, Any],
    place: str,
    names: dict[str, str],
    me: str | None,
    error: ErrorMaker,
    gaps: fields.Gaps,
) -> Message:
    ident = fields.ident(event.get("event_id"))
    if ident is None:
        gaps.lack("event", "event_id", "told apart by time, sender and text")
    stamp = fields.number(event.get("timestamp"))
    try:
        when = _EPOCH + timedelta(microseconds=int(stamp))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        stamp = event.get("timestamp")
        raise error(f"unreadable timestamp {stamp!r}", f"{place}.timestamp") from None
    sender_id = _gaia(event.get("sender_id"))
    sender = names.get(sender_id, sender_id) if sender_id else None
    event_type = text_of(event.get("event_type"))
    content = as_dict(as_dict(event.get("chat_message")).get("message_content"))
    if event_type in _MESSAGES or (not event_type and content):
        segments = [as_dict(s) for s in as_list(content.get("segment"))]
        if not segments and not content.get("attachment"):
            gaps.lack("message", "chat_message.message_content.segment")
        elif any(s.get("type") == "TEXT" and s.get("text") is None for s in segments):
            gaps.lack("segment", "text")
        text, kind = _content(content)
    else:
        text, kind = _system(event, event_type, sender, names), Kind.SYSTEM
    return Message(
        timestamp=when,
        sender=sender,
        text=text,
        kind=kind,
        source_id=ident,
        sender_id=sender_id,
        raw=dump(event),
        own=sender_id is not None and sender_id == me,
    )


def _content(content: dict[str, Any]) -> tuple[str, str]:
    pieces: list[str] = []
    for segment in as_list(content.get("segment")):
        segment = as_dict(segment)
        pieces.append("\n" if segment.get("type") == "LINE_BREAK" else text_of(segment.get("text")))
    text = "".join(pieces)
    kind = Kind.TEXT
    for attachment in as_list(content.get("attachment")):
        item = as_dict(as_dict(attachment).get("embed_item"))
        types = [t for t in as_list(item.get("type")) if isinstance(t, str)]
        if "PLACE_V2" in types or "PLACE" in types:
            place = as_dict(item.get("place_v2") or item.get("place"))
            text = join(text, f"[location: {text_of(place.get('name')) or text_of(place.get('url'))}]")
            kind = Kind.LOCATION if kind == Kind.TEXT else kind
        else:
            photo = as_dict(item.get("plus_photo"))
            what = text_of(photo.get("media_type")).lower() or (types[0].lower() if types else "attachment")
            url = text_of(photo.get("url"))
            text = join(text, f"[{what}: {url}]" if url else f"[{what}]")
            kind = Kind.ATTACHMENT
    return text, kind


def _system(event: dict[str, Any], event_type: str, sender: str | None, names: dict[str, str]) -> str:
    who = sender or "Someone"
    if event_type == "HANGOUT_EVENT":
        call = as_dict(event.get("hangout_event"))
        said = _CALLS.get(text_of(call.get("event_type")), "took part in a call")
        seconds = call.get("hangout_duration_secs")
        if isinstance(seconds, str | int) and str(seconds).isdigit() and int(seconds):
            said += f" ({int(seconds) // 60}:{int(seconds) % 60:02d})"
        return f"{who} {said}"
    if event_type == "RENAME_CONVERSATION":
        rename = as_dict(event.get("conversation_rename"))
        return f"{who} renamed the conversation to {text_of(rename.get('new_name'))!r}"
    if event_type in ("ADD_USER", "REMOVE_USER"):
        change = as_dict(event.get("membership_change"))
        people = [names.get(g, g) for p in as_list(change.get("participant_ids")) if (g := _gaia(p))]
        verb = _MEMBERSHIP.get(
            text_of(change.get("type")), "added" if event_type == "ADD_USER" else "removed"
        )
        return f"{who} {verb} {', '.join(people) or 'someone'}"
    return f"{who}: {event_type.lower().replace('_', ' ') or 'an event'}"
