"""`refind search --timeline`: how every match spreads over time, in the display zone."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from cli_runs import run
from fake_index import MemoryIndex

from refind_cli.dates.timeline import from_days, timeline, unit_for
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_chat
from refind_cli.method.search import search
from refind_cli.records import Chat, Message
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

BERLIN = ZoneInfo("Europe/Berlin")


def test_unit_follows_the_span() -> None:
    d = date(2024, 1, 1)
    assert unit_for(d, d + timedelta(days=30)) == "day"
    assert unit_for(d, d + timedelta(days=120)) == "week"
    assert unit_for(d, d + timedelta(days=900)) == "month"
    assert unit_for(d, d + timedelta(days=4000)) == "year"


def test_every_bucket_from_first_to_last_empty_ones_too() -> None:
    spread = from_days(Counter({date(2024, 1, 31): 2, date(2024, 4, 2): 1, date(2024, 1, 5): 1}), "month")
    assert [(b.start.isoformat(), b.tally) for b in spread.buckets] == [
        ("2024-01-01", 3),
        ("2024-02-01", 0),
        ("2024-03-01", 0),
        ("2024-04-01", 1),
    ]
    weeks = from_days(Counter({date(2024, 12, 31): 1, date(2025, 1, 8): 1}), "week")
    assert [b.start for b in weeks.buckets] == [date(2024, 12, 30), date(2025, 1, 6)]


def test_days_are_the_zones_days() -> None:
    # 23:30 UTC on 31 March is 1 April in Berlin (summer time began on the 31st).
    late = int(datetime(2024, 3, 31, 23, 30, tzinfo=UTC).timestamp())
    assert timeline([late], BERLIN).buckets[0].start == date(2024, 4, 1)
    assert timeline([late], UTC).buckets[0].start == date(2024, 3, 31)
    # India is 5:30 ahead: 18:29 UTC is still the same day there, 18:31 the next.
    kolkata = ZoneInfo("Asia/Kolkata")
    eve = int(datetime(2024, 5, 1, 18, 29, tzinfo=UTC).timestamp())
    days = [b.start for b in timeline([eve, eve + 120], kolkata).buckets]
    assert days == [date(2024, 5, 1), date(2024, 5, 2)]


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    t0 = datetime(2024, 1, 10, 12, tzinfo=UTC)
    messages = [
        Message(t0 + timedelta(days=30 * month, hours=2 * i), "Ann" if i % 2 else "Bo", text)
        for month, lines in enumerate([["dentist today", "ok"], [], ["dentist again", "dentist later", "x"]])
        for i, text in enumerate(lines)
    ]
    with Archive.open(home) as archive:
        import_chat(archive, Chat("test", "c", "Teeth"), messages)
    return home


def test_search_counts_every_match_not_only_the_results(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with Archive.open(home) as archive:
        for index in (Index.open(home), MemoryIndex()):
            index.sync(archive)
            for rank in (True, False):
                result = search(
                    archive, index, SearchRequest("dentist", k=1, session_rank=rank), timeline_tz=BERLIN
                )
                assert len(result.hits) == 1 and result.total == 3
                assert result.timeline is not None
                assert [(b.start.isoformat(), b.tally) for b in result.timeline.buckets] == [
                    ("2024-01-08", 1),
                    ("2024-01-15", 0),
                    ("2024-01-22", 0),
                    ("2024-01-29", 0),
                    ("2024-02-05", 0),
                    ("2024-02-12", 0),
                    ("2024-02-19", 0),
                    ("2024-02-26", 0),
                    ("2024-03-04", 2),
                ]
            assert search(archive, index, SearchRequest("dentist")).timeline is None


def test_cli_timeline_json_and_text(tmp_path: Path) -> None:
    home = _home(tmp_path)
    done = run(home, "search", "dentist", "--timeline", "--json", "-k", "1", "--tz", "Europe/Berlin")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["timeline"]["unit"] == "week"
    assert sum(b["count"] for b in data["timeline"]["buckets"]) == data["total"] == 3
    assert "timeline" not in json.loads(run(home, "search", "dentist", "--json").stdout)
    text = run(home, "search", "dentist", "--timeline", "-k", "1", "--tz", "Europe/Berlin").stdout
    chart, hits = text.split("\n\n", 1)
    assert chart.splitlines()[0] == "3 matching turns by week"
    assert chart.splitlines()[1].startswith("2024-01-08 wk02  █") and chart.splitlines()[-1].endswith(" 2")
    assert "1. Teeth" in hits
    empty = run(home, "search", "nothing", "--timeline", "--json")
    assert empty.exit_code == 1 and json.loads(empty.stdout)["timeline"] == {"unit": "day", "buckets": []}
