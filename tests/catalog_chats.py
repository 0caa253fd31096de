"""Chats in the languages of Django's translation catalogs (about 95 languages, 20 scripts), generated at test
time from text nobody here wrote nor tuned on: the sentences volunteers translated for Django's forms and
its admin ("Enter a valid email address.", "The password is too similar to the username."), read through
Babel's PO reader. Each language gives a family chat of ``MESSAGES`` of its sentences; ``NEEDLES`` of them are
needles, each searched for by one of its words that no other message of the chat holds, typed as a person
would (``forms``):

- as written; in capitals (by the language's casing: Turkish "i"/"İ");
- without the diacritics people leave out (Latin, Greek, Arabic, Hebrew, Syriac, Thaana), or "ё" as "е";
- in another inflected form: the word's lemma by simplemma's dictionaries (about 50 languages), as a
  person names a thing ("hasło" for "hasła", "כתובת" for "והכתובת");
- in full-width letters (Latin), or half-width (Japanese kana);
- and a date of the needle's message in the language's long format, named by its day and month as its
  own day-month pattern writes them (Babel's skeleton "MMMMd": "15. května", "5月15日").

``catalog="core"`` reads ``django/conf/locale`` (the probe tuned on); ``catalog="admin"`` reads
``django/contrib/admin/locale``: other sentences of the same languages, kept apart as the held-out probe.
``mixed`` interleaves a language's messages with English ones (code-switching). ``bench/catalog_bench.py``
runs it all through ``refind import`` and ``refind search``; ``tests/test_catalog_languages.py`` a sample.
"""

from __future__ import annotations

import contextlib
import io
import random
import unicodedata
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path

import regex
from babel import Locale, UnknownLocaleError
from babel.dates import format_date, format_skeleton
from babel.messages.pofile import read_po
from cldr_chats import _BARE_TYPED, _fullwidth, script_of

MESSAGES = 16
NEEDLES = 3
# A word shorter than this is not what a person searches for (in scripts written with spaces).
LEAST_LETTERS = 4
CATALOGS = {"core": "conf/locale", "admin": "contrib/admin/locale"}
DAY = date(2024, 5, 15)

_PLACEHOLDER = regex.compile(r"%\(\w+\)[sdfr]|%[sdfr]|\{\w*\}|<[^>]*>|&\w+;")
_WORD = regex.compile(r"\p{L}[\p{L}\p{M}\p{Cf}]*")
# Scripts written without spaces: a word there is a piece of a run, not a run.
_RUNS = {"Hans", "Hant", "Jpan", "Kore", "Thai", "Khmr", "Laoo", "Mymr"}
# A piece of such a run a person would type: Han or kana of one kind (a Chinese or Japanese word), else three
# letters of the run.
_RUN = regex.compile(
    r"\p{Han}{2,}|\p{Katakana}{2,}|[\p{Thai}\p{Khmer}\p{Lao}\p{Myanmar}\p{Hangul}][\p{L}\p{M}]{2,}"
)


@dataclass(frozen=True, slots=True)
class CatalogChat:
    lang: str  # the catalog's language (its folder: "pl", "sr_Latn", "zh_Hans")
    script: str  # ISO 15924
    messages: tuple[str, ...]
    needles: tuple[tuple[str, int], ...]  # (word, index of the message that holds it)
    dated: int  # index of the message that holds ``DAY`` in the long format


def _root() -> Path:
    import django  # only its translation catalogs are read

    return Path(django.__file__).parent


@cache
def catalogs(catalog: str = "core") -> dict[str, Path]:
    """One catalog a language (the shortest folder name of it; English left out): folder name -> PO file."""
    found: dict[str, Path] = {}
    for po in sorted(
        (_root() / CATALOGS[catalog]).glob("*/LC_MESSAGES/django.po"), key=lambda p: len(str(p))
    ):
        name = po.parent.parent.name
        base = name.split("_")[0]
        if base != "en" and not any(k.split("_")[0] == base for k in found):
            found[name] = po
    return dict(sorted(found.items()))


def sentences(po: Path) -> list[str]:
    """The catalog's translated sentences, placeholders and markup taken out, NFC, distinct."""
    with po.open("rb") as f, contextlib.redirect_stdout(io.StringIO()):
        cat = read_po(f)  # Babel prints a warning for each plural form past the catalog's count
    out: dict[str, None] = {}
    for msg in cat:
        if not msg.id or msg.fuzzy or not msg.string:
            continue
        text = msg.string[0] if isinstance(msg.string, tuple) else msg.string
        text = " ".join(_PLACEHOLDER.sub(" ", text).split())
        # A sentence, not one of Django's names of languages.
        if len(_WORD.findall(text)) >= 3 or (len(text) >= 8 and _RUN.search(text)):
            out[unicodedata.normalize("NFC", text)] = None
    return list(out)


def english(catalog: str = "core") -> list[str]:
    """The English sentences the catalog translates (its message ids), as ``sentences`` reads them."""
    po = next(iter(catalogs(catalog).values()))
    with po.open("rb") as f, contextlib.redirect_stdout(io.StringIO()):
        cat = read_po(f)
    ids = [str(m.id if isinstance(m.id, str) else m.id[0]) for m in cat if m.id]
    return list(dict.fromkeys(" ".join(_PLACEHOLDER.sub(" ", t).split()) for t in ids if len(t.split()) >= 3))


def locale_of(lang: str) -> Locale | None:
    try:
        return Locale.parse(lang)
    except (UnknownLocaleError, ValueError):
        return None


def _key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _pick_word(
    message: str, others: list[str], script: str, rng: random.Random, longest: bool = True
) -> str | None:
    """A word of ``message`` no other message holds: the longest (content words are long; with ``longest``
    false, any of at least ``LEAST_LETTERS``), or in a script written without spaces a piece of three
    characters of a run."""
    rest = _key(" ".join(others))
    words: list[str] = [w for w in _WORD.findall(message) if _key(w) not in rest]
    if script in _RUNS:
        width = 3 if script in {"Thai", "Khmr", "Laoo", "Mymr"} else 2
        # Whole graphemes: a piece does not start with a vowel sign.
        runs = [regex.findall(r"\X", r) for r in _RUN.findall(message)]
        pieces = ["".join(r[i : i + width]) for r in runs for i in range(len(r) - width + 1)]
        pieces = [p for p in pieces if _key(p) not in rest]
        return rng.choice(pieces) if pieces else None
    words = [w for w in words if len(w) >= LEAST_LETTERS]
    if not words:
        return None
    most = max(map(len, words)) if longest else 0
    return rng.choice([w for w in words if len(w) >= most])


def chat(
    lang: str, catalog: str = "core", pool: list[str] | None = None, longest: bool = True
) -> CatalogChat | None:
    """The probe chat of ``lang``; None where its catalog has too few sentences or CLDR no locale of it.
    ``longest`` false picks any unique word of a needle's message, not its longest (session 14: shorter
    words are more often function words, or shorter than the cut)."""
    loc = locale_of(lang)
    if loc is None:
        return None
    script = script_of(str(loc))
    pool = sentences(catalogs(catalog)[lang]) if pool is None else pool
    if len(pool) < 2 * MESSAGES:
        return None
    rng = random.Random(f"{catalog} {lang}")
    messages = rng.sample(pool, MESSAGES)
    needles: list[tuple[str, int]] = []
    for at in rng.sample(range(MESSAGES), MESSAGES):
        word = _pick_word(messages[at], messages[:at] + messages[at + 1 :], script, rng, longest)
        if word is not None:
            needles.append((word, at))
        if len(needles) == NEEDLES:
            break
    if len(needles) < NEEDLES:
        return None
    dated = next(i for i in range(MESSAGES) if i not in {at for _, at in needles})
    messages[dated] = f"{messages[dated]} {format_date(DAY, 'long', locale=loc)}"
    return CatalogChat(lang, script, tuple(messages), tuple(needles), dated)


def mixed(found: CatalogChat, catalog: str = "core") -> CatalogChat:
    """``found``'s chat with an English message after each of its own (a person who switches languages):
    the needles and the date at their new places."""
    rng = random.Random(f"mixed {found.lang}")
    others = rng.sample(english(catalog), MESSAGES)
    messages = [m for pair in zip(found.messages, others, strict=True) for m in pair]
    return CatalogChat(
        found.lang,
        found.script,
        tuple(messages),
        tuple((w, 2 * at) for w, at in found.needles),
        2 * found.dated,
    )


def _turkic(lang: str) -> bool:
    return lang.split("_")[0] in {"tr", "az", "tt", "kk", "crh"}


def _upper(word: str, lang: str) -> str:
    return (word.replace("i", "İ").replace("ı", "I") if _turkic(lang) else word).upper()


def _bare(word: str, script: str) -> str:
    if script == "Cyrl":
        return word.replace("ё", "е").replace("Ё", "Е")
    if script not in _BARE_TYPED:
        return word
    stripped = regex.sub(r"\p{Mn}", "", unicodedata.normalize("NFD", word))
    return unicodedata.normalize("NFC", stripped).replace("ı", "i")


@cache
def _halfwidth() -> dict[int, str]:
    """Half-width forms of the kana, from Unicode's compatibility decompositions (U+FF61-U+FF9F)."""
    out: dict[int, str] = {}
    for code in range(0xFF61, 0xFFA0):
        wide = unicodedata.normalize("NFKC", chr(code))
        if len(wide) == 1:
            out.setdefault(ord(wide), chr(code))
    # A voiced kana is its half-width kana and a half-width voicing mark.
    for code in range(0x30A0, 0x3100):
        base = unicodedata.normalize("NFD", chr(code))
        if len(base) == 2 and ord(base[0]) in out and base[1] in "\u3099\u309a":
            out[code] = out[ord(base[0])] + ("\uff9e" if base[1] == "\u3099" else "\uff9f")
    return out


def _lemma(word: str, lang: str) -> str | None:
    import simplemma
    from simplemma.strategies.dictionaries.dictionary_factory import SUPPORTED_LANGUAGES

    code = {"sr": "hbs", "hr": "hbs", "bs": "hbs"}.get(lang.split("_")[0], lang.split("_")[0])
    if code not in SUPPORTED_LANGUAGES:
        return None
    lemma = simplemma.lemmatize(word, lang=code)
    return lemma if _key(lemma) != _key(word) and _WORD.fullmatch(lemma) else None


def forms(word: str, found: CatalogChat) -> dict[str, str]:
    """The forms of a needle a person would type, by name; each differs from the written one."""
    loc = locale_of(found.lang)
    candidates = {
        "upper": _upper(word, found.lang),
        "bare": _bare(word.lower() if not _turkic(found.lang) else word, found.script),
        "inflected": _lemma(word, found.lang),
        "full-width": _fullwidth(word) if word.isascii() else word.translate(_halfwidth()),
    }
    out = {"written": word}
    for label, form in candidates.items():
        if form and form not in out.values():
            out[label] = form
    if loc is not None:
        out["date"] = format_skeleton("MMMMd", DAY, locale=loc)
    return out
