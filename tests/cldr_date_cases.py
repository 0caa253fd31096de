"""Dates as people write them in the languages nobody listed, generated from CLDR (through Babel), not
written by hand: each language's own words for the days, weeks, months and years around today ("wczoraj",
"w zeszłym tygodniu"), its counted times ("3 dni temu"), its weekdays alone and as "last/this/next Monday"
(CLDR's weekday fields), its months named alone, and dates in its own formats (full, long, medium, and the
skeletons a phone shows: "d MMMM", "d MMM y"), each also in the digits the locale writes by default
(Arabic-Indic, Devanagari, Bengali, Myanmar, ...). Each is one case: the sentence a chat would hold (the
phrase after the locale's own name of the world, "Svět, wczoraj.") and the days it names, as
``dates.cldr.find`` reads them (a week Monday to Sunday; a month without a year the one of the year said in;
a weekday alone the latest such day, today included).

The languages are every Babel locale named by a language code alone, but English and the six languages with
time-word tables of their own (``dates.timewords``). They fall in two halves by a CRC32 of the code, fixed
before any figure was read (session 15): ``tune`` (whose misses may be read) and ``held`` (only totals).
``bench/cldr_dates_bench.py`` runs all of them; ``tests/test_dates_session15.py`` a few held languages.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cache
from pathlib import Path

import regex
from babel import Locale, localedata
from babel.core import parse_locale
from babel.dates import format_date, format_skeleton
from dateutil.relativedelta import relativedelta

# A Wednesday in June: weekdays on either side, last month in the same year.
NOW = datetime(2026, 6, 17, 12, 0, tzinfo=UTC)
TODAY = NOW.date()
LISTED = {"en", "de", "es", "fr", "pt", "it", "ru"}
# Dates in the locale's formats: a day above 12 (never read as a month), in another year and this one.
DATES = (date(2025, 3, 14), date(2026, 1, 27), date(2024, 11, 19))
FORMATS = ("full", "long", "medium")
SKELETONS = ("MMMMd", "yMMMd")
_WEEKDAY_FIELDS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
UNITS = ("day", "week", "month", "year")
_ZERO = regex.compile(r"\p{Nd}(?<=[\p{Numeric_Value=0}])")


@dataclass(frozen=True, slots=True)
class DateCase:
    lang: str
    kind: str  # relative, counted, weekday, weekday-relative, month, date, and "+digits" in the locale's own
    sentence: str
    first: date
    last: date


def half(lang: str) -> str:
    """``held`` or ``tune``: fixed by the code, before any figure."""
    return "held" if zlib.crc32(lang.encode()) % 2 else "tune"


@cache
def languages() -> tuple[str, ...]:
    return tuple(
        sorted(
            i
            for i in localedata.locale_identifiers()
            if "_" not in i and i != "root" and i not in LISTED and parse_locale(i)[0] == i
        )
    )


# The spans a case names, written apart from ``dates.cldr`` (whose ``_unit`` and ``_weekday`` read them the
# same way) so that the reader is measured against a definition, not against itself, and so that a bench
# can measure another checkout's reader with them.
def unit_range(unit: str, offset: int, today: date = TODAY) -> tuple[date, date]:
    """The day, or the whole week (Monday to Sunday), month or year, ``offset`` of them from ``today``."""
    if unit == "day":
        day = today + timedelta(days=offset)
        return day, day
    if unit == "week":
        start = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
        return start, start + timedelta(days=6)
    if unit == "month":
        start = today.replace(day=1) + relativedelta(months=offset)
        return start, start + relativedelta(months=1) - timedelta(days=1)
    return date(today.year + offset, 1, 1), date(today.year + offset, 12, 31)


def weekday_day(target: int, offset: int | None, today: date = TODAY) -> date:
    """Alone (None): the latest such day, today included; -1/1: strictly before/after today; 0: this week's."""
    if offset is None:
        return today - timedelta(days=(today.weekday() - target) % 7)
    if offset < 0:
        return today - timedelta(days=(today.weekday() - target - 1) % 7 + 1)
    if offset > 0:
        return today + timedelta(days=(target - today.weekday() - 1) % 7 + 1)
    return today + timedelta(days=target - today.weekday())


@cache
def _zeros() -> tuple[str, ...]:
    return tuple(c for c in map(chr, range(0x80, 0x20000)) if _ZERO.match(c))


def _digits(loc: Locale) -> str:
    """The locale's default digits 0-9 ("" where they are ASCII's). Babel names the numbering system but
    writes ASCII digits; CLDR names a system of digits by its script's ISO 15924 code ("deva", "beng"),
    the second set of a script with "ext" ("arabext"), and Unicode has each set as ten digits in a row."""
    system = loc._data.get("default_numbering_system", "latn")
    if system == "latn" or not re.fullmatch(r"[a-z]{4}(?:ext)?", system):
        return ""
    own = [z for z in _zeros() if regex.match(rf"\p{{sc={system[:4].title()}}}", z)]
    pick = 1 if system.endswith("ext") else 0
    if len(own) <= pick:
        return ""
    return "".join(chr(ord(own[pick]) + i) for i in range(10))


def cases(lang: str, today: date = TODAY) -> Iterator[DateCase]:
    loc = Locale.parse(lang)
    world = loc.territories.get("001", "")
    own = _digits(loc)
    fields = loc._data["date_fields"]

    def made(kind: str, phrase: str, span: tuple[date, date]) -> Iterator[DateCase]:
        yield DateCase(lang, kind, f"{world}, {phrase}.", *span)
        if own and any(c.isdigit() for c in phrase):
            local = phrase.translate(str.maketrans("0123456789", own))
            yield DateCase(lang, f"{kind}+digits", f"{world}, {local}.", *span)

    for unit in UNITS:
        entry = fields.get(unit, {})
        for offset, phrase in sorted(entry.get("relative", {}).items()):
            yield from made("relative", phrase, unit_range(unit, int(offset), today))
        n = 3 if unit == "day" else 2
        past = entry.get("past", {})
        pattern = past.get(loc.plural_form(n)) or past.get("other")
        if pattern:
            yield from made("counted", pattern.replace("{0}", str(n)), unit_range(unit, -n, today))
    for i, key in enumerate(_WEEKDAY_FIELDS):
        for offset, phrase in sorted(fields.get(key, {}).get("relative", {}).items()):
            day = weekday_day(i, int(offset), today)
            yield from made("weekday-relative", phrase, (day, day))
        name = loc.days["format"]["wide"].get(i)
        if name:
            day = weekday_day(i, None, today)
            yield from made("weekday", name, (day, day))
    for month, name in loc.months["stand-alone"]["wide"].items():
        start = date(today.year, month, 1)
        yield from made("month", name, (start, start + relativedelta(months=1) - timedelta(days=1)))
    for day in DATES:
        written = [format_date(day, f, locale=loc) for f in FORMATS]
        written += [format_skeleton(s, day, locale=loc) for s in SKELETONS]
        for text in dict.fromkeys(written):
            named = day if str(day.year) in text else day.replace(year=today.year)
            yield from made("date", text, (named, named))


def all_cases(which: str) -> list[DateCase]:
    return [c for lang in languages() if half(lang) == which for c in cases(lang)]


@dataclass(frozen=True, slots=True)
class AskChat:
    """A chat of one language's catalog sentences, a message a day (``START`` on), and the questions a
    person asks of it in that language, each with the day its answer must name (or be said on)."""

    lang: str
    messages: tuple[tuple[date, str], ...]
    # (kind, question, --now, the day the answer names, the message it must quote)
    questions: tuple[tuple[str, str, date, date, int], ...]


START = date(2024, 3, 4)
# What ends a sentence, taken off a message before an expression is added to it.
_END = ".!?。।॥۔؟ ։።፧᙮᠃᠉⳹⳾⸼。"
# The expressions a WHEN question's answer reads its date from, one needle each.
ASKED_KINDS = ("relative", "weekday-relative", "date")
# A copy of the second needle's message is said this many days after it: a question that names its day
# ("yesterday", said the day after) must be answered by it, not by the copy.
COPY_AFTER = 40


def _expression(lang: str, kind: str, said: date) -> DateCase | None:
    """The case of ``kind`` read against the day it is said: yesterday, last <a weekday>, a long date."""
    for case in cases(lang, said):
        if case.kind != kind:
            continue
        if kind == "relative" and case.first != said - timedelta(days=1):
            continue
        if kind == "weekday-relative" and not case.first < said:
            continue
        return case
    return None


def ask_chat(lang: str, pool: list[str]) -> AskChat | None:
    """The probe chat of ``lang`` from ``pool`` (its catalog's sentences): each of three needles' messages
    ends with a date expression of one of ``ASKED_KINDS``, asked for by "<needle> <day>?" (the language's
    own word for a day, by which a question asks when); and the second needle asked for with "yesterday"
    the day after its message, against a copy of that message (without its expression) said later. None where CLDR lacks a word."""
    from catalog_chats import chat

    found = chat(lang, "system", pool)
    if found is None:
        return None
    loc = Locale.parse(lang)
    day_word = loc._data["unit_display_names"].get("duration-day", {}).get("long", "")
    if not day_word:
        return None
    days = [START + timedelta(days=i) for i in range(len(found.messages))]
    messages = list(found.messages)
    questions: list[tuple[str, str, date, date, int]] = []
    for (word, at), kind in zip(found.needles, ASKED_KINDS, strict=False):
        case = _expression(lang, kind, days[at])
        if case is None:
            return None
        # Inside the message's last sentence, as a person writes "... yesterday.".
        messages[at] = f"{messages[at].rstrip(_END)} {case.sentence.split(', ', 1)[1]}"
        questions.append((kind, f"{word} {day_word}?", days[-1] + timedelta(days=1), case.first, at))
    # The second needle's message (which names another day: "last Monday") and a copy of it said later.
    word, at = found.needles[1]
    yesterday = _expression(lang, "relative", days[at] + timedelta(days=1))
    if yesterday is None:
        return None
    dated = [*zip(days, messages, strict=True), (days[at] + timedelta(days=COPY_AFTER), found.messages[at])]
    phrase = yesterday.sentence.split(", ", 1)[1].rstrip(".")
    questions.append(("time filter", f"{word} {phrase}?", days[at] + timedelta(days=1), days[at], at))
    return AskChat(lang, tuple(dated), tuple(questions))


def whatsapp_dated(path: Path, messages: Iterable[tuple[date, str]]) -> Path:
    """``messages`` as an Android WhatsApp export, each on its own day at 18:xx, two senders taking turns."""
    lines = [
        f"{d:%d.%m.%y}, 18:{i % 60:02d} - {('Ana', 'Ben')[i % 2]}: {t}\n" for i, (d, t) in enumerate(messages)
    ]
    path.write_text("".join(lines), encoding="utf-8")
    return path
