"""Search in the chat's own language (issue 14): a native speaker's query finds the message that says it in
other inflected forms, ranked above messages that share the query's function words or one of its words.

Each language has a family or friends chat as people type it (lower case, their usual short forms, emoji) and
a few queries. In each case the query reaches its answer through forms that only the language's Snowball
stemmer joins (plural and singular, tense and person, case endings, diminutives), which the first test checks
on the stemmer itself; distractors share the query's question words or one of its content words. Under the English
analysis (each chat imported with --lang en) 30 of the 41 cases rank a distractor first or find nothing."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest
import snowballstemmer
from cli_runs import run
from hypothesis import given, settings
from hypothesis import strategies as st
from language_chats import (
    CASES,
    ENGLISH_CASE,
    ENGLISH_CHAT,
    GERMAN,
    LANGUAGES,
    Case,
    whatsapp_export,
)

from refind_cli.agent import offline
from refind_cli.text import analysis
from refind_cli.text.analysis import analyzer_for

FAMILY = "WhatsApp Chat with Family.txt"


def imported(home: Path, *exports: Path, lang: str | None = None) -> Path:
    r = run(home, "import", "--tz", "Europe/Berlin", *(["--lang", lang] if lang else []), *map(str, exports))
    assert r.exit_code == 0, r.output
    return home


@pytest.fixture(scope="module")
def home_of(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """The home holding one language's chat alone, imported once per module (its language told from its text)."""

    @functools.cache
    def home(code: str) -> Path:
        folder = tmp_path_factory.mktemp(code)
        return imported(folder / "home", whatsapp_export(folder / FAMILY, LANGUAGES[code].chat))

    return home


def top(home: Path, query: str) -> list[str]:
    """The texts of the first three hits for ``query``, best first."""
    r = run(home, "search", "--json", "-k", "3", query)
    assert r.exit_code in (0, 1), r.output
    return [hit["text"] for hit in json.loads(r.stdout)["results"]]


def chat_langs(home: Path) -> dict[str, str]:
    r = run(home, "chats", "--json")
    assert r.exit_code == 0, r.output
    return {c["name"]: c["lang"] for c in json.loads(r.stdout)["chats"]}


@pytest.mark.parametrize("code, case", CASES, ids=[f"{code}-{case.query}" for code, case in CASES])
def test_each_case_rests_on_forms_the_stemmer_joins(code: str, case: Case):
    """The data, checked on snowballstemmer itself: each join is two different forms, one in the query and
    one in the answer, with one stem (diacritics folded, as the analysis folds them after stemming); and the
    answer is a message of the chat, once."""
    lang = LANGUAGES[code]
    stem = snowballstemmer.stemmer(lang.stemmer).stemWord
    assert [line.split(": ", 1)[1] for line in lang.chat.splitlines() if line].count(case.answer) == 1
    for in_query, in_answer in case.joins:
        assert in_query != in_answer
        assert in_query in re.findall(r"\w+", case.query) and in_answer.lower() in case.answer.lower()
        assert analysis.fold(stem(in_query.lower())) == analysis.fold(stem(in_answer.lower()))


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_chat_is_told_as_its_language(code: str, home_of: Callable[[str], Path]):
    assert chat_langs(home_of(code)) == {"Family": code}


@pytest.mark.parametrize("code, case", CASES, ids=[f"{code}-{case.query}" for code, case in CASES])
def test_a_native_query_finds_the_message_in_other_forms_first(
    code: str, case: Case, home_of: Callable[[str], Path]
):
    hits = top(home_of(code), case.query)
    assert hits and case.answer in hits[0], hits


@pytest.fixture(scope="module")
def german_and_english(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mixed")
    return imported(
        folder / "home",
        whatsapp_export(folder / FAMILY, GERMAN.chat),
        whatsapp_export(folder / "WhatsApp Chat with Sam.txt", ENGLISH_CHAT),
    )


def test_a_mixed_archive_shows_each_chats_language(german_and_english: Path):
    assert chat_langs(german_and_english) == {"Family": "de", "Sam": "en"}


MIXED = [*(("de", case) for case in GERMAN.cases), ("en", ENGLISH_CASE)]


@pytest.mark.parametrize("code, case", MIXED, ids=[f"{code}-{case.query}" for code, case in MIXED])
def test_a_german_and_an_english_chat_each_answer_in_their_own_language(
    code: str, case: Case, german_and_english: Path
):
    """Each query is analysed both ways: the German ones meet the English chat's "war" and "die" as English
    words, the English one meets the German chat's "flat white" as German; each finds its own message."""
    hits = top(german_and_english, case.query)
    assert hits and case.answer in hits[0], hits


def test_lang_on_import_decides_how_a_chat_is_analysed(tmp_path: Path, home_of: Callable[[str], Path]):
    """The German chat imported as English ranks as all chats did before languages: the distractor with the
    query's "wann war die" first. Told from its text, it is German and the answer comes first."""
    case = GERMAN.cases[0]
    as_english = imported(tmp_path / "home", whatsapp_export(tmp_path / FAMILY, GERMAN.chat), lang="en")
    assert chat_langs(as_english) == {"Family": "en"}
    assert case.answer not in top(as_english, case.query)[0]
    assert case.answer in top(home_of("de"), case.query)[0]


SHORT_GERMAN = """Anna: die impfungen für die katzen sind durch 👍
Ben: super, danke dir!
Anna: die katze schläft jetzt den ganzen tag 😴
Ben: die arme"""


def test_lang_gives_a_chat_too_short_to_tell_its_language(tmp_path: Path):
    export = whatsapp_export(tmp_path / "WhatsApp Chat with Anna.txt", SHORT_GERMAN)
    told = imported(tmp_path / "told", export)
    given = imported(tmp_path / "given", export, lang="de")
    assert chat_langs(told) == {"Anna": "und"} and chat_langs(given) == {"Anna": "de"}
    answer = "die impfungen für die katzen sind durch 👍"
    assert top(told, "impfung katze") == ["die katze schläft jetzt den ganzen tag 😴"]  # English: katze only
    assert top(given, "impfung katze")[0] == answer


# English as people type it, with the characters the analysis treats specially: apostrophes, accents,
# the Turkish dotted capital I, emoji, digits, CJK.
ENGLISH_TEXT = st.lists(
    st.one_of(
        st.sampled_from(
            "the a I'm don't we've they're dentist's appointments appointment booked booking running ran"
            " flights flight's café naïve résumé İstanbul Zoë straße 2024-05-04 30th 🎂 😂 東京で ok!! ..."
            " grandma's birthday presents wedding invitations cats vaccinated when did where are".split()
        ),
        st.text(max_size=8),
    ),
    max_size=20,
).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(ENGLISH_TEXT)
def test_english_and_undetermined_chats_analyse_as_before(text: str):
    expected = analysis.DEFAULT_ANALYZER.analyze(text)
    for lang in ("en", "und"):
        assert analyzer_for(lang).analyze(text) == expected
        assert list(analyzer_for(lang).words(text)) == list(analysis.DEFAULT_ANALYZER.words(text))


@pytest.mark.parametrize(
    "text, terms",
    [
        (
            "Don't forget the dentist's appointments on Tuesday, they're rescheduling again!!",
            ["forget", "dentist", "appoint", "tuesdai", "reschedul"],
        ),
        (
            "Booked the café in İstanbul for Zoë's 30th 🎂🎂 — naïve résumé, straße",
            ["book", "cafe", "istanbul", "zoe", "30th", "🎂", "🎂", "naiv", "resum", "strass"],
        ),
        (
            "we've been running late since 2024-05-04, the trains were cancelled",
            ["run", "late", "sinc", "2024", "05", "04", "train", "cancel"],
        ),
        (
            "東京で会いましょう, the flights are booked",
            ["東京", "京で", "で会", "会い", "いま", "まし", "しょ", "ょう", "flight", "book"],
        ),
    ],
)
def test_english_terms_are_the_ones_before_languages(text: str, terms: list[str]):
    """Terms written down from the analysis before issue 14 (d5cad6e): English chats keep their index."""
    assert analyzer_for("en").analyze(text) == terms


def test_turkish_function_words_are_stop_words():
    """The stop-words package's Turkish list is mis-encoded (Windows-1254 read as Latin-1: 'þey' for 'şey',
    'nasýl' for 'nasıl'); the analysis repairs it."""
    assert analyzer_for("tr").analyze("şey nasıl mı") == []


def ask_json(home: Path, question: str, now: str) -> dict:
    r = run(home, "ask", question, "--now", now, "--tz", "Europe/Berlin", "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_the_offline_planner_reads_the_question_in_the_chats_language(home_of: Callable[[str], Path]):
    """German function words are no keywords, "letzte Woche" is a date range, and the answer is noted."""
    home = home_of("de")
    found = ask_json(home, "wann haben wir die wohnungen besichtigt?", "2024-03-20T12:00")
    assert found["rounds"][0]["arguments"]["keywords"] == "wohnungen besichtigt"
    assert any("können wir samstag um 11 besichtigen" in note["text"] for note in found["notes"])
    dated = ask_json(home, "was war letzte woche mit der katze?", "2024-03-21T12:00")
    searches = [r["arguments"] for r in dated["rounds"] if r["tool"] == "search_chat"]
    assert searches[0]["keywords"] == "katze"
    # Last week, 11-17 March, and the days after it in which an event is told of (offline.FORWARD).
    week_on = (date(2024, 3, 17) + offline.FORWARD).isoformat()
    assert ("2024-03-11", week_on) in [(s["date_from"], s["date_to"]) for s in searches]


def test_french_elided_articles_leave_the_word_they_stand_before():
    from refind_cli.agent.offline import content_words

    assert content_words("quand est-ce qu'on a visité l'appartement ?", analyzer_for("fr")) == [
        "visité",
        "appartement",
    ]


def test_a_model_is_told_the_chats_languages():
    from refind_cli.method.search_tools import languages_note

    assert languages_note(["en", "und"]) == languages_note([]) == ""
    assert "written in German and English:" in languages_note(["de", "en"])


def test_an_mcp_client_is_told_the_chats_languages(home_of: Callable[[str], Path]):
    from datetime import UTC

    from refind_cli.facade import Home
    from refind_cli.frontends.mcp.server import ArchiveTools

    with Home.open(home_of("de")) as home:
        assert "Its chats are written in German:" in ArchiveTools(home, UTC).prompt("wann war das?")


@pytest.mark.parametrize(
    "lang, counting, single",
    [
        ("de", "wie viele bücher hat lena dieses jahr gelesen?", "wann war die besichtigung?"),
        ("es", "¿cuántas veces fuimos al cine?", "¿dónde reservamos el vuelo?"),
        ("fr", "combien de fois on est allés à la plage ?", "quand est-ce qu'on a visité l'appartement ?"),
        ("pt", "quantos livros você leu esse ano?", "onde fica o apartamento?"),
        ("it", "quante volte siamo andati al mare?", "dove abbiamo prenotato?"),
        ("nl", "hoe vaak zijn we naar oma geweest?", "waar is de sleutel?"),
        ("ru", "сколько раз мы ездили на дачу?", "где ключи от квартиры?"),
        ("tr", "kaç kez sinemaya gittik?", "anahtarlar nerede?"),
    ],
)
def test_counting_questions_spread_over_sessions_in_each_language(lang: str, counting: str, single: str):
    from refind_cli.agent.offline import spreads

    assert spreads(counting, lang) and not spreads(single, lang)
