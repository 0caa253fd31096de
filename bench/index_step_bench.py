"""The index step of a first import by two versions of refind, interleaved: what `refind import` does once the
archive is committed (the index built from every turn, then or meanwhile the archive compacted), and the
analysing process's share of it (every turn read from the archive and analysed), each timed by CPU and wall.

    python bench/index_step_bench.py --base /tmp/base-tree [--messages 1000000] [--rounds 3] [--workdir DIR]
    python bench/index_step_bench.py --base /tmp/base-tree --home HOME   # a home imported before

A generated WhatsApp export (``import_bench.generate``) is imported once by this tree; each round, each tree in
a fresh process (``--base``: a plain copy of the other version's tree, ``git archive REV | tar -x -C DIR``, run
through PYTHONPATH with ``python -P``) builds the index of a copy of that home without its index, and reads
and analyses every turn in the process (the work the analysing child does). CPU is of the process and its
children. A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from import_bench import generate  # noqa: E402

# Run by each tree: the index step of a home whose index is gone, as `refind import` runs it after its commit.
STEP = """
import inspect, resource, sys, time
from pathlib import Path
from refind_cli.facade import Home
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
home = Home.open(Path(sys.argv[1]))
with home._writing() as archive:
    index = home._open_index_for_writing()
    c0, w0 = cpu(), time.perf_counter()
    if "meanwhile" in inspect.signature(index.sync).parameters:
        n = index.sync(archive, meanwhile=archive.compact)
    else:
        n = index.sync(archive)
        archive.compact()
    print(n, cpu() - c0, time.perf_counter() - w0)
"""
# The analysing child's work, in this process: every turn read and analysed.
READ = """
import sys, time
from pathlib import Path
from refind_cli.index.analysed import _analysed
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import DEFAULT_ANALYZER
archive = Archive(Path(sys.argv[1]) / "archive.db", readonly=True)
c0, w0 = time.process_time(), time.perf_counter()
with archive.snapshot():
    n = sum(1 for _ in _analysed(archive, None, DEFAULT_ANALYZER, {}, True))
print(n, time.process_time() - c0, time.perf_counter() - w0)
"""


def measure(code: str, tree: Path, home: Path) -> tuple[int, float, float]:
    """(turns, CPU s, wall s) as the snippet prints them, run by ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-P", "-c", code, str(home)],
        env=env,
        cwd=home.parent,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        raise SystemExit(f"{tree}: failed:\n{out.stderr[-2000:]}")
    n, cpu, wall = out.stdout.split()
    return int(n), float(cpu), float(wall)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out" / "index_step")
    ap.add_argument("--home", type=Path, help="a home imported before, instead of a generated export's")
    args = ap.parse_args()
    work = args.workdir
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    home = args.home or work / "home"
    if args.home is None:
        export = work / "WhatsApp Chat with Bench.txt"
        generate(export, args.messages)
        cli = [sys.executable, "-c", "from refind_cli.frontends.cli import main; main()"]
        subprocess.run(
            [*cli, "--home", str(home), "import", "--tz", "UTC", str(export)], check=True, cwd=ROOT
        )
    trees = {"base": args.base.resolve(), "this": ROOT}
    load = os.getloadavg()[0]
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            copy = work / f"home-{name}"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(home, copy, ignore=shutil.ignore_patterns("index"))
            n, cpu, wall = measure(STEP, tree, copy)
            figures.setdefault(("step", name), []).append((cpu, wall))
            print(f"{name:<5} index step ({n} turns)  cpu {cpu:6.2f} s  wall {wall:6.2f} s", flush=True)
            n, cpu, wall = measure(READ, tree, copy)
            figures.setdefault(("read", name), []).append((cpu, wall))
            print(f"{name:<5} read and analyse ({n} turns)  cpu {cpu:6.2f} s  wall {wall:6.2f} s", flush=True)
    print(f"\nload average {load:.1f} before, {os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores")
    print("medians: base / this (ratio this / base)")
    for what, label in (("step", "index step"), ("read", "read and analyse")):
        (cb, wb), (ct, wt) = (
            [statistics.median(f[i] for f in figures[(what, name)]) for i in range(2)] for name in trees
        )
        print(
            f"{label:<18} cpu {cb:.2f} / {ct:.2f} s ({ct / cb:.3f}x)  wall {wb:.2f} / {wt:.2f} s ({wt / wb:.3f}x)"
        )


if __name__ == "__main__":
    main()
