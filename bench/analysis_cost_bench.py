"""What a turn's analysis costs in a language other than English (session 14): µs a turn of
``Analyzer.index_text`` (what an import and a reindex run on every turn), for each language's shipped
analyzer, the same without its head terms (the 5-letter head of session 13), English's analyzer on English
text, and the peer every row is a ratio to: ``str.lower().split()`` of the same texts in the same run.

    python bench/analysis_cost_bench.py [--turns 3000] [--rounds 3] [--langs de,fr,pl,...]

Texts are nobody's here: each language's sentences of Django's catalogs (``tests/catalog_chats.py``, core and
admin), drawn with replacement into ``--turns`` turns of 1 to 3 sentences (a chat repeats its words, as these
do); English is Django's English. "cold" is a new analyzer's first pass (every word learned once), "warm"
the second pass over the same turns (the per-word cache an import keeps); each the best of ``--rounds``, in
CPU seconds of this process (``time.process_time``: the machine is shared, and wall time counts the others'
turns). A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from catalog_chats import catalogs, english, sentences  # noqa: E402

from refind_cli.text.analysis import FULL_STOPWORDS, TRUNCATE, Analyzer, language_analyzer, stemmer_name  # noqa: E402

LANGS = "de,fr,es,ru,pl,fi,hu,tr,ar,he,uk,bg,cy,el,ja,zh,ko"


def turns(pool: list[str], n: int, seed: str) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(pool, k=rng.randint(1, 3))) for _ in range(n)]


def language_pool(lang: str) -> list[str]:
    out: list[str] = []
    for catalog in ("core", "admin"):
        # The catalog's folder of the language, whatever its script or territory ("zh_Hans" for "zh").
        po = next((p for k, p in catalogs(catalog).items() if k.split("_")[0] == lang), None)
        out += sentences(po) if po is not None else []
    return out


def analyzer(lang: str, head: int) -> Analyzer:
    """A new analyzer of ``lang`` as ``analyzer_for`` makes it (English: the default analyzer's settings), with
    ``head`` (0: no head terms); new, so that its word cache starts empty."""
    return Analyzer(FULL_STOPWORDS, name="full") if lang == "en" else language_analyzer(lang, head)


def split_all(texts: list[str]) -> list[list[str]]:
    """The peer: what a search engine without analysis does with a turn."""
    return [t.lower().split() for t in texts]


def timed(run: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        run()
        best = min(best, time.process_time() - t0)
    return best


def cost(texts: list[str], make: Callable[[], Analyzer], rounds: int) -> tuple[float, float, int]:
    """(cold, warm) seconds of ``index_text`` over ``texts``, and the terms made."""
    cold = float("inf")
    for _ in range(rounds):
        fresh = make()
        t0 = time.process_time()
        for t in texts:
            fresh.index_text(t)
        cold = min(cold, time.process_time() - t0)
    warm_one = make()
    for t in texts:
        warm_one.index_text(t)
    warm = timed(lambda: [warm_one.index_text(t) for t in texts], rounds)
    terms = sum(len(warm_one.index_text(t).split()) for t in texts)
    return cold, warm, terms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=3000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--langs", default=LANGS)
    args = ap.parse_args()
    print(f"load before: {os.getloadavg()[0]:.1f}")
    rows = [("en", english("core") + english("admin"))]
    rows += [(lang, language_pool(lang)) for lang in args.langs.split(",")]
    print(
        "lang | stemmer | µs/turn peer lower().split() | cold: shipped, no head (x peer) | warm: shipped,"
        " no head (x peer) | terms/turn shipped, no head"
    )
    for lang, pool in rows:
        if len(pool) < 10:
            print(f"{lang} | too few sentences ({len(pool)})")
            continue
        texts = turns(pool, args.turns, lang)
        peer = timed(partial(split_all, texts), args.rounds)
        shipped = cost(texts, partial(analyzer, lang, TRUNCATE), args.rounds)
        plain = cost(texts, partial(analyzer, lang, 0), args.rounds)
        per = 1e6 / len(texts)
        stem = "porter" if lang == "en" else (stemmer_name(lang) or f"cut {TRUNCATE}")
        print(
            f"{lang} | {stem} | {peer * per:.1f} | {shipped[0] * per:.0f}, {plain[0] * per:.0f}"
            f" ({shipped[0] / peer:.0f}x, {plain[0] / peer:.0f}x) | {shipped[1] * per:.1f}, {plain[1] * per:.1f}"
            f" ({shipped[1] / peer:.1f}x, {plain[1] / peer:.1f}x) | {shipped[2] / len(texts):.1f},"
            f" {plain[2] / len(texts):.1f}"
        )
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
