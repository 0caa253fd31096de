"""Reading the archive writes nothing: a reader never waits for a writer, and a home on read-only media (a
backup disk) can be read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from zoneinfo import ZoneInfo

import apsw
import pytest
from samples import JONAS

from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
def readable_home() -> Iterator[Path]:
    # Outside pytest's own folders (private to their owner), so another user can reach it.
    top = Path(tempfile.mkdtemp())
    top.chmod(0o755)
    home = top / "home"
    with Archive.open(home) as archive:
        import_file(archive, JONAS, tz=BERLIN)
    yield home
    for path in [top, *top.rglob("*")]:
        path.chmod(0o700)
    shutil.rmtree(top)


def snapshot(home: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        str(p.relative_to(home)): (p.stat().st_size, p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(home.rglob("*"))
        if p.is_file()
    }


def read_everything(home: Path) -> int:
    with Archive.open(home, readonly=True) as archive:
        chat = archive.chats()[0]
        session = archive.session(next(iter(archive.session_threads())))
        assert session is not None and archive.session_turns(session.id)
        return chat.messages


def test_a_read_only_home_can_be_read_and_is_left_as_it_was(readable_home: Path):
    before = snapshot(readable_home)
    for path in [readable_home, *readable_home.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    if os.getuid() != 0:
        assert read_everything(readable_home) == 209
    else:
        # root writes anywhere: read as another user, for whom the folder is read-only.
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.setgid(65534)
                os.setuid(65534)
                code = 0 if read_everything(readable_home) == 209 else 3
            except BaseException as exc:
                sys.stderr.write(f"reading as another user: {exc!r}\n")
            finally:
                os._exit(code)
        assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert snapshot(readable_home) == before


def test_a_read_only_open_does_not_write_the_archive(readable_home: Path):
    before = snapshot(readable_home)["archive.db"]
    assert read_everything(readable_home) == 209
    assert snapshot(readable_home)["archive.db"] == before


def test_a_reader_does_not_wait_for_a_writer(readable_home: Path):
    writer = apsw.Connection(str(readable_home / "archive.db"))
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM messages")
    try:
        r = subprocess.run(
            [sys.executable, "-m", "refind_cli", "--home", str(readable_home), "chats", "--json"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["chats"][0]["messages"] == 209


def test_writing_through_a_read_only_open_reopens_it_for_writing(readable_home: Path):
    with Archive.open(readable_home, readonly=True) as archive:
        assert archive.readonly
        with archive.transaction():
            archive.queue_all_sessions()
        assert not archive.readonly and archive.index_queue()


def test_a_missing_archive_reads_as_empty_and_is_not_created(tmp_path: Path):
    with Archive.open(tmp_path / "new", readonly=True) as archive:
        assert archive.chats() == []
    assert not (tmp_path / "new").exists()  # not even the home: a reader creates nothing


def test_an_archive_whose_first_import_never_committed_reads_as_empty(tmp_path: Path):
    # What a first import killed before its first commit leaves: a database file without tables.
    home = tmp_path / "home"
    home.mkdir()
    db = apsw.Connection(str(home / "archive.db"))
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    with Archive.open(home, readonly=True) as archive:
        assert archive.chats() == []
        assert not archive.has_turns()
