"""Dates read in the language a chat is told to be in (session 16): for each language of a set of
``tests/identified_date_cases.py``, its text told by ``language.detect`` as an import tells a chat, then every
CLDR date case of the language (``tests/cldr_date_cases.py``) read by ``dates.cldr.find_any`` in the language
told; right when the first range found is the days the case names. Totals for the languages told as
themselves and told as another, and by the language's script.

    python bench/identified_dates_bench.py [--tree DIR] [--set tune|held|catalog] [--langs yi,tt] [--misses]
        [--by-lang]

``--set held`` and ``--set catalog`` are held out: print their totals only while tuning. ``--tree`` reads
refind from another checkout (``git archive main | tar -x -C DIR``), the peer measured in the same run.
A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from datetime import UTC
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cldr_date_cases import NOW, cases  # noqa: E402
from identified_date_cases import SETS, texts  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is measured")
    ap.add_argument("--set", choices=SETS, default="tune")
    ap.add_argument("--misses", action="store_true", help="list every miss (tune only)")
    ap.add_argument("--by-lang", action="store_true", help="a line per language")
    ap.add_argument("--langs", default="", help="only these languages of the set")
    args = ap.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from refind_cli.dates import cldr
    from refind_cli.text.language import detect
    from refind_cli.text.scripts_data import SCRIPTS

    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    t0 = time.process_time()
    lines: list[str] = []
    only = set(filter(None, args.langs.split(",")))
    for lang, text in sorted(texts(args.set).items()):
        if only and lang not in only:
            continue
        told = detect([text])
        group = "told as itself" if lang in told.split("+") else "told as another"
        script = SCRIPTS.get(lang, "?").split()[0]
        ok = n = 0
        for case in cases(lang):
            found = cldr.find_any(case.sentence, now=NOW, tz=UTC, lang=told)
            read = (found[0].start.date(), found[0].end.date()) if found else None
            n += 1
            hit = read == (case.first, case.last)
            ok += hit
            right[f"{group}: {case.kind}"] += hit
            total[f"{group}: {case.kind}"] += 1
            if not hit and args.misses and args.set == "tune":
                got = f"{read} {found[0].text!r}" if found else "nothing"
                lines.append(
                    f"  MISS {lang}->{told} {case.kind}: {case.sentence!r} want {case.first}, got {got}"
                )
        for key in ("all", group, f"script {script}"):
            right[key] += ok
            total[key] += n
        right[f"langs {group}"] += 1
        if args.by_lang:
            lines.append(f"  {lang:5} told {told:6} {ok:3}/{n}")
    took = time.process_time() - t0
    print(f"tree {args.tree}, set {args.set}: {took:.1f} s CPU")
    itself, other = right["langs told as itself"], right["langs told as another"]
    print(f"  languages told as themselves {itself}, as another {other}")
    for key in sorted(total, key=lambda k: (k != "all", k)):
        print(f"  {key:40} {right[key]:5}/{total[key]:<5} ({right[key] / total[key]:.1%})")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
