"""WhatsApp "Export chat" text files, loose (``.txt``) or zipped (``.zip``), from Android and iOS.

A file is a sequence of records. A record starts with a header line (date, time, optional author) and
every following line that is not a header belongs to it. The header has no fixed layout: it depends on
the phone's platform, locale and app version, so one tolerant pattern covers the families (bracketed
iOS stamps, dashed Android ones, dotted, year-first and time-first dates, 12 and 24 hours). Which number is the day and which the month is not written anywhere: it is
inferred once per file from all its dates.

The decoded text is kept whole and searched, not split into lines: a pattern specialised to the file's
first header, led by a newline, lets the regex engine run from header to header by itself. Two passes
run over it: the first collects the distinct dates for the day/month decision, the second, lazy one
builds the messages, so a million-line file is never held as a million records.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container
from refind_cli.records import Chat, ChatExport, Kind, Mark, Message, NotResumable

FORMAT = "whatsapp"

SNIFF_BYTES = 64 << 10

# Direction marks, isolates and stray BOMs: invisible, and never part of a name or a word.
_MARKS = "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
_M = f"[{_MARKS}]*"
# What WhatsApp puts between the parts of a stamp: space, NBSP, narrow NBSP (2023+), thin space.
_WS = "[ \u00a0\u202f\u2009]"

_AMPM_BEFORE = "오전|오후|上午|下午|午前|午後"
_AMPM_AFTER = (
    rf"[AaPp]\.?{_WS}?[Mm]\.?(?![^\W\d_])"
    r"|in the (?:morning|afternoon|evening)|at night"
    rf"|{_AMPM_BEFORE}|ص|م"
)
# Years of up to six digits: a header with the year 10000 is read (as a malformed record), not glued to the
# message before.
_DATE = (
    rf"(?P<date>(?P<d1>\d{{1,6}}){_M}(?P<ds>[./-]){_WS}?{_M}(?P<d2>\d{{1,2}}){_M}(?P=ds){_WS}?{_M}"
    # The marks before a trailing dot are bound to it: a bare run of marks is left to the next part, since
    # two adjacent mark runs backtrack quadratically on a line made of marks.
    rf"(?P<d3>[RHST]?\d{{1,6}})(?P<be>{_WS}?B\.?E\.?)?)(?:{_M}\.)?"
)
_TIME = (
    rf"(?P<time>(?:(?P<ap0>{_AMPM_BEFORE}){_WS}?)?"
    r"(?P<h>\d{1,2})(?P<ts>[:.])(?P<mi>\d{2})(?:(?P=ts)(?P<s>\d{2}))?"
    rf"(?:{_WS}?(?P<ap>{_AMPM_AFTER}))?)"
)
_BETWEEN = rf"{_M}(?:[,،]{_WS}?|{_WS})(?:klo{_WS})?{_M}"
# "] " after a bracketed stamp; " - " on Android; ": " on iOS before 2017.
_END = rf"{_M}(?(br)\]{_WS}?|(?:{_WS}[-–]{_WS}?|:{_WS}))"
_HEADER_DATE_FIRST = re.compile(rf"{_M}(?:(?P<br>\[){_M})?(?P<stamp>{_DATE}{_BETWEEN}{_TIME}){_END}")
_HEADER_TIME_FIRST = re.compile(rf"{_M}(?:(?P<br>\[){_M})?(?P<stamp>{_TIME}{_BETWEEN}{_DATE}){_END}")

# Besides digits, what a header line can start with; other lines never reach the general patterns.
_NON_DIGIT_STARTS = "[" + _MARKS

_ERA_BASE = {"R": 2018, "H": 1988, "S": 1925, "T": 1911}  # Japanese eras: Reiwa, Heisei, Showa, Taisho
_BUDDHIST_OFFSET = 543
_BUDDHIST_FROM = 2400
# Years a chat can carry (with room either side); anything else is text that only looks like a date, and
# keeping to it keeps every UTC conversion inside datetime's range.
_YEARS = (1970, 2199)
_SECOND = timedelta(seconds=1)
_LONG_AGO = datetime.min.replace(tzinfo=UTC)

# Exports carry invisible direction marks around names and stamps: strip them, then NFKC, which also turns NBSP, narrow NBSP and thin space into spaces.
# (str.translate would do both, but it is ten times slower on non-ASCII text.)
_INVISIBLE = re.compile(f"[{_MARKS}]")
# What WhatsApp wraps each @mention in; a person does not type them (and they show as escapes).
_ISOLATES = re.compile("[\u2066-\u2069]")

# --- body markers -----------------------------------------------------------------------------------
# Exact bodies (compared case-folded, without a final full stop). Android writes one "<Media omitted>"
# per locale; iOS writes the media type; "deleted" exists in both.
_MEDIA_OMITTED = (
    "<media omitted>",
    "<medien ausgeschlossen>",
    "<medien weggelassen>",
    "<multimedia omitido>",
    "<archivo omitido>",
    "<médias omis>",
    "<fichier omis>",
    "<media weggelaten>",
    "<media omessi>",
    "<media omesso>",
    "<mídia omitida>",
    "<ficheiro não revelado>",
    "<без медиафайлов>",
    "<файл пропущен>",
    "<медіа пропущено>",
    "<médiá vynechané>",
    "<média vynechány>",
    "<pominięto multimedia>",
    "<pliki pominięto>",
    "<medya dahil edilmedi>",
    "<medya atlanmış>",
    "<media utelämnat>",
    "<medier udeladt>",
    "<media utelatt>",
    "<media jätettiin pois>",
    "<media tidak disertakan>",
    "<media dikecualikan>",
    "<bỏ qua tệp phương tiện>",
    "<מדיה הושמטה>",
    "<המדיה לא נכללה>",
    "<تم استبعاد الوسائط>",
    "<मीडिया के बिना>",
    "<メディアなし>",
    "<미디어 파일 제외됨>",
    "<省略多媒体文件>",
    "<忽略多媒體檔>",
    "image omitted",
    "video omitted",
    "audio omitted",
    "sticker omitted",
    "gif omitted",
    "document omitted",
    "contact card omitted",
    "<image omitted>",
    "<video omitted>",
    "<audio omitted>",
    "<sticker omitted>",
    "<gif omitted>",
    "imagen omitida",
    "video omitido",
    "audio omitido",
    "sticker omitido",
    "gif omitido",
    "documento omitido",
)
_DELETED = (
    "this message was deleted",
    "you deleted this message",
    "diese nachricht wurde gelöscht",
    "du hast diese nachricht gelöscht",
    "se eliminó este mensaje",
    "eliminaste este mensaje",
    "ce message a été supprimé",
    "vous avez supprimé ce message",
    "questo messaggio è stato eliminato",
    "hai eliminato questo messaggio",
    "dit bericht is verwijderd",
    "je hebt dit bericht verwijderd",
    "esta mensagem foi apagada",
    "você apagou esta mensagem",
    "mensagem apagada",
    "данное сообщение удалено",
    "вы удалили данное сообщение",
)
_LOCATION_EXACT = ("live location shared",)
_EXACT_KIND: dict[str, str] = (
    dict.fromkeys(_MEDIA_OMITTED, Kind.MEDIA)
    | dict.fromkeys(_DELETED, Kind.DELETED)
    | dict.fromkeys(_LOCATION_EXACT, Kind.LOCATION)
)
_EXACT_MAX = max(map(len, _EXACT_KIND))

# iOS names the file before the marker: "Resume.pdf • 2 pages document omitted".
_MEDIA_SUFFIX = re.compile(r"(?:image|video|audio|sticker|GIF|document|Contact card) omitted$")
_ATTACHED = re.compile(
    # Android: "IMG-20210428-WA0001.jpg (file attached)", the caption on the following lines.
    r"\((?:file attached|Datei angehängt|archivo adjunto|fichier joint|bestand bijgevoegd|arquivo anexado"
    r"|ficheiro anexado|file allegato|файл добавлен|załączony plik|dosya ekli|bifogad fil|vedlagt fil"
    r"|fil vedhæftet|soubor byl přiložen|file terlampir|tệp đính kèm)\)$"
    # iOS: "<attached: 00000035-PHOTO-2022-03-27-21-41-55.jpg>", older "2015-08-04-PHOTO-0476.jpg <attached>".
    r"|<(?:attached|adjunto|anexo|Anhang|angehängt|pièce jointe|allegato|bijgevoegd|прикреплено)(?::[^<>]*)?>$"
)
_LOCATION = re.compile(
    r"(?:location|Location|Standort|ubicación|Ubicación|localização|Localização|posizione|Posizione"
    r"|locatie|Locatie|localisation|Localisation|местоположение|Местоположение): https?://\S+$"
    r"|.{1,300}: https://foursquare\.com/v/\S+$"
)
_EDITED = re.compile(
    f"[ \u00a0{_MARKS}]*"
    r"<(?:This message was edited|Diese Nachricht wurde bearbeitet|Se editó este mensaje"
    r"|Ce message a été modifié|Questo messaggio è stato modificato|Dit bericht is bewerkt"
    r"|Esta mensagem foi editada|Сообщение изменено)\.?>$"
)
_EDITED_TAIL = 120

# System texts that arrive with an author: iOS puts the other person's name on the E2E notice of a
# one-to-one chat, and on security-code and missed-call lines.
_SYSTEM_PREFIXES = (
    "Messages and calls are end-to-end encrypted",
    "Messages to this group are now secured with end-to-end encryption",
    "Messages to this chat and calls are now secured with end-to-end encryption",
    "Messages you send to this chat and calls are now secured with end-to-end encryption",
    "Messages you send to this group are now secured with end-to-end encryption",
    "Your security code with ",
    "Missed voice call",
    "Missed video call",
    "Missed group voice call",
    "Missed group video call",
    "This business uses a secure service from Meta",
    "This business is now using a secure service from Meta",
    "This chat is with a business account",
    "Disappearing messages were turned",
    "You turned on disappearing messages",
    "You turned off disappearing messages",
    "Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt",
    "Los mensajes y las llamadas están cifrados de extremo a extremo",
    "Les messages et les appels sont chiffrés de bout en bout",
    "I messaggi e le chiamate sono crittografati end-to-end",
    "As mensagens e as chamadas são protegidas com a criptografia de ponta a ponta",
    "As mensagens e chamadas são encriptadas ponto a ponto",
    "Berichten en gesprekken worden end-to-end versleuteld",
    "Сообщения и звонки защищены сквозным шифрованием",
)
_SYSTEM_START = re.compile("|".join(map(re.escape, _SYSTEM_PREFIXES)))
_SYSTEM_FIRST_CHARS = frozenset(p[0] for p in _SYSTEM_PREFIXES)
# Group events. Found inside a would-be author they mean the line has no author at all (a colon in a
# subject: 'Ann changed the subject to "Re: plans"'); after an iOS author they mean the author is the group.
_GROUP_EVENT = re.compile(
    r" (?:created group|created this group|added |removed |left$|joined using this group's invite link"
    r"|changed the subject|changed this group's|changed the group|deleted this group's icon"
    r"|changed their phone number|changed to \+|security code|turned (?:on|off) disappearing messages"
    r"|pinned a message|is now an admin|are now an admin|was added|were added)"
)
_AUTHOR_MAX = 100  # longer "authors" are sentences with a colon in them, not names
_NOT_AFTER_BARE_COLON = frozenset("/0123456789")

# --- file names --------------------------------------------------------------------------------------
_NAME_PREFIXES = (
    "WhatsApp Chat - ",
    "WhatsApp Chat with ",
    "WhatsApp Chat mit ",
    "WhatsApp-chat met ",
    "Chat de WhatsApp con ",
    "Chat WhatsApp con ",
    "Chat WhatsApp s uživatelem ",
    "Conversa no WhatsApp com ",
    "Conversa do WhatsApp com ",
    "Discussion WhatsApp avec ",
    "Чат WhatsApp с контактом ",
    "Чат WhatsApp с ",
)
_IOS_CHAT_FILE = "_chat.txt"


# --- public interface ---------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    """Whether the first non-empty line of the file, or of a zip's chat file, is a WhatsApp header."""
    try:
        # WhatsApp never writes Markdown; signal-export's chat.md has stamps like Swedish iOS ones.
        if not path.is_file() or path.suffix.lower() == ".md":
            return False
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
        if head.startswith(b"PK\x03\x04") or path.suffix.lower() == ".zip":
            with container.open_zip(path) as zf:
                member = _chat_member(container.member_names(zf))
                if member is None:
                    return False
                chunks = container.iter_member_chunks(zf, member, path)
                try:
                    head = next(chunks, b"")[:SNIFF_BYTES]
                finally:
                    chunks.close()
        text = _unify_newlines(_lenient_decode(head))
        start = _first_content(text)
        return start is not None and _match_general(text, start) is not None
    except Exception:  # sniffing looks at foreign files of any shape; none of them may stop detection
        return False


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """One chat per file. The file is decoded and checked when the export is yielded; its messages are
    built as they are consumed. ``after``: a mark of an earlier reading of the file (``ChatExport.end``),
    to read only what the file holds after it."""
    if after is not None:
        yield _read_after(path, tz, after)
        return
    text, name, where, (size, digest) = _load(path)
    text = _unify_newlines(text)
    start = _first_content(text)
    if start is None:
        raise InputError(path, "is empty; not a WhatsApp chat export", where)
    first = _match_general(text, start)
    if first is None:
        raise _not_a_header(path, where, text, start)
    special = _specialise(first)
    dates: dict[str, tuple[int, int, int]] = {}
    day_first = _day_first(_headers(text, first, special), dates)
    parse = _header_parser(day_first, tz)
    if parse(first) is None:
        raise _not_a_header(path, where, text, start)
    chat = Chat(source=FORMAT, key=name, name=name, kind="chat")
    warn = _Warnings(path, where)
    messages = warn.after(_messages(text, _headers(text, first, special), parse, warn))
    if size is None:
        yield ChatExport(chat=chat, messages=messages)
        return
    reading = _Reading(day_first, _date_order(dates), text.count("\n"), size, digest)
    yield ChatExport(chat=chat, messages=reading.track(messages), end=reading.mark)


# --- going on from a mark -----------------------------------------------------------------------------


class _Reading:
    """What a reading of a loose file leaves for the next one, once its messages are consumed: the date
    order and what decided it, the time of the last message (a clock change reads a time by the one
    before), the lines and bytes read."""

    def __init__(
        self, day_first: bool | None, order: str | list, lines: int, size: int | None, digest: str = ""
    ) -> None:
        self.day_first, self.order, self.lines, self.size, self.digest = day_first, order, lines, size, digest
        self.previous: datetime | None = None

    def track(self, messages: Iterator[Message]) -> Iterator[Message]:
        for m in messages:
            self.previous = m.timestamp
            yield m

    def mark(self) -> Mark | None:
        if self.previous is None or self.size is None:
            return None
        state = {"day_first": self.day_first, "order": self.order, "previous": self.previous.isoformat()}
        return Mark(self.size, json.dumps({**state, "line": self.lines}), self.digest)


def _date_order(dates: dict[str, tuple[int, int, int]]) -> str | list:
    """What more dates can change of the date order ``_day_first`` took from these: nothing once a first
    number is above 12 ("day"); once a second one is, only a first above 12 ("month"); else it is a
    matter of all the dates, kept in order."""
    if any(first > 12 for first, _, _ in dates.values()):
        return "day"
    if any(second > 12 for _, second, _ in dates.values()):
        return "month"
    return [[text, *triple] for text, triple in dates.items()]


def _read_after(path: Path, tz: tzinfo, after: Mark) -> ChatExport:
    """The messages a loose file holds after a mark of an earlier reading. The first header of the file
    is read again (the layout it has); NotResumable unless the bytes after the mark start with a header
    and their dates leave the date order as it was."""
    known = json.loads(after.state)
    head_bytes, data, name, where, digest = _bytes_after(path, after)
    head = _unify_newlines(_lenient_decode(head_bytes))
    start = _first_content(head)
    first = None if start is None else _match_general(head, start)
    if first is None:
        raise NotResumable
    special = _specialise(first)
    try:
        text = "\n" + _unify_newlines(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        line = known["line"] + data.count(b"\n", 0, exc.start) + 1
        what = f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); not a text export"
        raise InputError(path, what, f"{where}, line {line}" if where else f"line {line}") from None
    day_first: bool | None = known["day_first"]
    previous = datetime.fromisoformat(known["previous"])
    lines = known["line"] + text.count("\n") - 1
    whole_lines = not data or data.endswith(b"\n")
    size = after.offset + len(data) if whole_lines else None
    reading = _Reading(day_first, known["order"], lines, size, digest)
    reading.previous = previous
    chat = Chat(source=FORMAT, key=name, name=name, kind="chat")
    if len(text) == 1:
        return ChatExport(chat=chat, messages=(), end=reading.mark)
    resumed = special.match(text, 0) or _match_general(text, 1)
    order = known["order"]
    dates: dict[str, tuple[int, int, int]] = {}
    if order != "day":
        if order != "month":
            dates = {date: (d1, d2, d3) for date, d1, d2, d3 in order}
        told = _day_first(_headers(text, resumed, special), dates) if resumed is not None else None
        if order == "month":
            told = any(first > 12 for first, _, _ in dates.values())
        if told != day_first:
            raise NotResumable  # the file's dates now tell another order
        reading.order = _date_order(dates) if order != "month" else "month"
    parse = _header_parser(day_first, tz, previous)
    if resumed is None or parse(resumed) is None:
        raise NotResumable  # the line after the mark goes on with the message before it
    warn = _Warnings(path, where)
    messages = _messages(text, _headers(text, resumed, special), parse, warn, known["line"])
    return ChatExport(chat=chat, messages=reading.track(warn.after(messages)), end=reading.mark)


def _bytes_after(path: Path, after: Mark) -> tuple[bytes, bytes, str, str | None, str]:
    """The first bytes of an export's text, its bytes after a mark, the chat's name, the place errors name,
    and (a zip's) the hash of all its bytes. A zip's text is decompressed, and the bytes before the mark
    checked against its hash; NotResumable where they differ, or the mark is a loose file's."""
    if path.suffix.lower() != ".zip" and container.read_file_part(path, 0, 4) != b"PK\x03\x04":
        if after.digest or path.stat().st_size > container.MAX_MEMBER_BYTES:  # a whole reading says so
            raise NotResumable
        head, rest = (
            container.read_file_part(path, 0, SNIFF_BYTES),
            container.read_file_part(path, after.offset),
        )
        return head, rest, _loose_name(path), None, ""
    with container.open_zip(path) as zf:
        member = _chat_member(container.member_names(zf))
        if member is None or not after.digest:
            raise NotResumable
        data = container.read_member(zf, member, path)
    text = memoryview(data)
    h = hashlib.sha256(text[: after.offset])
    if len(data) < after.offset or h.hexdigest() != after.digest:
        raise NotResumable
    h.update(text[after.offset :])
    return (
        data[:SNIFF_BYTES],
        data[after.offset :],
        _zip_name(path, member),
        f"entry {member!r}",
        h.hexdigest(),
    )


def chat_name(file_name: str) -> str:
    """The chat's title from an export's file name: the localized prefix and extension removed."""
    stem = file_name.rsplit("/", 1)[-1]
    if stem.lower().endswith((".txt", ".zip")):
        stem = stem[:-4]
    folded = stem.casefold()
    for prefix in _NAME_PREFIXES:
        if folded.startswith(prefix.casefold()):
            return stem[len(prefix) :].strip() or stem
        if folded.startswith(prefix.replace(" ", "_").casefold()):
            return stem[len(prefix) :].replace("_", " ").strip() or stem
    return stem


def infer_day_first(dates: Sequence[tuple[int, int, int]]) -> bool | None:
    """Whether the first of two ambiguous date numbers is the day, from (first, second, year) triples in
    file order; None when the dates cannot tell.

    Pustur's daysBeforeMonths: a number above 12 is a day; else, within one year, the day is the number
    that goes down (months only go up in a chronological file); else the day is the number that changes
    more. Decreases are counted rather than merely detected, so that a few out-of-order lines (WhatsApp
    writes some notices first, dated later) do not decide alone.
    """
    if any(first > 12 for first, _, _ in dates):
        return True
    if any(second > 12 for _, second, _ in dates):
        return False
    first_down = second_down = first_change = second_change = 0
    for (f0, s0, y0), (f1, s1, y1) in pairwise(dates):
        if y0 == y1:
            first_down += f1 < f0
            second_down += s1 < s0
        first_change += abs(f1 - f0)
        second_change += abs(s1 - s0)
    if first_down != second_down:
        return first_down > second_down
    if first_change != second_change:
        return first_change > second_change
    return None


# --- loading ------------------------------------------------------------------------------------------


def _load(path: Path) -> tuple[str, str, str | None, tuple[int | None, str]]:
    """The decoded chat text, the chat's name, the place inside the file that errors should name, and where
    a mark can be set: after the bytes read (None unless they are UTF-8 and end a line), with a zip's text
    their hash (a loose file's is the import ledger's)."""
    if path.is_dir():
        raise InputError(path, "is a folder; a WhatsApp export is a .txt or .zip file")
    if path.suffix.lower() != ".zip":
        data = container.read_file(path)
        if not data.startswith(b"PK\x03\x04"):
            return container.decode_text(data, path), _loose_name(path), None, (_marked(data), "")
        del data
    with container.open_zip(path) as zf:
        member = _chat_member(container.member_names(zf))
        if member is None:
            raise InputError(path, "contains no WhatsApp chat (.txt) file")
        where = f"entry {member!r}"
        data = container.read_member(zf, member, path)
    size = _marked(data)
    digest = hashlib.sha256(data).hexdigest() if size is not None else ""
    return container.decode_text(data, path, where), _zip_name(path, member), where, (size, digest)


def _marked(data: bytes) -> int | None:
    whole_lines = data.endswith(b"\n") and not data.startswith((b"\xff\xfe", b"\xfe\xff"))
    return len(data) if whole_lines else None


def _zip_name(path: Path, member: str) -> str:
    base = member.rsplit("/", 1)[-1]
    return _ios_chat_name(path.name) if base == _IOS_CHAT_FILE else chat_name(base)


def _loose_name(path: Path) -> str:
    return (
        _ios_chat_name(path.absolute().parent.name) if path.name == _IOS_CHAT_FILE else chat_name(path.name)
    )


def _ios_chat_name(container: str) -> str:
    """iOS writes every chat as ``_chat.txt``: the chat is named by what holds it, the zip
    ``WhatsApp Chat - Alice.zip`` or the folder macOS unzips it into, ``WhatsApp Chat - Alice/``."""
    return chat_name(container) or _IOS_CHAT_FILE.removesuffix(".txt")


def _chat_member(names: list[str]) -> str | None:
    """iOS names the chat ``_chat.txt``; Android zips hold ``WhatsApp Chat with X.txt`` in some language.
    The shortest such name wins over longer look-alikes such as ``... (1).txt``."""
    texts = [n for n in names if n.lower().endswith(".txt")]
    for name in texts:
        if name.rsplit("/", 1)[-1] == _IOS_CHAT_FILE:
            return name
    chats = [n for n in texts if "chat" in n.lower() or "whatsapp" in n.lower() or "чат" in n.lower()]
    return min(chats, key=lambda n: (len(n), n)) if chats else None


def _lenient_decode(data: bytes) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="ignore")
    return data.decode("utf-8", errors="replace")


def _unify_newlines(text: str) -> str:
    # iOS writes CRLF yet keeps bare LF inside messages. Only these three end a line: str.splitlines
    # would also split on U+2028 and friends, which are message content.
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            text = text.replace("\r", "\n")
    return text


def _first_content(text: str) -> int | None:
    """Where the first line with visible content starts; BOMs, marks and blank lines before it are
    tolerated, nothing else."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if text[start:end].strip().strip(_MARKS).strip():
            return start
        start = end + 1
    return None


def _not_a_header(path: Path, where: str | None, text: str, start: int) -> InputError:
    line = text.count("\n", 0, start) + 1
    return InputError(
        path,
        "not a WhatsApp chat export: expected a message header like '18/03/2022, 14:56 - Name: text'",
        f"{where}, line {line}" if where else f"line {line}",
    )


class _Warnings:
    """InputWarnings for the lines whose date or time cannot be read: one each for the first few, then
    one that counts the rest, so a hostile file cannot flood the terminal."""

    SHOWN = 5

    def __init__(self, path: Path, where: str | None) -> None:
        self.path, self.where = path, where
        self.count = self.last = 0

    def __call__(self, line: int, stamp: str) -> None:
        self.count += 1
        self.last = line
        if self.count <= self.SHOWN:
            place = f"{self.where}, line {line}" if self.where else f"line {line}"
            what = f"date or time {stamp!r} cannot be read; kept as its own message, kind 'malformed'"
            warnings.warn(InputWarning(self.path, what, place), stacklevel=2)

    def after(self, messages: Iterator[Message]) -> Iterator[Message]:
        yield from messages
        if self.count > self.SHOWN:
            what = (
                f"{self.count - self.SHOWN:,} more lines whose date or time cannot be read, the last at line"
                f" {self.last:,}; each is kept as its own message, kind 'malformed'"
            )
            warnings.warn(InputWarning(self.path, what, self.where), stacklevel=2)


# --- finding headers ----------------------------------------------------------------------------------


def _match_general(text: str, pos: int) -> re.Match[str] | None:
    return _HEADER_DATE_FIRST.match(text, pos) or _HEADER_TIME_FIRST.match(text, pos)


_LEAF_PATTERNS = {
    "d1": r"\d{1,6}",
    "d2": r"\d{1,2}",
    "d3": r"[RHST]?\d{1,6}",
    "h": r"\d{1,2}",
    "mi": r"\d{2}",
    "s": r"\d{2}",
    "ap": f"(?:{_AMPM_AFTER})",
    "ap0": f"(?:{_AMPM_BEFORE})",
}


def _specialise(m: re.Match[str]) -> re.Pattern[str]:
    """A pattern for the layout of one header, preceded by a newline. Its numbers and AM/PM words stay
    variable; the text between them (separators, the exact spaces) becomes literal. It matches a subset
    of what the general patterns match, several times faster, and its leading newline lets the regex
    engine skip from line to line by itself."""
    text = m.string
    events: list[tuple[int, int, str]] = []  # (position, nesting order, pattern fragment)
    for name, opening, closing in (("stamp", 3, 2), ("date", 4, 1), ("time", 4, 1)):
        start, end = m.span(name)
        events += [(start, opening, f"(?P<{name}>"), (end, closing, ")")]
    absent = []
    for name in (*_LEAF_PATTERNS, "be"):
        start, end = m.span(name)
        if start < 0:
            absent.append(f"(?P<{name}>)")
            continue
        inner = re.escape(m[name]) if name == "be" else _LEAF_PATTERNS[name]
        events += [(start, 5, f"(?P<{name}>{inner}"), (end, 0, ")")]
    # Invisible marks before the stamp vary from line to line (iOS prefixes media and system lines with LRM).
    # (One mark run without a bracket: two adjacent runs would backtrack quadratically on a line of marks.)
    parts = ["\n", _M, r"\[", _M] if m["br"] else ["\n", _M]
    pos = m.start("stamp")
    in_leaf = False
    for position, order, fragment in sorted(events):
        if not in_leaf:
            parts.append(re.escape(text[pos:position]))
        parts.append(fragment)
        in_leaf = order == 5
        pos = position
    parts.append(re.escape(text[pos : m.end()]))
    return re.compile("".join(parts + absent))


def _headers(text: str, first: re.Match[str], special: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """Every header-shaped line from ``first`` on, in file order. The specialised pattern finds the
    usual lines; the lines between two of its hits are each tried with the general patterns."""
    yield first
    previous_end = first.end()
    for m in special.finditer(text, previous_end):
        if text.find("\n", previous_end, m.start()) >= 0:
            yield from _unusual_headers(text, previous_end, m.start())
        yield m
        previous_end = m.end()
    yield from _unusual_headers(text, previous_end, len(text))


def _unusual_headers(text: str, start: int, end: int) -> Iterator[re.Match[str]]:
    newline = text.find("\n", start, end)
    while newline >= 0:
        line = newline + 1
        first_char = text[line : line + 1]
        if first_char.isdecimal() or (first_char and first_char in _NON_DIGIT_STARTS):
            m = _match_general(text, line)
            if m is not None:
                yield m
        newline = text.find("\n", line, end)


# --- dates and times ----------------------------------------------------------------------------------


def _day_first(
    headers: Iterator[re.Match[str]], seen: dict[str, tuple[int, int, int]] | None = None
) -> bool | None:
    """First pass: the distinct dates in order of appearance (into ``seen``, which may hold those of the
    bytes before a mark), reduced to the day/month decision. A first number above 12 decides at once (it
    is infer_day_first's first rule), so day-first files are rarely read to the end."""
    if seen is None:
        seen = {}
    for m in headers:
        date = m["date"]
        if date not in seen:
            d1, d2, d3 = m.group("d1", "d2", "d3")
            if len(d1) > 2:
                seen[date] = (int(d2), int(d3), int(d1))
            else:
                seen[date] = triple = (int(d1), int(d2), _year(d3, buddhist=False))
                if triple[0] > 12:
                    return True
    return infer_day_first(list(seen.values()))


def _year(text: str, *, buddhist: bool) -> int:
    era = _ERA_BASE.get(text[0])
    if era is not None:
        return era + int(text[1:])
    year = int(text)
    if len(text) <= 2:
        return year + 2000
    # Thai exports sometimes drop the "BE"; no Gregorian year of a chat is that large.
    return year - _BUDDHIST_OFFSET if buddhist or year >= _BUDDHIST_FROM else year


def _hour24(hour: int, ampm: str) -> int | None:
    if hour > 12:
        return None
    word = _ampm_word(ampm)
    if word in ("am", "inthemorning", "오전", "上午", "午前", "ص"):
        return hour % 12
    if word == "atnight":  # CLDR's "at night" runs from 21:00 to 06:00
        return hour + 12 if 6 <= hour < 12 else hour % 12
    return hour % 12 + 12


@cache  # the pattern admits a few dozen spellings
def _ampm_word(ampm: str) -> str:
    return _normalise(ampm).replace(".", "").replace(" ", "").lower()


_Header = tuple[datetime, str]  # UTC timestamp, local time as written
_Day = tuple[datetime | None, tuple[int, int, int]]  # UTC midnight (None if the clocks change), (y, m, d)
_MISSING: Any = object()


def _header_parser(
    day_first: bool | None, tz: tzinfo, previous: datetime = _LONG_AGO
) -> Callable[[re.Match[str]], _Header | None]:
    """Header match -> (UTC timestamp, local time text), or None when its date or time is impossible
    (31/02, 25:10: text that only looks like a header). Each distinct date and time of day is parsed
    once; a day's UTC offset is looked up once unless the clocks change that day. ``previous``: the time
    of the header before (a mark's), which a time on a day the clocks go back is read by."""
    days: dict[str, _Day | None] = {}
    times: dict[str, timedelta | None] = {}
    last: tuple[str, _Header | None] = ("", None)

    def parse(m: re.Match[str]) -> _Header | None:
        nonlocal previous, last
        stamp, date_text, time_text = m.group("stamp", "date", "time")
        if stamp == last[0]:  # messages sent in the same minute
            return last[1]
        day = days.get(date_text, _MISSING)
        if day is _MISSING:
            day = days[date_text] = _day(m, day_first, tz)
        if day is None:
            return None
        delta = times.get(time_text, _MISSING)
        if delta is _MISSING:
            delta = times[time_text] = _time_of_day(m)
        if delta is None:
            return None
        midnight, date = day
        if midnight is None:
            previous = _on_clock_change(datetime(*date) + delta, tz, previous)
        else:
            previous = midnight + delta
        header = (previous, stamp if stamp.isascii() else _normalise(stamp))
        last = (stamp, header)
        return header

    return parse


def _day(m: re.Match[str], day_first: bool | None, tz: tzinfo) -> _Day | None:
    d1, d2, d3, buddhist = m.group("d1", "d2", "d3", "be")
    if len(d1) > 2:
        year, a, b = _year(d1, buddhist=bool(buddhist)), int(d2), int(d3)
        month, day = (b, a) if day_first else (a, b)
    else:
        year = _year(d3, buddhist=bool(buddhist))
        a, b = int(d1), int(d2)
        day, month = (b, a) if day_first is False else (a, b)
    if not _YEARS[0] <= year <= _YEARS[1]:
        return None
    try:
        offset = _day_offset(year, month, day, tz)
    except ValueError:  # 31/02, month 13: text that only looks like a header
        return None
    date = (year, month, day)
    return (datetime(*date, tzinfo=UTC) - offset if offset is not None else None), date


def _day_offset(year: int, month: int, day: int, tz: tzinfo) -> timedelta | None:
    """The UTC offset of a day without a clock change; None on a day with one."""
    offsets = {
        datetime(year, month, day, 0, 0, 0, tzinfo=tz).utcoffset(),
        datetime(year, month, day, 23, 59, 59, tzinfo=tz).utcoffset(),
        datetime(year, month, day, 23, 59, 59, fold=1, tzinfo=tz).utcoffset(),
    }
    if len(offsets) != 1:
        return None
    (offset,) = offsets
    return offset if offset is not None else timedelta(0)


def _on_clock_change(naive: datetime, tz: tzinfo, previous: datetime) -> datetime:
    """A wall-clock time read on a day the clocks change. A time that occurs twice is read as its first
    occurrence unless the previous message is already later, i.e. the clocks have gone back. A time that
    never occurs (skipped forward) is read as the moment of the change."""
    early = naive.replace(tzinfo=tz).astimezone(UTC)
    late = naive.replace(tzinfo=tz, fold=1).astimezone(UTC)
    if late < early:
        return _skipped_to(late, early, tz)
    return late if late > early and previous > early else early


def _skipped_to(lo: datetime, hi: datetime, tz: tzinfo) -> datetime:
    """The moment the clocks sprang forward, between a skipped time read with the offset after the change
    (``lo``) and with the one before (``hi``): such a time is read as that moment, so it stays between the
    messages written before the change and those after, as the file has it."""
    offset_after = hi.astimezone(tz).utcoffset()
    while hi - lo > _SECOND:
        middle = lo + (hi - lo) // 2
        if middle.astimezone(tz).utcoffset() == offset_after:
            hi = middle
        else:
            lo = middle
    return hi


def _time_of_day(m: re.Match[str]) -> timedelta | None:
    hour_text, minute_text, second_text, ampm, ampm_before = m.group("h", "mi", "s", "ap", "ap0")
    hour: int | None
    hour = int(hour_text)
    if ampm or ampm_before:
        hour = _hour24(hour, ampm or ampm_before)
        if hour is None:
            return None
    minute = int(minute_text)
    second = int(second_text) if second_text else 0
    if hour > 23 or minute > 59 or second > 59:
        return None
    return timedelta(hours=hour, minutes=minute, seconds=second)


# --- messages -----------------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))


def _split_author(rest: str) -> tuple[str | None, str]:
    """(author as written, body) or (None, rest) for a line without an author."""
    cut = rest.find(": ")
    newline = rest.find("\n")
    if cut > 0 and (newline < 0 or cut < newline):
        return rest[:cut], rest[cut + 2 :]
    # "Bob:Hi" (no space) and "Carol:" (view-once media, empty body); not "at 10:30" or "https://".
    cut = rest.find(":", 0, newline if newline >= 0 else len(rest))
    if cut <= 0 or rest[cut + 1 : cut + 2] in _NOT_AFTER_BARE_COLON:
        return None, rest
    return rest[:cut], rest[cut + 1 :]


def _sender(author: str) -> str | None:
    """The display name for a would-be author, or None when the "author" is really part of a sentence."""
    if len(author) > _AUTHOR_MAX or "\n" in author or _GROUP_EVENT.search(author):
        return None
    name = _normalise(author).strip()
    # "~ Name": a group member who is not in the exporter's contacts; the tilde is decoration.
    if name.startswith("~"):
        name = name[1:].lstrip()
    return name or None


def _kind(sender: str | None, body: str, first_line: str) -> str:
    """What a message is, from its author and its first line (normalised; captions follow on later lines)."""
    if sender is None:
        return Kind.SYSTEM
    if not first_line:
        return Kind.MEDIA  # view-once media leaves the body empty
    if len(first_line) <= _EXACT_MAX + 1:
        kind = _EXACT_KIND.get(first_line.casefold().removesuffix("."))
        if kind is not None:
            return kind
    if first_line[0] in _SYSTEM_FIRST_CHARS and _SYSTEM_START.match(first_line):
        return Kind.SYSTEM
    last = first_line[-1]
    if (last == ")" or last == ">") and _ATTACHED.search(first_line):
        return Kind.ATTACHMENT
    if "://" in first_line and _LOCATION.match(first_line):
        return Kind.LOCATION
    if last == "d" and _MEDIA_SUFFIX.search(first_line):
        return Kind.MEDIA
    # iOS marks system lines with a leading LRM; in groups they carry the group's name as author.
    if body.startswith("\u200e") and _GROUP_EVENT.search(" " + first_line):
        return Kind.SYSTEM
    return Kind.TEXT


def _message(header: _Header, raw: str, rest: str, senders: dict[str, str | None]) -> Message:
    sender = None
    cut = rest.find(": ")
    if 0 < cut <= _AUTHOR_MAX:  # the usual "Name: text"
        author: str | None
        author = rest[:cut]
        sender = senders.get(author, _MISSING)
        if sender is _MISSING:
            sender = senders[author] = _sender(author)
        body = rest[cut + 2 :]
    if sender is None:  # no author, a colon without a space, or a colon in a system line
        author, body = _split_author(rest)
        sender = None if author is None else _sender(author)
        if sender is None:
            body = rest
    # The text as written (no NFKC: "，" and "x²" stay, and so do direction marks inside Arabic or Hebrew),
    # but for the marks the export adds around it and the isolates around @mentions; the markers are read
    # from a normalised copy.
    text = body if body.isascii() else _ISOLATES.sub("", body.strip(_MARKS))
    multiline = "\n" in text
    if multiline:
        text = text.rstrip("\n").rstrip(_MARKS)
    edited = False
    if text.endswith(">"):
        # Only its end: the marker is short, and a search from every position of a long run of spaces or
        # marks before a ">" would be quadratic.
        marker = _EDITED.search(text, max(len(text) - _EDITED_TAIL, 0))
        if marker is not None:
            edited = True
            text = text[: marker.start()].rstrip(_MARKS)
    first_line = text.partition("\n")[0] if multiline else text
    kind = _kind(sender, body, first_line if first_line.isascii() else _normalise(first_line))
    # Positional: keyword construction of a named tuple costs twice as much, once per message.
    # (timestamp, sender, text, kind, source_id, sender_id, local_time, thread, reply_to, edited, raw)
    return Message(header[0], sender, text, kind, None, None, header[1], None, None, edited, raw)


def _malformed(header: _Header, raw: str) -> Message:
    text = raw.rstrip("\n")
    return Message(header[0], None, text, Kind.MALFORMED, None, None, header[1], None, None, False, raw)


def _messages(
    text: str,
    headers: Iterator[re.Match[str]],
    parse: Callable[[re.Match[str]], _Header | None],
    warn: Callable[[int, str], None],
    line_number: int = 1,
) -> Iterator[Message]:
    """Second pass: one message per header, with the lines up to the next header. A header-shaped line
    whose date or time cannot be read (31/02, the year 9999) starts a record of its own, kind MALFORMED,
    reported through ``warn(line number, stamp)``: glued to the message before, it would pass for that
    sender's words. ``line_number``: the number of the text's first line."""
    senders: dict[str, str | None] = {}
    current: _Header | None = None
    malformed = False
    start = rest_start = 0
    counted_to = 0  # line numbers are counted only up to malformed lines
    for m in headers:
        header = parse(m)
        line_start = m.start()
        if text[line_start] == "\n":  # the specialised pattern's hits begin at the newline before
            line_start += 1
        if current is not None:
            raw = text[start : line_start - 1]
            yield (
                _malformed(current, raw)
                if malformed
                else _message(current, raw, text[rest_start : line_start - 1], senders)
            )
        malformed = header is None
        if malformed:
            # The first header always reads (read() checks it), so there is a time before to borrow.
            assert current is not None
            line_number += text.count("\n", counted_to, line_start)
            counted_to = line_start
            stamp = m["stamp"]
            warn(line_number, stamp)
            header = (current[0], stamp if stamp.isascii() else _normalise(stamp))
        current = header
        start = line_start
        rest_start = m.end()
    if current is not None:
        end = len(text) - 1 if text.endswith("\n") else len(text)
        yield (
            _malformed(current, text[start:end])
            if malformed
            else _message(current, text[start:end], text[rest_start:end], senders)
        )
