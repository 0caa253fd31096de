"""A cold read's CPU (issue 26 items 3 and 5, session 15): the quick path runs with the cyclic collector
paused (its start-up makes objects that live until it ends; a search of stdin's queries, which may run long,
runs with it as it was); the records a search builds make their named tuple classes from evaluated
annotations, not strings that typing compiles one by one; a timeline counts per day without a date a day."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import typing
from collections import Counter
from collections.abc import Iterator
from datetime import date, datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from dateutil.tz import tzlocal
from hypothesis import given, settings
from hypothesis import strategies as st

import refind_cli.frontends.cli.params
import refind_cli.records
import refind_cli.request
import refind_cli.results
import refind_cli.text.query
import refind_cli.text.snippet
from refind_cli.dates.clock import system_offsets, zone
from refind_cli.dates.timeline import bucket_start, local_days, next_start, timeline, unit_for


def collections_during(home: Path, args: list[str], *, stdin: str = "", collecting: bool = True) -> list[str]:
    """What a process running ``refind --home HOME ARGS`` through ``main`` says: the number of collections the
    collector ran until the quick path ended the command (else until ``main`` was done; its threshold at 1:
    any allocation with it on starts one), whether it is on once ``main`` is done, and the exit status."""
    code = (
        "import gc, sys\n"
        f"{'' if collecting else 'gc.disable()'}\n"
        "gc.set_threshold(1)\n"
        "runs = []\n"
        "gc.callbacks.append(lambda phase, info: runs.append(phase) if phase == 'start' else None)\n"
        f"sys.argv = ['refind', '--home', {str(home)!r}, *{args!r}]\n"
        "from refind_cli.frontends.cli import main\n"
        "count = None\n"
        "runs.clear()\n"
        "def end(code):\n    global count\n    count = len(runs)\n    sys.exit(code)\n"
        "try:\n    main(end)\nexcept SystemExit as exc:\n    status = exc.code\n"
        "print('RAN', len(runs) if count is None else count, gc.isenabled(), status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=120
    )
    assert "RAN" in done.stdout, done.stderr
    return done.stdout.rpartition("RAN")[2].split()


@pytest.mark.parametrize(
    "args",
    [["search", "dentist"], ["search", "dentist", "--json"], ["chats"], ["stats", "--tz", "UTC"]],
)
def test_a_quick_read_runs_without_the_collector_and_turns_it_back_on(sample_home: Path, args: list[str]):
    assert collections_during(sample_home, args) == ["0", "True", "0"]


def test_a_caller_that_paused_the_collector_finds_it_paused(sample_home: Path):
    assert collections_during(sample_home, ["search", "dentist"], collecting=False) == ["0", "False", "0"]


def test_a_search_of_stdins_queries_runs_with_the_collector(sample_home: Path):
    count, on, status = collections_during(sample_home, ["search", "-"], stdin="dentist\nsofa\n")
    assert int(count) > 0 and on == "True" and status == "0"


def test_the_typer_app_runs_with_the_collector(sample_home: Path):
    # `show` is not on the quick path: typer builds its command and runs it, the collector on.
    count, on, status = collections_during(sample_home, ["show", "no-such-turn"])
    assert int(count) > 0 and on == "True" and status == "2"


@pytest.mark.parametrize(
    "module",
    [
        refind_cli.records,
        refind_cli.results,
        refind_cli.request,
        refind_cli.text.query,
        refind_cli.text.snippet,
        refind_cli.frontends.cli.params,
    ],
)
def test_the_records_a_search_builds_have_no_field_typing_compiles(module: object):
    tuples = [
        c
        for c in vars(module).values()
        if isinstance(c, type) and issubclass(c, tuple) and hasattr(c, "_fields")
    ]
    assert tuples
    compiled = {
        (c.__name__, field)
        for c in tuples
        for field, kind in c.__annotations__.items()
        if isinstance(kind, typing.ForwardRef)
    }
    # The one type a search's result names that only type checking imports (the timeline, a search's option).
    assert compiled <= {("SearchResult", "timeline")}


# A `--timeline` counts per local day without a date a day (``timeline._bucketed``): the same counts as each
# moment's own date in the zone, bucketed one by one.
_ZONES = ["UTC", "Europe/Berlin", "Asia/Kolkata", "America/St_Johns", "Australia/Lord_Howe", "Pacific/Apia"]


def _spread_one_by_one(moments: list[int], tz: tzinfo) -> list[tuple[date, int]]:
    days = Counter(datetime.fromtimestamp(ts, tz).date() for ts in moments)
    if not days:
        return []
    unit = unit_for(min(days), max(days))
    counts: Counter[date] = Counter()
    for day, n in days.items():
        counts[bucket_start(day, unit)] += n
    out, at = [], bucket_start(min(days), unit)
    while at <= bucket_start(max(days), unit):
        out.append((at, counts[at]))
        at = next_start(at, unit)
    return out


@settings(max_examples=300, deadline=None)
@given(
    zone=st.sampled_from(_ZONES),
    moments=st.lists(st.integers(0, 7_258_118_399), max_size=30),  # to the end of 2199 (``records.TIMES``)
    around=st.integers(946_684_800, 2_000_000_000),
    step=st.integers(1, 86_400),
    count=st.integers(0, 600),
)
def test_a_timeline_counts_what_each_moments_own_date_counts(
    zone: str, moments: list[int], around: int, step: int, count: int
):
    # Moments anywhere (few over a long span: each converted), and a run of moments at most a day apart over
    # up to 600 days (the zone's changes between them found, the runs between changes counted apart).
    tz = ZoneInfo(zone)
    every = moments + [around + i * step for i in range(count)]
    spread = [(b.start, b.tally) for b in timeline(every, tz).buckets]
    assert spread == _spread_one_by_one(every, tz)
    assert local_days(every, tz) == Counter(datetime.fromtimestamp(ts, tz).date() for ts in every)


@contextlib.contextmanager
def system_zone(name: str) -> Iterator[tzinfo]:
    """The system's zone as dateutil's ``tzlocal`` makes it, the C library told ``name``: what ``zone(None)``
    gives where ``TZ`` holds a POSIX rule (a name of the tz database is zoneinfo's since session 16)."""
    with told_zone(name):
        yield tzlocal()


@contextlib.contextmanager
def told_zone(name: str) -> Iterator[None]:
    """The C library told ``name`` as the system's zone (``TZ``) inside the block."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(_ZONES),
    moments=st.lists(st.integers(0, 7_258_118_399), max_size=30),
    around=st.integers(946_684_800, 2_000_000_000),
    near=st.lists(st.integers(-3 * 3600, 3 * 3600), max_size=30),
)
def test_a_timeline_in_the_system_zone_counts_what_each_moments_own_date_counts(
    name: str, moments: list[int], around: int, near: list[int]
):
    # Few moments over a long span, some of them about the hour before a local midnight (at the zone's two
    # offsets, on two days), where each is converted.
    with system_zone(name) as tz:
        assert system_offsets(tz) is not None
        every = moments + [around - around % 86_400 + d for d in near]
        spread = [(b.start, b.tally) for b in timeline(every, tz).buckets]
        assert spread == _spread_one_by_one(every, tz)
        assert local_days(every, tz) == Counter(datetime.fromtimestamp(ts, tz).date() for ts in every)


def test_only_the_system_zone_has_its_offsets_told():
    assert system_offsets(ZoneInfo("Europe/Berlin")) is None
    assert system_offsets(zone("+05:30")) is None
    with system_zone("Europe/Berlin") as tz:
        assert system_offsets(tz) == (3600, 7200)
    with system_zone("Asia/Kolkata") as tz:
        assert system_offsets(tz) == (19800, 19800)
