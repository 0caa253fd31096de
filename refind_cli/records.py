"""The records that flow between layers: importers produce them, the archive stores them.

Importers yield ``ChatExport`` objects; everything downstream reads ``Chat`` and ``Message`` only, so a
new export format is one new module in ``importers/`` and nothing else.

Records are frozen named tuples, not frozen dataclasses: a command builds its record classes on every start,
and a frozen dataclass compiles six methods from source when its module is imported (~1 ms of CPU each at
load; importing ``dataclasses`` itself loads ``inspect``, ``ast`` and ``dis``: ~10 ms), where a named tuple
class costs ~0.1 ms and builds its instances faster (bench/RESULTS.md, issue 26 item 3, session 11). Their
copies with changes are ``_replace``; a record that checks itself does so in ``__new__`` (``SearchRequest``).

The modules of the records a search builds (this one, ``results``, ``request``, ``text.query``,
``text.snippet``, ``frontends.cli.params``) do without ``from __future__ import annotations``: typing compiles
each field's annotation that is a string into code when it makes a named tuple class (``ForwardRef``), ~15 us
a field at load, ~1.4 ms of a cold search for their 90 fields (bench/RESULTS.md, issue 26 item 3, session 15).
A type used before its definition is written in quotes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime

from refind_cli.typed import NamedTuple, Protocol

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

# The times a message can carry, as the WhatsApp reader has them: far inside datetime's range in every zone
# (a timeline's next bucket is still a date), and a span whose zone changes a view can sample day by day.
# An import clamps a time outside into it (``importers.read_export``); a migration, what was stored so.
TIMES = (datetime(1970, 1, 1, tzinfo=UTC), datetime(2199, 12, 31, 23, 59, 59, 999999, tzinfo=UTC))


# A text of more than this many characters is never held whole on its way to the archive: a line-log reader
# gives it as a ``HeldText`` (``importers.linelog.Spool``), the import worker sends it in pieces, and the
# archive stores it apart (``schema._m040_long_texts_apart``).
LONG_TEXT = 1 << 20
# What a message's ``raw`` holds in place of its text, where the text is a ``HeldText`` and the record is not
# (a record held too holds its text as written): one character no record that is given so holds elsewhere
# (``ingest.rows`` cuts the record at it).
HELD = "\x00"


def html_written(text: str) -> str:
    """A text as an HTML page writes it inside an element (imessage-exporter's ``sanitize_html``): the
    characters markup gives a meaning as their named references, and NUL as ``&#0;``, which a parser never
    reads back as NUL (U+FFFD): a record holding ``HELD`` so is told from every text it holds. A form of
    ``storage.raw``'s (``FORMS``), shared with the reader that holds a text so (``importers.imessage``)."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("\x00", "&#0;")
    )


# A character beyond the BMP (an emoji), which SMS Backup & Restore writes as a character reference: as one
# after ``importers.sms`` joins the two it writes (its UTF-16 halves). A pattern string, compiled on first use
# (``re`` keeps it): a command that never writes a record does not compile it.
_ASTRAL = "[\U00010000-\U0010ffff]"


def _reference(m: re.Match[str]) -> str:
    return f"&#{ord(m.group())};"


def sms_written(text: str) -> str:
    """A text as SMS Backup & Restore writes an attribute's value, as ``importers.sms`` hands it to its parser:
    ``& < > " '`` and a line break as ``&amp; &lt; &gt; &quot; &#39; &#10;``, a character beyond the BMP as
    its decimal reference, and NUL as ``&#00;``, which no XML holds (a parser refuses a reference to NUL, and
    the reader makes ``&#0;`` U+FFFD): a record holding ``HELD`` so is told from every text it holds. A form
    of ``storage.raw``'s (``FORMS``), shared with the reader that holds a body so (``importers.sms``)."""
    text = (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
        .replace("\n", "&#10;")
        .replace("\x00", "&#00;")
    )
    return text if text.isascii() else re.sub(_ASTRAL, _reference, text)


class HeldText:
    """A message's text held in a file rather than in memory: ``head`` (UTF-8), then ``size - len(head)``
    bytes of ``file`` from ``offset`` on. ``len()`` is its length in characters, all that planning sessions
    reads of a row's text. A line-log reader gives a text of more than ``LONG_TEXT`` characters so (the file
    has no name: it goes when it is closed, or with its process); the import worker sends it in pieces; the
    archive writes it a piece at a time. A plain class (its ``len`` is not a tuple's), so that a search
    builds no dataclass."""

    __slots__ = ("chars", "file", "head", "offset", "size")

    def __init__(self, file: IO[bytes], offset: int, size: int, chars: int, head: bytes = b"") -> None:
        self.file, self.offset, self.size, self.chars, self.head = file, offset, size, chars, head

    def __len__(self) -> int:
        return self.chars

    def pieces(self, size: int = 1 << 20) -> Iterator[bytes]:
        if self.head:
            yield self.head
        end = self.offset + self.size - len(self.head)
        for start in range(self.offset, end, size):
            self.file.seek(start)
            yield self.file.read(min(size, end - start))

    def whole(self) -> str:
        """The text itself, whole: for the rare reader that compares it."""
        return b"".join(self.pieces()).decode()


class Kind:
    """What a message is. Nothing is dropped on import: non-text messages are kept and flagged."""

    TEXT = "text"
    MEDIA = "media"  # media omitted from the export ("<Media omitted>", "image omitted")
    ATTACHMENT = (
        "attachment"  # a file that is (or was) attached: WhatsApp "(file attached)", Slack file_share
    )
    LOCATION = "location"
    DELETED = "deleted"  # "This message was deleted", Slack tombstones
    SYSTEM = "system"  # joins, E2E notices, group changes, Telegram service messages
    BOT = "bot"
    # A record the importer could not fully read: a header-shaped line whose date cannot be (31/02/9999).
    # Its text is the line(s) as written, with no sender; its time is that of the record before.
    MALFORMED = "malformed"
    # Kept in the archive but not part of the conversation as its app shows it, so left out of sessions and
    # turns (neither shown nor indexed): an assistant chat's system prompts and context, its reasoning, and
    # the answers on branches the person did not keep.
    HIDDEN = "hidden"

    ALL = frozenset({TEXT, MEDIA, ATTACHMENT, LOCATION, DELETED, SYSTEM, BOT, MALFORMED, HIDDEN})


class Chat(NamedTuple):
    """One conversation as the source names it: a WhatsApp chat, a Slack channel or DM, a Telegram dialog."""

    source: str  # "whatsapp" | "slack" | "telegram" | ... (the importer's FORMAT)
    key: str  # stable identity inside the source: Slack channel id, Telegram chat id, WhatsApp chat name
    name: str
    kind: str = "chat"  # "direct" | "group" | "channel" | "chat"
    raw: str = ""  # the source's own chat record, verbatim JSON where there is one
    # The key an earlier release gave this chat, where it changed: an archive holding the chat under it
    # keeps it there (re-importing adds nothing), and what was forgotten under it stays forgotten.
    former_key: str | None = None


class Message(NamedTuple):
    """One message exactly as exported, plus the readable text that gets indexed.

    Importers build one per message, a million for a large export: an 11-field frozen dataclass cost 3.2 us
    to build against 0.6 us."""

    timestamp: datetime  # timezone-aware, UTC
    sender: str | None  # display name; None for system lines without an author
    # Readable text: markup resolved, direction marks stripped; "" is allowed. A text of more than
    # ``LONG_TEXT`` characters can be held in a file (``HeldText``), its place in ``raw`` then ``HELD``.
    text: str | HeldText
    kind: str = Kind.TEXT
    source_id: str | None = None  # the source's own id (Slack ts, Telegram message id); None for WhatsApp
    sender_id: str | None = None  # the source's own sender id (Slack U..., Telegram user123)
    local_time: str | None = None  # wall-clock text as written, for sources whose times have no offset
    thread: str | None = None  # an explicit conversation key (Slack thread_ts): one thread, one session
    reply_to: str | None = None  # source id of the message this one replies to
    edited: bool = False
    # The source record verbatim: the line(s) of a text export, the JSON object otherwise. One that holds a
    # line longer than ``LONG_TEXT`` can be held in a file (``HeldText``: a sigtop message quoting a 50-MB
    # one, its text short), kept whole and stored apart (``schema._m042_long_raws_apart``).
    raw: str | HeldText = ""
    # Written by the person whose export this is, where the export says so ("Me", 회원님, is_from_me, an SMS
    # of type sent): what `--from me` finds.
    own: bool = False


class Tap(Protocol):
    """What a reader hashes of a file (``Mark.digest``), carried along by another pass over the file's
    bytes: ``feed`` takes each of its chunks in order, ``at`` the offset of the chunk's first byte."""

    def feed(self, at: int, chunk: bytes | memoryview) -> None: ...


class Mark(NamedTuple):
    """Where a reading of a line-based export stopped: the bytes of the file it read, which end with a
    complete line, and the reader's state there (its own JSON: the day, the date order, the clock). A file
    whose first ``offset`` bytes are those bytes (the ledger holds their hash) is the same export grown, and
    its reader can start at ``offset`` with that state instead of at the start. ``digest``: the SHA-256 of
    those bytes where the ledger's hash of the file does not cover them (a zip's text, which the reader
    decompresses and checks against it). ``read``: the messages read before the mark, where it is short of
    the reading's end (a JSON export's: ``importers.jsonstream.Head``); the identities of those messages are
    their source ids, so none of their state is kept."""

    offset: int
    state: str
    digest: str = ""
    read: int | None = None
    # Where ``digest`` was already checked in the pass that hashed the file for the ledger (``Tap``): the
    # hasher there, for the reader to go on from, so that the file is read once. Never stored; set only on
    # the copy handed to the reader (a named tuple compares it with the rest).
    taken: Tap | None = None
    # The mark is the file's, left by the reading of each of its chats (a backup of many threads): each chat's
    # messages before it are told by its reader (``ChatExport.passed``), and no identity state is kept (its
    # reader goes on only where each chat's messages after it are later than all those before).
    each: bool = False


class ChatExport(NamedTuple):
    """A chat and its messages. ``messages`` may be a one-shot iterator (large files are streamed):
    consume it before asking the importer for the next chat."""

    chat: Chat
    messages: Iterable[Message]
    # Once ``messages`` is consumed: where a later reading of the same file, grown since, can go on from
    # (``Mark``), or None. Set by readers that can go on (``Importer.resumes``).
    end: Callable[[], Mark | None] | None = None
    # A hash of all that the chat's reading depends on (a conversation's whole object), known before its
    # messages are built: a chat read before with the same fingerprint is not read again (``ingest.resume``).
    fingerprint: str | None = None
    # Once ``messages`` is consumed: the chat's fingerprint, where its reader could not tell it before (a
    # Telegram dialog's bytes, whose end is found once it is read).
    printed: Callable[[], str | None] | None = None
    # The chat's messages before ``messages``, which an earlier import read (a Telegram dialog read on from a
    # head of its messages): what its reading counts as seen besides them.
    passed: int = 0
    # Where the chat's item begins in its file, and its index in its list, where its reader found it by its
    # bytes (a conversation of a top-level list): a later import of the file, grown after it, can read on
    # from there (``ingest.resume.Prints``).
    at: tuple[int, int] | None = None
    # The fingerprint an earlier release's reader told for the chat as it is now (a format whose fingerprints
    # changed): a chat whose latest fingerprint is this one is read before as it is, and keeps ``fingerprint``
    # from now on.
    formerly: str | None = None


class NotResumable(Exception):
    """What a grown file holds at the mark does not go on from it (a line continues the message before,
    the date order it tells differs): raised before any message is yielded, and the file is read whole."""


class ChatInfo(NamedTuple):
    """A chat as the archive knows it: ``seq`` is its integer id in the archive."""

    seq: int
    source: str
    key: str
    name: str
    kind: str
    lang: str = ""  # ISO 639-1, "und" (too little text to tell), "" (not told yet): decides its analysis


class Turn(NamedTuple):
    """The indexed unit: a burst of consecutive messages by one speaker inside one session (in
    assistant-style chats, a user message plus the reply). Built by the segmenter, stored by the archive."""

    id: str  # "<session_id>-<ordinal>", stable across re-imports of the same data
    session_id: str
    session_seq: int  # the session's integer id in the archive (the index's fast field)
    chat_seq: int
    ordinal: int  # 1-based position inside its session
    start: datetime  # aware UTC: the first message's time
    end: datetime  # aware UTC: the last message's time
    speaker: str
    text: str  # the messages' texts joined by newlines
    length: int | None = None  # the whole text's length in characters, where ``text`` holds only its start

    def whole(self, shown: str) -> int:
        """The whole length of ``shown``, an end of ``text`` (as ``said`` gives it), where ``text`` holds only
        the start of the turn's."""
        return len(shown) + (self.length - len(self.text) if self.length is not None else 0)


def said(speaker: str, text: str) -> str:
    """A turn's text for showing after its speaker's name: a turn of several speakers (a question with its
    answer) names each one in its text, the first too, which the name in front already says."""
    prefix = f"{speaker}: "
    return text[len(prefix) :] if text.startswith(prefix) else text
