"""KakaoTalk "Export messages" text files: the phone apps (Android, iOS) in English and Korean, and the PC
(Windows) app.

The layouts (FORMATS.md §4c), each a ``Layout`` of linelog's:

- Android English: ``May 28, 2018, 9:46 AM, Name : text``; the 2014 app put the time first,
  ``9:46AM, February 20, 2014, Name : text``;
- Android Korean: ``2013년 2월 28일 오후 11:17, Name : text``;
- iOS Korean: ``2014. 2. 6. 오전 10:25, Name : text``;
- PC: ``--------------- 2018년 3월 3일 토요일 ---------------`` day lines, ``[Name] [오후 8:54] text``, and
  joins and leaves on lines of their own without a time;
- a mobile variant (Korean): a day line framed by rows of dashes on the lines above and below it, and
  messages with only their time, ``오전 9:23, Name : text``;
- the macOS app's CSV: a ``Date,User,Message`` header, then ``2025-07-06 14:39:55,"Name","text"`` records
  (a text with line breaks spans lines inside its quotes), the same in every UI language.

A stamp without ``, Name : `` is a system line (joins, leaves, invitations); a stamp alone, or a date alone,
is a day line. ``회원님`` ("member") is the exporting person.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import itertools
import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

from refind_cli.errors import InputError
from refind_cli.importers import container, csvlong, fields, linelog
from refind_cli.importers.linelog import TIME, Grammar, Head, Layout, pattern
from refind_cli.records import HELD, Chat, ChatExport, Kind, Mark, Message, NotResumable
from refind_cli.typed import NamedTuple

FORMAT = "kakaotalk"

_SENDER = r"(?:(?P<sender>[^\n]+?) : )?(?P<text>.*)"
# A name in a join, leave or invitation line, and a list of names: bounded, so that a long line of text that
# repeats "님이 " is not tried at every split (two unbounded runs backtrack quadratically).
_NAME = r".{1,80}?"
_NAMES = r".{1,800}?"
_KO_DATE = r"(?P<y>\d{4})년 (?P<mo>\d{1,2})월 (?P<d>\d{1,2})일"
_IOS_DATE = r"(?P<y>\d{4})\. (?P<mo>\d{1,2})\. (?P<d>\d{1,2})\."
_EN_DATE = r"(?P<mon>[A-Z][a-z]+) (?P<d>\d{1,2}), (?P<y>\d{4})"
_EN_WEEKDAY = r"(?:(?P<dow>[A-Z][a-z]+), )?"
_KO_WEEKDAY = r"(?: (?P<dow>[월화수목금토일]요일))?"
_STAMP_ALONE = rf"(?:,? {TIME})?"  # a day line may carry the time of its first message

# The mobile variant's frame around a day line: a row of dashes on the line above and below it.
_RULE = pattern(r"-{5,}")
_FRAMED_DAY = pattern(rf"{_KO_DATE}{_KO_WEEKDAY}")

_TITLES = (
    (pattern(r"KakaoTalk Chats with (?P<name>.+)"), "direct"),
    (pattern(r"KakaoTalk Chats (?P<name>.+?) \(\d+\)"), "group"),
    (pattern(r"(?P<name>.+?) \d+ 님과 카카오톡 대화"), "group"),
    (pattern(r"(?P<name>.+?) 님과 카카오톡 대화"), "direct"),
    (pattern(r"(?P<name>.+?) (?:카카오톡 대화|with KakaoTalk Chats)"), "chat"),
)
_SAVED = pattern(r"(?:Date Saved|저장한 날짜|Saved Date) ?:")

_KINDS = {
    "사진": Kind.MEDIA,
    "Photo": Kind.MEDIA,
    "<Photo>": Kind.MEDIA,
    "이모티콘": Kind.MEDIA,
    "(이모티콘)": Kind.MEDIA,
    "Emoticons": Kind.MEDIA,
    "(emoticon)": Kind.MEDIA,
    "동영상": Kind.MEDIA,
    "Video": Kind.MEDIA,
    "<Video>": Kind.MEDIA,
    "음성메시지": Kind.MEDIA,
    "Voice Note": Kind.MEDIA,
    "삭제된 메시지입니다.": Kind.DELETED,
    "This message has been deleted.": Kind.DELETED,
}
_KIND_PATTERNS = (
    (pattern(r"사진 \d+장$|Photos? \d+$|\d+ photos$"), Kind.MEDIA),
    (pattern(r"파일: |File: "), Kind.ATTACHMENT),
    (pattern(r"(?:보이스톡|페이스톡|Voice Call|Face Talk|Voice Talk)\b"), Kind.SYSTEM),
    (pattern(rf"{_NAME}님이 {_NAMES}님을 초대했습니다\.$|{_NAME} invited {_NAMES}\.$"), Kind.SYSTEM),
)


@functools.cache
def grammar() -> Grammar:
    """The format's line grammar, made when first asked for: its layouts' patterns (CLDR's time words in
    each) took 35 ms to compile, paid by every import of a zip (each format is asked whether it is its
    export)."""
    layouts = (
        Layout(
            message=pattern(rf"{_EN_DATE}, {TIME}, {_SENDER}"),
            days=(pattern(rf"{_EN_WEEKDAY}{_EN_DATE}{_STAMP_ALONE}"),),
        ),
        Layout(
            message=pattern(rf"{TIME}, {_EN_DATE}, {_SENDER}"),
            days=(pattern(rf"{_EN_WEEKDAY}{_EN_DATE}"), pattern(rf"{TIME}, {_EN_DATE}")),
        ),
        Layout(
            message=pattern(rf"{_KO_DATE} {TIME}, {_SENDER}"),
            days=(pattern(rf"{_KO_DATE}{_KO_WEEKDAY}"), pattern(rf"{_KO_DATE} {TIME}")),
        ),
        Layout(
            message=pattern(rf"{_IOS_DATE} {TIME}, {_SENDER}"),
            days=(pattern(rf"{_IOS_DATE}{_KO_WEEKDAY}"), pattern(rf"{_IOS_DATE} {TIME}")),
        ),
        Layout(
            message=pattern(rf"\[(?P<sender>[^\]]*)\] \[{TIME}\] (?P<text>.*)"),
            days=(
                pattern(rf"-{{5,}} {_KO_DATE}{_KO_WEEKDAY} -{{5,}}"),
                pattern(rf"-{{5,}} {_EN_WEEKDAY}{_EN_DATE} -{{5,}}"),
            ),
            system=pattern(
                rf"{_NAME}님이 들어왔습니다\.|{_NAME}님이 나갔습니다\.|{_NAME}님이 {_NAMES}님을 초대했습니다\."
                rf"|{_NAME}님을 내보냈습니다\.|{_NAME} joined this chatroom\.|{_NAME} left this chatroom\."
                rf"|{_NAME} invited {_NAMES}\.|운영정책을 위반한 메시지로 신고 접수 시 .+"
            ),
        ),
        # Last: a message line of only a time is the loosest, and is tried only when the others fail.
        Layout(message=pattern(rf"{TIME}, {_SENDER}"), days=(pattern(rf"{_KO_DATE}{_KO_WEEKDAY}"),)),
    )
    return Grammar(
        what="a KakaoTalk chat export",
        example="May 28, 2018, 9:46 AM, Name : text",
        layouts=layouts,
        titles=_TITLES,
        saved=_SAVED,
        kinds=_KINDS,
        kind_patterns=_KIND_PATTERNS,
        own=frozenset({"회원님"}),
    )


def sniff(path: Path) -> bool:
    try:
        if not container.is_file(path):
            return False
        if not _is_zip(path):
            lines = linelog.head_lines(linelog.file_head(path))
            # The CSV told by its header, not its name: a share or a mail renames it (``.csv.txt``).
            csv_like = _is_csv(lines)
            if csv_like or path.suffix.lower() == ".csv":
                return csv_like
            return linelog.sniff_lines(grammar(), list(_Unframed()(iter(lines))), "")
        with container.open_zip(path) as zf:
            member = _chat_member(container.files_matching(zf, r".*\.txt", re.IGNORECASE))
            if member is None:
                return False
            with contextlib.closing(container.iter_member_chunks(zf, member, path)) as chunks:
                lines = list(itertools.islice(linelog.iter_lines(chunks, path), linelog.SNIFF_LINES * 4))
        return linelog.sniff_lines(grammar(), list(_Unframed()(iter(lines))), "")
    except Exception:  # sniffing looks at foreign files of any shape; none of them may stop detection
        return False


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """One chat per file (or per zip, whose text file is the chat); read as consumed. ``after``: a mark of an
    earlier reading of the file (``linelog.read_file_log``; a CSV's, ``_csv_export``)."""

    def chat(head: Head) -> Chat:
        name = head.title or container.unmarked(path.name.rsplit(".", 1)[0])
        return Chat(source=FORMAT, key=name, name=name, kind=head.kind)

    if not _is_zip(path) and _is_csv(linelog.head_lines(linelog.file_head(path))):
        yield _csv_export(path, tz, after)
        return
    if not _is_zip(path):
        yield linelog.read_file_log(grammar(), path, tz, chat, after, _Unframed)
        return
    with container.open_zip(path) as zf:
        member = _chat_member(container.files_matching(zf, r".*\.txt", re.IGNORECASE))
    if member is None:
        raise InputError(path, "contains no KakaoTalk chat (.txt) file")
    yield linelog.read_file_log(grammar(), path, tz, chat, after, _Unframed, member)


def _is_zip(path: Path) -> bool:
    return container.read_file_part(path, 0, 4) == b"PK\x03\x04"


def _chat_member(names: list[str]) -> str | None:
    """The mobile apps zip the chat's text file with its photos; the shortest .txt name is the chat."""
    texts = [n for n in names if n.lower().endswith(".txt")]
    return min(texts, key=lambda n: (len(n), n)) if texts else None


class _Unframed:
    """The lines with the rows of dashes that frame a day line (the mobile variant) made blank, which the
    reader passes over as it does the blank lines around a day; the line numbers stay. A row of dashes not
    next to a day line is text. ``settled`` (``linelog.LineFilter``): the last line was neither a row of
    dashes nor a day line, whose meaning the next line could change."""

    def __init__(self) -> None:
        self.settled = True

    def __call__(self, lines: Iterator[str]) -> Iterator[str]:
        held: str | None = None  # a row of dashes, until the next line says whether it frames a day
        after_day = False
        for line in lines:
            text = line.strip()
            is_day = _FRAMED_DAY.fullmatch(text) is not None
            if held is not None:
                yield "" if is_day else held
                held = None
            rule = _RULE.fullmatch(text) is not None
            self.settled = not (rule or is_day)
            if rule:
                if after_day:
                    yield ""
                else:
                    held = line
                after_day = False
                continue
            after_day = is_day
            yield line
        if held is not None:
            yield held


# --- the macOS app's CSV ---------------------------------------------------------------------------------

_CSV_COLUMNS = ("Date", "User", "Message")
# The app's stamp (2025-07-06 14:39:55), and as a spreadsheet shows it once it took it for a date and the
# file was saved again: day, month and year in the order of its locale (6.7.2025, 7/6/2025, 2025/07/06), the
# time in its hours (2:39:55 PM).
_CSV_STAMPS = tuple(
    re.compile(date + linelog.WS + linelog.TIME)
    for date in (
        r"(?P<y>\d{4})(?P<ysep>[-/.])(?P<mo>\d\d?)(?P=ysep)(?P<d>\d\d?)",  # 2025-07-06, 2025/07/06
        r"(?P<a>\d{1,2})(?P<sep>[./-])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4}),?",
    )
)


class _Columns(NamedTuple):
    """A CSV's separator, where its Date, User and Message are (the app writes them in that order, a
    spreadsheet may move them, add its own or separate them with ";"), and the lines before its records:
    the header, after Excel's ``sep=`` line where there is one."""

    separator: str
    at: tuple[int, int, int]
    head: int
    width: int  # how many columns the header has
    # Whether its dates of two numbers and a year are day first, as the dates of its first lines tell
    # (``linelog.date_order``: a day above 12, else the number that goes down); None where they cannot.
    day_first: bool | None


def _csv_columns(lines: list[str]) -> _Columns | None:
    """The columns of a CSV whose first lines (not blank) are ``lines``."""
    hint = fields.separator_hint(lines[0]) if lines else None
    header = lines[1 if hint else 0] if len(lines) > (1 if hint else 0) else ""
    separator = hint or fields.separator(header)
    try:
        names = [n.strip() for n in next(csv.reader([header.removeprefix("\ufeff")], delimiter=separator))]
    except (csv.Error, StopIteration):
        return None
    if not set(_CSV_COLUMNS) <= set(names):
        return None
    at = names.index("Date"), names.index("User"), names.index("Message")
    head = 2 if hint else 1
    return _Columns(
        separator, at, head, len(names), linelog.date_order(_head_stamps(lines[head:], separator, at[0]))
    )


def _head_stamps(lines: list[str], separator: str, at: int) -> Iterator[re.Match[str]]:
    """The stamps of the records that begin on these lines (a line inside a quoted message holds none)."""
    for cells in csv.reader(lines, delimiter=separator):
        if len(cells) > at and (m := _csv_stamp(cells[at].strip())) is not None:
            yield m


def _csv_stamp(cell: str) -> re.Match[str] | None:
    return next((m for p in _CSV_STAMPS if (m := p.fullmatch(cell)) is not None), None)


def _is_csv(lines: list[str]) -> bool:
    """A header with Date, User and Message columns, and a first record (if any) that holds a stamp."""
    content = [line for line in lines if line.strip()]
    columns = _csv_columns(content)
    if columns is None:
        return False
    return len(content) == columns.head or any(p.search(content[columns.head]) for p in _CSV_STAMPS)


def _csv_export(path: Path, tz: tzinfo, after: Mark | None) -> ChatExport:
    """The CSV's chat, read whole or from ``after`` on: a record ends at the end of a line, so the bytes after
    a mark (at a record's end) are records of their own; what carries over is the clock and the line count
    (the columns are the header's, read again). Its ``end``: a mark at the file's end, where it ends a line."""
    if after is not None and after.digest:
        raise NotResumable
    columns = _csv_columns(linelog.head_lines(linelog.file_head(path)))
    if columns is None:
        raise InputError(path, "not a KakaoTalk CSV export: expected a header of Date,User,Message", "line 1")
    offset, line = (after.offset, json.loads(after.state)["line"]) if after is not None else (0, 0)
    read = linelog.Counted(container.iter_file_chunks(path, offset), offset)
    clock = linelog.Clock(tz)
    if after is not None:
        clock.previous = datetime.fromisoformat(json.loads(after.state)["previous"])
    lines: list[int] = []  # the lines read, once all are

    def end() -> Mark | None:
        if not lines or not read.whole_lines:
            return None
        return Mark(read.size, json.dumps({"previous": clock.previous.isoformat(), "line": lines[0]}))

    name = container.unmarked(path.name.rsplit(".", 1)[0])
    records = linelog.iter_lines(read, path, line=line, held=True)
    if after is None:
        for _ in range(columns.head):
            next(records, None)  # the header
    messages = _csv_messages(path, records, clock, columns, max(line, columns.head), lines)
    return ChatExport(Chat(FORMAT, name, name, "chat"), messages, end)


def _csv_messages(
    path: Path, lines: Iterator[str], clock: linelog.Clock, columns: _Columns, before: int, read: list[int]
) -> Iterator[Message]:
    """The records after the header (``before``: the lines before these, the header's at least). A record
    ends at the line that closes its quotes; its lines as written are its raw record, gathered into one
    ``linelog.Cut`` (its middle in a file) once they are longer than ``linelog.SPILL``. Once they run out,
    the lines read are put in ``read``."""
    record: list[str] = []
    quotes = start = size = 0
    seen = before > 1
    first = before + 1
    number = before
    for number, line in enumerate(lines, first):
        if not record:
            if not line.strip():
                continue
            start = number
        record.append(line)
        quotes += line.count('"') + (
            line.spool.count(b'"') + line.tail.count('"') if isinstance(line, linelog.Cut) else 0
        )
        size += len(line) + 1
        if size > linelog.SPILL:  # a message of many lines: held as a long line is
            record, size = [linelog.gathered(record)], 0
        if quotes % 2:  # inside a quoted text: its next line is part of it
            continue
        seen = True
        place = f"line {start}"
        if len(record) > 1 and any(isinstance(line, linelog.Cut) for line in record):
            record = [linelog.gathered(record)]
        written = record[0]
        if isinstance(written, linelog.Cut):
            yield _held_message(path, place, written, clock, columns)
        else:
            yield _csv_message(
                path, place, written if len(record) == 1 else "\n".join(record), clock, columns
            )
        record, quotes, size = [], 0, 0
    if record:
        raise InputError(
            path, "the file ends inside a quoted message: it was cut short (export it again)", f"line {start}"
        )
    if not seen:
        raise InputError(path, "has no messages; not a KakaoTalk chat export")
    read.append(number)


def _held_message(
    path: Path, place: str, raw: linelog.Cut, clock: linelog.Clock, columns: _Columns
) -> Message:
    """A record longer than ``linelog.SPILL``: its fields before the message read from its head as a record
    whose message is empty would be, the message's text held in the record's file (``HeldText``), the
    record holding ``HELD`` in its place. Only a last field whose text is written as it is, unquoted or
    between two quotes, can be: one that holds a quote (written doubled) or a control character, or one
    followed by other fields, is refused, one line (a message longer than the ``csv`` module's 128K-character
    field limit always was)."""
    head = str(raw)
    start = _last_field(head, columns)
    quote = '"' if start is not None and head.startswith('"', start) else ""
    lead = head[start + len(quote) :] if start is not None else ""
    tail = raw.tail
    # What the text must not hold: a quote, a control character (``linelog.UNHELD``), and where it is not
    # quoted, the separator (which would end it).
    unheld = '"\x00-\x04' + ("" if quote else re.escape(columns.separator))
    if (
        start is None
        or columns.at[2] != columns.width - 1
        or not tail.endswith(quote)
        or re.search(f"[{unheld}]", lead + tail[: len(tail) - len(quote)])
        or linelog.UNHELD.search(head, 0, start)
        or raw.spool.holds(re.compile(f"[{unheld}]".encode()))
    ):
        raw.spool.file.close()
        raise InputError(
            path,
            f"a record longer than {linelog.SPILL:,} characters whose message is not its last field, or"
            " holds a double quote, a control character or (unquoted) the separator: not read (it would be"
            " held whole)",
            place,
        )
    fields = _csv_message(path, place, head[:start] + '""', clock, columns)
    text = raw.spool.held(lead, tail[: len(tail) - len(quote)])
    kind = Kind.SYSTEM if fields.sender is None else grammar().kind_of(lead.partition("\n")[0])
    return fields._replace(text=text, kind=kind, raw=f"{head[:start]}{quote}{HELD}{quote}")


def _last_field(head: str, columns: _Columns) -> int | None:
    """Where a record's last field starts in ``head``, its start, as the ``csv`` module splits fields (a quoted
    field's doubled quotes are a quote, its closing quote followed by the separator); None where the fields
    before it do not end in ``head``."""
    at = 0
    separator = columns.separator
    for _ in range(columns.width - 1):
        if head.startswith('"', at):
            at += 1
            while (at := head.find('"', at)) >= 0 and head.startswith('"', at + 1):
                at += 2
            if at < 0:
                return None
            at += 1
            if not head.startswith(separator, at):
                return None
        else:
            at = head.find(separator, at)
            if at < 0:
                return None
        at += len(separator)
    return at


def _csv_message(path: Path, place: str, raw: str, clock: linelog.Clock, columns: _Columns) -> Message:
    try:
        cells = csvlong.cells(raw, columns.separator)  # past the csv module's field limit too
    except csv.Error as exc:
        raise InputError(path, f"unreadable CSV record ({exc})", place) from None
    if len(cells) <= max(columns.at):
        need = max(columns.at) + 1
        raise InputError(path, f"expected {need} fields (Date,User,Message), found {len(cells)}", place)
    stamp, sender, text = (cells[i] for i in columns.at)
    m = _csv_stamp(stamp)
    # A spreadsheet's day written with dots is day first (German, Russian, ...); with slashes, in the order
    # the file's dates tell (a British Excel's 01/10/2026 is the first of October where a later day is
    # 13/10/2026), else month first (Excel in English).
    dotted = m is not None and m.groupdict().get("sep") == "."
    date = linelog.read_date(m, dotted or bool(columns.day_first)) if m else None
    seconds = linelog.read_time(m) if m and date else None
    if m is None or date is None or seconds is None:
        raise InputError(path, f"unreadable date {stamp!r} (expected like 2025-07-06 14:39:55)", place)
    when = clock.at(date, timedelta(seconds=seconds))
    # The wall-clock time in the app's own form (what identifies the message), whatever form it was saved in.
    stamp = f"{date[0]:04d}-{date[1]:02d}-{date[2]:02d} {seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    name = sender.strip() or None
    kind = Kind.SYSTEM if name is None else grammar().kind_of(text.partition("\n")[0])
    return Message(when, name, text, kind, None, None, stamp, None, None, False, raw, name in grammar().own)
