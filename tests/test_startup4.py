"""Issue 26 items 3 and 5, session 16: a search loads no ``json`` (the archive's raw-record encoders taken from
the accelerator, the index's CURRENT read in the form it is written in), opens the index on disk without an
empty one in memory first, and a timeline reads one fast field and converts only the moments near a local
midnight in a zoneinfo zone. Each keeps what is shown as it was."""

from __future__ import annotations

import json
import random
import shutil
import time
from collections import Counter
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, available_timezones

import pytest
import tantivy
from dateutil.tz import tzlocal
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import SAMPLES
from test_cli_startup import imported_by
from test_cold_search_cpu import _spread_one_by_one, told_zone

from refind_cli.dates import clock
from refind_cli.dates.clock import offset_bounds, zone_fingerprint
from refind_cli.dates.timeline import local_days, timeline, zone_offsets
from refind_cli.index.tantivy_backend import CURRENT, TantivyIndex, _as_written
from refind_cli.ingest import import_file
from refind_cli.ingest.ledger import import_settings
from refind_cli.request import SearchRequest
from refind_cli.storage import raw
from refind_cli.storage.archive import Archive
from refind_cli.text import language, names_data

ZONES = sorted(available_timezones())


def _offset(ts: int, tz: ZoneInfo) -> int:
    delta = datetime.fromtimestamp(ts, UTC).astimezone(tz).utcoffset()
    assert delta is not None
    return int(delta.total_seconds())


def test_every_zones_offsets_lie_within_the_bounds_read_from_its_file():
    # Every zone of the tz database, at instants from 1800 to 2200 (its local mean time, its wars, the years
    # its closing rule gives) and at random ones: none has an offset outside what its file lists.
    rng = random.Random(26)
    fixed = [
        int(datetime(year, month, 15, tzinfo=UTC).timestamp())
        for year in range(1800, 2201, 7)
        for month in (1, 7)
    ]
    for key in ZONES:
        tz = ZoneInfo(key)
        bounds = offset_bounds(tz)
        assert bounds is not None, key
        least, most = bounds
        moments = fixed + [rng.randrange(-5_364_662_400, 7_258_118_400) for _ in range(60)]
        offsets = {_offset(ts, tz) for ts in moments}
        assert least <= min(offsets) and max(offsets) <= most, key


def test_the_bounds_of_a_few_zones():
    assert offset_bounds(ZoneInfo("UTC")) == (0, 0)
    # Berlin's local mean time (+0:53:28) before 1893, and its midsummer time of 1945 and 1947 (+3).
    assert offset_bounds(ZoneInfo("Europe/Berlin")) == (3208, 10800)
    assert offset_bounds(clock.zone("+05:30")) is None  # a fixed zone needs none


@settings(max_examples=200, deadline=None)
@given(
    key=st.sampled_from(ZONES),
    moments=st.lists(st.integers(-5_364_662_400, 7_258_118_399), min_size=1, max_size=40),
    near=st.lists(st.integers(-14 * 3600, 14 * 3600), max_size=40),
    around=st.integers(-2_208_988_800, 2_145_916_800),
)
def test_a_timeline_in_any_zone_counts_what_each_moments_own_date_counts(
    key: str, moments: list[int], near: list[int], around: int
):
    # Few moments over a long span (the bounds' path), many of them about a UTC midnight, where a local
    # midnight falls in most zones: those are the ones converted.
    tz = ZoneInfo(key)
    every = moments + [around - around % 86_400 + d for d in near]
    spread = [(b.start, b.tally) for b in timeline(every, tz).buckets]
    assert spread == _spread_one_by_one(every, tz)
    assert local_days(every, tz) == Counter(datetime.fromtimestamp(ts, tz).date() for ts in every)


def test_where_the_zones_file_cannot_be_read_each_moment_is_converted(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(clock, "_BOUNDS", {})
    monkeypatch.setattr("zoneinfo.TZPATH", ())
    monkeypatch.setattr("zoneinfo._common.load_tzdata", lambda key: open("/nonexistent/zone", "rb"))  # noqa: SIM115
    tz = ZoneInfo("America/St_Johns")
    assert offset_bounds(tz) is None
    moments = [0, 86_399, 1_000_000_000, 4_000_000_000, -2_000_000_000]
    spread = [(b.start, b.tally) for b in timeline(moments, tz).buckets]
    assert spread == _spread_one_by_one(moments, tz)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_raw_records_write_strings_as_json_does(text: str):
    _, as_string, as_ascii = raw.FORMS[:3]
    assert as_string(text) == json.dumps(text, ensure_ascii=False)[1:-1]
    assert as_ascii(text) == json.dumps(text)[1:-1]


@settings(max_examples=300, deadline=None)
@given(generation=st.text(max_size=30), fmt=st.text(max_size=60), indent=st.sampled_from([None, 1]))
def test_current_reads_as_json_reads_it(generation: str, fmt: str, indent: int | None):
    for text in (
        json.dumps({"generation": generation, "format": fmt}),  # as written
        json.dumps({"generation": generation, "format": fmt}, ensure_ascii=False, indent=indent),
        json.dumps({"format": fmt, "generation": generation}),
    ):
        read = _as_written(text)
        assert read is None or read == json.loads(text)
    # json.dumps writes as they are only " " to "~" (DEL, 0x7F, is escaped too), quote and backslash aside.
    if all(c not in '"\\' and 0x20 <= ord(c) < 0x7F for c in generation + fmt):
        assert _as_written(json.dumps({"generation": generation, "format": fmt})) is not None


def test_an_index_whose_current_is_spelt_otherwise_opens_the_same_generation(
    sample_home: Path, tmp_path: Path
):
    home = tmp_path / "home"
    shutil.copytree(sample_home, home)
    written = TantivyIndex.open(home)
    assert written.generation is not None and written.num_docs > 0
    current = home / "index" / CURRENT
    meta = json.loads(current.read_text(encoding="utf-8"))
    current.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    again = TantivyIndex.open(home)
    assert again.generation == written.generation and again.num_docs == written.num_docs
    current.write_text("{not json", encoding="utf-8")
    assert TantivyIndex.open(home).generation is None  # read as missing, as before


def test_an_index_on_disk_is_opened_without_an_empty_one_in_memory(
    sample_home: Path, empty_home: Path, monkeypatch: pytest.MonkeyPatch
):
    made: list[bool] = []
    real = tantivy.Index

    def counted(*args: object, **kwargs: object) -> tantivy.Index:
        made.append("path" in kwargs)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tantivy, "Index", counted)
    TantivyIndex.open(sample_home)
    assert made == [True]
    made.clear()
    empty = TantivyIndex.open(empty_home)
    assert made == [False] and empty.num_docs == 0


def test_a_timeline_reads_the_times_the_turns_hold(sample_home: Path):
    index = TantivyIndex.open(sample_home)
    request = SearchRequest("dentist", k=3)
    matches = index.matching(index.analyzer.analyze("dentist appointment"), request, set())
    assert matches.total > 1
    times = sorted(key[0] for key in matches.turns(range(len(matches.scores))))
    assert matches.span() == (times[0], times[-1])
    assert sorted(matches.times_within([(times[0], times[-1] + 1)])) == times


@pytest.fixture(scope="module")
def english_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One English chat: its analysis loads no other language's stop words (the ``stop_words`` package reads
    its lists as JSON)."""
    home = tmp_path_factory.mktemp("english") / "home"
    with Archive.open(home) as archive:
        chat = SAMPLES / "WhatsApp Chat with Jonas Becker.txt"
        assert import_file(archive, chat, tz=ZoneInfo("Europe/Berlin")).error is None
        TantivyIndex.open(home).sync(archive)
    return home


@pytest.mark.parametrize(
    "args",
    [
        ("search", "bouldering"),
        ("search", "bouldering", "--timeline", "--tz", "Europe/Berlin"),
        ("search", "zzzqqq"),
        ("chats",),
    ],
)
def test_a_piped_read_loads_no_json(english_home: Path, args: tuple[str, ...]):
    out, modules = imported_by("--home", str(english_home), *args)
    assert args[1:2] != ("bouldering",) or "bouldering" in out.casefold()
    assert not {m for m in modules if m.partition(".")[0] in ("json", "stop_words")}


def test_json_output_still_loads_it(english_home: Path):
    out, modules = imported_by("--home", str(english_home), "search", "bouldering", "--json")
    assert "json" in modules and json.loads(out)["results"]


# The system's zone as zoneinfo reads it (``clock.system_zone``), against the C library and dateutil's tzlocal.
_SYSTEM_ZONES = [
    "Europe/Berlin",
    "America/New_York",
    "Australia/Sydney",
    "America/St_Johns",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
    "Europe/Moscow",
    "America/Sao_Paulo",
    "Africa/Casablanca",
    "Pacific/Apia",
]
# Zones and years over which their rules of today held throughout: there tzlocal (today's two offsets) is right.
_STEADY = {"Europe/Berlin": (1997, 2037), "America/New_York": (2008, 2037), "Australia/Sydney": (2009, 2037)}


def _instants(lo_year: int, hi_year: int, tz: tzinfo, rng: random.Random) -> list[int]:
    """Random instants of those years, and every quarter hour of the three hours either side of each offset
    change in them (the zone's changes found by ``zone_offsets``)."""
    lo, hi = (int(datetime(y, 1, 1, tzinfo=UTC).timestamp()) for y in (lo_year, hi_year))
    around = [at + q * 900 for at, _ in zone_offsets(lo, hi, tz)[1:] for q in range(-12, 13)]
    return around + [rng.randrange(lo, hi) for _ in range(2_000)]


@pytest.mark.parametrize("name", _SYSTEM_ZONES)
def test_the_system_zone_shows_the_times_the_system_shows(name: str):
    rng = random.Random(name)
    with told_zone(name):
        tz = clock.zone(None)
        assert isinstance(tz, ZoneInfo) and tz.key == name
        for ts in _instants(1900, 2037, tz, rng):
            assert _offset(ts, tz) == time.localtime(ts).tm_gmtoff, (name, ts)


@pytest.mark.parametrize("name", sorted(_STEADY))
def test_where_tzlocal_was_right_the_system_zone_shows_the_same_times_across_each_change(name: str):
    rng = random.Random(name)
    with told_zone(name):
        tz, before = clock.zone(None), tzlocal()
        for ts in _instants(*_STEADY[name], tz, rng):
            moment = datetime.fromtimestamp(ts, UTC)
            shown, was = moment.astimezone(tz), moment.astimezone(before)
            assert (shown.replace(tzinfo=None), shown.utcoffset()) == (
                was.replace(tzinfo=None),
                was.utcoffset(),
            )
            # A wall time read back (an export's local time): the same moment, at either of a doubled hour.
            wall = shown.replace(tzinfo=None)
            for fold in (0, 1):
                assert wall.replace(tzinfo=tz, fold=fold).astimezone(UTC) == wall.replace(
                    tzinfo=before, fold=fold
                ).astimezone(UTC)


@pytest.mark.parametrize(
    "name", ["CET-1CEST,M3.5.0,M10.5.0/3", "", "Nowhere/Zone", "/etc/localtime", "right/UTC"]
)
def test_a_system_zone_zoneinfo_cannot_name_is_the_c_librarys(name: str):
    with told_zone(name):
        assert isinstance(clock.zone(None), tzlocal)


def test_m041_names_the_system_zone_in_ledger_entries_written_in_it(tmp_path: Path):
    chat = SAMPLES / "WhatsApp Chat with Jonas Becker.txt"
    with told_zone("Europe/Berlin"):
        path = tmp_path / "home"
        with Archive.open(path) as archive:
            first = import_file(archive, chat, tz=tzlocal())  # as the release before wrote it
            assert first.error is None and first.unchanged_since is None
            elsewhere = import_settings(ZoneInfo("Asia/Tokyo"), "x").replace(
                "zone Asia/Tokyo", "zone offsets:0"
            )
            archive.db.execute(
                "INSERT INTO imports (path, sha256, format, started, settings) VALUES ('p', 'h', 'f', 's', ?)",
                (elsewhere,),
            )
            settings = dict(archive.db.execute("SELECT seq, settings FROM imports").fetchall())
            assert "zone offsets:" in settings[1]
            archive.db.execute("DELETE FROM migrations WHERE name = 'm041_system_zone_named'")
        with Archive.open(path) as archive:  # opened for writing: migrated
            after = dict(archive.db.execute("SELECT seq, settings FROM imports").fetchall())
            assert (
                after[1] == settings[1].replace(f"zone {zone_fingerprint(tzlocal())}", "zone Europe/Berlin")
                and after[1] != settings[1]
            )
            assert after[2] == elsewhere  # written in another zone: left as it was
            again = import_file(archive, chat, tz=clock.zone(None))
            assert again.unchanged_since is not None  # not read again


def test_the_english_names_of_languages_are_cldrs():
    # The generated table is Babel's English locale's, as `refind chats` read it before (loading it took ~34 ms).
    assert language.generate_names() == names_data.ENGLISH
    assert language.name("de+en") == "German + English" and language.name("el") == "Greek"
    assert language.english_name("qqq") == "qqq"


def test_refind_chats_loads_no_babel_and_names_the_languages(sample_home: Path):
    out, modules = imported_by("--home", str(sample_home), "chats")
    assert "\tEnglish" in out
    assert not {m for m in modules if m.partition(".")[0] == "babel"}
