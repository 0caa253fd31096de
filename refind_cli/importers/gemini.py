"""Gemini Apps activity from Google Takeout (My Activity -> Gemini Apps, FORMATS.md §4c):
``Takeout/My Activity/Gemini Apps/MyActivity.json`` or ``MyActivity.html`` (Takeout names them in the
account's language: ``Meine Aktivitäten/Gemini-Apps/MeineAktivitäten.html``), loose, in its folder or in the
Takeout zip.

The JSON is a list of entries, newest first: ``{header: "Gemini Apps", title, time (ISO, UTC),
safeHtmlItem: [{html}], attachedFiles, imageFile, subtitles, products, activityControls}``. The HTML is the
same entries as cards (``div.outer-cell``): a header, then a cell holding the title, the time as the
account's locale writes it, and the reply. Both are read; the JSON is preferred where a zip holds both.

What an entry is, is said by its title, in the account's language (``TITLES``): ``Prompted <prompt>``
(German ``Eingegebener Prompt: <prompt>``, and the other verbs seen) is a prompt, the person's own message
(``Message.own``), followed by Gemini's reply, the ``safeHtmlItem`` HTML made readable (``htmltext``). Other
activity (``Used …``, ``Created …``, ``Selected …``, ``Gave feedback …``) is kept as a system record, the
person's own like every entry of My Activity. A title in a language refind does not know is kept as a system
record too, its text as written, and one warning says how many there were: no prompt is lost, and none is
invented. Attached files and images (``attachedFiles``, ``imageFile``, a title ending ``Attached 2 files.``)
make the prompt ``Kind.ATTACHMENT``, their names in its text.

Conversations: Takeout does not say which prompts belong together, so entries are grouped by time: a silence
longer than ``GAP`` starts a new conversation (a chat of its own, named after its first prompt, keyed by its
first entry's time to the second, which the JSON and the HTML agree on). ``GAP`` is the session gap refind
cuts every chat with (``refind import --session-gap``, default one hour; measured for assistant chats in
bench/assistant_sessions.py, see chatgpt.py): a conversation is then exactly one session, so grouping
changes nothing in what search returns, and ``refind chats`` lists the conversations a person remembers.
A later export adds entries after the last: a conversation that continues keeps its key and gains messages.
A loose JSON file is read by its entries' bytes (``_Scan``): each entry's time is read alone, the entries are
grouped as above, and a conversation whose entries' bytes an earlier import fingerprinted is not parsed: a
grown export costs the walk of its bytes and the parse of its new and changed conversations.

Times in the JSON are UTC. The HTML writes wall-clock times with a zone abbreviation (``CEST``, ``MESZ``) of
the machine that made the export: read in ``--tz``, except ``UTC``/``GMT``.
"""

from __future__ import annotations

import array
import base64
import collections
import contextlib
import itertools
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import conversations, htmltext, jsonstream
from refind_cli.importers.container import (
    CHUNK,
    Encoding,
    decoded_chunks,
    file_encoding,
    files_matching,
    fingerprint,
    is_zip,
    iter_file_chunks,
    iter_member_chunks,
    may_name,
    member_head,
    member_of,
    open_zip,
    read_file_part,
    sniff_head,
    spooled,
    told_encoding,
    utf8_head,
)
from refind_cli.importers.conversations import as_dict, as_list, dump, iso_time, join, text_of
from refind_cli.records import Chat, ChatExport, Kind, Message

if TYPE_CHECKING:
    import mmap

FORMAT = "gemini"
WHAT = "a Gemini activity export (Google Takeout, My Activity)"
GAP = timedelta(hours=1)
ASSISTANT = "Gemini"
YOU = "You"
NAME_CHARS = 60
SNIFF_BYTES = 64 << 10
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Titles:
    """How one language's titles start: a prompt (the longer of two that share a start first), and the
    other activity kinds."""

    prompt: tuple[str, ...]
    other: tuple[str, ...]


# Only titles seen in real exports, never guessed: FORMATS.md §4c ("Prompted", German "Eingegebener Prompt:",
# "Used", "Created", "Selected", "Gave feedback"), and the verbs open-source readers written from real exports
# report (420AI's gemini-export.ts, llm-aggregator's geminiTakeout.ts, as summed up in a third reader's notes):
# "Asked", "Said", "Branched", "Answered", Bard-era "Prompted with:", "Asked Gemini:", "Asked Bard:"; and
# "Added", "Shared", "Deleted" among the other kinds. A language is added here when its titles are seen.
TITLES = {
    "en": Titles(
        (
            "Prompted with: ",
            "Asked Gemini: ",
            "Asked Bard: ",
            "Prompted ",
            "Asked ",
            "Said ",
            "Branched ",
            "Answered ",
        ),
        ("Used ", "Created ", "Selected ", "Gave feedback", "Added ", "Shared ", "Deleted "),
    ),
    "de": Titles(("Eingegebener Prompt: ",), ()),
}
# A prompt's title can end with the files attached to it; they are not the person's words.
_ATTACHED = re.compile(r"\s*Attached \d+ files?\.\s*$")

# The product's name in the header, in any language ("Gemini Apps", "Gemini-Apps"; "Bard" before 2024).
# The product is named in each entry's header, and again in its products (which stays where a tool that
# rewrote the file dropped the header).
_JSON_SNIFF = (
    re.compile(rb'"(?:header"\s*:\s*"|products"\s*:\s*\[\s*")[^"]{0,40}(?:Gemini|Bard)'),
    re.compile(rb'"title"\s*:\s*"'),
)
_HTML_SNIFF = re.compile(rb'class="header-cell[^"]*"[^>]*>\s*<p[^>]*>[^<]{0,40}(?:Gemini|Bard)', re.I)
_PRODUCT_WORDS = ("gemini", "bard")
_PRODUCT_FOLDER = re.compile("|".join(_PRODUCT_WORDS), re.I)
# The card's patterns, over the UTF-8 bytes of the page's text (``_Page``): ASCII, which no byte of another
# character holds. A ``div`` in any case as ``re.I`` finds it in the text: the Turkish dotted and dotless i
# (written \xc4\xb0, \xc4\xb1) are the only other letters it takes for one of the name's (``_divs``).
_CONTENT_CELL = re.compile(
    rb'<div class="content-cell[^"]*mdl-cell--6-col[^"]*body-1(?![^"]*text-right)[^"]*">'
)
_DIV = re.compile(rb"<(/?)[dD](?:[iI]|\xc4[\xb0\xb1])[vV](?![0-9A-Za-z_])")
_WORD = re.compile(r"\w")
_BR = re.compile(r"<br\s*/?>", re.I)
_MONTHS = {m: n for n, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), start=1)}
# The HTML's times by locale: English "Apr 18, 2026, 5:38:51 PM CEST", German "18.04.2026, 17:38:51 MESZ".
_STAMPS = (
    re.compile(
        r"(?P<mon>[A-Z][a-z]{2}) (?P<d>\d{1,2}), (?P<y>\d{4}), (?P<h>\d{1,2}):(?P<mi>\d\d):(?P<s>\d\d)"
        r"[ \u202f\xa0](?P<ampm>AM|PM) (?P<zone>\S+)"
    ),
    re.compile(
        r"(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4}), (?P<h>\d{1,2}):(?P<mi>\d\d):(?P<s>\d\d) (?P<zone>\S+)"
    ),
)
_UTC_ZONES = frozenset({"UTC", "GMT", "Z"})
_PIECE = 64 << 10  # the bytes of the page decoded at a time (``_Page``)


@dataclass(frozen=True, slots=True)
class Entry:
    """One activity entry, from the JSON or the HTML."""

    when: datetime  # aware UTC
    title: str
    reply: str  # readable text
    reply_raw: str  # the reply as written (the safeHtmlItem list, or the HTML)
    files: tuple[str, ...]
    raw: str  # the entry as written
    place: str


# --- where the file is -----------------------------------------------------------------------------------


def _member(zf: zipfile.ZipFile) -> str | None:
    """The zip's Gemini activity file: in a folder named for Gemini, the JSON before the HTML."""
    if not may_name(zf, _PRODUCT_WORDS):  # most zips name no such folder
        return None
    # In a folder whose name holds the product's (``_PRODUCT_FOLDER``).
    inside = f"(?:.*/)?[^/\n]*(?:{_PRODUCT_FOLDER.pattern})[^/\n]*/[^/\n]*\\.(?:json|html)"
    found = files_matching(zf, inside, re.IGNORECASE)
    return min(found, key=lambda n: (not n.lower().endswith(".json"), n.count("/"), n)) if found else None


def _head(path: Path) -> tuple[bytes, str]:
    """The first bytes of the activity file and its name; (b"", "") if there is none. Never raises."""
    try:
        if is_zip(path):
            with open_zip(path) as zf:
                name = _member(zf)
                if name is None:
                    return b"", ""
                return utf8_head(member_head(zf, name, path, SNIFF_BYTES)), name
        return sniff_head(path, SNIFF_BYTES), path.name
    except (InputError, OSError, ValueError):
        return b"", ""


def _in_folder(folder: Path) -> Path | None:
    """The activity file directly in ``folder`` (the unpacked ``Gemini Apps`` folder), the JSON first; None
    if there is none. Never raises. A folder is taken, not only the file, so that walking an unpacked Takeout
    finds Gemini's ``MyActivity.html`` without taking every other product's for an export. Only a folder
    named for Gemini (as Takeout names it in every language) is looked into: a sniff runs on every folder
    walked, and must not read the heads of a thousand JSON files."""
    if not _PRODUCT_FOLDER.search(folder.name):
        return None
    try:
        files = [p for p in folder.iterdir() if p.suffix.lower() in (".json", ".html") and p.is_file()]
    except OSError:
        return None
    for file in sorted(files, key=lambda p: (p.suffix.lower() != ".json", p.name)):
        head, _ = _head(file)
        if _is_json(head) or _HTML_SNIFF.search(head):
            return file
    return None


def _is_json(head: bytes) -> bool:
    head = head.lstrip()
    return head[:1] == b"[" and all(p.search(head) for p in _JSON_SNIFF)


def sniff(path: Path) -> bool:
    if path.is_dir():
        return _in_folder(path) is not None
    head, _ = _head(path)
    return _is_json(head) or bool(_HTML_SNIFF.search(head))


# --- reading ---------------------------------------------------------------------------------------------


def read(path: Path, *, tz: tzinfo, known: Collection[str] = ()) -> Iterator[ChatExport]:
    """``known``: the conversations' fingerprints that earlier readings left (``_Scan``): a conversation whose
    entries' bytes are those of one of them is told from it, its entries parsed only where its messages are
    asked for."""
    if path.is_dir():
        found = _in_folder(path)
        if found is None:
            raise InputError(path, f"no Gemini Apps activity file in this folder; not {WHAT}")
        path = found
    head, name = _head(path)
    unread = _Unread(path)
    with contextlib.ExitStack() as stack:
        # A zipped file is walked from a copy on disk (``container.spooled``), its errors named as the zip's.
        on_disk = spooled(path / name, stack) if _is_json(head) and is_zip(path) else path
        shown = (path, f"entry {name!r}") if on_disk != path else None
        if (
            _is_json(head)
            and on_disk is not None
            and (scan := _Scan.of(on_disk, jsonstream.start_in(known), shown)) is not None
        ):
            with contextlib.closing(scan):
                yield from scan.conversations(_told(known), unread)
            unread.warn()
            return
    if _HTML_SNIFF.search(head) and not _is_json(head):
        yield from _html_conversations(path, tz, known, unread)
        unread.warn()
        return
    if _is_json(head):
        entries = list(_json_entries(path))
    else:
        raise InputError(path, f"no Gemini Apps activity here; not {WHAT}")
    entries.sort(key=lambda e: e.when)  # newest first in the file
    for group in _grouped(entries, lambda e: e.when):
        yield _conversation(group, unread)
    unread.warn()


def _grouped(items: list[_T], when: Callable[[_T], datetime]) -> Iterator[list[_T]]:
    """Items in time order, cut where a silence is longer than ``GAP``: the conversations."""
    group: list[_T] = []
    for item in items:
        if group and when(item) - when(group[-1]) > GAP:
            yield group
            group = []
        group.append(item)
    if group:
        yield group


# --- a loose JSON file, by its entries' bytes ----------------------------------------------------------------

# The kind of a conversation's fingerprint: the hash of its entries' bytes, then its name (``_told``).
_PRINTS = "gemini-entries-1"


@dataclass(frozen=True, slots=True)
class _Placed:
    """An entry found by its bytes: its time (read alone), where it lies, its index in the list."""

    when: datetime
    start: int
    end: int
    index: int


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_GAP_US = GAP // _MICROSECOND
# Entries grouped by numpy from this many on; fewer by Python's sort, equally stable: a re-import reads the
# thousand entries before its head, and importing numpy for them cost 0.1-0.2 s of CPU (resume15).
_NUMPY_FROM = 50_000


class _Timeline:
    """The entries of a file found by their bytes, in the file's order: each one's time (read alone), where
    it lies and its index in the list, packed in arrays (32 bytes an entry: a million entries held as
    ``_Placed`` objects took 124 MB before the first conversation was read), and the conversations they
    make, grouped in time order as a whole reading groups them (``_grouped``)."""

    def __init__(self) -> None:
        self.micros = array.array("q")  # the time, in microseconds from the epoch (exact: ``_time``)
        self.start = array.array("q")
        self.end = array.array("q")
        self.index = array.array("q")
        self._groups: list[Any] | None = None

    def add(self, when: datetime, start: int, end: int, index: int) -> None:
        self.micros.append((when - _EPOCH) // _MICROSECOND)
        self.start.append(start)
        self.end.append(end)
        self.index.append(index)

    def time(self, at: int) -> datetime:
        return _EPOCH + timedelta(microseconds=self.micros[at])

    def near(self, when: datetime) -> bool:
        """Whether an entry is later than ``when`` by ``GAP`` or less (or earlier)."""
        return bool(self.micros) and _EPOCH + timedelta(microseconds=min(self.micros)) - when <= GAP

    def groups(self) -> list[Any]:
        """The conversations in time order, each the entries' places in the file's order (arrays of them),
        in time order; stable, as ``list.sort``: entries of the same time in the file's order."""
        if self._groups is None and len(self.micros) < _NUMPY_FROM:
            micros = self.micros
            order = sorted(range(len(micros)), key=micros.__getitem__)
            cuts = [i for i in range(1, len(order)) if micros[order[i]] - micros[order[i - 1]] > _GAP_US]
            self._groups = (
                [order[a:b] for a, b in itertools.pairwise([0, *cuts, len(order)])] if order else []
            )
        elif self._groups is None:
            import numpy as np

            times = np.array(self.micros, dtype=np.int64)
            ranked = np.argsort(times, kind="stable")
            self._groups = (
                np.split(ranked, np.flatnonzero(np.diff(times[ranked]) > _GAP_US) + 1) if len(ranked) else []
            )
        return self._groups

    def places(self, tail: _Placed | None, size: int) -> Iterator[tuple[int, int] | None]:
        """Each conversation's place in turn (``_Scan``'s notes), None where there is none: (its offset
        counted from the end of the file of ``size`` bytes, the index of the entry there). ``tail``: the
        newest entry after the place the reading stopped at."""
        n = len(self.micros)
        # Before the first conversation: the tail the walk stopped at, else the end of the list's last entry.
        first = (tail.start, tail.index) if tail else (self.end[-1], self.index[-1]) if n else None
        yield None if first is None else (first[0] - size, first[1])
        lowest, newest, count = n, None, 0
        for group in self.groups():
            count += len(group)
            lowest = min(lowest, min(self.index[p] for p in group))
            last = self.micros[group[-1]]
            newest = last if newest is None else max(newest, last)
            there = n - count
            whole = self.index[there] == lowest and self.micros[there] == newest
            yield (self.start[there] - size, self.index[there]) if whole else None


class _Scan:
    """The entries of a loose JSON file found by the shared scanner (``jsonstream.Items``), each one's time read
    from its bytes alone: grouped as a whole reading groups them, a conversation is known by the hash of its
    entries' bytes, and its entries are parsed (their HTML made readable) only where it is read. A grown
    export changes at its top (newest first), so the older conversations are found again by their bytes.

    Each conversation's place (``ChatExport.at``, counted from the file's end: ``ingest.resume.Head``) is
    where the entries of the conversations before it begin, where they are the last of the list and the
    first of them is their newest. An import whose file ends with the bytes after such a place (``tail``:
    the ledger's pass hashed them) takes their conversations as they are, and the walk stops there: the
    entries before it are all later than that newest one by more than ``GAP``, so they are grouped as a whole
    reading groups them."""

    def __init__(
        self,
        items: jsonstream.Items,
        placed: _Timeline,
        size: int,
        tail: _Placed | None,
        shown: tuple[Path, str] | None,
    ) -> None:
        self.items = items
        self.placed = placed
        self.size = size
        self.tail = tail
        self.shown = shown
        path, entry = shown or (items.path, None)
        self.reader = conversations.Reader(iter(()), path, entry, WHAT)

    @classmethod
    def of(
        cls, path: Path, start: jsonstream.Head | None = None, shown: tuple[Path, str] | None = None
    ) -> _Scan | None:
        """The scan of a loose file; None where its bytes are not as this walk takes them (a zip, a BOM-less
        other encoding, an entry that is no object, a time it cannot read alone): the whole reading reads it,
        and says what is wrong where something is. ``start``: the place after which the entries are those of
        conversations an earlier import read (``ingest.resume.Prints.known``): the walk stops there where
        it can (else it goes on to the end, and those conversations are read again, to the same rows).
        ``shown``: the zip and entry ``path`` is a copy of (errors name them; no place is left in a copy)."""
        if not path.is_file() or member_of(path) is not None:
            return None
        items = jsonstream.Items(path, [()], ())
        placed = _Timeline()
        index = 0
        tail = None
        while (begun := items.begin()) is not None:
            if start is not None and begun == start.offset:
                tail = _after(items, begun, index, placed)
                if tail is not None:
                    break
            found = _timed(items, begun)
            if found is not None:
                end, when = found
                if when is None:
                    break
                placed.add(when, begun, end, index)
            else:  # a null entry is passed over, as the whole reading passes it
                skipped = items.end_of(begun)
                if skipped is None or items.read(begun, skipped) != b"null":
                    break
                end = skipped
            items.ended(end)
            index += 1
        if not items.whole and tail is None:
            items.close()
            return None
        return cls(items, placed, path.stat().st_size, tail, shown)

    def conversations(self, told: dict[str, str], unread: _Unread) -> Iterator[ChatExport]:
        placed = self.placed
        places = placed.places(self.tail, self.size) if self.shown is None else itertools.repeat(None)
        for group, at in zip(placed.groups(), places, strict=False):
            # Each entry's bytes read once, from the file (``Items.fetch``): hashed, and parsed where needed.
            spans = [(placed.start[p], placed.index[p]) for p in group]
            data = [self.items.fetch(placed.start[p], placed.end[p]) for p in group]
            digest = fingerprint(data)
            key = _key(placed.time(group[0]))
            if digest in told:
                chat = Chat(FORMAT, key, told[digest], kind="direct")
                text = " ".join((_PRINTS, digest, _tail(chat.name)))
                yield ChatExport(chat, self._later(spans, data, unread), fingerprint=text, at=at)
                continue
            export = _conversation(self._entries(spans, data), unread)
            yield export._replace(fingerprint=" ".join((_PRINTS, digest, _tail(export.chat.name))), at=at)

    def _later(self, spans: list[tuple[int, int]], data: list[bytes], unread: _Unread) -> Iterator[Message]:
        yield from _conversation(self._entries(spans, data), unread).messages

    def _entries(self, spans: list[tuple[int, int]], data: list[bytes]) -> list[Entry]:
        """The entries of ``data``, their bytes, that begin and stand in the list where ``spans`` say."""
        entries = []
        for (start, index), raw in zip(spans, data, strict=True):
            where = f"[{index}]"
            obj = self.reader.one(raw, start, where)
            entries.append(_json_entry(obj, where, self.reader.error))
        return entries

    def close(self) -> None:
        self.items.close()


def _after(items: jsonstream.Items, start: int, index: int, placed: _Timeline) -> _Placed | None:
    """The entry at ``start``, the newest of those after a place an earlier import left, where every entry
    placed before it is later than it by more than ``GAP`` (none of them joins its conversation, nor sorts
    among the entries after it); else None."""
    found = _timed(items, start)
    if found is None or found[1] is None or placed.near(found[1]):
        return None
    return _Placed(found[1], start, found[0], index)


def _timed(items: jsonstream.Items, start: int) -> tuple[int, datetime | None] | None:
    """The end of the entry at ``start`` and its time, read from its bytes alone where the whole reading's
    parser would read the same: a plain string (no escape: any parser reads it alike) under the one key
    spelt ``time`` (None where it is not); None where the entry is no object."""
    found = items.member(start, b'"time"')
    if found is not None:
        end, span = found
    elif (members := items.members(start)) is not None:
        end, spans = members
        if any(b"\\" in key for key in spans) or b'"time"' not in spans:
            return end, None
        span = spans[b'"time"']
    else:
        return None
    raw = items.read(*span)
    if b"\\" in raw or raw[:1] != b'"':
        return end, None
    try:
        return end, iso_time(raw[1:-1].decode())
    except UnicodeDecodeError:
        return end, None


def _tail(name: str) -> str:
    return base64.urlsafe_b64encode(name.encode()).decode()


def _told(known: Collection[str]) -> dict[str, str]:
    """The conversations' names that ``_Scan.conversations`` and ``_html_conversations`` told in their
    fingerprints, by their entries' hash."""
    found = {}
    for text in known:
        kind, digest, tail = [*text.split(" "), "", ""][:3]
        if kind in (_PRINTS, _PRINTS_HTML):
            with contextlib.suppress(ValueError):
                found[digest] = base64.urlsafe_b64decode(tail.encode()).decode()
    return found


def _key(first: datetime) -> str:
    """A conversation's key: its first entry's time to the second (which the JSON and the HTML agree on)."""
    return first.replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def _json_entries(path: Path) -> Iterator[Entry]:
    with contextlib.ExitStack() as stack:
        if is_zip(path):
            zf = stack.enter_context(open_zip(path))
            name = _member(zf)
            assert name is not None  # sniffed
            chunks, entry = iter_member_chunks(zf, name, path), f"entry {name!r}"
        else:
            chunks, entry = iter_file_chunks(path), None
        stack.enter_context(contextlib.closing(chunks))
        reader = conversations.Reader(chunks, path, entry, WHAT)
        for where, obj in reader.conversations():
            yield _json_entry(obj, where, reader.error)


def _json_entry(obj: dict[str, Any], where: str, error: Callable[[str, str | None], InputError]) -> Entry:
    when = iso_time(obj.get("time"))
    if when is None:
        raise error("an entry without a readable time", f"{where}.time")
    items = as_list(obj.get("safeHtmlItem"))
    reply = join(*(htmltext.page_text(text_of(as_dict(i).get("html"))) for i in items))
    files = [text_of(f) or text_of(as_dict(f).get("name")) for f in as_list(obj.get("attachedFiles"))]
    files.append(text_of(obj.get("imageFile")))
    return Entry(
        when=when,
        title=text_of(obj.get("title")),
        reply=reply,
        reply_raw=dump(items) if items else "",
        files=tuple(f for f in files if f),
        raw=dump(obj),
        place=where,
    )


# The kind of an HTML conversation's fingerprint: the hash of its cards as written, then its name.
_PRINTS_HTML = "gemini-cards-1"


def _html_conversations(
    path: Path, tz: tzinfo, known: Collection[str], unread: _Unread
) -> Iterator[ChatExport]:
    """The HTML's conversations, each with the fingerprint of its cards (one ``known`` fingerprinted is told
    from it) and, in a loose UTF-8 file, its place as the JSON's (``_Scan``, ``_Timeline.places``): where
    ``known`` holds one (``jsonstream.start_in``), only the cards before it are read, if the newest after it
    is older than each of them by more than ``GAP``.

    The page is read as the JSON is, by its bytes: a walk finds each card and reads its time alone
    (``_Page.cards``), and each conversation's cards are read again where it is made. What is held is the
    cards' times and places, and one conversation's cards: not the page (at a million messages, its text and
    every card's entry took gigabytes)."""
    start = jsonstream.start_in(known)
    utf8 = member_of(path) is None and not is_zip(path)
    utf8 = utf8 and file_encoding(path) == Encoding("utf-8", 0)
    with contextlib.ExitStack() as stack:
        page, tail = None, None
        if start is not None and utf8:
            page = stack.enter_context(_Page(path, start.offset))
            placed, cells = page.cards(tz)
            tail = _html_after(path, start.offset, tz, placed)
        if page is None or tail is None:
            if page is not None:
                page.close()
            page = stack.enter_context(_Page(path))
            placed, cells = page.cards(tz)
            if not placed.micros:
                raise InputError(path, f"no activity cards; not {WHAT}", page.where)
        size = path.stat().st_size if utf8 else 0
        places = placed.places(tail, size) if utf8 else itertools.repeat(None)
        import xxhash  # only a reading of the HTML pays for the hash

        told = _told(known)
        for group, place in zip(placed.groups(), places, strict=False):
            written = [page.read(cells[2 * p], cells[2 * p + 1]) for p in group]
            digest = xxhash.xxh3_128_hexdigest(b"\x00".join(written))
            # Each card's time was read by the walk: ``_html_entry`` raises nothing here.
            entries = [
                _html_entry(cell.decode(), tz, path, None, placed.index[p] + 1)
                for p, cell in zip(group, written, strict=True)
            ]
            if digest in told:
                chat = Chat(FORMAT, _key(placed.time(group[0])), told[digest], kind="direct")
                export = ChatExport(chat, _conversation(entries, unread).messages)
            else:
                export = _conversation(entries, unread)
            text_print = " ".join((_PRINTS_HTML, digest, _tail(export.chat.name)))
            yield export._replace(fingerprint=text_print, at=place)


class _Page:
    """The text of an HTML file (of its first ``size`` bytes, where given) as UTF-8 bytes in a file, mapped:
    the file itself where they are its own (a loose file in UTF-8 without a BOM), else a temporary copy (a
    zip's entry, UTF-16, a BOM). The text is checked as ``decode_text`` checks it, a piece at a time: the
    same error, at the same line, and the same warning."""

    def __init__(self, path: Path, size: int | None = None) -> None:
        import mmap

        self.path = path
        self.where: str | None = None
        self._stack = contextlib.ExitStack()
        try:
            text = self._text(size)
            self._file = self._stack.enter_context(text.open("rb"))
            length = os.fstat(self._file.fileno()).st_size
            self.buf: bytes | mmap.mmap = (
                mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if length else b""
            )
        except BaseException:
            self._stack.close()
            raise
        self.end = len(self.buf) if size is None else min(size, len(self.buf))

    def _text(self, size: int | None) -> Path:
        with contextlib.ExitStack() as reading:
            if is_zip(self.path):
                zf = reading.enter_context(open_zip(self.path))
                name = _member(zf)
                assert name is not None  # sniffed
                self.where = f"entry {name!r}"
                whole = iter_member_chunks(zf, name, self.path)
            else:
                whole = iter_file_chunks(self.path)
            reading.enter_context(contextlib.closing(whole))
            # In small pieces: the text of a piece is up to four times its bytes, and two are held at once.
            chunks = _pieces(whole if size is None else _first_bytes(whole, size), _PIECE)
            encoding, first = told_encoding(chunks)
            text = decoded_chunks(itertools.chain([first], chunks), self.path, self.where)
            if member_of(self.path) is None and not is_zip(self.path) and encoding == Encoding("utf-8", 0):
                collections.deque(text, maxlen=0)  # checked: the file's bytes are its text's
                return self.path
            import tempfile

            folder = Path(self._stack.enter_context(tempfile.TemporaryDirectory(prefix="refind-")))
            copy = folder / "page.html"
            with copy.open("wb") as out:
                for piece in text:
                    out.write(piece.encode())
            return copy

    def cards(self, tz: tzinfo) -> tuple[_Timeline, array.array[int]]:
        """Each card's time and place (where its cell begins, in the text's UTF-8 bytes), and where the
        cell's inner HTML begins and ends (two numbers a card); an error at the first card that never ends
        or has no time refind can read, as a whole reading meets it."""
        placed, cells, dropped = _Timeline(), array.array("q"), 0
        for n, (start, begin, end) in enumerate(_cells(self.buf, self.end)):
            dropped = jsonstream.let_go(self.buf, dropped, start)
            if end is None:
                raise InputError(self.path, "truncated: a card that never ends", self._place(start))
            found = _stamped(_BR.split(self.buf[begin:end].decode()), tz)
            if found is None:
                raise InputError(self.path, "a card without a time refind can read", self._place(start))
            placed.add(found[1], start, start, n)
            cells.extend((begin, end))
        return placed, cells

    def read(self, start: int, end: int) -> bytes:
        """The text's bytes from ``start`` to ``end``, read from the file, not the map (``Items.fetch``)."""
        return os.pread(self._file.fileno(), end - start, start)

    def _place(self, offset: int) -> str:
        """Where byte ``offset`` of the text is: its line (and the zip's entry). Counted only for an error."""
        line = 1 + sum(self.read(at, min(at + CHUNK, offset)).count(b"\n") for at in range(0, offset, CHUNK))
        return ", ".join(p for p in (self.where, f"line {line}") if p)

    def close(self) -> None:
        if not isinstance(self.buf, bytes):
            self.buf.close()
        self._stack.close()

    def __enter__(self) -> _Page:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _pieces(chunks: Iterator[bytes], size: int) -> Iterator[bytes]:
    """``chunks`` cut in pieces of ``size`` bytes at most."""
    for chunk in chunks:
        for at in range(0, len(chunk), size):
            yield chunk[at : at + size]


def _first_bytes(chunks: Iterator[bytes], size: int) -> Iterator[bytes]:
    """The first ``size`` bytes of ``chunks``."""
    for chunk in chunks:
        if size <= 0:
            return
        yield chunk[:size]
        size -= len(chunk)


def _html_after(path: Path, offset: int, tz: tzinfo, before: _Timeline) -> _Placed | None:
    """The card whose cell begins at byte ``offset`` (the newest after the place an earlier import left),
    where each of the ``before`` cards is later than it by more than ``GAP``; else None. Read a window at
    a time, until the cell closes."""
    size = SNIFF_BYTES
    while True:
        chunk = read_file_part(path, offset, size)
        found = next(_cells(chunk, len(chunk)), None)
        if found is None or found[0] != 0 or (found[2] is None and len(chunk) < size):
            return None
        if found[2] is not None:
            break
        size *= 4
    n = len(before.micros)
    try:
        # Bytes an earlier reading decoded: only a character cut at the window's end is invalid.
        entry = _html_entry(chunk[found[1] : found[2]].decode("utf-8", "ignore"), tz, path, None, n + 1)
    except InputError:
        return None
    if before.near(entry.when):
        return None
    return _Placed(entry.when, offset, offset, n)


def _cells(buf: bytes | mmap.mmap, endpos: int) -> Iterator[tuple[int, int, int | None]]:
    """Each card's main cell in the UTF-8 bytes of an HTML's text, up to ``endpos``: where it starts, where
    its inner HTML starts, and where that ends, at the cell's own closing tag (None for a cell that never
    closes: the text stops in the middle)."""
    for match in _CONTENT_CELL.finditer(buf, 0, endpos):
        depth = 1
        for tag in _divs(buf, match.end(), endpos):
            depth += -1 if tag[1] else 1
            if depth == 0:
                yield match.start(), match.end(), tag.start()
                break
        else:
            yield match.start(), match.end(), None
            return


def _divs(buf: bytes | mmap.mmap, pos: int, endpos: int) -> Iterator[re.Match[bytes]]:
    """The ``div`` tags, opening and closing, from ``pos`` on: those ``<(/?)div\\b`` (any case) finds in
    the text, where a letter of any script after the name is a word's (``\\w``)."""
    for tag in _DIV.finditer(buf, pos, endpos):
        after = tag.end()
        if after < endpos and buf[after] >= 0x80:
            following = bytes(buf[after : min(after + 4, endpos)]).decode("utf-8", "ignore")[:1]
            if _WORD.match(following):
                continue
        yield tag


def _stamped(parts: list[str], tz: tzinfo) -> tuple[int, datetime] | None:
    """The first of a cell's lines after the title that is a time, and the time."""
    return next(
        ((i, when) for i in range(1, len(parts)) if (when := _stamp(htmltext.page_text(parts[i]), tz))), None
    )


def _html_entry(cell: str, tz: tzinfo, path: Path, place: str | None, n: int) -> Entry:
    parts = _BR.split(cell)
    found = _stamped(parts, tz)
    if found is None:
        raise InputError(path, "a card without a time refind can read", place)
    i, when = found
    title, *files = (htmltext.page_text(p) for p in parts[:i])
    reply_html = "<br>".join(parts[i + 1 :])
    return Entry(
        when=when,
        title=title,
        reply=htmltext.page_text(reply_html),
        reply_raw=reply_html.strip(),
        files=tuple(f for f in files if f),
        raw=cell,
        place=f"card {n}",
    )


def _stamp(line: str, tz: tzinfo) -> datetime | None:
    for pattern in _STAMPS:
        m = pattern.fullmatch(line.strip())
        if m is None:
            continue
        g = m.groupdict()
        month = _MONTHS.get(g["mon"]) if g.get("mon") else int(g["m"])
        hour = int(g["h"])
        if g.get("ampm"):
            hour = hour % 12 + (12 if g["ampm"] == "PM" else 0)
        try:
            when = datetime(int(g["y"]), month or 0, int(g["d"]), hour, int(g["mi"]), int(g["s"]))
        except ValueError:
            return None
        return when.replace(tzinfo=UTC if g["zone"] in _UTC_ZONES else tz).astimezone(UTC)
    return None


# --- entries -> messages ---------------------------------------------------------------------------------


class _Unread:
    """Entries whose title is in no known language: kept as system records, one warning for the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self.first = ""

    def add(self, place: str) -> None:
        self.count += 1
        self.first = self.first or place

    def warn(self) -> None:
        if self.count:
            what = (
                f"{self.count:,} entr{'ies' if self.count > 1 else 'y'} whose title refind cannot read (a "
                f"language it does not know yet), the first at {self.first}; kept as system records"
            )
            warnings.warn(InputWarning(self.path, what), stacklevel=2)


def _classify(title: str) -> tuple[str | None, bool]:
    """The prompt a title holds (None if it holds none), and whether the title was understood."""
    for titles in TITLES.values():
        prefix = next((p for p in titles.prompt if title.startswith(p)), None)
        if prefix is not None:
            return title[len(prefix) :], True
        if title.startswith(titles.other):
            return None, True
    return None, False


def _conversation(group: list[Entry], unread: _Unread) -> ChatExport:
    first = group[0]
    messages: list[Message] = []
    name = ""
    for entry in group:
        prompt, understood = _classify(entry.title)
        if not understood:
            unread.add(entry.place)
        if prompt is None:
            # Every entry of My Activity is something the person did, so a system record is theirs too (and
            # a conversation it opens still pairs each prompt with its reply).
            messages.append(
                Message(entry.when, YOU, entry.title, Kind.SYSTEM, sender_id="user", raw=entry.raw, own=True)
            )
        else:
            attached = _ATTACHED.search(prompt)
            if attached:
                prompt = prompt[: attached.start()]
            name = name or prompt
            noted = entry.files or ((attached[0].strip(),) if attached else ())
            files = [f"[attachment: {f}]" for f in noted]
            messages.append(
                Message(
                    entry.when,
                    YOU,
                    join(prompt, *files),
                    Kind.ATTACHMENT if files else Kind.TEXT,
                    sender_id="user",
                    raw=entry.raw,
                    own=True,
                )
            )
        if entry.reply or entry.reply_raw:
            messages.append(
                Message(entry.when, ASSISTANT, entry.reply, sender_id="model", raw=entry.reply_raw)
            )
    name = " ".join((name or first.title).split())
    if len(name) > NAME_CHARS:
        name = name[: NAME_CHARS - 1].rstrip() + "…"
    return ChatExport(Chat(FORMAT, _key(first.when), name or "Gemini", kind="direct"), messages)
