"""Legacy code pages told from short texts: sentences of Django's translation catalogs (text nobody here wrote),
each language's saved in the Windows "ANSI" code page its users' Notepad and Excel wrote, read back by
``container.text_encoding`` as ``refind import`` reads a text export that is not UTF-8. Prints, per code page,
how many samples decode to the text as written: one sentence (a one-line chat) and three (three lines).

    .venv/bin/python bench/codepage_bench.py [--tree DIR] [--catalog core|admin] [--show N]

``--catalog core`` (``django/conf/locale``) is what the ranking was looked at on; ``admin``
(``django/contrib/admin/locale``) other sentences of the same languages, held out. ``--tree`` measures
another checkout's refind on the same samples (the peer in the same run).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Each catalog language's Windows ANSI code page (Windows' table of locales' default code pages): the ground
# truth of the measurement, not an input of the guess.
WINDOWS = {
    "cp1250": ("cs", "sk", "pl", "hu", "ro", "hr", "sl", "bs", "sq", "sr_Latn", "dsb", "hsb"),
    "cp1251": ("ru", "uk", "bg", "be", "mk", "sr", "kk", "ky", "tt", "mn", "tg"),
    "cp1252": ("de", "fr", "es", "it", "pt", "pt_BR", "nl", "sv", "da", "nb", "nn", "fi", "is", "ca", "gl"),
    "cp1253": ("el",),
    "cp1254": ("tr", "az"),
    "cp1255": ("he",),
    "cp1256": ("ar", "fa", "ur"),
    "cp1257": ("lt", "lv", "et"),
    "cp874": ("th",),
    "cp932": ("ja",),
    "cp936": ("zh_Hans",),
    "cp949": ("ko",),
    "cp950": ("zh_Hant",),
}
CATALOGS = {"core": "conf/locale", "admin": "contrib/admin/locale"}
SAMPLES = 12  # of each size, per language


def sentences(catalog: str, lang: str) -> list[str]:
    import django
    from babel.messages.pofile import read_po

    path = Path(django.__file__).parent / CATALOGS[catalog] / lang / "LC_MESSAGES" / "django.po"
    if not path.exists():
        return []
    # The reader prints its complaints of some catalogs' plural forms.
    with path.open("rb") as f, contextlib.redirect_stdout(io.StringIO()):
        messages = list(read_po(f))
    found: list[str] = []
    for message in messages:
        text = message.string
        text = text[0] if isinstance(text, tuple | list) else text  # a plural's first form
        if isinstance(text, str) and text and not text.isascii() and "\n" not in text:
            found.append(text)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--catalog", choices=tuple(CATALOGS), default="admin")
    parser.add_argument("--show", type=int, default=8)
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from refind_cli.importers import container

    total: Counter[tuple[str, int]] = Counter()
    right: Counter[tuple[str, int]] = Counter()
    wrong: list[str] = []
    for codec, langs in WINDOWS.items():
        for lang in langs:
            pool = [s for s in sentences(args.catalog, lang) if _encodes(s, codec)]
            rng = random.Random(f"{lang} {codec}")
            for size in (1, 3):
                for _ in range(min(SAMPLES, len(pool) // size)):
                    text = "\r\n".join(rng.sample(pool, size)) + "\r\n"
                    data = text.encode(codec)
                    encoding = container.text_encoding(data)
                    read = data[encoding.bom :].decode(encoding.codec, "replace")
                    total[(codec, size)] += 1
                    if read == text:
                        right[(codec, size)] += 1
                    else:
                        wrong.append(f"{lang} {codec} as {encoding.codec}: {read.splitlines()[0][:60]!r}")
    print(f"refind from {args.tree}, catalog {args.catalog}")
    print("\n| code page | one sentence | three sentences |\n|---|---|---|")
    for codec in WINDOWS:
        cells = [f"{right[(codec, n)]}/{total[(codec, n)]}" for n in (1, 3)]
        print(f"| {codec} | {cells[0]} | {cells[1]} |")
    for n in (1, 3):
        all_n = sum(v for (_, size), v in total.items() if size == n)
        ok_n = sum(v for (_, size), v in right.items() if size == n)
        print(f"all, {n} sentence(s): {ok_n}/{all_n} ({ok_n / max(all_n, 1):.1%})")
    for line in wrong[: args.show]:
        print("  " + line)


def _encodes(text: str, codec: str) -> bool:
    try:
        text.encode(codec)
        return True
    except UnicodeEncodeError:
        return False


if __name__ == "__main__":
    main()
