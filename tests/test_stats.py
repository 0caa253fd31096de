"""`refind stats`: per month and person, the weekday x hour heatmap, silences, media share, in a zone."""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import UTC, date, datetime, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from cli_runs import run

from refind_cli.dates.clock import zone
from refind_cli.dates.timeline import local_days, zone_offsets
from refind_cli.ingest import import_chat, rows
from refind_cli.method.stats import stats
from refind_cli.records import Chat, Kind, Message
from refind_cli.storage.archive import Archive

BERLIN = ZoneInfo("Europe/Berlin")
T0 = datetime(2024, 1, 31, 22, 30, tzinfo=UTC)  # 23:30 on Wednesday 31 January in Berlin


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    family = [
        Message(T0, "Ann", "hi"),
        Message(T0 + timedelta(minutes=40), "Bo", "hello"),  # 00:10 on Thursday 1 February in Berlin
        Message(T0 + timedelta(minutes=41), "Bo", "<Media omitted>", Kind.MEDIA),
        Message(T0 + timedelta(days=70), "Ann", "back"),  # April: March is empty
        Message(T0 + timedelta(days=70, minutes=1), None, "Ann changed the subject", Kind.SYSTEM),
    ]
    work = [Message(T0 + timedelta(days=d), "Cy", f"day {d}") for d in (1, 3, 4)]
    with Archive.open(home) as archive:
        import_chat(archive, Chat("test", "f", "Family"), family)
        import_chat(archive, Chat("test", "w", "Work"), work)
    return home


def test_zone_changes_found_to_the_second() -> None:
    lo = int(datetime(2024, 1, 1, tzinfo=UTC).timestamp())
    hi = int(datetime(2024, 12, 31, tzinfo=UTC).timestamp())
    spring = int(datetime(2024, 3, 31, 1, tzinfo=UTC).timestamp())
    autumn = int(datetime(2024, 10, 27, 1, tzinfo=UTC).timestamp())
    assert zone_offsets(lo, hi, BERLIN) == [(lo, 3600), (spring, 7200), (autumn, 3600)]
    assert zone_offsets(lo, hi, UTC) == [(lo, 0)]


@pytest.mark.parametrize("name", ["UTC", "+05:45", "local", "Europe/Berlin"])
def test_local_days_are_the_days_each_moment_falls_on(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Kathmandu")  # the system zone, without daylight saving time
    time.tzset()
    try:
        tz = zone(None if name == "local" else name)
        dense = list(range(1_700_000_000, 1_700_000_000 + 86400 * 40, 5000))  # sampled, or one offset
        sparse = [0, 86399, 10**9, 4 * 10**9, 250 * 10**9]  # converted one by one, or one offset
        for moments in (dense, sparse):
            expected = Counter(datetime.fromtimestamp(ts, tz).date() for ts in moments)
            assert local_days(moments, tz) == expected
        if tz.utcoffset(None) is not None:  # a fixed zone is not sampled
            assert zone_offsets(0, 250 * 10**9, tz) == [(0, int(tz.utcoffset(None).total_seconds()))]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_stats_in_the_zone(home: Path) -> None:
    with Archive.open(home) as archive:
        s = stats(archive, tz=BERLIN)
        assert s.messages == 8
        assert s.people == (("Cy", 3), ("Ann", 2), ("Bo", 2))
        months = [(m.isoformat(), dict(p)) for m, p in s.months]
        assert months == [
            ("2024-01-01", {"Ann": 1}),
            ("2024-02-01", {"Bo": 2, "Cy": 3}),
            ("2024-03-01", {}),
            ("2024-04-01", {"Ann": 1}),
        ]
        assert s.heatmap[2][23] == 1  # Wednesday 23:00 in Berlin, not 22:00 (UTC)
        # Thursday just after midnight: Bo's two in winter (+1), and 22:30 UTC in April, summer time (+2).
        assert s.heatmap[3][0] == 4
        assert sum(map(sum, s.heatmap)) == 8
        assert dict(s.kinds) == {"text": 6, "media": 1, "system": 1}
        # The longest silence is Family's, January to April, then Work's two days.
        assert [(x.chat.name, (x.end - x.start).days) for x in s.silences][:2] == [
            ("Family", 69),
            ("Work", 2),
        ]
        in_utc = stats(archive, tz=UTC)
        assert in_utc.months[0] == (date(2024, 1, 1), (("Bo", 2), ("Ann", 1)))
        one = stats(archive, chats=[2], tz=BERLIN)
        assert one.people == (("Cy", 3),) and one.messages == 3
        late = stats(archive, since=int((T0 + timedelta(days=2)).timestamp()) * 1_000_000, tz=BERLIN)
        assert late.messages == 4 and late.first is not None and late.first > T0 + timedelta(days=2)


def test_cli_stats_json_and_text(home: Path) -> None:
    done = run(home, "stats", "--json", "--tz", "Europe/Berlin", "--chat", "Family")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["messages"] == 5 and data["media_share"] == 0.2
    assert [m["month"] for m in data["months"]] == ["2024-01", "2024-02", "2024-03", "2024-04"]
    assert data["people"] == [{"name": "Ann", "messages": 2}, {"name": "Bo", "messages": 2}]
    assert data["heatmap"]["hours"][3][0] == 4
    assert data["silences"][0]["chat"]["name"] == "Family"
    text = run(home, "stats", "--tz", "Europe/Berlin").stdout
    for heading in ("Who writes most", "Messages per month", "When (weekday x hour)", "Longest silences"):
        assert heading in text
    assert "media and attachments 12.5%" in text
    empty = run(home, "stats", "--since", "2030-01-01", "--json")
    assert empty.exit_code == 0 and json.loads(empty.stdout)["messages"] == 0
    assert run(home, "stats", "--chat", "nobody").exit_code == 2


def test_stats_of_one_speaker(home: Path) -> None:
    data = json.loads(run(home, "stats", "--json", "--tz", "Europe/Berlin", "--from", "bo").stdout)
    assert data["messages"] == 2 and data["people"] == [{"name": "Bo", "messages": 2}]
    assert data["first"].startswith("2024-02-01T00:10") and data["media_share"] == 0.5
    assert sum(map(sum, data["heatmap"]["hours"])) == 2
    unknown = run(home, "stats", "--from", "zed")
    assert unknown.exit_code == 2 and "zed" in unknown.stderr


# -- the counts `refind stats` reads (archive.message_counts, kept by each write) ------------------------------

KOLKATA, KATHMANDU = ZoneInfo("Asia/Kolkata"), ZoneInfo("Asia/Kathmandu")


def recounted(archive: Archive) -> list[tuple]:
    """message_counts as one grouped pass over the messages gives it."""
    return archive.db.execute(
        "SELECT chat_seq, ts / 900000000, coalesce(sender, ''), sender IS NOT NULL, kind, count(*) FROM messages"
        f" WHERE kind != '{Kind.HIDDEN}' AND ts >= 0 GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5"
    ).fetchall()


def held(archive: Archive) -> list[tuple]:
    return archive.db.execute(
        "SELECT chat_seq, quarter, sender, named, kind, n FROM message_counts ORDER BY 1, 2, 3, 4, 5"
    ).fetchall()


def scattered(seed: int, n: int) -> list[Message]:
    """Messages over two years of summer times, at any second, by three people, nobody and assistants."""
    import random

    rng = random.Random(seed)
    start = datetime(2023, 3, 20, tzinfo=UTC)
    kinds = (Kind.TEXT, Kind.TEXT, Kind.MEDIA, Kind.SYSTEM, Kind.HIDDEN)
    return [
        Message(
            start + timedelta(seconds=rng.randrange(730 * 86400)),
            rng.choice(("Ann", "Bo", "", None)),
            f"m{i}",
            rng.choice(kinds),
        )
        for i in range(n)
    ]


@pytest.fixture
def busy(tmp_path: Path) -> Path:
    home = tmp_path / "busy"
    with Archive.open(home) as archive:
        import_chat(archive, Chat("test", "a", "A"), scattered(1, 400))
        import_chat(archive, Chat("test", "b", "B"), scattered(2, 300))
        burst = datetime(2024, 2, 1, 12, tzinfo=UTC)  # twenty in one quarter hour: one count of twenty
        import_chat(
            archive,
            Chat("test", "c", "C"),
            [Message(burst + timedelta(seconds=i), "Ann", f"b{i}") for i in range(20)],
        )
    return home


def test_the_counts_follow_imports_forgetting_and_merging(busy: Path) -> None:
    with Archive.open(busy) as archive:
        assert held(archive) == recounted(archive) and sum(r[-1] for r in held(archive)) > 400
        assert max(r[-1] for r in held(archive)) == 20
        import_chat(archive, Chat("test", "a", "A"), scattered(3, 100))  # a re-import adds to a chat
        assert held(archive) == recounted(archive)
        with archive.transaction():
            archive.forget_messages(
                [seq for (seq,) in archive.db.execute("SELECT seq FROM messages LIMIT 90")]
            )
        assert held(archive) == recounted(archive)
        archive.merge_chats(1, 2)
        assert held(archive) == recounted(archive)
        assert not archive.db.execute("SELECT 1 FROM message_counts WHERE n <= 0 OR chat_seq = 2").fetchall()
        with archive.transaction():  # a forget of messages stored in the same transaction
            import_chat(archive, Chat("test", "d", "D"), scattered(4, 50))
            archive.forget_messages(
                [seq for (seq,) in archive.db.execute("SELECT seq FROM messages ORDER BY seq DESC LIMIT 20")]
            )
        assert held(archive) == recounted(archive)
        before = held(archive)
        with pytest.raises(RuntimeError), archive.transaction():  # rolled back: nothing counted
            import_chat(archive, Chat("test", "e", "E"), scattered(5, 50))
            raise RuntimeError
        assert held(archive) == before == recounted(archive)
        archive.insert_messages(  # outside a transaction: counted at once
            [
                (
                    None,
                    1,
                    "x",
                    10**15,
                    None,
                    "Ann",
                    None,
                    "t",
                    Kind.TEXT,
                    None,
                    None,
                    None,
                    0,
                    "",
                    None,
                    0,
                    None,
                )
            ]
        )
        assert held(archive) == recounted(archive)
        assert not archive.db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'trigger'").fetchall()


def test_a_fresh_chat_is_counted_batch_by_batch_even_with_an_id_given_twice(
    busy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh chat's batches are counted as they are stored; an id given twice with another text is kept as
    a message of its own at a seq below rows counted already, and nothing is counted twice."""
    monkeypatch.setattr(rows, "BATCH", 3)
    start = datetime(2024, 5, 1, 8, tzinfo=UTC)

    def message(i: int, text: str) -> Message:
        return Message(start + timedelta(minutes=17 * i), ("Ann", "Bo")[i % 2], text, source_id=f"id{i}")

    # Every third message is followed by an earlier one's id and time with another text: with three rows a
    # batch, such a row comes before new rows of its batch, its seq below theirs.
    messages = [m for i in range(21) for m in [message(i, f"t{i}")] + [message(i - 2, "edit")] * (i % 3 == 2)]
    with Archive.open(busy) as archive:
        import_chat(archive, Chat("test", "ids", "Ids"), messages)
        assert archive.db.execute("SELECT count(*) FROM messages WHERE edited").fetchone() == (7,)
        assert held(archive) == recounted(archive)
        assert held_months(archive) == recounted_months(archive)


@pytest.mark.parametrize("tz", [BERLIN, UTC, KOLKATA, KATHMANDU, ZoneInfo("America/St_Johns")])
def test_stats_from_the_counts_are_those_of_the_messages(
    busy: Path, tz: tzinfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    quarter = 900 * 1_000_000
    since = int(datetime(2023, 10, 29, tzinfo=tz).timestamp()) * 1_000_000
    until = int(datetime(2024, 11, 3, tzinfo=tz).timestamp()) * 1_000_000 - 1
    selections: list[dict] = [
        {},
        {"chats": [2]},
        {"senders": ["Ann", ""]},
        {"since": since, "until": until},
        {"since": since + 60_000_000},  # not on a quarter hour: read from the messages
    ]
    with Archive.open(busy) as archive:
        read = [stats(archive, tz=tz, **s) for s in selections]
        years = zone_offsets(since // 1_000_000 - 86400 * 300, until // 1_000_000 + 86400 * 200, tz)
        assert archive._counted(years, since, until, 0)
        assert not archive._counted([], since + 60_000_000, None, 0)
        monkeypatch.setattr(Archive, "_counted", lambda *_: False)
        assert read == [stats(archive, tz=tz, **s) for s in selections]
        assert read[0].messages > 0 and since % quarter == 0


def held_months(archive: Archive) -> list[tuple]:
    return archive.db.execute("SELECT * FROM month_counts ORDER BY 1, 2, 3, 4, 5").fetchall()


def recounted_months(archive: Archive) -> list[tuple]:
    """month_counts as one grouped pass over the messages gives it (each UTC month by its first day)."""
    per_month: Counter[tuple] = Counter()
    for chat, ts, sender, named, kind in archive.db.execute(
        "SELECT chat_seq, ts, coalesce(sender, ''), sender IS NOT NULL, kind FROM messages"
        f" WHERE kind != '{Kind.HIDDEN}' AND ts >= 0"
    ):
        first = datetime.fromtimestamp(ts // 1_000_000, UTC).date().replace(day=1)
        per_month[chat, (first - date(1970, 1, 1)).days, sender, named, kind] += 1
    return sorted((*key, n) for key, n in per_month.items())


def test_the_month_counts_follow_every_write_too(busy: Path) -> None:
    with Archive.open(busy) as archive:
        assert held_months(archive) == recounted_months(archive) and len(held_months(archive)) > 50
        import_chat(archive, Chat("test", "a", "A"), scattered(3, 100))
        with archive.transaction():
            archive.forget_messages(
                [seq for (seq,) in archive.db.execute("SELECT seq FROM messages LIMIT 90")]
            )
        archive.merge_chats(1, 2)
        assert held_months(archive) == recounted_months(archive)
        assert not archive.db.execute("SELECT 1 FROM month_counts WHERE n <= 0 OR chat_seq = 2").fetchall()


@pytest.fixture
def month_ends(tmp_path: Path) -> Path:
    """Messages in every quarter hour of the last and first day of each month of a year (where zones move
    them into the month before or after), and a few in between, by two people."""
    home = tmp_path / "ends"
    messages = []
    for month in range(1, 13):
        start = datetime(2023, month, 1, tzinfo=UTC)
        for quarter in range(-96, 96):
            at = start + timedelta(minutes=15 * quarter + 7)
            messages.append(Message(at, ("Ann", "Bo")[quarter % 2], f"{month} {quarter}"))
        messages.append(Message(start + timedelta(days=14), "Ann", f"mid {month}"))
    with Archive.open(home) as archive:
        import_chat(archive, Chat("test", "e", "Ends"), messages)
    return home


@pytest.mark.parametrize(
    "name", ["Europe/Berlin", "America/St_Johns", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Asia/Kathmandu"]
)
def test_months_at_their_ends_read_from_the_month_counts_are_those_of_the_messages(
    month_ends: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tz = ZoneInfo(name)
    # Ranges that cut months in two, on quarter hours of the zone, and that hold no whole month.
    since = int(datetime(2023, 3, 14, 6, tzinfo=tz).timestamp()) * 1_000_000
    until = int(datetime(2023, 9, 30, 23, 45, tzinfo=tz).timestamp()) * 1_000_000 - 1
    short = int(datetime(2023, 5, 31, 12, tzinfo=tz).timestamp()) * 1_000_000
    selections: list[dict] = [
        {},
        {"since": since},
        {"until": until},
        {"since": since, "until": until, "senders": ["Bo"]},
        {"since": short, "until": short + 3 * 86400 * 1_000_000 - 1},
    ]
    with Archive.open(month_ends) as archive:
        read = [stats(archive, tz=tz, **s) for s in selections]
        assert all(
            archive._counted(
                zone_offsets(1_669_000_000, 1_707_000_000, tz), s.get("since"), s.get("until"), 0
            )
            for s in selections
        )
        monkeypatch.setattr(Archive, "_counted", lambda *_: False)
        assert read == [stats(archive, tz=tz, **s) for s in selections]
        assert len(read[0].months) == 13 and read[0].messages == 12 * 193


def test_odd_offsets_and_old_times_are_read_from_the_messages(busy: Path) -> None:
    with Archive.open(busy) as archive:
        assert not archive._counted([(0, 3600), (5000, 7200)], None, None, 0)  # a change at 01:23:20
        assert not archive._counted([(0, 19_020)], None, None, 0)  # +05:17
        assert not archive._counted([(0, 0)], None, None, -1)  # before 1970
        assert archive._counted([(17, 3600), (900, 7200)], None, None, 0)  # the first applies before its time


def test_an_older_archive_gets_its_counts_and_a_read_only_one_is_read_as_it_is(tmp_path: Path) -> None:
    import shutil

    from test_migrations import FIXTURE

    home = tmp_path / "old"
    home.mkdir()
    shutil.copyfile(FIXTURE, home / "archive.db")
    with Archive.open(home, readonly=True) as archive:
        assert "message_counts" not in {r[0] for r in archive.db.execute("SELECT name FROM sqlite_schema")}
        before = stats(archive, tz=BERLIN)
    with Archive.open(home) as archive:
        assert held(archive) == recounted(archive) and len(held(archive)) > 10
        assert stats(archive, tz=BERLIN) == before
