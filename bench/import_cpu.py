"""`refind import` of the same exports by two versions of refind, interleaved, timed by the CPU time the
import process and its children used as well as by the wall clock: on a machine shared with other work
the wall clock of the same import varies threefold, its CPU time far less (issue 21: import speed before and
after languages from data).

    python bench/import_cpu.py --base /tmp/base-tree EXPORT... [--rounds 3]

``--base`` is a plain copy of the other version's tree (``git archive REV | tar -x -C DIR``), run with the
same interpreter through PYTHONPATH. Exports: e.g. those `bench/import_bench.py --languages en,de` generates.
``--fts5`` adds the peer of issue 26 to the same rounds: a fresh process that reads the export with refind's
own reader and inserts the messages' texts into an SQLite FTS5 table (``porter unicode61``), one commit.
Each run's peak memory is of the process and all its children together (sampled every 20 ms).
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
sys.path.insert(0, str(ROOT / "bench"))
from import_bench import _tree_rss_kb  # noqa: E402

# The peer: refind's reader, then the texts into FTS5, in one process and one transaction.
FTS5_PEER = """
import sqlite3, sys
from datetime import UTC
from pathlib import Path
from refind_cli.importers import read_export
db = sqlite3.connect(sys.argv[2])
db.execute("CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='porter unicode61')")
with db:
    for export in read_export(Path(sys.argv[1]), "auto", UTC):
        db.executemany("INSERT INTO fts (text) VALUES (?)", ((m.text,) for m in export.messages))
"""


def run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak MB of the process and its children together) of one command, run in
    ``cwd``: ``python -c`` puts its working directory first on sys.path, so run from a source tree it would
    import that tree's refind_cli instead of the one PYTHONPATH names."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    process = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while process.poll() is None:
        peak = max(peak, _tree_rss_kb(process.pid))
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    assert process.stderr is not None
    if process.returncode:
        raise SystemExit(f"{cmd} failed:\n{process.stderr.read().decode()[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall, peak / 1024


def once(tree: Path, export: Path) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak MB) of one import into a new home; ``tree`` None: the FTS5 peer."""
    home = Path(tempfile.mkdtemp(prefix="refind-importcpu-"))
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if tree == FTS5:
        env["PYTHONPATH"] = str(ROOT)
        cmd = [sys.executable, "-c", FTS5_PEER, str(export), str(home / "fts.db")]
    else:
        cli = [sys.executable, "-c", "from refind_cli.frontends.cli import main; main()"]
        cmd = [*cli, "--home", str(home / "h"), "import", "--tz", "UTC", str(export)]
    try:
        return run(cmd, env, home)
    finally:
        shutil.rmtree(home)


FTS5 = Path("<fts5>")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--fts5", action="store_true", help="the FTS5 peer in the same rounds")
    ap.add_argument("exports", type=Path, nargs="+")
    args = ap.parse_args()
    trees = {"base": args.base, "this": ROOT} | ({"fts5": FTS5} if args.fts5 else {})
    load = os.getloadavg()[0]
    runs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for _ in range(args.rounds):
        for export in args.exports:
            for name, tree in trees.items():
                cpu, wall, peak = once(tree, export)
                runs.setdefault((export.name, name), []).append((cpu, wall, peak))
                print(
                    f"{export.name:<44} {name:<5} cpu {cpu:7.2f} s  wall {wall:7.2f} s  peak {peak:6.0f} MB",
                    flush=True,
                )
    print(f"\nload average {load:.1f} before, {os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores")
    print("medians (CPU s / wall s / peak MB), base / this (ratio this / base)")
    for export in args.exports:
        med = {
            name: [statistics.median(r[i] for r in runs[(export.name, name)]) for i in range(3)]
            for name in trees
        }
        (cb, wb, pb), (ct, wt, pt) = med["base"], med["this"]
        print(
            f"{export.name:<44} cpu {cb:.2f} / {ct:.2f} ({ct / cb:.3f}x)  wall {wb:.2f} / {wt:.2f}"
            f" ({wt / wb:.3f}x)  peak {pb:.0f} / {pt:.0f} MB"
        )
        if "fts5" in med:
            cf, wf, pf = med["fts5"]
            print(
                f"{'':<44} FTS5 peer cpu {cf:.2f} s wall {wf:.2f} s peak {pf:.0f} MB;"
                f" wall this {wt / wf:.2f}x the peer, base {wb / wf:.2f}x"
            )


if __name__ == "__main__":
    main()
