"""A chat's language, told by CLD3, and a language's name.

CLD3 (the cld3-py wheel: Google's compact neural identifier, its model compiled into the extension, about a
hundred languages) was chosen over py3langid, langdetect, lingua and fastText's small model on chat text of
10 to 2,000 words: as accurate as the best of them from 20 words on, and loaded in ~30 ms where they take
0.8-2.7 s (bench/language_identifiers.py, bench/RESULTS.md, issue 21). It is loaded only where a language is
told (an import, a reindex), never by a search.

A chat in two languages (a bilingual couple, an expat family) is told as both, "de+en": its messages are
told one by one, and a second language that holds a good share of them is kept beside the first; each of
its turns is then analysed in its own language (``analysis.analyzer_for``)."""

from __future__ import annotations

import contextlib
import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

UNDETERMINED = "und"  # ISO 639-2's "undetermined": too little text to tell; searched as English
MIXED = "+"  # joins the two languages of a bilingual chat: "de+en"

# A chat needs this many words to be told at all; up to this many are read.
MIN_WORDS = 20
SAMPLE_WORDS = 3000
# Characters a word takes at most, for what is read of each text: ``SAMPLE_WORDS`` of them by default.
WORD_CHARS = 16
TEXT_CHARS = SAMPLE_WORDS * WORD_CHARS
# A second language is kept when CLD3 reliably tells at least this share of a chat's messages (of those it
# tells reliably) as that language, and at least this many of them: a quoted phrase or a song title is not
# a second language.
SECOND_SHARE = 0.2
SECOND_MIN = 5
# Chats told together (``detect_each``) from this many on are told by two processes: below it, starting the
# second (~0.1 s) costs more than the half it takes (bench/RESULTS.md, session 20).
TWO_PROCESSES_FROM = 500
# Messages told one by one for a second language: those of at least this many words (CLD3 is rarely sure of
# fewer), at most this many of them (about 20 ms on a quiet machine).
MESSAGE_WORDS = 4
MESSAGES = 100

# ISO 639-1 codes CLD3 still writes in their withdrawn form.
_RENAMED = {"iw": "he", "ji": "yi", "in": "id", "jw": "jv"}
_WORD = re.compile(r"\w+")


@functools.cache
def _identifier() -> Any:
    import gcld3  # cld3-py; a C++ extension without type hints

    return gcld3.NNetLanguageIdentifier(0, SAMPLE_WORDS * 8)


def identify(text: str) -> tuple[str, bool]:
    """(the ISO 639-1 code CLD3 tells ``text`` to be in, whether it is sure); "und" when it cannot tell.
    A romanised form ("hi-Latn") counts as its language."""
    found = _identifier().FindLanguage(text=text)
    code = str(found.language).split("-")[0]
    return _RENAMED.get(code, code), bool(found.is_reliable)


def detect(texts: Iterable[str], sample_words: int = SAMPLE_WORDS) -> str:
    """The language of ``texts`` (read up to ``sample_words`` words): an ISO 639-1 code, two of them joined
    by ``MIXED`` for a chat in two languages, or ``UNDETERMINED`` when there is too little text."""
    return _told(*_sampled(texts, sample_words))


def detect_each(n: int, texts_of: Callable[[int], Iterable[str]]) -> list[str]:
    """``detect`` of each of ``n`` chats, ``texts_of(i)`` the texts of the i-th, in order. Many chats are told
    by two processes where there are two cores, every other chat's sample by a second process
    (``processes.python_child``) while this one reads the samples and tells the rest: an assistant's export
    holds thousands of chats, and telling them one after another was a fifth of its import (bench/RESULTS.md,
    session 20). Where the second process fails, this one tells its chats again itself."""
    from refind_cli.processes import can_use_a_child

    if n < TWO_PROCESSES_FROM or not can_use_a_child():
        return [detect(texts_of(i)) for i in range(n)]
    mine, theirs = _told_beside(n, texts_of)
    told = [UNDETERMINED] * n
    told[::2] = mine
    told[1::2] = theirs if theirs is not None else [detect(texts_of(i)) for i in range(1, n, 2)]
    return told


def _told_beside(n: int, texts_of: Callable[[int], Iterable[str]]) -> tuple[list[str], list[str] | None]:
    """The even chats told here, and the odd ones as a second process (``serve``) told their samples, or None
    where it failed (the even ones are told here all the same)."""
    import pickle

    from refind_cli.processes import python_child

    process = python_child("from refind_cli.text.language import serve; serve()", _PIPE_BUFFER)
    assert process.stdin is not None and process.stdout is not None
    mine: list[str] = []
    theirs = None
    sending = True
    try:
        for i in range(n):
            if i % 2 == 0:
                mine.append(detect(texts_of(i)))
            elif sending:
                try:
                    pickle.dump(_sampled(texts_of(i)), process.stdin, pickle.HIGHEST_PROTOCOL)
                    process.stdin.flush()  # now, not when a buffer fills: it waits for its next chat
                except OSError:  # it is gone
                    sending = False
        try:
            process.stdin.close()  # it has all it is to tell
            theirs = pickle.load(process.stdout) if sending else None
        except (OSError, EOFError, pickle.UnpicklingError):
            theirs = None
    finally:
        if process.poll() is None:
            process.kill()  # an interrupt, or it stopped answering: nothing more is wanted of it
        process.wait()
        with contextlib.suppress(OSError):  # a write it left half done: nobody reads it now
            process.stdin.close()
        process.stdout.close()
    return mine, theirs if isinstance(theirs, list) and len(theirs) == n // 2 else None


_PIPE_BUFFER = 1 << 20


def serve() -> None:
    """The second process of ``detect_each``: tells each sample read from stdin (``_sampled``'s) until it
    ends, then writes what it told, in order."""
    import os
    import pickle
    import signal
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt means
    told = []
    try:
        while True:
            try:
                sample = pickle.load(sys.stdin.buffer)
            except EOFError:
                break
            told.append(_told(*sample))
        sys.stdout.buffer.write(pickle.dumps(told, pickle.HIGHEST_PROTOCOL))
        sys.stdout.buffer.flush()
    except BaseException:
        # No traceback on the user's terminal: the parent tells these chats itself, where a bug is reported
        # as any other.
        os._exit(1)


def _sampled(texts: Iterable[str], sample_words: int = SAMPLE_WORDS) -> tuple[list[str], list[int], int]:
    """What ``detect`` reads of ``texts``, up to ``sample_words`` words: a sample's worth of each text (one 50 MB
    message must not be read whole), with its words (counted once: an import may tell 20,000 chats), and the
    words of all read. Past the first ``TEXT_CHARS`` characters of the sample joined (all that the whole
    sample's telling reads: CLD3 reads its first ``SAMPLE_WORDS * 8`` bytes, ``in_its_script`` that many
    characters) only the messages told one by one are kept, and reading stops at ``MESSAGES`` of them: a chat
    of long texts without words (a pasted log of symbols, rows of emoji) is not held whole."""
    sample: list[str] = []
    counts: list[int] = []
    words = chars = long = 0
    for text in texts:
        piece = text[: sample_words * WORD_CHARS]
        n = len(_WORD.findall(piece))
        words += n
        long += n >= MESSAGE_WORDS
        if chars <= TEXT_CHARS or n >= MESSAGE_WORDS:  # chars: the joined sample's length, plus one
            sample.append(piece)
            counts.append(n)
            chars += len(piece) + 1
        if words >= sample_words or (chars > TEXT_CHARS and long >= MESSAGES):
            break
    return sample, counts, words


def _told(sample: list[str], counts: list[int], words: int) -> str:
    if words < MIN_WORDS:
        return UNDETERMINED
    joined = "\n".join(sample)
    first = in_its_script(identify(joined)[0], joined)
    if first == UNDETERMINED:
        return UNDETERMINED
    long_enough = [m for m, n in zip(sample, counts, strict=True) if n >= MESSAGE_WORDS][:MESSAGES]
    told: Counter[str] = Counter()
    for i, message in enumerate(long_enough):
        # Told until no second language could be kept whatever the rest were told (all of them as the
        # likeliest, so the share it needs grows least): the answer is then the first language, as told whole.
        # A chat of fewer than SECOND_MIN long messages (most of an assistant's) is not told message by message.
        left = len(long_enough) - i
        best = max([n for code, n in told.items() if code != first], default=0) + left
        if best < max(SECOND_MIN, SECOND_SHARE * (told.total() + left)):
            break
        code, sure = identify(message)
        if sure:
            told[in_its_script(code, message)] += 1
    second = next((code for code, _ in told.most_common(2) if code != first), None)
    if second is not None and told[second] >= max(SECOND_MIN, SECOND_SHARE * told.total()):
        return f"{first}{MIXED}{second}"
    return first


# ISO 15924 codes that name several Unicode scripts (CLDR's locales use them), as the ``regex`` module names
# the scripts.
_COMPOSITE = {"Hans": "Hani", "Hant": "Hani", "Jpan": "Hani Hira Kana", "Kore": "Hang Hani"}


def generate_scripts() -> tuple[dict[str, str], dict[str, str]]:
    """(ISO 639 code -> the ISO 15924 scripts CLDR has a locale of it in, space-joined: its likely script
    where a locale names none, "sr": "Cyrl Latn"; script -> the language CLDR finds likeliest for it)."""
    from babel import localedata
    from babel.core import get_global, parse_locale

    likely = get_global("likely_subtags")
    found: dict[str, set[str]] = {}
    for ident in localedata.locale_identifiers():
        lang, _, script, *_ = parse_locale(ident)
        script = script or (parse_locale(likely[lang])[2] if lang in likely else None)
        if script and lang != "root":
            found.setdefault(lang, set()).add(script)
    scripts = {lang: " ".join(sorted(found[lang])) for lang in sorted(found)}
    speakers = {
        key[4:]: str(parse_locale(likely[key])[0])
        for key in sorted(likely)
        if key.startswith("und_") and len(key) == 8 and key[4:] not in _COMPOSITE
    }
    return scripts, speakers


def write_scripts(path: Path | None = None) -> None:
    """Write ``generate_scripts()`` into ``scripts_data.py``: Babel's global data takes ~70 ms to load,
    too long for each import to start with."""
    # Here, not at the top: pathlib (with the urllib.parse it imports) is a tenth of a cold search.
    from pathlib import Path

    from refind_cli.generated import write_module

    scripts, speakers = generate_scripts()
    write_module(
        path or Path(__file__).with_name("scripts_data.py"),
        "python -m refind_cli.text.language",
        ("SCRIPTS", "dict[str, str]", scripts),
        ("SPEAKERS", "dict[str, str]", speakers),
    )


@functools.cache
def _script_class(scripts: frozenset[str]) -> Any:
    """A class of the letters of ``scripts`` (ISO 15924), without the codes Unicode has no script of
    ("Aran", Nastaliq style); None when none is left."""
    import regex  # only where a language is told: an import, never a search

    codes = [c for s in sorted(scripts) for c in _COMPOSITE.get(s, s).split()]
    known = [c for c in codes if _is_script(c)]
    return regex.compile("[" + "".join(rf"\p{{sc={c}}}" for c in known) + "]") if known else None


@functools.cache
def _is_script(code: str) -> bool:
    import regex

    try:
        regex.compile(rf"\p{{sc={code}}}")
    except regex.error:
        return False
    return True


def _share(scripts: frozenset[str], letters: list[str]) -> float:
    """The share of ``letters`` written in one of ``scripts``."""
    own = _script_class(scripts)
    return sum(1 for ch in letters if own.match(ch)) / len(letters) if own is not None else 0.0


def in_its_script(code: str, text: str) -> str:
    """``code`` when ``text`` is written in a script CLDR writes that language in; else the language CLDR
    finds likeliest for the script most of its letters are in (Syriac "syr", Tibetan "bo", Cyrillic
    "ru", Latin "en"), or undetermined. CLD3 knows ~100 languages: one it does not know it tells as
    another, at times of another script (Syriac as Hungarian, Tibetan as Hindi), whose analyzer then reads
    its words as no word of that language."""
    from refind_cli.text.scripts_data import SCRIPTS, SPEAKERS

    if code == UNDETERMINED or code not in SCRIPTS:
        return code
    scripts = frozenset(SCRIPTS[code].split())
    head = text[:TEXT_CHARS]
    if "Latn" in scripts and head.isascii():
        # Every letter ASCII, as below, found without a look at each (a chat's messages are each told: a
        # ChatGPT export's 20,000 chats, 900,000 messages).
        return code
    letters = [ch for ch in head if ch.isalpha()]
    ascii_letters = sum(map(str.isascii, letters))
    if not letters or ("Latn" in scripts and ascii_letters >= len(letters) / 2):
        return code  # most chats: no Unicode tables needed
    if _share(scripts, letters) >= 0.5:
        return code
    common = Counter(letters).most_common(1)[0][0]
    # A letter is of one script (Unicode's Script property), so of the scripts none but its own can match it.
    script = _script_of(common)
    if script is not None and _share(frozenset([script]), letters) >= 0.5:
        return SPEAKERS[script]
    return UNDETERMINED


def _script_of(letter: str) -> str | None:
    """The script of ``SPEAKERS`` that ``letter`` is written in, if one is."""
    match = _speakers_scripts().match(letter)
    return match.lastgroup if match is not None else None


@functools.cache
def _speakers_scripts() -> Any:
    """One pattern of the scripts of ``SPEAKERS`` (those Unicode has), a group each named by its code: one
    compiled where a class a script was compiled until one matched (348 compilations, ~20 ms)."""
    import regex

    from refind_cli.text.scripts_data import SPEAKERS

    known = [script for script in SPEAKERS if _is_script(script)]
    return regex.compile("|".join(rf"(?P<{script}>\p{{sc={script}}})" for script in known))


def parts(lang: str) -> list[str]:
    """The languages of a chat's language value: one, or two for a bilingual chat."""
    return lang.split(MIXED)


def generate_names() -> dict[str, str]:
    """CLDR's names of languages in English (Babel's), by code."""
    from babel import Locale

    return dict(sorted(Locale("en").languages.items()))


def write_names(path: Path | None = None) -> None:
    """Write ``generate_names()`` into ``names_data.py``: importing Babel and loading its English locale took
    ~34 ms of `refind chats`' ~140 ms of CPU at load (bench/RESULTS.md, issue 26 item 3, session 16)."""
    from pathlib import Path  # here, not at the top: as in ``write_scripts``

    from refind_cli.generated import write_module

    write_module(
        path or Path(__file__).with_name("names_data.py"),
        "python -m refind_cli.text.language",
        ("ENGLISH", "dict[str, str]", generate_names()),
    )


def _english_names() -> dict[str, str]:
    from refind_cli.text.names_data import ENGLISH  # CLDR's names of languages, in English

    return ENGLISH


def english_name(code: str) -> str:
    """The English name of an ISO 639-1 code (CLDR's, through Babel): "el" -> "Greek"; the code itself
    when CLDR has no name for it."""
    return _english_names().get(code, code)


def own_name(code: str) -> str:
    """What a language calls itself (CLDR, through Babel): "de" -> "Deutsch"; "" where CLDR has no locale
    of it."""
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(code).get_language_name(code) or ""
    except (UnknownLocaleError, ValueError):
        return ""


def name(lang: str) -> str:
    """How a chat's language is shown: "German", "German + English", "undetermined" for "und", "" when
    it was never told."""
    if lang in ("", UNDETERMINED):
        return "undetermined" if lang else ""
    return " + ".join(map(english_name, parts(lang)))


def is_code(code: str) -> bool:
    """Whether ``code`` is an ISO 639-1 code (two letters CLDR names): what `refind import --lang` takes."""
    return len(code) == 2 and code in _english_names()


if __name__ == "__main__":
    write_scripts()
    write_names()
