"""Dates said in any language CLDR describes (through babel), for the languages ``timewords`` has no table
for: month names ("15 marca 2023", "maart 2023"), the days around today ("wczoraj", "eergisteren"), the
week, month or year before, this one and the next ("w zeszłym tygodniu"), and counted times before or after
("3 dni temu", "for 2 veckor sedan"), each as CLDR's own patterns write them. And the names of the date fields
(year, month, week, day and their counted forms), by which a question asks for a date ("w którym roku").

Also the days of the week, alone and as CLDR's weekday fields write them ("w zeszły poniedziałek"), and dates
in the locale's own formats ("14 marca 2025", "2025. március 14.", "3月14日", "14 ܒܐܕܪ 2025"), in digits of
any script ("١٤ مارس ٢٠٢٥", "१४ मार्च").

Coarser than ``timeexpr``'s grammars: no ranges between two dates, no "since", no inflected form CLDR does
not list. The offline answer reads a question's time and its notes' dates with it in a language ``timeexpr``
has no grammar of; ``--since``/``--until`` (``bound``) read a whole bound with it in the user's own language
(``LANG``) when no grammar reads it.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from pathlib import Path
from typing import Any

from dateutil.relativedelta import relativedelta

from refind_cli.dates.timeexpr import TimeRange

UNITS = ("day", "week", "month", "year")
# A counted pattern written without its number names the one number of its plural category.
_PLURAL_COUNTS = {"zero": 0, "one": 1, "two": 2}
_WEEKDAY_FIELDS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
# The formats people write a date in (a chat's "14 marca 2025", a phone's "14 mar 2025"): the locale's full,
# long and medium dates and the skeletons a phone or a program shows. The short format's two-digit year and
# a numeric day and month without a year ("14.3.") are too often other numbers to be read as dates.
_FORMATS = ("full", "long", "medium")
_SKELETONS = (
    "yMMMMd",
    "yMMMd",
    "yMMMMEEEEd",
    "yMMMEd",
    "MMMMd",
    "MMMd",
    "MMMMEd",
    "MMMEd",
    "yMd",
    "yMMMM",
    "yMMM",
)
_US = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class Words:
    """One language's date words from CLDR, lower-cased."""

    months: dict[str, int]  # wide and abbreviated, as in a date and standing alone
    phrases: dict[str, tuple[str, int]]  # "wczoraj": ("day", -1), "w zeszłym tygodniu": ("week", -1)
    counted: tuple[tuple[re.Pattern[str], str, int], ...]  # "(\d+) dni temu": ("day", -1)
    fields: frozenset[str]  # "rok", "lata", "roku", "dzień", ...
    weekdays: dict[str, int] = field(default_factory=dict)  # wide names, Monday 0: "poniedziałek"
    # CLDR's weekday fields: "w zeszły poniedziałek": (0, -1), "w tę środę": (2, 0)
    weekday_phrases: dict[str, tuple[int, int]] = field(default_factory=dict)
    # The locale's own date formats and skeletons as patterns: "d MMMM y" -> "(?P<d>\d{1,2}) (?P<m>...) ..."
    dates: tuple[re.Pattern[str], ...] = ()
    wide: frozenset[str] = frozenset()  # the months' wide names: a month named alone


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
                if key := _lower(name).rstrip("."):
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
            for plural, pattern in sorted(entry.get(way, {}).items()):
                if "{0}" in pattern:
                    counted.append((_counted(pattern), unit, sign))
                elif plural in _PLURAL_COUNTS:  # Maltese's dual "ġimagħtejn ilu", "two weeks ago"
                    phrases.setdefault(_lower(pattern), (unit, sign * _PLURAL_COUNTS[plural]))
        display = names.get(f"duration-{unit}", {}).get("long")
        forms = [display] if display else []
        forms += [p for key, p in units.get(f"duration-{unit}", {}).get("long", {}).items() if key != "per"]
        fields.update(_lower(f.replace("{0}", "").strip()) for f in forms)
    weekdays: dict[str, int] = {}
    for context in ("format", "stand-alone"):
        for n, name in locale.days.get(context, {}).get("wide", {}).items():
            if len(key := _lower(name)) > 2:
                weekdays.setdefault(key, n)
    weekday_phrases = {
        _lower(phrase): (n, int(offset))
        for n, key in enumerate(_WEEKDAY_FIELDS)
        for offset, phrase in fields_data.get(key, {}).get("relative", {}).items()
    }
    return Words(
        months,
        phrases,
        tuple(counted),
        frozenset(f for f in fields if f),
        weekdays,
        weekday_phrases,
        _date_patterns(locale),
        frozenset(
            _lower(n).rstrip(".") for ctx in locale.months.values() for n in ctx.get("wide", {}).values()
        ),
    )


def _date_patterns(locale: Any) -> tuple[re.Pattern[str], ...]:
    """The locale's date formats as patterns over lower-cased text: each field a group (a day ``d``, a
    month ``m`` by name or ``n`` by number, a year ``y``), a weekday or an era by any of its names, the
    literals between as written (their punctuation optional, any run of spaces any other: people leave
    out the comma of "19 નવેમ્બર, 2024"), digits of any script. A pattern with another field (a quarter, a
    week) is left out."""
    from babel.dates import tokenize_pattern

    names = {
        "M": _alternation(n for ctx in locale.months.values() for w in ctx.values() for n in w.values()),
        "E": _alternation(n for ctx in locale.days.values() for w in ctx.values() for n in w.values()),
        "G": _alternation(n for w in locale.eras.values() for n in w.values()),
    }
    names["L"], names["c"] = names["M"], names["E"]
    patterns = [locale.date_formats[f].pattern for f in _FORMATS]
    patterns += [locale.datetime_skeletons[s].pattern for s in _SKELETONS if s in locale.datetime_skeletons]
    out: dict[str, None] = {}
    for pattern in patterns:
        tokens: list[tuple[str, Any]] = tokenize_pattern(pattern)
        parts: list[str] = []
        lettered = False  # a literal holds a letter ("M月d日", "d 'de' MMMM")
        for i, (kind, value) in enumerate(tokens):
            if kind == "chars":
                parts.append("".join(_literal(c) for c in _lower(value)))
                lettered = lettered or any(c.isalpha() for c in value)
                continue
            letter, count = value
            if letter in "ML" and count <= 2:
                parts.append(r"(?<!\d)(?P<n>\d{1,2})(?!\d)")
            elif names.get(letter):
                # A name ends where a word does, unless the pattern glues letters to it (Syriac "ܒMMMM",
                # Basque "MMMM'ren'", Mongolian "MMMM'ын'").
                before = "" if _glued(tokens, i - 1, -1) else r"(?<!\w)"
                after = "" if _glued(tokens, i + 1, 0) else r"(?!\w)"
                group = "(?P<m>" if letter in "ML" else "(?:"
                parts.append(rf"{before}{group}{names[letter]})\.?{after}")
            elif letter == "d":
                parts.append(r"(?<!\d)(?P<d>\d{1,2})(?!\d)")
            elif letter in "yY":
                parts.append(r"(?<!\d)(?P<y>\d{4})(?!\d)" if count != 2 else r"(?<!\d)(?P<y2>\d{2})(?!\d)")
            else:
                break
        else:
            source = "".join(parts)
            # Digits alone without a year ("14.3.") are too often another number to be a date.
            if "(?P<y" in source or "(?P<m>" in source or lettered:
                out.setdefault(source)
    return tuple(re.compile(source) for source in out)


def _glued(tokens: list[tuple[str, Any]], i: int, end: int) -> bool:
    """Whether token ``i`` is a literal whose character at ``end`` (0 first, -1 last) is a letter."""
    return 0 <= i < len(tokens) and tokens[i][0] == "chars" and tokens[i][1][end].isalpha()


def _alternation(names: Iterable[str]) -> str:
    keys = {_lower(n).rstrip(".") for n in names}
    return "|".join(map(re.escape, sorted((k for k in keys if k), key=len, reverse=True)))


def _literal(char: str) -> str:
    """A character between a date's fields: a space is any run of spaces (or none: "2024.11.19" and
    "2024. 11. 19." are one date), a mark of punctuation may be left out, a letter stays ("日", "de")."""
    if char.isspace():
        return r"\s*"
    if unicodedata.category(char)[0] in "PS":
        return f"{re.escape(char)}?"
    return re.escape(char)


def _counted(pattern: str) -> re.Pattern[str]:
    before, _, after = _lower(pattern).partition("{0}")
    return re.compile(rf"(?<!\w){re.escape(before)}(\d{{1,3}}){re.escape(after)}(?!\w)")


def names_a_date_field(question: str, lang: str) -> bool:
    """Whether ``question`` names a date field of ``lang`` (of either language of "ms+id": a year, month,
    week or day, in a form CLDR lists, or that form with a short ending: Turkish "yılda" is "yıl" + "da")."""
    fields = {f for code in lang.split("+") if (found := words(code)) is not None for f in found.fields}
    said = _word_list(_lower(question))
    # Another language's field only as a whole word (the chat may be told as a neighbour of its own).
    return any(w in _kin().fields for w in said) or any(
        word == f or (len(f) >= 3 and word.startswith(f) and len(word) - len(f) <= 3)
        for word in said
        for f in fields
    )


def _word_list(text: str) -> list[str]:
    """The words of ``text``: letters and digits with their combining marks and joiners (``\\w+`` cuts
    "ದಿನಗಳು", "days", at each vowel sign)."""
    kinds = "".join("w" if unicodedata.category(c)[0] in "LMN" or c in "\u200c\u200d" else " " for c in text)
    return [text[m.start() : m.end()] for m in re.finditer("w+", kinds)]


def find(text: str, *, now: datetime, tz: tzinfo, lang: str) -> list[TimeRange]:
    """The dates ``text`` names in ``lang`` (in either language of a bilingual chat's "ms+id"), leftmost
    first (the longest at each place), read against ``now``: a month without a year is the one of
    ``now``'s year. Where ``lang``'s words name none, a date word of any language that means one thing in
    every language that has it (``kin_spans``): the language a chat is told to be in is at times a
    neighbour's (CLD3 tells Tatar as Turkish or Russian, Ido as Esperanto, Yiddish as Hebrew)."""
    lowered = _lower(text)
    today = now.astimezone(tz).date()
    spans = [
        span
        for code in lang.split("+")
        if (found := words(code)) is not None
        for span in _spans(lowered, today, found)
    ]
    spans += _apart(kin_spans(lowered, today), [(lo, hi) for lo, hi, _ in spans])
    own = {name for code in lang.split("+") if (found := words(code)) is not None for name in found.weekdays}
    spans = _not_a_dates_weekday(lowered, spans, [lo for lo, _, _ in spans], own)
    spans.sort(key=lambda s: (s[0], -s[1]))
    out, taken = [], 0
    for lo, hi, (first, last) in spans:
        if lo >= taken:
            out.append(TimeRange(_at(first, tz), _at(last + timedelta(days=1), tz) - _US, text[lo:hi]))
            taken = hi
    return out


def _spans(lowered: str, today: date, found: Words) -> list[tuple[int, int, tuple[date, date]]]:
    """Where ``found``'s words name a date in ``lowered``, each with its first and last day."""
    spans: list[tuple[int, int, tuple[date, date]]] = []
    for phrase, (unit, offset) in found.phrases.items():
        for m in _words(phrase, lowered):
            spans.append((m.start(), m.end(), _unit(today, unit, offset)))
    for rx, unit, sign in found.counted:
        for m in rx.finditer(lowered):
            spans.append((m.start(), m.end(), _unit(today, unit, sign * int(m[1]))))
    for phrase, (weekday, offset) in found.weekday_phrases.items():
        for m in _words(phrase, lowered):
            day = _weekday(today, weekday, offset)
            spans.append((m.start(), m.end(), (day, day)))
    for name, weekday in found.weekdays.items():
        for m in _words(name, lowered):
            day = _weekday(today, weekday, None)
            spans.append((m.start(), m.end(), (day, day)))
    for rx in found.dates:
        for m in rx.finditer(lowered):
            groups = m.groupdict()
            number = found.months.get(groups["m"]) if groups.get("m") else int(groups.get("n") or 0)
            year = groups.get("y") or (f"20{groups['y2']}" if groups.get("y2") else None)
            if number and (span := _named(number, groups.get("d"), year, today)) is not None:
                spans.append((m.start(), m.end(), span))
    # A month beside a day or a year: "V" and "1" are no names to find in a sentence; "4月" and "3월" are.
    # Standing alone, only a wide name: abbreviations are other words too often (Tagalog "may", "set").
    named = [k for k in found.months if len(k) > 2 or (len(k) == 2 and any(c.isdigit() for c in k))]
    if named:
        month = "|".join(map(re.escape, sorted(named, key=len, reverse=True)))
        day_month = rf"(?<!\w)(?P<d>\d{{1,2}})\.?\s+(?P<m>{month})(?:\s+(?P<y>\d{{4}}))?(?!\w)"
        month_day = rf"(?<!\w)(?P<m>{month})\.?\s+(?P<d>\d{{1,2}})(?:,?\s+(?P<y>\d{{4}}))?(?!\w)"
        month_year = rf"(?<!\w)(?P<m>{month})(?:\s+(?P<y>\d{{4}}))?(?!\w)"
        for source in (day_month, month_day, month_year):
            for m in re.finditer(source, lowered):
                alone = m.groupdict().get("d") is None and m["y"] is None
                if alone and (m["m"] not in found.wide or not _bounded(m)):
                    continue
                span = _named(found.months[m["m"]], m.groupdict().get("d"), m["y"], today)
                if span is not None:
                    spans.append((m.start(), m.end(), span))
    return spans


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


def _words(phrase: str, text: str) -> Iterator[re.Match[str]]:
    """Where ``phrase`` stands as words of ``text``."""
    return filter(_bounded, re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", text))


def _bounded(m: re.Match[str]) -> bool:
    """Whether a match is whole words: no letter, digit or combining mark beside it (``\\w`` is not a
    vowel sign: Hindi "कल", "yesterday", is no word inside "निकल")."""
    text, start, end = m.string, m.start(), m.end()
    return (start == 0 or unicodedata.category(text[start - 1])[0] not in "LMN") and (
        end == len(text) or unicodedata.category(text[end])[0] not in "LMN"
    )


def _weekday(today: date, weekday: int, offset: int | None) -> date:
    """Alone (None): the latest such day, today included; last (-1) or next (1): the nearest strictly
    before or after today; this (0): the one of this week (as ``timeexpr`` reads English's)."""
    if offset is None:
        return today - timedelta(days=(today.weekday() - weekday) % 7)
    if offset < 0:
        return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)
    if offset > 0:
        return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)
    return today + timedelta(days=weekday - today.weekday())


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


def reads(lang: str) -> bool:
    """Whether ``lang``'s dates are read here: a language with no grammar of its own in ``timeexpr``."""
    from refind_cli.dates.timewords import LANGUAGES

    code = re.split(r"[-_+]", lang, maxsplit=1)[0]  # a bilingual chat ("pl+en") by its first language
    return code not in ("en", "und", "") and code not in LANGUAGES


def kin(text: str, found: list[TimeRange], *, now: datetime, tz: tzinfo) -> list[TimeRange]:
    """The dates ``text`` names by kin words (``kin_spans``) where none of ``found`` stands: a chat told
    to be in a language with a grammar of its own (Tatar told as Russian, Luxembourgish as German) reads
    its grammar's dates first."""
    lowered = _lower(text)
    taken = [(at, at + len(r.text)) for r in found if (at := lowered.find(_lower(r.text))) >= 0]
    spans = _apart(kin_spans(lowered, now.astimezone(tz).date()), taken)
    spans = _not_a_dates_weekday(lowered, spans, [lo for lo, _ in taken] + [lo for lo, _, _ in spans], set())
    return [
        TimeRange(_at(first, tz), _at(last + timedelta(days=1), tz) - _US, text[lo:hi])
        for lo, hi, (first, last) in spans
    ]


def _apart(
    spans: list[tuple[int, int, tuple[date, date]]], taken: list[tuple[int, int]]
) -> list[tuple[int, int, tuple[date, date]]]:
    """The ``spans`` where none of ``taken`` stands."""
    return [k for k in spans if not any(k[0] < hi and lo < k[1] for lo, hi in taken)]


def _not_a_dates_weekday(
    lowered: str, spans: list[tuple[int, int, tuple[date, date]]], starts: list[int], own: set[str]
) -> list[tuple[int, int, tuple[date, date]]]:
    """``spans`` but a day's name (of ``own`` or kin) right before a date that starts at one of ``starts``:
    "petak, 14. mart 2025" is a full date's weekday, not the latest Friday."""
    return [
        (lo, hi, days)
        for lo, hi, days in spans
        if not (
            (lowered[lo:hi] in own or _kin_weekday(lowered[lo:hi]))
            and any(at > hi and not _word_list(lowered[hi:at]) for at in starts)
        )
    ]


def _kin_weekday(word: str) -> bool:
    """Whether ``word`` is a kin day's name standing alone (not "yesterday" or "last Friday")."""
    found = _kin().phrases.get(tuple(t for *_, t in _tokens(word)))
    return found is not None and found[0] == "weekday" and found[2] is None


def find_any(text: str, *, now: datetime, tz: tzinfo, lang: str) -> list[TimeRange]:
    """The dates ``text`` names: in ``lang``'s grammar where ``timeexpr`` has one (then kin words, but for
    English's, the archive's first language, whose words are no other language's), else CLDR's words of
    ``lang`` and, where they name none at a place, what every language writes alike (ISO dates,
    "2025/03/14", "Q2 2025")."""
    from refind_cli.dates.timeexpr import find_ranges

    found = find_ranges(text, now=now, tz=tz, lang=lang if not reads(lang) else "und")
    if not reads(lang):
        return (
            found if lang.split("+")[0] in ("en", "und", "") else [*found, *kin(text, found, now=now, tz=tz)]
        )
    words_found = find(text, now=now, tz=tz, lang=lang)
    digits = [r for r in found if r.text[:1].isdigit() and not any(r.text in w.text for w in words_found)]
    return [*words_found, *(r for r in digits if not any(w.text in r.text for w in words_found))]


def user_languages() -> tuple[str, ...]:
    """The languages the user's locale names (``LC_ALL``, ``LC_TIME``, ``LANG``, then GNU's ``LANGUAGE``
    list), as ISO 639 codes, in that order, each once: what a person types dates in at the command line."""
    names = [os.environ.get(v, "") for v in ("LC_ALL", "LC_TIME", "LANG")]
    names += os.environ.get("LANGUAGE", "").split(":")
    codes = (re.split(r"[_.@-]", n, maxsplit=1)[0].casefold() for n in names)
    return tuple(dict.fromkeys(c for c in codes if c.isalpha() and c not in ("c", "posix")))


def bound(text: str, *, now: datetime, tz: tzinfo, end: bool) -> datetime:
    """``timeexpr.parse_bound`` (English, then the languages with grammars), and where none of them reads
    ``text`` at all, the user's own language by CLDR's words (``whole``). Raises the grammars' ValueError."""
    from refind_cli.dates.timeexpr import _Unreadable, parse_bound

    try:
        return parse_bound(text, now=now, tz=tz, end=end)
    except _Unreadable:  # not a date some grammar read and found not to exist ("31 avril")
        found = whole(text, now=now if now.tzinfo else now.replace(tzinfo=tz), tz=tz)
        if found is None:
            raise
        return found.end if end else found.start


def whole(text: str, *, now: datetime, tz: tzinfo) -> TimeRange | None:
    """The range ``text`` names as a whole in one of the user's languages (``user_languages``) that has no
    grammar in ``timeexpr``: "wczoraj", "w zeszłym tygodniu", "3 dni temu", "14 marca 2025"."""
    stripped = text.strip()
    for lang in [*filter(reads, user_languages()), "und"]:  # "und": no language's own words, only kin
        found = find(stripped, now=now, tz=tz, lang=lang)
        if len(found) == 1 and found[0].text == stripped:
            return found[0]
    return None


# Kin: every CLDR language's date words, for a chat told to be in another language than its own.
_NUMBER = "#"  # a counted phrase's number among its words: "3 dni temu" is ("#", "dni", "temu")
_WIDE = frozenset(
    "WF"
)  # East Asian widths of scripts written without spaces: a word there is one letter or two


@dataclass(frozen=True, slots=True)
class Kin:
    """Date words of every language CLDR describes that mean one thing in every language that has them,
    as tuples of words: ("wczoraj",): ("day", -1, None), ("#", "dni", "temu"): ("day", -1, "#"),
    ("poniedziałek",): ("weekday", 0, None), ("marca",): ("named month", 3, None)."""

    phrases: dict[tuple[str, ...], tuple[str, int, int | None]]
    longest: int
    fields: frozenset[str]


def _tokens(text: str) -> list[tuple[int, int, str]]:
    """``text``'s words with where each stands (as ``_word_list`` cuts them); a run of digits is one word."""
    kinds = "".join("w" if unicodedata.category(c)[0] in "LMN" or c in "\u200c\u200d" else " " for c in text)
    return [(m.start(), m.end(), text[m.start() : m.end()]) for m in re.finditer("w+", kinds)]


def _key(phrase: str) -> tuple[str, ...]:
    before, counted, after = _lower(phrase).partition("{0}")
    words_before = tuple(t for _, _, t in _tokens(before))
    return (*words_before, _NUMBER, *(t for _, _, t in _tokens(after))) if counted else words_before


def _distinct(key: tuple[str, ...]) -> bool:
    """Whether ``key`` is more than a short word: a word of one or two letters (three outside the scripts
    written without spaces) is too often another word of another language."""
    if len(key) > 1:
        return True
    word = key[0]
    return len(word) >= 4 or (len(word) >= 2 and unicodedata.east_asian_width(word[0]) in _WIDE)


@lru_cache(maxsize=1)
def _kin() -> Kin:
    """The kin table (``kin_data.py``, written by ``generate_kin``: Babel takes seconds to read every
    language's data, too long for a command to wait for)."""
    from refind_cli.dates.kin_data import KIN, KIN_FIELDS

    phrases = {tuple(key.split(" ")): meaning for key, meaning in KIN.items()}
    return Kin(phrases, max(map(len, phrases)), frozenset(KIN_FIELDS))


def generate_kin() -> tuple[dict[str, tuple[str, int, int | None]], tuple[str, ...]]:
    """(the kin phrases, their words joined by spaces; the date fields' names): every CLDR language's
    relative fields, counted patterns, weekday fields and names, wide month names and date field names,
    each kept when it means the same in every language that has it, is no stop word of another language
    (``stop_words``: Turkish "senin", "your", is Indonesian's Monday) and is not a short word."""
    import stop_words
    from babel import Locale, localedata

    meanings: dict[tuple[str, ...], set[tuple[str, int, int | None]]] = {}
    owners: dict[tuple[str, ...], set[str]] = {}
    fields: set[str] = set()
    for code in localedata.locale_identifiers():
        if "_" in code or code == "root" or (found := words(code)) is None:
            continue
        locale = Locale.parse(code)
        pairs: list[tuple[str, tuple[str, int, int | None]]] = []
        pairs += [(p, (unit, offset, None)) for p, (unit, offset) in found.phrases.items()]
        pairs += [(p, ("weekday", day, offset)) for p, (day, offset) in found.weekday_phrases.items()]
        pairs += [(p, ("weekday", day, None)) for p, day in found.weekdays.items()]
        pairs += [(p, ("named month", found.months[p], None)) for p in found.wide if p in found.months]
        for unit in UNITS:
            for way, sign in (("past", -1), ("future", 1)):
                for pattern in locale._data["date_fields"].get(unit, {}).get(way, {}).values():
                    if "{0}" in pattern:
                        pairs.append((pattern, (unit, sign, 0)))
        for phrase, meaning in pairs:
            key = _key(phrase)
            if key and _distinct(key):
                meanings.setdefault(key, set()).add(meaning)
                owners.setdefault(key, set()).add(code)
        fields.update(f for f in found.fields if len(f) >= 3)
    stops: dict[str, set[str]] = {}
    for code, name in stop_words.LANGUAGE_MAPPING.items():
        for word in stop_words.get_stop_words(name):
            stops.setdefault(_lower(word), set()).add(code)
    phrases = {
        " ".join(key): next(iter(found))
        for key, found in sorted(meanings.items())
        if len(found) == 1 and not (len(key) == 1 and stops.get(key[0], set()) - owners[key])
    }
    return phrases, tuple(sorted(f for f in fields if f not in stops))


def write_kin(path: Path | None = None) -> None:
    """Write ``generate_kin()`` into ``kin_data.py`` (again after Babel's or stop-words' upgrade)."""
    from refind_cli.generated import write_module

    phrases, fields = generate_kin()
    write_module(
        path or Path(__file__).with_name("kin_data.py"),
        "python -m refind_cli.dates.cldr",
        ("KIN", "dict[str, tuple[str, int, int | None]]", phrases),
        ("KIN_FIELDS", "tuple[str, ...]", fields),
    )


def kin_spans(lowered: str, today: date) -> list[tuple[int, int, tuple[date, date]]]:
    """Where a date word of another language (``_kin``) names a date in ``lowered``: its relative and
    counted phrases and weekdays, and a wide month name beside a day ("14 marca", "marca 14") or a year;
    a month alone is left to the chat's own language."""
    kin = _kin()
    tokens = _tokens(lowered)
    plain = [_NUMBER if t.isdecimal() else t for _, _, t in tokens]
    spans: list[tuple[int, int, tuple[date, date]]] = []
    i = 0
    while i < len(tokens):
        for n in range(min(kin.longest, len(tokens) - i), 0, -1):
            found = kin.phrases.get(tuple(plain[i : i + n])) or kin.phrases.get(
                tuple(t for *_, t in tokens[i : i + n])
            )
            if found is None:
                continue
            span = _kin_span(found, tokens, i, n, today)
            if span is not None:
                spans.append(span)
                i += n - 1
                break
        i += 1
    return spans


def _kin_span(
    meaning: tuple[str, int, int | None], tokens: list[tuple[int, int, str]], i: int, n: int, today: date
) -> tuple[int, int, tuple[date, date]] | None:
    kind, value, extra = meaning
    lo, hi = tokens[i][0], tokens[i + n - 1][1]
    if kind == "weekday":
        named_day = _weekday(today, value, extra)
        return lo, hi, (named_day, named_day)
    if kind in UNITS:
        if extra is None:
            return lo, hi, _unit(today, kind, value)
        count = next((int(t) for *_, t in tokens[i : i + n] if t.isdecimal()), None)
        return (lo, hi, _unit(today, kind, value * count)) if count is not None and count < 1000 else None
    # A month: with a day before or after it, and a year after either.
    before = tokens[i - 1] if i > 0 else None
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    day = next((t for t in (before, after) if t and t[2].isdecimal() and len(t[2]) <= 2), None)
    year_at = i + 2 if day is after and day is not None else i + 1
    year = (
        tokens[year_at]
        if year_at < len(tokens) and tokens[year_at][2].isdecimal() and len(tokens[year_at][2]) == 4
        else None
    )
    if day is None and year is None:
        return None
    named = _named(value, day[2] if day else None, year[2] if year else None, today)
    if named is None:
        return None
    return min(lo, day[0] if day else lo), max(hi, year[1] if year else hi, day[1] if day else hi), named


if __name__ == "__main__":
    write_kin()
