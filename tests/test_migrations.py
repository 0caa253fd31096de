"""An archive written by the release before named migrations opens, upgrades once (each migration recorded),
and reads, searches and re-imports as before. tests/fixtures/README.md says how the fixture was made."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from samples import FAMILY, JONAS, SLACK, TELEGRAM

from refind_cli.facade import Home
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_file
from refind_cli.method.search import search
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import uid_text
from refind_cli.storage.schema import MIGRATIONS, applied_migrations

FIXTURE = Path(__file__).parent / "fixtures" / "release-1.archive.db"
BERLIN = ZoneInfo("Europe/Berlin")
COUNTS = {"chats": 6, "messages": 434, "sessions": 120, "turns": 364}


def home_holding(archive: Path, tmp_path: Path) -> Path:
    """A new home whose archive is a copy of ``archive`` (a fixture's)."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copyfile(archive, home / "archive.db")
    return home


@pytest.fixture
def release1_home(tmp_path: Path) -> Path:
    return home_holding(FIXTURE, tmp_path)


def test_an_archive_of_the_last_release_upgrades_once(release1_home: Path):
    with Archive.open(release1_home) as archive:
        names = [name for name, _ in MIGRATIONS]
        assert applied_migrations(archive.db) == names
        recorded = archive.db.execute("SELECT name, applied FROM migrations").fetchall()
        assert all(applied for _, applied in recorded)
        assert archive.counts() == COUNTS
        tables = {r[0] for r in archive.db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        assert "meta" not in tables
        uids = [
            r[0] for r in archive.db.execute(f"SELECT {uid_text()} FROM messages WHERE source_id IS NULL")
        ]
        assert uids and all(u.startswith("w:") for u in uids)
        # m007: chats imported before languages were told have none until their next import.
        assert {c.lang for c in archive.chats()} == {""}
    with Archive.open(release1_home) as archive:
        assert archive.db.execute("SELECT count(*) FROM migrations").fetchone()[0] == len(MIGRATIONS)


def test_the_upgraded_archive_reads_searches_and_reimports_as_before(release1_home: Path):
    with Archive.open(release1_home) as archive:
        Index.open(release1_home).sync(archive)
        hits = search(archive, Index.open(release1_home), SearchRequest("karaoke")).hits
        assert hits and "karaoke" in hits[0].turn.text.lower()
        assert {c.info.name for c in archive.chats()} >= {"Jonas Becker", "Aylin Demir"}
        for export in [JONAS, FAMILY, SLACK, TELEGRAM]:
            result = import_file(archive, export, tz=BERLIN, reread=True)
            assert result.error is None
            # Nothing comes back: not the message forgotten by the old release (under its old identity),
            # not the chat it forgot whole; session ids followed the new identities, so nothing is re-cut.
            assert sum(c.messages_added for c in result.chats) == 0, export.name
            assert sum(c.sessions_changed for c in result.chats) == 0, export.name
        # The re-import told each re-read chat's language (the samples are English).
        langs = {c.info.name: c.lang for c in archive.chats()}
        assert langs["Jonas Becker"] == "en", langs
        assert archive.counts() == COUNTS
        assert not search(archive, Index.open(release1_home), SearchRequest("laminated")).hits
        # Read in another zone, the same export is the same messages; only the message forgotten under the
        # old identity (a hash of its instant in the zone of that import) is not recognised there.
        assert import_file(archive, JONAS, tz=ZoneInfo("UTC")).chats[0].messages_added == 1


def test_the_upgrade_hides_the_chat_the_old_release_forgot(release1_home: Path):
    assert b"whatsapp:Family" in (release1_home / "archive.db").read_bytes()
    with Archive.open(release1_home) as archive:
        ledger = archive.db.execute("SELECT path, counts FROM imports").fetchall()
        assert not [p for p, _ in ledger if p.endswith(FAMILY.name)]
        assert all("whatsapp:Family" not in json.loads(c).get("seen", {}) for _, c in ledger)
        keys = {r[0] for r in archive.db.execute("SELECT DISTINCT chat_key FROM forgotten")}
        assert len(keys) == 2 and all(k.startswith("c:") for k in keys)
        archive.compact()
    assert b"whatsapp:Family" not in (release1_home / "archive.db").read_bytes()


def test_a_read_only_open_reads_the_old_archive_without_upgrading_it(release1_home: Path):
    digest = hashlib.sha256((release1_home / "archive.db").read_bytes()).hexdigest()
    with Archive.open(release1_home, readonly=True) as archive:
        assert archive.counts() == COUNTS
        assert applied_migrations(archive.db) == []
        session = archive.chats()[0]
        assert session.messages > 0
    assert hashlib.sha256((release1_home / "archive.db").read_bytes()).hexdigest() == digest


def test_reindex_tells_the_language_of_chats_imported_before_languages(release1_home: Path):
    with Home.open(release1_home) as home:
        assert {c.lang for c in home.chats()} == {""}
        home.reindex()
        langs = {c.info.name: c.lang for c in home.chats()}
    # The samples are English (the shortest chats have too little text to tell: "und").
    assert langs["Jonas Becker"] == "en", langs
    assert set(langs.values()) <= {"en", "und"}


def test_a_chat_whose_language_changes_is_queued_for_reindexing(release1_home: Path):
    from refind_cli.ingest.chats import settle_languages

    with Archive.open(release1_home) as archive:
        Index.open(release1_home).sync(archive)
        chat = next(c for c in archive.chats() if c.info.name == "Jonas Becker")
        with archive.transaction():
            settle_languages(archive, [chat.info.seq], "en")  # "" -> en: analysed the same, nothing to redo
        assert archive.index_queue() == []
        with archive.transaction():
            settle_languages(archive, [chat.info.seq], "de")
        queued = set(archive.index_queue())
        assert len(queued) == chat.sessions
        index = Index.open(release1_home)
        index.sync(archive)
        assert archive.index_queue() == []
        # Its turns now hold German terms: "the" is no stop word in German, so the index has it now.
        assert "the" in index.expand("the", 5)
