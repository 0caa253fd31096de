"""WhatsApp exports written in every CLDR locale's own stamps, generated at test time from CLDR (through
Babel), not listed by hand: a phone writes each message's date and time in its locale, so an export's stamp
is the locale's short date and its short time (Android: ``d/m/yy, HH:MM - Name: text``) or medium time (iOS:
``[d/m/yy, HH:MM:SS] Name: text``), joined by the locale's own date-time pattern, in the locale's own digits
(its default numbering system: Arabic-Indic, Persian, Bengali, Devanagari, Burmese...) and AM/PM words
("a. m.", "午後", "오후", "ص/م", "पूर्वाह्न"); and a phone set to the other hour cycle than its locale's
writes the locale's pattern of that cycle (CLDR's ``hm``/``Hm`` skeletons).

Each case is a small chat: messages across months, before and after noon, at midnight and noon hours, on
days above and below 12 (so the day/month order must be told from the file), one of several lines; the
texts are the locale's month and weekday names. ``rewrites`` are what other tools make of such files (CR LF,
a BOM, U+202F before AM/PM as iOS writes or a plain space for it, NBSP, LRM at line starts).

``tests/test_stamp_probe.py`` reads one locale per distinct stamp shape; ``bench/stamp_probe.py`` all of
them, and prints how many read right.
"""

from __future__ import annotations

import random
import unicodedata
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from zoneinfo import ZoneInfo

import regex
from babel import Locale, dates, localedata

from refind_cli.importers import whatsapp

ZONE = ZoneInfo("Europe/Berlin")
# (wall-clock time in ZONE, sender index, has a second line): months apart, AM and PM, the hours after
# midnight and noon (12 AM, 12 PM), days above and at most 12, the last second of a minute.
MOMENTS = (
    (datetime(2026, 1, 5, 9, 7, 11), 0, False),
    (datetime(2026, 1, 5, 12, 40, 2), 1, False),
    (datetime(2026, 1, 23, 0, 15, 45), 0, True),
    (datetime(2026, 3, 9, 14, 5, 33), 1, False),
    (datetime(2026, 7, 4, 18, 30, 0), 0, False),
    (datetime(2026, 10, 12, 21, 59, 59), 1, True),
    (datetime(2026, 11, 28, 23, 1, 20), 0, False),
    (datetime(2026, 12, 31, 11, 11, 11), 1, False),
)
SHAPES = ("android", "ios", "android-other-cycle", "ios-other-cycle")


@dataclass(frozen=True, slots=True)
class Expected:
    when: datetime  # aware, in ZONE
    sender: str
    text: str


@dataclass(frozen=True, slots=True)
class StampCase:
    locale: str
    shape: str  # one of SHAPES
    records: tuple[str, ...]  # the export's messages as written, each its header line and the lines after
    expected: tuple[Expected, ...]

    @property
    def text(self) -> str:
        return "".join(r + "\n" for r in self.records)

    @property
    def first_stamp(self) -> str:
        return self.records[0].split("\n", 1)[0]


@cache
def locales() -> tuple[str, ...]:
    return tuple(i for i in localedata.locale_identifiers() if i != "root")


def _zero(system: str) -> str:
    """The digit zero of a CLDR numbering system, from Unicode's own data: the decimal digit zero of the
    script the system is named after ("beng", "deva", "mymr"), the extended one for "arabext"."""
    script = system[:4].title()
    zeros = [
        c
        for c in regex.findall(rf"[\p{{sc={script}}}&&\p{{Nd}}]", _ALL_CHARS, flags=regex.V1)
        if unicodedata.decimal(c) == 0
    ]
    extended = [z for z in zeros if ("EXTENDED" in unicodedata.name(z)) == system.endswith("ext")]
    return str((extended or zeros or ["0"])[0])


_ALL_CHARS = "".join(chr(c) for c in range(0x0600, 0x1E960) if unicodedata.category(chr(c)) == "Nd")


@cache
def digits(locale: str) -> Callable[[str], str]:
    """Latin digits written in the locale's default numbering system."""
    system = Locale.parse(locale).default_numbering_system
    if system == "latn":
        return lambda text: text
    table = str.maketrans("0123456789", "".join(chr(ord(_zero(system)) + i) for i in range(10)))
    return lambda text: text.translate(table)


def _glue(locale: Locale) -> str:
    """The locale's short date-time pattern as text with ``{0}`` (time) and ``{1}`` (date)."""
    return "".join(
        str(value) if kind == "chars" else ""
        for kind, value in dates.tokenize_pattern(str(locale.datetime_formats["short"]))
    )


def _time_pattern(locale: Locale, shape: str) -> str:
    seconds = shape.startswith("ios")
    own = locale.time_formats["medium" if seconds else "short"].pattern
    if not shape.endswith("other-cycle"):
        return str(own)
    twelve = any(kind == "field" and value[0] in "hK" for kind, value in dates.tokenize_pattern(own))
    skeleton = ("Hms" if seconds else "Hm") if twelve else ("hms" if seconds else "hm")
    return str(locale.datetime_skeletons[skeleton].pattern)


@cache
def _locale(locale: str) -> Locale:
    return Locale.parse(locale)


def stamp(locale: str, shape: str, when: datetime, date_pattern: str = "short") -> str:
    """``date_pattern``: "short", the locale's short date; or "yMd", its pattern of that skeleton (what
    Android's ``DateFormat.getDateFormat`` asks ICU for), where the locale has one."""
    loc = _locale(locale)
    pattern = loc.date_formats["short"].pattern
    if date_pattern != "short" and date_pattern in loc.datetime_skeletons:
        pattern = loc.datetime_skeletons[date_pattern].pattern
    date_text = dates.format_date(when.date(), pattern, locale=loc)
    time_text = dates.format_time(when.time(), _time_pattern(loc, shape), locale=loc)
    return digits(locale)(_glue(loc).replace("{1}", "\0").replace("{0}", time_text).replace("\0", date_text))


def _names(locale: str) -> tuple[str, str]:
    """Two senders: a plain name, and the locale's name of its own language as written in it."""
    loc = Locale.parse(locale)
    own = unicodedata.normalize("NFC", (loc.languages.get(loc.language) or "Bo").strip())
    return "Ana", own if own != "Ana" and ":" not in own else "Bo"


@cache
def _halves(locale: str, shape: str) -> tuple[str, str]:
    """The locale's stamps a quarter past midnight and a quarter past noon."""
    return stamp(locale, shape, datetime(2026, 1, 5, 0, 15)), stamp(
        locale, shape, datetime(2026, 1, 5, 12, 15)
    )


def readable(locale: str, shape: str) -> bool:
    """Whether a stamp of this shape can be read at all: a 12-hour pattern whose AM and PM write the same
    (CLDR gives fr_CM no markers for ``hm``) says nothing of which half of the day it is."""
    first, second = _halves(locale, shape)
    return first != second


def moments(seed: str, count: int = 8) -> tuple[tuple[datetime, int, bool], ...]:
    """``count`` moments at random (seeded), in order, between 2024 and 2027, none that the zone's clocks
    skip or repeat."""
    rng = random.Random(seed)
    found: set[datetime] = set()
    while len(found) < count:
        when = datetime(2024, 1, 1) + timedelta(seconds=rng.randrange(4 * 365 * 86400))
        if when.replace(tzinfo=ZONE).utcoffset() == when.replace(tzinfo=ZONE, fold=1).utcoffset() and (
            when.replace(tzinfo=ZONE).astimezone(UTC).astimezone(ZONE).replace(tzinfo=None) == when
        ):
            found.add(when)
    return tuple((when, i % 2, i % 3 == 2) for i, when in enumerate(sorted(found)))


def case(
    locale: str,
    shape: str,
    at: tuple[tuple[datetime, int, bool], ...] = MOMENTS,
    date_pattern: str = "short",
) -> StampCase:
    loc = Locale.parse(locale)
    months = loc.months["format"]["wide"]
    days = loc.days["format"]["wide"]
    names = _names(locale)
    lines: list[str] = []
    expected: list[Expected] = []
    for when, who, two_lines in at:
        text = unicodedata.normalize("NFC", months[when.month])
        if two_lines:
            text += "\n" + unicodedata.normalize("NFC", days[when.weekday()])
        sender = names[who]
        head = stamp(locale, shape, when, date_pattern)
        lines.append(
            f"[{head}] {sender}: {text}" if shape.startswith("ios") else f"{head} - {sender}: {text}"
        )
        # Android's stamps have no seconds.
        written = when if shape.startswith("ios") else when.replace(second=0)
        expected.append(Expected(written.replace(tzinfo=ZONE), sender, text))
    return StampCase(locale, shape, tuple(lines), tuple(expected))


def shape_key(locale: str, shape: str) -> str:
    """The shape of a locale's stamps: one after midnight and one after noon with every digit a 0 (the
    words and marks kept)."""
    return shape + " " + str(regex.sub(r"\p{Nd}", "0", " ".join(_halves(locale, shape))))


# What other tools (and WhatsApp itself, by platform and version) make of an export's bytes.
def _stamps(records: tuple[str, ...], rewrite: Callable[[str], str]) -> str:
    """The records with ``rewrite`` applied to each header line's stamp (up to the sender's name)."""
    out = []
    for record in records:
        cut = record.index(": ")
        cut = record.rindex(" ", 0, cut)
        out.append(rewrite(record[:cut]) + record[cut:] + "\n")
    return "".join(out)


# What other tools (and WhatsApp itself, by platform and version) make of an export's bytes.
REWRITES: dict[str, Callable[[tuple[str, ...]], str]] = {
    "as generated": lambda records: "".join(r + "\n" for r in records),
    "CR LF": lambda records: "".join(r.replace("\n", "\r\n") + "\r\n" for r in records),
    "BOM": lambda records: "\ufeff" + "".join(r + "\n" for r in records),
    # iOS writes U+202F between a time and its AM/PM word; other tools write a plain space or NBSP.
    "narrow NBSP before AM/PM": lambda records: _stamps(
        records, lambda s: regex.sub(r"(?<=\p{Nd}) (?=\p{L})|(?<=\p{L}) (?=\p{Nd})", "\u202f", s)
    ),
    "plain spaces": lambda records: _stamps(records, lambda s: regex.sub("[\u202f\u00a0\u2009]", " ", s)),
    "NBSP": lambda records: _stamps(records, lambda s: regex.sub("[ \u202f]", "\u00a0", s)),
    # iOS puts an LRM before the stamp of media and system lines; some tools before every one.
    "LRM at line starts": lambda records: "".join("\u200e" + r + "\n" for r in records),
}


def check(c: StampCase, folder: Path, rewrite: str = "as generated") -> list[str]:
    """What the WhatsApp importer reads wrong of a case's export (rewritten), as lines; [] when every
    message is read with its instant, sender and text, nothing glued, nothing warned."""
    path = folder / f"WhatsApp Chat with {c.locale} {c.shape}.txt"
    path.write_bytes(REWRITES[rewrite](c.records).encode("utf-8"))
    problems: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            (export,) = list(whatsapp.read(path, tz=ZONE))
            got = list(export.messages)
        except Exception as exc:  # the probe reports every failure, of any kind, as a line
            return [f"{type(exc).__name__}: {exc}"]
    problems += [f"warning: {w.message}" for w in caught]
    if len(got) != len(c.expected):
        problems.append(f"{len(got)} messages read, {len(c.expected)} written")
    for want, m in zip(c.expected, got, strict=False):
        if m.timestamp != want.when:
            problems.append(f"{m.local_time!r} read as {m.timestamp.astimezone(ZONE)}, written {want.when}")
        if m.sender != want.sender or m.text != want.text:
            problems.append(f"({m.sender!r}, {m.text!r}) read, ({want.sender!r}, {want.text!r}) written")
    return problems


@cache
def one_per_shape(key: Callable[[str, str], str] = shape_key) -> list[StampCase]:
    """One case per distinct stamp shape (the first locale, in order, that writes it)."""
    seen: dict[str, tuple[str, str]] = {}
    for locale in locales():
        for shape in SHAPES:
            if readable(locale, shape):
                seen.setdefault(key(locale, shape), (locale, shape))
    return [case(locale, shape) for locale, shape in seen.values()]


def line_export(locale: str, shape: str) -> StampCase:
    """A LINE export ("Export chat history") whose message lines carry the locale's own time (short, or the
    other hour cycle's), under LINE's year-first day lines: ``09:07<TAB>Name<TAB>text``."""
    loc = Locale.parse(locale)
    names = _names(locale)
    lines = ["[LINE] Chat history with Ana", "Saved on: 2027/01/01 10:00", ""]
    expected: list[Expected] = []
    day = None
    for when, who, _ in MOMENTS:
        if when.date() != day:
            day = when.date()
            lines += ["", f"{day.year}/{day.month:02d}/{day.day:02d}"]
        text = unicodedata.normalize("NFC", loc.months["format"]["wide"][when.month])
        time_text = digits(locale)(dates.format_time(when.time(), _time_pattern(loc, shape), locale=loc))
        lines.append(f"{time_text}\t{names[who]}\t{text}")
        expected.append(Expected(when.replace(second=0, tzinfo=ZONE), names[who], text))
    return StampCase(locale, shape, tuple(lines), tuple(expected))


def check_line(c: StampCase, folder: Path) -> list[str]:
    """What the LINE importer reads wrong of a ``line_export``, as lines; [] when it reads it right."""
    from refind_cli.importers import line

    path = folder / f"[LINE] {c.locale} {c.shape}.txt"
    path.write_text(c.text, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            (export,) = list(line.read(path, tz=ZONE))
            got = list(export.messages)
        except Exception as exc:  # the probe reports every failure, of any kind, as a line
            return [f"{type(exc).__name__}: {exc}"]
    problems = [f"warning: {w.message}" for w in caught]
    if len(got) != len(c.expected):
        problems.append(f"{len(got)} messages read, {len(c.expected)} written")
    for want, m in zip(c.expected, got, strict=False):
        if m.timestamp != want.when or m.sender != want.sender or m.text != want.text:
            problems.append(
                f"{(m.local_time, m.sender, m.text)!r} read, {(want.when, want.sender, want.text)!r} written"
            )
    return problems


def time_key(locale: str, shape: str) -> str:
    """The shape of a locale's times alone: after midnight and after noon, every digit a 0."""
    loc = _locale(locale)
    times = (
        dates.format_time(datetime(2026, 1, 5, h, 15).time(), _time_pattern(loc, shape), locale=loc)
        for h in (0, 12)
    )
    return shape + " " + str(regex.sub(r"\p{Nd}", "0", " ".join(times)))
