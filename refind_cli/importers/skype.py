"""Skype's own export (Settings → Account & Profile → Export files and chat history): ``messages.json``,
loose or in the unpacked export folder (FORMATS.md §4c).

``{userId, exportDate, conversations: [{id, displayName, threadProperties, MessageList: [...]}]}``: a
conversation id starting ``19:`` is a group, ``8:`` a person. A message is ``{id, originalarrivaltime (ISO,
Z), messagetype, content, from, displayName, properties}``; ``content`` of ``RichText`` is Skype's HTML-like
markup (``<b>``, ``<at>``, ``<ss>`` emoticons, ``<quote>`` with its ``<legacyquote>``, the ``<e_m>`` edit
mark), of ``RichText/UriObject`` and ``RichText/Media_*`` a ``<URIObject>`` naming a shared file. Calls
(``Event/Call``), membership and topic changes (``ThreadActivity/*``) and client signals (``Control/*``) are
kept as system messages. The text is made readable; ``raw`` keeps the record verbatim.

A Skype account's history runs to hundreds of MB, so the file is streamed (``jsonstream``). Exported again,
it has new messages in a few conversations: each conversation's fingerprint is the hash of its bytes
(``jsonstream.Items``) with what its reading depends on besides, the account and the names of people known
before it (a message without a name takes its sender's from them, and a message without an id is known by
its sender's name); a conversation whose fingerprint an earlier reading left (``known``) is passed over
unparsed where the import has it already (``ingest.resume.Prints``), and the names its messages taught later
conversations are learnt from its fingerprint, so later conversations read as a whole reading reads them.
"""

from __future__ import annotations

import base64
import bisect
import contextlib
import json
import re
from collections.abc import Callable, Collection, Iterator
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, TypeVar

from refind_cli.errors import InputError
from refind_cli.importers import fields, jsonstream
from refind_cli.importers.container import member_of, named_file, named_head
from refind_cli.importers.conversations import text_of
from refind_cli.importers.htmltext import message_text
from refind_cli.records import Chat, ChatExport, Kind, Message

FORMAT = "skype"

FILE = "messages.json"
_SNIFF_BYTES = 64 << 10
_SNIFF = re.compile(rb'\A\{\s*"(?:userId|exportDate)"\s*:.*"conversations"\s*:\s*\[', re.S)
# A file another tool wrote its keys in another order: the list first, its conversations' MessageList.
_SNIFF_ANY_ORDER = re.compile(
    rb'\A\{\s*"conversations"\s*:\s*\[\s*\{[^\[\]{}]*?"MessageList"\s*:\s*[\[n]', re.S
)
_RULES = jsonstream.Rules(
    block=64 << 10, max_token=16 << 20, max_depth=64, export="a Skype export", full_stop=False
)
_DROP = frozenset({"e_m", "legacyquote"})
_QUOTE_ID = re.compile(r'<quote\b[^>]*\bmessageid="(\d+)"')
_FILE_NAME = re.compile(r'(?:<OriginalName v|\boriginalName|<Title)\s*[=>]\s*"?([^"<]+)')
_CALL_TYPE = re.compile(r'<partlist\b[^>]*\btype="(\w+)"')
_DURATION = re.compile(r"<duration>([\d.]+)</duration>")
_INITIATOR = re.compile(r"<initiator>([^<]*)</initiator>")
_TARGETS = re.compile(r"<target>([^<]*)</target>|<value>([^<]*)</value>")
_ACTIVITY = {
    "ThreadActivity/AddMember": "added",
    "ThreadActivity/DeleteMember": "removed",
    "ThreadActivity/TopicUpdate": "changed the topic to",
    "ThreadActivity/PictureUpdate": "changed the group picture",
    "ThreadActivity/RoleUpdate": "changed a role:",
    "ThreadActivity/JoiningEnabledUpdate": "changed joining by link:",
    "ThreadActivity/HistoryDisclosedUpdate": "changed who sees the history:",
}
_CALLS = {"started": "Call started", "ended": "Call ended", "missed": "Missed call"}
_TEXT_TYPES = frozenset({"Text", "RichText", "RichText/Html"})
_OWN = "Me"
_PERSON = re.compile(r"^(?:https?://\S*/)?(\d+:)")
_T = TypeVar("_T")


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    head = named_head(path, FILE, _SNIFF_BYTES)
    return _SNIFF.match(head) is not None or _SNIFF_ANY_ORDER.match(head) is not None


# --- reading -----------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """``known``: fingerprints of conversations that earlier readings left; a conversation of a file on disk
    whose bytes, and the names read before it, they fingerprint is not parsed unless its messages are
    read."""
    with named_file(path, FILE, "a Skype export") as (chunks, where, entry), contextlib.closing(chunks):

        def error(what: str, place: str | None) -> InputError:
            return InputError(where, what, ", ".join(p for p in (entry, place) if p) or None)

        stream = jsonstream.Stream(chunks, error, _RULES)
        on_disk = entry is None and member_of(where) is None
        items = jsonstream.Items(where, [("conversations",)], known) if on_disk else None
        stream.cut_after = b"}" if items is not None else b""  # heads, where a conversation's end is found
        events = jsonstream.JsonEvents(stream)
        walk = None if items is None else jsonstream.Walk(events, items)
        gaps = fields.Gaps(where)
        reader = _Reader(events, tz, gaps, walk, lambda: _first_error(path, tz), lambda: _account(path))
        with contextlib.closing(items) if items is not None else contextlib.nullcontext():
            try:
                yield from reader.exact(reader.chats())
            finally:
                if walk is not None:
                    walk.close()
        gaps.warn()


def _account(path: Path) -> str:
    """The account (``userId``) of an export whose top-level keys another tool wrote in another order
    (sorted, or reversed: after the conversations), from a pass over the file's top level; "" where there
    is none. An error on the way is the reading's to name."""
    with named_file(path, FILE, "a Skype export") as (chunks, where, _), contextlib.closing(chunks):
        events = jsonstream.JsonEvents(
            jsonstream.Stream(chunks, lambda what, place: InputError(where, what, place), _RULES)
        )
        try:
            if events.next()[0] != "start_map":
                return ""
            while (found := events.next())[0] == "map_key":
                event, value = events.next()
                if found[1] == "userId" and event == "string":
                    return _person(value)
                if event in ("start_map", "start_array"):
                    events.skip()
        except InputError:
            pass
    return ""


def _first_error(path: Path, tz: tzinfo) -> InputError | None:
    """The error a whole reading of the export meets first, if any."""
    return jsonstream.whole_error(read(path, tz=tz))


class _Reader:
    def __init__(
        self,
        events: jsonstream.JsonEvents,
        tz: tzinfo,
        gaps: fields.Gaps,
        walk: jsonstream.Walk | None,
        first_error: Callable[[], InputError | None],
        account: Callable[[], str] = lambda: "",
    ) -> None:
        self.events = events
        self.account = account
        self.gaps = gaps
        # The parser that goes on after a conversation passed over reads in other blocks: an error's place
        # ("near byte") is then the one a whole reading gives.
        self.first_error = first_error
        self.passed = False
        self.tz = tz
        self.user = ""
        # Names of people by id, as the export gives them: a person's conversation is named after them, and
        # some messages carry their sender's name; those the messages of the conversation being read gave.
        self.names: dict[str, str] = {}
        self.taught: dict[str, str] = {}
        # The message (its place in its list) that taught each of ``taught``, in order (-1: before the head its
        # reading went on from); the message being read; the first without an id.
        self.taught_by: list[int] = []
        self.at = 0
        self.unnamed: int | None = None
        # Where each conversation lies (``jsonstream.Items``), and those read before as they are. A
        # conversation's messages read names that earlier ones taught, and teach later ones theirs: its
        # fingerprint holds the names known before it (with the account), and the names its messages taught,
        # which a reading that passes over it learns from there.
        self.walk = walk

    def chats(self) -> Iterator[ChatExport]:
        events = self.events
        event, _ = events.next()
        if event != "start_map":
            raise events.error("not a Skype export: the top level is not a JSON object", None)
        found = False
        for key, event, value in events.members():
            if key == "conversations":
                if event != "start_array":
                    raise events.error("conversations is not a list", "conversations")
                found = True
                if not self.user:  # the keys in another order (sorted: userId last): looked for first
                    self.user = self.account()
                index = 0
                while True:
                    event, _ = events.next()
                    if event == "end_array":
                        break
                    if event != "start_map":
                        raise events.error("a conversation is not a JSON object", f"conversations[{index}]")
                    yield from self._conversation(f"conversations[{index}]", index)
                    index += 1
            else:
                value = events.value(event, value, key)
                if key == "userId" and isinstance(value, str):
                    self.user = _person(value)
        events.finish()
        if not found:
            raise events.error('not a Skype export: no "conversations" list', None)

    def _conversation(self, where: str, index: int) -> Iterator[ChatExport]:
        events = self.events
        meta: dict[str, Any] = {}
        buffered: list[Message] | None = None
        listed = False
        walk = self.walk
        if walk is not None:
            walk.begin()
        for key, event, value in events.members():
            if key != "MessageList":
                meta[key] = events.value(event, value, f"{where}.{key}")
                continue
            if event == "null":
                continue
            if event != "start_array":
                raise events.error("MessageList is not a list", f"{where}.MessageList")
            listed = True
            if ident(meta.get("id")):
                chat = self._chat(meta, where)
                self.taught, self.taught_by, self.unnamed = {}, [], None
                context = self._context()
                # A conversation that grew since an earlier reading: read on from a head of its messages, with
                # the names the messages before it taught.
                passed = None if walk is None else walk.go_on(["conversations", None, "MessageList"], context)
                if passed is not None and walk is not None:
                    self.passed = True
                    self._learn(walk.kept, before_head=True)
                messages = self.exact(self._messages(where, passed))
                yield ChatExport(
                    chat,
                    messages,
                    fingerprint=None if walk is None else walk.fingerprint(context),
                    printed=None if walk is None else walk.printed(self._keeps, self._taught),
                    passed=0 if walk is None else walk.passed,
                )
                if walk is not None and walk.pass_over(messages, ["conversations"], index):
                    self.passed = True
                    self._learn(walk.kept, before_head=False)
                    return
                for _ in messages:  # whatever the consumer left unread
                    pass
            else:
                buffered = list(self.exact(self._messages(where, None)))
        if walk is not None:
            walk.done()
        if buffered is not None:
            buffered = self._named(buffered, text_of(meta.get("displayName")), ident(meta.get("id")))
            yield ChatExport(self._chat(meta, where, buffered[0] if buffered else None), buffered)
        if not listed:
            self.gaps.lack("conversation", "MessageList")

    def _messages(self, where: str, passed: jsonstream.Ends | None) -> Iterator[Message]:
        """The conversation's messages (from the head ``passed`` on, where given), each numbered in its list:
        which taught a name, which has no id (``_keeps``)."""
        first = 0 if passed is None else passed.count
        for n, (obj, place) in enumerate(self.events.array(f"{where}.MessageList", passed), first):
            self.at = n
            message = self._message(obj, place)
            if message.source_id is None and self.unnamed is None:
                self.unnamed = n
            yield message

    def _keeps(self, head: jsonstream.Head) -> bool:
        """Whether a later reading of the conversation may go on from ``head``: not where a message before it
        has no id (its identity, by its sender's name and text, would make later identities depend on it)."""
        return self.unnamed is None or self.unnamed >= head.items

    def _learn(self, tail: str, *, before_head: bool) -> None:
        """The names a conversation's messages taught, from the tail of its fingerprint (``_taught``): all of
        them (it was passed over), or those before the head its reading goes on from (as taught by it)."""
        *head, coded = tail.split(".")
        taught = list(json.loads(base64.urlsafe_b64decode(coded)).items())
        if before_head:
            taught = taught[: int(head[3])]
        for person, shown in taught:
            self.names.setdefault(person, shown)
            if before_head:
                self.taught[person] = shown
                self.taught_by.append(-1)

    def exact(self, items: Iterator[_T]) -> Iterator[_T]:
        """``items``, an error in them the one a whole reading meets first."""
        return jsonstream.exact(items, lambda: self.passed, self.first_error)

    def _context(self) -> str:
        """What a conversation's reading depends on besides its bytes: the account, the names known."""
        return json.dumps([self.user, sorted(self.names.items())], ensure_ascii=False)

    def _taught(self, head: jsonstream.Head | None, head_tail: str) -> str:
        """The names the conversation's messages taught, as its fingerprint keeps them (no colon): after the
        head kept (``head_tail``), with how many of them the messages before it taught."""
        coded = base64.urlsafe_b64encode(json.dumps(self.taught, ensure_ascii=False).encode()).decode()
        if head is None:
            return coded
        return f"{head_tail}.{bisect.bisect_left(self.taught_by, head.items)}.{coded}"

    def _named(self, messages: list[Message], shown: str, conversation: str | None) -> list[Message]:
        """Messages read before their conversation's name (its keys in another order: MessageList first),
        named by it where it is a person's: the person its id names, or without an id, the one person besides
        the account who writes in it."""
        others = {m.sender_id for m in messages if m.sender_id and not m.own}
        if conversation is not None:
            others = {conversation} if conversation.startswith("8:") else set()
        if not shown or len(others) != 1:
            return messages
        (person,) = others
        self.names.setdefault(person, shown)
        return [
            m._replace(sender=shown) if m.sender_id == person and m.sender == person.split(":", 1)[-1] else m
            for m in messages
        ]

    def _chat(self, meta: dict[str, Any], where: str, first: Message | None = None) -> Chat:
        # Without its id, a conversation is what it started with: its first message stays as it grows.
        there = (meta.get("displayName"), first and first.timestamp.isoformat(), first and first.text)
        conversation = self.gaps.key("conversation", "id", meta.get("id"), *there)
        thread = meta.get("threadProperties")
        topic = thread.get("topic") if isinstance(thread, dict) else None
        shown = text_of(meta.get("displayName"))
        if shown and conversation.startswith("8:"):
            self.names.setdefault(conversation, shown)
        name = shown or text_of(topic) or _person(conversation).split(":", 1)[-1]
        kind = (
            "group"
            if conversation.startswith("19:")
            else "direct"
            if conversation.startswith("8:")
            else "chat"
        )
        raw = {k: v for k, v in meta.items() if k != "MessageList"}
        return Chat(FORMAT, conversation, name, kind, self.events.dump(raw, where))

    def _message(self, obj: Any, where: str) -> Message:
        if not isinstance(obj, dict):
            raise self.events.error("a message is not a JSON object", where)
        mtype = text_of(obj.get("messagetype"))
        if obj.get("content") is None:
            self.gaps.lack("message", "content")
        content = text_of(obj.get("content"))
        properties = found if isinstance(found := obj.get("properties"), dict) else {}
        sender_id = _person(text_of(obj.get("from")))
        own = bool(self.user) and sender_id == self.user
        shown = text_of(obj.get("displayName"))
        if shown and sender_id and sender_id not in self.names:
            self.names[sender_id] = self.taught[sender_id] = shown
            self.taught_by.append(self.at)
        sender = shown or self._name(sender_id) or None
        kind, text = _content(mtype, content, self._name)
        if properties.get("deletetime") and not text:
            kind = Kind.DELETED
        quoted = _QUOTE_ID.search(content) if "<quote" in content else None
        return Message(
            timestamp=self._time(obj, where),
            sender=sender,
            text=text,
            kind=kind,
            source_id=ident(obj.get("id")),
            sender_id=sender_id or None,
            reply_to=quoted.group(1) if quoted else None,
            edited=bool(properties.get("edittime")) or "<e_m" in content,
            raw=self.events.dump(obj, where),
            own=own,
        )

    def _name(self, person: str) -> str:
        """A person's name where the export gave it, "Me" for the account's own, else the id without its
        ``8:`` prefix."""
        if person in self.names:
            return self.names[person]
        return _OWN if person == self.user and self.user else person.split(":", 1)[-1]

    def _time(self, obj: dict[str, Any], where: str) -> datetime:
        value = obj.get("originalarrivaltime")
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                when = datetime.fromisoformat(value)
                return (when if when.tzinfo else when.replace(tzinfo=self.tz)).astimezone(UTC)
        raise self.events.error(f"unreadable originalarrivaltime {value!r}", f"{where}.originalarrivaltime")


def _content(mtype: str, content: str, name: Callable[[str], str]) -> tuple[str, str]:
    """Kind and readable text of a message by its ``messagetype``."""
    if mtype in _TEXT_TYPES or not mtype:
        return Kind.TEXT, message_text(content, _DROP) if mtype != "Text" else content
    if mtype == "RichText/Location":
        return Kind.LOCATION, message_text(content, _DROP)
    if mtype.startswith("RichText/"):
        names = [m.group(1).strip() for m in _FILE_NAME.finditer(content)]
        return Kind.ATTACHMENT, "\n".join(dict.fromkeys(n for n in names if n)) or mtype
    if mtype == "Event/Call":
        call = _CALL_TYPE.search(content)
        text = _CALLS.get(call.group(1), f"Call {call.group(1)}") if call else "Call"
        duration = _DURATION.search(content)
        return Kind.SYSTEM, f"{text}, {duration.group(1)} s" if duration else text
    if mtype in _ACTIVITY:
        initiator = _INITIATOR.search(content)
        who = name(_person(initiator.group(1))) if initiator else "Someone"
        what = ", ".join(name(_person(t)) if t else v for t, v in _TARGETS.findall(content) if t or v)
        return Kind.SYSTEM, " ".join(p for p in (who, _ACTIVITY[mtype], what) if p)
    return Kind.SYSTEM, message_text(content, _DROP) or mtype


def _person(value: str) -> str:
    """``8:live:maya`` from itself or from the URL some exports write (``https://…/contacts/8:live:maya``)."""
    m = _PERSON.search(value)
    return value[m.start(1) :] if m else value


# An id of Skype's or Teams': a string, or a number in some files.
ident = fields.ident
