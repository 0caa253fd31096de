from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.text.analysis import (
    DEFAULT_ANALYZER,
    FULL_STOPWORDS,
    LUCENE_STOPWORDS,
    MAX_TOKEN_CHARS,
    Analyzer,
    analyze,
    analyzer_for,
)


def test_lowercase_split_stem() -> None:
    assert analyze("Running DENTISTS' e-mail, 3.14!") == ["run", "dentist", "e", "mail", "3", "14"]


def test_porter_not_porter2() -> None:
    # Porter2 (tantivy's "english") keeps "generous" and "news"; the paper's Porter does not.
    assert analyze("generously news") == ["gener", "new"]


def test_lucene_stopwords_removed_but_not_others() -> None:
    lucene = Analyzer(LUCENE_STOPWORDS, name="lucene")
    assert len(LUCENE_STOPWORDS) == 33
    assert lucene.analyze("the cat and the hat") == ["cat", "hat"]
    assert lucene.analyze("how about") == ["how", "about"]


def test_full_stopword_list_is_the_default() -> None:
    assert LUCENE_STOPWORDS < FULL_STOPWORDS
    assert DEFAULT_ANALYZER.stopwords == FULL_STOPWORDS
    assert analyze("how about the dentist") == ["dentist"]
    # Contractions split at the apostrophe; their fragments are stop words too.
    assert analyze("I don't know") == ["know"]


def test_porter_empty_stem_dropped() -> None:
    # Porter stems "s" to "", which must not become an (empty) index term.
    assert Analyzer(LUCENE_STOPWORDS).analyze("Bob's s") == ["bob"]
    assert "" not in analyze("s s s")


def test_query_syntax_is_plain_text() -> None:
    assert analyze("what's C++: (paris") == ["c", "pari"]
    assert analyze("-foo") == ["foo"]
    assert analyze('" * : ( ) -') == []


def test_unicode_letters_and_decomposed_accents() -> None:
    composed = "café naïve"
    decomposed = unicodedata.normalize("NFD", composed)
    assert analyze(decomposed) == analyze(composed) == ["cafe", "naiv"]  # folded, as people type them
    assert analyze("İstanbul") == analyze("istanbul")


def test_combining_marks_stay_inside_words() -> None:
    assert analyze("नमस्ते दोस्त") == ["नमस्ते", "दोस्त"]


def test_cjk_bigrams() -> None:
    assert analyze("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
    assert analyze("日") == ["日"]
    assert analyze("한국어 공부") == ["한국", "국어", "공부"]
    # A CJK run next to Latin letters is cut off from them.
    assert analyze("iPhone東京") == ["iphon", "東京"]


def test_long_tokens_dropped() -> None:
    assert analyze("x" * (MAX_TOKEN_CHARS + 1) + " dentist") == ["dentist"]
    assert analyze("y" * MAX_TOKEN_CHARS) != []


def test_index_text_is_space_joined_terms() -> None:
    text = "Meet me at the dentist on Tuesday 東京"
    assert DEFAULT_ANALYZER.index_text(text) == " ".join(analyze(text))


def test_words_offsets_point_into_original_text() -> None:
    text = "Hi İlker, DENTISTS 東京タワー"
    words = list(Analyzer(stopwords=()).words(text))
    assert [t for _, _, t in words] == Analyzer(stopwords=()).analyze(text)
    assert [text[s:e] for s, e, _ in words] == ["Hi", "İlker", "DENTISTS", "東京", "京タ", "タワ", "ワー"]


_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
        st.sampled_from(list("abc XYZ'-.東京タワー한국\u0301\u093fन् ")),
    ),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(_text)
def test_terms_are_clean_and_consistent(text: str) -> None:
    terms = analyze(text)
    assert all(t and not any(c.isspace() for c in t) for t in terms)
    # The fast ASCII path and the full Unicode path split the same way, and the cache changes nothing.
    assert Analyzer().analyze(text) == terms
    assert [t for _, _, t in DEFAULT_ANALYZER.words(text)] == terms


@pytest.mark.parametrize("name", ["lucene", "full"])
def test_stopwords_are_never_terms(name: str) -> None:
    stop = LUCENE_STOPWORDS if name == "lucene" else FULL_STOPWORDS
    a = Analyzer(stop, name=name)
    assert a.analyze(" ".join(sorted(stop))) == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_ascii_fast_path_splits_like_the_regex(text: str) -> None:
    # ASCII text takes the byte-table path in index_text; words() the simple pattern.
    assert analyze(text) == [t for _, _, t in DEFAULT_ANALYZER.words(text)]


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_words_are_found_as_the_unicode_pattern_finds_them(text: str) -> None:
    from refind_cli.text.analysis import _unicode

    kinds, token, *_ = _unicode()
    expected = [
        (m.start(), m.end(), t)
        for m in token.finditer(kinds(text))
        for t in DEFAULT_ANALYZER.analyze(text[m.start() : m.end()])
    ]
    assert list(DEFAULT_ANALYZER.words(text)) == expected


def test_latin_diacritics_fold_as_people_type_them() -> None:
    assert analyze("Rua dos Remédios") == analyze("rua dos remedios")
    assert analyze("Weserstraße") == analyze("weserstrasse")
    assert analyze("Cześć, Zoë, façade, Ærø") == analyze("czesc zoe facade aero")
    # Other scripts keep their marks: they are letters there.
    assert analyze("नमस्ते") == ["नमस्ते"]
    assert analyze("Привет") == ["привет"]


def test_emoji_are_terms_and_joiners_are_not() -> None:
    assert analyze("happy birthday 🎂🎉") == ["happi", "birthdai", "🎂", "🎉"]
    assert analyze("👨\u200d👩\u200d👧") == ["👨", "👩", "👧"]
    assert list(DEFAULT_ANALYZER.words("cake 🎂!")) == [(0, 4, "cake"), (5, 6, "🎂")]


# -- analysis per language (issue 14) ------------------------------------------------------------------------


def test_english_and_unknown_languages_keep_the_default_analyzer() -> None:
    for lang in ("en", "und", "", "xx"):
        assert analyzer_for(lang) is DEFAULT_ANALYZER


def test_a_language_written_without_spaces_keeps_its_bigrams() -> None:
    for lang, text in (("zh", "我们明天去看电影"), ("ja", "明日は映画を見に行きます"), ("th", "พรุ่งนี้ไปดูหนัง")):
        assert analyzer_for(lang).analyze(text) == DEFAULT_ANALYZER.analyze(text)


def test_a_language_gets_its_snowball_stemmer_and_the_packages_stop_words() -> None:
    de = analyzer_for("de")
    # Each word's stem, then its first five letters (its head: session 13).
    assert de.analyze("Die Wohnungen haben wir besichtigt") == ["wohnung", "wohnu", "besichtigt", "besic"]
    assert de.analyze("Wohnung") == ["wohnung", "wohnu"]
    # "die", "haben", "wir" come from the stop-words package's German list, not from a list of ours.
    import stop_words

    assert {"die", "haben", "wir"} <= set(stop_words.get_stop_words("de"))
    # English stop words are content in German: "the" is not dropped there ...
    assert de.analyze("the") == ["the"]
    # ... and German ones are content in English.
    assert DEFAULT_ANALYZER.analyze("wir") == ["wir"]


def test_stems_are_folded_after_stemming_so_accents_typed_or_not_meet() -> None:
    es, fr, de = analyzer_for("es"), analyzer_for("fr"), analyzer_for("de")
    assert es.analyze("médicos") == es.analyze("medico") == ["medic"]
    assert es.analyze("tambien") == es.analyze("también") == []  # a stop word typed without its accent
    assert es.analyze("cuándo") == es.analyze("cuando") == []  # and one typed with an accent its list lacks
    assert fr.analyze("réservé") == fr.analyze("reserve")
    # One stem; the heads are the letters as typed ("hause", "haeus"; "Haus" is too short for one).
    assert de.analyze("Häuser")[0] == de.analyze("Haeuser")[0] == de.analyze("Haus")[0] == "haus"
    assert de.analyze("Straße") == de.analyze("Strasse")


def test_turkish_dotted_and_dotless_i() -> None:
    tr = analyzer_for("tr")
    # "IŞIK" is "ışık" in Turkish (Python's lower() would make it "işik"); both spellings of the capital
    # İstanbul meet the lower-case one.
    assert tr.analyze("IŞIK") == tr.analyze("ışık") == ["isik"]
    assert tr.analyze("İSTANBUL") == tr.analyze("istanbul") == tr.analyze("İstanbul")


def test_russian_yo_is_e() -> None:
    ru = analyzer_for("ru")
    assert ru.analyze("ёлка") == ru.analyze("елки") == ru.analyze("Ёлку")


def test_elided_articles_are_dropped() -> None:
    assert analyzer_for("fr").analyze("l'appartement d'Anne qu'on") == ["appart", "appar", "anne"]
    assert analyzer_for("it").analyze("dell'appuntamento, l'anno") == analyzer_for("it").analyze(
        "appuntamento anno"
    )


def test_scripts_without_spaces_become_bigrams_in_every_analyzer() -> None:
    thai = "ร้านอาหาร"  # "restaurant"
    bigrams = DEFAULT_ANALYZER.analyze(thai)
    assert bigrams[0] == "ร้" and len(bigrams) == len(thai) - 1
    assert analyzer_for("de").analyze(thai) == bigrams
    # A query of one word of the run shares its bigrams.
    assert set(DEFAULT_ANALYZER.analyze("อาหาร")) <= set(bigrams)
    assert DEFAULT_ANALYZER.analyze("ກິນເຂົ້າ") and DEFAULT_ANALYZER.analyze("ញ៉ាំបាយ")


def test_the_turkish_list_is_repaired_from_its_windows_1254_mojibake() -> None:
    tr = analyzer_for("tr")
    assert {"şey", "nasıl", "mı", "sey", "nasil"} <= tr.stopwords
    assert not any(ch in word for word in tr.stopwords for ch in "þýð")
    assert tr.analyze("nasıl bir şey çok güzel") == ["guzel"]


def test_a_querys_own_function_words_are_dropped_from_every_languages_analysis() -> None:
    from refind_cli.method.search import query_language_stopwords

    de, es = analyzer_for("de"), analyzer_for("es")
    drop = query_language_stopwords("wann war die Besichtigung der Wohnungen", [DEFAULT_ANALYZER, de])
    assert drop is de.stopwords
    # Read as English, the German question keeps only what it is about.
    assert DEFAULT_ANALYZER.analyze("wann war die Besichtigung", drop) == ["besichtigung"]
    assert query_language_stopwords("when did we book the flat", [DEFAULT_ANALYZER, de, es]) is (
        DEFAULT_ANALYZER.stopwords
    )
    # No function words, or as many of two languages: nothing is dropped.
    assert query_language_stopwords("Wohnung Berlin", [DEFAULT_ANALYZER, de]) == frozenset()
    assert DEFAULT_ANALYZER.analyze("the dentist", frozenset()) == ["dentist"]


# -- characters classed by Unicode's properties (session 10) -------------------------------------------------


def test_every_script_written_without_spaces_becomes_bigrams_and_full_width_latin_a_word() -> None:
    # Yi, Tai Tham and Bopomofo are written without spaces as Chinese and Thai are: their line-break class
    # says so, no range had them.
    for run in ("ꊉꇩꉙꌋꆀ", "ᨣᩣ᩠ᨾᩮᩬᩥᨦ", "ㄅㄆㄇㄈ"):
        terms = analyze(run)
        assert len(terms) > 1 and all(len(t) <= 3 for t in terms), (run, terms)
    assert analyze("ｈｅｌｌｏ Ｗｏｒｌｄ") == analyze("hello world")
    assert analyze("ｶﾞｲﾄﾞ") == analyze("ガイド")  # half-width kana widen


def test_decomposed_hangul_and_joiners_match_their_usual_forms() -> None:
    korean = "롬바르드어"
    assert analyze(unicodedata.normalize("NFD", korean)) == analyze(korean)
    assert analyze("ବାର୍\u200dବଡସ") == analyze("ବାର୍ବଡସ")  # Odia with and without a ZWJ
    assert analyze("می\u200cخواهم") == ["میخواهم"]  # Persian's ZWNJ
    assert analyze("Zahn\u00adarzt") == analyze("Zahnarzt")  # a soft hyphen


def test_diacritics_are_folded_in_every_script_but_a_virama_or_cyrillics_letters() -> None:
    assert analyze("Αϊνού") == analyze("αινου") == analyze("ΑΙΝΟΥ")
    assert analyze("שָׁלוֹם") == analyze("שלום")  # Hebrew points
    assert analyze("مَرْحَبًا") == analyze("مرحبا")  # Arabic vowel marks
    assert analyze("japɔ́ŋ Pɛsɛ́shɛl") == analyze("japɔŋ Pɛsɛshɛl")  # Latin beyond Latin Extended-B
    assert analyze("ħobż ɓaƙi") == analyze("hobz baki")  # letters named "with stroke", "with hook"
    assert analyze("नमस्ते") == ["नमस्ते"]  # the virama is spelling
    assert analyze("й") != analyze("и")


def test_a_word_typed_without_its_accents_meets_its_stem() -> None:
    for lang, written, typed in (
        ("es", "francés", "frances"),
        ("tr", "olmuş", "olmus"),
        ("pl", "dzwoniła", "dzwonila"),
    ):
        a = analyzer_for(lang)
        assert set(a.analyze(typed)) & set(a.analyze(written)), (lang, written, typed)
    # A language without a stemmer cuts the folded word.
    assert analyzer_for("yo").analyze("Fọ́lápùùkù") == analyzer_for("yo").analyze("folapuuku")


def test_emoji_by_their_properties_and_the_words_beside_them() -> None:
    assert analyze("⭐ ㊙ ⏪") == ["⭐", "㊙", "⏪"]
    assert analyze("ok 👍🏽 cake") == ["ok", "👍", "cake"] and analyze("👍🏽") == analyze("👍")
    assert analyze("🇩🇪🇫🇷") == ["🇩🇪", "🇫🇷"]
    assert analyze("1️⃣ ❤️") == ["1", "❤"]
    text = "party 🎉🏽 tonight"
    assert [t for _, _, t in DEFAULT_ANALYZER.words(text)] == analyze(text)


def test_a_questions_words_keep_their_marks() -> None:
    from refind_cli.agent.offline import content_words
    from refind_cli.text.analysis import reader_words

    assert reader_words("नमस्ते दोस्त") == ["नमस्ते", "दोस्त"]
    assert reader_words("l'appartement don’t") == ["l'appartement", "don’t"]
    assert content_words("தமிழ்நாடு?", analyzer_for("ta")) == ["தமிழ்நாடு"]


def test_the_fast_path_splits_below_the_combining_marks_as_the_unicode_patterns_do() -> None:
    from refind_cli.text.analysis import _SIMPLE_RE, _split, _unicode
    from refind_cli.text.unicode_classes import kind_class

    kinds, *_ = _unicode()
    below = "".join(chr(c) for c in range(0x300))
    # Below the marks, only these three are of a kind other than a plain letter or digit, an apostrophe or
    # nothing.
    plain = re.compile(f"{kind_class('letter', 'apostrophe')}|[ ]")
    assert [c for c, k in zip(below, kinds(below), strict=True) if not plain.fullmatch(k)] == [
        "\u00a9",
        "\u00ad",
        "\u00ae",
    ]
    letter = re.compile(kind_class("letter"))
    assert all(
        bool(letter.fullmatch(k)) == bool(_SIMPLE_RE.fullmatch(c))
        for c, k in zip(below, kinds(below), strict=True)
    )
    assert _split("Łódź © ok") == ["łódź", "©", "ok"]


def test_the_test_for_text_beyond_latin_takes_every_character_from_the_marks_on() -> None:
    from refind_cli.text.analysis import _BEYOND_LATIN

    every = "".join(map(chr, range(0x110000)))
    assert "".join(_BEYOND_LATIN.findall(every)) == "\u00a9\u00ad\u00ae" + every[0x300:]
