"""Dates and time expressions: ``--since``/``--until``/``--now`` values and the planner's date ranges.

Every expression denotes a range of instants, never a single point: ``2023-05`` is all of May,
``last week`` is Monday 00:00 to Sunday 23:59:59.999999, ``2023-05-04T10:30`` is that minute. Wall-clock
expressions are read in the caller's time zone and every result is an aware datetime in UTC with an
inclusive end (the last microsecond of the range), so a date-only ``--until`` keeps the whole day.

One grammar serves both users: ``parse_range`` requires the whole text to be one expression,
``find_ranges`` scans free text for them. The scanner is stricter where a word is often not a date
(``may``, ``fall``, a bare ``2000``): those count only after a preposition such as ``in`` or ``since``.

English is the grammar below, word for word. German, Spanish, French, Portuguese, Italian and Russian get
the same shapes (the same resolvers, prefixes and pairs) in their own words and word order, built from the
tables in ``timewords``; a question is read in one language (``lang``), because a word can be a date in one
and an ordinary word in another ("hier"). Other languages read English.
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from functools import cache
from typing import TYPE_CHECKING, TypeVar

from dateutil.relativedelta import relativedelta

if TYPE_CHECKING:
    from refind_cli.dates.timewords import Words

__all__ = ["TimeRange", "find_ranges", "parse_bound", "parse_instant", "parse_range"]

_US = timedelta(microseconds=1)
T = TypeVar("T")
_EXAMPLES = "2023-05-04, 2023-05, 2023-05-04T10:30, yesterday, last week, 3 days ago, march 2023"


@dataclass(frozen=True, slots=True)
class TimeRange:
    """An inclusive range of instants (aware, UTC) and the text that named it."""

    start: datetime
    end: datetime
    text: str


@dataclass(frozen=True, slots=True)
class _Wall:
    """Wall-clock times ``[start, stop)`` (naive) in ``tz``; ``unit`` says whether early/mid/late applies."""

    start: datetime
    stop: datetime
    tz: tzinfo
    unit: str  # "day" | "week" | "month" | "season" | "year" | "span"


@dataclass(frozen=True)
class _Grammar:
    """One language's patterns and what its words mean. Table keys are ``_fold``ed words."""

    patterns: tuple[_Pattern, ...]
    context: str  # what makes an ambiguous word a date: see _CONTEXT
    prefix: str  # what may stand before an expression: see _PREFIX
    connector: str
    not_a_year: str
    months: dict[str, int]
    weekdays: dict[str, int]
    seasons: dict[str, int]
    offsets: dict[str, int]
    numbers: dict[str, int]
    days: dict[str, int]
    units: dict[str, str]  # day, week, month, year, weekend, minute, hour
    parts: dict[str, int]
    roles: dict[str, str] = field(default_factory=dict)  # prefix words: in/from/between/since/after/before
    joins: dict[str, str] = field(default_factory=dict)  # connectors: to/and
    guards: dict[str, str] = field(default_factory=dict)  # a word: what it is no date after ("guten morgen")
    since_pairs: bool = False  # "desde marzo hasta mayo" is a range, not an open end

    def role(self, word: str) -> str:
        """The English word for a prefix word or connector; English words stand for themselves."""
        key = _fold(word)
        return self.roles.get(key, self.joins.get(key, key))


@dataclass(frozen=True, slots=True)
class _Ctx:
    now: datetime  # aware, in tz
    tz: tzinfo
    g: _Grammar

    @property
    def today(self) -> date:
        return self.now.date()

    @property
    def now_utc(self) -> datetime:
        return self.now.astimezone(UTC)


# --- vocabulary ----------------------------------------------------------------------------------------

# fmt: off
_MONTHS_FULL = ("january", "february", "march", "april", "may", "june",
                "july", "august", "september", "october", "november", "december")
_MONTH_ABBR = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
               "oct": 10, "nov": 11, "dec": 12}
_WEEKDAYS = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
_WEEKDAY_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
                 "sat": 5, "sun": 6}
_NUMBER_WORDS = {"a": 1, "an": 1, "a couple of": 2, "couple of": 2, "zero": 0, "one": 1, "two": 2, "three": 3,
                 "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11,
                 "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30}
# fmt: on
_MONTHS = {name: i for i, name in enumerate(_MONTHS_FULL, 1)} | _MONTH_ABBR
_WEEKDAYS_ALL = _WEEKDAYS | _WEEKDAY_ABBR
_SEASONS = {"winter": 0, "spring": 1, "summer": 2, "autumn": 3, "fall": 3}
_OFFSETS = {"last": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}
# early/mid/late are thirds; "the beginning/start of" and "the end of" are the first or last days (_part).
_FIRST, _LAST = 3, 4
_PARTS = {"early": 0, "beginning": _FIRST, "start": _FIRST, "mid": 1, "middle": 1, "late": 2, "end": _LAST}


def _alt(words: Iterable[str]) -> str:
    # Longest first, so that "sept" is tried before "sep" and "a couple of" before "a".
    return "|".join(sorted((w.replace(" ", r"\s+") for w in words), key=len, reverse=True))


def _key(word: str) -> str:
    """The vocabulary key of a matched word. IGNORECASE also matches 'ſ', 'K' (Kelvin), 'İ' and 'ı'."""
    folded = word.casefold().replace("\u0307", "").replace("\u0131", "i")
    return re.sub(r"\s+", " ", folded)


def _fold(word: str) -> str:
    """``_key`` without the accents of Latin letters, ё as е and ’ as ': "Mês" and "mes" are one key.
    English words are ASCII, so for them this is ``_key``."""
    key = _key(word).replace("ё", "е").replace("’", "'")
    if key.isascii():
        return key
    kept, base = [], ""
    for c in unicodedata.normalize("NFD", key):
        if not unicodedata.combining(c):
            base = c
        elif base < "\u0250":  # a mark on a Latin letter; Cyrillic й keeps its breve
            continue
        kept.append(c)
    return unicodedata.normalize("NFC", "".join(kept))


def _look(table: dict[str, int], word: str) -> int:
    return table[_fold(word).removesuffix(".")]


_MONTH_ANY = _alt(_MONTHS)
_MONTH_FULL = _alt(_MONTHS_FULL)
_NUM = rf"(?P<n>[0-9]{{1,4}}|(?:{_alt(_NUMBER_WORDS)}))"
_UNIT = r"(?P<unit>days?|weeks?|months?|years?)"
_REL = rf"(?P<rel>{_alt(_OFFSETS)})"
_SEASON = rf"(?P<season>{_alt(_SEASONS)})"
_YEAR = r"(?P<y>[0-9]{4})"
_DAY = r"(?P<d>[0-9]{1,2})(?:st|nd|rd|th)?"


# --- wall-clock to UTC -----------------------------------------------------------------------------------


def _to_utc(wall: datetime, tz: tzinfo) -> datetime:
    """The first instant whose wall-clock time in ``tz`` is at or after ``wall``.

    For a repeated wall time (clocks going back) that is its first occurrence; for one that never
    happens (clocks going forward) it is the moment of the jump.
    """
    utc = wall.replace(tzinfo=tz, fold=0).astimezone(UTC)
    if utc.astimezone(tz).replace(tzinfo=None) == wall:
        return utc
    # In a gap, fold=1 applies the later offset and lands before the jump, fold=0 the earlier and after it.
    lo = wall.replace(tzinfo=tz, fold=1).astimezone(UTC)
    hi = utc
    if lo > hi:
        lo, hi = hi, lo
    while hi - lo > _US:
        mid = lo + (hi - lo) / 2
        if mid.astimezone(tz).replace(tzinfo=None) >= wall:
            hi = mid
        else:
            lo = mid
    return hi


# --- calendar ranges ---------------------------------------------------------------------------------------


def _days(d: date, n: int, tz: tzinfo, unit: str = "day") -> _Wall:
    start = datetime.combine(d, time())
    return _Wall(start, start + timedelta(days=n), tz, unit)


def _week(d: date, tz: tzinfo, offset: int = 0) -> _Wall:
    return _days(d - timedelta(days=d.weekday() - 7 * offset), 7, tz, "week")


def _weekend(d: date, tz: tzinfo, offset: int = 0) -> _Wall:
    return _days(d - timedelta(days=d.weekday() - 7 * offset - 5), 2, tz, "span")


def _month(year: int, month: int, tz: tzinfo) -> _Wall:
    start = datetime(year, month, 1)
    return _Wall(start, start + relativedelta(months=1), tz, "month")


def _year(year: int, tz: tzinfo) -> _Wall:
    return _Wall(datetime(year, 1, 1), datetime(year + 1, 1, 1), tz, "year")


def _season_index(d: date) -> int:
    """Seasons numbered ``4 * year + i`` (0 winter .. 3 autumn); a winter is named by its January."""
    year = d.year + 1 if d.month == 12 else d.year
    return 4 * year + (d.month % 12) // 3


def _season(index: int, tz: tzinfo) -> _Wall:
    year, i = divmod(index, 4)
    start = datetime(year - 1, 12, 1) if i == 0 else datetime(year, 3 * i, 1)
    return _Wall(start, start + relativedelta(months=3), tz, "season")


def _part(wall: _Wall, part: int) -> _Wall | None:
    """Early/mid/late third of a month (days 1-10, 11-20, 21-end), a season (by month) or a year (by 4 months);
    its start or end: the first or last 7 days of a month, the first or last month of a season or year."""
    if part in (_FIRST, _LAST):
        if wall.unit not in ("month", "season", "year"):
            return None
        edge = timedelta(days=7) if wall.unit == "month" else relativedelta(months=1)
        if part == _FIRST:
            return _Wall(wall.start, wall.start + edge, wall.tz, "span")
        return _Wall(wall.stop - edge, wall.stop, wall.tz, "span")
    if wall.unit == "month":
        cuts = [wall.start, wall.start.replace(day=11), wall.start.replace(day=21), wall.stop]
    elif wall.unit in ("season", "year"):
        step = relativedelta(months=1 if wall.unit == "season" else 4)
        cuts = [wall.start, wall.start + step, wall.start + step * 2, wall.stop]
    else:
        return None
    return _Wall(cuts[part], cuts[part + 1], wall.tz, "span")


def _check_day(year: int, month: int, day: int) -> date:
    if not 1 <= month <= 12:
        raise ValueError(f"there is no month {month}")
    last = calendar.monthrange(year, month)[1]
    if not 1 <= day <= last:
        raise ValueError(f"{calendar.month_name[month]} {year} has no day {day}")
    return date(year, month, day)


# --- resolvers: one per pattern, each from a match to a wall-clock range --------------------------------------


def _iso(m: re.Match[str], ctx: _Ctx) -> _Wall:
    return _iso_wall(m, ctx.tz)


def _iso_wall(m: re.Match[str], tz: tzinfo) -> _Wall:
    year, month = int(m["y"]), int(m["m"])
    if m["d"] is None:
        if not 1 <= month <= 12:
            raise ValueError(f"there is no month {month}")
        return _month(year, month, tz)
    day = _check_day(year, month, int(m["d"]))
    if m["H"] is None:
        return _days(day, 1, tz)
    hour, minute = int(m["H"]), int(m["M"])
    second = int(m["S"] or 0)
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"there is no time {m['H']}:{m['M']}{':' + m['S'] if m['S'] else ''}")
    fraction = m["f"] or ""
    start = datetime.combine(day, time(hour, minute, second, int(fraction.ljust(6, "0") or 0)))
    if fraction:
        step = timedelta(microseconds=10 ** (6 - len(fraction)))
    else:
        step = timedelta(seconds=1) if m["S"] else timedelta(minutes=1)
    if m["off"]:
        tz = UTC if m["off"].upper() == "Z" else _offset(m["off"])
    return _Wall(start, start + step, tz, "span")


def _offset(text: str) -> timezone:
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        raise ValueError(f"there is no UTC offset {text}")
    delta = timedelta(hours=hours, minutes=minutes)
    return timezone(-delta if text[0] == "-" else delta)


def _year_only(m: re.Match[str], ctx: _Ctx) -> _Wall:
    return _year(int(m["y"]), ctx.tz)


def _recent_day(month: int, day: int, today: date) -> date:
    """The latest ``day month`` not after today; 29 February looks back to the last leap year."""
    if not 1 <= day <= calendar.monthrange(2000, month)[1]:  # 2000 is a leap year: the most days any year has
        raise ValueError(f"{calendar.month_name[month]} has no day {day}")
    year = today.year
    while (candidate := _check_or_none(year, month, day)) is None or candidate > today:
        year -= 1
    return candidate


def _check_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return _check_day(year, month, day)
    except ValueError:
        return None


def _day_of_month(m: re.Match[str], ctx: _Ctx) -> _Wall:
    month, day = _look(ctx.g.months, m["mon"]), int(m["d"])
    if m["y"]:
        return _days(_check_day(int(m["y"]), month, day), 1, ctx.tz)
    return _days(_recent_day(month, day, ctx.today), 1, ctx.tz)


def _month_year(m: re.Match[str], ctx: _Ctx) -> _Wall:
    return _month(int(m["y"]), _look(ctx.g.months, m["mon"]), ctx.tz)


def _month_name(m: re.Match[str], ctx: _Ctx) -> _Wall:
    """Without a year: the latest such month not after now; last/next: strictly before/after this month."""
    month, today = _look(ctx.g.months, m["mon"]), ctx.today
    offset = _look(ctx.g.offsets, m["rel"]) if m.groupdict().get("rel") else None
    year = today.year
    if offset is None:
        year -= month > today.month
    elif offset < 0:
        year -= month >= today.month
    elif offset > 0:
        year += month <= today.month
    return _month(year, month, ctx.tz)


def _season_name(m: re.Match[str], ctx: _Ctx) -> _Wall:
    """Latest such season not after now; last/next: strictly before/after the current one; this: the nearest."""
    target = _look(ctx.g.seasons, m["season"])
    groups = m.groupdict()
    if groups.get("y"):
        return _season(4 * int(groups["y"]) + target, ctx.tz)
    current = _season_index(ctx.today)
    back = (current - target) % 4
    offset = _look(ctx.g.offsets, groups["rel"]) if groups.get("rel") else None
    if offset is None:
        index = current - back
    elif offset < 0:
        index = current - (back or 4)
    elif offset > 0:
        index = current + ((target - current) % 4 or 4)
    else:  # ties go to the past: an archive is searched for what happened
        index = current - back if back <= 2 else current + 4 - back
    return _season(index, ctx.tz)


def _relative_unit(m: re.Match[str], ctx: _Ctx) -> _Wall:
    unit = _unit(m, ctx)
    offset = -2 if m.groupdict().get("before_last") else _look(ctx.g.offsets, m["rel"])
    today = ctx.today
    if unit == "week":
        return _week(today, ctx.tz, offset)
    if unit == "weekend":
        return _weekend(today, ctx.tz, offset)
    if unit == "month":
        first = today.replace(day=1) + relativedelta(months=offset)
        return _month(first.year, first.month, ctx.tz)
    return _year(today.year + offset, ctx.tz)


def _weekend_bare(m: re.Match[str], ctx: _Ctx) -> _Wall:
    return _weekend(ctx.today, ctx.tz, 0 if ctx.today.weekday() >= 5 else -1)


def _ago(m: re.Match[str], ctx: _Ctx) -> _Wall:
    """The calendar day/week/month/year that contains the moment n units ago."""
    n, unit = _count(m, ctx), _unit(m, ctx)
    if unit in ("minute", "hour"):
        return _clock_ago(m, ctx)
    today = ctx.today
    if unit == "day":
        return _days(today - timedelta(days=n), 1, ctx.tz)
    if unit == "week":
        return _week(today - timedelta(weeks=n), ctx.tz)
    if unit == "month":
        first = today.replace(day=1) - relativedelta(months=n)
        return _month(first.year, first.month, ctx.tz)
    return _year(today.year - n, ctx.tz)


def _clock_ago(m: re.Match[str], ctx: _Ctx) -> _Wall:
    """The clock minute or hour that contains the moment n minutes or hours ago."""
    hours = _unit(m, ctx) == "hour"
    unit = timedelta(hours=1) if hours else timedelta(minutes=1)
    then = (ctx.now_utc - _count(m, ctx) * unit).astimezone(ctx.tz).replace(tzinfo=None)
    start = then.replace(minute=0 if hours else then.minute, second=0, microsecond=0)
    return _Wall(start, start + unit, ctx.tz, "span")


def _slashed(m: re.Match[str], ctx: _Ctx) -> _Wall:
    """2026/04/07 and 20260407: a day, year first."""
    return _days(_check_day(int(m["y"]), int(m["m"]), int(m["d"])), 1, ctx.tz)


def _quarter(m: re.Match[str], ctx: _Ctx) -> _Wall:
    start = datetime(int(m["y"]), 3 * int(m["q"]) - 2, 1)
    return _Wall(start, start + relativedelta(months=3), ctx.tz, "season")  # a season: its parts are months


def _rolling(m: re.Match[str], ctx: _Ctx) -> _Wall:
    """'the past 3 days', 'the past month': a window ending now, not a calendar unit."""
    n, unit = _count(m, ctx), _unit(m, ctx)
    now = ctx.now_utc.replace(tzinfo=None)
    # The unit is one of relativedelta's int fields (days, weeks, months, years), not its dt1/dt2.
    return _Wall(now - relativedelta(**{unit + "s": n}), now + _US, UTC, "span")  # type: ignore[arg-type]


def _day_word(m: re.Match[str], ctx: _Ctx) -> _Wall:
    shift = _look(ctx.g.days, m["w"])
    if m.groupdict().get("two"):
        shift *= 2
    return _days(ctx.today + timedelta(days=shift), 1, ctx.tz)


def _weekday(m: re.Match[str], ctx: _Ctx) -> _Wall:
    """Bare: the latest such day, today included; last/next: strictly before/after today; this: this week."""
    target = _look(ctx.g.weekdays, m["wd"])
    today = ctx.today
    offset = _look(ctx.g.offsets, m["rel"]) if m.groupdict().get("rel") else None
    if offset is None:
        day = today - timedelta(days=(today.weekday() - target) % 7)
    elif offset < 0:
        day = today - timedelta(days=(today.weekday() - target - 1) % 7 + 1)
    elif offset > 0:
        day = today + timedelta(days=(target - today.weekday() - 1) % 7 + 1)
    else:
        day = today + timedelta(days=target - today.weekday())
    return _days(day, 1, ctx.tz)


def _now(m: re.Match[str], ctx: _Ctx) -> _Wall:
    now = ctx.now_utc.replace(tzinfo=None)
    return _Wall(now, now + _US, UTC, "span")


def _count(m: re.Match[str], ctx: _Ctx) -> int:
    """The number before a unit: digits or a word; none ("неделю назад", "the past week") is one."""
    text = m.groupdict().get("n")
    if text is None:
        return 1
    key = _fold(text)
    return ctx.g.numbers[key] if key in ctx.g.numbers else int(key)


def _unit(m: re.Match[str], ctx: _Ctx) -> str:
    return ctx.g.units[_fold(m["unit"])]


# --- patterns ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Pattern:
    source: str
    resolve: Callable[[re.Match[str], _Ctx], _Wall]
    scan: str  # "yes": found anywhere; "context": only after a preposition; "no": whole-text parsing only


@cache
def _rx(source: str) -> re.Pattern[str]:
    # Compiled on first use: `refind search` imports this module, and compiling the grammar costs more
    # than the rest of its import.
    return re.compile(source, re.IGNORECASE)


def _p(source: str, resolve: Callable[[re.Match[str], _Ctx], _Wall], scan: str = "yes") -> _Pattern:
    return _Pattern(source, resolve, scan)


_ISO_RE = (
    r"(?<![\w.:/+-])(?P<y>[0-9]{4})-(?P<m>[0-9]{1,2})"
    r"(?:-(?P<d>[0-9]{1,2})"
    r"(?:[T\s](?P<H>[0-9]{1,2}):(?P<M>[0-9]{2})(?::(?P<S>[0-9]{2})(?:[.,](?P<f>[0-9]{1,6}))?)?"
    r"(?P<off>Z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?)?"
    r"(?![\w:+]|[.,/-][0-9])"
)
_ISO = _p(_ISO_RE, _iso)
# A year on its own: not part of a number, an amount, a time or a path ("mid-2025" is fine).
_YEAR_ALONE_BEFORE = r"(?:(?<![\w.,:/+$€£#-])|(?<=mid-)|(?<=early-)|(?<=late-))"
_YEAR_ALONE_AFTER = r"(?![\w%$€£]|[.,:/-][0-9])"
# Patterns of digits, shared by every language.
_YEAR_IN_CONTEXT = _p(
    rf"{_YEAR_ALONE_BEFORE}(?P<y>(?:19|20)[0-9]{{2}}){_YEAR_ALONE_AFTER}", _year_only, "context"
)
_YEAR_WHOLE = _p(rf"{_YEAR_ALONE_BEFORE}(?P<y>[0-9]{{4}}){_YEAR_ALONE_AFTER}", _year_only, "no")
_SLASHED = _p(
    r"(?<![\w./:+-])(?P<y>[0-9]{4})/(?P<m>[0-9]{1,2})/(?P<d>[0-9]{1,2})(?![\w/]|[.,:-][0-9])", _slashed
)
# Eight digits are a date only as a whole --since/--until value: in a question they are any number.
_EIGHT_DIGITS = _p(r"(?P<y>(?:19|20)[0-9]{2})(?P<m>[01][0-9])(?P<d>[0-3][0-9])", _slashed, "no")
_QUARTERS = (
    _p(r"\bQ(?P<q>[1-4])(?:\s+|\s*[-/]\s*)(?P<y>[0-9]{4})\b", _quarter),
    _p(r"\b(?P<y>[0-9]{4})(?:\s+|\s*[-/]\s*)Q(?P<q>[1-4])\b", _quarter),
)
# Order breaks ties between matches of the same span: the first listed wins.
_PATTERNS = (
    _ISO,
    _p(rf"\b{_DAY}\s+(?:of\s+)?(?P<mon>{_MONTH_ANY})\b(?:,?\s+{_YEAR}\b)?", _day_of_month),
    _p(rf"\b(?P<mon>{_MONTH_ANY})\s+(?:the\s+)?{_DAY}\b(?![:.][0-9])(?:,?\s+{_YEAR}\b)?", _day_of_month),
    _p(rf"\b(?P<mon>{_MONTH_ANY}),?\s+(?:of\s+)?{_YEAR}\b", _month_year),
    _p(rf"\b{_REL}\s+(?P<mon>{_MONTH_FULL})\b", _month_name),
    _p(rf"\b(?P<mon>{_alt(m for m in _MONTHS_FULL if m != 'may')})\b", _month_name),
    _p(r"\b(?P<mon>may)\b", _month_name, "context"),
    _p(rf"\b(?P<mon>{_alt(_MONTH_ABBR)})\b", _month_name, "no"),
    _p(rf"\b{_SEASON}\s+(?:of\s+)?{_YEAR}\b", _season_name),
    _p(rf"\b{_REL}\s+{_SEASON}\b", _season_name),
    _p(r"\b(?P<season>spring|summer|autumn|winter)\b", _season_name),
    _p(r"\b(?P<season>fall)\b", _season_name, "context"),
    _YEAR_IN_CONTEXT,
    _YEAR_WHOLE,
    _p(rf"\b{_REL}\s+(?P<unit>week|month|year|weekend)\b", _relative_unit),
    _p(r"\b(?:the\s+)?(?P<unit>week|month|year|weekend)\s+(?P<before_last>before\s+last)\b", _relative_unit),
    _p(r"\bweekend\b", _weekend_bare, "context"),
    _p(rf"\b{_NUM}\s+{_UNIT}\s+ago\b", _ago),
    _p(rf"\b{_NUM}\s+(?P<unit>minutes?|mins?|hours?|hrs?)\s+ago\b", _clock_ago),
    _SLASHED,
    _EIGHT_DIGITS,
    *_QUARTERS,
    _p(rf"\b(?:the\s+)?(?:past|last|previous)\s+{_NUM}\s+{_UNIT}\b", _rolling),
    _p(r"\b(?:the\s+)?past\s+(?P<unit>day|week|month|year)\b", _rolling),
    _p(r"\b(?:(?:the\s+)?day\s+(?P<two>before|after)\s+)?(?P<w>today|yesterday|tomorrow)\b", _day_word),
    _p(rf"\b(?:{_REL}\s+)?(?P<wd>{_alt(_WEEKDAYS)})\b", _weekday),
    _p(rf"\b(?:{_REL}\s+)?(?P<wd>{_alt(_WEEKDAY_ABBR)})\b", _weekday, "no"),
    _p(r"\bnow\b", _now, "no"),
)

# What makes an ambiguous word ("may", "fall", "2000") a date: a preposition right before it, or "and"/"to"
# after another date ("March to may").
_CONTEXT = (
    r"(?:\b(?:in|on|during|throughout|since|after|before|until|till|from|between|through|by|early|mid|late|of|"
    r"last|this|next|over|around)"
    rf"|\b(?:{_MONTH_ANY}|{_alt(_SEASONS)}|[0-9]{{1,4}}(?:st|nd|rd|th)?)\s*(?:and|to|through|thru|-|–|—))"
    r"\s*-?\s*(?:\bthe\s+)?$"
)
# Years followed by these are amounts, not years.
_NOT_A_YEAR = (
    r"\s*(?:euros?|dollars?|pounds?|eur|usd|gbp|chf|people|persons|km|kg|miles?|met(?:er|re)s?|words|pages|times|"
    r"steps|calories|kcal|followers|views|likes)\b"
)

# What may stand before an expression: a lead word (a preposition, an open-ended modifier, or a duration
# before/after an event) and then early/mid/late and "the". Searched in a short window that ends at the atom.
_PREFIX = (
    rf"(?:(?P<lead>\b(?:{_NUM}|the)\s+(?:days?|weeks?|months?|years?|weekends?)\s+"
    r"(?P<event>before|after|prior\s+to|following)"
    r"|\b(?P<mod>since|after|before|until|till|by|prior\s+to)"
    r"|\b(?P<fill>in|on|during|throughout|within|from|between|at|around|over))\s+)?"
    r"(?P<core>(?:\b(?P<part>early|mid|late|(?:the\s+)?(?:beginning|start|middle|end)\s+of)(?:\s+|\s*-\s*))?"
    r"(?:\bthe\s+)?)$"
)
_CONNECTOR = r"\s*(?P<c>and|to|until|till|through|thru|-|–|—)\s*"
_WINDOW = 80

_ENGLISH = _Grammar(
    patterns=_PATTERNS,
    context=_CONTEXT,
    prefix=_PREFIX,
    connector=_CONNECTOR,
    not_a_year=_NOT_A_YEAR,
    months=_MONTHS,
    weekdays=_WEEKDAYS_ALL,
    seasons=_SEASONS,
    offsets=_OFFSETS,
    numbers=_NUMBER_WORDS,
    days={"today": 0, "yesterday": -1, "tomorrow": 1},
    units={
        **{
            f"{unit}{s}": unit
            for unit in ("day", "week", "month", "year", "minute", "hour")
            for s in ("", "s")
        },
        **{"weekend": "weekend", "min": "minute", "mins": "minute", "hr": "hour", "hrs": "hour"},
    },
    parts=_PARTS,
)


# --- the other languages, built from their tables in timewords ------------------------------------------------

_DIGRAPHS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue"})
_END = r"(?!\w)"
_JOIN = r"(?:\s+|(?<=['’]))"  # between words, or none after an elision: "quest'anno", "un'ora"


def _spellings(word: str) -> set[str]:
    """How a table's word is typed: as written, without accents, with ae/oe/ue for umlauts, with ’ for '."""
    forms = {word, _fold(word), _fold(word.translate(_DIGRAPHS))}
    return forms | {f.replace("'", "’") for f in forms}


def _alternation(forms: Iterable[str]) -> str:
    """Words as a regex alternation, longest first, spaces matching any run of spaces; never empty."""
    escaped = sorted({re.escape(f).replace(r"\ ", r"\s+") for f in forms}, key=len, reverse=True)
    assert escaped
    return "|".join(escaped)


def _build(w: Words) -> _Grammar:
    """A language's grammar: the English one's shapes in that language's words and word order."""

    def spell(word: str) -> set[str]:
        return {word, word.replace("'", "’")} if word in w.accented else _spellings(word)

    def table(*tables: dict[str, T]) -> dict[str, T]:
        return {_fold(form): value for each in tables for word, value in each.items() for form in spell(word)}

    def alt(words: Iterable[str]) -> str:
        return _alternation(form for word in words for form in spell(word))

    ambiguous = {_fold(word) for word in w.ambiguous}

    def split(words: dict[str, int]) -> tuple[str, str | None]:
        """The spellings that are always a date, and those that are one only after a context word: the
        ambiguous words, and spellings without accents of them (but "março" stays a month, "marco" not)."""
        plain, other = set(), set()
        for word in words:
            for form in spell(word):
                if _key(form) in w.ambiguous or (form != word and _fold(form) in ambiguous):
                    other.add(form)
                else:
                    plain.add(form)
        return _alternation(plain), (_alternation(other) if other else None)

    def both(
        source: Callable[[str], str],
        words: tuple[str, str | None],
        resolve: Callable[[re.Match[str], _Ctx], _Wall],
    ) -> Iterator[_Pattern]:
        """The pattern with the plain words, and with the ambiguous ones where context makes them dates."""
        yield _p(source(words[0]), resolve)
        if words[1] is not None:
            yield _p(source(words[1]), resolve, "context")

    of = rf"(?:(?:{alt(w.of)})\s+)?" if w.of else ""
    year_word = rf"\s*(?:{alt(w.year_words)})(?:(?<=\.)|{_END})" if w.year_words else None
    year = rf"(?P<y>[0-9]{{4}}){_END}" + (f"(?:{year_word})?" if year_word else "")
    day = rf"(?P<d>[0-9]{{1,2}}){w.day_suffix}"
    months, months_split = alt(w.months), split(w.months)
    month_any = rf"(?P<mon>(?:{months}){_END}|(?:{alt(w.month_abbr)})(?:\.|{_END}))"
    seasons, seasons_split = alt(w.seasons), split(w.seasons)
    weekdays, weekdays_split = alt(w.weekdays), split(w.weekdays)
    before = rf"\b(?P<rel>{alt(w.rel_before)}){_JOIN}"
    after = rf"\s+(?P<rel>{alt(w.rel_after)}){_END}" if w.rel_after else None
    num = rf"(?P<n>[0-9]{{1,4}}|(?:{alt(w.numbers)})){_JOIN}"
    counted = rf"(?P<unit>{alt(w.counted)}){_END}"
    weekend = alt(word for word, unit in w.units.items() if unit == "weekend")
    rolling = alt(w.rolling)
    # The same slots as the English patterns, in the same order (it breaks ties of equal spans).
    patterns = [
        _ISO,
        _p(rf"\b{day}\s+{of}{month_any}(?:,?\s+{of}{year})?", _day_of_month),
        _p(rf"\b{month_any},?\s+{of}{year}", _month_year),
        _p(rf"{before}(?P<mon>{months}){_END}", _month_name),
        *(both(lambda a: rf"\b(?P<mon>{a}){_END}{after}", months_split, _month_name) if after else ()),
        *both(lambda a: rf"\b(?P<mon>{a}){_END}", months_split, _month_name),
        _p(rf"\b(?P<mon>{alt(w.month_abbr)})(?:\.|{_END})", _month_name, "no"),
        _p(rf"\b(?P<season>{seasons}){_END}\s+{of}{year}", _season_name),
        _p(rf"{before}(?P<season>{seasons}){_END}", _season_name),
        *(both(lambda a: rf"\b(?P<season>{a}){_END}{after}", seasons_split, _season_name) if after else ()),
        *both(lambda a: rf"\b(?P<season>{a}){_END}", seasons_split, _season_name),
        _YEAR_IN_CONTEXT,
        _YEAR_WHOLE,
        *([_p(rf"{_YEAR_ALONE_BEFORE}(?P<y>[0-9]{{4}}){year_word}", _year_only)] if year_word else []),
        _p(rf"{before}(?P<unit>{alt(w.units)}){_END}", _relative_unit),
        *([_p(rf"\b(?P<unit>{alt(w.units)}){_END}{after}", _relative_unit)] if after else []),
        _p(rf"\b(?P<unit>{weekend}){_END}", _weekend_bare, "context"),
        *([_p(rf"\b(?:{alt(w.ago_before)})\s+{num}{counted}", _ago)] if w.ago_before else []),
        *(
            [_p(rf"\b{f'(?:{num})?' if w.ago_alone else num}{counted}\s+(?:{alt(w.ago_after)}){_END}", _ago)]
            if w.ago_after
            else []
        ),
        _SLASHED,
        _EIGHT_DIGITS,
        *_QUARTERS,
        _p(
            rf"\b{num}(?:{rolling})\s+{counted}"
            if w.rolling_after_number
            else rf"\b(?:{rolling})\s+{num}{counted}",
            _rolling,
        ),
        _p(rf"\b(?P<w>{alt(w.days)}){_END}", _day_word),
        _p(rf"{before}(?P<wd>{weekdays}){_END}", _weekday),
        *([_p(rf"\b(?P<wd>{weekdays}){_END}{after}", _weekday)] if after else []),
        *both(lambda a: rf"\b(?P<wd>{a}){_END}", weekdays_split, _weekday),
        _p(rf"\b(?P<wd>{alt(w.weekday_abbr)})(?:\.|{_END})", _weekday, "no"),
        _p(rf"\b(?:{alt(w.now)}){_END}", _now, "no"),
    ]
    connectors = alt(w.connectors)
    spaced = [a for a in w.articles if not a.endswith("'")]
    elided = [a for a in w.articles if a.endswith("'")]
    article = "|".join(
        [*([rf"\b(?:{alt(spaced)})\s+"] if spaced else []), *([rf"\b(?:{alt(elided)})"] if elided else [])]
    )
    article = f"(?:{article})?" if article else ""
    context_words = alt([*w.fills, *w.mods, *w.parts, *w.rel_before, *w.context, *elided])
    part = f"(?:{alt(w.parts)})" + (rf"(?:\s+(?:{alt(w.part_links)}))?" if w.part_links else "")
    return _Grammar(
        patterns=tuple(patterns),
        context=(
            rf"(?:\b(?:{context_words})|\b(?:{months}|{seasons}|[0-9]{{1,4}}\.?)\s*(?:{connectors}))"
            rf"\s*-?\s*{article}$"
        ),
        prefix=(
            rf"(?:(?P<lead>(?P<event>(?!))|\b(?P<mod>{alt(w.mods)})|\b(?P<fill>{alt(w.fills)})){_JOIN})?"
            rf"(?P<core>(?:\b(?P<part>{part})(?:\s+|\s*-\s*|(?<=['’])))?{article})$"
        ),
        connector=rf"\s*(?P<c>{connectors})\s*",
        not_a_year=rf"\s*(?:{alt(w.amounts)}){_END}",
        months=table(w.months, w.month_abbr),
        weekdays=table(w.weekdays, w.weekday_abbr),
        seasons=table(w.seasons),
        offsets=table(w.rel_before, w.rel_after),
        numbers=table(w.numbers),
        days=table(w.days),
        units=table(w.units, w.counted),
        parts=table(w.parts),
        roles=table(w.fills, w.mods),
        joins=table(w.connectors),
        guards={
            _fold(form): rf"\b(?:{alt(words)})\s+$"
            for word, words in w.not_after.items()
            for form in spell(word)
        },
        since_pairs=w.since_pairs,
    )


@cache
def _grammar(lang: str) -> _Grammar:
    """The grammar of an ISO 639-1 code ("pt-BR" is "pt"); English for "en", "und" and every other code."""
    code = re.split(r"[-_]", lang, maxsplit=1)[0].casefold()
    if code == "en":
        return _ENGLISH
    # Imported here: `refind search` imports this module, and English needs none of the tables.
    from refind_cli.dates.timewords import LANGUAGES

    return _build(LANGUAGES[code]) if code in LANGUAGES else _ENGLISH


@dataclass(frozen=True, slots=True)
class _Atom:
    lead: int  # where the lead word begins (== core when there is none)
    core: int  # where early/mid/late or "the" begins (== the expression's start when there is none)
    end: int
    first: datetime
    last: datetime
    fill: str | None
    mod: str | None
    event: bool
    match: re.Match[str]
    pattern: _Pattern
    after: int


def _before(source: str, text: str, start: int) -> bool:
    return _rx(source).search(text, max(0, start - _WINDOW), start) is not None


def _candidates(text: str, whole: bool, g: _Grammar) -> list[tuple[re.Match[str], _Pattern]]:
    """Non-overlapping matches, leftmost first, the longest at each place."""
    found: list[tuple[int, int, int, re.Match[str], _Pattern]] = []
    for order, pattern in enumerate(g.patterns):
        if pattern.scan == "no" and not whole:
            continue
        for m in _rx(pattern.source).finditer(text):
            if pattern.scan == "context" and not whole:
                if not _before(g.context, text, m.start()):
                    continue
                if pattern.resolve is _year_only and _rx(g.not_a_year).match(text, m.end()):
                    continue
            guard = g.guards.get(_fold(m[0]))
            if guard is not None and _before(guard, text, m.start()):
                continue
            found.append((m.start(), -m.end(), order, m, pattern))
    found.sort(key=lambda f: f[:3])
    chosen: list[tuple[re.Match[str], _Pattern]] = []
    taken = 0
    for start, neg_end, _, m, pattern in found:
        if start >= taken:
            chosen.append((m, pattern))
            taken = -neg_end
    return chosen


def _bounds(wall: _Wall) -> tuple[datetime, datetime]:
    first, last = _to_utc(wall.start, wall.tz), _to_utc(wall.stop, wall.tz) - _US
    if first > last:
        raise ValueError(f"that time does not exist in {wall.tz} (the clocks skip it)")
    return first, last


def _atom(text: str, m: re.Match[str], pattern: _Pattern, ctx: _Ctx, after: int) -> _Atom:
    """Resolve one match, with the words before it (from ``after`` on, where the previous match ended)."""
    wall = pattern.resolve(m, ctx)
    prefix = _rx(ctx.g.prefix).search(text, max(after, m.start() - _WINDOW), m.start())
    assert prefix is not None  # every part of _PREFIX is optional
    if prefix["part"]:
        parts = ctx.g.parts
        parted = _part(wall, next(parts[w] for w in map(_fold, prefix["part"].split()) if w in parts))
        if parted is None:  # "early yesterday": the words before are not part of the expression
            first, last = _bounds(wall)
            return _Atom(m.start(), m.start(), m.end(), first, last, None, None, False, m, pattern, after)
        wall = parted
    first, last = _bounds(wall)
    core = prefix.start("core")
    lead = prefix.start("lead") if prefix["lead"] else core
    fill = ctx.g.role(prefix["fill"]) if prefix["fill"] else None
    mod = ctx.g.role(prefix["mod"]) if prefix["mod"] else None
    return _Atom(lead, core, m.end(), first, last, fill, mod, bool(prefix["event"]), m, pattern, after)


def _single(atom: _Atom, now: datetime) -> tuple[datetime, datetime] | None:
    """The range an atom denotes after its lead word; None when it is open-ended or relative to an event."""
    if atom.event:
        return None
    if atom.mod == "since":
        return (atom.first, now) if atom.first <= now else None
    if atom.mod == "after":
        return (atom.last + _US, now) if atom.last < now else None
    if atom.mod is not None:  # before/until/till/by: no start to give
        return None
    return atom.first, atom.last


def _pair(text: str, a: _Atom, b: _Atom, g: _Grammar) -> bool:
    """Whether ``a`` and ``b`` are the two ends of one range: "from March to May", "between 2023 and 2024"."""
    opened = a.mod is None or (a.mod == "since" and g.since_pairs)
    if not opened or a.event or a.fill not in (None, "from", "between"):
        return False
    # Portuguese "de março a maio": the connector "a" is also an article, which the prefix gave to b's core.
    connector = _rx(g.connector)
    link = connector.fullmatch(text, a.end, b.core) or connector.fullmatch(text, a.end, b.match.start())
    if link is None:
        return False
    return (g.role(link["c"]) == "and") == (a.fill == "between")


def _start_before(text: str, a: _Atom, b: _Atom, ctx: _Ctx) -> _Atom:
    """'from March to May 2025': a start without a year is the latest one not after the range's end."""
    try:
        return _atom(text, a.match, a.pattern, _Ctx(b.last.astimezone(ctx.tz), ctx.tz, ctx.g), a.after)
    except (ValueError, OverflowError):
        return a


def _scan(text: str, ctx: _Ctx, whole: bool) -> list[tuple[int, int, tuple[datetime, datetime] | None]]:
    atoms: list[_Atom] = []
    after = 0
    for m, pattern in _candidates(text, whole, ctx.g):
        try:
            atoms.append(_atom(text, m, pattern, ctx, after))
        except (ValueError, OverflowError) as err:
            if whole:
                raise ValueError(f"{m[0]!r}: {err}") from None
        after = m.end()
    now = ctx.now_utc
    found: list[tuple[int, int, tuple[datetime, datetime] | None]] = []
    i = 0
    while i < len(atoms):
        a = atoms[i]
        if i + 1 < len(atoms) and _pair(text, a, atoms[i + 1], ctx.g):
            b = atoms[i + 1]
            if a.first > b.last:
                a = _start_before(text, a, b, ctx)
            if a.first > b.last and whole:
                raise ValueError(f"{text[a.lead : b.end]!r} ends before it starts")
            found.append((a.lead, b.end, (a.first, b.last) if a.first <= b.last else None))
            i += 2
        else:
            found.append((a.lead, a.end, _single(a, now)))
            i += 1
    return found


def _context(now: datetime, tz: tzinfo, lang: str) -> _Ctx:
    # A naive `now` is wall-clock time in tz, like every other naive time here.
    return _Ctx(now.astimezone(tz) if now.tzinfo else now.replace(tzinfo=tz), tz, _grammar(lang))


class _Unreadable(ValueError):
    """No expression of the language is the whole text (as opposed to one that names no real date)."""


# --- public API ---------------------------------------------------------------------------------------------


def parse_range(text: str, *, now: datetime, tz: tzinfo, lang: str = "en") -> TimeRange:
    """The range one expression of ``lang`` (ISO 639-1; English for unknown codes) denotes; the whole text
    must be that expression. Raises ValueError."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty date; try " + _EXAMPLES)
    found = _scan(stripped, _context(now, tz, lang), whole=True)
    if len(found) != 1 or found[0][:2] != (0, len(stripped)):
        raise _Unreadable(f"cannot read {stripped!r} as a date or time; try {_EXAMPLES}")
    span = found[0][2]
    if span is None:
        raise ValueError(f"{stripped!r} has no definite start and end; try {_EXAMPLES}")
    return TimeRange(span[0], span[1], stripped)


def parse_bound(text: str, *, now: datetime, tz: tzinfo, end: bool) -> datetime:
    """``--since`` (end=False: the start of the range) or ``--until`` (end=True: its last microsecond).

    Read as English first, so whatever English reads (or refuses as no real date) means what it always
    did; text English cannot read at all is tried in each other language of ``timewords`` in turn. A bound
    is typed on purpose and must be one expression as a whole, so a word that is a date in one language
    and an ordinary word in another ("hier") cannot be misread here the way it could in a question, and
    the command line need not know which chats, of which languages, it will search. (``dates.cldr.bound``
    reads, after these, the user's own language by CLDR's words.)
    """
    try:
        found = parse_range(text, now=now, tz=tz)
    except _Unreadable as english:
        found = _other_language(text, now=now, tz=tz, english=english)
    return found.end if end else found.start


def _other_language(text: str, *, now: datetime, tz: tzinfo, english: _Unreadable) -> TimeRange:
    """The first other language that reads the whole text. Where none does, a language that reads all of
    it as a date that does not exist says why ("31 avril"); otherwise English's "cannot read" stands."""
    from refind_cli.dates.timewords import LANGUAGES

    whole = f"{text.strip()!r}"
    reason: ValueError = english
    for lang in LANGUAGES:
        try:
            return parse_range(text, now=now, tz=tz, lang=lang)
        except _Unreadable:
            continue
        except ValueError as err:  # a part of the text, or all of it, names no real date
            if reason is english and str(err).startswith((f"{whole}:", f"{whole} ")):
                reason = err
    raise reason from None


def parse_instant(text: str, *, tz: tzinfo) -> datetime:
    """``--now``: an ISO date or date-time, read in tz unless it has an offset; a date means its first moment."""
    stripped = text.strip()
    m = _rx(_ISO.source).fullmatch(stripped)
    if m is None:
        raise ValueError(f"cannot read {stripped!r} as an ISO date or date-time like 2026-11-30T15:00")
    try:
        return _bounds(_iso_wall(m, tz))[0]
    except (ValueError, OverflowError) as err:
        raise ValueError(f"{stripped!r}: {err}") from None


def find_ranges(text: str, *, now: datetime, tz: tzinfo, lang: str = "en") -> list[TimeRange]:
    """Every time expression in a question, in order, as ranges. Expressions relative to an event ("two
    weeks before the trip") and open-ended ones ("before 2024") are recognised but give no range.
    ``lang`` (ISO 639-1) picks the words: "hier" is yesterday in French and "here" in German; codes
    without time words of their own ("und", "nl", "tr") read English."""
    ctx = _context(now, tz, lang)
    return [
        TimeRange(s[0], s[1], text[lo:hi]) for lo, hi, s in _scan(text, ctx, whole=False) if s is not None
    ]


def time_words(lang: str = "en") -> frozenset[str]:
    """The words that name times in ``lang`` (months, weekdays, seasons, units, "yesterday", "last", "ago"),
    as its grammar reads them: what a question's date is written with, not what it is about."""
    g = _grammar(lang)
    # Names without their abbreviations: "sun", "mar" and "sat" are words of their own.
    names = (w for w in (*g.months, *g.weekdays) if len(w) > 3)
    tables: tuple[Iterable[str], ...] = (names, g.seasons, g.offsets, g.days, g.units)
    return frozenset(w for table in tables for w in table) | {"ago", "before", "after", "weekend", "weekends"}
