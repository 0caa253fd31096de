"""Chats in the languages and scripts nobody listed, generated at test time from CLDR (through Babel), not
written by hand: each of Babel's locales (one per language and script) gives a family chat whose messages are
lists of its own names of territories, languages, months and weekdays, joined by its own list pattern
("A, B y C", "A、B和C"). Three of those names are needles, each in one message only; the queries are the forms
a person would type them in (``variants``): as written, lower or upper case (by the locale's own casing:
Turkish and Azerbaijani dotted and dotless i), decomposed, without the diacritics people leave out (Latin,
Greek, Arabic, Hebrew, Syriac, Thaana), without zero-width joiners, in full-width letters, case-folded
(German "ß", Greek final "ς"). The second needle's message is stored decomposed (NFD), as macOS writes text.

A second chat holds emoji drawn from Unicode's own properties (the ``regex`` module's Extended_Pictographic,
Emoji_Modifier_Base, Regional_Indicator): single emoji, with a skin tone, as a ZWJ sequence, with the
variation selector that keyboards add, and flags.

``held_out_names`` and ``month_chat(locale, "MMMMd")`` make a second probe from other CLDR data (currencies,
units, day-month dates), kept apart from the tuning of the analysis.

``tests/test_unlisted_languages.py`` searches a sample of one locale per script; ``bench/polyglot_bench.py``
all of them.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import regex
from babel import Locale, localedata
from babel.core import get_global, parse_locale
from babel.lists import format_list

MESSAGES = 12
NEEDLES = 3
# A locale needs this many names in its own script to make a chat of.
LEAST_NAMES = 24

# ISO 15924 codes that name several Unicode scripts (Babel's locales use them).
_COMPOSITE = {"Hans": "Han", "Hant": "Han", "Jpan": "Han|Hiragana|Katakana", "Kore": "Hangul|Han"}
# Scripts whose readers type words without their diacritics (accents, tonos, harakat, niqqud): a habit of
# people, which Unicode does not record.
_BARE_TYPED = {"Latn", "Grek", "Arab", "Hebr", "Syrc", "Thaa"}
_JOINERS = "\u200c\u200d"


@dataclass(frozen=True, slots=True)
class LocaleChat:
    locale: str
    script: str  # ISO 15924
    messages: tuple[str, ...]  # as stored in the export
    needles: tuple[tuple[str, int], ...]  # (needle, index of the message that holds it)


def script_of(locale: str) -> str:
    """The ISO 15924 script a locale writes in: its own subtag, else CLDR's likely script of its language."""
    lang, _, script, *_ = parse_locale(locale)
    if script:
        return script
    likely = get_global("likely_subtags").get(lang, "")
    return (parse_locale(likely)[2] if likely else None) or "Zzzz"


@cache
def locales() -> dict[str, str]:
    """One Babel locale per (language, script), the shortest identifier, with its script."""
    picked: dict[tuple[str, str], str] = {}
    for ident in sorted(localedata.locale_identifiers(), key=lambda i: (len(i), i)):
        if ident == "root":
            continue
        key = (parse_locale(ident)[0], script_of(ident))
        picked.setdefault(key, ident)
    return {ident: script for (_, script), ident in sorted(picked.items(), key=lambda kv: kv[1])}


def in_script(script: str) -> Callable[[str], bool]:
    letters = regex.compile(r"\p{L}")
    scripts = "".join(rf"\p{{sc={s}}}" for s in _COMPOSITE.get(script, script).split("|"))
    own = regex.compile(rf"^[{scripts}\P{{L}}]+$")
    return lambda text: bool(letters.search(text)) and bool(own.match(text))


def names(locale: str) -> list[str]:
    """The locale's names of territories, languages, months and weekdays in its own script, NFC, distinct."""
    loc = Locale.parse(locale)
    ok = in_script(script_of(locale))
    pools = (
        loc.months["format"]["wide"].values(),
        loc.days["format"]["wide"].values(),
        loc.territories.values(),
        loc.languages.values(),
    )
    out = dict.fromkeys(unicodedata.normalize("NFC", n) for pool in pools for n in pool)
    return [n for n in out if ok(n)]


def held_out_names(locale: str) -> list[str]:
    """Other names of the locale, for a probe tuned on none of them: its currencies (and their plural
    forms) and its units' long names, in its own script, NFC, distinct."""
    loc = Locale.parse(locale)
    ok = in_script(script_of(locale))
    plurals = loc._data.get("currency_names_plural", {})
    units = loc._data.get("unit_display_names", {})
    pools = (
        loc.currencies.values(),
        (form for forms in plurals.values() for form in forms.values()),
        (unit.get("long", "") for unit in units.values()),
    )
    out = dict.fromkeys(unicodedata.normalize("NFC", n) for pool in pools for n in pool if n)
    return [n for n in out if ok(n)]


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _single(word: str, script: str) -> bool:
    """A name of one word, long enough to be searched for: no space, digit or symbol, no punctuation but
    inside it (Tibetan's tsheg between syllables, a hyphen)."""
    least = 2 if script in _COMPOSITE or script == "Yiii" else 3
    inner = regex.sub(r"^\p{P}+|\p{P}+$", "", word)
    return inner == word and len(word) >= least and not regex.search(r"[\s\p{S}\p{N}]", word)


def locale_chat(locale: str, pool_of: Callable[[str], list[str]] = names) -> LocaleChat | None:
    """The probe chat of ``locale`` (from ``names``, or another pool of its names); None when CLDR has too
    few of its names in its script."""
    script = script_of(locale)
    pool = pool_of(locale)
    if len(pool) < LEAST_NAMES:
        return None
    rng = random.Random(locale)
    singles = [n for n in pool if _single(n, script)]
    if len(singles) < NEEDLES:
        return None
    # Needles that do not hold one another, so that each is in one message only.
    needles: list[str] = []
    for word in rng.sample(singles, len(singles)):
        if all(_key(word) not in _key(n) and _key(n) not in _key(word) for n in needles):
            needles.append(word)
        if len(needles) == NEEDLES:
            break
    if len(needles) < NEEDLES:
        return None
    fillers = [n for n in pool if not any(_key(needle) in _key(n) for needle in needles)]
    if len(fillers) < 2 * MESSAGES:
        return None
    rng.shuffle(fillers)
    messages: list[str] = []
    where = rng.sample(range(MESSAGES), NEEDLES)
    for i in range(MESSAGES):
        items = [fillers.pop(), fillers.pop()]
        if i in where:
            needle = needles[where.index(i)]
            items.insert(rng.randrange(3), needle)
        text = format_list(items, locale=locale)
        if i in where and where.index(i) == 1:
            text = unicodedata.normalize("NFD", text)
        messages.append(text)
    return LocaleChat(locale, script, tuple(messages), tuple((n, where[k]) for k, n in enumerate(needles)))


def month_chat(locale: str, skeleton: str = "") -> LocaleChat | None:
    """The locale's months as dates in its long format ("5. ledna 2024", "5 января 2024 г."), or in the
    pattern it has for a ``skeleton`` ("MMMMd": "5. ledna"), a message each, beside two of its other names;
    the needles are the months whose name standing alone ("leden", "январь") is another form than the one in
    the date, as a person names the month they look for. None when no month changes its form, or when the
    locale has too few names."""
    from datetime import date

    from babel.dates import format_date, format_skeleton

    loc = Locale.parse(locale)
    alone = loc.months["stand-alone"]["wide"]
    pool = names(locale)
    if len(pool) < LEAST_NAMES:
        return None
    rng = random.Random(locale)
    months = [
        _key(n)
        for width in ("wide", "abbreviated")
        for ctx in loc.months.values()
        for n in ctx[width].values()
    ]
    fillers = [n for n in pool if not any(m in _key(n) for m in months)]
    rng.shuffle(fillers)
    messages: list[str] = []
    needles: list[tuple[str, int]] = []
    for month in range(1, 13):
        day = date(2024, month, 5 + month)
        stamp = (
            format_skeleton(skeleton, day, locale=locale)
            if skeleton
            else format_date(day, "long", locale=locale)
        )
        named = alone.get(month, "")
        if _key(named) not in regex.findall(r"\w+", _key(stamp)) and _single(
            named, chat_script := script_of(locale)
        ):
            needles.append((named, month - 1))
        messages.append(format_list([stamp, *fillers[2 * month : 2 * month + 2]], locale=locale))
    if not needles:
        return None
    return LocaleChat(locale, chat_script, tuple(messages), tuple(needles))


def _turkic(locale: str) -> bool:
    # A language that writes a dotless "ı" cases "i" and "ı" apart (Turkish, Azerbaijani, Crimean Tatar, ...).
    return any("ı" in n for n in names(locale))


def _lower(word: str, turkic: bool) -> str:
    return (word.replace("I", "ı").replace("İ", "i") if turkic else word).lower()


def _upper(word: str, turkic: bool) -> str:
    return (word.replace("i", "İ").replace("ı", "I") if turkic else word).upper()


def _bare(word: str) -> str:
    # Turkish typed on a keyboard without its letters writes "i" for the dotless "ı" too.
    stripped = regex.sub(r"\p{Mn}", "", unicodedata.normalize("NFD", word))
    return unicodedata.normalize("NFC", stripped).replace("ı", "i")


def _fullwidth(word: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in word)


def variants(needle: str, chat: LocaleChat) -> dict[str, str]:
    """The forms of ``needle`` a person would type, by name; each differs from the others that come before
    it ("written" always first)."""
    turkic = _turkic(chat.locale)
    forms = {
        "written": needle,
        "lower": _lower(needle, turkic),
        "upper": _upper(needle, turkic),
        "nfd": unicodedata.normalize("NFD", needle),
        # What a program's case-insensitive compare makes of it ("ß" -> "ss", "ς" -> "σ"); Turkish's own
        # casing is the "lower" form.
        "casefold": needle.casefold() if not turkic else needle,
        "no joiners": needle.translate({ord(j): None for j in _JOINERS}),
        "full-width": _fullwidth(needle),
    }
    if chat.script in _BARE_TYPED:
        forms["bare"] = _bare(_lower(needle, turkic))
        forms["bare upper"] = _bare(_lower(needle, turkic)).upper()
    out: dict[str, str] = {}
    for label, form in forms.items():
        if form not in out.values():
            out[label] = form
    return out


# -- emoji ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EmojiCase:
    kind: str  # what the case is about
    stored: str  # the emoji as the message holds it
    typed: str  # as the query types it


def _assigned(ch: str) -> bool:
    # Assigned in both this Python's Unicode and the regex module's: a query can type it, a message hold it.
    return unicodedata.name(ch, "") != ""


@cache
def _pictographs() -> tuple[list[str], list[str]]:
    picto = regex.compile(r"\p{Extended_Pictographic}")
    base = regex.compile(r"\p{Emoji_Modifier_Base}")
    every = [chr(c) for c in range(0x80, 0x20000) if picto.match(chr(c)) and _assigned(chr(c))]
    return every, [e for e in every if base.match(e)]


def emoji_cases(seed: str, count: int) -> Iterator[EmojiCase]:
    """``count`` cases of each kind, drawn by ``seed`` from Unicode's emoji properties; no emoji (nor flag)
    is in two cases but the two of "skin tone", so each case's messages are the only ones that hold it."""
    every, bases = _pictographs()
    rng = random.Random(seed)
    plain = rng.sample([e for e in every if e not in bases], 2 * count)
    toned = rng.sample(bases, 3 * count)
    tones = [chr(c) for c in range(0x1F3FB, 0x1F400)]
    flags = rng.sample(
        sorted(c for c in get_global("territory_currencies") if len(c) == 2 and c.isalpha()), count
    )
    for i in range(count):
        yield EmojiCase("single", plain[2 * i], plain[2 * i])
        yield EmojiCase("typed with U+FE0F", plain[2 * i + 1], plain[2 * i + 1] + "\ufe0f")
        with_tone = toned[3 * i] + rng.choice(tones)
        yield EmojiCase("skin tone, typed bare", with_tone, toned[3 * i])
        yield EmojiCase("skin tone, typed toned", with_tone, with_tone)
        zwj = "\u200d".join(toned[3 * i + 1 : 3 * i + 3])
        yield EmojiCase("ZWJ sequence", zwj, zwj)
        flag = "".join(chr(0x1F1E6 + ord(c) - ord("A")) for c in flags[i])
        yield EmojiCase("flag", flag, flag)


def emoji_messages(cases: list[EmojiCase], words: list[str]) -> list[str]:
    """A message per case: two of ``words`` (CLDR's English names) around the stored emoji."""
    return [
        f"{words[(2 * i) % len(words)]} {case.stored} {words[(2 * i + 1) % len(words)]}"
        for i, case in enumerate(cases)
    ]


def whatsapp_lines(path: Path, messages: list[str]) -> Path:
    """``messages`` as an Android WhatsApp export, two senders taking turns (each message its own turn)."""
    lines = [
        f"{1 + i // 20:02d}.03.24, 18:{2 * (i % 20):02d} - {('Ana', 'Ben')[i % 2]}: {m}\n"
        for i, m in enumerate(messages)
    ]
    path.write_text("".join(lines), encoding="utf-8")
    return path
