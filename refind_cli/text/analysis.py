"""The analyzers: the same tokens are indexed and searched for, so a query matches exactly what a turn says.

Case-fold, split on anything that is not a letter or a digit (with its marks), drop stop words, fold the
diacritics people leave out, stem; every class of character is one of Unicode's properties, never a range of
code points, so a script nobody listed is read as its own (bench/RESULTS.md, session 10). English (and a chat whose
language is unknown) gets the original Porter algorithm, as in the ReFind paper, with NLTK's stop words. Every
other language is analysed from data (``analyzer_for``): the Snowball stemmer of that name where the stemmer
library has one, the stop-words package's list where it has one, and where no stemmer exists, its words cut
to their first ``TRUNCATE`` letters (measured against no stemming, bench/RESULTS.md, issue 21). Long words
also give their leading and trailing parts as terms, so that "arzt" finds "Zahnarzt" and "Arzttermin". Those
languages' stop words are indexed apart, each a term of its own, for a query made of nothing else (session 14).
Chinese, Japanese and Korean runs have no spaces between words, so they become overlapping character bigrams (a
lone character stays a unigram), which is what Lucene's CJK analyzer does; so does every script Unicode's line
breaking says is written without spaces (Thai, Lao, Khmer, Myanmar, Yi, Tai Tham, ...), having no dictionary
here.
"""

from __future__ import annotations

import functools
import heapq
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

import snowballstemmer

from refind_cli.text.language import MIXED, UNDETERMINED

# Lucene's default English stop words (tantivy's Filter.stopword("english"), bm25s STOPWORDS_EN).
LUCENE_STOPWORDS: frozenset[str] = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there"
    " these they this to was will with".split()
)

# NLTK's English list (179 words). Contractions appear in their split form ("don", "t", "ll") because the
# tokenizer splits "don't" at the apostrophe.
FULL_STOPWORDS: frozenset[str] = frozenset(
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers"
    " herself it its itself they them their theirs themselves what which who whom this that these those am"
    " is are was were be been being have has had having do does did doing a an the and but if or because as"
    " until while of at by for with about against between into through during before after above below to"
    " from up down in out on off over under again further then once here there when where why how all any"
    " both each few more most other some such no nor not only own same so than too very s t can will just"
    " don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn"
    " shan shouldn wasn weren won wouldn".split()
)

STOPWORD_LISTS: dict[str, frozenset[str]] = {"lucene": LUCENE_STOPWORDS, "full": FULL_STOPWORDS}

_SIMPLE_RE = re.compile(r"[^\W_]+")
# What text must hold for the Unicode classes to split it otherwise than ``_SIMPLE_RE``: a character from
# the combining marks on (below them are the Latin letters, which Python and Unicode agree are letters), or
# Latin-1's pictographs (©, ®) or soft hyphen. Written as what is not below the marks: a class that spans
# to U+10FFFF cost 7 ms of every start to compile (``re`` builds its bitmap char by char).
_BEYOND_LATIN = re.compile("[\u00a9\u00ad\u00ae]|[^\x00-\u02ff]")


@functools.cache
def _unicode() -> tuple[
    Callable[[str], str], re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]
]:
    """(kinds, token, run, emoji, reader), loaded when some text is not below the combining marks: a text's
    kinds (``unicode_classes.kinds``: a letter a character, telling which of Unicode's classes it is in),
    and the patterns that run over them: a token; the first character of a run; an emoji, its term the
    first group; a word as a question's reader takes it.

    The classes (``unicode_classes`` says which properties, and why they are read so):
    - a run of a script written without spaces (with its marks): it becomes bigrams;
    - a word: letters and digits with their combining marks, and the invisible characters that belong
      inside one (ZWNJ and ZWJ in Persian and Indic text, a soft hyphen, a bidi mark), which matching then
      ignores; for a question's reader, an apostrophe joins it to a second part ("don't", "l'appartement");
    - an emoji (a skin tone after it is left out of its term, so "👍" finds "👍🏽" and "👍🏽" finds "👍") or
      a flag (two regional indicators): a term of its own, so `refind search 🎂` finds the birthday messages.
    """
    from refind_cli.text.unicode_classes import kind_class, kinds

    run = kind_class("run")
    word = (
        rf"(?:{run}{kind_class('run', 'mark')}*|{kind_class('letter')}{kind_class('letter', 'ignorable')}*)"
    )
    emoji = (
        rf"({kind_class('indicator')}{{2}}|{kind_class('pictograph', 'indicator')}){kind_class('modifier')}?"
    )
    reader = rf"{word}(?:{kind_class('apostrophe')}{word})?"
    return kinds, re.compile(f"{word}|{emoji}"), re.compile(run), re.compile(emoji), re.compile(reader)


@functools.cache
def _term_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(invisible, diacritic, Cyrillic) over a word itself: what matching ignores inside a word; the marks
    people leave out when they type; a Cyrillic letter."""
    from refind_cli.text.unicode_classes import stdlib_set

    invisible, diacritic, cyrillic = (re.compile(f"{stdlib_set(name)}+") for name in _TERM_SETS)
    return invisible, diacritic, cyrillic


_TERM_SETS = ("invisible", "diacritic", "cyrillic")


def _tokens(pattern: re.Pattern[str], text: str) -> list[str]:
    """The parts of ``text`` that ``pattern`` (one of ``_unicode``'s) finds among its kinds."""
    return [text[m.start() : m.end()] for m in pattern.finditer(_unicode()[0](text))]


def _is_run(word: str) -> bool:
    kinds, _, run, _, _ = _unicode()
    return run.match(kinds(word[:1])) is not None


# Letters whose plain spelling no decomposition or name gives: Icelandic and Faroese type them so.
_UNNAMED_PLAIN = {"ð": "d", "þ": "th"}
# A Latin letter named as another with something added: "o with stroke" is typed "o", "dotless i" "i",
# "ae" and the ligature "oe" as two letters. A pattern string, compiled on first use (``re`` keeps it): read
# once a letter (``_plain`` is cached), and never for ASCII text; compiling it is 1 % of a cold search.
_NAMED = r"LATIN (?:SMALL|CAPITAL) (?:LETTER|LIGATURE) (?:DOTLESS )?([A-Z]{1,2})(?: WITH .+)?"


@functools.cache
def _plain(ch: str) -> str:
    """How ``ch`` (a letter left after its diacritics went) is typed without special letters."""
    if ch.isascii():
        return ch
    if (folded := ch.casefold()).isascii():
        return folded  # "ß" -> "ss"
    named = re.fullmatch(_NAMED, unicodedata.name(ch, ""))
    return named.group(1).lower() if named else _UNNAMED_PLAIN.get(ch, ch)


def fold(word: str) -> str:
    """A lowercased word without the diacritics people leave out when they type ("remédios" → "remedios",
    "straße" → "strasse", "Αϊνού" → "αινου", Hebrew points, Arabic vowel marks and hamza), whatever its script:
    Unicode's Diacritic marks, but not a virama, which is part of an Indic spelling, nor a vowel sign, which
    is not a diacritic. ASCII words never change."""
    if word.isascii():
        return word
    _, diacritic, cyrillic = _term_patterns()
    if cyrillic.search(word):
        # "й", "ї", "ў" are letters of their own, each with its key; the one habit, "ё" as "е", is the
        # stemmer's input rule.
        return word
    bare = diacritic.sub("", unicodedata.normalize("NFKD", word))
    return "".join(map(_plain, unicodedata.normalize("NFC", bare)))


# ASCII text (most of it) is lowercased and split by one byte-table pass, four times faster than the regex:
# letters map to lowercase, digits to themselves, everything else to a space.
_ASCII_TABLE = bytes(
    ord(chr(c).lower()) if chr(c).isascii() and chr(c).isalnum() else ord(" ") for c in range(256)
)

# Longer "words" are base64, hashes or URLs glued together: noise that nobody types as a query.
MAX_TOKEN_CHARS = 40
# What a stop word's own term starts with (``Analyzer._stop_term``): no letter, digit or emoji, so no word's
# stem or part is ever one.
STOP_MARK = "~"
# The stem cache is bounded: numbers and CJK runs make the vocabulary of a large archive open-ended.
_CACHE_LIMIT = 500_000


# Text longer than this is analysed in pieces of about this many characters, cut at white space.
_PIECE = 1 << 20
_SPACE = re.compile(r"\s")


def _pieces(text: str) -> Iterator[str]:
    start = 0
    while start < len(text):
        end = start + _PIECE
        space = _SPACE.search(text, end, end + 4096) if end < len(text) else None
        cut = space.end() if space else end
        yield text[start:cut]
        start = cut


def _split(text: str) -> list[str]:
    """The case-folded tokens of ``text``: words, runs of a script written without spaces, emoji."""
    if text.isascii():
        return text.encode().translate(_ASCII_TABLE).decode().split()
    folded = text.casefold()  # not lower(): "ß" and "ss", "ς" and "σ" are one letter to a reader
    if not _BEYOND_LATIN.search(folded):
        # The standard library splits it faster than the Unicode patterns.
        found: list[str] = _SIMPLE_RE.findall(folded)
        return found
    return _tokens(_unicode()[1], folded)


# A word as a reader sees one, with a second part after an apostrophe ("don't", "l'appartement").
_READ_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def reader_words(text: str) -> list[str]:
    """The words of ``text`` as a question's reader takes them: letters and digits with their marks and
    joiners ("नमस्ते", "می‌خواهم" whole, where ``\\w`` cuts them at each mark), an apostrophe joining two
    parts, a run of a script written without spaces as one word."""
    if text.isascii():
        return _READ_RE.findall(text)
    return _tokens(_unicode()[4], text)


class Analyzer:
    """Text -> index terms. Callable from many places; keeps a cache of the analysed form of each word.

    ``stemmer`` names a Snowball algorithm; None cuts each word to its first ``truncate`` letters (all of it
    when 0). Porter (English) and the cut read the folded word; every other stemmer sees the word with its
    accents (their rules read them: French "-é", Turkish vowel harmony) and the stem is folded after, so
    "médicos" and "medicos" both end as "medic"; where the word typed without its accents stems otherwise,
    that stem is a second term of the word. With ``head`` (a length), a stemmed word longer than that also
    has its first ``head`` letters (folded) as a term, in turns and queries alike: where a stemmer leaves
    two forms of a word apart ("wysłany"/"wysłać", "вредностима"/"вредност", "beschikbare"/"beschikbaar")
    their heads meet, and a turn holding the very form still scores higher, matching both terms. With
    ``parts`` (a length), a stem at least twice that long is also indexed as each of its heads and tails of
    at least that length: the parts of a compound, among pieces that match nothing. Only turns get them
    (``index_text``); a query's word is matched as it is."""

    def __init__(
        self,
        stopwords: Iterable[str] = FULL_STOPWORDS,
        name: str = "full",
        *,
        stemmer: str | None = "porter",
        lang: str = "en",
        truncate: int = 0,
        head: int = 0,
        parts: int = 0,
    ) -> None:
        self.stopwords = frozenset(stopwords)
        # Part of the index's identity: an index built with other stop words must not be reused.
        self.name = name
        self.lang = lang
        if stemmer is not None:
            self._stem = snowballstemmer.stemmer(stemmer).stemWord
        elif truncate:
            self._stem = lambda word: word[:truncate]
        else:
            self._stem = str
        # Porter has always stemmed the folded word; a cut to the first letters reads no accents, and cuts a
        # decomposed or accented word where its folded form is cut.
        self._fold_first = stemmer in ("porter", None)
        # Turkish and Azerbaijani write the capital of "ı" as "I" and of "i" as "İ"; Python's lower() knows
        # neither.
        self._turkish = lang in {"tr", "az"}
        self._parts = parts
        self._head = head if stemmer is not None else 0  # a cut word is its head already
        self.cut = truncate if stemmer is None else 0
        self._names: dict[str, str] | None = None  # read on the first word: most searches never need it
        self._clitics: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        # (the letter after a month's number in a date, that pattern, the months' names), where the language's
        # dates write the month as a number and its name is not one (``datenames.numbered``); read on first use.
        self._numbered: tuple[str, re.Pattern[str], tuple[str, ...]] | tuple[()] | None = None
        self._cache: dict[str, str] = {}
        self._index_cache: dict[str, str] = self._cache if not parts else {}

    def _learn(self, word: str) -> str:
        """The space-joined terms for one case-folded token ("" when it yields none), cached."""
        if word.isascii():
            terms = self._word_terms(word)
        else:
            if _is_run(word):
                # NFKC: decomposed Hangul (as macOS stores it) composes, half-width kana widens.
                run = unicodedata.normalize("NFKC", word)
                terms = run if len(run) == 1 else " ".join(run[i : i + 2] for i in range(len(run) - 1))
            elif picture := _unicode()[3].fullmatch(_unicode()[0](word)):
                terms = word[picture.start(1) : picture.end(1)]
            else:
                terms = self._word_terms(_term_patterns()[0].sub("", word))
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache.clear()
        self._cache[word] = terms
        return terms

    def _word_terms(self, word: str) -> str:
        """The terms of one word: its stem, or "" for a stop word, a word too long to be typed, or marks
        alone (between two emoji)."""
        if len(word) > MAX_TOKEN_CHARS or word in self.stopwords or not any(ch.isalnum() for ch in word):
            return ""
        # NFC so that a decomposed "é" stems like a composed one, and K so that text stored as written
        # ("ﬁne", "ｈｅｌｌｏ") matches as typed; "İ".casefold() leaves a combining dot.
        plain = unicodedata.normalize("NFKC", word).replace("i\u0307", "i")
        if plain in self.stopwords:
            return ""  # a stop word in full-width letters ("ｋｅｉｎｅ") is the stop word
        bare = fold(plain)
        if self._names is None:
            self._names = self._name_terms()
        named = self._names.get(plain)
        return named if named is not None else self._stem_terms(plain, bare)

    def _name_terms(self) -> dict[str, str]:
        """The terms of the forms of the language's month and weekday names (``datenames``), folded, where
        they differ from the terms of the name standing alone: "ledna" and "leden" are one term. A form is
        looked up as written and without its diacritics ("brezna"), never a word with other diacritics
        folded to one ("mają", "they have", is not "maja", "of May")."""
        from refind_cli.text.datenames import forms

        out: dict[str, str] = {}
        clashes: set[str] = set()
        for alone, *others in forms(self.lang):
            terms = "" if alone in self.stopwords else self._stem_terms(alone, fold(alone))
            for form in others if terms else ():
                bare = fold(form)
                if self._stem_terms(form, bare) != terms:
                    for key in {form, bare}:
                        clashes.update([key] if out.setdefault(key, terms) != terms else [])
        return {form: terms for form, terms in out.items() if form not in clashes}

    def _stem_terms(self, plain: str, bare: str) -> str:
        """The stems of a word (NFKC) and of its folded form ``bare``: one term, or two where the word
        typed without its accents stems otherwise; "" for a stop word. Porter stems "s" to ""."""
        if self._fold_first:
            stemmed: str = self._stem(bare)
            return stemmed
        if bare in self.stopwords:
            return ""  # a stop word with an accent its list writes without ("cuándo", "cuando")
        # Russian "ё" is written "е" as often as not.
        stem = fold(self._stem(plain.replace("ё", "е")))
        # Typed without its accents, a word may stem otherwise ("francés" -> "frances", "frances" ->
        # "franc"; Polish "dzwoniła" -> "dzwon", "dzwonila" -> "dzwonil"): that stem is a term too.
        typed = self._stem(bare) if bare != plain else stem
        terms = [stem] if typed in (stem, "") else [stem, typed]
        if self._head and len(bare) > self._head:
            head = bare.replace("ё", "е")[: self._head]
            terms += [head] if head not in terms else []
        return " ".join(terms)

    def _stop_term(self, word: str) -> str:
        """The term a stop word (a case-folded token) is indexed under: its folded form after ``STOP_MARK``,
        which no other term holds, so it never meets a content word's stem (Spanish "como" and "comer" both
        stem to "com"); "" for a word that is no stop word. Only a query with no other term asks for them
        (``function_terms``): the stop-words package lists words people search for ("tháng", "month", in
        Vietnamese; Italian "maggiore"; Persian "دارد"), and a query made only of them found nothing."""
        clean = word if word.isascii() else _term_patterns()[0].sub("", word)
        plain = unicodedata.normalize("NFKC", clean).replace("i\u0307", "i")
        bare = fold(plain)
        # Read as ``_word_terms`` and ``_stem_terms`` read it: a word is a stop word as written (or in
        # full-width letters), or typed bare where the stemmer sees accents (Vietnamese "hiệu" is a word,
        # though "hiểu" typed bare is "hieu").
        stop = {clean, plain} & self.stopwords or (not self._fold_first and bare in self.stopwords)
        return STOP_MARK + bare.replace("ё", "е") if stop and len(clean) <= MAX_TOKEN_CHARS else ""

    def short_terms(self, text: str, drop: Collection[str] = ()) -> list[str]:
        """The terms of ``text`` shorter than the cut of an analyzer that cuts words (a language without a
        stemmer), of ``SHORT_LEAST`` letters or more: a query looks for the indexed terms they begin
        (Albanian "lloj" for "llojet", cut to "lloje"; Croatian "nov" for "novu"), the forms the cut joins
        being only those at least as long as it. None for a stemmed language, whose stemmer joins them."""
        if not self.cut:
            return []
        return [t for t in dict.fromkeys(self.analyze(text, drop)) if SHORT_LEAST <= len(t) < self.cut]

    def function_terms(self, text: str) -> list[str]:
        """The terms of the stop words of ``text``, as an analyzer that indexes them (one with compound
        ``parts``: every language but English) has them; none for the others."""
        if not self._parts:
            return []
        return list(dict.fromkeys(t for w in self._words(text) if (t := self._stop_term(w))))

    def _learn_parts(self, word: str) -> str:
        """``_learn``, with a long stem's heads and tails after it, or a stop word's own term."""
        terms = self._cache[word] if word in self._cache else self._learn(word)
        # A bigram run's terms have spaces; a word's second term (its stem typed without accents) has no
        # parts of its own, nor has a stop word's term (a tail of it would be a content word's term).
        run = not word.isascii() and _is_run(word)
        stem = "" if run or not terms else terms.split(" ", 1)[0]
        terms = terms or self._stop_term(word)
        n, least = len(stem), self._parts
        if n >= 2 * least:
            cuts = range(least, n - least + 1)
            own = terms.split(" ")  # a part that is the word's head already is not counted twice
            extra = [p for p in [*(stem[:k] for k in cuts), *(stem[k:] for k in cuts)] if p not in own]
            terms = " ".join([terms, *extra])
        if len(self._index_cache) >= _CACHE_LIMIT:
            self._index_cache.clear()
        self._index_cache[word] = terms
        return terms

    def _words(self, text: str) -> list[str]:
        if self._turkish:
            text = text.replace("I", "ı").replace("İ", "i")
        if self._numbered is None:
            from refind_cli.text.datenames import numbered

            letter, names = numbered(self.lang)
            self._numbered = (
                (letter, re.compile(rf"(?<!\d)(1[0-2]|0?[1-9]){letter}"), names) if letter else ()
            )
        if self._numbered and self._numbered[0] in text:
            # "5月" in a date is May, which a person names "五月": the month's name, a word of its own.
            _, number, names = self._numbered
            text = number.sub(lambda m: f" {names[int(m.group(1)) - 1]} ", text)
        return _split(text)

    def _terms(self, text: str, cache: dict[str, str], learn: Callable[[str], str]) -> str:
        words = self._words(text)
        try:
            # filter(None, ...) rather than a comprehension's test: a fifth of a million messages' analysis.
            return " ".join(filter(None, map(cache.__getitem__, words)))
        except KeyError:
            return " ".join(filter(None, (cache[w] if w in cache else learn(w) for w in words)))

    def index_text(self, text: str) -> str:
        """The terms ``text`` is indexed under, joined by single spaces: the form handed to tantivy's
        whitespace tokenizer."""
        learn = self._learn_parts if self._parts else self._learn
        if len(text) > _PIECE:
            # A piece at a time: the list of a 50-MB message's words alone took 850 MB (issue 24).
            return " ".join(filter(None, (self._terms(p, self._index_cache, learn) for p in _pieces(text))))
        return self._terms(text, self._index_cache, learn)

    def query_text(self, text: str) -> str:
        """The terms of ``text`` as a query has them (no compound parts), joined by single spaces."""
        return self._terms(text, self._cache, self._learn)

    def analyze(self, text: str, drop: Collection[str] = ()) -> list[str]:
        """The terms of ``text``; with ``drop``, leaving out the words in it (lowercased, folded): a query's
        function words in its own language, which another language's analysis would read as content."""
        if not drop:
            return self.query_text(text).split()
        return [term for start, end, term in self.words(text) if fold(text[start:end].lower()) not in drop]

    def glued(self, text: str, drop: Collection[str] = ()) -> list[str]:
        """What a query's words are also looked for as: glued to the letters the language writes against a
        word (``datenames.clitics``: Hebrew "ו" and "ב", Arabic "و", Syriac "ܘ", Tigrinya "ን"), each with
        them one term ("סונינקה" finds "וסונינקה"); none in most languages. The turns' own terms do not
        change: only a query asks for the glued forms, and only of its own words."""
        if self._clitics is None:
            from refind_cli.text.datenames import clitics

            prefixes, suffixes = clitics(self.lang)
            if prefixes or suffixes:
                # A script written without spaces glues every word to the next: its runs are bigrams anyway.
                prefixes = tuple(p for p in prefixes if not _is_run(p))
                suffixes = tuple(s for s in suffixes if not _is_run(s))
            self._clitics = (prefixes, suffixes)
        prefixes, suffixes = self._clitics
        if not (prefixes or suffixes):
            return []
        # A word without terms of its own (a stop word in any form) is no word to look for glued either.
        words = [w for w in self._words(text) if fold(w) not in drop and self.query_text(w)]
        forms = [p + w for w in words for p in prefixes] + [w + s for w in words for s in suffixes]
        return self.query_text(" ".join(forms)).split()

    def words(self, text: str) -> Iterator[tuple[int, int, str]]:
        """(start, end, term) for each term of ``text``, with offsets into ``text`` itself: a word's span, or
        for CJK runs the span of each bigram."""
        if text.isascii():
            # ASCII words are runs of letters and digits: the simple pattern finds the same spans, and a
            # one-off search with ASCII hits never compiles the Unicode patterns (~20 ms). Each distinct word
            # is analysed once: a long reply repeats its words, and a word's analysis is a pass of its own.
            seen: dict[str, list[str]] = {}
            for m in _SIMPLE_RE.finditer(text):
                word = m.group()
                terms = seen.get(word)
                if terms is None:
                    terms = seen[word] = self.analyze(word)
                for term in terms:
                    yield m.start(), m.end(), term
            return
        kinds, token, run, _, _ = _unicode()
        for m in token.finditer(kinds(text)):
            start = m.start()
            word = text[start : m.end()]
            if run.match(m.group()):
                terms = self.analyze(word)
                if len(terms) == max(len(word) - 1, 1):
                    width = min(len(word), 2)
                    # A bigram that starts or ends inside a letter (on a Thai tone mark, Myanmar's asat) is
                    # shown from its letter to the end of that letter's marks: never half a letter.
                    for i, term in enumerate(terms):
                        lo, hi = i, i + width
                        while lo and unicodedata.category(word[lo])[0] == "M":
                            lo -= 1
                        while hi < len(word) and unicodedata.category(word[hi])[0] == "M":
                            hi += 1
                        yield start + lo, start + hi, term
                else:  # normalising changed the run's length: each bigram spans the whole run
                    yield from ((start, m.end(), term) for term in terms)
                continue
            # Case-folded word by word: folding can change a length ("İ" -> "i̇"), which would shift offsets.
            for term in self.analyze(word):
                yield start, m.end(), term


# The fuller list measured better than Lucene's 33 on both retrieval sets (bench/retrieval_eval.py: LoCoMo
# evidence recall 0.730 against 0.683, LongMemEval-S recall_any@5 0.915 against 0.881).
DEFAULT_ANALYZER = Analyzer(FULL_STOPWORDS, name="full")


def analyze(text: str) -> list[str]:
    """The terms of ``text`` under the default analyzer (the full stop word list, Porter)."""
    return DEFAULT_ANALYZER.analyze(text)


# Bumped whenever an analyzer changes (its stop words, stemmer, folding or splitting of words): part of the
# index format, so the index is rebuilt rather than mixing old and new terms.
ANALYSIS_VERSION = 6

# A language without a Snowball stemmer: its words cut to this many letters, which joins most of the forms
# of a word in the inflecting languages this covers (Ukrainian, Bulgarian, Slovak, Croatian, Hebrew, ...)
# better than no stemming (bench/RESULTS.md, issue 21). A stemmed language's words have this cut as a
# second term (their head), for the forms its stemmer leaves apart (bench/RESULTS.md, session 13).
TRUNCATE = 5
# Heads and tails of at least this many letters of a stem twice as long: the parts of a compound.
PARTS = 4
# A query's word shorter than the cut, of at least this many letters, also looks for the terms it begins:
# shorter ones begin too many.
SHORT_LEAST = 3


@functools.cache
def _library_names(lang: str) -> tuple[str, ...]:
    """The lowercase names of ``lang`` (ISO 639-1, or the ISO 639-2 code CLD3 tells where a language has
    no shorter one: "haw", "ceb", "fil", "hmn") to look the stemmer and the stop words up by: the
    stop-words package's own name for it ("nb" -> "norwegian"), else CLDR's English name and the
    language's own name, through Babel ("et" -> "estonian", "st" -> "sesotho"); none for a code CLDR does
    not name. Babel's locale data takes 50 ms or more to load, so the package's table is asked first: a
    search of a German chat never loads it."""
    import stop_words

    from refind_cli.text.language import english_name, own_name

    listed: str | None = stop_words.LANGUAGE_MAPPING.get(lang)
    if listed:
        return (listed,)
    if english_name(lang) == lang:
        return ()
    return english_name(lang).lower(), own_name(lang).lower()


def stemmer_name(lang: str) -> str | None:
    """The Snowball algorithm of ``lang``: the one the stemmer library names by a word of the language's
    name ("Norwegian Bokmål" -> "norwegian", "Sesotho" -> "sesotho"); None when it has none."""
    algorithms: list[str] = snowballstemmer.algorithms()
    words = (w for name in _library_names(lang) for w in re.findall(r"\w+", name))
    return next((w for w in words if w in algorithms), None)


# Articles and pronouns that elide before a vowel ("l'appartement", "dell'anno"). The tokenizer splits at the
# apostrophe, so dropping them as stop words is the elision filter (Lucene's lists).
ELISIONS: dict[str, str] = {
    "fr": "l m t qu n s j d c jusqu quoiqu lorsqu puisqu",
    "it": "c l all dall dell nell sull coll pell gl agl dagl degl negl sugl un m t s v d",
    "ca": "d l m n s t",
}


def _stopwords(lang: str) -> frozenset[str]:
    """The stop words of ``lang`` from the stop-words package (none if it has no list), as the tokenizer
    would meet them: apostrophes and dots cut off, and also without accents and with "ё" as "е", the way
    people type them."""
    import stop_words  # only for a chat in another language: a search of English chats never loads it

    try:
        listed = stop_words.get_stop_words(next(iter(_library_names(lang)), lang))
    except stop_words.StopWordError:
        listed = []
    if lang == "tr":
        # The package's Turkish list was read as Latin-1 from Windows-1254 ("þey" for "şey", "nasýl" for
        # "nasıl"); those two agree on every other letter the list uses, so encoding back repairs it.
        listed = [w.encode("latin-1").decode("cp1254") if max(w, default="") <= "\xff" else w for w in listed]
    from refind_cli.text.datenames import forms

    # A stop word typed bare that is a month's or weekday's form is the name: Polish "mają" ("they have")
    # typed "maja" is May in a date ("15 maja").
    named = {f for group in forms(lang) for form in group for f in (form, fold(form))}
    out: set[str] = set(ELISIONS.get(lang, "").split())
    for entry in listed:
        word = unicodedata.normalize("NFC", entry.lower()).strip("'’.\" ")
        if word and all(ch.isalnum() for ch in word):
            out.update(w for w in (fold(word), word.replace("ё", "е")) if w not in named)
            out.add(word)
    return frozenset(out)


@functools.cache
def analyzer_for(lang: str) -> Analyzer:
    """The analyzer of a chat in ``lang`` (ISO 639-1, or two codes for a bilingual chat, "de+en"): its
    Snowball stemmer (else its words cut to ``TRUNCATE`` letters) and stop words, compound parts indexed.
    English and an undetermined language ("und", "") get the default analyzer."""
    if MIXED in lang:
        first, second = lang.split(MIXED, 1)
        return Bilingual(analyzer_for(first), analyzer_for(second))
    if lang in ("", UNDETERMINED, "en") or not _library_names(lang):
        return DEFAULT_ANALYZER
    return language_analyzer(lang)


def language_analyzer(lang: str, head: int = TRUNCATE) -> Analyzer:
    """A new analyzer of one language ``lang`` other than English, as ``analyzer_for`` shares it, with
    ``head``-letter head terms (0: none). New each call, so its word cache starts empty (the cost bench
    measures a first pass)."""
    return Analyzer(
        _stopwords(lang),
        name=lang,
        stemmer=stemmer_name(lang),
        lang=lang,
        truncate=TRUNCATE,
        head=head,
        parts=PARTS,
    )


class Bilingual(Analyzer):
    """The analyzer of a chat in two languages. Each turn is indexed in the language CLD3 tells it is in,
    of the two (the first when it tells neither); a query is read in both, leaving out the function words
    of the one whose stop words it uses more, as a search over chats in several languages does."""

    def __init__(self, first: Analyzer, second: Analyzer) -> None:
        super().__init__(first.stopwords | second.stopwords, name=f"{first.name}{MIXED}{second.name}")
        self.lang = f"{first.lang}{MIXED}{second.lang}"
        self.pair = (first, second)
        self.cut = max(first.cut, second.cut)

    def _of(self, text: str) -> Analyzer:
        from refind_cli.text.language import identify

        told, _ = identify(text)
        first, second = self.pair
        return second if told == second.lang else first

    def index_text(self, text: str) -> str:
        return self._of(text).index_text(text)

    def query_text(self, text: str) -> str:
        return " ".join(dict.fromkeys(t for a in self.pair for t in a.query_text(text).split()))

    def analyze(self, text: str, drop: Collection[str] = ()) -> list[str]:
        own = query_analyzer(text, list(self.pair))
        drop = set(drop) | (own.stopwords if own is not None else set())
        if not drop:
            return self.query_text(text).split()
        return list(dict.fromkeys(t for a in self.pair for t in a.analyze(text, drop)))

    def glued(self, text: str, drop: Collection[str] = ()) -> list[str]:
        return list(dict.fromkeys(t for a in self.pair for t in a.glued(text, drop)))

    def function_terms(self, text: str) -> list[str]:
        return list(dict.fromkeys(t for a in self.pair for t in a.function_terms(text)))

    def short_terms(self, text: str, drop: Collection[str] = ()) -> list[str]:
        return list(dict.fromkeys(t for a in self.pair for t in a.short_terms(text, drop)))

    def words(self, text: str) -> Iterator[tuple[int, int, str]]:
        """Each word's terms in both languages, in the order of the text."""
        return heapq.merge(*(a.words(text) for a in self.pair))


@functools.cache
def highlighter_for(lang: str) -> Analyzer | None:
    """The analyzer that finds a query's terms in a turn of a chat in ``lang`` to highlight them: its own
    without stop words (stems do not depend on them) and without compound parts; None for the languages
    the default analyzer serves."""
    if MIXED in lang:
        first, second = (highlighter_for(code) or DEFAULT_ANALYZER for code in lang.split(MIXED, 1))
        return Bilingual(first, second)
    if analyzer_for(lang) is DEFAULT_ANALYZER:
        return None
    return Analyzer(
        (), name="highlight", stemmer=stemmer_name(lang), lang=lang, truncate=TRUNCATE, head=TRUNCATE
    )


def query_analyzer(query: str, analyzers: Sequence[Analyzer]) -> Analyzer | None:
    """Which of ``analyzers`` is of the language ``query`` is written in: the one whose stop words it uses
    most; None when it uses none, or as many of two languages'. A query is too short to tell its language
    from its text; its function words are what it has."""
    words = set(map(fold, _split(query)))
    used = sorted(((len(words & a.stopwords), i) for i, a in enumerate(analyzers)), reverse=True)
    if not used or used[0][0] == 0 or (len(used) > 1 and used[1][0] == used[0][0]):
        return None
    return analyzers[used[0][1]]


def question_analyzer(question: str, langs: Iterable[str]) -> Analyzer:
    """The analyzer to read a question in, asked of chats in ``langs``: their language when they share one,
    else the one of theirs whose stop words the question uses most, else English."""
    analyzers = list({id(a): a for a in map(analyzer_for, langs)}.values())
    if len(analyzers) == 1:
        return analyzers[0]
    return query_analyzer(question, analyzers) or DEFAULT_ANALYZER
