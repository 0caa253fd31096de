"""What the analysis reads from CLDR (through Babel) ahead of time: the forms of month and weekday names, the
letters a language glues to a word, the scripts a language is written in. Each generated table is checked
against Babel for a sample of languages (regenerate after a Babel upgrade: ``python -m
refind_cli.text.datenames``, ``python -m refind_cli.text.language``)."""

from __future__ import annotations

from babel import localedata
from babel.core import parse_locale

from refind_cli.text import datenames, datenames_data, language, scripts_data
from refind_cli.text.analysis import DEFAULT_ANALYZER, analyzer_for

SAMPLE = {"cs", "el", "fi", "he", "sr", "de", "ar", "syr", "zh", "en"}


def test_the_generated_tables_hold_what_babel_gives_now() -> None:
    sample = [i for i in localedata.locale_identifiers() if parse_locale(i)[0] in SAMPLE]
    names = datenames.generate(sample)
    assert {lang: datenames_data.NAMES.get(lang) for lang in SAMPLE} == {
        lang: names.get(lang) for lang in SAMPLE
    }
    clitics = datenames.generate_clitics(sample)
    assert {lang: datenames_data.CLITICS.get(lang) for lang in SAMPLE} == {
        lang: clitics.get(lang) for lang in SAMPLE
    }
    assert language.generate_scripts() == (scripts_data.SCRIPTS, scripts_data.SPEAKERS)


def test_a_month_in_a_date_is_the_month_named_alone() -> None:
    cases = {
        "cs": ("leden", "6. ledna 2024"),
        "pl": ("styczeń", "6 stycznia 2024"),
        "el": ("Ιανουάριος", "6 Ιανουαρίου 2024"),
        "he": ("ינואר", "6 בינואר 2024"),  # the date pattern glues "ב" to the month
        "uk": ("січень", "6 січня 2024 р."),
        "fi": ("lauantai", "lauantaina 6. tammikuuta"),  # a weekday as a date writes it
    }
    for lang, (alone, date) in cases.items():
        analyzer = analyzer_for(lang)
        term = analyzer.analyze(alone)[0]  # the stem (a longer name has its head after it)
        assert term in analyzer.analyze(date), lang
        assert term in analyzer.analyze(alone.upper()) and term in analyzer.index_text(date).split(), lang


def test_a_month_form_folded_is_found_but_another_word_folded_to_it_is_not() -> None:
    czech = analyzer_for("cs")
    assert czech.analyze("brezna") == czech.analyze("března") == czech.analyze("březen")
    # Polish "mają" ("they have") without its ogonek is "maja", "of May": only a word typed bare is read so.
    polish = analyzer_for("pl")
    assert polish.analyze("mają") != polish.analyze("maj")


def test_english_months_and_weekdays_keep_their_terms() -> None:
    assert datenames.forms("en") == ()
    assert DEFAULT_ANALYZER.analyze("5 January, on Monday") == ["5", "januari", "mondai"]


def test_a_query_looks_for_its_words_glued_to_the_letters_its_language_glues() -> None:
    hebrew = analyzer_for("he")
    assert set(hebrew.analyze("וסונינקה")) <= set(hebrew.glued("סונינקה"))
    arabic = analyzer_for("ar")
    assert set(arabic.analyze("واللامبا")) <= set(arabic.glued("اللامبا"))
    assert analyzer_for("de").glued("Haus") == [] and DEFAULT_ANALYZER.glued("house") == []
    # The turns' own terms are as before: only a query asks for the glued forms.
    assert hebrew.index_text("סונינקה") == "סונינ"


def test_a_language_told_in_a_script_it_is_never_written_in_gives_way_to_the_scripts_own() -> None:
    syriac = "ܐܘܟܪܐܝܢܐܝܬ ܘܟܘܪܐܟܘ ܘܓܘܐܕܘܠܘܦܐܝ"
    assert language.in_its_script("hu", syriac) == "syr"
    assert language.in_its_script("hi", "ཀཁགང ཀཁགང ཀཁགང") == "bo"
    # Serbian is written in both scripts; a language CLDR has no likely one for the Latin script is
    # undetermined (analysed as English).
    assert language.in_its_script("sr", "ja sam ovde danas") == "sr"
    assert language.in_its_script("sr", "ја сам овде данас") == "sr"
    assert language.in_its_script("ja", "Ndzi tirhisa xitsonga") == "und"
    assert language.in_its_script("de", "Das ist gut") == "de"
    assert language.in_its_script("ja", "日本語のテキストです") == "ja"
