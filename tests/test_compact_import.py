"""A first import into a new home leaves the archive rewritten (no free page, every index packed); a later
import into the same home does not rewrite it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import apsw

from refind_cli.facade import Home


def _export(path: Path, messages: int) -> Path:
    # One message an hour apart: each its own session, so the index queue the import fills and then empties
    # spans many pages.
    start = datetime(2020, 1, 1, tzinfo=UTC)
    lines = [
        f"{(start + timedelta(hours=3 * i)):%d/%m/%Y, %H:%M} - {('Ana', 'Ben')[i % 2]}: note number {i}"
        for i in range(messages)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _free_pages(home: Path) -> int:
    db = apsw.Connection(str(home / "archive.db"), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return db.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        db.close()


def test_a_first_import_leaves_no_free_page_and_a_later_one_leaves_the_file_as_it_grew(tmp_path: Path):
    home_dir = tmp_path / "home"
    home = Home(home_dir)
    options = Home.import_options(tz=UTC)
    [first] = home.import_files([_export(tmp_path / "WhatsApp Chat with Ana.txt", 1200)], options)
    assert first.error is None
    assert _free_pages(home_dir) == 0
    [second] = home.import_files([_export(tmp_path / "WhatsApp Chat with Ben.txt", 1200)], options)
    assert second.error is None
    # Not rewritten: the index queue the second import emptied left its pages free.
    assert _free_pages(home_dir) > 0


def test_compacting_keeps_the_connection_s_sorts_in_memory(tmp_path: Path):
    from refind_cli.storage.archive import Archive

    with Archive.open(tmp_path / "home") as archive:
        with archive.transaction():
            pass
        archive.compact()  # its copy of the archive went to a file
        assert archive.db.execute("PRAGMA temp_store").fetchone() == (2,)  # MEMORY, as connect() set it
