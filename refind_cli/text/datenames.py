"""The forms a language writes each month and weekday name in, from CLDR (through Babel): its wide names as
a date writes them ("ledna", "Ιανουαρίου", "sunnuntaina") and standing alone ("leden", "Ιανουάριος",
"sunnuntai"), in every locale of the language (its territories and scripts), and glued to the letters its
date patterns write beside them without a space (Hebrew "d בMMMM y": "בינואר", Syriac "ܒ", Sorani "ی",
Basque "MMMM'ren'"). A person names the month alone; a message holds it in a date: the analyzer makes every
form of one month one term (``analysis.Analyzer``).

Abbreviated names are left out: they are other words too often ("pro", "led", "mar", "ago", "set").

Reading every locale from Babel takes seconds, too long for a search to start with: ``generate()`` writes the
forms once into ``datenames_data.py``, which an analyzer loads, and a test checks that file against Babel.
``python -m refind_cli.text.datenames`` writes it again (after a Babel upgrade).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from itertools import pairwise

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# Separators of the stored table: a language's groups by "|", a group's forms by " " (a form is one word).
GROUPS = "|"
FORMS = " "
# A pattern's fields that write a wide name, and the names they write: (kind, context).
_WIDE = {("M", 4): ("months", "format"), ("L", 4): ("months", "stand-alone"),
         ("E", 4): ("days", "format"), ("c", 4): ("days", "stand-alone")}  # fmt: skip
# Letters at the end, at the start (patterns compiled when a table is generated, never by a search).
_HEAD = r"[^\W\d_]+$"
_TAIL = r"[^\W\d_]+"


def forms(lang: str) -> tuple[tuple[str, ...], ...]:
    """The groups of ``lang``'s forms (its first form the canonical one: the name standing alone), where a
    name has more than one form; empty when it has none. Read from the generated table."""
    from refind_cli.text.datenames_data import NAMES

    stored = NAMES.get(lang, "")
    return tuple(tuple(group.split(FORMS)) for group in stored.split(GROUPS)) if stored else ()


def _glue(pattern: Any) -> Iterable[tuple[tuple[str, str], str, str]]:
    """((kind, context), prefix, suffix) for each wide-name field of a date pattern: the letters written
    against it, without a space ("ב" before, "ren" after)."""
    from babel.dates import tokenize_pattern

    merged: list[tuple[str, Any]] = []
    for kind, value in tokenize_pattern(str(pattern)):
        if kind == "chars" and merged and merged[-1][0] == "chars":
            merged[-1] = ("chars", merged[-1][1] + value)
        else:
            merged.append((kind, value))
    for i, (kind, value) in enumerate(merged):
        if kind != "field" or value not in _WIDE:
            continue
        before = merged[i - 1][1] if i and merged[i - 1][0] == "chars" else ""
        after = merged[i + 1][1] if i + 1 < len(merged) and merged[i + 1][0] == "chars" else ""
        head, tail = re.search(_HEAD, before), re.match(_TAIL, after)
        yield _WIDE[value], head.group() if head else "", tail.group() if tail else ""


def _one_word(form: str) -> bool:
    """Letters and their marks only: one word to the analyzer."""
    return all(ch.isalpha() or unicodedata.category(ch)[0] == "M" for ch in form)


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def _locale_forms(ident: str) -> dict[tuple[str, int], set[str]]:
    """(kind, number) -> the wide forms one locale writes that name in."""
    from babel import Locale

    loc = Locale.parse(ident)
    tables = {"months": loc.months, "days": loc.days}
    patterns = [loc.date_formats[w] for w in ("full", "long", "medium")]
    patterns += loc._data.get("datetime_skeletons", {}).values()
    out: dict[tuple[str, int], set[str]] = defaultdict(set)
    for (kind, context), prefix, suffix in (g for p in patterns for g in _glue(p)):
        for n, name in tables[kind].get(context, {}).get("wide", {}).items():
            out[kind, n].add(_key(prefix + name + suffix))
    for kind, table in tables.items():
        for context in ("format", "stand-alone"):
            for n, name in table.get(context, {}).get("wide", {}).items():
                out[kind, n].add(_key(name))
    return out


def _script(ident: str) -> str:
    """The ISO 15924 script a locale writes in: its own subtag, else CLDR's likely script of its language."""
    from babel.core import get_global, parse_locale

    lang, _, script, *_ = parse_locale(ident)
    likely = get_global("likely_subtags").get(lang, "")
    return script or (parse_locale(likely)[2] if likely else None) or ""


def generate(idents: Iterable[str] | None = None) -> dict[str, str]:
    """The table: language code -> its groups of forms, joined by ``GROUPS`` and ``FORMS``. A group is one
    name in one script (Serbian's Cyrillic and Latin months are two groups), its first form the name
    standing alone in the first locale of that script ("sr", "sr_Latn"); a form two names share is left out
    (it names neither), and so is a form of root's placeholders ("M01", "Sun") that a locale without its own
    names falls back to, and one of several words. (A run of a script written without spaces, "一月", stays:
    the analyzer makes bigrams of it and never looks it up.)"""
    from babel import Locale, localedata
    from babel.core import parse_locale

    placeholders = {f for forms in _locale_forms("root").values() for f in forms}
    by_lang: dict[str, list[str]] = defaultdict(list)
    chosen = idents if idents is not None else localedata.locale_identifiers()
    for ident in sorted(chosen, key=lambda i: (len(i), i)):
        if ident != "root":
            by_lang[parse_locale(ident)[0]].append(ident)
    out: dict[str, str] = {}
    for lang, idents_of in sorted(by_lang.items()):
        found: dict[tuple[str, str, int], set[str]] = defaultdict(set)
        first: dict[str, str] = {}  # script -> its first locale
        for ident in idents_of:
            script = _script(ident)
            first.setdefault(script, ident)
            for (kind, n), written in _locale_forms(ident).items():
                found[script, kind, n] |= written - placeholders
        owners: dict[str, set[tuple[str, int]]] = defaultdict(set)
        for (_, kind, n), written in found.items():
            for form in written:
                owners[form].add((kind, n))
        groups: list[str] = []
        for script, ident in first.items():
            loc = Locale.parse(ident)
            for kind in ("months", "days"):
                alone = getattr(loc, kind).get("stand-alone", {}).get("wide", {})
                for n, name in sorted(alone.items()):
                    canonical = _key(name)
                    own = [
                        f for f in sorted(found[script, kind, n]) if _one_word(f) and owners[f] == {(kind, n)}
                    ]
                    if canonical in own and len(own) > 1:
                        groups.append(FORMS.join([canonical, *(f for f in own if f != canonical)]))
        if groups:
            out[lang] = GROUPS.join(groups)
    return out


_GLUED = r"([^\W\d_]+)\{[01]\}|\{[01]\}([^\W\d_]+)"


def generate_clitics(idents: Iterable[str] | None = None) -> dict[str, str]:
    """Language code -> the letters its base locale writes against a word without a space, "-" after a
    prefix and before a suffix ("ו- ב-", "-ren"): its list patterns' "and" (Hebrew "{0} ו{1}", Arabic
    "و", Syriac "ܘ", Tigrinya "{0}ን {1}ን") and its date patterns' letters beside a month ("בMMMM")."""
    from babel import Locale, localedata
    from babel.core import parse_locale

    out: dict[str, str] = {}
    chosen = idents if idents is not None else localedata.locale_identifiers()
    for ident in sorted(i for i in chosen if "_" not in i and i != "root"):
        loc = Locale.parse(ident)
        found: set[str] = set()
        for pattern in loc.list_patterns.get("standard", {}).values():
            for prefix, suffix in re.findall(_GLUED, pattern):
                found.add(f"{prefix}-" if prefix else f"-{suffix}")
        dates = [loc.date_formats[w] for w in ("full", "long", "medium")]
        for _, prefix, suffix in (g for p in dates for g in _glue(p)):
            found.update(f for f in (prefix and f"{prefix}-", suffix and f"-{suffix}") if f)
        if found:
            out[parse_locale(ident)[0]] = FORMS.join(sorted(_key(f) for f in found))
    return out


def clitics(lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(prefixes, suffixes) ``lang`` glues to a word, from the generated table."""
    from refind_cli.text.datenames_data import CLITICS

    glued = CLITICS.get(lang, "").split()
    return tuple(g[:-1] for g in glued if g.endswith("-")), tuple(g[1:] for g in glued if g.startswith("-"))


def _numbered_letters(pattern: Any) -> Iterable[str]:
    """The letter a date pattern writes right after a month's number ("y年M月d日": "月")."""
    from babel.dates import tokenize_pattern

    tokens: list[tuple[str, Any]] = tokenize_pattern(str(pattern))
    for (kind, value), (next_kind, chars) in pairwise(tokens):
        if (
            kind == "field"
            and value[0] in "ML"
            and value[1] <= 2
            and next_kind == "chars"
            and chars[:1].isalpha()
        ):
            yield chars[0]


def generate_numbered(idents: Iterable[str] | None = None) -> dict[str, str]:
    """Language code -> the letter its dates write after a month's number, then its twelve months' names
    standing alone (``FORMS``-joined), where its names are not numbers: Chinese "y年M月d日" writes May "5月",
    and names it "五月" (Yi "ꆪ", "ꉬꆪ"). The first locale of the language that does so gives them."""
    from babel import Locale, localedata
    from babel.core import parse_locale

    out: dict[str, str] = {}
    chosen = idents if idents is not None else localedata.locale_identifiers()
    for ident in sorted((i for i in chosen if i != "root"), key=lambda i: (len(i), i)):
        lang = str(parse_locale(ident)[0])
        loc = Locale.parse(ident)
        names = loc.months.get("stand-alone", {}).get("wide", {})
        if lang in out or len(names) != 12 or any(ch.isdigit() for name in names.values() for ch in name):
            continue
        patterns = [loc.date_formats[w] for w in ("full", "long", "medium")]
        patterns += loc._data.get("datetime_skeletons", {}).values()
        after = {letter for p in patterns for letter in _numbered_letters(p)}
        if len(after) == 1:
            out[lang] = FORMS.join([*after, *(_key(names[n]) for n in range(1, 13))])
    return out


def numbered(lang: str) -> tuple[str, tuple[str, ...]]:
    """(the letter ``lang``'s dates write after a month's number, its months' names) from the generated
    table; ("", ()) for a language whose dates write the name (most) or whose names are numbers."""
    from refind_cli.text.datenames_data import NUMBERED

    letter, *names = NUMBERED.get(lang, "").split(FORMS)
    return letter, tuple(names)


def write(path: Path | None = None) -> None:
    # Here, not at the top: pathlib (with the urllib.parse it imports) is a tenth of a cold search.
    from pathlib import Path

    from refind_cli.generated import write_module

    write_module(
        path or Path(__file__).with_name("datenames_data.py"),
        "python -m refind_cli.text.datenames",
        ("NAMES", "dict[str, str]", generate()),
        ("CLITICS", "dict[str, str]", generate_clitics()),
        ("NUMBERED", "dict[str, str]", generate_numbered()),
    )


if __name__ == "__main__":
    write()
