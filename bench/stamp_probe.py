"""Line-log stamps in every CLDR locale: how many of Babel's locales' WhatsApp exports (Android and iOS
shapes, the locale's hour cycle and the other one; ``tests/stamp_chats.py``) the importer reads right, as
generated and as other tools rewrite them.

    .venv/bin/python bench/stamp_probe.py [--tree DIR] [--held-out | --tuned] [--show N]

A locale reads right when all four of its exports do, with every rewrite. ``--held-out``: only the
locales held out from tuning (the languages whose name hashes odd, ``held_out``); the rest were looked at
while fixing. ``--tree`` reads with another checkout's refind (``git archive main | tar -x -C DIR``): the
peer measured in the same run. Prints the counts and the first ``N`` failures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

from babel.core import parse_locale

ROOT = Path(__file__).resolve().parent.parent


def held_out(locale: str) -> bool:
    """Languages held out from tuning: those whose code's CRC-32 is odd (about half, fixed, not chosen)."""
    return zlib.crc32(parse_locale(locale)[0].encode()) % 2 == 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--tuned", action="store_true", help="only the locales looked at while fixing")
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is measured")
    args = parser.parse_args()
    sys.path[:0] = [str(args.tree.resolve()), str(ROOT / "tests")]
    from stamp_chats import REWRITES, SHAPES, case, check, locales

    chosen = [
        loc
        for loc in locales()
        if (not args.held_out or held_out(loc)) and (not args.tuned or not held_out(loc))
    ]
    started = time.perf_counter()
    right = 0
    by_shape: Counter[str] = Counter()
    by_rewrite: Counter[str] = Counter()
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for locale in chosen:
            ok = True
            for shape in SHAPES:
                c = case(locale, shape)
                for rewrite in REWRITES:
                    problems = check(c, folder, rewrite)
                    if problems:
                        ok = False
                        by_shape[shape] += 1
                        by_rewrite[rewrite] += 1
                        if len(failures) < args.show:
                            failures.append(f"{locale} {shape} {rewrite}: {c.first_stamp!r}: {problems[0]}")
            right += ok
    took = time.perf_counter() - started
    cases = len(chosen) * len(SHAPES) * len(REWRITES)
    which = "held-out " if args.held_out else "tuned " if args.tuned else ""
    print(f"tree {args.tree}")
    print(f"{which}locales whose exports read right: {right} of {len(chosen)} ({took:.1f} s, {cases} files)")
    print("failing files by shape:", dict(by_shape) or "none")
    print("failing files by rewrite:", dict(by_rewrite) or "none")
    for line in failures:
        print("  " + line)


if __name__ == "__main__":
    main()
