"""`refind ask --offline` on `make demo`'s question, timed beside its peers in the same run (issue 23: what
reading meaning costs the offline answer).

Each round runs, in turn: bare Python (``python -c pass``), ``refind search`` of the same question, and
``refind ask --offline`` from this checkout and from each ``--tree`` (another checkout, e.g. main's ``git
archive``, run with the same interpreter and packages). Figures: the median wall and CPU (user + system, the
child's) time of each, and each as a ratio of bare Python's; the rounds interleave the commands so a change
of the machine's load falls on all of them alike.

Usage: python bench/ask_latency_bench.py [--home HOME] [--tree DIR ...] [--rounds N]
(HOME: `make demo`'s home, or any home `refind import sample_exports` made; without it, one is made so in a
temporary folder)
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "when did I move the dentist appointment?"


def timed(argv: list[str], tree: Path | None) -> tuple[float, float, str]:
    """Wall and CPU seconds of one run of ``argv``, and its first line of output."""
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True, cwd=tree or ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, (done.stdout.splitlines() or [""])[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, help="a home holding sample_exports (default: made here)")
    ap.add_argument("--tree", type=Path, action="append", default=[], help="another checkout to time beside")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="refind-ask-latency-") as tmp:
        home = args.home
        if home is None:
            home = Path(tmp) / "home"
            made = [
                sys.executable,
                "-m",
                "refind_cli",
                "--home",
                str(home),
                "import",
                "--tz",
                "Europe/Berlin",
            ]
            subprocess.run([*made, str(ROOT / "sample_exports")], capture_output=True, check=True, cwd=ROOT)
        measure(home, args.tree, args.rounds)


def measure(home: Path, trees: list[Path], rounds: int) -> None:
    refind = [sys.executable, "-m", "refind_cli", "--home", str(home)]
    ask = [*refind, "ask", "--offline", "--tz", "Europe/Berlin", QUESTION]
    commands: dict[str, tuple[list[str], Path | None]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], None),
        "search": ([*refind, "search", "dentist appointment", "--tz", "Europe/Berlin", "-k", "3"], ROOT),
        "ask --offline (this checkout)": (ask, ROOT),
        **{f"ask --offline ({tree})": (ask, tree.resolve()) for tree in trees},
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    first: dict[str, str] = {}
    for _ in range(rounds):
        for name, (argv, tree) in commands.items():
            wall, cpu, line = timed(argv, tree)
            runs[name].append((wall, cpu))
            first[name] = line
    base_wall = median(w for w, _ in runs["python -c pass"])
    base_cpu = median(c for _, c in runs["python -c pass"])
    print(f"{rounds} rounds, load {os.getloadavg()[0]:.1f} at the end\n")
    print("| command | wall (median) | CPU (median) | wall / python | CPU / python | first line |")
    print("|---|---:|---:|---:|---:|---|")
    for name, values in runs.items():
        wall, cpu = median(w for w, _ in values), median(c for _, c in values)
        line = first[name][:70].replace("|", "\\|")
        print(
            f"| {name} | {wall:.3f} s | {cpu:.3f} s | {wall / base_wall:.1f}x | {cpu / base_cpu:.1f}x | {line} |"
        )


if __name__ == "__main__":
    main()
