"""Search in the languages and scripts nobody listed (session 10): every Babel locale's probe chat of
``tests/cldr_chats.py`` (one per language and script, its messages lists of the locale's own CLDR names),
imported through the WhatsApp importer into one home, each chat's language told from its text as an import
does; each needle searched in every form a person would type it (``cldr_chats.variants``) over its own chat,
and counted found when its message is among the first three hits. An emoji chat, drawn from Unicode's emoji
properties, is searched the same way.

    python bench/polyglot_bench.py [--tree DIR] [--scripts Latn,Grek] [--emoji 40] [--held-out]

``--tree`` imports refind from another checkout (``git archive main | tar -x -C DIR``): the peer measured in
the same run. A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ASKED = datetime(2024, 6, 1, 12, tzinfo=UTC)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is measured")
    ap.add_argument("--scripts", default="", help="only locales of these ISO 15924 scripts")
    ap.add_argument("--emoji", type=int, default=40, help="emoji cases of each kind")
    ap.add_argument("--misses", action="store_true", help="print every query not found")
    ap.add_argument("--ask", action="store_true", help="also ask each needle of the offline agent")
    ap.add_argument(
        "--held-out",
        action="store_true",
        help="the held-out probe: chats of currency and unit names, months in day-month dates (MMMMd)",
    )
    args = ap.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    sys.path.insert(1, str(ROOT / "tests"))

    from cldr_chats import (
        emoji_cases,
        emoji_messages,
        held_out_names,
        locale_chat,
        locales,
        month_chat,
        names,
        variants,
        whatsapp_lines,
    )

    from refind_cli.facade import Home
    from refind_cli.operations import AskRequest, ImportOptions
    from refind_cli.request import SearchRequest

    wanted = set(filter(None, args.scripts.split(",")))
    chats = {}
    skipped = 0
    for locale, script in locales().items():
        if wanted and script not in wanted:
            continue
        chat = locale_chat(locale, held_out_names if args.held_out else names)
        if chat is None:
            skipped += 1
        else:
            chats[locale] = chat
    months = {
        locale: chat
        for locale, script in locales().items()
        if (not wanted or script in wanted)
        and (chat := month_chat(locale, "MMMMd" if args.held_out else "")) is not None
    }
    cases = list(emoji_cases("polyglot", args.emoji))
    with tempfile.TemporaryDirectory(prefix="refind-polyglot-") as tmp:
        folder = Path(tmp)
        exports = [
            whatsapp_lines(folder / f"WhatsApp Chat with {locale}.txt", list(chat.messages))
            for locale, chat in chats.items()
        ]
        exports += [
            whatsapp_lines(folder / f"WhatsApp Chat with months {locale}.txt", list(chat.messages))
            for locale, chat in months.items()
        ]
        emoji_chat = emoji_messages(cases, names("en"))
        exports.append(whatsapp_lines(folder / "WhatsApp Chat with emoji.txt", emoji_chat))
        t0 = time.perf_counter()
        with Home.open(folder / "home") as home:
            for result in home.import_files(exports, ImportOptions()):
                if result.error:
                    raise SystemExit(result.error)
            took = time.perf_counter() - t0
            seqs = {c.info.name: (c.info.seq, c.lang) for c in home.chats()}

            def found(title: str, query: str, message: str) -> bool:
                request = SearchRequest(query, k=3, chats=(seqs[title][0],))
                return any(message in hit.turn.text for hit in home.search(request).hits)

            by_script: dict[str, Counter[str]] = defaultdict(Counter)
            by_form: dict[str, Counter[str]] = defaultdict(Counter)
            told_wrong = Counter[str]()
            t1 = time.perf_counter()
            for locale, chat in chats.items():
                lang = seqs[locale][1]
                if lang.split("+")[0] != locale.split("_")[0]:
                    told_wrong[chat.script] += 1
                for needle, at in chat.needles:
                    for form, query in variants(needle, chat).items():
                        hit = found(locale, query, chat.messages[at])
                        by_script[chat.script]["hit" if hit else "miss"] += 1
                        by_form[form]["hit" if hit else "miss"] += 1
                        if not hit and args.misses:
                            print(f"miss {locale} ({lang}) {form}: {query!r} in {chat.messages[at]!r}")
            asked: dict[str, Counter[str]] = defaultdict(Counter)
            for locale, chat in chats.items() if args.ask else ():
                for needle, at in chat.needles:
                    question = AskRequest(f"{needle}?", now=ASKED, tz=UTC, chats=(seqs[locale][0],))
                    notes = home.ask(question).notes
                    hit = any(
                        chat.messages[at] in t.text for n in notes for t in n.turns if t.id == n.hit_turn_id
                    )
                    asked[chat.script]["hit" if hit else "miss"] += 1
                    if not hit and args.misses:
                        print(f"miss ask {locale} ({seqs[locale][1]}): {needle!r} in {chat.messages[at]!r}")
            month_found: dict[str, Counter[str]] = defaultdict(Counter)
            for locale, chat in months.items():
                lang = seqs[f"months {locale}"][1]
                for needle, at in chat.needles:
                    for form, query in (("written", needle), ("lower", needle.lower())):
                        hit = found(f"months {locale}", query, chat.messages[at])
                        month_found[chat.script]["hit" if hit else "miss"] += 1
                        if not hit and args.misses:
                            print(f"miss months {locale} ({lang}) {form}: {query!r} in {chat.messages[at]!r}")
            emoji_found: Counter[str] = Counter()
            for i, case in enumerate(cases):
                hit = found("emoji", case.typed, emoji_chat[i])
                emoji_found[case.kind + (" hit" if hit else " miss")] += 1
                if not hit and args.misses:
                    print(f"miss emoji {case.kind}: {case.typed!r} in {emoji_chat[i]!r}")
            searched = time.perf_counter() - t1

    def rate(c: Counter[str]) -> str:
        n = c["hit"] + c["miss"]
        return f"{c['hit']}/{n} ({c['hit'] / n:.0%})" if n else "-"

    locales_of = Counter(c.script for c in chats.values())
    print(f"tree {args.tree}: {len(chats)} locale chats ({skipped} locales with too few names left out)")
    print(f"import {took:.1f} s, searches {searched:.1f} s")
    total: Counter[str] = Counter()
    print("\nscript | locales | told another language | found")
    for script in sorted(by_script, key=lambda s: (-locales_of[s], s)):
        total.update(by_script[script])
        print(f"{script} | {locales_of[script]} | {told_wrong[script]} | {rate(by_script[script])}")
    print(f"all | {len(chats)} | {sum(told_wrong.values())} | {rate(total)}")
    print("\nform typed | found")
    for form, c in by_form.items():
        print(f"{form} | {rate(c)}")
    if args.ask:
        print("\nasked offline (the needle noted) | found")
        ask_total: Counter[str] = Counter()
        for script in sorted(asked, key=lambda s: (-locales_of[s], s)):
            ask_total.update(asked[script])
            print(f"{script} | {rate(asked[script])}")
        print(f"all | {rate(ask_total)}")
    print("\nmonth named alone, message holds a date | locales | found")
    month_total: Counter[str] = Counter()
    for script, c in sorted(month_found.items()):
        month_total.update(c)
        print(f"{script} | {sum(m.script == script for m in months.values())} | {rate(c)}")
    print(f"all | {len(months)} | {rate(month_total)}")
    print("\nemoji | found")
    for kind in dict.fromkeys(c.kind for c in cases):
        c = Counter({"hit": emoji_found[kind + " hit"], "miss": emoji_found[kind + " miss"]})
        print(f"{kind} | {rate(c)}")


if __name__ == "__main__":
    main()
