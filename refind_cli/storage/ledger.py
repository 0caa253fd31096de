"""The import ledger: which export (by content, format and settings) was imported when, and what it held;
after a chat is forgotten whole, only hashes of its uid and of its exports' paths stay in it."""

from __future__ import annotations

# ``json`` is imported by the functions here that use it: a search opens the archive and needs none of it
# (loading it compiles five regular expressions; bench/RESULTS.md, issue 26 item 3, session 16).
from collections.abc import Callable, Iterable

import apsw

from refind_cli.storage.database import (
    fetch_all,
    hashed_chat_key,
    hashed_path_key,
)


def hide_chats_in_ledger(db: apsw.Connection, gone: Callable[[str], bool]) -> None:
    """Ledger entries that read a chat that is ``gone``: its uid becomes a hash, and the export's path too;
    where its reading stopped is dropped (the file's next import reads it whole)."""
    import json

    rows = fetch_all(db.execute("SELECT seq, path, counts FROM imports"), tuple[int, str, str])
    resumes = "resume" in {row[1] for row in db.execute("PRAGMA table_info(imports)")}  # m011 on
    for seq, path, counts in rows:
        data = json.loads(counts)
        seen = data.get("seen")
        if not isinstance(seen, dict) or not any(gone(uid) for uid in seen):
            continue
        data["seen"] = {(hashed_chat_key(uid) if gone(uid) else uid): n for uid, n in seen.items()}
        hidden = path if path.startswith("p:") else hashed_path_key(path)
        db.execute("UPDATE imports SET path = ?, counts = ? WHERE seq = ?", (hidden, json.dumps(data), seq))
        if resumes:
            db.execute("UPDATE imports SET resume = NULL WHERE seq = ?", (seq,))


class Ledger:
    """The ledger's reads and writes, on the archive's connection."""

    db: apsw.Connection

    def start_import(self, path: str, sha256: str, fmt: str, started: str, settings: str) -> int:
        self.db.execute(
            "INSERT INTO imports (path, sha256, format, started, settings) VALUES (?, ?, ?, ?, ?)",
            (path, sha256, fmt, started, settings),
        )
        return self.db.last_insert_rowid()

    def earlier_import(self, sha256: str, fmt: str, settings: str) -> tuple[int, dict] | None:
        """(seq, counts) of the latest finished import of the same content, format and settings."""
        row = self.db.execute(
            "SELECT seq, counts FROM imports WHERE sha256 = ? AND format = ? AND settings = ?"
            " AND finished IS NOT NULL ORDER BY seq DESC LIMIT 1",
            (sha256, fmt, settings),
        ).fetchone()
        import json

        return None if row is None else (row[0], json.loads(row[1]))

    def resume_points(self, fmt: str, settings: str) -> list[tuple[int, str, str, str]]:
        """(seq, path, hash, resume point) of the finished imports of this format and settings that left one."""
        return fetch_all(
            self.db.execute(
                "SELECT seq, path, sha256, resume FROM imports WHERE format = ? AND settings = ?"
                " AND finished IS NOT NULL AND resume IS NOT NULL",
                (fmt, settings),
            ),
            tuple[int, str, str, str],
        )

    def set_resume_point(self, import_seq: int, point: str | None) -> None:
        self.db.execute("UPDATE imports SET resume = ? WHERE seq = ?", (point, import_seq))

    def finish_import(self, import_seq: int, finished: str, counts: dict) -> None:
        import json

        self.db.execute(
            "UPDATE imports SET finished = ?, counts = ? WHERE seq = ?",
            (finished, json.dumps(counts), import_seq),
        )

    def hide_forgotten_chats(self, chat_uids: Iterable[str]) -> None:
        """After chats were forgotten whole: the import ledger keeps only hashes of their uids and of the
        paths of the exports that held them."""
        gone = set(chat_uids)
        if gone:
            hide_chats_in_ledger(self.db, gone.__contains__)
