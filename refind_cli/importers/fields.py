"""Reading a record's fields as other tools leave them: anonymisers, converters and spreadsheets keep a
format's shape but drop fields a real export always has (a conversation's id, a channel object), write null
for them, or turn a number into a string and an id of digits into a number (FORMATS.md §4c, "Files other
tools rewrite"; ``tests/ablation_variants.py`` makes such files from the samples).

One way for every importer: ``text``, ``ident`` and ``number`` read a value that may be a string or a number;
``Gaps`` keys a record whose id is gone by what is there (``derived``) and says once, after the file, what
was missing.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import warnings
from collections.abc import Iterable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refind_cli.errors import InputWarning

if TYPE_CHECKING:
    from refind_cli.records import Message


def text(value: Any) -> str:
    """A string value, a number as its decimal text (a spreadsheet's round trip makes ``"7"`` a ``7``), or ""
    for anything else (null, a list where a string belongs)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def ident(value: Any) -> str | None:
    """An id, whether written as a string or as a number (``"48211"`` or ``48211``: the same id); None where
    there is none (missing, null, empty, not a scalar)."""
    found = text(value).strip()
    return found or None


def number(value: Any) -> float | None:
    """A number, whether written as a number or as a string of one; None for anything else, NaN and the
    infinities included."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


# Past 2**53 a double no longer holds every integer: a tool that reads JSON numbers as doubles (Gson through a
# Map, Go through interface{}, jq 1.6, JavaScript) writes such an id back rounded, as a float (``1.52E18``) or
# as the shortest digits of its double padded with zeros (``1521601569383898000``).
_EXACT = 2**53
# How unlikely a file's ids must be as the export's own before they are taken for a tool's: a real id reads as
# its double's shortest digits padded with ``z`` zeros one time in 10**z (a 19-digit id so padded with three
# zeros: one in a thousand), and a float is a tool's at once.
_DOUBT = 1e-9


def through_a_double(value: Any) -> bool:
    """Whether a number past 2**53 reads as a tool that took it through a double writes it: a float, or an
    integer whose digits are its double's shortest ones padded with zeros."""
    if not _large(value):
        return False
    return isinstance(value, float) or value == int(Decimal(repr(float(value))))


def unrounded(read: Iterable[tuple[Any, Message]], gaps: Gaps) -> Iterator[Message]:
    """Messages (each with the id as its file wrote it), without their ids where a tool rounded a file's ids
    through doubles (``through_a_double``: its first ids past 2**53 all read so, and together as a real
    export's ids would read less than once in ``1 / _DOUBT``; or one is a float): two messages could share
    one, and none is the export's own. They are then identified as a message
    without an id is (by its time, sender and text), noted in ``gaps``; ids of other files are kept. The first
    messages are held until the ids tell (a few)."""
    held: list[tuple[Any, Message]] = []
    told: bool | None = None
    chance = 1.0  # of the file's ids so far, as a real export's
    for raw, message in read:
        if told is None:
            held.append((raw, message))
            if _large(raw):
                if not through_a_double(raw):
                    told = False
                else:
                    chance *= 0.0 if isinstance(raw, float) else _chance(raw)
                    told = True if chance <= _DOUBT else None
            if told is not None:
                yield from _without_ids(held, told, gaps)
                held = []
            continue
        yield from _without_ids([(raw, message)], told, gaps)
    yield from _without_ids(held, bool(told), gaps)


def _chance(n: int) -> float:
    """How often a real id past 2**53 reads as ``n`` does, its double's shortest digits padded with zeros: one
    in ten for each zero it ends in (a 16-digit one, every digit its double's, tells nothing)."""
    digits = str(abs(n))
    return 10.0 ** -(len(digits) - len(digits.rstrip("0")))


def _without_ids(held: list[tuple[Any, Message]], rounded: bool, gaps: Gaps) -> Iterator[Message]:
    for raw, message in held:
        if rounded and _large(raw):
            how = f"a tool rounded it through a floating point number, as {raw}: read without it"
            gaps.lack("message", "ID of its own", how)
            yield message._replace(source_id=None)
        else:
            yield message


def _large(value: Any) -> bool:
    """A number past 2**53."""
    return isinstance(value, int | float) and not isinstance(value, bool) and abs(value) >= _EXACT


def derived(*there: object) -> str:
    """A key made of what a record holds where its id is gone (its first message's time and text, its
    title): the same record, exported again and grown at its end, gets the same key."""
    data = json.dumps(there, ensure_ascii=False, sort_keys=True, default=str)
    return "derived:" + hashlib.blake2b(data.encode(), digest_size=12).hexdigest()


class Gaps:
    """What the records of one file lack that a real export always has, counted while it is read and said in
    one warning once it is read (``warn``): the file is read with what is there, not refused."""

    def __init__(self, path: Path | str) -> None:
        self.path = path
        self._lacks: dict[tuple[str, str], tuple[int, str]] = {}

    def lack(self, record: str, field: str, how: str = "") -> None:
        """A ``record`` ("message") without its ``field``; ``how``: what was done instead ("read without
        one")."""
        count, _ = self._lacks.get((record, field), (0, how))
        self._lacks[(record, field)] = (count + 1, how)

    def key(self, record: str, field: str, value: Any, *there: object) -> str:
        """The record's id (``value``), or where a tool dropped it, a key derived from ``there``, noted."""
        found = ident(value)
        if found is not None:
            return found
        self.lack(record, field, "keyed by what it holds")
        return derived(record, *there)

    def warn(self) -> None:
        if not self._lacks:
            return
        parts = []
        for (record, field), (count, how) in self._lacks.items():
            many = f"{count:,} {record}s have" if count > 1 else f"a {record} has"
            parts.append(f"{many} no {field}" + (f" ({how})" if how else ""))
        what = "; ".join(parts) + ": a file another tool rewrote? read with what is there"
        self._lacks.clear()
        warnings.warn(InputWarning(self.path, what), stacklevel=2)


# Separators a spreadsheet writes between a CSV's fields: a comma, or where the comma is the decimal mark
# (Excel in German, French, ...), a semicolon; a tab in "text (tab delimited)".
_SEPARATORS = (",", ";", "\t")


def separator(header: str) -> str:
    """The field separator of a CSV file, told by its header line: the one that splits it most."""
    return max(_SEPARATORS, key=header.count)


# The line Excel reads (and some tools write for it) before a CSV's header to name its separator: "sep=;".
_HINT = re.compile(r"\ufeff?sep=(.)\s*")


def separator_hint(line: str) -> str | None:
    """The separator a CSV's first line names, where it is Excel's ``sep=`` line (not the header)."""
    m = _HINT.fullmatch(line)
    return m[1] if m else None
