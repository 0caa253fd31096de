"""Bigrams of scripts written without spaces (session 15): what a query of one name matches that does not
hold it. Each Babel locale of these scripts gives its own names (``tests/cldr_chats.names``: territories,
languages, months, weekdays); every name is a query, and every other name of the locale a text. A text
matches when it holds all the query's terms (as a search's AND of bigrams would); it is a false match when
it does not hold the name as written; and of the texts that hold it as written, how many it matches (a
bigram split another way would miss them). Also counted: terms that start on a combining mark (a tone mark, a
vowel sign, Myanmar's asat), which a highlight would start on. Session 15 measured with it a variant whose
bigrams were of whole letters (a letter with its marks; commit 84ce7ab, reverted by f280032: fewer false
matches, but fewer true ones too).

    python bench/bigram_units_bench.py [--tree DIR] [--scripts Thai,Laoo,Khmr,Mymr]

``--tree`` reads refind from another checkout (``git archive main | tar -x -C DIR``): the peer measured in
the same run. A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from cldr_chats import locales, names  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is measured")
    ap.add_argument("--scripts", default="Thai,Laoo,Khmr,Mymr,Lana,Tale,Cakm,Bali,Java")
    args = ap.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    from refind_cli.text.analysis import analyzer_for

    wanted = set(args.scripts.split(","))
    print(f"tree {args.tree}")
    print(
        "script | locales | queries | texts matched | of them false | texts holding a query | of them matched | terms | starting on a mark"
    )
    for script in sorted(wanted):
        picked = [loc for loc, s in locales().items() if s == script]
        queries = matched = false = terms = marked = holding = found = 0
        for locale in picked:
            analyzer = analyzer_for(locale.split("_")[0])
            pool = [unicodedata.normalize("NFC", n) for n in names(locale)]
            analysed = [set(analyzer.analyze(n)) for n in pool]
            for own in analysed:
                terms += len(own)
                marked += sum(unicodedata.category(t[0])[0] == "M" for t in own)
            for i, query in enumerate(pool):
                wanted_terms = analysed[i]
                if not wanted_terms:
                    continue
                queries += 1
                for j, text in enumerate(pool):
                    hit = j != i and wanted_terms <= analysed[j]
                    matched += hit
                    false += hit and query not in text
                    holding += j != i and query in text
                    found += hit and query in text
        if picked:
            row = (script, len(picked), queries, matched, false, holding, found, terms, marked)
            print(" | ".join(map(str, row)))


if __name__ == "__main__":
    main()
