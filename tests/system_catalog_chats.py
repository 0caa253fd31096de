"""Chats in the languages of the machine's own translation catalogs (session 14): the messages volunteers
translated for GNU and GNOME programs (coreutils, GLib, GTK, PAM, apt, dpkg, grep, tar, wget, ...), read
from the compiled catalogs under ``/usr/share/locale`` through Babel's MO reader. About 150 languages, more
than Django's, among them many no session here tuned on (Welsh, Irish, Manx, Breton, Kinyarwanda, Wolof,
Xhosa, Zulu, Tigrinya, Dzongkha, Uyghur, ...), and sentences of another kind (a program's errors and
prompts, not a web form's).

The languages fall in two halves by a hash of their code (``split``): "tune", the half the analysis may be
changed on while its misses are read, and "held", the half whose misses nobody reads before the last
change, so its figure tells how a change does on languages and sentences nobody looked at. Each language
gives a chat as ``catalog_chats.chat`` makes one (its needles typed in the same forms); a folder without
sentences enough is left out. A script that is no test reads it (``bench/catalog_bench.py --catalog
system-tune``); nothing here runs where the folder is missing.
"""

from __future__ import annotations

import contextlib
import io
import unicodedata
import zlib
from functools import cache
from pathlib import Path

import regex
from babel.core import parse_locale
from babel.messages.mofile import read_mo
from catalog_chats import _RUN, _WORD, CatalogChat, chat, locale_of

LOCALE_DIR = Path("/usr/share/locale")
# Programs whose messages are sentences (not lists of names: the ISO code tables and MIME types are left out).
DOMAINS = (
    "coreutils glib20 gtk20 Linux-PAM at-spi2-core gdk-pixbuf PackageKit software-properties apt dpkg"
    " gettext-runtime bash grep sed tar findutils diffutils libc gnupg2 wget"
).split()
SPLITS = ("tune", "held")
# A folder's modifier that names a script; other modifiers (a variety, "ca@valencia", "sr@ije") are left
# out, the language's plain folder standing for it.
_SCRIPT_MODIFIERS = {"latin": "Latn", "latn": "Latn", "cyrillic": "Cyrl"}
# printf's and GLib's conversions ("%s", "%-.*s", "%1$s", "%'lu"), Python's, braces, markup, entities.
_PLACEHOLDER = regex.compile(
    r"%(?:\d+\$)?[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|j|z|t|L|I64)?[diouxXeEfFgGcspm%]"
    r"|%\(\w+\)[sdfr]|\{\w*\}|<[^>]*>|&#?\w+;|_(?=\w)"
)


def locale_name(folder: str) -> str | None:
    """The Babel locale of a ``/usr/share/locale`` folder ("sr@latin" -> "sr_Latn", "pt_BR"); None for English,
    a variety, or a name CLDR has no locale of."""
    base, _, modifier = folder.partition("@")
    if base.split("_")[0] == "en" or (modifier and modifier.lower() not in _SCRIPT_MODIFIERS):
        return None
    try:
        lang, territory, *_ = parse_locale(base)
    except ValueError:
        return None
    name = "_".join(filter(None, [lang, _SCRIPT_MODIFIERS.get(modifier.lower()), territory]))
    return name if locale_of(name) is not None else None


def split(locale: str) -> str:
    """The half ``locale``'s language is in: by a hash of its code, fixed before any figure was read."""
    return SPLITS[zlib.crc32(locale.split("_")[0].encode()) % 2]


@cache
def folders() -> dict[str, list[Path]]:
    """Locale -> its catalogs of ``DOMAINS``: one folder a language and script (the shortest name)."""
    found: dict[str, list[Path]] = {}
    seen: set[tuple[str, str]] = set()
    for folder in sorted(LOCALE_DIR.glob("*/LC_MESSAGES"), key=lambda p: len(p.parent.name)):
        name = locale_name(folder.parent.name)
        if name is None:
            continue
        loc = locale_of(name)
        key = (name.split("_")[0], str(loc.script or "") if loc else "")
        mos = [folder / f"{d}.mo" for d in DOMAINS if (folder / f"{d}.mo").is_file()]
        if key not in seen and mos:
            seen.add(key)
            found[name] = mos
    return dict(sorted(found.items()))


def sentences(mos: list[Path]) -> list[str]:
    """The catalogs' translated sentences, placeholders, markup and mnemonics taken out, NFC, distinct."""
    out: dict[str, None] = {}
    for mo in mos:
        with mo.open("rb") as f, contextlib.redirect_stdout(io.StringIO()):
            try:
                cat = read_mo(f)
            except (ValueError, UnicodeDecodeError):
                continue  # 64 of 3,674 here: a header date Babel cannot read, or a charset it misstates
        for msg in cat:
            if not msg.id or not msg.string:
                continue
            text = msg.string[0] if isinstance(msg.string, (tuple, list)) else msg.string
            text = " ".join(_PLACEHOLDER.sub(" ", text).split())
            if len(_WORD.findall(text)) >= 3 or (len(text) >= 8 and _RUN.search(text)):
                out[unicodedata.normalize("NFC", text)] = None
    return list(out)


def system_chats(half: str, longest: bool = True) -> dict[str, CatalogChat]:
    """The chats of the languages of one half (``SPLITS``), by locale; ``longest`` as ``chat`` takes it."""
    out: dict[str, CatalogChat] = {}
    for name, mos in folders().items():
        if split(name) == half and (made := chat(name, "system", sentences(mos), longest)) is not None:
            out[name] = made
    return out
