"""Disk benchmark (issue 26): what a home folder takes beside the export it holds.

Imports a generated WhatsApp export of N messages (bench/import_bench.py's generator) into a new home with
`refind import`, then prints the export's size, the home's (archive and index) and their ratio, the
archive's tables and indexes (SQLite's dbstat) beside the messages' text itself, and for context an FTS5
index of the same turn texts (contentless, porter stemming) built in the same run beside the tantivy index.

    python bench/disk_bench.py [--messages 1000000] [--workdir bench/out] [--before DIR]

``--before DIR``: a folder holding an older refind_cli (git archive BASE refind_cli | tar -x -C DIR), whose
import builds a second home from the same export in the same run, measured the same way.
"""

from __future__ import annotations

import argparse
import os
import shutil
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


def report(label: str, export: Path, home: Path, seconds: float) -> None:
    archive, index = size(home / "archive.db"), size(home / "index")
    total = size(home)
    print(
        f"{label}: home {total / MB:.1f} MB = {total / size(export):.2f}x the export"
        f" (archive {archive / MB:.1f} MB, index {index / MB:.1f} MB; import {seconds:.0f} s)"
    )
    for name, n in tables(home / "archive.db"):
        print(f"    {name:32} {n / MB:7.1f} MB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    ap.add_argument("--before", type=Path)
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
    fts = fts5_size(home, args.workdir / "disk-fts5.db")
    tantivy = size(home / "index")
    print(
        f"the same turns' index: FTS5 {fts / MB:.1f} MB, tantivy {tantivy / MB:.1f} MB"
        f" ({tantivy / fts:.2f}x FTS5)"
    )
    if args.before is not None:
        old = args.workdir / f"disk-home-{args.messages}-before"
        report("before", export, old, build(export, old, args.before))


if __name__ == "__main__":
    main()
