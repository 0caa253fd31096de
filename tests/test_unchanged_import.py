"""An export imported before, unchanged, with the same settings, is not read again: the result is what
reading it again would give, and anything that could make a new reading differ sends it through the reader."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import UTC, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from dateutil.tz import tzlocal
from samples import EXPORTS, JONAS
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401  (registers the command)
from refind_cli.dates.clock import zone_fingerprint
from refind_cli.facade import chats_named
from refind_cli.frontends.cli import app
from refind_cli.ingest import files, import_file, ledger, worker
from refind_cli.operations import Selection
from refind_cli.storage import forget
from refind_cli.storage.archive import Archive

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
def archive(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:
        yield archive


def never_read(monkeypatch) -> None:
    def fail(*args, **kwargs):
        raise AssertionError("the export was read")

    monkeypatch.setattr(files, "read_export", fail)
    monkeypatch.setattr(worker, "import_in_worker", fail)


@pytest.mark.parametrize("export", EXPORTS, ids=lambda p: p.name)
def test_the_same_content_again_is_not_read_and_reports_what_a_reading_would(
    archive: Archive, export: Path, monkeypatch
):
    first = import_file(archive, export, tz=BERLIN)
    assert first.unchanged_since is None and first.chats
    reread = import_file(archive, export, tz=BERLIN, reread=True)
    assert reread.unchanged_since is None
    assert all(c.messages_added == 0 for c in reread.chats)
    with monkeypatch.context() as patch:
        never_read(patch)
        again = import_file(archive, export, tz=BERLIN)
    assert again.unchanged_since is not None
    assert replace(again, unchanged_since=None) == reread
    ledger = archive.db.execute("SELECT seq, counts FROM imports ORDER BY seq").fetchall()
    assert len(ledger) == 3
    assert json.loads(ledger[2][1])["unchanged_since"] == again.unchanged_since == ledger[1][0]


def test_a_copy_elsewhere_is_the_same_content(archive: Archive, tmp_path: Path, monkeypatch):
    copy = tmp_path / "copy" / JONAS.name
    copy.parent.mkdir()
    copy.write_bytes(JONAS.read_bytes())
    import_file(archive, JONAS, tz=BERLIN)
    never_read(monkeypatch)
    assert import_file(archive, copy, tz=BERLIN).unchanged_since is not None


def test_another_zone_reads_again_and_adds_nothing(archive: Archive):
    first = import_file(archive, JONAS, tz=BERLIN)
    # WhatsApp times carry no offset: read in another zone they are other instants, but the same messages
    # (identity hashes the written time), so nothing is added and the stored times stay.
    other = import_file(archive, JONAS, tz=ZoneInfo("America/New_York"))
    assert other.unchanged_since is None
    assert other.chats[0].messages_added == 0
    assert other.chats[0].messages_skipped == first.chats[0].messages_added
    assert archive.counts()["messages"] == first.chats[0].messages_added


def test_another_session_gap_reads_again_and_cuts_anew(archive: Archive):
    first = import_file(archive, JONAS, tz=BERLIN)
    longer = import_file(archive, JONAS, tz=BERLIN, session_gap=timedelta(days=2))
    assert longer.unchanged_since is None
    assert longer.chats[0].sessions < first.chats[0].sessions
    # Back to the first gap: the chat is cut differently from how the first import left it.
    back = import_file(archive, JONAS, tz=BERLIN)
    assert back.unchanged_since is None
    assert back.chats[0].sessions == first.chats[0].sessions


def test_a_newer_version_of_refind_reads_again(archive: Archive, monkeypatch):
    import_file(archive, JONAS, tz=BERLIN)
    monkeypatch.setattr(ledger, "__version__", "99.0")
    assert import_file(archive, JONAS, tz=BERLIN).unchanged_since is None


def test_a_changed_export_reads_again(archive: Archive, tmp_path: Path):
    import_file(archive, JONAS, tz=BERLIN)
    newer = tmp_path / JONAS.name
    newer.write_text(
        JONAS.read_text(encoding="utf-8") + "01/12/2026, 09:00 - Jonas Becker: one more\n", encoding="utf-8"
    )
    result = import_file(archive, newer, tz=BERLIN)
    assert result.unchanged_since is None
    assert result.chats[0].messages_added == 1


def test_forgotten_messages_stay_forgotten_unless_restored(archive: Archive):
    first = import_file(archive, JONAS, tz=BERLIN)
    seq = archive.db.execute("SELECT min(seq) FROM messages").fetchone()[0]
    with archive.transaction():
        archive.forget_messages([seq])
    again = import_file(archive, JONAS, tz=BERLIN)
    assert again.unchanged_since is not None
    assert (again.chats[0].messages_added, again.chats[0].messages_skipped) == (
        0,
        first.chats[0].messages_added,
    )
    assert archive.counts()["messages"] == first.chats[0].messages_added - 1
    restored = import_file(archive, JONAS, tz=BERLIN, restore_forgotten=True)
    assert restored.unchanged_since is None
    assert restored.chats[0].messages_added == 1


def test_a_chat_forgotten_whole_is_read_again(archive: Archive):
    import_file(archive, JONAS, tz=BERLIN)
    (jonas,) = chats_named(archive, "Jonas Becker")
    selection = Selection(chat=jonas)
    forget.forget(archive, forget.plan(archive, selection))
    assert archive.counts()["chats"] == 0
    again = import_file(archive, JONAS, tz=BERLIN)
    # Read again, it finds every message forgotten, and the chat does not come back.
    assert again.unchanged_since is None
    assert again.chats[0].messages_added == 0
    assert archive.counts()["chats"] == 0


def test_an_archive_from_before_the_settings_column_gains_it(tmp_path: Path):
    path = tmp_path / "archive.db"
    old = sqlite3.connect(path)
    old.execute(
        "CREATE TABLE imports (seq INTEGER PRIMARY KEY, path TEXT NOT NULL, sha256 TEXT NOT NULL,"
        " format TEXT NOT NULL, started TEXT NOT NULL, finished TEXT, counts TEXT NOT NULL DEFAULT '{}')"
    )
    old.execute("INSERT INTO imports (path, sha256, format, started) VALUES ('x', 'y', 'whatsapp', 'now')")
    old.commit()
    old.close()
    with Archive(path) as archive:
        assert archive.db.execute("SELECT settings FROM imports").fetchall() == [("",)]
        assert import_file(archive, JONAS, tz=BERLIN).chats[0].messages_added > 0


def test_zone_fingerprints():
    assert zone_fingerprint(BERLIN) == "Europe/Berlin"
    assert zone_fingerprint(UTC) == zone_fingerprint(timezone(timedelta(0)))
    assert zone_fingerprint(UTC) != zone_fingerprint(timezone(timedelta(hours=1)))
    assert zone_fingerprint(tzlocal()) == zone_fingerprint(tzlocal())
    system = tzlocal()
    assert zone_fingerprint(system) is zone_fingerprint(system)  # worked out once per zone object


def test_the_command_says_when_an_export_was_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    runner = CliRunner()
    home = str(tmp_path / "home")
    args = ["--home", home, "import", "--tz", "Europe/Berlin", str(JONAS)]
    first = runner.invoke(app, [*args, "--json"])
    assert json.loads(first.stdout)["files"][0]["unchanged"] is False
    again = runner.invoke(app, [*args, "--json"])
    assert json.loads(again.stdout)["files"][0]["unchanged"] is True
    piped = runner.invoke(app, args)
    assert piped.exit_code == 0 and piped.stdout.splitlines()[1].endswith("\t1")  # TSV: unchanged
    monkeypatch.setattr(
        "refind_cli.frontends.render.rows.table_format", lambda **_: "table"
    )  # as on a terminal
    shown = runner.invoke(app, args, terminal_width=200)
    assert shown.exit_code == 0
    assert "imported before, unchanged: not read again" in shown.stdout
    reread = runner.invoke(app, [*args, "--reread", "--json"])
    assert json.loads(reread.stdout)["files"][0]["unchanged"] is False
    assert json.loads(reread.stdout)["files"][0]["chats"] == json.loads(again.stdout)["files"][0]["chats"]
