"""iMessage, as imessage-exporter writes it (FORMATS.md §4c): one file per conversation, in TXT or HTML.

TXT: blocks separated by a blank line, each a stamp line (``May 17, 2022  5:29:42 PM``, the hour padded
with a space, perhaps ``(Read by you after 1 hour, 49 seconds)``), a sender line (``Me`` for the person
whose Mac it is), then the body: text lines, attachment paths, ``Tapbacks:`` (older ``Reactions:``) with one
line per tapback, replies rendered again under their parent with a four-space indent, and ``This message
responded to an earlier message.`` on a reply. An announcement (a rename, a join) is a single line: the stamp,
a space and what happened.

HTML: ``div.message > div.sent|received`` with ``span.timestamp``, ``span.sender`` and ``.message_part``s
(``span.bubble`` text, ``img``/``video``/``audio`` attachments); ``.reactions`` and ``.replies`` nested
inside; ``div.announcement`` for the one-liners. Read with the standard library's ``html.parser``.

The exporter's own notes (tapbacks, the indented copies of replies, read receipts, "Sent with Echo") stay
in the message's ``raw``, not its text: the reply itself is a message of its own further down. Times carry
no zone: they are read in ``--tz``.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import json
import re
import warnings
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from html.parser import HTMLParser
from pathlib import Path

from refind_cli import records
from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import htmltext, linelog
from refind_cli.importers.container import (
    Encoding,
    decoded_chunks,
    iter_file_chunks,
    named_head,
    read_file_part,
    telling,
    text_encoding,
    unmarked,
)
from refind_cli.importers.linelog import Counted, iter_lines, unify_newlines
from refind_cli.records import HELD, LONG_TEXT, Chat, ChatExport, HeldText, Kind, Mark, Message, NotResumable

FORMAT = "imessage"

_SNIFF_BYTES = 64 << 10
_OWN = "Me"
_MONTHS = {m: n for n, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_STAMP = re.compile(
    r"(?P<stamp>(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (?P<d>\d{2}), (?P<y>\d{4}) {1,2}"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2}) (?P<ap>[AP]M))"
    r"(?P<rest> \(Read by .+ after .*\)| .+)?"
)
_READ = re.compile(r" \(Read by .+ after .*\)")
_TAPBACKS = frozenset({"Tapbacks:", "Reactions:"})
_REPLY_NOTE = "This message responded to an earlier message."
_DELETED = "This message was deleted from the conversation!"
_MISSING = "Attachment missing!"
_INDENT = "    "
_STICKER = "Sticker from "
_EDITED = "Edited "  # "Edited 5 seconds later: ..."
# What the exporter adds after a bubble sent with an effect.
_EFFECTS = frozenset(
    f"Sent with {e}"
    for e in (
        *"Confetti Echo Fireworks Balloons Heart Lasers Sparkles Spotlight Slam Loud Gentle".split(),
        "Shooting Star",
        "Shooting Start",  # sic, in older versions of the exporter
        "Invisible Ink",
    )
)
# An attachment line: a path the exporter copied or found the file at; how one starts.
_PATH_START = re.compile(r"(?:/|~/|[A-Za-z]:\\|\.{0,2}/?attachments/)")
_PATH = re.compile(_PATH_START.pattern + r"\S.*\.[A-Za-z0-9]{2,5}")
# The tool's markup as any HTML writer may save it again: tags in any case, attributes quoted either way.
_SNIFF_HTML = re.compile(r"""(?i)<span\s+class\s*=\s*["']?timestamp["'\s>]""")
_SNIFF_HTML_RECORD = re.compile(r"""(?i)<div\s+class\s*=\s*["']?(?:message|announcement)["'\s>]""")


@dataclass
class _Record:
    stamp: str  # the stamp as written, without the read receipt
    sender: str | None
    lines: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    kind: str = Kind.TEXT
    reply: bool = False
    raw: str = ""
    held: HeldText | None = None  # the text, where it is held in a file (``_held``)
    # What lines of its text tell (an edit's note, a missing file), told as they are read: those of a long
    # body are gathered into one (``linelog.gather``).
    edited: bool = False
    missing: bool = False

    def told(self, lines: list[str]) -> None:
        self.edited |= any(line.startswith(_EDITED) and " later: " in line for line in lines)
        self.missing |= _MISSING in lines


# --- detection ---------------------------------------------------------------------------------------


def sniff(path: Path) -> bool:
    head = named_head(path, path.name, _SNIFF_BYTES)
    text = unify_newlines(head.decode("utf-8", "replace"))
    if _is_html(text):
        return _SNIFF_HTML_RECORD.search(text) is not None and _SNIFF_HTML.search(text) is not None
    lines = text.lstrip("\n").split("\n", 2)
    first = _STAMP.fullmatch(lines[0])
    if first is None:
        return False
    if first["rest"] and not _READ.fullmatch(first["rest"]):
        return True  # an announcement
    return len(lines) > 1 and bool(lines[1].strip()) and _STAMP.match(lines[1]) is None


def _is_html(text: str) -> bool:
    return htmltext.is_page(text.removeprefix("\ufeff"))


# --- reading -----------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """The file's conversation. TXT streams: its records are read as its lines come (twice where the chat's
    kind is not told by its first records: a direct chat is one with a single other sender), and its reading
    leaves a mark at its end; ``after``: such a mark of an earlier reading of the file, read on from. HTML
    leaves its mark after its last message (``_html``)."""
    if _is_html(_head(path)):
        yield _html(path, tz, after)
        return
    state = json.loads(after.state) if after is not None else {}
    offset = after.offset if after is not None else 0

    def blocks() -> _Blocks:
        return _Blocks(int(state.get("line", 0)), bool(state.get("blank", True)), after is not None)

    others = set(state.get("others", []))
    if len(others) < 2:  # the kind is told by the records read before it is given
        first = blocks()
        others = _told(first.records(_lines(path, offset, first.line), path), others)
        if after is None and not first.count:
            raise _no_messages(path)
    reading = blocks()
    read = Counted(iter_file_chunks(path, offset), offset)
    records: Iterator[_Record] = reading.records(iter_lines(read, path, line=reading.line, held=True), path)
    if after is not None and (head := next(records, None)) is not None:
        records = itertools.chain([head], records)  # NotResumable, where it comes, before any message

    def end() -> Mark | None:
        if not read.whole_lines or reading.section == "sender" or not reading.line:
            return None
        kept = {"line": reading.line, "blank": reading.blank, "others": sorted(others)[:2]}
        return Mark(read.size, json.dumps(kept, ensure_ascii=False))

    yield ChatExport(_chat(path, others), (_message(r, tz, path) for r in records), end)


def _head(path: Path) -> str:
    head = read_file_part(path, 0, 1024)
    encoding = text_encoding(head)
    return head[encoding.bom :].decode(encoding.codec, "replace")


def _lines(path: Path, offset: int, line: int) -> Iterator[str]:
    return iter_lines(iter_file_chunks(path, offset), path, line=line, held=True)


def _no_messages(path: Path) -> InputError:
    return InputError(path, "no messages; not an imessage-exporter conversation file")


def _senders(records: Iterable[_Record], known: set[str] | None = None) -> set[str]:
    """The others who wrote (not the phone's owner, not an announcement), ``known`` among them; given
    ``known``, only until there are two (a group)."""
    others = set(known or ())
    for r in records:
        if r.sender and r.sender != _OWN and r.kind != Kind.SYSTEM:
            others.add(r.sender)
            if known is not None and len(others) >= 2:
                break
    return others


def _told(records: Generator[_Record, None, None], known: set[str]) -> set[str]:
    """``_senders`` of a first reading, which stops where the chat's kind is told: what the reading warns
    of, the second reading, which gives the messages, warns of again."""
    with contextlib.closing(records), warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        return _senders(records, known)


def _chat(path: Path, others: set[str]) -> Chat:
    # imessage-exporter names a file by its people's contact names, or where it has none by their handles (a
    # phone number, an address): a name of ``_`` and no space that is no handle is a contact's name whose
    # spaces a share replaced (Android's), though its page may name only the handle.
    stem = path.stem
    if (
        " " not in stem
        and "_" in stem
        and "@" not in stem
        and not stem.lstrip("+").replace("_", "").isdigit()
    ):
        others = {*others, stem.replace("_", " ")}
    name = unmarked(stem, "\n".join(sorted(others)))
    return Chat(FORMAT, name, name, "group" if len(others) > 1 else "direct")


def _message(record: _Record, tz: tzinfo, path: Path) -> Message:
    m = _STAMP.fullmatch(record.stamp)
    if m is None:  # the records are cut at stamps, so only a hand-edited file gets here
        raise InputError(path, f"unreadable time {record.stamp!r}")
    hour = int(m["h"]) % 12 + (12 if m["ap"] == "PM" else 0)
    try:
        wall = datetime(int(m["y"]), _MONTHS[m["mon"]], int(m["d"]), hour, int(m["mi"]), int(m["s"]))
    except ValueError:
        raise InputError(path, f"unreadable time {record.stamp!r}") from None
    own = record.sender == _OWN
    kind = record.kind
    if kind == Kind.TEXT and record.files:
        kind = Kind.ATTACHMENT
    elif kind == Kind.TEXT and record.missing:  # a file the exporter could not find
        kind = Kind.MEDIA
    return Message(
        wall.replace(tzinfo=tz).astimezone(UTC),
        record.sender,
        record.held if record.held is not None else "\n".join([*record.lines, *record.files]),
        kind,
        local_time=wall.isoformat(),
        edited=record.edited,
        raw=record.raw,
        own=own,
    )


class _Blocks:
    """A TXT file's blocks as its lines come, and where their reading stands: the lines read, whether the
    last was blank (a stamp line starts a block only after one), the section of the block's lines it is in.
    ``after``: the lines follow a mark, where a block ended: any but blank lines before a block's stamp
    would belong to the block before the mark (NotResumable)."""

    def __init__(self, line: int = 0, blank: bool = True, after: bool = False) -> None:
        self.line = line
        self.blank = blank
        self.after = after
        self.section = "body"  # "sender", "body", "tapbacks", "done"
        self.count = 0  # the records begun

    def records(self, lines: Iterable[str], path: Path) -> Generator[_Record, None, None]:
        """The file's blocks. A block starts at a stamp line that follows a blank line (or the file's start);
        a blank line followed by anything else belongs to the body (a message can hold empty lines). A line
        longer than ``linelog.SPILL`` comes as a ``linelog.Cut`` (its middle in a file), read whole unless it
        is plainly a body line; the body lines that end a block, once longer than a spill, are gathered into
        one as they are read: a long text is held in a file (``_held``)."""
        record: _Record | None = None
        raw: list[str] = []
        run = size = 0  # the body lines that end ``raw`` (and ``record.lines``), and their characters
        cut = False  # whether the record's lines hold a line cut (``linelog.Cut``)
        spill = linelog.SPILL
        for line in lines:
            self.line += 1
            if type(line) is linelog.Cut:  # not isinstance: once a line, and a Cut has no subclass
                if record is None or not self._body_line(line):
                    line = line.whole()
                else:
                    cut = True  # a body line (``_body_line``), whatever follows
            stamp = _STAMP.fullmatch(line) if self.blank else None
            self.blank = line == ""
            if stamp is not None:
                if record is not None:
                    _close(record, raw, cut)
                    yield record
                self.count += 1
                raw, run, size, cut = [line], 0, 0, False
                rest = stamp["rest"] or ""
                if rest and not _READ.fullmatch(
                    rest
                ):  # an announcement: "<stamp> You named the conversation …"
                    record = _Record(stamp["stamp"], None, [rest[1:]], kind=Kind.SYSTEM)
                    self.section = "done"
                else:
                    record = _Record(stamp["stamp"], None)
                    self.section = "sender"
                continue
            if record is None:
                if line.strip():
                    if self.after:
                        raise NotResumable
                    raise InputError(
                        path, "expected a stamp such as 'May 17, 2022  5:29:42 PM'", f"line {self.line}"
                    )
                continue
            raw.append(line)
            section = self.section
            if section == "sender":
                record.sender = line
                self.section = "body"
            elif section == "done" or line.startswith(_INDENT):
                pass  # a reply's copy under its parent, or what follows an announcement
            elif line in _TAPBACKS:
                self.section = "tapbacks"
            elif section == "tapbacks" and line:
                pass
            elif line == _REPLY_NOTE:
                record.reply = True
            elif line == _DELETED:
                record.kind = Kind.DELETED
            elif line in _EFFECTS:
                pass
            elif _PATH.fullmatch(line) or line.startswith(_STICKER):
                record.files.append(line)
            else:
                self.section = "body"
                record.lines.append(line)
                run += 1
                size += len(line) + 1
                if size > spill:  # a long body (a pasted log): held as one long line is
                    record.told(_uncut(raw[-run:]))
                    kept, size = linelog.gather(raw[-run:])
                    raw[-run:] = record.lines[-run:] = kept
                    run, cut = len(kept), True
                continue
            run = size = 0  # not a body line: the run of body lines ends
        if record is not None:
            _close(record, raw, cut)
            yield record

    def _body_line(self, line: linelog.Cut) -> bool:
        """Whether a line cut (``Cut``) is read as a body line whatever its middle and end: not a stamp, a
        sender, a tapback, a reply's copy, an attachment, nor an edit's note (which its middle tells)."""
        return (
            self.section == "body"
            and not (self.blank and _STAMP.match(line))
            and not line.startswith((_INDENT, _STICKER, _EDITED))
            and _PATH_START.match(line) is None
        )


def _uncut(lines: list[str]) -> list[str]:
    """The lines not cut: a ``Cut``'s were told of as they were gathered, or tell nothing."""
    return [line for line in lines if not isinstance(line, linelog.Cut)]


def _close(record: _Record, raw: list[str], cut: bool) -> None:
    record.told(_uncut(record.lines) if cut else record.lines)
    if cut and not any(isinstance(line, linelog.Cut) and line.blank for line in raw):
        while raw and raw[-1] == "":
            raw.pop()
        while record.lines and record.lines[-1] == "":
            record.lines.pop()
        record.held, record.raw = _held(record, raw) or (None, "")
    if record.held is None:
        if cut:  # the text is not one run of the record's lines: read whole, each Cut once (its file goes)
            whole = {id(line): line.whole() for line in raw if isinstance(line, linelog.Cut)}
            raw[:] = [whole.get(id(line), line) for line in raw]
            record.lines = [whole.get(id(line), line) for line in record.lines]
        while raw and raw[-1] == "":
            raw.pop()
        record.raw = "\n".join(raw)
        while record.lines and record.lines[-1] == "":
            record.lines.pop()
    if record.sender is None and record.kind != Kind.SYSTEM:
        record.sender = ""


def _held(record: _Record, raw: list[str]) -> tuple[HeldText, str] | None:
    """The text of a block whose lines hold one ``Cut``, held in a file, and its record holding ``HELD`` in
    its place; None where the text (its lines, then its attachments) is not one run of the record's lines,
    is no longer than ``LONG_TEXT``, or the record holds a marker ``raw.cut`` reads."""
    cuts = [line for line in raw if isinstance(line, linelog.Cut)]
    text = [*record.lines, *record.files]
    if len(cuts) != 1 or not any(line is cuts[0] for line in text):
        return None
    cut = cuts[0]
    at = next(i for i, line in enumerate(text) if line is cut)
    start = next(i for i, line in enumerate(raw) if line is cut) - at
    if start < 0 or raw[start : start + len(text)] != text:
        return None
    head, tail = "\n".join([*text[:at], str(cut)]), "\n".join([cut.tail, *text[at + 1 :]])
    around = [*raw[:start], *raw[start + len(text) :]]
    if (
        len(head) + cut.spool.chars + len(tail) <= LONG_TEXT
        or any(linelog.UNHELD.search(part) for part in (*around, head, tail))
        or cut.spool.holds(linelog.UNHELD_BYTES)
    ):
        return None
    return cut.spool.held(head, tail), "\n".join([*raw[:start], HELD, *raw[start + len(text) :]])


# --- HTML --------------------------------------------------------------------------------------------

_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
_MEDIA = frozenset({"img", "video", "audio", "source", "embed"})
# Subtrees whose text is the exporter's, not the message's.
_SKIPPED = frozenset({"reactions", "replies", "expressive", "reply_context", "tapbacks"})


# How a bubble's text is written in the page where it is held in a file (``_Hold``): a form of the archive's
# cut of a record, which finds a held record's ``HELD`` written so (``&#0;``) and rebuilds the record. A record
# must not hold ``HELD`` as the JSON forms before it write it (``_JSON_HELD``): the cut would take that form.
_WRITE = records.html_written
_HELD_WRITTEN = _WRITE(HELD)
_JSON_HELD = "\\u0000"
# What a bubble's text is stripped of (``_Html._flush``).
_STRIPPED = "\n "


@dataclass
class _Hold:
    """A bubble's text longer than ``linelog.SPILL`` as it is read: one run of the page's text (no markup in
    it) written as ``_WRITE`` writes it, checked as it comes, held in ``spool``; the page's text before it in
    the record (``head``), and after it (from ``end``) once it ends. ``lead`` and ``pending``: the white space
    the bubble's text is stripped of at the run's start, and at its end so far; ``prefix``: the bubble's text
    before the run (white space, or nothing is held)."""

    spool: linelog.Spool
    head: str
    prefix: str
    verified: int  # the position up to which the run's text was checked, written and let go
    lead: str = ""
    pending: str = ""
    end: int | None = None  # where the run ends, once it has

    def add(self, text: str) -> None:
        if not self.spool.chars:  # the stripped white space at its start is not the text's
            text = self.lead + self.pending + text
            body = text.lstrip(_STRIPPED)
            self.lead, self.pending, text = text[: len(text) - len(body)], "", body
        else:
            text = self.pending + text
        kept = text.rstrip(_STRIPPED)
        if kept:
            self.spool.write(kept)
        self.pending = text[len(kept) :]

    def whole(self) -> str:
        """The run's text whole (its file goes)."""
        return self.lead + self.spool.read() + self.pending


class _Html(HTMLParser):
    """Top-level ``div.message`` and ``div.announcement`` into records as the text is fed (``take``); nested
    replies are skipped. Only the text the parser and the record being read still need is held (the
    ``window``), so a page's size does not bound its memory: its records' do; and a record's one bubble of
    text longer than ``linelog.SPILL`` is held in a file as it is read (``_Hold``), where it is written as
    ``_WRITE`` writes it."""

    def __init__(self, stack: list[tuple[str, frozenset[str]]]) -> None:
        super().__init__(convert_charrefs=True)
        self.window = ""  # the text from ``self.at`` (a character's offset in the reading) on
        self.at = 0
        self.fed = 0  # the characters fed
        self.line_starts = [0]  # where the lines from ``self.first_line`` on start
        self.first_line = 1
        # A character's offset and that of its UTF-8 byte: the bytes of the text before where a record ends
        # (the mark's offset), each character encoded once.
        self.counted = (0, 0)
        self.done: list[_Record] = []  # records ended in the text fed last
        self.record: _Record | None = None
        self.stack = stack
        self.record_depth: int | None = None
        self.record_start = 0
        self.skip_depth: int | None = None
        self.capture: str | None = None  # "stamp", "sender", "bubble", "announcement"
        self.buffer: list[str] = []
        # Where the last record ended (in UTF-8 bytes), and the elements open there: a grown file's new
        # records follow.
        self.closed: tuple[int, list[tuple[str, frozenset[str]]]] = (0, [])
        # The bubble's text since the last tag (a run of the page's text), where it started, and its length;
        # where it is long, the run held (``_Hold``); ``whole``: the record is read whole (not held).
        self.run: list[str] = []
        self.run_start = 0
        self.run_chars = 0
        self.hold: _Hold | None = None
        self.whole = False

    def take(self, text: str) -> list[_Record]:
        """Feeds ``text`` (the next piece of the page); the records it ended. Then lets go of the text
        before what the parser has yet to read and before the record being read."""
        base = self.fed
        self.window += text
        self.line_starts += [base + m.end() for m in re.finditer("\n", text)]
        self.fed += len(text)
        self.feed(text)
        done, self.done = self.done, []
        read = self.fed - len(self.rawdata)
        if self.hold is None and self.run_chars > linelog.SPILL and not self.whole:
            self._start_hold(read)
        elif self.hold is not None and self.hold.end is None:
            self._held_to(read)
        keep = self.record_start if self.record_depth is not None else read
        if self.hold is not None:  # the record's text before the run is in ``hold.head``
            keep = self.hold.verified if self.hold.end is None else self.hold.end
        self._bytes_to(keep)
        self.window = self.window[keep - self.at :]
        self.at = keep
        first = bisect.bisect_right(self.line_starts, keep) - 1
        if first > 0:
            del self.line_starts[:first]
            self.first_line += first
        return done

    def _start_hold(self, read: int) -> None:
        """Holds the bubble's run of text read so far in a file, where it is the record's text alone so far
        (nothing before it but white space), does not start as an edit's note does, and is written in the
        page as ``_WRITE`` writes it; else the record is read whole."""
        record = self.record
        prefix = "".join(self.buffer[: len(self.buffer) - len(self.run)])
        text = "".join(self.run)
        body = text.lstrip(_STRIPPED)
        if (
            record is None
            or record.lines
            or record.files
            or prefix.strip(_STRIPPED)
            or not body
            or body.startswith(_EDITED)
            or _WRITE(text) != self.window[self.run_start - self.at : read - self.at]
        ):
            self.whole = True
            return
        head = self.window[self.record_start - self.at : self.run_start - self.at]
        self.hold = _Hold(linelog.Spool(), head, prefix, read)
        self.hold.add(text)
        self.buffer, self.run = [prefix], []

    def _held_to(self, read: int) -> None:
        """Writes the run's text read since it was last written (up to ``read``), where the page writes it
        as ``_WRITE`` does; else the record is read whole."""
        hold = self.hold
        assert hold is not None
        text = "".join(self.run)
        if _WRITE(text) != self.window[hold.verified - self.at : read - self.at]:
            self._unhold()
            return
        hold.add(text)
        hold.verified, self.run = read, []

    def _unhold(self) -> str:
        """The run held read whole, the page's text of the record put back (the run's text was checked to
        be written as ``_WRITE`` writes it); the record is read whole from here. Its text whole."""
        hold = self.hold
        assert hold is not None
        text = hold.whole()
        rest = hold.verified if hold.end is None else hold.end
        self.window = hold.head + _WRITE(text) + self.window[rest - self.at :]
        self.at = self.record_start
        if hold.end is None:  # the run goes on
            self.buffer = [hold.prefix, text, *self.run]
        self.hold, self.whole = None, True
        return text

    def _tag(self) -> None:
        """A tag ends the run of text before it: a run held ends there (the page's text from there on is the
        record's again)."""
        hold = self.hold
        if hold is not None and hold.end is None:
            end = self._position()
            text = "".join(self.run)
            if _WRITE(text) == self.window[hold.verified - self.at : end - self.at]:
                hold.add(text)
                hold.verified = hold.end = end
            else:
                self._unhold()
        if self.run:  # a new list at every tag cost the reading of an ordinary page a few per cent
            self.run, self.run_chars = [], 0

    def _bytes_to(self, end: int) -> int:
        chars, count = self.counted
        if end > chars:
            count += len(self.window[chars - self.at : end - self.at].encode("utf-8", "surrogatepass"))
            self.counted = (end, count)
        return count

    def _position(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - self.first_line] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tag()
        classes = frozenset((dict(attrs).get("class") or "").split())
        void = tag in _VOID
        if not void:
            self.stack.append((tag, classes))
        depth = len(self.stack)
        if self.record_depth is None:
            if tag == "div" and classes & {"message", "announcement"}:
                self.record_depth = depth
                self.record_start = self._position()
                system = "announcement" in classes
                self.record = _Record("", None, kind=Kind.SYSTEM if system else Kind.TEXT)
                self.capture = "announcement" if system else None
                self.buffer = []
            return
        if self.skip_depth is not None or self.record is None:
            return
        record = self.record
        if classes & _SKIPPED and not void:
            self.skip_depth = depth
            record.reply |= "reply_context" in classes
        elif tag == "span" and "timestamp" in classes:
            self._start("stamp")
        elif tag == "span" and "sender" in classes:
            self._start("sender")
        elif "message_part" in classes:
            self._start("bubble")
        elif tag == "br" and self.capture:
            self.buffer.append("\n")
        elif tag in _MEDIA or (tag == "a" and self.capture == "bubble"):
            source = dict(attrs).get("src") or dict(attrs).get("href")
            if source:
                record.files.append(source)

    def _start(self, what: str) -> None:
        self._flush()
        self.capture = what

    def _flush(self) -> None:
        record = self.record
        if self.capture is None or self.record_depth is None or record is None:
            return
        text = "".join(self.buffer)
        if self.capture == "stamp":
            m = _STAMP.fullmatch(" ".join(text.split()))
            record.stamp = m["stamp"] if m else text.strip()
            if record.kind == Kind.SYSTEM:
                self.capture, self.buffer = "announcement", []
                return
        elif self.capture == "sender":
            record.sender = text.strip()
        elif self.capture == "bubble":
            hold = self.hold
            if hold is not None and record.held is None:
                if text.strip(_STRIPPED):  # more text than the run's: read whole
                    text = hold.prefix + self._unhold() + text[len(hold.prefix) :]
                else:  # the run's text, stripped, is the bubble's, its record's first: held (``_held_record``)
                    record.held = hold.spool.held("", "")
                    self.capture, self.buffer = None, []
                    return
            text = text.strip(_STRIPPED)
            if text == _DELETED:
                record.kind = Kind.DELETED
            elif text:
                record.lines.append(text)
        elif self.capture == "announcement":
            text = " ".join(text.split())
            if text:
                record.lines.append(text)
        self.capture, self.buffer = None, []

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        self._tag()
        if tag in _VOID:
            return
        match = next((i for i in range(len(self.stack) - 1, -1, -1) if self.stack[i][0] == tag), None)
        if match is None:
            return
        depth = match + 1
        del self.stack[match:]
        if self.skip_depth is not None and depth <= self.skip_depth:
            self.skip_depth = None
        if self.record_depth is None or self.record is None:
            return
        if (self.capture in ("stamp", "sender") and tag == "span") or (
            self.capture == "bubble" and tag == "div" and "message_part" not in self._classes()
        ):
            self._flush()
        if depth <= self.record_depth:
            self._flush()
            end = self.window.find(">", self._position() - self.at) + 1 + self.at
            record = self.record
            if self.hold is not None and (raw := self._held_record(end)) is not None:
                record.raw = raw
            else:
                if self.hold is not None:  # the held bubble's text is the record's first line
                    record.lines.insert(0, self._unhold().strip(_STRIPPED))
                    record.held = None
                record.raw = self.window[self.record_start - self.at : end - self.at]
            self.done.append(record)
            self.record, self.record_depth, self.hold, self.whole = None, None, None, False
            self.closed = (self._bytes_to(end), list(self.stack))

    def _classes(self) -> frozenset[str]:
        return frozenset().union(*(c for _, c in self.stack))

    def _held_record(self, end: int) -> str | None:
        """The record of a bubble held whose text is the record's (no other text, no attachment), its text
        written ``_HELD_WRITTEN``; None where it is not, or where the rest of the record or the text holds
        what the archive's cut of the record would take for its text (``storage.raw.cut``): read whole."""
        hold, record = self.hold, self.record
        assert hold is not None and hold.end is not None and record is not None
        if record.held is None or record.lines or record.files:
            return None
        around = (hold.head + hold.lead, hold.pending + self.window[hold.end - self.at : end - self.at])
        if (
            hold.spool.chars <= LONG_TEXT
            or any(
                linelog.UNHELD.search(part) or _HELD_WRITTEN in part or _JSON_HELD in part for part in around
            )
            or hold.spool.holds(linelog.UNHELD_BYTES)
        ):
            return None
        return around[0] + _HELD_WRITTEN + around[1]

    def handle_data(self, data: str) -> None:
        if self.capture is not None and self.skip_depth is None:
            if self.capture == "bubble":
                if not self.run:
                    self.run_start = self._position()
                self.run.append(data)
                self.run_chars += len(data)
                if self.hold is not None and self.hold.end is None:
                    return  # held (``_held_to``)
            self.buffer.append(data)


class _HtmlReading:
    """One reading of an HTML conversation from ``offset`` (``stack``: the elements open there; ``before``:
    the messages before it): its records as the file streams in, a piece at a time, and, once they are
    read, where the last ended (bytes from ``offset``) and the elements open there."""

    def __init__(
        self, path: Path, offset: int, stack: list[tuple[str, frozenset[str]]], before: int, chunk: int
    ) -> None:
        self.path = path
        self.offset = offset
        self.before = before
        self.chunk = chunk
        self.parser = _Html(list(stack))
        self.count = 0  # the records read
        self.utf8 = True  # whether the text was UTF-8 without a BOM (its offsets are the mark's)

    def _chunks(self) -> Iterator[bytes]:
        pieces: Iterator[bytes] = iter_file_chunks(self.path, self.offset)
        if not self.offset:  # a reading from a mark on reads UTF-8 (``_html``)
            pieces = telling(pieces, self._told)
        for piece in pieces:
            for start in range(0, len(piece), self.chunk):
                yield piece[start : start + self.chunk]

    def _told(self, encoding: Encoding) -> None:
        self.utf8 = encoding == Encoding("utf-8", 0)

    def records(self) -> Generator[_Record, None, None]:
        parser = self.parser
        for text in decoded_chunks(self._chunks(), self.path, legacy=True, bom=not self.offset):
            yield from self._checked(parser.take(text))
        parser.close()
        yield from self._checked(parser.done)
        if parser.record_depth is not None:
            raise InputError(self.path, "the file ends inside a message: cut short")

    def _checked(self, records: list[_Record]) -> Iterator[_Record]:
        for record in records:
            self.count += 1
            if not _STAMP.fullmatch(record.stamp):
                number = self.before + self.count
                raise InputError(self.path, f"message {number} has no readable timestamp ({record.stamp!r})")
            if record.kind != Kind.SYSTEM and record.sender is None:
                record.sender = ""
            record.told(record.lines)
            yield record


# The text fed to the HTML parser at a time (characters' bytes): the page is never held whole.
_HTML_PIECE = 1 << 20


def _html(path: Path, tz: tzinfo, after: Mark | None, chunk: int = _HTML_PIECE) -> ChatExport:
    """An HTML conversation, read whole, or from ``after`` on: a mark an earlier reading left just after its
    last message (the file's closing tags follow it, and a grown file's new messages come there), holding
    the elements open there, the others who wrote (up to two: the chat's kind) and the messages before it
    (``Mark.read``). A mark is left only in a UTF-8 file (its offsets are the text's). Streamed: read twice
    where the chat's kind is not told by its first messages (as the TXT is)."""
    state = json.loads(after.state) if after is not None else {}
    if after is not None and (after.read is None or "stack" not in state):
        raise NotResumable
    offset = after.offset if after is not None else 0
    before = after.read if after is not None and after.read is not None else 0
    stack = [(t, frozenset(c)) for t, c in state.get("stack", [])]
    if after is not None:
        try:  # the bytes after the mark are checked before any message is given (NotResumable)
            for _ in decoded_chunks(iter_file_chunks(path, offset), path, bom=False):
                pass
        except InputError:
            raise NotResumable from None

    def reading() -> _HtmlReading:
        return _HtmlReading(path, offset, stack, before, chunk)

    others = set(state.get("others", []))
    if len(others) < 2:  # the kind is told by the records read before it is given
        first = reading()
        others = _told(first.records(), others)
        if after is None and not first.count:
            raise _no_messages(path)
    last = reading()

    def end() -> Mark | None:
        if not (last.utf8 and last.count):
            return None
        closed, open_there = last.parser.closed
        kept = {"stack": [[t, sorted(c)] for t, c in open_there], "others": sorted(others)[:2]}
        return Mark(offset + closed, json.dumps(kept, ensure_ascii=False), read=before + last.count)

    return ChatExport(_chat(path, others), (_message(r, tz, path) for r in last.records()), end)
