"""Issue 24, item 4 (session 10): what storing one huge text costs SQLite's process, by the way it is written.

    python bench/huge_insert_ways.py WAY [--mb 50]     (WAY: plain, zeroblob, func, append, agg)

One row into a table of the messages' shape (the text between other columns), in a transaction of a WAL
database in a temporary folder. Prints the peak RSS over the process's RSS before it (``/proc/self/clear_refs``
resets the peak; Linux only) and the time. Run each way in a process of its own.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
from pathlib import Path

import apsw

MB = 1 << 20
PIECE = "all work and no play makes jack a dull boy " * (MB // 43)


def status(field: str) -> float:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(field)) / 1024


def insert(db: apsw.Connection, way: str, pieces: int) -> None:
    row = "INSERT INTO m VALUES (1, 'a', {}, 'r', 5)"
    if way == "plain":
        db.execute(row.format("?"), (PIECE * pieces,))
    elif way == "zeroblob":
        db.execute(row.format("CAST(zeroblob(?) AS TEXT)"), (len(PIECE) * pieces,))
        with db.blob_open("main", "m", "text", 1, True) as blob:
            for _ in range(pieces):
                blob.write(PIECE.encode())
    elif way == "func":
        held = [PIECE * pieces]

        def take(*_: object) -> str:
            return held.pop()

        db.create_scalar_function("take", take, 0)
        db.execute(row.format("take()"))
    elif way == "append":
        db.execute(row.format("''"))
        for _ in range(pieces):
            db.execute("UPDATE m SET text = text || ? WHERE seq = 1", (PIECE,))
    elif way == "agg":
        db.execute("CREATE TEMP TABLE p (i INTEGER PRIMARY KEY, s TEXT)")
        db.executemany("INSERT INTO p VALUES (?, ?)", [(i, PIECE) for i in range(pieces)])
        db.execute(row.format("(SELECT group_concat(s, '') FROM (SELECT s FROM p ORDER BY i))"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("way", choices=["plain", "zeroblob", "func", "append", "agg"])
    parser.add_argument("--mb", type=int, default=50)
    args = parser.parse_args()
    pieces = args.mb * MB // len(PIECE)
    with tempfile.TemporaryDirectory() as tmp:
        db = apsw.Connection(str(Path(tmp) / "t.db"))
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(
            "CREATE TABLE m (seq INTEGER PRIMARY KEY, a TEXT, text TEXT NOT NULL, raw TEXT NOT NULL, x)"
        )
        db.execute("BEGIN")
        gc.collect()
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        before = status("VmRSS:")
        started = time.perf_counter()
        insert(db, args.way, pieces)
        db.execute("COMMIT")
        seconds = time.perf_counter() - started
        assert db.execute("SELECT length(text) FROM m").fetchone() == (len(PIECE) * pieces,)
        print(f"{args.way}: peak +{status('VmHWM:') - before:.0f} MB over the RSS before, {seconds:.1f} s")
        db.close()


if __name__ == "__main__":
    main()
