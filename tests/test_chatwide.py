"""What a chat holds once for its messages' rows (m018, m019): the layout of its written times, rebuilt
from each message's instant and the offset of the clock it was written by, and the rest of a raw record
its rows share. Every message reads back as it was written, whatever the layout or zone; a time the
layout does not rebuild is kept as text; chats merged keep their times; an archive written by the release
before (tests/fixtures/release-4.archive.db) upgrades in place and reads exactly as it did."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import SAMPLES
from test_lean_rows import _snapshot
from test_lossless import EXPORTS
from test_migrations import home_holding

from refind_cli.ingest import import_file
from refind_cli.ingest.chats import import_chat
from refind_cli.records import Chat, Message
from refind_cli.storage import raw
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import to_us
from refind_cli.storage.schema import MIGRATIONS, applied_migrations
from refind_cli.storage.written import told

FIXTURE = Path(__file__).parent / "fixtures" / "release-4.archive.db"
CHATWIDE = ["m018_written_times", "m019_shared_rests"]

# Layouts apps write times in ("{d}": a day without a leading zero, "{I}": an hour of 12 without one).
_LAYOUTS = [
    "%d/%m/%Y, %H:%M",
    "{m}/{d}/{y}, {I}:%M %p",
    "%Y-%m-%dT%H:%M:%S",
    "%d.%m.%y %H:%M:%S",
    "%A, %B {d}, %Y at {I}:%M:%S %p",
    "[%Y/%m/%d {I}:%M:%S %p]",
    "%d %b %Y %H:%M",
]
_ZONES = [
    "UTC",
    "Europe/Berlin",
    "America/St_Johns",
    "Asia/Kathmandu",
    "Pacific/Kiritimati",
    "America/Sao_Paulo",
]


def _written(layout: str, wall: datetime) -> str:
    filled = layout.replace("{m}", str(wall.month)).replace("{d}", str(wall.day))
    return wall.strftime(
        filled.replace("{y}", f"{wall.year % 100:02d}").replace("{I}", str(wall.hour % 12 or 12))
    )


# Since 1980: the zones' offsets before were not all in quarter hours (Kiritimati's -10:40), which a
# layout is told at (its chat keeps those times as text).
_TIMES = st.datetimes(datetime(1980, 1, 1), datetime(2190, 1, 1), timezones=st.just(UTC))


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(_LAYOUTS),
    st.sampled_from(_ZONES),
    _TIMES,
    st.timedeltas(timedelta(minutes=1), timedelta(days=3)),
)
def test_a_layout_told_from_a_chats_first_times_rebuilds_each_of_them(
    layout: str, zone: str, start: datetime, step: timedelta
):
    # A chat's first 64 messages, one every ``step``.
    times = [start + i * step for i in range(64)]
    samples = [(to_us(t), _written(layout, t.astimezone(ZoneInfo(zone)))) for t in times]
    found = told(samples)
    assert found is not None
    for ts, written in samples:
        wall = found.offset(written, ts)
        assert wall is not None and found.write(ts // 1_000_000 + wall * 60) == written


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_LAYOUTS), st.sampled_from(_ZONES), st.lists(_TIMES, min_size=1, max_size=8))
def test_a_layout_told_from_any_times_rebuilds_half_of_them_and_never_another_time(
    layout: str, zone: str, times: list[datetime]
):
    samples = [(to_us(t), _written(layout, t.astimezone(ZoneInfo(zone)))) for t in times]
    found = told(samples)
    assert found is not None
    walls = [found.offset(written, ts) for ts, written in samples]
    assert 2 * sum(w is not None for w in walls) >= len(samples)
    for (ts, written), wall in zip(samples, walls, strict=True):
        assert wall is None or found.write(ts // 1_000_000 + wall * 60) == written


def test_times_in_no_layout_are_not_told():
    start = datetime(2020, 5, 1, tzinfo=UTC)
    assert told([(to_us(start + timedelta(hours=i)), f"yesterday {i}") for i in range(10)]) is None
    assert told([(to_us(start), "01.05.2020 um 9 Uhr")]) is None  # no minute


def test_a_rest_holding_anything_a_person_wrote_is_not_shared():
    assert raw.shareable("\x02 - \x03: \x01", 2)
    assert not raw.shareable("\x02 - \x03: \x01", 1)  # one row: nothing to share
    for rest in ("\x02 - \x03: \x01 <This message was edited>", '{"id": 4, "text": "\x01"}', "\x01 ❤️", ""):
        assert not raw.shareable(rest, 100)
    assert raw.shared_rest(["\x02 a \x01", "\x02 a \x01", "\x02 - \x01"]) is None


def _message(when: datetime, written: str | None, text: str) -> Message:
    line = f"{written} - Ana: {text}"
    return Message(when, "Ana", text, local_time=written, raw=line)


def test_a_written_time_its_chat_layout_does_not_rebuild_is_kept_as_written(tmp_path: Path):
    start = datetime(2021, 3, 27, 22, 0, tzinfo=UTC)  # Berlin's clocks go forward on the 28th
    berlin = ZoneInfo("Europe/Berlin")
    messages = [
        _message(
            start + timedelta(minutes=37 * i),
            f"{(start + timedelta(minutes=37 * i)).astimezone(berlin):%d/%m/%Y, %H:%M}",
            f"m{i}",
        )
        for i in range(40)
    ]
    odd = [
        _message(start, "27/03/2021, 23:00 (edited)", "a time with more"),
        _message(start, "27/03/2021, 21:07", "a clock off by 53 minutes"),
        _message(start, "31/02/2021, 10:00", "a day that never was"),
        _message(start, None, "no written time"),
    ]
    given_messages = messages[:20] + odd + messages[20:]
    with Archive.open(tmp_path / "home") as archive:
        import_chat(archive, Chat("whatsapp", "ana", "Ana"), given_messages)
        assert list(archive.stored_messages(1)) == given_messages
        kept = [r[0] for r in archive.db.execute("SELECT local_time FROM messages WHERE local_time NOT NULL")]
        assert sorted(kept) == ["27/03/2021, 23:00 (edited)", "31/02/2021, 10:00"]
        offsets = {r[0] for r in archive.db.execute("SELECT wall FROM messages WHERE wall NOT NULL")}
        assert offsets == {60, 120, -53}


def test_chats_merged_keep_their_written_times_and_records(tmp_path: Path):
    with Archive.open(tmp_path / "home") as archive:
        for export in ("WhatsApp Chat with Jonas Becker.txt", "[LINE] Chat with Yuki.txt"):
            import_file(archive, SAMPLES / export, tz=ZoneInfo("Asia/Kathmandu"), worker=False)
        (a, b) = [c.info.seq for c in archive.chats()]
        layouts = {r[0] for r in archive.db.execute("SELECT written FROM chats")}
        assert len(layouts) == 2 and "" not in layouts
        before = {m for seq in (a, b) for m in archive.stored_messages(seq)}
        archive.merge_chats(a, b)
        assert set(archive.stored_messages(a)) == before


@pytest.fixture
def release4_home(tmp_path: Path) -> Path:
    return home_holding(FIXTURE, tmp_path)


def test_an_archive_of_the_release_before_upgrades_in_place_and_reads_the_same(release4_home: Path):
    archive_file = release4_home / "archive.db"
    size = archive_file.stat().st_size
    with Archive.open(release4_home, readonly=True) as old:
        assert applied_migrations(old.db) == [name for name, _ in MIGRATIONS][:17]
        before = _snapshot(old)
        stamps = old.db.execute("SELECT count(local_time), sum(length(raw)) FROM messages").fetchone()
    assert before["counts"]["messages"] > 800 and len(before["turns"]) > 300
    with Archive.open(release4_home) as archive:
        assert applied_migrations(archive.db)[17:19] == CHATWIDE
        assert _snapshot(archive) == before
        kept, rebuilt, rests = archive.db.execute(
            "SELECT count(local_time), count(wall), sum(length(raw)) FROM messages"
        ).fetchone()
        assert kept + rebuilt == stamps[0] and rebuilt > 10 * kept
        assert rests < stamps[1]
    assert archive_file.stat().st_size < size


def test_the_upgraded_archive_knows_every_message_of_its_exports(release4_home: Path):
    with Archive.open(release4_home) as archive:
        chosen = [
            e for e in EXPORTS if e.name.startswith(("WhatsApp Chat with", "[LINE]", "telegram", "KakaoTalk"))
        ]
        assert len(chosen) >= 4
        for export in chosen:
            result = import_file(archive, export, tz=UTC, worker=False, reread=True)
            assert result.error is None, export
            assert sum(c.messages_added for c in result.chats) == 0, export.name
            assert sum(c.sessions_changed for c in result.chats) == 0, export.name
