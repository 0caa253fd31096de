"""WhatsApp exports in every CLDR locale's own stamps (``tests/stamp_chats.py``), generated at test time from
Babel's data rather than listed: one locale per distinct shape of stamp (the words and digits kept), each
read with every message's instant, sender and text, nothing glued, nothing warned; a coarser sample with
the rewrites other tools make. ``bench/stamp_probe.py`` reads every locale with every rewrite.
"""

from __future__ import annotations

import warnings
from datetime import datetime
from pathlib import Path

import pytest
import regex
from babel import Locale
from babel.dates import tokenize_pattern
from stamp_chats import (
    MOMENTS,
    REWRITES,
    ZONE,
    check,
    check_line,
    line_export,
    locales,
    one_per_shape,
    readable,
    shape_key,
    stamp,
    time_key,
)

from refind_cli.dates import stampwords, stampwords_data
from refind_cli.importers import whatsapp


def _both_halves(word: str) -> bool:
    spans = stampwords_data.PERIODS.get(word)
    return (
        spans is not None and stampwords.hour24(1, 0, word) is None and stampwords.hour24(12, 0, word) is None
    )


def left(locale: str, shape: str) -> bool:
    """The stamps not read yet, told from CLDR's data: a date with more than numbers (an era: "5 1 2026
    p.C.n.", la_VA), a time with a word that names both halves of the day in some locales ("ip.": PM
    in Finnish, AM in Inari Sami) or a word with a digit ("1ka", blo)."""
    loc = Locale.parse(locale)
    fields = {v[0] for k, v in tokenize_pattern(loc.date_formats["short"].pattern) if k == "field"}
    tokens = {t for when, _, _ in MOMENTS for t in stampwords.key(stamp(locale, shape, when)).split()}
    two = any(_both_halves(t) or (t in stampwords_data.PERIODS and regex.search(r"\d", t)) for t in tokens)
    return not fields <= set("yMd") or two


def _coarse(locale: str, shape: str) -> str:
    """The stamp's layout: digits one 0, each run of letters one "a", each run of spaces one space; the
    shape kept."""
    first = regex.sub(r"\s+", " ", stamp(locale, shape, datetime(2026, 1, 5, 0, 15)))
    return shape + regex.sub(r"\p{L}+", "a", regex.sub(r"\p{Nd}+", "0", first))


def test_every_shape_of_stamp_cldr_writes_is_read(tmp_path: Path) -> None:
    cases = one_per_shape(shape_key)
    assert len(cases) > 500  # every locale's words: not a list
    wrong = {
        f"{c.locale} {c.shape} {c.first_stamp!r}": p[0]
        for c in cases
        if not left(c.locale, c.shape) and (p := check(c, tmp_path))
    }
    assert not wrong, f"{len(wrong)} of {len(cases)}: {wrong}"


@pytest.mark.parametrize("rewrite", [r for r in REWRITES if r != "as generated"])
def test_stamps_rewritten_by_other_tools_are_read(tmp_path: Path, rewrite: str) -> None:
    """On the locales' own hour cycles (the other cycle's rewrites: ``bench/stamp_probe.py``)."""
    cases = [c for c in one_per_shape(_coarse) if not c.shape.endswith("other-cycle")]
    wrong = {
        f"{c.locale} {c.shape} {c.first_stamp!r}": p[0]
        for c in cases
        if not left(c.locale, c.shape) and (p := check(c, tmp_path, rewrite))
    }
    assert not wrong, f"{len(wrong)} of {len(cases)}: {wrong}"


def test_a_day_period_is_read_by_the_hours_cldr_gives_it() -> None:
    assert stampwords.hour24(9, 30, "下午") == 21  # zh: PM
    assert stampwords.hour24(12, 40, "p.\u202fm.") == 12
    assert stampwords.hour24(12, 15, "a. m.") == 0
    assert stampwords.hour24(10, 15, "at night") == 22  # en's flexible period, CLDR's night1
    assert stampwords.hour24(9, 0, "पूर्वाह्न") == 9 and stampwords.hour24(2, 0, "अपराह्न") == 14
    assert stampwords.hour24(9, 0, "no such word") is None


def test_what_is_left_is_few() -> None:
    """The stamps ``left`` excuses are under 1.5 % of the shapes (10 of 815 with Babel 2.19)."""
    cases = one_per_shape(shape_key)
    assert sum(left(c.locale, c.shape) for c in cases) <= 0.015 * len(cases)


def test_the_shipped_words_are_babels() -> None:
    """The generated table holds what Babel's CLDR data gives now for a sample of locales (one per coarse
    shape; ``bench/stamp_probe.py --table`` compares all of it; regenerate with ``python -m
    refind_cli.dates.stampwords`` after a Babel upgrade)."""
    sample = tuple(dict.fromkeys(c.locale for c in one_per_shape(_coarse)))
    periods, groups, literals = stampwords.generate(sample)
    for word, spans in periods.items():
        assert set(spans) <= set(stampwords_data.PERIODS[word]), word
    assert set(groups) <= set(stampwords_data.GROUPS)
    for place, found in literals.items():
        assert set(found) <= set(stampwords_data.LITERALS[place]), place


def test_line_reads_every_locales_time(tmp_path: Path) -> None:
    """LINE's message lines (``09:07<TAB>Name<TAB>text``) with each locale's own time, one locale per shape
    of time (the words and digits kept): linelog's times are the same CLDR words and literals."""
    seen: dict[str, tuple[str, str]] = {}
    for locale, shape in ((loc, s) for loc in locales() for s in ("android", "android-other-cycle")):
        if readable(locale, shape):
            seen.setdefault(time_key(locale, shape), (locale, shape))
    assert len(seen) > 150
    wrong = {
        f"{locale} {shape}": p[0]
        for locale, shape in seen.values()
        if not left(locale, shape) and (p := check_line(line_export(locale, shape), tmp_path))
    }
    assert not wrong, f"{len(wrong)} of {len(seen)}: {wrong}"


@pytest.mark.parametrize(
    "stamps",
    [
        ["2024-03-14 00:55", "2024-06-11 06:54", "2024-06-26 11:07", "2025-06-02 20:02", "2026-06-09 02:07"],
        ["07.03.2024 09:33", "07.07.2025 18:04", "23.05.2026 03:42", "24.06.2026 14:43", "06.09.2026 04:40"],
    ],
    ids=["year-first", "year-last"],
)
def test_four_digit_years_across_years_keep_their_order(tmp_path: Path, stamps: list[str]) -> None:
    """Found by the held-out sweep (random moments over four years): files of four-digit years whose other
    first number changed less often than the years were taken for two-digit years first (``yy/MM/dd``), and
    refused or read with warnings."""
    path = tmp_path / "WhatsApp Chat with Years.txt"
    path.write_text("".join(f"{s} - Ana: hi {i}\n" for i, s in enumerate(stamps)), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (export,) = whatsapp.read(path, tz=ZONE)
        got = [m.timestamp.astimezone(ZONE) for m in export.messages]
    fmt = "%Y-%m-%d %H:%M" if stamps[0][4] == "-" else "%d.%m.%Y %H:%M"
    assert [g.strftime(fmt) for g in got] == stamps
