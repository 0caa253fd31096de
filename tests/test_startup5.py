"""Issue 26 items 3 and 5, session 17: `refind search --timeline` counts every match in the index (range
aggregations over the ``ts`` fast field) and converts only the moments that may fall on either side of a
bucket's first local midnight; a zone's closing TZ rule read without zoneinfo's pure-Python parser."""

from __future__ import annotations

import bisect
import itertools
import os
import random
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, available_timezones

import pytest
from cli_runs import refind
from dateutil.tz import tzoffset
from fake_index import held
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli_startup import imported_by
from test_cold_search_cpu import _spread_one_by_one

from refind_cli.dates.clock import rule_offsets, zone
from refind_cli.dates.timeline import spread_timeline
from refind_cli.index.tantivy_backend import TantivyIndex
from refind_cli.ingest import import_chat
from refind_cli.method.search import search
from refind_cli.records import TIMES, Chat, Message
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

ZONES = sorted(available_timezones())
CLAMP = (int(TIMES[0].timestamp()), int(TIMES[1].timestamp()))
UNCLAMPED = (-(2**62), 2**62)


def _clamped(moments: list[int], clamp: tuple[int, int]) -> list[int]:
    return [min(max(ts, clamp[0]), clamp[1]) for ts in moments]


def _spread(moments: list[int], tz: tzinfo, clamp: tuple[int, int] = CLAMP) -> list[tuple[object, int]]:
    return [(b.start, b.tally) for b in spread_timeline(held(moments), tz, clamp).buckets]


@settings(max_examples=300, deadline=None)
@given(
    key=st.sampled_from(ZONES),
    moments=st.lists(st.integers(-5_364_662_400, 7_258_118_399), max_size=30),
    near=st.lists(st.integers(-15 * 3600, 15 * 3600), max_size=40),
    around=st.integers(-2_208_988_800, 4_102_444_800),
    days=st.sampled_from([3, 40, 150, 1000, 40_000]),
)
def test_a_counted_timeline_in_any_zone_is_each_moments_own_date(
    key: str, moments: list[int], near: list[int], around: int, days: int
):
    # Spans of every unit (day, week, month, year), many moments about a UTC midnight (where most zones' local
    # midnights fall) and about a local one: those are the moments in the windows.
    tz = ZoneInfo(key)
    rng = random.Random(around)
    local = int(datetime.fromtimestamp(around, tz).replace(hour=0, minute=0, second=0).timestamp())
    every = [
        *(m for m in moments if abs(m - around) < days * 86_400),
        *(around - around % 86_400 + d for d in near),
        *(local + d for d in near),
        *(around + rng.randrange(days * 86_400) for _ in range(20)),
    ]
    assert _spread(every, tz, UNCLAMPED) == _spread_one_by_one(every, tz)


def _changes(key: str) -> list[int]:
    """The instants (epoch seconds) at which the zone's file says its offset changes."""
    from zoneinfo import TZPATH, _common

    path = next((p for p in (os.path.join(r, key) for r in TZPATH) if os.path.isfile(p)), None)
    if path is None:
        return []
    with open(path, "rb") as file:
        return [int(t) for t in _common.load_data(file)[1]]


def test_about_every_change_of_every_zone_the_days_are_each_moments_own():
    # Where clocks jump over a midnight or go back across one, a day's moments are not one run of instants:
    # those about such a midnight are read one by one. Every change of every zone, with moments on either
    # side (a day's buckets: the span is under 45 days), those about a local midnight first.
    rng = random.Random(17)
    for key in ZONES:
        tz = ZoneInfo(key)
        changes = _changes(key)
        # Changes whose local time is about midnight (clocks set back over it or forward past it), at most 12 a
        # zone (zones that changed at midnight for decades list hundreds), and 3 others.
        near_midnight = [t for t in changes if datetime.fromtimestamp(t, tz).hour in (23, 0, 1)]
        picked = rng.sample(near_midnight, min(len(near_midnight), 12)) + rng.sample(
            changes, min(len(changes), 3)
        )
        for n, change in enumerate(picked):
            moments = [change + d for d in (-1, 0, 1)] + [
                change + rng.randrange(-30 * 3600, 30 * 3600) for _ in range(30)
            ]
            assert _spread(moments, tz, UNCLAMPED) == _spread_one_by_one(moments, tz), (key, change)
            if n % 4 == 0:  # weeks and months too
                wide = moments + [change + rng.randrange(-400 * 86_400, 400 * 86_400) for _ in range(10)]
                assert _spread(wide, tz, UNCLAMPED) == _spread_one_by_one(wide, tz), (key, change)


@pytest.mark.parametrize(
    "tz",
    [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=11)), tzoffset("X", -12_600)],
    ids=str,
)
def test_fixed_zones_count_with_no_windows(tz: tzinfo):
    rng = random.Random(5)
    moments = [rng.randrange(0, 4_000_000_000) for _ in range(500)] + [
        86_400 * 20_000 + d for d in range(-5, 5)
    ]
    assert _spread(moments, tz) == _spread_one_by_one(moments, tz)


def test_moments_outside_what_a_zone_shows_count_at_its_ends():
    # An index of an archive of an earlier release may hold a time outside TIMES: counted at TIMES' ends.
    berlin = ZoneInfo("Europe/Berlin")
    lo, hi = CLAMP
    moments = [lo - 10**9, lo - 1, lo, lo + 3600, hi - 86_400 * 400, hi, hi + 5, hi + 10**10]
    assert _spread(moments, berlin) == _spread_one_by_one(_clamped(moments, CLAMP), berlin)
    narrow = (1_700_000_000, 1_700_500_000)
    assert _spread(moments, berlin, narrow) == _spread_one_by_one(_clamped(moments, narrow), berlin)


def test_a_day_a_zone_skipped_is_an_empty_bucket():
    # Samoa skipped 30 December 2011 (-10 to +14): its midnight is read one by one.
    apia = ZoneInfo("Pacific/Apia")
    start = int(datetime(2011, 12, 20, tzinfo=UTC).timestamp())
    moments = [start + 3_600 * h for h in range(0, 24 * 20, 5)]
    spread = _spread(moments, apia)
    assert spread == _spread_one_by_one(moments, apia)
    assert (datetime(2011, 12, 30).date(), 0) in spread


def test_a_zone_of_unknown_offsets_converts_each_moment(monkeypatch: pytest.MonkeyPatch):
    from refind_cli.dates import timeline

    monkeypatch.setattr(timeline, "offset_bounds", lambda tz: None)
    berlin = ZoneInfo("Europe/Berlin")
    moments = [0, 86_399, 1_000_000_000, 1_000_003_600, 4_000_000_000]
    assert _spread(moments, berlin) == _spread_one_by_one(moments, berlin)


def test_nothing_to_count_is_an_empty_timeline():
    assert _spread([], ZoneInfo("Europe/Berlin")) == []


# The index counts: a home of one chat whose messages say "dinner" at random moments, some about local
# midnights of Europe/Berlin and Asia/Kolkata.
@pytest.fixture(scope="module")
def dinner_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("dinner") / "home"
    rng = random.Random(17)
    start = int(datetime(1990, 1, 1, tzinfo=UTC).timestamp())
    moments = sorted(
        [start + rng.randrange(40 * 365 * 86_400) for _ in range(1500)]
        + [start + 86_400 * rng.randrange(14_000) + rng.randrange(-3 * 3600, 3 * 3600) for _ in range(500)]
    )
    words = ["dinner at eight", "lunch", "dinner", "tea"]
    messages = [
        Message(datetime.fromtimestamp(ts, UTC), "Ann" if i % 3 else "Bo", words[i % 4])
        for i, ts in enumerate(moments)
    ]
    with Archive.open(home) as archive:
        import_chat(archive, Chat("test", "c", "Meals"), messages)
        TantivyIndex.open(home).sync(archive)
    return home


def _every_time(home: Path, request: SearchRequest) -> list[int]:
    """The time of every turn that matches, as the index holds them (a turn's time is its first message's)."""
    index = TantivyIndex.open(home)
    every = index.matching(index.analyzer.analyze(request.query), request, set())
    return sorted(key[0] for key in every.turns(range(len(every.scores))))


def test_the_index_counts_every_match_between_edges(dinner_home: Path):
    home = dinner_home
    dinners = _every_time(home, SearchRequest("dinner"))
    index = TantivyIndex.open(home)
    matches = index.best(index.analyzer.analyze("dinner"), SearchRequest("dinner", k=2), set())
    assert len(matches.scores) < matches.total == len(dinners)
    assert matches.span() == (dinners[0], dinners[-1])
    rng = random.Random(3)
    for n in (0, 1, 2, 7, 300):
        edges = sorted(
            set(rng.sample(dinners, min(n, len(dinners))) + [rng.randrange(10**9) for _ in range(n)])
        )
        at = [0, *(bisect.bisect_left(dinners, e) for e in edges), len(dinners)]
        assert matches.counts(edges) == [b - a for a, b in itertools.pairwise(at)]
    ranges = [(dinners[10], dinners[20]), (dinners[30] + 1, dinners[31] + 1), (dinners[-1], dinners[-1] + 1)]
    assert sorted(matches.times_within(ranges)) == [t for t in dinners if any(a <= t < b for a, b in ranges)]
    assert matches.times_within([]) == []
    nothing = index.best(index.analyzer.analyze("zzzqqq"), SearchRequest("zzzqqq"), set())
    assert nothing.span() is None and nothing.counts([5]) == [0, 0]


@pytest.mark.parametrize("key", ["Europe/Berlin", "Asia/Kolkata", "America/St_Johns", "UTC", "Pacific/Apia"])
@pytest.mark.parametrize("days", [None, 40, 180, 1500])  # by year, day, week and month
def test_a_search_timeline_counts_what_each_matching_turns_date_counts(
    dinner_home: Path, key: str, days: int | None
):
    tz = ZoneInfo(key)
    lo = None if days is None else datetime(2001, 3, 1, tzinfo=tz)
    request = SearchRequest(
        "dinner", k=3, since=lo, until=None if lo is None else lo + timedelta(days=days or 0)
    )
    with Archive.open(dinner_home, readonly=True) as archive:
        result = search(archive, TantivyIndex.open(dinner_home), request, timeline_tz=tz)
    assert result.timeline is not None
    wanted = _every_time(dinner_home, request)
    assert result.total == len(wanted) > 0 and len(result.hits) == min(3, len(wanted))
    assert [(b.start, b.tally) for b in result.timeline.buckets] == _spread_one_by_one(wanted, tz)


def test_a_timeline_turns_no_match_into_an_object(dinner_home: Path, monkeypatch: pytest.MonkeyPatch):
    # Ranked by score, a timeline needs the k best only (``best``), not every match (``matching``).
    home = dinner_home

    def every(*args: object, **kwargs: object) -> None:
        raise AssertionError("every match collected")

    monkeypatch.setattr(TantivyIndex, "matching", every)
    with Archive.open(home, readonly=True) as archive:
        result = search(archive, TantivyIndex.open(home), SearchRequest("dinner", k=3), timeline_tz=UTC)
    assert result.timeline is not None and result.timeline.total == result.total


def _closing_rules() -> dict[str, str]:
    from zoneinfo import TZPATH, _common

    rules = {}
    for key in ZONES:
        path = next((p for p in (os.path.join(r, key) for r in TZPATH) if os.path.isfile(p)), None)
        if path is not None:
            with open(path, "rb") as file:
                rule = _common.load_data(file)[-1]
            if rule:
                rules[key] = rule.decode("ascii")
    return rules


def _zoneinfos_offsets(rule: str) -> set[int]:
    from zoneinfo import _zoneinfo

    told = _zoneinfo._parse_tz_str(rule)  # type: ignore[attr-defined]
    kinds = (told.std, told.dst) if isinstance(told, _zoneinfo._TZStr) else (told,)  # type: ignore[attr-defined]
    return {int(kind.utcoff.total_seconds()) for kind in kinds}


def test_every_zones_closing_rule_gives_the_offsets_zoneinfo_reads():
    rules = _closing_rules()
    assert len(rules) > 300
    for key, rule in rules.items():
        assert rule_offsets(rule) == _zoneinfos_offsets(rule), key


@pytest.mark.parametrize(
    "rule",
    [
        "<+0330>-3:30",
        "EST5EDT,M3.2.0,M11.1.0",
        "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
        "AAA-24:00:00BBB-23,J1,J300",
        "XXX+5:30",
        "UTC0",
        "AAA",
        "AAA3BBB,J60,J300",
        "<-00>+0",
    ],
)
def test_rules_not_in_the_database_too(rule: str):
    assert rule_offsets(rule) == _zoneinfos_offsets(rule)


@pytest.mark.parametrize(
    "rule", ["", "5", "AAA5:3", "AAA25", "AAA1:00:00:00", "<AAA5", "AAA5BBB5CCC", "AAA5.5"]
)
def test_what_is_not_a_rule_is_refused(rule: str):
    with pytest.raises(ValueError):
        rule_offsets(rule)


def test_zone_names_and_offsets_read_as_before():
    assert zone("Europe/Berlin") == ZoneInfo("Europe/Berlin")
    assert zone("Etc/GMT+5") == ZoneInfo("Etc/GMT+5")
    assert zone("+05:30") == timezone(timedelta(hours=5, minutes=30))
    assert zone("utc-8") == timezone(-timedelta(hours=8))


def test_a_timeline_in_a_zone_loads_no_calendar(dinner_home: Path):
    # zoneinfo's pure-Python zone (its rule parser) imports calendar, which imports locale.
    out, modules = imported_by(
        "--home", str(dinner_home), "search", "dinner", "--timeline", "--tz", "Europe/Berlin"
    )
    assert "dinner" in out
    assert not modules & {"calendar", "locale", "zoneinfo._zoneinfo"}


def test_a_search_that_finds_nothing_loads_no_zoneinfo(dinner_home: Path):
    out, modules = imported_by("--home", str(dinner_home), "search", "zzzqqq")
    assert out == "" and not {m for m in modules if m.partition(".")[0] == "zoneinfo"}


@pytest.mark.parametrize("found", ["dinner", "zzzqqq"])
def test_a_wrong_tz_is_an_error_whatever_is_found(dinner_home: Path, found: str):
    done = refind("--home", str(dinner_home), "search", found, "--tz", "Mars/Olympus")
    assert done.returncode == 2 and "unknown time zone" in done.stderr and done.stdout == ""


@pytest.mark.parametrize("args", [(), ("--json",), ("--jsonl",)])
def test_hits_are_shown_in_the_system_zone_read_when_found(dinner_home: Path, args: tuple[str, ...]):
    def shown(*extra: str, zone_set: str) -> str:
        done = refind(
            "--home", str(dinner_home), "search", "dinner", *args, *extra, env=os.environ | {"TZ": zone_set}
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    tokyo = shown(zone_set="Asia/Tokyo")
    assert tokyo == shown("--tz", "Asia/Tokyo", zone_set="America/New_York")
    assert tokyo != shown(zone_set="America/New_York")


def test_the_matches_of_several_language_groups_count_as_one():
    from refind_cli.method.search import _Merged

    rng = random.Random(8)
    parts = [[rng.randrange(10**9, 2 * 10**9) for _ in range(n)] for n in (40, 0, 25)]
    every = sorted(t for part in parts for t in part)
    merged = _Merged([held(part) for part in parts])
    assert merged.span() == (every[0], every[-1])
    edges = sorted(rng.sample(every, 10))
    at = [0, *(bisect.bisect_left(every, e) for e in edges), len(every)]
    assert merged.counts(edges) == [b - a for a, b in itertools.pairwise(at)]
    assert sorted(merged.times_within([(every[3], every[9])])) == every[3:9]
    berlin = ZoneInfo("Europe/Berlin")
    assert [(b.start, b.tally) for b in spread_timeline(merged, berlin, CLAMP).buckets] == _spread_one_by_one(
        every, berlin
    )
    assert _Merged([held([]), held([])]).span() is None
