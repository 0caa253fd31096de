"""Dates read in the language a chat is *told* to be in (session 16): the held-out probe of what a user of a
language nobody listed meets. ``dates.cldr`` reads a chat's dates by the CLDR words of the language CLD3
tells the chat to be in; CLD3 knows about a hundred languages and tells the others as a neighbour (Tatar as
Turkish or Russian, Ido as Esperanto, Northern Sotho as Sesotho), whose words are not the chat's.

For each Babel language (English and the six with time-word tables left out, as ``cldr_date_cases``), a text
in it that holds no date word: CLDR's own names of units ("3 kilometres per hour", duration units left out)
and of the world's territories, told by ``refind_cli.text.language.detect`` as an import tells a chat; then
each of the language's CLDR date cases (``cldr_date_cases.cases``) read with ``dates.cldr.find_any`` in the
language told. The languages fall in two halves by a CRC32 of "polyglot6:" and the code, fixed before any
figure was read: ``tune`` (misses may be read) and ``held`` (totals only). A third set, ``catalog``, tells
the language from another kind of text, the machine's GNU/GNOME catalog sentences
(``system_catalog_chats``), for the languages that have them: never tuned on either.
"""

from __future__ import annotations

import zlib
from functools import cache

from babel import Locale
from cldr_date_cases import languages

SETS = ("tune", "held", "catalog")


def half(lang: str) -> str:
    """``held`` or ``tune``, fixed by the code before any figure (another split than session 15's)."""
    return "held" if zlib.crc32(f"polyglot6:{lang}".encode()) % 2 else "tune"


def cldr_text(lang: str) -> str:
    """Text in ``lang`` without a date word: its units' long names counted ("3 kilometres per hour") and its
    territories' names."""
    loc = Locale.parse(lang)
    units = loc._data["unit_patterns"]
    counted = [
        pattern.replace("{0}", "3")
        for unit, widths in sorted(units.items())
        if not unit.startswith("duration")
        for pattern in [widths.get("long", {}).get("other", "")]
        if "{0}" in pattern
    ]
    names = [n for code, n in sorted(loc.territories.items()) if code.isalpha()]
    return ". ".join(counted + names)


@cache
def _catalog_texts() -> dict[str, str]:
    """A language's GNU/GNOME catalog sentences joined (its plain folder only: "sr@latin" stands apart)."""
    from system_catalog_chats import folders, sentences

    out: dict[str, str] = {}
    for name, mos in folders().items():
        if "_" not in name and "@" not in name:
            out[name] = "\n".join(sentences(mos)[:300])
    return out


def texts(which: str) -> dict[str, str]:
    """Each language of set ``which`` with the text its chat's language is told from."""
    if which == "catalog":
        found = _catalog_texts()
        return {lang: found[lang] for lang in languages() if lang in found}
    return {lang: cldr_text(lang) for lang in languages() if half(lang) == which}
