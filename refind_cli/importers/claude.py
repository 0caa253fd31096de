"""Claude.ai data export (Settings -> Privacy -> Export data): the zip, its unpacked folder, or the
``conversations.json`` in it (FORMATS.md §4, §4b). ``users.json``, ``projects.json`` and ``memories.json`` beside
it are not conversations and are not read.

One chat per conversation, named by its ``name`` (often empty: then "Untitled conversation"). Each entry of
``chat_messages`` is a message (``null`` entries are skipped); its text is that of its ``content`` blocks, or of
its ``text`` where older exports have no blocks. Tool calls and their results are part of the text, marked
``[tool use: NAME]`` and ``[tool result: NAME]``. An attachment's ``extracted_content`` (the text of a PDF, a
pasted document) is searchable text of its message, after ``[attachment: FILE NAME]``; a message with
attachments or files is ``Kind.ATTACHMENT``. A ``thinking`` block is kept as a message of its own, right
before its reply, as ``Kind.HIDDEN`` (neither shown nor indexed), with the reply's id plus ``:thinking``.

Times are ISO-8601 in UTC. A message without one takes the time of the message before it, else the
conversation's; never the time of the import. Sessions are cut by silences, as for ChatGPT (see there).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from refind_cli.importers import conversations, fields
from refind_cli.importers.conversations import Reader, as_list, dump, iso_time, join, text_of
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "claude"
WHAT = "a Claude.ai data export"
UNTITLED = "Untitled conversation"

_SNIFF = re.compile(rb'"chat_messages"\s*:\s*\[')
_SENDERS = {"human": "You", "assistant": "Claude"}


def sniff(path: Path) -> bool:
    return conversations.sniffed(path, _SNIFF)


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """``known``: what earlier imports left (``conversations.scan``)."""
    return conversations.each(path, WHAT, "chat_messages", known, _told_chat, _conversation)


def _told_chat(meta: dict[str, Any]) -> Chat | None:
    """A conversation's chat from all but its messages (None without its uuid: keyed by its first message,
    it is read whole)."""
    key = fields.ident(meta.get("uuid"))
    return None if key is None else _chat(meta, key)


def _chat(conv: dict[str, Any], key: str) -> Chat:
    name = text_of(conv.get("name")).strip()
    meta = {k: v for k, v in conv.items() if k != "chat_messages"}
    return Chat(FORMAT, key, name or UNTITLED, kind="direct", raw=dump(meta))


def _conversation(conv: dict[str, Any], where: str, reader: Reader, gaps: fields.Gaps) -> ChatExport:
    entries = conv.get("chat_messages")
    if entries is None:
        entries = []
    if not isinstance(entries, list):
        raise reader.error("chat_messages is not a list", f"{where}.chat_messages".lstrip("."))
    # Without its uuid, a conversation is what it started with: its first message stays as it grows.
    first = next((e for e in entries if isinstance(e, dict)), {})
    name = text_of(conv.get("name")).strip()
    key = gaps.key("conversation", "uuid", conv.get("uuid"), first.get("created_at"), first.get("text"), name)
    chat = _chat(conv, key)

    def messages() -> Iterator[Message]:  # built only where the conversation is read (``fingerprint``)
        last = iso_time(conv.get("created_at")) or iso_time(conv.get("updated_at"))
        for index, entry in enumerate(entries):
            if entry is None:
                continue
            place = f"{where}.chat_messages[{index}]".lstrip(".")
            if not isinstance(entry, dict):
                raise reader.error("a message is not a JSON object", place)
            blocks = [b for b in as_list(entry.get("content")) if isinstance(b, dict)]
            if any(b.get(b.get("type")) is None for b in blocks if b.get("type") in ("text", "thinking")):
                gaps.lack("content block", "text")
            ident = fields.ident(entry.get("uuid"))
            if ident is None:
                gaps.lack("message", "uuid", "told apart by time, sender and text")
            if entry.get("text") is None and entry.get("content") is None:
                gaps.lack("message", "text or content")
            when = iso_time(entry.get("created_at")) or iso_time(entry.get("updated_at")) or last
            if when is None:
                raise reader.error("a message without a time, in a conversation without one", place)
            last = when
            yield from _messages(entry, ident, when)

    return ChatExport(chat, messages(), fingerprint=conversations.fingerprint(conv))


def _messages(entry: dict[str, Any], ident: str | None, when: datetime) -> list[Message]:
    """The message, preceded by its thinking blocks, each a hidden message of its own."""
    role = text_of(entry.get("sender"))
    sender = _SENDERS.get(role) or role or "unknown"
    parent = entry.get("parent_message_uuid")
    reply_to = parent if isinstance(parent, str) and parent else None
    pieces: list[str] = []
    thinking: list[Message] = []
    for block in as_list(entry.get("content")):
        if not isinstance(block, dict):
            continue
        # A block whose type a tool dropped is told by the key that holds its words.
        kind = block.get("type") or next((k for k in ("thinking", "input") if k in block), "text")
        kind = "tool_use" if kind == "input" else kind
        if kind == "thinking":
            n = len(thinking)
            thinking.append(
                Message(
                    timestamp=iso_time(block.get("start_timestamp")) or when,
                    sender=sender,
                    text=text_of(block.get("thinking")),
                    kind=Kind.HIDDEN,
                    source_id=ident and f"{ident}:thinking" + (f":{n + 1}" if n else ""),
                    sender_id=role or None,
                    reply_to=reply_to,
                    raw=dump(block),
                )
            )
        elif kind == "tool_use":
            tool = text_of(block.get("name")) or "tool"
            pieces.append(join(f"[tool use: {tool}]", _input(block.get("input"))))
        elif kind == "tool_result":
            tool = text_of(block.get("name")) or "tool"
            pieces.append(join(f"[tool result: {tool}]", _block_text(block.get("content"))))
        else:  # text, and whatever later block types carry a text
            pieces.append(text_of(block.get("text")))
    text = join(*pieces) or text_of(entry.get("text"))
    attached = False
    for attachment in as_list(entry.get("attachments")):
        if isinstance(attachment, dict):
            attached = True
            label = text_of(attachment.get("file_name")) or "file"
            text = join(text, f"[attachment: {label}]", text_of(attachment.get("extracted_content")))
    for file in as_list(entry.get("files")):
        if isinstance(file, dict):
            attached = True
            text = join(text, f"[file: {text_of(file.get('file_name')) or 'file'}]")
    message = Message(
        timestamp=when,
        sender=sender,
        text=text,
        kind=Kind.ATTACHMENT if attached else Kind.TEXT,
        source_id=ident,
        sender_id=role or None,
        reply_to=reply_to,
        raw=dump(entry),
        own=role == "human",
    )
    return [*thinking, message]


def _input(value: Any) -> str:
    """A tool call's input: its string values (a search query, a file's content), else the JSON."""
    if isinstance(value, dict):
        strings = [v for v in value.values() if isinstance(v, str)]
        if strings:
            return join(*strings)
    return "" if value in (None, {}, []) else dump(value)


def _block_text(value: Any) -> str:
    """A tool result's content: a string, or a list of blocks with texts (search results carry a title)."""
    if isinstance(value, str):
        return value
    pieces = []
    for block in as_list(value):
        if isinstance(block, str):
            pieces.append(block)
        elif isinstance(block, dict):
            pieces += [text_of(block.get("title")), text_of(block.get("text"))]
    return join(*pieces)
