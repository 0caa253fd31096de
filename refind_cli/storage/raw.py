"""A message's raw record as the archive stores it: without the fields the archive holds in columns of their
own (the text, the written time, the sender and the sender's id), each cut out where the record holds it
and marked there by one character, so that the record is rebuilt exactly from what is left and the
message's fields. A WhatsApp line is its stamp, its sender and its text: what is left of it is " - : ".

``form``: how the fields are written inside the record (``FORMS``), or None where nothing was cut and the
record is kept whole (one that holds a marker character itself, or none of the fields).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from refind_cli.records import html_written, sms_written

# The C encoders ``json.dumps`` runs for a string, taken from the accelerator itself: the ``json`` package
# compiles five regular expressions as it loads (~1.2 ms), and every search opens the archive, which loads
# this module (bench/RESULTS.md, issue 26 item 3, session 16). The same functions, so the same text.
try:
    from _json import encode_basestring, encode_basestring_ascii
except ImportError:  # an interpreter without CPython's accelerator
    from json.encoder import encode_basestring, encode_basestring_ascii


def _json_string(text: str) -> str:
    return encode_basestring(text)[1:-1]


def _json_ascii(text: str) -> str:
    return encode_basestring_ascii(text)[1:-1]


# How the fields are written inside a record, decided by the first that finds the text: as they are (the
# line or lines of a text export), or as the contents of a JSON string, with non-ASCII characters as they
# are or escaped (importers keep a record as its JSON either way), or as the text of an HTML element (an
# iMessage page, session 17), or as an XML attribute's value as SMS Backup & Restore writes it (session 18).
# A form added later goes at the end: stored records number them.
FORMS: tuple[Callable[[str], str], ...] = (str, _json_string, _json_ascii, html_written, sms_written)

# The fields cut, in this order, and each one's marker (C0 controls no export writes in a record unescaped;
# a record that holds one is kept whole).
FIELDS = ("text", "local_time", "sender", "sender_id")
_MARKERS = "\x01\x02\x03\x04"


def cut(record: str, fields: Sequence[str | None]) -> tuple[str, int | None]:
    """What is left of the record once ``fields`` (values of ``FIELDS``) are cut out, and its form."""
    # On the import's hot path (once a message, in the worker). Each field is cut where it first occurs in
    # what the fields before it left, found as the first place in the record outside their places: the rest
    # is joined once, and a field that holds a marker is never found (the record holds none), as it never
    # was in the rest (only across a marker, which the others may not hold). Plain ``in`` and ``find``: a
    # regular expression or a zip cost more than the rest of it.
    if "\x01" in record or "\x02" in record or "\x03" in record or "\x04" in record:
        return record, None
    text, local_time, sender, sender_id = fields
    if text and local_time and sender and sender_id is None and record.startswith(local_time):
        # A line of a text log: its written time, its sender, its text, in that order (a WhatsApp line).
        at = record.find(text)
        time_end = len(local_time)
        if at >= time_end:
            by = record.find(sender, time_end)  # the first place outside the time's, which holds none
            by_end = by + len(sender)
            if by >= 0 and by_end <= at:
                # "\x02" + what is between + "\x03" + ... + "\x01" + what follows the text
                return f"\x02{record[time_end:by]}\x03{record[by_end:at]}\x01{record[at + len(text) :]}", 0
    number = 0
    if text and text not in record:
        number = next((i for i in range(1, len(FORMS)) if FORMS[i](text) in record), 0)
    places: list[tuple[int, int, str]] = []  # (start, end, marker) in the record
    for marker, value in zip(_MARKERS, fields, strict=True):
        if value:
            written = FORMS[number](value) if number else value
            at = record.find(written)
            for start, end, _ in places if at >= 0 else ():
                # Every later occurrence that starts before this place's end overlaps it too.
                if at < end and at + len(written) > start:
                    at = _outside(record, written, end, places)
                    break
            if at >= 0:
                places.append((at, at + len(written), marker))
    if not places:
        return record, None
    if len(places) > 1:
        places.sort()
    parts: list[str] = []
    done = 0
    for start, end, marker in places:
        parts += (record[done:start], marker)
        done = end
    parts.append(record[done:])
    return "".join(parts), number


def _outside(record: str, written: str, at: int, places: list[tuple[int, int, str]]) -> int:
    """The first occurrence of ``written`` in ``record`` from ``at`` on that overlaps none of ``places``."""
    while (at := record.find(written, at)) >= 0:
        end = next((e for s, e, _ in places if at < e and at + len(written) > s), None)
        if end is None:
            return at
        at = end
    return -1


def joined(rest: str, form: int | None, fields: Sequence[str | None]) -> str:
    """The record as the export held it, from what ``cut`` left of it and the message's fields."""
    if form is None:
        return rest
    write = FORMS[form]
    for marker, value in reversed(list(zip(_MARKERS, fields, strict=True))):
        if value and marker in rest:
            rest = rest.replace(marker, write(value), 1)
    return rest


# A rest shared by a chat's rows (``shared_rest``) must be worth a row of its own and hold nothing a person
# wrote: only ASCII punctuation, spaces and markers, and format characters (the direction marks WhatsApp
# writes around a phone number), so a message forgotten leaves nothing of it in the chat.
_SHARED_MIN = 2
# The further rests a chat holds (``Chatwide.rests``: each row's key is one byte), and the longest: a rest
# of a line's punctuation is a few characters, and a longer one is not looked at on the import's hot path.
FURTHER_RESTS = 64
SHARED_LONGEST = 64


def shared_rest(rests: Iterable[str]) -> str | None:
    """The rest (of records cut with a form) that most of ``rests`` are, if their chat can hold it once."""
    counted = Counter(rests).most_common(1)
    return counted[0][0] if counted and shareable(*counted[0]) else None


def shareable(rest: str, rows: int) -> bool:
    """Whether a rest that ``rows`` rows leave can be held once by their chat: a WhatsApp line's " - : "
    around its markers."""
    return rows >= _SHARED_MIN and unwritten(rest)


def unwritten(rest: str) -> bool:
    """Whether a rest (never '': a record cut holds a marker) holds nothing a person wrote, and is short
    enough to be held by its chat."""
    return 0 < len(rest) <= SHARED_LONGEST and all(
        (c.isascii() and not c.isalnum()) or unicodedata.category(c) == "Cf" for c in rest
    )
