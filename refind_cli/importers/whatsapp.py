"""WhatsApp "Export chat" text files, loose (``.txt``) or zipped (``.zip``), from Android and iOS.

A file is a sequence of records. A record starts with a header line (date, time, optional author) and
every following line that is not a header belongs to it. The header has no fixed layout: it depends on
the phone's platform, locale and app version, so one tolerant pattern covers the families (bracketed
iOS stamps, dashed Android ones, dotted, year-first and time-first dates, 12 and 24 hours). Which number is the day and which the month is not written anywhere: it is
inferred once per file from all its dates.

The file is read on the line-log engine (``linelog``): streamed, decoded in pieces of whole lines and held
from the start of the record being read, never whole. Its text is searched, not split into lines: a pattern
specialised to the file's first header (the layout, generated from the file rather than listed), led by a
newline, lets the regex engine run from header to header by itself. Two passes stream the file: the first
collects the distinct dates for the day/month decision, the second, lazy one builds the messages.
"""

from __future__ import annotations

import json
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from itertools import pairwise
from pathlib import Path
from typing import Any

from refind_cli.dates import stampwords
from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container, linelog
from refind_cli.importers.linelog import MARKS as _MARKS
from refind_cli.importers.linelog import WS as _WS
from refind_cli.importers.linelog import infer_day_first
from refind_cli.records import HELD, Chat, ChatExport, Kind, Mark, Message, NotResumable

FORMAT = "whatsapp"

SNIFF_BYTES = 64 << 10

# Direction marks, isolates and stray BOMs (linelog.MARKS) are invisible, and never part of a name or a
# word; WhatsApp puts space, NBSP, narrow NBSP (2023+) or thin space (linelog.WS) between a stamp's parts.
_M = f"[{_MARKS}]*+"  # possessive: no following part starts with a mark, so none is given back

# AM/PM markers and day periods, before or after the time: linelog's run of words, kept by
# ``_match_general`` when CLDR writes it. A file's own stamps are then matched with its locales' words
# (``_specialise``).
_AMPM = linelog.AMPM_WORDS
# Between a date's numbers: what CLDR's patterns write ("/", ".", "-", ". ").
_DATE_SEP = stampwords.literals("date_sep")
# Years of up to six digits: a header with the year 10000 is read (as a malformed record), not glued to the
# message before.
_DATE = (
    rf"(?P<date>(?P<d1>\d{{1,6}}){_M}(?P<ds>{_DATE_SEP}){_WS}?{_M}(?P<d2>\d{{1,2}}){_M}(?P<ds2>{_DATE_SEP}){_WS}?{_M}"
    # The marks before a trailing dot are bound to it: a bare run of marks is left to the next part, since
    # two adjacent mark runs backtrack quadratically on a line made of marks.
    rf"(?P<d3>[RHST]?\d{{1,6}})(?P<be>{_WS}?B\.?E\.?)?)(?:{_M}{stampwords.literals('date_end')})?"
)
# Words CLDR writes around a time's numbers ("Kl.", "ч.", "น."), besides AM/PM.
_WORD = linelog.TIME_WORD  # whole: "s" is no start of "subaka"
_TIME_WORD = rf"(?:{_WORD}{_WS}?)?"
_TIME = (
    rf"(?P<time>{_TIME_WORD}(?:(?P<ap0>{_AMPM}){_WS}?)?{_TIME_WORD}"
    rf"(?P<h>\d{{1,2}})(?P<ts>{stampwords.literals('hour_sep')})(?P<mi>\d{{1,2}})"
    rf"(?:(?P<ts2>{stampwords.literals('minute_sep')})(?P<s>\d{{1,2}}))?"
    rf"(?:{_WS}?{_WORD})?(?:{_WS}?(?P<ap>{_AMPM}))?(?:{_WS}?{_WORD})?)"
)
_BETWEEN = rf"{_M}{stampwords.literals('glue')}{_M}(?:klo{_WS})?{_M}"
# What the date-time pattern writes after both ("{1} ({0})").
_AFTER = rf"(?:{_M}{stampwords.literals('glue_end')})?"
_END = rf"{_M}(?(br)\]{_WS}?|(?:{_WS}[-–]{_WS}?|:{_WS}))"
_HEADER_DATE_FIRST = re.compile(rf"{_M}(?:(?P<br>\[){_M})?(?P<stamp>{_DATE}{_BETWEEN}{_TIME}{_AFTER}){_END}")
_HEADER_TIME_FIRST = re.compile(rf"{_M}(?:(?P<br>\[){_M})?(?P<stamp>{_TIME}{_BETWEEN}{_DATE}{_AFTER}){_END}")

# Besides digits, what a header line can start with; other lines never reach the general patterns.
_NON_DIGIT_STARTS = "[" + _MARKS

_ERA_BASE = {"R": 2018, "H": 1988, "S": 1925, "T": 1911}  # Japanese eras: Reiwa, Heisei, Showa, Taisho
_BUDDHIST_OFFSET = 543
_BUDDHIST_FROM = 2400
# Years a chat can carry (with room either side); anything else is text that only looks like a date, and
# keeping to it keeps every UTC conversion inside datetime's range.
_YEARS = (1970, 2199)
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
# Characters of a record over which the reading window lets it go before its message is made (a copy of the
# window's rest, which a short record is not worth).
_LONG_RECORD = 1 << 20
# A longer first line is a message's text: a placeholder, a file name, a location or a system notice is a short
# line the app writes.
_KIND_LINE = 1 << 16

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
        if not container.is_file(path) or path.suffix.lower() == ".md":
            return False
        head = container.read_file_part(path, 0, SNIFF_BYTES)
        if head.startswith(b"PK\x03\x04") or path.suffix.lower() == ".zip":
            with container.open_zip(path) as zf:
                member = _chat_member(container.files_matching(zf, r".*\.txt", re.IGNORECASE))
                if member is None:
                    return False
                chunks = container.iter_member_chunks(zf, member, path)
                try:
                    head = next(chunks, b"")[:SNIFF_BYTES]
                finally:
                    chunks.close()
        text = linelog.unify_newlines(_lenient_decode(head))
        start = _first_content(text)
        return start is not None and _match_general(text, start) is not None
    except Exception:  # sniffing looks at foreign files of any shape; none of them may stop detection
        return False


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """One chat per file. Its first header is checked when the export is yielded, after a first pass over
    the dates; its messages are built as they are consumed, in a second pass. Text that is not UTF-8 or
    UTF-16 is an InputError where it is met (an import of the file is then undone whole). ``after``: a mark
    of an earlier reading of the file (``ChatExport.end``), to read only what the file holds after it."""
    if after is not None:
        yield _read_after(path, tz, after)
        return
    member, _, where = _source(path)
    ends = _Ends()
    chunks = _chunks(path, member, ends)
    window, first = _first_header(chunks, path, where)
    name = _source(path, window.text[:_NAMING])[1]
    special = _specialise(first)
    dates: dict[str, tuple[int, int, int]] = {}
    day_first = _day_first(linelog.stamp_lines(window, first, special, _match_other), dates)
    # Only where both the first and the last number have two digits: a four-digit one is the year.
    year_first = len(first["d1"]) <= 2 and len(first["d3"]) <= 2 and _year_first(list(dates.values()))
    if year_first:  # the numbers read as (day, month, year) were (year, month, day)
        day_first = infer_day_first(
            [(m, d, 2000 + y) for y, m, d in ((a, b, c % 100) for a, b, c in dates.values())]
        )
    parse = _header_parser(day_first, tz, year_first=year_first)
    if parse(first) is None:
        window, first = _first_header(chunks, path, where)
        raise _not_a_header(path, where, window.line_number(first.start()))
    # The first pass let the file's start go, or holds a long record in part (its head and tail, searched
    # across where they join once only): the second streams the file again.
    if window.dropped or window.hole is not None:
        del window, first

        def start() -> tuple[linelog.Window, re.Match[str]]:
            return _first_header(chunks, path, where)

    else:  # the first pass decided within the text it still holds (as a whole chat under a megabyte)
        # Given once and not held here: the window and its first match hold the text read (a 50-MB message).
        held = [(window, first)]
        del window, first

        def start() -> tuple[linelog.Window, re.Match[str]]:
            return held.pop()

    chat = Chat(source=FORMAT, key=name, name=name, kind="chat")
    warn = _Warnings(path, where)
    reading = _Reading(day_first, _date_order(dates), ends, year_first=year_first)
    messages = warn.after(_messages(start, special, parse, warn))
    yield ChatExport(chat=chat, messages=reading.track(messages), end=reading.mark)


# --- going on from a mark -----------------------------------------------------------------------------


class _Ends:
    """What a stream of the chat's bytes that ran to its end found: where a mark can be set (after the
    bytes read; None unless they are UTF-8 and end a line), the lines they hold, and a zip's text's hash (a
    loose file's is the import ledger's)."""

    def __init__(self) -> None:
        self.size: int | None = None
        self.lines = 0
        self.digest = ""


class _Reading:
    """What a reading leaves for the next one, once its messages are consumed: the date order and what
    decided it, the time of the last message (a clock change reads a time by the one before), the lines
    and bytes read."""

    def __init__(
        self,
        day_first: bool | None,
        order: str | list[Any],
        ends: _Ends,
        previous: datetime | None = None,
        year_first: bool = False,
    ) -> None:
        self.day_first, self.order, self.ends, self.previous = day_first, order, ends, previous
        self.year_first = year_first

    def track(self, messages: Iterator[Message]) -> Iterator[Message]:
        for m in messages:
            self.previous = m.timestamp
            yield m

    def mark(self) -> Mark | None:
        ends = self.ends
        if self.previous is None or ends.size is None or self.year_first:
            return None  # a year-first file's order is not carried over: it is read whole again
        state = {"day_first": self.day_first, "order": self.order, "previous": self.previous.isoformat()}
        return Mark(ends.size, json.dumps({**state, "line": ends.lines}), ends.digest)


def _date_order(dates: dict[str, tuple[int, int, int]]) -> str | list[Any]:
    """What more dates can change of the date order ``_day_first`` took from these: nothing once a first
    number is above 12 ("day"); once a second one is, only a first above 12 ("month"); else it is a
    matter of all the dates, kept in order."""
    if any(first > 12 for first, _, _ in dates.values()):
        return "day"
    if any(second > 12 for _, second, _ in dates.values()):
        return "month"
    return [[text, *triple] for text, triple in dates.items()]


def _read_after(path: Path, tz: tzinfo, after: Mark) -> ChatExport:
    """The messages a file holds after a mark of an earlier reading, streamed from the mark on. The first
    header of the file is read again (the layout it has); NotResumable unless the bytes after the mark
    start with a header and their dates leave the date order as it was."""
    known = json.loads(after.state)
    member, _, where = _source(path)
    if (member is None) == bool(after.digest):  # a mark of a zip's text read as a loose file, or the reverse
        raise NotResumable
    try:
        head, first = _first_header(_chunks(path, member, _Ends()), path, where)
    except InputError:
        raise NotResumable from None
    name = _source(path, head.text[:_NAMING])[1]
    del head
    special = _specialise(first)
    ends = _Ends()
    rest = _chunks(path, member, ends, after, known["line"])

    def text_after() -> Iterator[bytes]:
        yield b"\n"  # the usual header's pattern is led by the newline before it
        yield from rest()

    def begin() -> tuple[linelog.Window, re.Match[str] | None]:
        # The line numbers go on from the mark's, the newline put before the bytes not counted.
        window = linelog.Window(text_after, path, where, known["line"] - 1, start=False)
        while window.text.find("\n", 1) < 0 and window.more(0):
            pass  # until the first line after the mark is whole
        text = window.text
        return window, special.match(text, 0) or _match_general(text, 1)

    day_first: bool | None = known["day_first"]
    reading = _Reading(day_first, known["order"], ends, datetime.fromisoformat(known["previous"]))
    chat = Chat(source=FORMAT, key=name, name=name, kind="chat")
    window, resumed = begin()
    if len(window.text) <= 1:  # nothing after the mark
        return ChatExport(chat=chat, messages=(), end=reading.mark)
    order = known["order"]
    if order != "day":
        dates: dict[str, tuple[int, int, int]] = {}
        if order != "month":
            dates = {date: (d1, d2, d3) for date, d1, d2, d3 in order}
        told = None
        if resumed is not None:
            told = _day_first(linelog.stamp_lines(window, resumed, special, _match_other), dates)
        if order == "month":
            told = any(first > 12 for first, _, _ in dates.values())
        if told != day_first:
            raise NotResumable  # the file's dates now tell another order
        reading.order = _date_order(dates) if order != "month" else "month"
    parse = _header_parser(day_first, tz, reading.previous or _LONG_AGO)
    if resumed is None or parse(resumed) is None:
        raise NotResumable  # the line after the mark goes on with the message before it
    if window.dropped or window.hole is not None:  # as in read

        def start() -> tuple[linelog.Window, re.Match[str]]:
            window, resumed = begin()
            assert resumed is not None  # the same bytes as the first pass read
            return window, resumed

    else:
        held = [(window, resumed)]  # given once, as in read

        def start() -> tuple[linelog.Window, re.Match[str]]:
            return held.pop()

    warn = _Warnings(path, where)
    messages = _messages(start, special, parse, warn)
    return ChatExport(chat=chat, messages=reading.track(warn.after(messages)), end=reading.mark)


def chat_name(file_name: str, told: str = "") -> str:
    """The chat's title from an export's file name: the localized prefix and extension removed, and a
    copy's mark unless the chat's first lines (``told``) name it with it (``container.unmarked``)."""
    stem = file_name.rsplit("/", 1)[-1]
    stem = container.unmarked(
        stem[:-4] if stem.lower().endswith(".txt") else container.archive_stem(stem) or stem, told
    )
    folded = stem.casefold()
    for prefix in _NAME_PREFIXES:
        if folded.startswith(prefix.casefold()):
            return stem[len(prefix) :].strip() or stem
        if folded.startswith(prefix.replace(" ", "_").casefold()):
            return stem[len(prefix) :].replace("_", " ").strip() or stem
    return stem


# --- loading ------------------------------------------------------------------------------------------


def _source(path: Path, told: str = "") -> tuple[str | None, str, str | None]:
    """The zip member that holds the chat (None for a loose file), the chat's name (``told``: the chat's
    first lines, which may name it) and the place inside the file that errors should name."""
    if path.is_dir():
        raise InputError(path, "is a folder; a WhatsApp export is a .txt or .zip file")
    if path.suffix.lower() != ".zip" and container.read_file_part(path, 0, 4) != b"PK\x03\x04":
        if path.name == _IOS_CHAT_FILE:
            return None, _ios_chat_name(path.absolute().parent.name, told), None
        return None, chat_name(path.name, told), None
    with container.open_zip(path) as zf:
        member = _chat_member(container.files_matching(zf, r".*\.txt", re.IGNORECASE))
    if member is None:
        raise InputError(path, "contains no WhatsApp chat (.txt) file")
    base = member.rsplit("/", 1)[-1]
    name = _ios_chat_name(path.name, told) if base == _IOS_CHAT_FILE else chat_name(base, told)
    return member, name, f"entry {member!r}"


# The start of a chat that may name it (iOS writes a group's name as the sender of its first notices).
_NAMING = 1 << 14


def _chunks(
    path: Path, member: str | None, ends: _Ends, after: Mark | None = None, lines: int = 0
) -> Callable[[], Iterator[bytes]]:
    """How to stream the chat's bytes (once a pass), from a mark on with ``after`` (``lines``: the lines
    before it). A stream that runs to its end tells ``ends`` where a mark can be set."""
    offset = after.offset if after is not None else 0
    if member is None:
        return lambda: _counted(container.iter_file_chunks(path, offset), ends, offset, lines)
    digest = after.digest if after is not None else ""
    return lambda: _counted(linelog.member_from(path, member, offset, digest, ends), ends, offset, lines)


def _counted(chunks: Iterator[bytes], ends: _Ends, offset: int, lines: int) -> Iterator[bytes]:
    """The chunks, their bytes and lines counted (CR LF, CR and LF end a line; no UTF-8 sequence holds
    either byte) into ``ends`` once they run out. A mark is set only in UTF-8 as its start tells it (the
    bytes after a mark are read as UTF-8, never told on their own: ``linelog.Window``)."""
    size = offset
    last = b""
    told: list[container.Encoding] = []
    for chunk in chunks if offset else container.telling(chunks, told.append):
        if chunk:
            lines += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n")
            if last.endswith(b"\r") and chunk.startswith(b"\n"):
                lines -= 1  # a CR LF cut between two chunks
            last = chunk
            size += len(chunk)
        yield chunk
    whole_lines = last.endswith(b"\n") if last else offset > 0
    utf8 = offset > 0 or all(encoding.codec == "utf-8" for encoding in told)
    ends.size = size if whole_lines and utf8 else None
    ends.lines = lines


def _ios_chat_name(container: str, told: str = "") -> str:
    """iOS writes every chat as ``_chat.txt``: the chat is named by what holds it, the zip
    ``WhatsApp Chat - Alice.zip`` or the folder macOS unzips it into, ``WhatsApp Chat - Alice/``."""
    return chat_name(container, told) or _IOS_CHAT_FILE.removesuffix(".txt")


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
    return container.utf8_head(data).decode("utf-8", errors="replace")


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


def _first_header(
    chunks: Callable[[], Iterator[bytes]], path: Path, where: str | None
) -> tuple[linelog.Window, re.Match[str]]:
    """The file's text streamed into a window, and its first line with content: a header, or the file is
    not an export."""
    window = linelog.Window(chunks, path, where)
    start = window.first_content()
    if start is None:
        raise InputError(path, "is empty; not a WhatsApp chat export", where)
    first = _match_general(window.text, start)
    if first is None:
        raise _not_a_header(path, where, window.line_number(start))
    return window, first


def _not_a_header(path: Path, where: str | None, line: int) -> InputError:
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
    m = _HEADER_DATE_FIRST.match(text, pos) or _HEADER_TIME_FIRST.match(text, pos)
    if m is None or not any(m.group("ap0", "ap")):
        return m
    return m if all(w is None or stampwords.known(w) for w in m.group("ap0", "ap")) else None


def _match_other(text: str, line: int) -> re.Match[str] | None:
    """A header of another shape than the file's usual one, at a line's start."""
    first_char = text[line : line + 1]
    if first_char.isdecimal() or (first_char and first_char in _NON_DIGIT_STARTS):
        return _match_general(text, line)
    return None


_LEAF_PATTERNS = {
    "d1": r"\d{1,6}",
    "d2": r"\d{1,2}",
    "d3": r"[RHST]?\d{1,6}",
    "h": r"\d{1,2}",
    "mi": r"\d{1,2}",
    "s": r"\d{1,2}",
}
# The words a file's other stamps can carry: those of the locales that write its first stamp's word.
_LEAF_WORDS = ("ap", "ap0")


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
    for name in (*_LEAF_PATTERNS, *_LEAF_WORDS, "be"):
        start, end = m.span(name)
        if start < 0:
            absent.append(f"(?P<{name}>)")
            continue
        if name == "be":
            inner = re.escape(m[name])
        elif name in _LEAF_WORDS:
            inner = stampwords.pattern(stampwords.kin(m[name]))
        else:
            inner = _LEAF_PATTERNS[name]
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
                # Day first, unless the first number is a two-digit year ("26/01/05", yy/MM/dd): told
                # once another date of the same last number has another first one.
                if triple[0] > 12 and (
                    len(d3) > 2
                    or any(t[2] == triple[2] and t[0] != triple[0] for t in seen.values())
                    or triple[0] > 31
                ):
                    return True
    return infer_day_first(list(seen.values()))


def _year_first(dates: Sequence[tuple[int, int, int]]) -> bool:
    """Whether dates of two-digit numbers only (as ``_day_first`` reads them: first, second, 2000 + last)
    are year first (CLDR's ``yy/MM/dd``, ``yy. M. d.``): a first number above 31, or one that never goes
    down in the file and changes less often than the last, which is then the day."""
    short = [(first, last - 2000) for first, _, last in dates if first < 100 and 2000 <= last < 2100]
    if len(short) != len(dates) or not short or any(last > 31 for _, last in short):
        return False
    if any(first > 31 for first, _ in short):
        return True
    firsts = [first for first, _ in short]
    lasts = [last for _, last in short]
    went_down = any(b < a for a, b in pairwise(firsts))
    return not went_down and _changes(firsts) < _changes(lasts)


def _changes(numbers: list[int]) -> int:
    return sum(a != b for a, b in pairwise(numbers))


def _year(text: str, *, buddhist: bool) -> int:
    era = _ERA_BASE.get(text[0])
    if era is not None:
        return era + int(text[1:])
    year = int(text)
    if len(text) <= 2:
        return year + 2000
    # Thai exports sometimes drop the "BE"; no Gregorian year of a chat is that large.
    return year - _BUDDHIST_OFFSET if buddhist or year >= _BUDDHIST_FROM else year


_Header = tuple[datetime, str]  # UTC timestamp, local time as written
_Day = tuple[datetime | None, tuple[int, int, int]]  # UTC midnight (None if the clocks change), (y, m, d)
_MISSING: Any = object()


def _header_parser(
    day_first: bool | None, tz: tzinfo, previous: datetime = _LONG_AGO, *, year_first: bool = False
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
            day = days[date_text] = _day(m, day_first, tz, year_first)
        if day is None:
            return None
        delta = times.get(time_text, _MISSING)
        if delta is _MISSING:
            delta = times[time_text] = _time_of_day(m)
        if delta is None:
            return None
        midnight, date = day
        if midnight is None:
            previous = linelog.on_clock_change(datetime(*date) + delta, tz, previous)
        else:
            previous = midnight + delta
        header = (previous, stamp if stamp.isascii() else _normalise(stamp))
        last = (stamp, header)
        return header

    return parse


def _day(m: re.Match[str], day_first: bool | None, tz: tzinfo, year_first: bool = False) -> _Day | None:
    d1, d2, d3, buddhist = m.group("d1", "d2", "d3", "be")
    if len(d1) > 2 or (year_first and len(d3) <= 2):
        year, a, b = _year(d1, buddhist=bool(buddhist)), int(d2), int(d3)
        month, day = (b, a) if day_first else (a, b)
    else:
        year = _year(d3, buddhist=bool(buddhist))
        a, b = int(d1), int(d2)
        day, month = (b, a) if day_first is False else (a, b)
    if not _YEARS[0] <= year <= _YEARS[1]:
        return None
    try:
        offset = linelog.day_offset(year, month, day, tz)
    except ValueError:  # 31/02, month 13: text that only looks like a header
        return None
    date = (year, month, day)
    return (datetime(*date, tzinfo=UTC) - offset if offset is not None else None), date


def _time_of_day(m: re.Match[str]) -> timedelta | None:
    hour_text, minute_text, second_text, ampm, ampm_before = m.group("h", "mi", "s", "ap", "ap0")
    hour: int | None
    hour = int(hour_text)
    minute = int(minute_text)
    if ampm or ampm_before:
        hour = stampwords.hour24(hour, minute, ampm or ampm_before)
        if hour is None:
            return None
    second = int(second_text) if second_text else 0
    if hour > 23 or minute > 59 or second > 59:
        return None
    return timedelta(hours=hour, minutes=minute, seconds=second)


# --- messages -----------------------------------------------------------------------------------------


def _normalise(text: str) -> str:
    if text.isascii():
        return text
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))


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


def _author(raw: str, at: int, senders: dict[str, str | None]) -> tuple[str | None, int]:
    """The sender of the record ``raw``, whose sender and text begin at ``at``, and where its body begins:
    after "Name: " (the usual), "Name:" (no space; not "at 10:30" or "https://"), or at ``at`` for a line
    without an author or with a colon in a system line."""
    usual = _usual_author(raw, at, senders)
    if usual is not None:
        return usual
    newline = raw.find("\n", at)
    cut = raw.find(": ", at)
    if cut > at and (newline < 0 or cut < newline):
        after = cut + 2
    else:
        cut = raw.find(":", at, newline if newline >= 0 else len(raw))
        if cut <= at or raw[cut + 1 : cut + 2] in _NOT_AFTER_BARE_COLON:
            return None, at
        after = cut + 1
    # A longer "author" is a sentence with a colon in it (``_sender``): not cut out to be told so.
    sender = _sender(raw[at:cut]) if cut - at <= _AUTHOR_MAX else None
    return (sender, after) if sender is not None else (None, at)


def _usual_author(raw: str, at: int, senders: dict[str, str | None]) -> tuple[str, int] | None:
    """The sender and where the body begins, where the record is written "Name: text" (as most are)."""
    cut = raw.find(": ", at, at + _AUTHOR_MAX + 2)
    if cut > at:
        author = raw[at:cut]
        sender = senders.get(author, _MISSING)
        if sender is _MISSING:
            sender = senders[author] = _sender(author)
        if sender is not None:
            return sender, cut + 2
    return None


def _message(header: _Header, raw: str, at: int, senders: dict[str, str | None]) -> Message:
    """The message of the record ``raw``, whose sender and text begin at ``at``. The text is cut from
    ``raw`` once: the record's tail as a string of its own would be one more copy of a 50-MB message."""
    sender, start = _author(raw, at, senders)
    if len(raw) - start > _LONG_RECORD and (long := _long_text(raw, start)) is not None:
        text, edited = long
        end = text.find("\n")
        if sender is None:
            kind = Kind.SYSTEM
        elif (end if end >= 0 else len(text)) > _KIND_LINE:
            kind = Kind.TEXT  # a kind other than text is told by a short line the app writes
        else:
            first_line = text[:end] if end >= 0 else text
            kind = _kind(
                sender, raw[start : start + 1], first_line if first_line.isascii() else _normalise(first_line)
            )
        return Message(header[0], sender, text, kind, None, None, header[1], None, None, edited, raw)
    body = raw[start:]
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


def _long_text(raw: str, start: int) -> tuple[str, bool] | None:
    """The text of a long record's body ``raw[start:]`` as ``_message`` makes it, cut from ``raw`` once (its
    ends found in place; stripped copies of a 50-MB body held it three or four times), and whether it was
    edited; None where isolates must be taken out of it."""
    end = len(raw)
    if not raw.isascii():
        start, end = linelog.strip_bounds(raw, _MARKS, start, end)
        if _ISOLATES.search(raw, start, end) is not None:
            return None
    if raw.find("\n", start, end) >= 0:
        end = linelog.rstrip_to(raw, _MARKS, start, linelog.rstrip_to(raw, "\n", start, end))
    edited = False
    if end > start and raw[end - 1] == ">":
        marker = _EDITED.search(raw, max(end - _EDITED_TAIL, start), end)
        if marker is not None:
            edited = True
            end = linelog.rstrip_to(raw, _MARKS, start, marker.start())
    return raw[start:end], edited


# What a record held in part (``_held``) must not hold for its text to stay in the file: ``linelog.UNHELD``;
# in the file, isolates too, which ``_message`` takes out of a text.
_UNHELD_BYTES = re.compile(linelog.UNHELD.pattern.encode() + rb"|\xe2\x81[\xa6-\xa9]")


def _held(
    header: _Header,
    head: str,
    spool: linelog.Spool,
    tail: str,
    at: int | None,
    senders: dict[str, str | None],
) -> Message:
    """The message of a long record that the window holds as its head and tail, the characters between in
    ``spool`` (``linelog.Window``): as ``_message`` (``at``: where its sender begins) or ``_malformed``
    (``at`` None) make it of the record whole, its text left in the file (``HeldText``) and its record
    holding ``HELD`` in its place. A record whose text cannot be cut so (a sender not written "Name: ",
    isolates or markers in it, ends that reach into the middle) is read whole, and made so."""
    made = None
    if not (linelog.UNHELD.search(head) or linelog.UNHELD.search(tail) or spool.holds(_UNHELD_BYTES)):
        made = _held_bounds(head, spool, tail, at, senders)
    if made is None:
        raw = head + spool.read() + tail
        return _malformed(header, raw) if at is None else _message(header, raw, at, senders)
    sender, start, end, kind, edited = made
    text = spool.held(head[start:], tail[:end])
    raw = f"{head[:start]}{HELD}{tail[end:]}"
    return Message(header[0], sender, text, kind, None, None, header[1], None, None, edited, raw)


def _held_bounds(
    head: str, spool: linelog.Spool, tail: str, at: int | None, senders: dict[str, str | None]
) -> tuple[str | None, int, int, str, bool] | None:
    """A held record's sender, where its text starts in its head and ends in its tail (``_long_text``'s
    bounds), its kind and whether it was edited; None where they are not found in head and tail alone."""
    if at is None:  # malformed: the record without its trailing newlines
        end = linelog.rstrip_to(tail, "\n", 0, len(tail))
        return (None, 0, end, Kind.MALFORMED, False) if end else None
    usual = _usual_author(head, at, senders)
    if usual is None:
        return None
    sender, after = usual
    start = linelog.lstrip_to(head, _MARKS, after, len(head))
    end = linelog.rstrip_to(tail, _MARKS, 0, len(tail))
    if _ISOLATES.search(head, start) is not None or _ISOLATES.search(tail, 0, end) is not None:
        return None
    if head.find("\n", start) >= 0 or spool.newlines or tail.find("\n", 0, end) >= 0:
        end = linelog.rstrip_to(tail, _MARKS, 0, linelog.rstrip_to(tail, "\n", 0, end))
    edited = False
    if end > _EDITED_TAIL and tail[end - 1] == ">":
        marker = _EDITED.search(tail, end - _EDITED_TAIL, end)
        if marker is not None:
            edited = True
            end = linelog.rstrip_to(tail, _MARKS, 0, marker.start())
    newline = head.find("\n", start)
    first = (newline if newline >= 0 else len(head)) - start
    if start == len(head) or end <= _EDITED_TAIL or (newline < 0 and first <= _KIND_LINE):
        return None  # its ends reach into the middle, or its first line may
    if first > _KIND_LINE:
        kind = Kind.TEXT
    else:
        first_line = head[start:newline]
        kind = _kind(
            sender, head[after : after + 1], first_line if first_line.isascii() else _normalise(first_line)
        )
    return sender, start, end, kind, edited


def _malformed(header: _Header, raw: str) -> Message:
    text = raw.rstrip("\n")
    return Message(header[0], None, text, Kind.MALFORMED, None, None, header[1], None, None, False, raw)


def _messages(
    start_at: Callable[[], tuple[linelog.Window, re.Match[str]]],
    special: re.Pattern[str],
    parse: Callable[[re.Match[str]], _Header | None],
    warn: Callable[[int, str], None],
) -> Iterator[Message]:
    """Second pass: one message per header, with the lines up to the next header. A header-shaped line
    whose date or time cannot be read (31/02, the year 9999) starts a record of its own, kind MALFORMED,
    reported through ``warn(line number, stamp)``: glued to the message before, it would pass for that
    sender's words. ``start_at``: the file's text in a window from its start, and its first header."""
    window, first = start_at()
    senders: dict[str, str | None] = {}
    current: _Header | None = None
    malformed = False
    # Where the record being read starts and its text after the header, in ``text``; the window lets go of
    # what is before the record when it reads on, by ``dropped`` characters so far.
    text = window.text
    dropped = window.dropped
    start = rest_start = 0
    # Line numbers are counted only for malformed lines: from the last one on, or from the window's end.
    line_number, counted_to = 0, -1
    stamps = linelog.stamp_lines(window, first, special, _match_other)
    del first  # it holds the text it was found in
    m: re.Match[str] | None
    for m in stamps:
        if window.text is not text:  # the window read on (a plain attribute: cheaper than m.string)
            text = window.text
            shift = window.dropped - dropped
            dropped = window.dropped
            start -= shift
            rest_start -= shift
            counted_to = counted_to - shift if counted_to >= shift else -1
        header = parse(m)
        if header is None:
            stamp = m["stamp"]
        line_start = m.start()
        if text[line_start] == "\n":  # the specialised pattern's hits begin at the newline before
            line_start += 1
        stamp_end = m.end()
        if current is not None:
            hole = window.hole  # a long record, held as its head and tail (``linelog.Window``)
            if hole is None:
                raw = text[start : line_start - 1]
            else:
                raw, tail, spool = text[start:hole], text[hole : line_start - 1], window.take()
            if hole is not None or line_start - start > _LONG_RECORD:
                # The window (and this match, which holds the text it was found in) let go of the record
                # before its message is made, which holds it twice (as written and its text): with the
                # window's copy, three times.
                m = None
                window.let_go(line_start)
                text = window.text
                dropped = window.dropped
                counted_to = counted_to - line_start if counted_to >= line_start else -1
                stamp_end -= line_start
                line_start = 0
            at = None if malformed else rest_start - start
            if hole is not None:
                yield _held(current, raw, spool, tail, at, senders)
            else:
                yield _malformed(current, raw) if at is None else _message(current, raw, at, senders)
        malformed = header is None
        if malformed:
            # The first header always reads (read() checks it), so there is a time before to borrow.
            assert current is not None
            if counted_to < 0:
                line_number = window.line_number(line_start)
            else:
                line_number += text.count("\n", counted_to, line_start)
            counted_to = line_start
            warn(line_number, stamp)
            header = (current[0], stamp if stamp.isascii() else _normalise(stamp))
        current = header
        start = line_start
        rest_start = stamp_end
    if current is not None:
        # The file is read: the window and the last match (it holds the text it was found in) let go of the
        # last record before its message is made, which holds it twice (as written and its text), not
        # three or four times.
        m = None
        shift = window.dropped - dropped
        hole = window.hole
        text, window.text = window.text, ""
        start -= shift
        rest_start -= shift
        end = len(text) - 1 if text.endswith("\n") else len(text)
        at = None if malformed else rest_start - start
        if hole is not None:
            raw, tail = text[start:hole], text[hole:end]
            del text
            yield _held(current, raw, window.take(), tail, at, senders)
            return
        raw = text[start:end]
        del text
        yield _malformed(current, raw) if at is None else _message(current, raw, at, senders)
