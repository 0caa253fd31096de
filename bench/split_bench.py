"""How fast the analyzer reads text beyond Latin (issue 26 item 3): this tree beside an older one, in the same
rounds. Each round runs, in a new process per tree, a fresh analyzer's ``index_text`` over every text of a
set, and times it (CPU); the first text a process reads also times the start of the Unicode classes (the
``regex`` module's import and compiles before session 12, the generated table's after).

Sets: the LongMemEval-S turns (``--data``) that hold a character from the combining marks on (smart quotes,
emoji, accents beyond Latin-1); lines of CLDR's names of territories in twelve scripts (Babel), each read by
its language's analyzer.

    python bench/split_bench.py --before DIR [--rounds 5]   (DIR: git archive BASE refind_cli | tar -x -C DIR)
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path("/work/shared/data/longmemeval_s_dev60.jsonl.gz")
LANGS = ("ru", "ja", "zh", "ar", "hi", "th", "el", "he", "ko", "ta", "am", "ka")

# Run in each tree's process: reads the sets as JSON on stdin, prints the CPU seconds of each.
CHILD = """
import json, sys, time
t = time.process_time()
from refind_cli.text.analysis import DEFAULT_ANALYZER, analyzer_for
DEFAULT_ANALYZER.index_text(sys.argv[1])
first = time.process_time() - t
sets = json.load(sys.stdin)
out = {"first text (import and start)": first}
for name, (lang, texts) in sets.items():
    analyzer = analyzer_for(lang)
    analyzer._cache.clear()
    analyzer._index_cache.clear()
    t = time.process_time()
    for text in texts:
        analyzer.index_text(text)
    out[name] = time.process_time() - t
print(json.dumps(out))
"""


def sets(data: Path) -> dict[str, tuple[str, list[str]]]:
    import babel

    turns: list[str] = []
    with gzip.open(data, "rt", encoding="utf-8") as fh:
        for line in fh:
            for session in json.loads(line).get("haystack_sessions", []):
                turns.extend(t["content"] for t in session if any(ord(c) >= 0x300 for c in t["content"]))
    out: dict[str, tuple[str, list[str]]] = {
        f"LongMemEval-S turns beyond Latin ({len(turns)})": ("en", turns)
    }
    rng = random.Random(7)
    for lang in LANGS:
        names = list(babel.Locale.parse(lang).territories.values())
        out[f"CLDR names, {lang} (300 lines)"] = (
            lang,
            [" ".join(rng.choice(names) for _ in range(12)) for _ in range(300)],
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="a folder holding an older refind_cli")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args()
    payload = json.dumps(sets(args.data))
    trees = {"after": ROOT, "before": args.before}
    for path in trees.values():  # compiled once, as an install is: bytecode writing may be off
        compileall.compile_dir(path / "refind_cli", quiet=1)
    cpu: dict[tuple[str, str], list[float]] = {}
    load = os.getloadavg()[0]
    for _ in range(args.rounds):
        for tree, path in trees.items():
            done = subprocess.run(
                [sys.executable, "-P", "-c", CHILD, "Zoë 👍 ok"],
                input=payload,
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONPATH": str(path)},
            )
            for name, seconds in json.loads(done.stdout).items():
                cpu.setdefault((name, tree), []).append(seconds)
    print(
        f"{args.rounds} rounds interleaved, CPU medians; load average {load:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    for name in dict.fromkeys(name for name, _ in cpu):
        after, before = (statistics.median(cpu[(name, tree)]) * 1000 for tree in trees)
        print(f"{name:45} {after:8.1f} ms  before {before:8.1f} ms  {after / before:.2f}x")


if __name__ == "__main__":
    main()
