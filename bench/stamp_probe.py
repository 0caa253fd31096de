"""Line-log stamps in every CLDR locale: how many of Babel's locales' WhatsApp exports (Android and iOS
shapes, the locale's hour cycle and the other one; ``tests/stamp_chats.py``) the importer reads right, as
generated and as other tools rewrite them.

    .venv/bin/python bench/stamp_probe.py [--tree DIR] [--held-out] [--show N] [--table] [--locales de,ko]

``--line``: LINE exports with each locale's own times instead (``line_export``).

A locale reads right when all four of its exports do, with every rewrite. ``--held-out``: exports never
looked at while the reader was fixed: each locale's ``yMd`` date pattern (Android's
``DateFormat.getDateFormat``) instead of its short one, at moments drawn at random (seeded by the locale)
instead of the probe's. ``--tree`` reads with another checkout's refind (``git archive main | tar -x -C DIR``): the
peer measured in the same run. Prints the counts and the first ``N`` failures. ``--table``: whether the
shipped ``refind_cli/dates/stampwords_data.py`` is what Babel's CLDR data gives now, whole.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is measured")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--locales", help="only these, comma-separated (all of Babel's by default)")
    parser.add_argument("--line", action="store_true", help="LINE exports with each locale's times instead")
    args = parser.parse_args()
    sys.path[:0] = [str(args.tree.resolve()), str(ROOT / "tests")]
    if args.table:
        from refind_cli.dates import stampwords, stampwords_data

        periods, groups, literals = stampwords.generate()
        same = (periods, groups, literals) == (
            stampwords_data.PERIODS,
            stampwords_data.GROUPS,
            stampwords_data.LITERALS,
        )
        print(f"shipped table is Babel's: {same} ({len(periods)} words, {len(groups)} locale groups)")
        return
    from stamp_chats import REWRITES, SHAPES, case, check, locales, moments, readable

    chosen = args.locales.split(",") if args.locales else list(locales())
    if args.line:
        line_files(chosen, args.show)
        return
    started = time.perf_counter()
    right = unreadable = files = files_right = 0
    by_shape: Counter[str] = Counter()
    by_rewrite: Counter[str] = Counter()
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for locale in chosen:
            ok = True
            for shape in SHAPES:
                if not readable(locale, shape):
                    unreadable += 1
                    continue
                c = case(locale, shape, moments(locale), "yMd") if args.held_out else case(locale, shape)
                for rewrite in REWRITES:
                    problems = check(c, folder, rewrite)
                    files += 1
                    files_right += not problems
                    if problems:
                        ok = False
                        by_shape[shape] += 1
                        by_rewrite[rewrite] += 1
                        if len(failures) < args.show:
                            failures.append(f"{locale} {shape} {rewrite}: {c.first_stamp!r}: {problems[0]}")
            right += ok
    took = time.perf_counter() - started
    which = "held-out " if args.held_out else ""
    print(f"tree {args.tree}")
    print(f"{which}locales whose exports read right: {right} of {len(chosen)}")
    print(
        f"{which}files read right: {files_right} of {files} ({took:.1f} s, {time.process_time():.1f} s CPU)"
    )
    print(f"exports left out as unreadable (12-hour times without AM/PM in CLDR): {unreadable}")
    print("failing files by shape:", dict(by_shape) or "none")
    print("failing files by rewrite:", dict(by_rewrite) or "none")
    for line in failures:
        print("  " + line)


def line_files(chosen: list[str], show: int) -> None:
    """LINE exports (``stamp_chats.line_export``) of each locale's times in both hour cycles."""
    from stamp_chats import check_line, line_export, readable

    started = time.perf_counter()
    files = right = 0
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for locale in chosen:
            for shape in ("android", "android-other-cycle"):
                if not readable(locale, shape):
                    continue
                problems = check_line(line_export(locale, shape), Path(tmp))
                files += 1
                right += not problems
                if problems and len(failures) < show:
                    failures.append(f"{locale} {shape}: {problems[0]}")
    took = time.perf_counter() - started
    print(f"LINE files read right: {right} of {files} ({took:.1f} s, {time.process_time():.1f} s CPU)")
    for line in failures:
        print("  " + line)


if __name__ == "__main__":
    main()
