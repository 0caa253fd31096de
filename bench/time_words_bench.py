"""Time words (issue 21): refind's hand tables (``timewords``, seven languages) against dateparser (many
locales) as `--since` reads them: six everyday expressions in eighteen languages, each counted as read when the
start it gives falls in the period the expression names (now = Monday 2026-06-15, 12:00 UTC); and the
start-up cost of each (a new process importing it and reading one expression, minus a bare interpreter).

    pip install dateparser; python bench/time_words_bench.py

A script that prints figures, not a test.
"""

from __future__ import annotations

import importlib.util
import statistics
import subprocess
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from refind_cli.dates.timeexpr import parse_bound  # noqa: E402
from refind_cli.dates.timewords import LANGUAGES  # noqa: E402

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
# What each expression names: the days its start may fall on.
PERIODS = (
    (date(2026, 6, 14), date(2026, 6, 14)),  # yesterday
    (date(2026, 6, 8), date(2026, 6, 14)),  # last week
    (date(2026, 6, 12), date(2026, 6, 12)),  # 3 days ago
    (date(2026, 5, 1), date(2026, 5, 31)),  # last month
    (date(2026, 6, 1), date(2026, 6, 7)),  # 2 weeks ago
    (date(2024, 3, 1), date(2024, 3, 31)),  # March 2024
)
PHRASES = {
    "en": ("yesterday", "last week", "3 days ago", "last month", "2 weeks ago", "March 2024"),
    "de": ("gestern", "letzte Woche", "vor 3 Tagen", "letzten Monat", "vor 2 Wochen", "März 2024"),
    "es": ("ayer", "la semana pasada", "hace 3 días", "el mes pasado", "hace 2 semanas", "marzo de 2024"),
    "fr": ("hier", "la semaine dernière", "il y a 3 jours", "le mois dernier", "il y a 2 semaines", "mars 2024"),
    "pt": ("ontem", "semana passada", "há 3 dias", "mês passado", "há 2 semanas", "março de 2024"),
    "it": ("ieri", "la settimana scorsa", "3 giorni fa", "il mese scorso", "2 settimane fa", "marzo 2024"),
    "ru": ("вчера", "на прошлой неделе", "3 дня назад", "в прошлом месяце", "2 недели назад", "март 2024"),
    "nl": ("gisteren", "vorige week", "3 dagen geleden", "vorige maand", "2 weken geleden", "maart 2024"),
    "sv": ("igår", "förra veckan", "för 3 dagar sedan", "förra månaden", "för 2 veckor sedan", "mars 2024"),
    "da": ("i går", "sidste uge", "for 3 dage siden", "sidste måned", "for 2 uger siden", "marts 2024"),
    "pl": ("wczoraj", "w zeszłym tygodniu", "3 dni temu", "w zeszłym miesiącu", "2 tygodnie temu", "marzec 2024"),
    "cs": ("včera", "minulý týden", "před 3 dny", "minulý měsíc", "před 2 týdny", "březen 2024"),
    "tr": ("dün", "geçen hafta", "3 gün önce", "geçen ay", "2 hafta önce", "mart 2024"),
    "fi": ("eilen", "viime viikolla", "3 päivää sitten", "viime kuussa", "2 viikkoa sitten", "maaliskuu 2024"),
    "el": ("χθες", "την προηγούμενη εβδομάδα", "πριν από 3 ημέρες", "τον προηγούμενο μήνα",
           "πριν από 2 εβδομάδες", "Μάρτιος 2024"),
    "uk": ("вчора", "минулого тижня", "3 дні тому", "минулого місяця", "2 тижні тому", "березень 2024"),
    "id": ("kemarin", "minggu lalu", "3 hari yang lalu", "bulan lalu", "2 minggu yang lalu", "maret 2024"),
    "ja": ("昨日", "先週", "3日前", "先月", "2週間前", "2024年3月"),
}  # fmt: skip


def tables(text: str) -> date | None:
    try:
        return parse_bound(text, now=NOW, tz=UTC, end=False).date()
    except ValueError:
        return None


def dateparser_reads(text: str) -> date | None:
    if importlib.util.find_spec("dateparser") is None:
        return None  # not installed: counted as not read, and said so below
    import dateparser

    found = dateparser.parse(
        text,
        settings={
            "RELATIVE_BASE": NOW.replace(tzinfo=None),
            "PREFER_DAY_OF_MONTH": "first",
            "PREFER_DATES_FROM": "past",
        },
    )
    return None if found is None else found.date()


def startup(code: str) -> float:
    def once(src: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", src], check=True, cwd=ROOT)
        return time.perf_counter() - t0

    bare = statistics.median(once("pass") for _ in range(3))
    return statistics.median(once(code) for _ in range(3)) - bare


def main() -> None:
    print(f"tables: {', '.join(['en', *LANGUAGES])}")
    print(f"{'lang':<5} {'tables':>6} {'dateparser':>10}  misses (tables | dateparser)")
    totals = [0, 0, 0, 0]
    for lang, phrases in PHRASES.items():
        ours = [
            (d := tables(p)) is not None and lo <= d <= hi
            for p, (lo, hi) in zip(phrases, PERIODS, strict=True)
        ]
        theirs = [
            (d := dateparser_reads(p)) is not None and lo <= d <= hi
            for p, (lo, hi) in zip(phrases, PERIODS, strict=True)
        ]
        table_lang = lang == "en" or lang in LANGUAGES
        totals[0 if table_lang else 2] += sum(ours)
        totals[1 if table_lang else 3] += sum(theirs)
        miss = " | ".join(
            ", ".join(p for p, ok in zip(phrases, r, strict=True) if not ok) for r in (ours, theirs)
        )
        print(f"{lang:<5} {sum(ours):>6} {sum(theirs):>10}  {miss}")
    n_tab = 6 * sum(1 for lang in PHRASES if lang == "en" or lang in LANGUAGES)
    n_other = 6 * len(PHRASES) - n_tab
    print(f"languages with tables: tables {totals[0]}/{n_tab}, dateparser {totals[1]}/{n_tab}")
    print(f"other languages: tables {totals[2]}/{n_other}, dateparser {totals[3]}/{n_other}")
    t = startup(
        "from datetime import datetime, UTC; from refind_cli.dates.timeexpr import parse_bound; "
        "parse_bound('la semaine dernière', now=datetime.now(UTC), tz=UTC, end=False)"
    )
    print(f"start-up, tables (timeexpr, a French bound): {t * 1000:.0f} ms")
    if importlib.util.find_spec("dateparser") is None:
        print("dateparser is not installed: its column counts nothing (pip install dateparser)")
        return
    t = startup("import dateparser; dateparser.parse('la semaine dernière')")
    print(f"start-up, dateparser (a French bound): {t * 1000:.0f} ms")
    t = startup("import dateparser; dateparser.parse('zzz qqq')")
    print(f"start-up, dateparser (text it cannot read, e.g. a typo): {t * 1000:.0f} ms")
    t = startup("import dateparser; dateparser.parse('la semaine dernière', languages=['fr'])")
    print(f"start-up, dateparser told the language (a French bound): {t * 1000:.0f} ms")


if __name__ == "__main__":
    main()
