"""ChatGPT data export (Settings -> Data controls -> Export): the zip, its unpacked folder, or the
``conversations.json`` in it (FORMATS.md §4, §4b).

One chat per conversation, named by its title. A conversation's ``mapping`` is a tree of nodes: every edit of
a prompt and every regenerated answer starts a branch, and ``current_node`` names the leaf the person last
saw. The conversation as shown is the path from that leaf up through ``parent`` links (some exports leave
every ``children`` list empty, so children are never read).

Every message of the tree is kept, so a chat holds as many messages as the export. Those the app does not
show are kept as ``Kind.HIDDEN``, which sessions and turns leave out, so they are neither shown nor indexed:
the answers and prompts on other branches, system messages, the custom instructions and memory the app
sends along (``user_editable_context``, ``model_editable_context``), reasoning (``thoughts``,
``reasoning_recap``), anything flagged ``is_visually_hidden_from_conversation``, and messages with nothing to
show. What the app shows is text: the ``parts`` (strings, and the text of objects among them), code sent to a
tool, its output, quotes and browsing results. Images and uploaded files are ``Kind.ATTACHMENT``, with the
files' names as text.

Times are epoch seconds, and some messages have none: such a message takes its nearest ancestor's time, else
the conversation's creation time; never the time of the import.

A conversation is a chat of its own, cut into sessions by silences like any chat: a conversation taken up
again days later is a new session, dated when it was taken up. Measured with LongMemEval-S standing in for
assistant chats (bench/assistant_sessions.py): with resumed conversations of 6 of its sessions each, one
session per conversation found all answer sessions in the top 5 for 0.729 of the questions, silences 0.797
(the sessions as the benchmark cuts them: 0.847).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from datetime import datetime, tzinfo
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
    join,
    text_of,
)
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "chatgpt"
WHAT = "a ChatGPT data export"
UNTITLED = "Untitled conversation"

_SNIFF = re.compile(rb'"mapping"\s*:\s*\{')
_SENDERS = {"user": "You", "assistant": "ChatGPT", "system": "system"}
# Content the app keeps out of the conversation it shows.
_HIDDEN_TYPES = frozenset({"user_editable_context", "model_editable_context", "thoughts", "reasoning_recap"})
# Where a content object keeps its text, in reading order: tether_quote (title, url, text), browsing
# (result, summary), code and execution_output (text), system_error (name, text), the context types.
_TEXT_KEYS = (
    "title",
    "url",
    "name",
    "text",
    "result",
    "summary",
    "content",
    "user_profile",
    "user_instructions",
    "model_set_context",
)
# Where a content object holds what it says: one without any lost it to a tool that rewrote the file.
_HOLDING = ("parts", "thoughts", *_TEXT_KEYS)


def sniff(path: Path) -> bool:
    return conversations.sniffed(path, _SNIFF)


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """``known``: what earlier imports left (``conversations.scan``)."""
    return conversations.each(path, WHAT, "mapping", known, _told_chat, _conversation)


def _told_chat(meta: dict[str, Any]) -> Chat | None:
    """A conversation's chat from all but its mapping (None without its id: one keyed by its tree is read
    whole)."""
    key = fields.ident(meta.get("conversation_id", meta.get("id")))
    return None if key is None else _chat(meta, key)


def _chat(conv: dict[str, Any], key: str) -> Chat:
    title = text_of(conv.get("title")).strip()
    meta = {k: v for k, v in conv.items() if k != "mapping"}
    return Chat(FORMAT, key, title or UNTITLED, kind="direct", raw=dump(meta))


def _conversation(conv: dict[str, Any], where: str, reader: Reader, unkeyed: fields.Gaps) -> ChatExport:
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict):
        raise reader.error("a conversation without a mapping", where or None)
    nodes = {nid: node for nid, node in mapping.items() if isinstance(node, dict)}
    parents = {
        nid: p for nid, node in nodes.items() if isinstance(p := node.get("parent"), str) and p in nodes
    }
    if not parents and len(nodes) > 1:  # a tool kept only the children lists: the same tree
        unkeyed.lack("conversation", "parent links", "its tree rebuilt from the children lists")
        parents = {
            child: nid
            for nid, node in nodes.items()
            for child in as_list(node.get("children"))
            if isinstance(child, str) and child in nodes and child != nid
        }
    key = fields.ident(conv.get("conversation_id", conv.get("id")))
    if key is None:
        # Tools that anonymise or convert exports drop the id; the tree's root keeps its node id as the
        # conversation grows, so it keys the chat as stably as the id would.
        roots = sorted(nid for nid in nodes if nid not in parents)
        if not roots:
            raise reader.error("a conversation without an id or messages", where or None)
        unkeyed.lack("conversation", "id", "keyed by the id of its first node")
        key = "root:" + roots[0]
    chat = _chat(conv, key)

    def messages() -> Iterator[Message]:  # built only where the conversation is read (``fingerprint``)
        own = {nid: _own_time(node) for nid, node in nodes.items()}
        started = epoch_time(conv.get("create_time")) or epoch_time(conv.get("update_time"))
        shown = active_path(conv.get("current_node"), parents, own)
        times = _times(parents, own)
        for nid, node in nodes.items():
            message = node.get("message")
            if not isinstance(message, dict):
                if nid in parents:  # only the root of a real export's tree has none
                    unkeyed.lack("message", "message object")
                continue
            # Real exports write each of these, null where there is none; a tool that rewrote the file
            # may leave them out.
            for field in ("create_time", "content"):
                if field not in message:
                    unkeyed.lack("message", field)
            content = message.get("content")
            if isinstance(content, dict) and not any(content.get(k) is not None for k in _HOLDING):
                unkeyed.lack("message", "text in its content")
            when = times[nid] or started
            if when is None:
                raise reader.error(
                    "a message without a time, in a conversation without one",
                    f"{where}.mapping.{nid}".lstrip("."),
                )
            yield _message(nid, node, message, when, nid in shown, parents.get(nid), nodes)

    return ChatExport(chat, messages(), fingerprint=conversations.fingerprint(conv))


def _own_time(node: dict[str, Any]) -> datetime | None:
    message = node.get("message")
    if not isinstance(message, dict):
        return None
    return epoch_time(message.get("create_time")) or epoch_time(message.get("update_time"))


def _times(parents: dict[str, str], own: dict[str, datetime | None]) -> dict[str, datetime | None]:
    """Each node's own time, else its nearest ancestor's; None where no ancestor has one. Each node is
    resolved once, so a long chain of messages without times costs no more than one with them."""
    resolved: dict[str, datetime | None] = {}
    for nid in own:
        path: list[str] = []
        on_path: set[str] = set()
        at: str | None = nid
        found: datetime | None = None
        while at is not None and at not in resolved:
            if own[at] is not None:
                found = own[at]
                break
            if at in on_path:  # a cycle in a hostile file
                break
            path.append(at)
            on_path.add(at)
            at = parents.get(at)
        else:
            found = resolved.get(at) if at is not None else None
        for step in path:
            resolved[step] = found
        if at is not None and own[at] is not None:
            resolved[at] = own[at]
    return resolved


def _message(
    nid: str,
    node: dict[str, Any],
    message: dict[str, Any],
    when: datetime,
    shown: bool,
    parent: str | None,
    nodes: dict[str, dict],
) -> Message:
    author = as_dict(message.get("author"))
    role = text_of(author.get("role"))
    metadata = as_dict(message.get("metadata"))
    content = as_dict(message.get("content"))
    content_type = text_of(content.get("content_type"))  # a string: a list would not even be hashable
    text, attached = _content(content)
    files = [text_of(a.get("name")) for a in as_list(metadata.get("attachments")) if isinstance(a, dict)]
    if files:
        attached = True
        text = join(text, *files)
    hidden = (
        not shown
        or role == "system"
        or metadata.get("is_visually_hidden_from_conversation") is True
        or content_type in _HIDDEN_TYPES
        or not (text or attached)
    )
    if hidden:
        kind = Kind.HIDDEN
    elif attached:
        kind = Kind.ATTACHMENT
    elif content_type == "system_error":
        kind = Kind.SYSTEM
    else:
        kind = Kind.TEXT
    sender = _SENDERS.get(role) or text_of(author.get("name")) or role or "tool"
    replied = parent if parent is not None and isinstance(nodes[parent].get("message"), dict) else None
    return Message(
        timestamp=when,
        sender=sender,
        text=text,
        kind=kind,
        source_id=nid,
        sender_id=role or None,
        reply_to=replied,
        raw=dump(node),
        own=role == "user",
    )


def _content(content: dict[str, Any]) -> tuple[str, bool]:
    """The readable text of a message's content, and whether it holds an image or a file."""
    pieces: list[str] = []
    attached = False
    for part in as_list(content.get("parts")):
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            if "asset_pointer" in part:  # image_asset_pointer, and the audio and video ones
                attached = True
            pieces.append(text_of(part.get("text")))
    pieces += [text_of(content.get(k)) for k in _TEXT_KEYS]
    for thought in as_list(content.get("thoughts")):
        if isinstance(thought, dict):
            pieces += [text_of(thought.get("summary")), text_of(thought.get("content"))]
    return join(*pieces), attached
