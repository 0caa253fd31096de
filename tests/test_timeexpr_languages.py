"""Time words in German, Spanish, French, Portuguese, Italian and Russian, asked the way people type them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.dates.timeexpr import find_ranges, parse_bound, parse_range
from refind_cli.dates.timewords import LANGUAGES
from refind_cli.errors import RefindError
from refind_cli.request import time_range

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 15, 0, tzinfo=BERLIN)  # a Monday in autumn
US = timedelta(microseconds=1)


def local(text: str, *, end: bool = False) -> datetime:
    """A Berlin wall-clock time; a bare date is its first moment, or with ``end`` its last."""
    if "T" in text:
        return datetime.fromisoformat(text).replace(tzinfo=BERLIN).astimezone(UTC)
    day = datetime.fromisoformat(text).replace(tzinfo=BERLIN)
    return ((day + timedelta(days=1)).astimezone(UTC) - US) if end else day.astimezone(UTC)


# (language, question, the expression found, first day or moment, last day or moment), Berlin time.
QUESTIONS = [
    ("de", "Was haben wir letzte Woche gemacht?", "letzte Woche", "2026-11-23", "2026-11-29"),
    ("de", "Wie viel hab ich letzten Monat ausgegeben?", "letzten Monat", "2026-10-01", "2026-10-31"),
    ("de", "wo waren wir letztes jahr im urlaub", "letztes jahr", "2025-01-01", "2025-12-31"),
    ("de", "Was steht nächste Woche an?", "nächste Woche", "2026-12-07", "2026-12-13"),
    ("de", "was steht naechste woche an", "naechste woche", "2026-12-07", "2026-12-13"),
    ("de", "Hat Oma vor 3 Tagen angerufen?", "vor 3 Tagen", "2026-11-27", "2026-11-27"),
    ("de", "Was hat Tom vor zwei Wochen geschrieben?", "vor zwei Wochen", "2026-11-16", "2026-11-22"),
    ("de", "das war vor einem Monat", "vor einem Monat", "2026-10-01", "2026-10-31"),
    ("de", "Wann waren wir im März 2023 beim Zahnarzt?", "im März 2023", "2023-03-01", "2023-03-31"),
    ("de", "was war im maerz los", "im maerz", "2026-03-01", "2026-03-31"),
    ("de", "Treffen wir uns am 15. März?", "am 15. März", "2026-03-15", "2026-03-15"),
    ("de", "Was hat Papa letzten Freitag gesagt?", "letzten Freitag", "2026-11-27", "2026-11-27"),
    ("de", "wer hat gestern angerufen", "gestern", "2026-11-29", "2026-11-29"),
    ("de", "Und was war vorgestern?", "vorgestern", "2026-11-28", "2026-11-28"),
    ("de", "Wo waren wir letzten Sommer?", "letzten Sommer", "2026-06-01", "2026-08-31"),
    ("de", "Was ist seit März passiert?", "seit März", "2026-03-01", "2026-11-30T15:00"),
    ("de", "Fotos von März bis Mai", "von März bis Mai", "2026-03-01", "2026-05-31"),
    ("de", "Anfang Juni waren wir in Rom", "Anfang Juni", "2026-06-01", "2026-06-10"),
    ("de", "Was haben wir am Wochenende gemacht?", "am Wochenende", "2026-11-28", "2026-11-29"),
    ("de", "worüber in den letzten zwei Wochen geredet", "in den letzten zwei Wochen", "2026-11-16T15:00",
     "2026-11-30T15:00"),
    ("es", "¿Qué hicimos la semana pasada?", "la semana pasada", "2026-11-23", "2026-11-29"),
    ("es", "cuánto gasté el mes pasado", "el mes pasado", "2026-10-01", "2026-10-31"),
    ("es", "a dónde fuimos el año pasado", "el año pasado", "2025-01-01", "2025-12-31"),
    ("es", "que hicimos el ano pasado", "el ano pasado", "2025-01-01", "2025-12-31"),
    ("es", "hace dos semanas hablamos del piso", "hace dos semanas", "2026-11-16", "2026-11-22"),
    ("es", "me lo dijo hace 3 días", "hace 3 días", "2026-11-27", "2026-11-27"),
    ("es", "qué pasó el 15 de marzo", "el 15 de marzo", "2026-03-15", "2026-03-15"),
    ("es", "la boda fue el 15 de marzo de 2023", "el 15 de marzo de 2023", "2023-03-15", "2023-03-15"),
    ("es", "qué hicimos en marzo", "en marzo", "2026-03-01", "2026-03-31"),
    ("es", "quién llamó ayer", "ayer", "2026-11-29", "2026-11-29"),
    ("es", "nos vemos manana?", "manana", "2026-12-01", "2026-12-01"),
    ("es", "qué dijo Ana el viernes pasado", "el viernes pasado", "2026-11-27", "2026-11-27"),
    ("es", "dónde estuvimos el verano pasado", "el verano pasado", "2026-06-01", "2026-08-31"),
    ("es", "fotos desde marzo hasta mayo", "desde marzo hasta mayo", "2026-03-01", "2026-05-31"),
    ("es", "qué pasó a principios de marzo", "a principios de marzo", "2026-03-01", "2026-03-10"),
    ("es", "el mes que viene nos mudamos", "el mes que viene", "2026-12-01", "2026-12-31"),
    ("es", "qué hicimos el fin de semana pasado", "el fin de semana pasado", "2026-11-28", "2026-11-29"),
    ("fr", "qu'est-ce qu'on a fait la semaine dernière ?", "la semaine dernière", "2026-11-23", "2026-11-29"),
    ("fr", "combien j'ai dépensé le mois dernier", "le mois dernier", "2026-10-01", "2026-10-31"),
    ("fr", "où étions-nous l'année dernière", "l'année dernière", "2025-01-01", "2025-12-31"),
    ("fr", "on est partis l’an dernier", "l’an dernier", "2025-01-01", "2025-12-31"),
    ("fr", "il m'a appelé il y a 3 jours", "il y a 3 jours", "2026-11-27", "2026-11-27"),
    ("fr", "elle l'a dit il y a deux semaines", "il y a deux semaines", "2026-11-16", "2026-11-22"),
    ("fr", "c'était le 3 mars 2023", "le 3 mars 2023", "2023-03-03", "2023-03-03"),
    ("fr", "on s'est vus en fevrier", "en fevrier", "2026-02-01", "2026-02-28"),
    ("fr", "les photos de févr. 2024", "de févr. 2024", "2024-02-01", "2024-02-29"),
    ("fr", "qui a appelé hier ?", "hier", "2026-11-29", "2026-11-29"),
    ("fr", "qu'a dit Marie vendredi dernier", "vendredi dernier", "2026-11-27", "2026-11-27"),
    ("fr", "où étions-nous l'été dernier", "l'été dernier", "2026-06-01", "2026-08-31"),
    ("fr", "on ira à la mer en été", "en été", "2026-06-01", "2026-08-31"),
    ("fr", "quoi de neuf depuis mars ?", "depuis mars", "2026-03-01", "2026-11-30T15:00"),
    ("fr", "les vacances de mars à mai", "de mars à mai", "2026-03-01", "2026-05-31"),
    ("fr", "le concert à la mi-juin", "mi-juin", "2026-06-11", "2026-06-20"),
    ("fr", "on a fait quoi le week-end dernier", "le week-end dernier", "2026-11-28", "2026-11-29"),
    ("pt", "o que fizemos na semana passada?", "na semana passada", "2026-11-23", "2026-11-29"),
    ("pt", "quanto gastei no mês passado", "no mês passado", "2026-10-01", "2026-10-31"),
    ("pt", "oq a gente fez mes passado", "mes passado", "2026-10-01", "2026-10-31"),
    ("pt", "ela me mandou isso há 2 meses", "há 2 meses", "2026-09-01", "2026-09-30"),
    ("pt", "ele ligou 3 dias atrás", "3 dias atrás", "2026-11-27", "2026-11-27"),
    ("pt", "o que aconteceu em março", "em março", "2026-03-01", "2026-03-31"),
    ("pt", "a gente viajou em marco", "em marco", "2026-03-01", "2026-03-31"),
    ("pt", "o casamento foi em 15 de março de 2023", "em 15 de março de 2023", "2023-03-15", "2023-03-15"),
    ("pt", "quem ligou ontem", "ontem", "2026-11-29", "2026-11-29"),
    ("pt", "a gente se vê amanha", "amanha", "2026-12-01", "2026-12-01"),
    ("pt", "o que ele disse na sexta passada", "na sexta passada", "2026-11-27", "2026-11-27"),
    ("pt", "vamos na próxima segunda", "na próxima segunda", "2026-12-07", "2026-12-07"),
    ("pt", "onde estávamos no verão passado", "no verão passado", "2026-06-01", "2026-08-31"),
    ("pt", "fotos de março a maio", "de março a maio", "2026-03-01", "2026-05-31"),
    ("pt", "o que fizemos no fim de semana passado", "no fim de semana passado", "2026-11-28", "2026-11-29"),
    ("it", "cosa abbiamo fatto la settimana scorsa?", "la settimana scorsa", "2026-11-23", "2026-11-29"),
    ("it", "dove siamo andati l'anno scorso", "l'anno scorso", "2025-01-01", "2025-12-31"),
    ("it", "quanto ho speso quest'anno", "quest'anno", "2026-01-01", "2026-12-31"),
    ("it", "mi ha chiamato 3 giorni fa", "3 giorni fa", "2026-11-27", "2026-11-27"),
    ("it", "ne abbiamo parlato due settimane fa", "due settimane fa", "2026-11-16", "2026-11-22"),
    ("it", "ci siamo visti a marzo", "a marzo", "2026-03-01", "2026-03-31"),
    ("it", "il matrimonio era il 3 marzo 2023", "il 3 marzo 2023", "2023-03-03", "2023-03-03"),
    ("it", "chi ha chiamato ieri", "ieri", "2026-11-29", "2026-11-29"),
    ("it", "e l'altro ieri?", "l'altro ieri", "2026-11-28", "2026-11-28"),
    ("it", "cosa ha detto venerdi scorso", "venerdi scorso", "2026-11-27", "2026-11-27"),
    ("it", "dove eravamo l'estate scorsa", "l'estate scorsa", "2026-06-01", "2026-08-31"),
    ("it", "le foto da marzo a maggio", "da marzo a maggio", "2026-03-01", "2026-05-31"),
    ("it", "la festa a metà giugno", "a metà giugno", "2026-06-11", "2026-06-20"),
    ("it", "cosa abbiamo fatto lo scorso weekend", "lo scorso weekend", "2026-11-28", "2026-11-29"),
    ("ru", "что мы делали на прошлой неделе?", "на прошлой неделе", "2026-11-23", "2026-11-29"),
    ("ru", "сколько я потратил в прошлом месяце", "в прошлом месяце", "2026-10-01", "2026-10-31"),
    ("ru", "где мы были в прошлом году", "в прошлом году", "2025-01-01", "2025-12-31"),
    ("ru", "он писал 2 недели назад", "2 недели назад", "2026-11-16", "2026-11-22"),
    ("ru", "она звонила месяц назад", "месяц назад", "2026-10-01", "2026-10-31"),
    ("ru", "что было в марте 2023", "в марте 2023", "2023-03-01", "2023-03-31"),
    ("ru", "свадьба была 3 марта", "3 марта", "2026-03-03", "2026-03-03"),
    ("ru", "куда мы ездили в 2023 году", "в 2023 году", "2023-01-01", "2023-12-31"),
    ("ru", "кто звонил вчера", "вчера", "2026-11-29", "2026-11-29"),
    ("ru", "что он сказал в прошлую пятницу", "в прошлую пятницу", "2026-11-27", "2026-11-27"),
    ("ru", "где мы были прошлым летом", "прошлым летом", "2026-06-01", "2026-08-31"),
    ("ru", "фотки с марта по май", "с марта по май", "2026-03-01", "2026-05-31"),
    ("ru", "что было в конце апреля", "в конце апреля", "2026-04-21", "2026-04-30"),
]  # fmt: skip


@pytest.mark.parametrize(("lang", "question", "text", "first", "last"), QUESTIONS)
def test_find_ranges_in_each_language(lang: str, question: str, text: str, first: str, last: str) -> None:
    got = find_ranges(question, now=NOW, tz=BERLIN, lang=lang)
    assert [(r.text, r.start, r.end) for r in got] == [(text, local(first), local(last, end=True))]


@pytest.mark.parametrize(
    ("lang", "question", "expected"),
    [
        ("de", "ich bin hier", []),
        ("fr", "j'étais là hier", ["hier"]),
        ("en", "j'étais là hier", []),
        ("de", "Guten Morgen!", []),
        ("de", "Wir sehen uns morgen", ["morgen"]),
        ("fr", "j'ai été malade", []),
        ("fr", "il a été dernier de la course", []),
        ("pt", "foi a segunda vez que fui lá", []),
        ("pt", "vou na segunda", ["na segunda"]),
        ("pt", "o marco da cidade", []),
        ("ru", "выбросы в окружающую среду", []),
        ("ru", "увидимся в среду", ["в среду"]),
        ("es", "esta mañana fui al médico", []),
        ("es", "¿Vienes mañana?", ["mañana"]),
        ("de", "ich habe 2000 Euro bezahlt", []),
        ("en", "letzte Woche", []),
    ],
)
def test_a_word_is_a_date_only_in_its_language(lang: str, question: str, expected: list[str]) -> None:
    assert [r.text for r in find_ranges(question, now=NOW, tz=BERLIN, lang=lang)] == expected


def test_unknown_codes_read_english_and_regions_their_language() -> None:
    english = find_ranges("what did we do last week?", now=NOW, tz=BERLIN)
    assert english
    for lang in ("en", "und", "nl", "tr", "xx", ""):
        assert find_ranges("what did we do last week?", now=NOW, tz=BERLIN, lang=lang) == english
    assert find_ranges("mês passado", now=NOW, tz=BERLIN, lang="pt-BR") == find_ranges(
        "mês passado", now=NOW, tz=BERLIN, lang="pt"
    )
    assert find_ranges("Letzte Woche", now=NOW, tz=BERLIN, lang="DE")


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("letzte Woche", "2026-11-23", "2026-11-29"),
        ("la semana pasada", "2026-11-23", "2026-11-29"),
        ("hier", "2026-11-29", "2026-11-29"),
        ("il y a 3 jours", "2026-11-27", "2026-11-27"),
        ("mês passado", "2026-10-01", "2026-10-31"),
        ("l'anno scorso", "2025-01-01", "2025-12-31"),
        ("в прошлом месяце", "2026-10-01", "2026-10-31"),
        ("15 de marzo de 2023", "2023-03-15", "2023-03-15"),
        ("в марте 2023 года", "2023-03-01", "2023-03-31"),
        ("févr. 2024", "2024-02-01", "2024-02-29"),
        ("mar", "2026-03-01", "2026-03-31"),  # English first: March, not Spanish martes
        ("sept", "2026-09-01", "2026-09-30"),  # English September, not French sept (seven)
    ],
)
def test_parse_bound_reads_every_language(text: str, start: str, end: str) -> None:
    assert parse_bound(text, now=NOW, tz=BERLIN, end=False) == local(start)
    assert parse_bound(text, now=NOW, tz=BERLIN, end=True) == local(end, end=True)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("soon", "cannot read 'soon' as a date or time; try 2023-05-04"),
        ("31 avril", "'31 avril': April has no day 31"),
        ("bis März", "'bis März' has no definite start and end"),
        ("hier soon", "cannot read 'hier soon'"),
        ("31. April", "'31. April': April has no day 31"),
        # German reads a day that does not exist in it, but not the whole text: English's words stand
        ("31. April oder so", "cannot read '31. April oder so'"),
    ],
)
def test_parse_bound_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_bound(text, now=NOW, tz=BERLIN, end=False)


def test_since_and_until_take_other_languages() -> None:
    assert time_range("vor 3 Tagen", "gestern", now=NOW, tz=BERLIN) == (
        local("2026-11-27"),
        local("2026-11-29", end=True),
    )
    with pytest.raises(RefindError, match="--since: cannot read 'nächsten Dienstag oder so'"):
        time_range("nächsten Dienstag oder so", None, now=NOW, tz=BERLIN)


def test_every_language_reads_its_words_and_the_same_shapes() -> None:
    for lang in LANGUAGES:
        assert find_ranges("2023-05-04", now=NOW, tz=BERLIN, lang=lang)[0].start == local("2023-05-04")
        assert parse_range("Q2 2026", now=NOW, tz=BERLIN, lang=lang).start == local("2026-04-01")


# --- properties ---------------------------------------------------------------------------------------------

nows = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(UTC))


def vocabulary(lang: str) -> list[str]:
    w = LANGUAGES[lang]
    tables = (
        w.months,
        w.month_abbr,
        w.weekdays,
        w.seasons,
        w.days,
        w.rel_before,
        w.rel_after,
        w.units,
        w.counted,
    )
    words = {word for table in tables for word in table}
    words |= {*w.numbers, *w.fills, *w.mods, *w.connectors, *w.parts, *w.ago_before, *w.ago_after, *w.rolling}
    return sorted(words | {"3", "15", "31", "2023", "2024", "0001", "-", ",", "?", "und", "x"})


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_find_ranges_never_raises_and_agrees_with_parse_range(lang: str) -> None:
    phrases = st.lists(st.sampled_from(vocabulary(lang)), min_size=1, max_size=6).map(" ".join)

    @settings(max_examples=120, deadline=None)
    @given(text=st.one_of(phrases, st.lists(phrases, max_size=3).map(" ".join)), now=nows)
    def check(text: str, now: datetime) -> None:
        for r in find_ranges(text, now=now, tz=BERLIN, lang=lang):
            assert r.start <= r.end and r.text in text
            again = parse_range(r.text, now=now, tz=BERLIN, lang=lang)
            assert (again.start, again.end) == (r.start, r.end)
        try:
            parse_bound(text, now=now, tz=BERLIN, end=True)
        except ValueError as err:
            assert str(err) and "\n" not in str(err)

    check()


def test_readme_names_the_languages_and_the_fallback() -> None:
    names = {
        "de": "German",
        "es": "Spanish",
        "fr": "French",
        "pt": "Portuguese",
        "it": "Italian",
        "ru": "Russian",
    }
    assert set(names) == set(LANGUAGES)
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    paragraph = next(p for p in readme.split("\n\n") if "Time words are" in p)
    assert all(name in paragraph for name in names.values())
    assert "fall back to English time words" in " ".join(paragraph.split())
