"""The leaner archive (m014-m017): message identities stored packed, turns without the times and speaker
their messages hold, counts by month for `refind stats`. An archive written by the release before them
(tests/fixtures/release-3.archive.db) upgrades in place and reads exactly as it did: every field of every
message, every turn, the statistics; and a re-import of the same exports finds everything known."""

from __future__ import annotations

from collections import Counter
from datetime import UTC
from pathlib import Path
from zoneinfo import ZoneInfo

import apsw
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_lossless import EXPORTS
from test_migrations import home_holding
from test_stats import held, held_months, recounted, recounted_months

from refind_cli.index import INDEXED_CHARS
from refind_cli.ingest import import_file
from refind_cli.method.stats import stats
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import WEEK_QUARTERS, packed_uid, to_us, uid_text
from refind_cli.storage.schema import MIGRATIONS, applied_migrations

FIXTURE = Path(__file__).parent / "fixtures" / "release-3.archive.db"
LEAN = ["m014_month_counts", "m015_packed_uids", "m016_turns_by_messages", "m017_counts_in_week_order"]
_HEX = st.text("0123456789abcdef", min_size=20, max_size=20)
_UIDS = (
    st.text()
    | st.builds(lambda p, h: p + h, st.sampled_from(["w:", "h:", "id:", "W:", "w", ""]), _HEX)
    | st.builds(lambda h, n: f"w:{h}:{n}", _HEX, st.integers(1, 99))
)


@pytest.fixture(scope="module")
def column() -> apsw.Connection:
    db = apsw.Connection(":memory:")
    db.execute("CREATE TABLE t (uid TEXT NOT NULL)")  # the affinity messages.uid has
    return db


@given(_UIDS)
def test_an_identity_reads_back_as_it_was_written(column: apsw.Connection, uid: str) -> None:
    column.execute("DELETE FROM t")
    column.execute(f"INSERT INTO t VALUES ({packed_uid('?1')})", (uid,))
    stored, back = column.execute(f"SELECT uid, {uid_text()} FROM t").fetchone()
    assert back == uid
    hashed = len(uid) == 22 and uid[:2] in ("w:", "h:") and all(c in "0123456789abcdef" for c in uid[2:])
    assert isinstance(stored, bytes) == hashed and (not hashed or len(stored) <= 11)


def _snapshot(archive: Archive) -> dict:
    """Everything a reader gets of the archive: chats, every message's every field, every turn, stats."""
    chats = archive.chats()
    return {
        "chats": chats,
        "messages": {c.info.seq: list(archive.stored_messages(c.info.seq)) for c in chats},
        "turns": list(archive.iter_turns()),
        "index_rows": list(archive.index_rows(None, chars=INDEXED_CHARS)),
        "stats": [
            stats(archive, tz=tz) for tz in (UTC, ZoneInfo("Europe/Berlin"), ZoneInfo("America/St_Johns"))
        ],
        "counts": archive.counts(),
    }


@pytest.fixture
def release3_home(tmp_path: Path) -> Path:
    return home_holding(FIXTURE, tmp_path)


def test_an_archive_of_the_release_before_upgrades_in_place_and_reads_the_same(release3_home: Path) -> None:
    archive_file = release3_home / "archive.db"
    size = archive_file.stat().st_size
    with Archive.open(release3_home, readonly=True) as old:
        assert applied_migrations(old.db) == [name for name, _ in MIGRATIONS][:13]
        before = _snapshot(old)
        # What the release before stored, as it stored it: each turn's times and speaker, each identity.
        stored_turns = old.db.execute(
            "SELECT s.id || '-' || t.ordinal, t.start_ts, t.end_ts, t.speaker FROM turns t"
            " JOIN sessions s ON s.seq = t.session_seq ORDER BY 1"
        ).fetchall()
        stored_uids = old.db.execute("SELECT seq, uid FROM messages ORDER BY seq").fetchall()
    assert before["counts"]["messages"] > 800 and len(before["turns"]) > 300
    with Archive.open(release3_home) as archive:
        assert applied_migrations(archive.db)[13:17] == LEAN
        assert _snapshot(archive) == before
        turns = sorted((t.id, to_us(t.start), to_us(t.end), t.speaker) for t in archive.iter_turns())
        assert turns == stored_turns
        assert (
            archive.db.execute(f"SELECT seq, {uid_text()} FROM messages ORDER BY seq").fetchall()
            == stored_uids
        )
        columns = {r[1] for r in archive.db.execute("PRAGMA table_info(turns)")}
        assert columns == {"session_seq", "ordinal", "message_seqs"}  # the chat too is the session's (m032)
        kinds = Counter(r[0] for r in archive.db.execute("SELECT typeof(uid) FROM messages"))
        assert kinds["blob"] > 400 and kinds["text"] > 300  # hashes packed; sources' own ids as they are
        assert held_months(archive) == recounted_months(archive)
        assert held(archive) == recounted(archive)
        assert not archive.db.execute(
            f"SELECT 1 FROM message_counts WHERE qow != quarter % {WEEK_QUARTERS}"
        ).fetchall()
    assert archive_file.stat().st_size < size


def test_the_upgraded_archive_knows_every_message_of_its_exports(release3_home: Path) -> None:
    with Archive.open(release3_home) as archive:
        forgotten = archive.db.execute("SELECT count(*) FROM forgotten").fetchone()[0]
        # Of each kind of identity: hashes of written times (WhatsApp, with the forgotten message), of instants
        # (SMS, Gemini), sources' own ids (Telegram).
        chosen = [
            e for e in EXPORTS if e.name.startswith(("WhatsApp Chat with", "sms", "Gemini", "telegram"))
        ]
        assert len(chosen) == 4
        for export in chosen:
            result = import_file(archive, export, tz=UTC, worker=False, reread=True)
            assert result.error is None, export
            assert sum(c.messages_added for c in result.chats) == 0, export.name
            assert sum(c.sessions_changed for c in result.chats) == 0, export.name
        assert archive.db.execute("SELECT count(*) FROM forgotten").fetchone()[0] == forgotten == 1
