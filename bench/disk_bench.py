"""Disk benchmark (issue 26): what a home folder takes beside the export it holds.

Imports a generated WhatsApp export of N messages (bench/import_bench.py's generator) into a new home with
`refind import`, then prints the export's size, the home's (archive and index) and their ratio, the
archive's tables and indexes (SQLite's dbstat) beside the messages' text itself, the archive's size after a
VACUUM (which an import does not run), and for context an FTS5 index of the same turn texts (contentless,
porter stemming) built in the same run beside the tantivy index.

    python bench/disk_bench.py [--messages 1000000] [--workdir bench/out] [--before DIR] [--rounds 3]

``--before DIR``: a folder holding an older refind_cli (git archive BASE refind_cli | tar -x -C DIR), whose
import builds a second home from the same export in the same run, measured the same way; then a copy of that
home is upgraded in place by this tree's migrations (timed, measured), and the same searches run on each
home by its own tree, in-process, interleaved over ``--rounds`` rounds: the median time of a search (top 5
and their windows read from the archive), so that a leaner archive is seen not to make search slower.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import apsw

sys.path.insert(0, str(Path(__file__).parent))
from import_bench import generate

from refind_cli.storage.database import fetch_first

MB = 1e6


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def build(export: Path, home: Path, before: Path | None) -> float:
    """A new home from ``export``; the import's wall time."""
    shutil.rmtree(home, ignore_errors=True)
    env = None if before is None else {**os.environ, "PYTHONPATH": str(before)}
    start = time.perf_counter()
    # The console script as installed (``python -m`` would put the working directory's refind_cli first,
    # ahead of an older one on PYTHONPATH).
    exe = str(Path(sys.executable).with_name("refind"))
    subprocess.run(
        [exe, "--home", str(home), "import", "--tz", "UTC", str(export)],
        check=True,
        stdout=subprocess.DEVNULL,
        env=env,
    )
    return time.perf_counter() - start


def tables(archive: Path) -> list[tuple[str, int]]:
    db = apsw.Connection(str(archive), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [
            (name, n)
            for name, n in db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
            if n >= MB / 10
        ]
    finally:
        db.close()


def fts5_size(home: Path, out: Path) -> int:
    """An FTS5 index of the home's turn texts, contentless (the text lives in the archive, as tantivy's)."""
    from refind_cli.index import INDEXED_CHARS
    from refind_cli.storage.archive import Archive

    out.unlink(missing_ok=True)
    db = apsw.Connection(str(out))
    db.execute("CREATE VIRTUAL TABLE turns USING fts5(text, content='', tokenize='porter')")
    with Archive.open(home, readonly=True) as archive:
        db.execute("BEGIN")
        db.executemany(
            "INSERT INTO turns (text) VALUES (?)",
            ((row[5],) for row in archive.index_rows(None, chars=INDEXED_CHARS)),
        )
        db.execute("COMMIT")
    db.execute("VACUUM")
    db.close()
    return out.stat().st_size


def report(label: str, export: Path, home: Path, seconds: float | None) -> None:
    archive, index = size(home / "archive.db"), size(home / "index")
    total = size(home)
    print(
        f"{label}: home {total / MB:.1f} MB = {total / size(export):.2f}x the export"
        f" (archive {archive / MB:.1f} MB, index {index / MB:.1f} MB"
        + ("" if seconds is None else f"; import {seconds:.0f} s")
        + ")"
    )
    for name, n in tables(home / "archive.db"):
        print(f"    {name:32} {n / MB:7.1f} MB")


# The searches timed: words of the generated chat, frequent to rare.
QUERIES = (
    "dinner",
    "flight lisbon",
    "dentist appointment",
    "keys",
    "birthday cake",
    "train late",
    "job interview offer",
    "coffee tomorrow",
    "the",
    "van",
    "sintra",
    "charger",
    "move flat lease",
    "hamburg weekend",
    "sorry",
)

# Run by each tree on its own home (the tree first on the path): the searches' times, after one to warm up.
_SEARCHES = """
import json, sys, time
from pathlib import Path
from refind_cli.index.tantivy_backend import TantivyIndex
from refind_cli.method.search import search
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive
home, queries = Path(sys.argv[1]), sys.argv[2:]
with Archive.open(home, readonly=True) as archive:
    index = TantivyIndex.open(home)
    search(archive, index, SearchRequest(queries[0]))
    seconds, cpu = [], []
    for query in queries:
        start, used = time.perf_counter(), time.process_time()
        hits = search(archive, index, SearchRequest(query)).hits
        seconds.append(time.perf_counter() - start)
        cpu.append(time.process_time() - used)
        assert all(hit.window for hit in hits)
print(json.dumps([seconds, cpu]))
"""


def searches(home: Path, tree: Path | None) -> tuple[list[float], list[float]]:
    env = {**os.environ, "PYTHONPATH": str(tree)} if tree is not None else None
    # -P: the working folder is not put first on the path (run from a checkout, ``-c`` would import its
    # refind_cli ahead of the older tree on PYTHONPATH).
    out = subprocess.run(
        [sys.executable, "-P", "-c", _SEARCHES, str(home), *QUERIES],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    seconds, cpu = json.loads(out)
    return seconds, cpu


def upgraded(old: Path, copy: Path) -> None:
    """A copy of the older tree's home, upgraded in place by this tree's migrations; its size and time."""
    from refind_cli.storage.archive import Archive

    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(old, copy)
    start, used = time.perf_counter(), time.process_time()
    Archive.open(copy).close()
    print(
        f"upgraded in place (the before home, this tree's migrations and VACUUM):"
        f" {time.perf_counter() - start:.1f} s wall, {time.process_time() - used:.1f} s CPU"
    )


def compare_searches(before_home: Path, before: Path, after_home: Path, rounds: int) -> None:
    runs: dict[str, list[tuple[list[float], list[float]]]] = {"before": [], "after": []}
    for _ in range(rounds):
        runs["before"].append(searches(before_home, before))
        runs["after"].append(searches(after_home, None))
    med = {
        name: (
            statistics.median(t for seconds, _ in got for t in seconds),
            statistics.median(t for _, cpu in got for t in cpu),
        )
        for name, got in runs.items()
    }
    print(
        f"search, {len(QUERIES)} queries x {rounds} rounds interleaved, each tree on its own home, median of a"
        f" query: after {med['after'][0] * 1000:.1f} ms (CPU {med['after'][1] * 1000:.1f}),"
        f" before {med['before'][0] * 1000:.1f} ms (CPU {med['before'][1] * 1000:.1f}):"
        f" {med['after'][0] / med['before'][0]:.2f}x wall, {med['after'][1] / med['before'][1]:.2f}x CPU;"
        f" load average {os.getloadavg()[0]:.1f}"
    )


def vacuumed(archive: Path, copy: Path) -> int:
    shutil.copyfile(archive, copy)
    db = apsw.Connection(str(copy))
    db.execute("VACUUM")
    db.close()
    return size(copy)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    ap.add_argument("--before", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    export = args.workdir / f"startup-{args.messages}.txt"
    if not export.exists():
        generate(export, args.messages)
    home = args.workdir / f"disk-home-{args.messages}"
    seconds = build(export, home, None)
    db = apsw.Connection(str(home / "archive.db"), flags=apsw.SQLITE_OPEN_READONLY)
    texts = fetch_first(db.execute("SELECT sum(length(CAST(text AS BLOB))) FROM messages"), tuple[int])[0]
    db.close()
    print(
        f"{args.messages:,} messages: export {size(export) / MB:.1f} MB, their texts {texts / MB:.1f} MB"
        f" (UTF-8); {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    report("after", export, home, seconds)
    packed = vacuumed(home / "archive.db", args.workdir / "disk-vacuumed.db")
    print(
        f"    after a VACUUM: archive {packed / MB:.1f} MB, home"
        f" {(size(home) - size(home / 'archive.db') + packed) / size(export):.2f}x the export"
    )
    fts = fts5_size(home, args.workdir / "disk-fts5.db")
    tantivy = size(home / "index")
    print(
        f"the same turns' index: FTS5 {fts / MB:.1f} MB, tantivy {tantivy / MB:.1f} MB"
        f" ({tantivy / fts:.2f}x FTS5)"
    )
    if args.before is not None:
        old = args.workdir / f"disk-home-{args.messages}-before"
        report("before", export, old, build(export, old, args.before))
        copy = args.workdir / f"disk-home-{args.messages}-upgraded"
        upgraded(old, copy)
        report("upgraded", export, copy, None)
        compare_searches(old, args.before, home, args.rounds)


if __name__ == "__main__":
    main()
