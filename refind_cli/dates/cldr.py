"""Dates said in any language CLDR describes (through babel), for the languages ``timewords`` has no table
for: month names ("15 marca 2023", "maart 2023"), the days around today ("wczoraj", "eergisteren"), the
week, month or year before, this one and the next ("w zeszłym tygodniu"), and counted times before or after
("3 dni temu", "for 2 veckor sedan"), each as CLDR's own patterns write them. And the names of the date fields
(year, month, week, day and their counted forms), by which a question asks for a date ("w którym roku").

Coarser than ``timeexpr``'s grammars: no ranges between two dates, no "since", no inflected form CLDR does
not list. Only the offline answer reads it; search keeps ``timeexpr``'s languages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from functools import lru_cache

from dateutil.relativedelta import relativedelta

from refind_cli.dates.timeexpr import TimeRange

UNITS = ("day", "week", "month", "year")
_US = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Words:
    """One language's date words from CLDR, lower-cased."""

    months: dict[str, int]  # wide and abbreviated, as in a date and standing alone
    phrases: dict[str, tuple[str, int]]  # "wczoraj": ("day", -1), "w zeszłym tygodniu": ("week", -1)
    counted: tuple[tuple[re.Pattern[str], str, int], ...]  # "(\d+) dni temu": ("day", -1)
    fields: frozenset[str]  # "rok", "lata", "roku", "dzień", ...


def _lower(text: str) -> str:
    return text.casefold()


@lru_cache(maxsize=64)
def words(lang: str) -> Words | None:
    """CLDR's date words of ``lang`` (an ISO 639 code); None where babel knows no such locale."""
    from babel import Locale, UnknownLocaleError

    try:
        locale = Locale.parse(re.split(r"[-_]", lang, maxsplit=1)[0])
    except (UnknownLocaleError, ValueError, TypeError):
        return None
    months: dict[str, int] = {}
    for context in ("format", "stand-alone"):
        for width in ("wide", "abbreviated"):
            for n, name in locale.months.get(context, {}).get(width, {}).items():
                key = _lower(name).rstrip(".")
                if len(key) > 2:  # "V" and "1" are no names to find in a sentence
                    months.setdefault(key, n)
    fields_data = locale._data["date_fields"]
    units = locale._data["unit_patterns"]
    names = locale._data["unit_display_names"]
    phrases: dict[str, tuple[str, int]] = {}
    counted: list[tuple[re.Pattern[str], str, int]] = []
    fields: set[str] = set()
    for unit in UNITS:
        entry = fields_data.get(unit, {})
        for offset, phrase in entry.get("relative", {}).items():
            phrases.setdefault(_lower(phrase), (unit, int(offset)))
        for way, sign in (("past", -1), ("future", 1)):
            for pattern in sorted(set(entry.get(way, {}).values())):
                counted.append((_counted(pattern), unit, sign))
        display = names.get(f"duration-{unit}", {}).get("long")
        forms = [display] if display else []
        forms += [p for key, p in units.get(f"duration-{unit}", {}).get("long", {}).items() if key != "per"]
        fields.update(_lower(f.replace("{0}", "").strip()) for f in forms)
    return Words(months, phrases, tuple(counted), frozenset(f for f in fields if f))


def _counted(pattern: str) -> re.Pattern[str]:
    before, _, after = _lower(pattern).partition("{0}")
    return re.compile(rf"(?<!\w){re.escape(before)}(\d{{1,3}}){re.escape(after)}(?!\w)")


def names_a_date_field(question: str, lang: str) -> bool:
    """Whether ``question`` names a date field of ``lang`` (a year, month, week or day, in a form CLDR
    lists, or that form with a short ending: Turkish "yılda" is "yıl" + "da")."""
    found = words(lang)
    if found is None:
        return False
    for word in re.findall(r"\w+", _lower(question)):
        if any(
            word == f or (len(f) >= 3 and word.startswith(f) and len(word) - len(f) <= 3)
            for f in found.fields
        ):
            return True
    return False


def find(text: str, *, now: datetime, tz: tzinfo, lang: str) -> list[TimeRange]:
    """The dates ``text`` names in ``lang``, leftmost first (the longest at each place), read against
    ``now``: a month without a year is the one of ``now``'s year."""
    found = words(lang)
    if found is None:
        return []
    lowered = _lower(text)
    today = now.astimezone(tz).date()
    spans: list[tuple[int, int, tuple[date, date]]] = []
    for phrase, (unit, offset) in found.phrases.items():
        for m in re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", lowered):
            spans.append((m.start(), m.end(), _unit(today, unit, offset)))
    for rx, unit, sign in found.counted:
        for m in rx.finditer(lowered):
            spans.append((m.start(), m.end(), _unit(today, unit, sign * int(m[1]))))
    if found.months:
        month = "|".join(map(re.escape, sorted(found.months, key=len, reverse=True)))
        day_month = rf"(?<!\w)(?P<d>\d{{1,2}})\.?\s+(?P<m>{month})(?:\s+(?P<y>\d{{4}}))?(?!\w)"
        month_day = rf"(?<!\w)(?P<m>{month})\.?\s+(?P<d>\d{{1,2}})(?:,?\s+(?P<y>\d{{4}}))?(?!\w)"
        month_year = rf"(?<!\w)(?P<m>{month})(?:\s+(?P<y>\d{{4}}))?(?!\w)"
        for source in (day_month, month_day, month_year):
            for m in re.finditer(source, lowered):
                span = _named(found.months[m["m"]], m.groupdict().get("d"), m["y"], today)
                if span is not None:
                    spans.append((m.start(), m.end(), span))
    spans.sort(key=lambda s: (s[0], -s[1]))
    out, taken = [], 0
    for lo, hi, (first, last) in spans:
        if lo >= taken:
            out.append(TimeRange(_at(first, tz), _at(last + timedelta(days=1), tz) - _US, text[lo:hi]))
            taken = hi
    return out


def _unit(today: date, unit: str, offset: int) -> tuple[date, date]:
    """The day ``offset`` days from ``today``, or the whole week, month or year ``offset`` of them away
    ("last week" is a week; "3 weeks ago" is the week three weeks back)."""
    if unit == "day":
        day = today + timedelta(days=offset)
        return day, day
    if unit == "week":
        start = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
        return start, start + timedelta(days=6)
    if unit == "month":
        start = today.replace(day=1) + relativedelta(months=offset)
        return start, start + relativedelta(months=1) - timedelta(days=1)
    start = date(today.year + offset, 1, 1)
    return start, date(start.year, 12, 31)


def _named(month: int, day: str | None, year: str | None, today: date) -> tuple[date, date] | None:
    y = int(year) if year else today.year
    try:
        if day is None:
            start = date(y, month, 1)
            return start, start + relativedelta(months=1) - timedelta(days=1)
        named = date(y, month, int(day))
    except ValueError:  # "31 lutego"
        return None
    return named, named


def _at(day: date, tz: tzinfo) -> datetime:
    return datetime.combine(day, time(), tzinfo=tz).astimezone(UTC)
