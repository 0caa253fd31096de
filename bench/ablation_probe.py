"""Files other tools rewrite: every sample export with each field removed, nulled or retyped, keys added or
reordered, CSV columns moved or re-separated, pages saved again, files of a folder dropped
(``tests/ablation_variants.py``), each read as ``refind import`` reads it and held to the rule there. Prints
the variants that break it, per format and per kind of change.

    .venv/bin/python bench/ablation_probe.py [--tree DIR] [--show N] [--formats chatgpt,discord] [--timeout S]

``--tree`` reads with another checkout's refind (``git archive main | tar -x -C DIR``): the peer measured in
the same run, on the variants this checkout's generator makes. A variant whose reading takes longer than
``--timeout`` seconds counts as a hang.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent


class Hang(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is measured")
    parser.add_argument("--show", type=int, default=10)
    parser.add_argument("--formats", help="only these, comma-separated")
    parser.add_argument("--kinds", help="only these kinds of change, comma-separated")
    parser.add_argument(
        "--set",
        choices=("all", "fields", "rewrites", "unseen", "held-out-15", "held-out-16", "held-out-16b"),
        default="all",
        help="fields: each field changed (ablation_variants); rewrites: whole files rewritten (rewrite_variants); "
        "unseen: rewrites written after the importers were tuned (unseen_variants; not in all); held-out-15: "
        "session 15's family of tools' rewrites (unseen_variants.held_out_15; not in all); held-out-16: session "
        "16's (held_out_16); held-out-16b: written after its fixes (held_out_16b)",
    )
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()
    sys.path[:0] = [str(args.tree.resolve()), str(ROOT / "tests")]
    import ablation_variants as av
    import rewrite_variants as rv
    import unseen_variants as uv

    started = time.perf_counter()
    held: dict[av.Variant, uv.Unseen] = {}
    families = {
        "unseen": uv.variants,
        "held-out-15": uv.held_out_15,
        "held-out-16": uv.held_out_16,
        "held-out-16b": uv.held_out_16b,
    }
    if args.set in families:
        held = {u.variant: u for u in families[args.set]()}
        every = tuple(held)
    else:
        every = (av.variants() if args.set != "rewrites" else ()) + (
            rv.variants() if args.set != "fields" else ()
        )
    chosen = [
        v
        for v in every
        if (not args.formats or v.format in args.formats.split(","))
        and (not args.kinds or v.kind in args.kinds.split(","))
    ]
    failed: list[tuple[av.Variant, str]] = []
    outcomes: Counter[str] = Counter()  # read / refused (where it may be) / refused (all was there) / wrong
    signal.signal(signal.SIGALRM, _alarm)
    with tempfile.TemporaryDirectory() as tmp:
        for n, variant in enumerate(chosen):
            signal.setitimer(signal.ITIMER_REAL, args.timeout)
            try:
                work = Path(tmp) / str(n)
                if variant in held:
                    how, wrong = uv.outcome(held[variant], work)
                    if how == "refused":
                        how += " (it may be)" if held[variant].may_refuse else " (all it needs was there)"
                        wrong = None if held[variant].may_refuse else f"refused: {wrong}"
                    elif how == "wrong":
                        how += (
                            ", said in a warning" if "(said in a warning: " in (wrong or "") else ", silently"
                        )
                    outcomes[how] += 1
                else:
                    wrong = av.check(variant, work)
            except Hang:
                wrong = f"hang: no answer in {args.timeout:g} s"
                outcomes["wrong"] += 1
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if wrong:
                failed.append((variant, wrong))
    seconds = time.perf_counter() - started
    print(f"refind from {args.tree}: {len(chosen) - len(failed)} of {len(chosen)} variants keep the rule")
    print(f"({seconds:.1f} s; lossy variants: {sum(v.lossy for v in chosen)})")
    _table("format", Counter(v.format for v in chosen), Counter(v.format for v, _ in failed))
    _table("kind", Counter(v.kind for v in chosen), Counter(v.kind for v, _ in failed))
    if outcomes:
        print("outcomes: " + ", ".join(f"{k} {n}" for k, n in sorted(outcomes.items())))
    what = Counter(w.split(":", 1)[0] for _, w in failed)
    print("failures by what went wrong: " + ", ".join(f"{k} {n}" for k, n in what.most_common()))
    for variant, wrong in failed[: args.show]:
        print(f"  {variant.export}: {variant.name}{' (lossy)' if variant.lossy else ''}: {wrong[:200]}")


def _table(by: str, total: Counter[str], failed: Counter[str]) -> None:
    print(f"\n| {by} | variants | failing |\n|---|---|---|")
    for key in sorted(total):
        print(f"| {key} | {total[key]} | {failed[key]} |")
    print()


if __name__ == "__main__":
    main()
