"""`refind import` of the same exports by two versions of refind, interleaved, timed by the CPU time the
import process and its children used as well as by the wall clock: on a machine shared with other work
the wall clock of the same import varies threefold, its CPU time far less (issue 21: import speed before and
after languages from data).

    python bench/import_cpu.py --base /tmp/base-tree EXPORT... [--rounds 3]

``--base`` is a plain copy of the other version's tree (``git archive REV | tar -x -C DIR``), run with the
same interpreter through PYTHONPATH. Exports: e.g. those `bench/import_bench.py --languages en,de` generates.
A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def once(tree: Path, export: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one import into a new home."""
    home = Path(tempfile.mkdtemp(prefix="refind-importcpu-"))
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    cli = [sys.executable, "-c", "from refind_cli.frontends.cli import main; main()"]
    subprocess.run(
        [*cli, "--home", str(home / "h"), "import", "--tz", "UTC", str(export)],
        env=env,
        check=True,
        capture_output=True,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(home)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("exports", type=Path, nargs="+")
    args = ap.parse_args()
    trees = {"base": args.base, "this": ROOT}
    runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for export in args.exports:
            for name, tree in trees.items():
                cpu, wall = once(tree, export)
                runs.setdefault((export.name, name), []).append((cpu, wall))
                print(f"{export.name:<44} {name:<5} cpu {cpu:7.2f} s  wall {wall:7.2f} s", flush=True)
    print("\nmedians (CPU s / wall s), this / base")
    for export in args.exports:
        base = runs[(export.name, "base")]
        this = runs[(export.name, "this")]
        cb, ct = statistics.median(c for c, _ in base), statistics.median(c for c, _ in this)
        wb, wt = statistics.median(w for _, w in base), statistics.median(w for _, w in this)
        print(
            f"{export.name:<44} cpu {cb:.2f} / {ct:.2f} ({ct / cb:.3f}x)  wall {wb:.2f} / {wt:.2f} ({wt / wb:.3f}x)"
        )


if __name__ == "__main__":
    main()
