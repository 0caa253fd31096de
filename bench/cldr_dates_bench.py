"""Dates in the languages nobody listed (session 15): every case of ``tests/cldr_date_cases.py`` (CLDR's own
words and formats of 324 languages, English and the six with tables of their own left out) read by
``refind_cli.dates.cldr.find`` as the offline answer reads a noted sentence; read right when the first range
found is the days the case names. Counts by kind, and by language with ``--by-lang``.

    python bench/cldr_dates_bench.py [--tree DIR] [--half tune|held] [--langs pl,hu] [--misses] [--by-lang]
        [--other-text N]
    python bench/cldr_dates_bench.py --ask [--tree DIR] [--half tune|held] [--langs pl,hu] [--misses]

``--half held`` is the held-out half (fixed by a CRC32 of the language code before any figure): print its
totals only, never its misses, while tuning. ``--tree`` reads refind from another checkout (``git archive
main | tar -x -C DIR``): the peer measured in the same run. ``--other-text N`` also reads up to N sentences of
each language's GNU/GNOME catalogs on this machine (``tests/system_catalog_chats.py``: menus, errors, help,
not about dates) and counts those where a date is found, the price of reading more words as dates (some
are dates: "Monday" in a calendar's strings); with ``--misses`` (tune half) it shows them.
``--ask`` runs the user's path instead: for each language of the half that this machine's GNU/GNOME catalogs
have, a chat of its catalog sentences, a message a day (``cldr_date_cases.ask_chat``), imported by ``refind
import``; three needles' messages end with "yesterday", "last <weekday>" and a date in the long format, as
CLDR writes them, and each is asked for by ``refind ask --offline`` in the language ("<needle> <day>?"):
right when the answer's first line names the expression's day and cites the needle's message. And the
second needle asked with the language's "yesterday" the day after it was said, against a copy of its message
said 40 days later: right when the answer cites the message of that day (the question's time is a filter).
A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from datetime import UTC
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cldr_date_cases import NOW, DateCase, all_cases  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is measured")
    ap.add_argument("--half", choices=("tune", "held"), default="tune")
    ap.add_argument("--misses", action="store_true", help="list every miss (never for --half held)")
    ap.add_argument("--by-lang", action="store_true", help="a line per language")
    ap.add_argument("--ask", action="store_true", help="refind ask --offline end to end")
    ap.add_argument("--langs", default="", help="only these languages of the half")
    ap.add_argument("--other-text", type=int, default=0, metavar="N", help="N catalog sentences a language")
    args = ap.parse_args()
    only = set(filter(None, args.langs.split(",")))
    if args.ask:
        ask(args.tree, args.half, args.misses and args.half != "held", only)
        return
    sys.path.insert(0, str(args.tree.resolve()))
    from refind_cli.dates import cldr

    cases = [c for c in all_cases(args.half) if not only or c.lang in only]
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    by_lang: Counter[str] = Counter()
    langs: Counter[str] = Counter()
    t0 = time.process_time()
    misses: list[tuple[DateCase, str]] = []
    for case in cases:
        found = cldr.find(case.sentence, now=NOW, tz=UTC, lang=case.lang)
        read = (found[0].start.date(), found[0].end.date()) if found else None
        ok = read == (case.first, case.last)
        total[case.kind] += 1
        langs[case.lang] += 1
        if ok:
            right[case.kind] += 1
            by_lang[case.lang] += 1
        else:
            misses.append((case, f"{read} {found[0].text!r}" if found else "nothing"))
    took = time.process_time() - t0
    print(f"tree {args.tree}, half {args.half}: {len(langs)} languages, {len(cases)} cases, {took:.1f} s CPU")
    for kind in sorted(total):
        print(f"  {kind:24} {right[kind]:5}/{total[kind]:<5} ({right[kind] / total[kind]:.1%})")
    n = sum(right.values())
    print(f"  {'all':24} {n:5}/{len(cases):<5} ({n / len(cases):.1%})")
    full = sum(1 for lang in langs if by_lang[lang] == langs[lang])
    print(f"  languages with every case read right: {full}/{len(langs)}")
    if args.by_lang:
        for lang in sorted(langs):
            print(f"  {lang:6} {by_lang[lang]:3}/{langs[lang]}")
    if args.misses and args.half != "held":
        for case, got in misses:
            print(
                f"  MISS {case.lang} {case.kind}: {case.sentence!r} want {case.first}..{case.last}, got {got}"
            )
    if args.other_text:
        other_text(cldr, args.half, args.other_text, args.misses and args.half != "held")


def other_text(cldr: Any, which: str, most: int, show: bool) -> None:
    from cldr_date_cases import LISTED, half
    from system_catalog_chats import folders, sentences

    read = dated = 0
    langs = 0
    for name, mos in folders().items():
        lang = name.split("_")[0]
        if lang in LISTED or half(lang) != which:
            continue
        langs += 1
        for text in sentences(mos)[:most]:
            read += 1
            found = cldr.find(text, now=NOW, tz=UTC, lang=lang)
            if found:
                dated += 1
                if show:
                    print(f"  DATED {name}: {found[0].text!r} in {text[:90]!r}")
    print(f"  other text: {dated}/{read} catalog sentences of {langs} languages read as holding a date")


def ask(tree: Path, which: str, show: bool, langs: set[str]) -> None:
    """``--ask``: the offline answer end to end, through refind of ``tree``."""
    import json
    import tempfile

    sys.path.insert(0, str(ROOT / "bench"))
    from catalog_bench import refind
    from cldr_date_cases import LISTED, AskChat, ask_chat, half, whatsapp_dated
    from system_catalog_chats import folders, sentences

    chats: dict[str, AskChat] = {}
    for name, mos in folders().items():
        lang = name.split("_")[0]
        if lang not in LISTED and half(lang) == which and name == lang and (not langs or lang in langs):
            made = ask_chat(lang, sentences(mos))
            if made is not None:
                chats[lang] = made
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="refind-askdates-") as tmp:
        folder, home = Path(tmp) / "exports", Path(tmp) / "home"
        folder.mkdir()
        for lang, made in chats.items():
            whatsapp_dated(folder / f"WhatsApp Chat with {lang}.txt", made.messages)
        refind(tree, home, "import", "--tz", "UTC", str(folder))
        told = {c["name"]: c["lang"] for c in json.loads(refind(tree, home, "chats", "--json"))["chats"]}
        for lang, made in chats.items():
            for kind, question, now, want, at in made.questions:
                out = refind(
                    tree, home, "ask", "--offline", "--json", "-q", "--tz", "UTC", "--now",
                    f"{now.isoformat()}T12:00", "--chat", lang, question,
                )  # fmt: skip
                result = json.loads(out)
                first = result["answer"].splitlines()[0] if result["answer"] else ""
                cited = result["citations"][0] if result["citations"] else {}
                said = made.messages[at][0].isoformat()
                ok = cited.get("timestamp", "")[:10] == said and (
                    kind == "time filter" or first.startswith(f"{want.day} {want:%B %Y}")
                )
                total[kind] += 1
                right[kind] += ok
                if show and not ok:
                    print(
                        f"  MISS {lang} (told {told.get(lang)}) {kind}: {question!r} want {want}, {first[:110]!r}"
                    )
    took = time.perf_counter() - t0
    print(f"tree {tree}, half {which}: refind ask --offline, {len(chats)} languages, {took:.0f} s")
    for kind in sorted(total):
        print(f"  {kind:24} {right[kind]:4}/{total[kind]}")
    n, all_ = sum(right.values()), sum(total.values())
    print(f"  {'all':24} {n:4}/{all_} ({n / max(all_, 1):.1%})")


if __name__ == "__main__":
    main()
