from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refind_cli.dates.clock import zone
from refind_cli.dates.timeexpr import TimeRange, find_ranges, parse_bound, parse_instant, parse_range
from refind_cli.errors import RefindError

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 30, 15, 0, tzinfo=BERLIN)  # a Monday, in winter time (UTC+1)
US = timedelta(microseconds=1)


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def rng(text: str, now: datetime = NOW, tz: ZoneInfo = BERLIN) -> tuple[datetime, datetime]:
    found = parse_range(text, now=now, tz=tz)
    return found.start, found.end


# Expected values are UTC: Berlin is UTC+1 in winter and UTC+2 from 29 March to 25 October 2026.
TABLE = [
    # ISO and partial dates
    ("2023-05-04", "2023-05-03T22:00", "2023-05-04T21:59:59.999999"),
    ("2023-5-4", "2023-05-03T22:00", "2023-05-04T21:59:59.999999"),
    ("2023-05-04T10:30", "2023-05-04T08:30", "2023-05-04T08:30:59.999999"),
    ("2023-05-04 10:30:15", "2023-05-04T08:30:15", "2023-05-04T08:30:15.999999"),
    ("2023-05-04T10:30:15.25", "2023-05-04T08:30:15.250000", "2023-05-04T08:30:15.259999"),
    ("2023-05-04T10:30+05:30", "2023-05-04T05:00", "2023-05-04T05:00:59.999999"),
    ("2023-05-04T10:30-0300", "2023-05-04T13:30", "2023-05-04T13:30:59.999999"),
    ("2023-05-04T10:30Z", "2023-05-04T10:30", "2023-05-04T10:30:59.999999"),
    ("2023-05", "2023-04-30T22:00", "2023-05-31T21:59:59.999999"),
    ("2023", "2022-12-31T23:00", "2023-12-31T22:59:59.999999"),
    ("1850", "1849-12-31T23:06:32", "1850-12-31T23:06:31.999999"),  # Berlin local mean time, +00:53:28
    # days
    ("today", "2026-11-29T23:00", "2026-11-30T22:59:59.999999"),
    ("Yesterday", "2026-11-28T23:00", "2026-11-29T22:59:59.999999"),
    ("the day before yesterday", "2026-11-27T23:00", "2026-11-28T22:59:59.999999"),
    ("tomorrow", "2026-11-30T23:00", "2026-12-01T22:59:59.999999"),
    ("2 days ago", "2026-11-27T23:00", "2026-11-28T22:59:59.999999"),
    ("a day ago", "2026-11-28T23:00", "2026-11-29T22:59:59.999999"),
    ("now", "2026-11-30T14:00", "2026-11-30T14:00"),
    # weekdays (now is a Monday)
    ("friday", "2026-11-26T23:00", "2026-11-27T22:59:59.999999"),
    ("last friday", "2026-11-26T23:00", "2026-11-27T22:59:59.999999"),
    ("on Friday", "2026-11-26T23:00", "2026-11-27T22:59:59.999999"),
    ("monday", "2026-11-29T23:00", "2026-11-30T22:59:59.999999"),
    ("last monday", "2026-11-22T23:00", "2026-11-23T22:59:59.999999"),
    ("this friday", "2026-12-03T23:00", "2026-12-04T22:59:59.999999"),
    ("next monday", "2026-12-06T23:00", "2026-12-07T22:59:59.999999"),
    ("wed", "2026-11-24T23:00", "2026-11-25T22:59:59.999999"),
    # weeks, Monday to Sunday
    ("last week", "2026-11-22T23:00", "2026-11-29T22:59:59.999999"),
    ("this week", "2026-11-29T23:00", "2026-12-06T22:59:59.999999"),
    ("the week before last", "2026-11-15T23:00", "2026-11-22T22:59:59.999999"),
    ("3 weeks ago", "2026-11-08T23:00", "2026-11-15T22:59:59.999999"),
    ("two weeks ago", "2026-11-15T23:00", "2026-11-22T22:59:59.999999"),
    ("last weekend", "2026-11-27T23:00", "2026-11-29T22:59:59.999999"),
    ("this weekend", "2026-12-04T23:00", "2026-12-06T22:59:59.999999"),
    ("weekend", "2026-11-27T23:00", "2026-11-29T22:59:59.999999"),
    # months: October starts in summer time and ends in winter time
    ("this month", "2026-10-31T23:00", "2026-11-30T22:59:59.999999"),
    ("last month", "2026-09-30T22:00", "2026-10-31T22:59:59.999999"),
    ("next month", "2026-11-30T23:00", "2026-12-31T22:59:59.999999"),
    ("3 months ago", "2026-07-31T22:00", "2026-08-31T21:59:59.999999"),
    ("march", "2026-02-28T23:00", "2026-03-31T21:59:59.999999"),
    ("in March", "2026-02-28T23:00", "2026-03-31T21:59:59.999999"),
    ("march 2023", "2023-02-28T23:00", "2023-03-31T21:59:59.999999"),
    ("March, 2023", "2023-02-28T23:00", "2023-03-31T21:59:59.999999"),
    ("sept 2023", "2023-08-31T22:00", "2023-09-30T21:59:59.999999"),
    ("may", "2026-04-30T22:00", "2026-05-31T21:59:59.999999"),
    ("december", "2025-11-30T23:00", "2025-12-31T22:59:59.999999"),  # the latest December not after now
    ("november", "2026-10-31T23:00", "2026-11-30T22:59:59.999999"),
    ("last november", "2025-10-31T23:00", "2025-11-30T22:59:59.999999"),
    ("next march", "2027-02-28T23:00", "2027-03-31T21:59:59.999999"),
    ("early june", "2026-05-31T22:00", "2026-06-10T21:59:59.999999"),
    ("mid-June", "2026-06-10T22:00", "2026-06-20T21:59:59.999999"),
    ("the end of February 2024", "2024-02-22T23:00", "2024-02-29T22:59:59.999999"),
    # days of a month
    ("3 May", "2026-05-02T22:00", "2026-05-03T21:59:59.999999"),
    ("the 3rd of May 2023", "2023-05-02T22:00", "2023-05-03T21:59:59.999999"),
    ("May 3, 2023", "2023-05-02T22:00", "2023-05-03T21:59:59.999999"),
    ("december 24", "2025-12-23T23:00", "2025-12-24T22:59:59.999999"),
    ("30 november", "2026-11-29T23:00", "2026-11-30T22:59:59.999999"),
    # years
    ("this year", "2025-12-31T23:00", "2026-12-31T22:59:59.999999"),
    ("last year", "2024-12-31T23:00", "2025-12-31T22:59:59.999999"),
    ("a year ago", "2024-12-31T23:00", "2025-12-31T22:59:59.999999"),
    ("late 2024", "2024-08-31T22:00", "2024-12-31T22:59:59.999999"),
    # "the beginning/end of": its first or last days (7 of a month, one month of a year or quarter)
    ("the beginning of 2024", "2023-12-31T23:00", "2024-01-31T22:59:59.999999"),
    ("end of 2025", "2025-11-30T23:00", "2025-12-31T22:59:59.999999"),
    ("end of April", "2026-04-23T22:00", "2026-04-30T21:59:59.999999"),
    ("the start of May 2025", "2025-04-30T22:00", "2025-05-07T21:59:59.999999"),
    ("late April", "2026-04-20T22:00", "2026-04-30T21:59:59.999999"),
    # what people type besides ISO
    ("5 minutes ago", "2026-11-30T13:55", "2026-11-30T13:55:59.999999"),
    ("an hour ago", "2026-11-30T13:00", "2026-11-30T13:59:59.999999"),
    ("2026/04/07", "2026-04-06T22:00", "2026-04-07T21:59:59.999999"),
    ("20260407", "2026-04-06T22:00", "2026-04-07T21:59:59.999999"),
    ("Q2 2026", "2026-03-31T22:00", "2026-06-30T21:59:59.999999"),
    ("2025-Q4", "2025-09-30T22:00", "2025-12-31T22:59:59.999999"),
    ("the end of Q1 2026", "2026-02-28T23:00", "2026-03-31T21:59:59.999999"),
    # seasons, northern hemisphere; a winter belongs to the year of its January
    ("last spring", "2026-02-28T23:00", "2026-05-31T21:59:59.999999"),
    ("spring", "2026-02-28T23:00", "2026-05-31T21:59:59.999999"),
    ("autumn", "2026-08-31T22:00", "2026-11-30T22:59:59.999999"),
    ("last fall", "2025-08-31T22:00", "2025-11-30T22:59:59.999999"),
    ("this winter", "2026-11-30T23:00", "2027-02-28T22:59:59.999999"),
    ("winter", "2025-11-30T23:00", "2026-02-28T22:59:59.999999"),
    ("summer of 2025", "2025-05-31T22:00", "2025-08-31T21:59:59.999999"),
    ("late summer 2025", "2025-07-31T22:00", "2025-08-31T21:59:59.999999"),
    # rolling windows end now
    ("the past 3 days", "2026-11-27T14:00", "2026-11-30T14:00"),
    ("past week", "2026-11-23T14:00", "2026-11-30T14:00"),
    ("last 2 months", "2026-09-30T14:00", "2026-11-30T14:00"),
    # open at the far end, closed by now; and explicit spans
    ("since march", "2026-02-28T23:00", "2026-11-30T14:00"),
    ("after 2024", "2024-12-31T23:00", "2026-11-30T14:00"),
    ("from march to may", "2026-02-28T23:00", "2026-05-31T21:59:59.999999"),
    ("between 2023 and 2024", "2022-12-31T23:00", "2024-12-31T22:59:59.999999"),
    ("2023-05-01 to 2023-05-04", "2023-04-30T22:00", "2023-05-04T21:59:59.999999"),
    ("from December to February", "2025-11-30T23:00", "2026-02-28T22:59:59.999999"),
    ("from March to May 2025", "2025-02-28T23:00", "2025-05-31T21:59:59.999999"),
]


@pytest.mark.parametrize(("text", "start", "end"), TABLE)
def test_table(text: str, start: str, end: str) -> None:
    assert rng(text) == (utc(start), utc(end))


def test_parse_bound_gives_the_start_or_the_inclusive_end() -> None:
    assert parse_bound("2023-05-04", now=NOW, tz=BERLIN, end=False) == utc("2023-05-03T22:00")
    assert parse_bound("2023-05-04", now=NOW, tz=BERLIN, end=True) == utc("2023-05-04T21:59:59.999999")
    assert parse_bound("2023-05", now=NOW, tz=BERLIN, end=True) == utc("2023-05-31T21:59:59.999999")
    assert parse_bound("  last week ", now=NOW, tz=BERLIN, end=True).tzinfo is UTC


def test_ambiguous_month_means_the_latest_not_after_now() -> None:
    february = datetime(2026, 2, 10, 12, tzinfo=BERLIN)
    assert rng("in March", now=february) == (utc("2025-02-28T23:00"), utc("2025-03-31T21:59:59.999999"))
    assert rng("february", now=february)[0] == utc("2026-01-31T23:00")
    assert rng("last february", now=february)[0] == utc("2025-01-31T23:00")


def test_weekday_on_that_weekday() -> None:
    friday = datetime(2026, 11, 27, 9, tzinfo=BERLIN)
    assert rng("friday", now=friday)[0] == utc("2026-11-26T23:00")
    assert rng("last friday", now=friday)[0] == utc("2026-11-19T23:00")
    assert rng("next friday", now=friday)[0] == utc("2026-12-03T23:00")
    sunday = datetime(2026, 11, 29, 9, tzinfo=BERLIN)
    assert rng("weekend", now=sunday)[0] == utc("2026-11-27T23:00")
    assert rng("last weekend", now=sunday)[0] == utc("2026-11-20T23:00")


def test_naive_now_is_wall_clock_in_tz() -> None:
    assert rng("today", now=datetime(2026, 11, 30, 0, 30)) == rng("today")


def test_dst_days_are_23_and_25_hours_long() -> None:
    spring = rng("2026-03-29")
    autumn = rng("2026-10-25")
    assert spring == (utc("2026-03-28T23:00"), utc("2026-03-29T21:59:59.999999"))
    assert autumn == (utc("2026-10-24T22:00"), utc("2026-10-25T22:59:59.999999"))
    assert spring[1] + US - spring[0] == timedelta(hours=23)
    assert autumn[1] + US - autumn[0] == timedelta(hours=25)


def test_repeated_wall_time_means_its_first_occurrence() -> None:
    assert rng("2026-10-25T02:30") == (utc("2026-10-25T00:30"), utc("2026-10-25T00:30:59.999999"))


def test_skipped_wall_time_is_an_error() -> None:
    with pytest.raises(ValueError, match="does not exist in Europe/Berlin"):
        parse_range("2026-03-29T02:30", now=NOW, tz=BERLIN)


def test_day_whose_midnight_is_skipped_starts_at_the_jump() -> None:
    santiago = ZoneInfo("America/Santiago")  # 2026-09-06 00:00 -04 jumps to 01:00 -03
    assert rng("2026-09-06", tz=santiago) == (utc("2026-09-06T04:00"), utc("2026-09-07T02:59:59.999999"))


def test_a_day_that_never_happened() -> None:
    apia = ZoneInfo("Pacific/Apia")  # Samoa skipped 30 December 2011
    with pytest.raises(ValueError, match="does not exist"):
        parse_range("2011-12-30", now=NOW, tz=apia)
    assert rng("2011-12-31", tz=apia)[0] == utc("2011-12-30T10:00")


def test_leap_years() -> None:
    assert rng("2024-02")[1] == utc("2024-02-29T22:59:59.999999")
    assert rng("2023-02")[1] == utc("2023-02-28T22:59:59.999999")
    assert rng("2024-02-29")[0] == utc("2024-02-28T23:00")
    assert rng("29 february")[0] == utc("2024-02-28T23:00")  # the latest 29 February, asked in 2026
    assert rng("feb 29", now=datetime(2028, 3, 1, tzinfo=BERLIN))[0] == utc("2028-02-28T23:00")
    with pytest.raises(ValueError, match="February 2023 has no day 29"):
        parse_range("2023-02-29", now=NOW, tz=BERLIN)
    with pytest.raises(ValueError, match="February 2023 has no day 29"):
        parse_range("feb 29 2023", now=NOW, tz=BERLIN)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty date"),
        ("   ", "empty date"),
        ("soon", "cannot read 'soon' as a date or time; try 2023-05-04"),
        ("2023-05-04 and more", "cannot read '2023-05-04 and more'"),
        ("early yesterday", "cannot read 'early yesterday'"),
        ("2023-13", "'2023-13': there is no month 13"),
        ("2023-00-10", "there is no month 0"),
        ("2023-05-04T25:00", "there is no time 25:00"),
        ("2023-05-04T10:61", "there is no time 10:61"),
        ("2023-05-04T10:30+24:00", "there is no UTC offset"),
        ("31 april", "April has no day 31"),
        ("before 2024", "'before 2024' has no definite start and end"),
        ("until march", "has no definite start and end"),
        ("two weeks before 3 may", "has no definite start and end"),
        ("from 2024 to 2023", "ends before it starts"),
        ("0001-01-01", "'0001-01-01':"),
        ("9999 years ago", "'9999 years ago':"),
    ],
)
def test_invalid_input(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_bound(text, now=NOW, tz=BERLIN, end=False)


def test_error_messages_are_one_short_line() -> None:
    with pytest.raises(ValueError) as err:
        parse_bound("next blue moon", now=NOW, tz=BERLIN, end=True)
    assert "\n" not in str(err.value) and len(str(err.value)) < 160


def test_parse_instant() -> None:
    assert parse_instant("2026-11-30", tz=BERLIN) == utc("2026-11-29T23:00")
    assert parse_instant("2026-11-30T15:00", tz=BERLIN) == utc("2026-11-30T14:00")
    assert parse_instant("2026-07-01T15:00:30", tz=BERLIN) == utc("2026-07-01T13:00:30")
    assert parse_instant("2026-11-30T15:00+00:00", tz=BERLIN) == utc("2026-11-30T15:00")
    assert parse_instant("2026-11", tz=BERLIN) == utc("2026-10-31T23:00")
    for bad, message in [
        ("yesterday", "cannot read 'yesterday' as an ISO date"),
        ("2026-02-30", "February 2026 has no day 30"),
        ("2026-03-29T02:15", "does not exist"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_instant(bad, tz=BERLIN)


def found(question: str, now: datetime = NOW) -> list[tuple[str, datetime, datetime]]:
    return [(r.text, r.start, r.end) for r in find_ranges(question, now=now, tz=BERLIN)]


QUESTIONS = [
    ("what did I do last spring?", "last spring", "2026-02-28T23:00", "2026-05-31T21:59:59.999999"),
    ("when did we meet in March?", "in March", "2026-02-28T23:00", "2026-03-31T21:59:59.999999"),
    ("in the summer of 2025", "in the summer of 2025", "2025-05-31T22:00", "2025-08-31T21:59:59.999999"),
    ("what did we eat on 3 May", "on 3 May", "2026-05-02T22:00", "2026-05-03T21:59:59.999999"),
    ("who called yesterday?", "yesterday", "2026-11-28T23:00", "2026-11-29T22:59:59.999999"),
    ("what did we do last weekend", "last weekend", "2026-11-27T23:00", "2026-11-29T22:59:59.999999"),
    ("the film from 3 days ago", "from 3 days ago", "2026-11-26T23:00", "2026-11-27T22:59:59.999999"),
    ("where did I travel in 2024?", "in 2024", "2023-12-31T23:00", "2024-12-31T22:59:59.999999"),
    ("the party in early June", "in early June", "2026-05-31T22:00", "2026-06-10T21:59:59.999999"),
    ("how much did I spend last month", "last month", "2026-09-30T22:00", "2026-10-31T22:59:59.999999"),
    ("plans for may 2025?", "may 2025", "2025-04-30T22:00", "2025-05-31T21:59:59.999999"),
    ("any news since May?", "since May", "2026-04-30T22:00", "2026-11-30T14:00"),
    ("we went hiking in the fall", "in the fall", "2026-08-31T22:00", "2026-11-30T22:59:59.999999"),
    ("the 2023-05-04 meeting", "the 2023-05-04", "2023-05-03T22:00", "2023-05-04T21:59:59.999999"),
    ("the WEEK BEFORE LAST", "the WEEK BEFORE LAST", "2026-11-15T23:00", "2026-11-22T22:59:59.999999"),
    (
        "trips between 2023 and 2024",
        "between 2023 and 2024",
        "2022-12-31T23:00",
        "2024-12-31T22:59:59.999999",
    ),
    ("what did he say 2 hours ago?", "2 hours ago", "2026-11-30T12:00", "2026-11-30T12:59:59.999999"),
    ("files from 2026/04/07", "from 2026/04/07", "2026-04-06T22:00", "2026-04-07T21:59:59.999999"),
    ("sales in Q3 2026", "in Q3 2026", "2026-06-30T22:00", "2026-09-30T21:59:59.999999"),
    ("at the end of April", "at the end of April", "2026-04-23T22:00", "2026-04-30T21:59:59.999999"),
    ("plans for mid-2025", "mid-2025", "2025-04-30T22:00", "2025-08-31T21:59:59.999999"),
    ("between March and may", "between March and may", "2026-02-28T23:00", "2026-05-31T21:59:59.999999"),
    ("spring to fall 2025", "spring to fall 2025", "2025-02-28T23:00", "2025-11-30T22:59:59.999999"),
    ("on the\u00a0weekend", "on the\u00a0weekend", "2026-11-27T23:00", "2026-11-29T22:59:59.999999"),
]


@pytest.mark.parametrize(("question", "text", "start", "end"), QUESTIONS)
def test_find_ranges(question: str, text: str, start: str, end: str) -> None:
    assert found(question) == [(text, utc(start), utc(end))]


@pytest.mark.parametrize(
    "question",
    [
        "two weeks before the trip",
        "what happened a few days after the wedding?",
        "three days before 3 May",  # relative to a date, but we answer only whole ranges
        "anything before 2024?",  # open-ended: there is no start to give
        "may I ask you something",
        "you may want to fall back",
        "I paid 2000 euros for it",
        "invoice 20260407 is paid",
        "the 1999 people there",
        "",
        "nothing here at all",
    ],
)
def test_find_ranges_ignores(question: str) -> None:
    assert find_ranges(question, now=NOW, tz=BERLIN) == []


def test_iso_time_inside_text() -> None:
    assert found("a 2024-05-04T10:30 timestamp") == [
        ("2024-05-04T10:30", utc("2024-05-04T08:30"), utc("2024-05-04T08:30:59.999999"))
    ]
    assert found("seven digits 2024-05-04T10:30:00.1234567") == []


def test_find_ranges_finds_several_in_order() -> None:
    got = found("did we speak yesterday or last friday, or in March 2025?")
    assert [t for t, _, _ in got] == ["yesterday", "last friday", "in March 2025"]
    assert found("in February", now=datetime(2026, 2, 1, tzinfo=BERLIN))[0][1] == utc("2026-01-31T23:00")
    assert found("in March", now=datetime(2026, 2, 27, tzinfo=BERLIN))[0][1] == utc("2025-02-28T23:00")


def test_find_ranges_skips_impossible_dates() -> None:
    assert found("on 31 April and on 30 April") == [
        ("on 30 April", utc("2026-04-29T22:00"), utc("2026-04-30T21:59:59.999999"))
    ]


def test_timerange_is_frozen() -> None:
    r = TimeRange(utc("2026-01-01T00:00"), utc("2026-01-01T00:00"), "x")
    with pytest.raises(AttributeError):
        r.text = "y"  # type: ignore[misc]


# --- properties ---------------------------------------------------------------------------------------------

ZONES = [
    ZoneInfo(z) for z in ("UTC", "Europe/Berlin", "America/Santiago", "America/New_York", "Asia/Kolkata")
]
ZONES += [ZoneInfo("Australia/Lord_Howe"), ZoneInfo("America/St_Johns")]
WORDS = (
    "in on since after before until from between and to the of a two 3 12 31 2023 2024 1999 0001 9999 "
    "day days week weeks month months year years weekend ago last this next past early mid late end "
    "beginning today yesterday tomorrow now friday monday sun may march feb december spring summer fall "
    "winter 2024-02-29 2023-02-29 2026-03-29T02:30 2026-10-25T02:30+02:00 2023-05 st rd - , ? trip"
).split()
phrases = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
nows = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2090, 1, 1), timezones=st.just(UTC))


@settings(max_examples=250, deadline=None)
@given(text=st.one_of(st.text(max_size=40), phrases), end=st.booleans(), tz=st.sampled_from(ZONES), now=nows)
def test_parse_bound_returns_utc_or_raises_value_error(
    text: str, end: bool, tz: ZoneInfo, now: datetime
) -> None:
    try:
        got = parse_bound(text, now=now, tz=tz, end=end)
    except ValueError as err:
        assert str(err) and "\n" not in str(err)
        return
    assert got.utcoffset() == timedelta(0)


@settings(max_examples=250, deadline=None)
@given(text=phrases, tz=st.sampled_from(ZONES), now=nows)
def test_every_range_starts_before_it_ends(text: str, tz: ZoneInfo, now: datetime) -> None:
    try:
        r = parse_range(text, now=now, tz=tz)
    except ValueError:
        return
    assert r.start <= r.end


@settings(max_examples=250, deadline=None)
@given(
    text=st.one_of(st.text(max_size=80), phrases, st.lists(phrases, max_size=4).map(" ".join)),
    tz=st.sampled_from(ZONES),
    now=nows,
)
def test_find_ranges_never_raises_and_agrees_with_parse_range(text: str, tz: ZoneInfo, now: datetime) -> None:
    previous_end = -1
    for r in find_ranges(text, now=now, tz=tz):
        assert r.start <= r.end
        at = text.find(r.text, previous_end + 1)
        assert at > previous_end and r.text == r.text.strip()
        previous_end = at + len(r.text) - 1
        again = parse_range(r.text, now=now, tz=tz)
        assert (again.start, again.end) == (r.start, r.end)


@settings(max_examples=150, deadline=None)
@given(tz=st.sampled_from(ZONES), now=nows)
def test_calendar_units_contain_now_and_tile(tz: ZoneInfo, now: datetime) -> None:
    for unit in ("day", "week", "month", "year"):
        this = "today" if unit == "day" else f"this {unit}"
        last = "yesterday" if unit == "day" else f"last {unit}"
        following = "tomorrow" if unit == "day" else f"next {unit}"
        current = parse_range(this, now=now, tz=tz)
        assert current.start <= now <= current.end
        assert parse_range(last, now=now, tz=tz).end + US == current.start
        assert current.end + US == parse_range(following, now=now, tz=tz).start
    spring = parse_range("spring", now=now, tz=tz)
    last_spring = parse_range("last spring", now=now, tz=tz)
    assert spring.start <= now and last_spring.end < now
    if (last_spring.start, last_spring.end) != (spring.start, spring.end):  # now is in spring
        assert spring.start <= now <= spring.end
        assert timedelta(days=364) < spring.start - last_spring.start < timedelta(days=367)


def test_tz_names_offsets_and_nothing() -> None:
    assert zone("+05:30").utcoffset(None) == timedelta(hours=5, minutes=30)
    assert zone("-0800").utcoffset(None) == timedelta(hours=-8)
    assert zone("UTC+2").utcoffset(None) == timedelta(hours=2)
    assert zone("Europe/Berlin") == BERLIN
    assert zone(None) is not None  # the system's
    for bad, problem in [
        ("", "--tz: empty"),
        ("  ", "--tz: empty"),
        ("+25:00", "no UTC offset"),
        ("Mars/Base", "unknown"),
    ]:
        with pytest.raises(RefindError, match=re.escape(problem)):
            zone(bad)
