"""Grok data export (accounts.x.ai -> Data -> Download your data): the zip, its unpacked folder, or the
``prod-grok-backend.json`` in it (FORMATS.md §4c). The zip's ``prod-mc-asset-server/`` holds uploaded files,
which are not read.

The file is ``{"conversations": [{"conversation": {id, create_time, modify_time, title, ...}, "responses":
[{"response": {_id, conversation_id, message, sender, create_time, parent_response_id, ...}}]}], ...}``;
it is streamed one conversation at a time like ChatGPT's (``conversations.py``). One chat per
conversation, named by its title.

``sender`` is ``human`` (the person: ``Message.own``) or ``ASSISTANT``. Times are MongoDB extended JSON,
``{"$date": {"$numberLong": "<ms>"}}`` (also ``{"$date": "<ISO>"}``), or ISO strings for the conversation;
all UTC. A response without a time takes the one before it, else the conversation's.

Responses form a tree through ``parent_response_id``: a regenerated answer or an edited prompt is a sibling.
As for ChatGPT (which see), every response is kept and those off the branch the app shows are
``Kind.HIDDEN``; Grok names no current leaf, so the branch shown is the one ending in the latest response. A
conversation without any parent links is one line, all shown.
Uploaded files (``file_attachments``) make a response ``Kind.ATTACHMENT``; search results and posts it
cited stay in the raw record.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.importers import conversations, fields
from refind_cli.importers.conversations import (
    Reader,
    active_path,
    as_dict,
    as_list,
    dump,
    epoch_time,
    iso_time,
    join,
    text_of,
)
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "grok"
WHAT = "a Grok data export"
FILE = "prod-grok-backend.json"
UNTITLED = "Untitled conversation"

_SNIFF = (re.compile(rb'"conversations"\s*:\s*\['), re.compile(rb'"responses"\s*:\s*\['))
_SENDERS = {"human": "You", "assistant": "Grok"}


def sniff(path: Path) -> bool:
    head = conversations.head(path, FILE)
    return head[:1] == b"{" and all(p.search(head) for p in _SNIFF)


def read(path: Path, *, tz: tzinfo) -> Iterator[ChatExport]:
    """Grok's times are UTC, so ``tz`` is not needed."""
    gaps = fields.Gaps(path)
    for where, item, reader in conversations.read(path, WHAT, FILE):
        yield _conversation(item, where, reader, gaps)
    gaps.warn()


def mongo_time(value: Any) -> datetime | None:
    """MongoDB extended JSON (``{"$date": {"$numberLong": "1733829183000"}}``, ``{"$date": "<ISO>"}``,
    ``{"$date": <ms>}``) or an ISO string, as aware UTC; None for anything else."""
    if isinstance(value, dict) and "$date" in value:
        value = value["$date"]
        if isinstance(value, dict):
            value = value.get("$numberLong")
        ms = fields.number(value)
        if ms is not None:
            return epoch_time(ms / 1000)
    return iso_time(value)


def _conversation(item: dict[str, Any], where: str, reader: Reader, gaps: fields.Gaps) -> ChatExport:
    conv = as_dict(item.get("conversation"))
    entries = item.get("responses")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise reader.error("responses is not a list", f"{where}.responses".lstrip("."))
    title = text_of(conv.get("title")).strip()
    # Without its id, a conversation is what it started with: its first response stays as it grows.
    first = as_dict(as_dict(entries[0]).get("response")) if entries else {}
    there = (conv.get("create_time"), first.get("create_time"), first.get("message"), title)
    key = gaps.key("conversation", "id", conv.get("id"), *there)
    chat = Chat(FORMAT, key, title or UNTITLED, kind="direct", raw=dump(conv))
    last = mongo_time(conv.get("create_time")) or mongo_time(conv.get("modify_time"))
    responses: list[tuple[str, dict[str, Any], datetime]] = []
    for index, entry in enumerate(entries):
        place = f"{where}.responses[{index}]".lstrip(".")
        response = as_dict(entry).get("response", entry)
        if not isinstance(response, dict):
            raise reader.error("a response is not a JSON object", place)
        ident = fields.ident(response.get("_id"))
        if ident is None:  # a place of its own in the tree, and identified by its time and text
            gaps.lack("response", "_id", "told apart by time, sender and text")
            ident = f"#{index}"
        when = mongo_time(response.get("create_time"))
        if when is None:
            gaps.lack("response", "create_time", "dated by the one before")
        if response.get("message") is None:
            gaps.lack("response", "message")
        when = when or last
        if when is None:
            raise reader.error("a response without a time, in a conversation without one", place)
        last = when
        responses.append((ident, response, when))
    ids = {ident for ident, _, _ in responses}
    parents = {
        ident: p
        for ident, response, _ in responses
        if isinstance(p := response.get("parent_response_id"), str) and p in ids and p != ident
    }
    # Without any parent links (a file that carries none) the responses are one line, all shown.
    shown = active_path(None, parents, {ident: when for ident, _, when in responses}) if parents else ids
    return ChatExport(
        chat,
        (_message(ident, r, when, ident in shown, parents.get(ident)) for ident, r, when in responses),
        fingerprint=conversations.fingerprint(item),
    )


def _message(
    ident: str, response: dict[str, Any], when: datetime, shown: bool, parent: str | None
) -> Message:
    role = text_of(response.get("sender"))
    files = [text_of(f) or text_of(as_dict(f).get("name")) for f in as_list(response.get("file_attachments"))]
    files = [f"[attachment: {f}]" for f in files if f]
    text = join(text_of(response.get("message")), *files)
    if not shown or not text:
        kind = Kind.HIDDEN
    elif files:
        kind = Kind.ATTACHMENT
    else:
        kind = Kind.TEXT
    return Message(
        timestamp=when.astimezone(UTC),
        sender=_SENDERS.get(role.lower()) or role or "unknown",
        text=text,
        kind=kind,
        source_id=None if ident.startswith("#") else ident,
        sender_id=role or None,
        reply_to=parent,
        raw=dump(response),
        own=role.lower() == "human",
    )
