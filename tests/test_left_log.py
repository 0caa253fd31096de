"""A write-ahead log left beside the archive is folded into it by the next reader to find the home free: every
process's first query reads the whole log again (~130 ms for the 200 MB a migration's VACUUM left at 1M
messages)."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from samples import JONAS

from refind_cli.facade import Home
from refind_cli.ingest import import_file
from refind_cli.request import SearchRequest
from refind_cli.storage import archive as archive_module
from refind_cli.storage.archive import Archive
from refind_cli.storage.locks import try_write_lock
from refind_cli.storage.schema import connect


def home_with_a_left_log(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        import_file(archive, JONAS, tz=ZoneInfo("Europe/Berlin"))
    with Home(home) as first:
        first.search(SearchRequest("karaoke"))  # the index is built: later readers write nothing for it
    # A writer closes while a reader has the archive open: its close is not the last, and the log stays.
    with Archive.open(home, readonly=True) as reader:
        reader.counts()
        writer = connect(home / "archive.db")
        writer.execute("VACUUM")
        writer.close()
    wal = home / "archive.db-wal"
    assert wal.stat().st_size > 0
    return home, wal


def test_a_reader_folds_in_a_long_log_a_writer_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, wal = home_with_a_left_log(tmp_path)
    monkeypatch.setattr(archive_module, "LEFT_LOG", wal.stat().st_size - 1)
    with Home(home) as reader:
        hits = reader.search(SearchRequest("karaoke")).hits
        assert hits and "karaoke" in hits[0].turn.text.lower()
    assert not wal.exists() or wal.stat().st_size == 0
    with Home(home) as reader:
        assert [h.turn.id for h in reader.search(SearchRequest("karaoke")).hits] == [h.turn.id for h in hits]


def test_a_short_log_or_a_busy_home_is_left_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, wal = home_with_a_left_log(tmp_path)
    size = wal.stat().st_size
    monkeypatch.setattr(archive_module, "LEFT_LOG", size)
    with Home(home) as reader:
        assert reader.search(SearchRequest("karaoke")).hits
    assert wal.stat().st_size == size
    monkeypatch.setattr(archive_module, "LEFT_LOG", size - 1)
    with try_write_lock(home) as free, Home(home) as reader:
        assert free and reader.search(SearchRequest("karaoke")).hits
    assert wal.stat().st_size == size
