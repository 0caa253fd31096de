"""How a chat writes its times, so that a message's written time (``Message.local_time``: a WhatsApp stamp,
"01/01/2019, 08:00") need not be stored as text: it is its instant moved by the offset of the clock it was
written by, in the chat's layout of a time (``Layout``). The archive keeps a row's offset (minutes, a byte
or none) and the chat's layout once, and keeps the text only where that rebuilds something else than what
was written: each row is checked when it is stored, so the rebuild is lossless by construction.

A layout is told from a chat's first written times (``told``), whatever the format: the reading of each
run of digits or letters in them that some offset makes true of their instants. Month and day names are
English; a layout in another language is not found, and its chat keeps its times as text.
"""

from __future__ import annotations

import itertools
import json
import operator
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date

# The C locale's names (what apps that write English times write), whatever the user's locale.
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_EPOCH_DAY = 719_163  # date(1970, 1, 1).toordinal()

# Each token: how it is written (a %-format of the value at that place of a struct_time, then of the
# extras ``_extras`` gives after it), and the pattern that reads it back.
_TOKENS: dict[str, tuple[str, int, str]] = {
    "Y": ("%d", 0, r"\d{4}"),
    "mm": ("%02d", 1, r"\d\d"),
    "m": ("%d", 1, r"[1-9]\d?"),
    "dd": ("%02d", 2, r"\d\d"),
    "d": ("%d", 2, r"[1-9]\d?"),
    "HH": ("%02d", 3, r"\d\d"),
    "H": ("%d", 3, r"1?\d|2[0-3]"),
    "MM": ("%02d", 4, r"\d\d"),
    "SS": ("%02d", 5, r"\d\d"),
    "y": ("%02d", 9, r"\d\d"),
    "II": ("%02d", 10, r"0[1-9]|1[0-2]"),
    "I": ("%d", 10, r"1[0-2]|[1-9]"),
    "p": ("%s", 11, "AM|PM"),
    "pl": ("%s", 12, "am|pm"),
    "b": ("%s", 13, "|".join(m[:3] for m in _MONTHS)),
    "B": ("%s", 14, "|".join(_MONTHS)),
    "a": ("%s", 15, "|".join(d[:3] for d in _DAYS)),
    "A": ("%s", 16, "|".join(_DAYS)),
}
_HALVES = ("AM", "PM")
_STRUCT = 9  # a struct_time's length: tokens from there on need the extras
# A token written with a leading zero, and the same without (which a value of two digits cannot tell).
_UNPADDED = {"dd": "d", "mm": "m", "HH": "H", "II": "I"}
# Which tokens a run of digits or letters may be, in the order preferred where several fit one time.
_DIGITS = ("Y", "dd", "mm", "d", "m", "HH", "H", "MM", "SS", "y", "II", "I")
_LETTERS = ("p", "pl", "b", "B", "a", "A")
# A layout must say these (one of each group) to fix an instant's minute.
_NEEDED = (("Y", "y"), ("mm", "m", "b", "B"), ("dd", "d"), ("HH", "H", "II", "I"), ("MM",))
# Offsets tried when a layout is told: every quarter hour from UTC-12 to UTC+14, UTC first.
_OFFSETS = sorted(range(-12 * 60, 14 * 60 + 1, 15), key=abs)
_RUNS = re.compile(r"\d+|[A-Za-z]+|[^\dA-Za-z]+")
# Written times a layout is told from: enough to see past a day and month that are equal, or an hour that
# is twelve or less.
SAMPLE = 64
# Or so many, where none of them has a reading: a chat whose first times have none has no layout.
_HOPELESS = 8
# Readings of them weighed (by how many of the samples each rebuilds): the commonest.
_READINGS = 16
# And of those, the best are tried with their padded days, months and hours unpadded.
_SWAPPED = 4


def _extras(t: time.struct_time) -> tuple[int | str, ...]:
    hour12 = t.tm_hour % 12 or 12
    month, day = _MONTHS[t.tm_mon - 1], _DAYS[t.tm_wday]
    p = _HALVES[t.tm_hour >= 12]
    return (t.tm_year % 100, hour12, p, p.lower(), month[:3], month, day[:3], day)


def _value(name: str, t: time.struct_time, extras: tuple[int | str, ...]) -> str:
    spec, at, _ = _TOKENS[name]
    return spec % (t[at] if at < _STRUCT else extras[at - _STRUCT])


@dataclass(frozen=True, slots=True)
class Layout:
    """A chat's layout of a written time: literal text and tokens (``_TOKENS``), in order."""

    parts: tuple[tuple[bool, str], ...]  # (is a token, the token's name or the literal text)
    _format: str = field(init=False, compare=False, repr=False)
    _values: Callable[[tuple[int | str, ...]], tuple[int | str, ...]] = field(
        init=False, compare=False, repr=False
    )
    _pattern: re.Pattern[str] = field(init=False, compare=False, repr=False)
    _extra: bool = field(init=False, compare=False, repr=False)
    _seconds: bool = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        tokens = [name for token, name in self.parts if token]
        fmt = "".join(_TOKENS[name][0] if token else name.replace("%", "%%") for token, name in self.parts)
        pattern = "".join(
            f"(?P<{name}>{_TOKENS[name][2]})" if token else re.escape(name) for token, name in self.parts
        )
        places = [_TOKENS[name][1] for name in tokens]
        # One C call picks a time's values in the layout's order (a layout has at least the five ``_NEEDED``).
        pick = operator.itemgetter(*places)
        object.__setattr__(self, "_format", fmt)
        object.__setattr__(self, "_values", pick)
        object.__setattr__(self, "_pattern", re.compile(pattern))
        object.__setattr__(self, "_extra", max(places, default=0) >= _STRUCT)
        object.__setattr__(self, "_seconds", "SS" in tokens)

    @classmethod
    def loads(cls, stored: str) -> Layout | None:
        return cls(tuple((bool(t), s) for t, s in json.loads(stored))) if stored else None

    def dumps(self) -> str:
        return json.dumps([[int(t), s] for t, s in self.parts], ensure_ascii=False)

    def write(self, seconds: int) -> str:
        """The time ``seconds`` (since the epoch, on the clock it was written by) in this layout."""
        t = time.gmtime(seconds)
        return self._format % self._values((*t, *_extras(t)) if self._extra else t)

    def offset_near(self, written: str, ts: int, last: int) -> int | None:
        """``offset``, tried first at the offset ``last`` (a chat's clock seldom changes: one write, not a
        parse)."""
        if self.write(ts // 1_000_000 + last * 60) == written:
            return last
        return self.offset(written, ts)

    def offset(self, written: str, ts: int) -> int | None:
        """The offset in minutes that rebuilds ``written`` from the instant ``ts`` (microseconds), or None."""
        got = self._pattern.fullmatch(written)
        if got is None:
            return None
        seconds = ts // 1_000_000
        fields = got.groupdict()
        year = int(fields["Y"]) if "Y" in fields else None
        if year is None:
            near = time.gmtime(seconds).tm_year
            year = int(fields["y"])
            year += 100 * round((near - year) / 100)
        month = int(fields.get("mm") or fields.get("m") or 0) or _month(fields)
        day = int(fields.get("dd") or fields.get("d") or 0)
        hour = fields.get("HH") or fields.get("H")
        if hour is None:
            hour12 = int(fields.get("II") or fields.get("I") or 0)
            afternoon = (fields.get("p") or fields.get("pl") or "").upper() == "PM"
            hour = hour12 % 12 + 12 * afternoon
        second = int(fields["SS"]) if self._seconds else seconds % 60
        try:
            days = date(year, month, day).toordinal() - _EPOCH_DAY
        except ValueError:
            return None
        wall = days * 86_400 + int(hour) * 3600 + int(fields["MM"]) * 60 + second
        minutes, rest = divmod(wall - seconds, 60)
        if rest or self.write(seconds + minutes * 60) != written:
            return None
        return minutes


def _month(fields: dict[str, str]) -> int:
    name = fields.get("B") or fields.get("b") or ""
    return next((i + 1 for i, m in enumerate(_MONTHS) if m.startswith(name)), 0) if name else 0


def _reading(written: str, seconds: int, first: int) -> tuple[tuple[tuple[bool, str], ...], int] | None:
    """The layout that makes ``written`` true of the instant ``seconds`` at the offset ``first`` or else
    the nearest, if any, and that offset."""
    runs = _RUNS.findall(written)
    for minutes in (first, *_OFFSETS):
        t = time.gmtime(seconds + minutes * 60)
        parts = _assigned(runs, t, _extras(t), ())
        if parts is not None:
            return parts, minutes
    return None


def _assigned(
    runs: list[str], t: time.struct_time, extras: tuple[int | str, ...], parts: tuple[tuple[bool, str], ...]
) -> tuple[tuple[bool, str], ...] | None:
    """``parts`` read on over ``runs``: each run of digits a token whose value it is (each token once), each
    run of letters one or literal text, until the tokens say an instant to the minute ("1/1/00, 12:00 AM":
    the first "00" is the year, not the hour)."""
    if not runs:
        said = {name for token, name in parts if token}
        twelve = bool(said & {"I", "II"})
        if twelve != bool(said & {"p", "pl"}) or not all(said & set(group) for group in _NEEDED):
            return None
        return parts
    run, rest = runs[0], runs[1:]
    names = _DIGITS if run[0].isdigit() else _LETTERS if run[0].isalpha() else ()
    for name in names:
        if (True, name) not in parts and _value(name, t, extras) == run:
            found = _assigned(rest, t, extras, (*parts, (True, name)))
            if found is not None:
                return found
    if run[0].isdigit() or run.upper() in _HALVES:  # an "AM" that is not this time's is not literal text
        return None
    return _assigned(rest, t, extras, (*parts, (False, run)))


def told(samples: Sequence[tuple[int, str]]) -> Layout | None:
    """The layout that rebuilds the most of ``samples`` ((instant in microseconds, written time)), if any
    rebuilds at least half of them."""
    samples = samples[:SAMPLE]
    seen: Counter[tuple[tuple[bool, str], ...]] = Counter()
    offset = 0  # the last sample's: a chat's clock seldom changes
    for i, (ts, written) in enumerate(samples):
        if i == _HOPELESS and not seen:
            return None  # times this module cannot read (other languages' names): each tries every offset
        found = _reading(written, ts // 1_000_000, offset)
        if found is not None:
            parts, offset = found
            seen[parts] += 1

    def fit(parts: tuple[tuple[bool, str], ...]) -> tuple[int, Layout]:
        layout = Layout(parts)
        return sum(layout.offset(w, ts) is not None for ts, w in samples), layout

    def unpadded(parts: tuple[tuple[bool, str], ...]) -> tuple[int, Layout]:
        # "12" is a day or hour written with or without a leading zero: the samples tell which, each token
        # apart, where one fits fewer of them (a tie keeps the reading's).
        padded = [i for i, (token, name) in enumerate(parts) if token and name in _UNPADDED]
        best = fit(parts)
        for chosen in itertools.product((False, True), repeat=len(padded)):
            if any(chosen):
                swapped = list(parts)
                for i, swap in zip(padded, chosen, strict=True):
                    if swap:
                        swapped[i] = (True, _UNPADDED[parts[i][1]])
                if len({p for p in swapped if p[0]}) == len([p for p in swapped if p[0]]):
                    best = max(best, fit(tuple(swapped)), key=lambda f: f[0])
        return best

    readings = sorted(seen, key=lambda parts: -seen[parts])[:_READINGS]
    fits = sorted((fit(parts) for parts in readings), key=lambda f: -f[0])
    if fits and fits[0][0] < len(samples):
        fits = sorted((unpadded(f[1].parts) for f in fits[:_SWAPPED]), key=lambda f: -f[0])
    return fits[0][1] if fits and 2 * fits[0][0] >= len(samples) else None


@dataclass(frozen=True, slots=True)
class Chatwide:
    """What a chat holds once for its messages' rows: the layout of its written times (m018; a row's
    ``wall`` is the offset in minutes of the clock it was written by, its ``local_time`` then NULL), the
    rest of a raw record that most of its rows share (m019; a row's ``raw`` is then '', with a form), and
    the further rests its rows share (m030, ``rests``: a row's ``raw`` is then the one-byte key
    ``bytes([i])`` of the i-th: a WhatsApp sender saved as a phone number is written between direction
    marks, so each of their lines leaves a rest of its own)."""

    layout: Layout | None
    rest: str | None
    rests: tuple[str, ...] = ()
    # What a row's rest is stored as ('' or a key), by rest: what the writer looks up a row.
    stored: dict[str, str | bytes] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        stored: dict[str, str | bytes] = {rest: bytes([i]) for i, rest in enumerate(self.rests)}
        if self.rest is not None:
            stored[self.rest] = ""
        object.__setattr__(self, "stored", stored)

    def written_time(self, ts: int, wall: int) -> str:
        assert self.layout is not None  # a row has a wall offset only where its chat has a layout
        return self.layout.write(ts // 1_000_000 + wall * 60)

    def record_rest(self, rest: str | bytes, form: int | None) -> str:
        if isinstance(rest, bytes):
            return self.rests[rest[0]]  # a key is stored only for a record cut with a form
        return self.rest if rest == "" and form is not None and self.rest is not None else rest

    @classmethod
    def loads(cls, layout: str, rest: str | None, rests: str | None) -> Chatwide:
        """From the chat's columns ``written``, ``rest`` and ``rests`` (a JSON list, or NULL)."""
        return cls(Layout.loads(layout), rest, tuple(json.loads(rests)) if rests else ())
