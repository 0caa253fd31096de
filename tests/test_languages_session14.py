"""What session 14 (polyglot4) changed in the analysis of languages other than English, each on text nobody here
wrote: a query made only of stop words finds its message (the stop-words package lists words people search
for: Vietnamese "tháng", "month"; Italian "maggiore"; Finnish "tämä"); a query's word shorter than the cut of
a language without a stemmer meets its longer forms; a Chinese date's numbered month ("5月") is the month a
person names ("五月"). The end-to-end sample is Django's admin catalog (``catalog_chats``), which this session
did not tune on; the languages were chosen before any figure of them was read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from babel import localedata
from babel.core import parse_locale
from catalog_chats import chat
from test_catalog_languages import imported, refind

from refind_cli.method.search import query_terms
from refind_cli.text import datenames, datenames_data
from refind_cli.text.analysis import (
    DEFAULT_ANALYZER,
    STOP_MARK,
    TRUNCATE,
    Analyzer,
    analyzer_for,
)

# Languages whose stop-words lists are long (Vietnamese, Persian, Finnish, Hungarian), one cut to a prefix
# (Slovene), and Catalan and Norwegian, chosen before their figures were read.
SAMPLE = ("vi", "fa", "fi", "hu", "sl", "ca", "nb")


def _stop_needles(messages: tuple[str, ...], analyzer: Analyzer) -> list[tuple[str, int]]:
    """(a stop word of ``analyzer`` that one message alone holds, that message's index), at most three."""
    seen: dict[str, set[int]] = {}
    for at, message in enumerate(messages):
        for word in analyzer._words(message):
            if analyzer._stop_term(word):
                seen.setdefault(word, set()).add(at)
    return sorted((w, next(iter(ats))) for w, ats in seen.items() if len(ats) == 1 and len(w) >= 3)[:3]


def test_a_query_of_stop_words_alone_finds_the_message_that_holds_them(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    home = tmp_path / "home"
    made = imported(folder, home, SAMPLE)
    told = {c["name"]: c["lang"] for c in json.loads(refind(home, "chats", "--json"))["chats"]}
    asked = hits = 0
    for lang, found in made.items():
        needles = _stop_needles(found.messages, analyzer_for(told[lang]))
        if not needles:
            # A language the stop-words package has no list for (Slovenian) has none to ask; empty stdin is an error.
            continue
        queries = "".join(f"{word}\n{word.upper()}\n" for word, _ in needles)
        lines = refind(home, "search", "-", "--chat", lang, "-k", "3", "--jsonl", stdin=queries).splitlines()
        results = [json.loads(line)["results"] for line in lines if line.strip()]
        for (_, at), found_hits in zip([n for n in needles for _ in range(2)], results, strict=True):
            asked += 1
            hits += any(found.messages[at] in h["text"] for h in found_hits)
    # Before this change none was found: a query of stop words alone had no term.
    assert asked >= 12
    assert hits >= 0.9 * asked, (hits, asked)


def test_a_stop_word_term_is_no_other_words_term_and_english_indexes_none() -> None:
    for lang in ("es", "it", "de", "fi", "vi"):
        analyzer = analyzer_for(lang)
        found = chat(lang, "admin")
        assert found is not None
        for message in found.messages:
            for word in analyzer._words(message):
                terms = analyzer.index_text(word).split()
                marked = [t for t in terms if t.startswith(STOP_MARK)]
                # A stop word has its one marked term; any other word none.
                assert marked == ([analyzer._stop_term(word)] if analyzer._stop_term(word) else []), word
                assert len(marked) == len(terms) or not marked
    # In full-width letters a stop word is the stop word, as a query and in a turn.
    malay = analyzer_for("ms")
    assert malay.query_text("ｍｅｎｙｅｂａｂｋａｎ") == "" and malay.function_terms(
        "ｍｅｎｙｅｂａｂｋａｎ"
    ) == [malay.index_text("menyebabkan")]
    assert not any(t.startswith(STOP_MARK) for t in DEFAULT_ANALYZER.index_text("what is this for").split())
    assert DEFAULT_ANALYZER.function_terms("what is this") == []


class _Terms:
    """An index that holds ``terms`` and nothing else: what ``query_terms`` asks of one."""

    def __init__(self, analyzer: Analyzer, terms: list[str]) -> None:
        self.analyzer = analyzer
        self.terms = terms

    def expand(self, prefix: str, limit: int) -> list[str]:
        return [t for t in self.terms if t.startswith(prefix)][:limit]


def test_a_query_looks_for_stop_words_only_when_it_has_nothing_else() -> None:
    italian = analyzer_for("it")
    index = _Terms(italian, italian.index_text("la data maggiore del mese").split())
    assert query_terms(index, "maggiore").terms == ("~maggiore",)  # type: ignore[arg-type]
    # With a content word beside it, the stop word is left out as before.
    assert query_terms(index, "maggiore data").terms == tuple(italian.analyze("data"))  # type: ignore[arg-type]


def test_a_short_word_of_a_language_without_a_stemmer_meets_the_cuts_it_begins() -> None:
    slovene = analyzer_for("sl")
    assert slovene.cut == TRUNCATE and analyzer_for("de").cut == 0
    index = _Terms(slovene, slovene.index_text("novega leta in novice").split())
    terms = query_terms(index, "nov").terms  # type: ignore[arg-type]
    assert "nov" in terms and "noveg" in terms and "novic" in terms
    # A word of the cut's length or longer, or of two letters, is looked for as it is.
    assert query_terms(index, "novega").terms == ("noveg",)  # type: ignore[arg-type]
    assert query_terms(index, "no").terms == ("no",)  # type: ignore[arg-type]
    # A stemmed language's stemmer joins its short forms: no expansion.
    german = analyzer_for("de")
    assert query_terms(_Terms(german, ["hause", "hausen"]), "Haus").terms == ("haus",)  # type: ignore[arg-type]


def test_a_numbered_month_in_a_chinese_date_is_the_month_a_person_names() -> None:
    chinese = analyzer_for("zh")
    date = chinese.index_text("我们2024年5月15日见").split()
    assert set(chinese.analyze("五月")) <= set(date)
    assert chinese.analyze("5月") == chinese.analyze("五月")
    # Twelve, not one and two; a day ("15日") is no month.
    assert "十二" in chinese.index_text("12月").split() and "一月" not in chinese.index_text("12月").split()
    assert chinese.index_text("15日").split() == ["15", "日"]
    # Japanese and Korean name their months by number: their dates stay as they were.
    assert datenames.numbered("ja") == ("", ()) and datenames.numbered("ko") == ("", ())
    assert analyzer_for("ja").index_text("5月") == "5 月"


def test_the_numbered_months_table_holds_what_babel_gives_now() -> None:
    sample = {"zh", "ii", "ja", "ko", "yue", "en"}
    idents = [i for i in localedata.locale_identifiers() if parse_locale(i)[0] in sample]
    assert datenames.generate_numbered(idents) == {
        lang: datenames_data.NUMBERED[lang] for lang in sample if lang in datenames_data.NUMBERED
    }
    assert set(datenames_data.NUMBERED) >= {"zh", "ii"}


@pytest.mark.parametrize("lang", ["vi", "it"])
def test_a_bilingual_chat_reads_a_stop_word_query_in_both_languages(lang: str) -> None:
    both = analyzer_for(f"{lang}+en")
    own = analyzer_for(lang)
    word = sorted(w for w in own.stopwords if len(w) >= 5 and w.isalpha())[0]
    assert both.function_terms(word) == own.function_terms(word) != []
