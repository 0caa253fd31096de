"""Issue 26 item 2 (speed9): a child process's pipe holds as much as its buffer, so that the index's two
analysing processes never wait on each other; a first import's commits stay in the write-ahead log until the
compaction beside the index's build empties it, rather than each commit copying the archive into the file."""

from __future__ import annotations

import fcntl
import os
from datetime import UTC
from pathlib import Path
from urllib.parse import quote

import apsw
import pytest
from test_compact_import import _export

from refind_cli.facade import Home
from refind_cli.processes import python_child
from refind_cli.storage import schema
from refind_cli.storage.archive import Archive


def _pipe_max() -> int:
    try:
        return int(Path("/proc/sys/fs/pipe-max-size").read_text())
    except (OSError, ValueError):
        return 0


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
@pytest.mark.skipif(_pipe_max() < 1 << 20, reason="this system caps a pipe below 1 MB")
def test_a_child_s_pipe_to_this_process_holds_its_buffer():
    process = python_child("import sys; sys.stdin.buffer.read()", 1 << 20)
    try:
        assert process.stdout is not None
        assert fcntl.fcntl(process.stdout.fileno(), fcntl.F_GETPIPE_SZ) >= 1 << 20
    finally:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        process.wait()
        process.stdout.close()


def _messages_in_the_file_alone(path: Path) -> int:
    """The messages the database file holds without its write-ahead log."""
    db = apsw.Connection(
        f"file:{quote(str(path))}?immutable=1", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
    )
    try:
        found = db.execute("SELECT 1 FROM sqlite_schema WHERE name = 'messages'").fetchone()
        return db.execute("SELECT count(*) FROM messages").fetchone()[0] if found else 0
    finally:
        db.close()


def test_a_first_import_leaves_its_commits_to_the_compaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Every connection checkpoints after a page of log: without the deferral, each commit of the import
    # would copy its messages into the file.
    tune = schema._tune

    def eager(db: apsw.Connection) -> None:
        tune(db)
        db.execute("PRAGMA wal_autocheckpoint=1")

    monkeypatch.setattr(schema, "_tune", eager)
    home_dir = tmp_path / "home"
    seen: list[tuple[str, int, int]] = []
    compact = Archive.compact

    def watched(archive: Archive) -> None:
        db_file = home_dir / "archive.db"
        setting = archive.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
        seen.append(("before", _messages_in_the_file_alone(db_file), setting))
        compact(archive)
        seen.append(("after", _messages_in_the_file_alone(db_file), os.path.getsize(f"{db_file}-wal")))

    monkeypatch.setattr(Archive, "compact", watched)
    home = Home(home_dir)
    options = Home.import_options(tz=UTC)
    [first] = home.import_files([_export(tmp_path / "WhatsApp Chat with Ana.txt", 600)], options)
    assert first.error is None
    assert seen == [("before", 0, 0), ("after", 600, 0)]
    assert home.archive().db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1  # as it was

    # A later import is not compacted: its commit checkpoints as every commit does.
    [second] = home.import_files([_export(tmp_path / "WhatsApp Chat with Ben.txt", 300)], options)
    assert second.error is None
    assert len(seen) == 2
    assert _messages_in_the_file_alone(home_dir / "archive.db") == 900


def test_a_first_import_stopped_early_leaves_the_setting_as_it_was(tmp_path: Path):
    home = Home(tmp_path / "home")
    exports = [_export(tmp_path / f"WhatsApp Chat with {name}.txt", 50) for name in ("Ana", "Ben")]
    results = home.import_files(exports, Home.import_options(tz=UTC))
    assert next(results).error is None
    results.close()  # the caller stopped reading: the second export is not imported
    assert home.archive().db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000  # SQLite's default
