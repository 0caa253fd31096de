"""Google Hangouts from Google Takeout: ``Takeout/Hangouts/Hangouts.json``, loose or in the Takeout zip
(FORMATS.md §4c). Google Chat, which replaced Hangouts in 2022, has its own layout and source
(``google_chat.py``): a person who used both knows them as two apps, and types the one they mean.

Two layouts: ``{"conversations": [{"conversation": {conversation_id, conversation: {...}}, "events":
[...]}]}``, and before 2017 ``{"conversation_state": [{"conversation_id", "conversation_state":
{"conversation": {...}, "event": [...]}}]}``. A year of Hangouts runs to hundreds of MB, so the file is
streamed one conversation at a time (``conversations.py``).

One chat per conversation: a ``GROUP`` is a group, named by its ``name`` or else its people; the others are
direct chats, named by the other person. Names come from ``participant_data`` (``fallback_name``); the
exporting account is ``self_conversation_state.self_read_state.participant_id``, whose messages are
``Message.own``.

Every event is a message, keyed by its ``event_id``; times are microseconds since the epoch (UTC).
``REGULAR_CHAT_MESSAGE`` (and ``SMS``) is text: its segments joined (``TEXT`` and ``LINK`` as their text,
``LINE_BREAK`` a line break); photos, places and other attachments make it ``Kind.ATTACHMENT`` (a place,
``Kind.LOCATION``), each on a line of its own. Calls (``HANGOUT_EVENT``), renames, people added or removed,
and any other event are kept as ``Kind.SYSTEM``, with a line saying what happened.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.importers import conversations, fields
from refind_cli.importers.conversations import Reader, as_dict, as_list, dump, join, text_of
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


def sniff(path: Path) -> bool:
    head = conversations.head(path, FILE)
    return head[:1] == b"{" and (bool(_SNIFF_OLD.search(head)) or all(p.search(head) for p in _SNIFF))


def read(path: Path, *, tz: tzinfo) -> Iterator[ChatExport]:
    """Hangouts' times are UTC, so ``tz`` is not needed."""
    gaps = fields.Gaps(path)
    for where, item, reader in conversations.read(path, WHAT, FILE, LISTS):
        yield _conversation(item, where, reader, gaps)
    gaps.warn()


def _conversation(item: dict[str, Any], where: str, reader: Reader, gaps: fields.Gaps) -> ChatExport:
    if "conversation_state" in item:  # before 2017
        state = as_dict(item.get("conversation_state"))
        conv, events = as_dict(state.get("conversation")), state.get("event")
        key = as_dict(item.get("conversation_id")).get("id")
    elif "conversation" in item or "events" in item:
        outer = as_dict(item.get("conversation"))
        conv, events = as_dict(outer.get("conversation")), item.get("events")
        key = as_dict(outer.get("conversation_id")).get("id")
    else:
        raise reader.error(f"a conversation in neither Hangouts layout; not {WHAT}", where or None)
    if events is None:
        gaps.lack("conversation", "events")
    events = [] if events is None else events
    if not isinstance(events, list):
        raise reader.error("its events are not a list", where or None)
    # Without its id, a conversation is what it started with: its first event stays as it grows.
    first = as_dict(events[0]) if events else {}
    there = (first.get("timestamp"), first.get("event_id"), first.get("chat_message"))
    key = gaps.key("conversation", "id", fields.ident(key) or as_dict(conv.get("id")).get("id"), *there)
    names: dict[str, str] = {}
    for person in as_list(conv.get("participant_data")):
        person = as_dict(person)
        ident = _gaia(person.get("id"))
        if ident:
            names[ident] = text_of(person.get("fallback_name")) or ident
    # The account: the conversation's own read state names it, and so does every event's self_event_state.
    me = _gaia(
        as_dict(as_dict(conv.get("self_conversation_state")).get("self_read_state")).get("participant_id")
    ) or next(
        (g for e in events if (g := _gaia(as_dict(as_dict(e).get("self_event_state")).get("user_id")))), None
    )
    group = text_of(conv.get("type")) == "GROUP"
    others = [name for ident, name in names.items() if ident != me]
    name = text_of(conv.get("name")).strip() or ", ".join(others) or f"Hangouts {key}"
    meta = {k: v for k, v in conv.items() if k not in ("read_state",)}
    chat = Chat(FORMAT, key, name, kind="group" if group else "direct", raw=dump(meta))

    def messages() -> Iterator[Message]:  # built only where the conversation is read (``fingerprint``)
        for index, event in enumerate(events):
            place = f"{where}.events[{index}]".lstrip(".")
            if not isinstance(event, dict):
                raise reader.error("an event is not a JSON object", place)
            yield _message(event, place, names, me, reader, gaps)

    return ChatExport(chat, messages(), fingerprint=conversations.fingerprint(item))


def _gaia(value: Any) -> str | None:
    return fields.ident(as_dict(value).get("gaia_id"))


def _message(
    event: dict[str, Any],
    place: str,
    names: dict[str, str],
    me: str | None,
    reader: Reader,
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
        raise reader.error(f"unreadable timestamp {stamp!r}", f"{place}.timestamp") from None
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
