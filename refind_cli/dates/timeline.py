"""How some moments spread over time: counts per day, week, month or year in a time zone, every bucket from
the first to the last (empty ones too, so a chart shows the gaps). Pure: ``refind search --timeline`` hands
it the matches as a ``Spread`` (counted where the index holds them), ``refind stats`` its monthly counts per
person."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta, tzinfo
from itertools import accumulate

from refind_cli.dates.clock import offset_bounds
from refind_cli.typed import NamedTuple, Protocol

# The finest unit that keeps a chart within about a screen: a few weeks by day, half a year by week, a few
# years by month, more by year.
DAYS_BY_DAY = 45
DAYS_BY_WEEK = 200
DAYS_BY_MONTH = 6 * 366
UNITS = ("day", "week", "month", "year")


# Named tuples, as records.py says why: `refind search --timeline` loads no ``dataclasses``.
class Bucket(NamedTuple):
    start: date  # the first day of the bucket, in the zone the timeline was made in
    tally: int  # not ``count``: a tuple's method


class Timeline(NamedTuple):
    unit: str  # one of UNITS
    buckets: tuple[Bucket, ...]

    @property
    def total(self) -> int:
        return sum(b.tally for b in self.buckets)


def unit_for(first: date, last: date) -> str:
    days = (last - first).days
    if days <= DAYS_BY_DAY:
        return "day"
    if days <= DAYS_BY_WEEK:
        return "week"
    return "month" if days <= DAYS_BY_MONTH else "year"


def bucket_start(day: date, unit: str) -> date:
    """The first day of the ``unit`` that holds ``day`` (weeks start on Monday, as ISO weeks do)."""
    if unit == "day":
        return day
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    return date(day.year, 1, 1)


def next_start(start: date, unit: str) -> date:
    if unit == "day":
        return start + timedelta(days=1)
    if unit == "week":
        return start + timedelta(days=7)
    if unit == "month":
        return date(start.year + start.month // 12, start.month % 12 + 1, 1)
    return date(start.year + 1, 1, 1)


def from_days(days: Counter[date], unit: str | None = None) -> Timeline:
    """The timeline of counts per local day, in ``unit`` (default: ``unit_for`` the days' span)."""
    return _bucketed({day.toordinal() - _EPOCH_ORDINAL: n for day, n in days.items()}, unit)


def timeline(epoch_seconds: Iterable[int], tz: tzinfo) -> Timeline:
    """The timeline of these moments (epoch seconds) in ``tz``."""
    return _bucketed(_day_numbers(epoch_seconds, tz))


class Spread(Protocol):
    """Moments a timeline counts where they are held (an index's matches), without being handed each one."""

    def span(self) -> tuple[int, int] | None:
        """The earliest and the latest moment (epoch seconds); None when there is none."""
        ...

    def counts(self, edges: Sequence[int]) -> list[int]:
        """How many moments fall before ``edges[0]``, in each ``[edges[i], edges[i + 1])`` and from
        ``edges[-1]`` on: ``len(edges) + 1`` counts. ``edges`` ascend, each greater than the one before."""
        ...

    def times_within(self, ranges: Sequence[tuple[int, int]]) -> list[int]:
        """The moments within any of these ``[start, end)`` ranges (which do not overlap), in any order."""
        ...


def spread_timeline(spread: Spread, tz: tzinfo, clamp: tuple[int, int]) -> Timeline:
    """``timeline`` of the moments ``spread`` holds, each clamped into ``clamp`` (the least and the greatest
    moment a zone shows). Each bucket's moments are counted where they are held, between the instants its
    first local midnight and the next bucket's fall on; only where a midnight is shown twice or skipped (clocks
    set back over it, or forward past it) are the moments about it read one by one. `refind search
    --timeline` of "dinner" over 1M turns (14,667 matches) read every match's time and converted it: ~10 ms
    of CPU in Europe/Berlin; counted in the index, ~1 ms (bench/RESULTS.md, issue 26 item 5, session 17)."""
    span = spread.span()
    if span is None:
        return Timeline("day", ())

    def days(ranges: Sequence[tuple[int, int]]) -> list[int]:
        return [_day_of(ts, tz) for ts in _clamped(spread.times_within(ranges), clamp)]

    # The first and the last local day: the earliest and the latest moment's, unless the clocks went back
    # over the midnight that began the one or ended the other (a later moment may then fall on a day before).
    first, last = (_day_of(ts, tz) for ts in _clamped(span, clamp))
    a, b = _midnight(first, tz)
    if a < b and b > span[0]:
        first = min(days([(span[0], b)]))
    a, b = _midnight(last + 1, tz)
    if a < b and a <= span[1]:
        last = max(days([(max(a, span[0]), span[1] + 1)]))
    unit = unit_for(*(date.fromordinal(_EPOCH_ORDINAL + d) for d in (first, last)))
    starts = [bucket_start(date.fromordinal(_EPOCH_ORDINAL + first), unit)]
    while (after := next_start(starts[-1], unit)).toordinal() - _EPOCH_ORDINAL <= last:
        starts.append(after)
    numbers = [start.toordinal() - _EPOCH_ORDINAL for start in starts]
    # owners[j]: the bucket of the moments before edges[j] (and from edges[j - 1] on), or None for those about
    # a midnight shown twice or skipped, which may fall on either side of it.
    edges: list[int] = []
    owners: list[int | None] = [0]
    for i, day in enumerate(numbers[1:], 1):
        for edge, owner in _marks(*_midnight(day, tz), i):
            if edges and edge < edges[-1]:
                # A zone whose days go back further than a bucket: every moment converted.
                every = spread.times_within([(span[0], span[1] + 1)])
                return _bucketed(_day_numbers(_clamped(every, clamp), tz), unit)
            if edges and edge == edges[-1]:
                owners[-1] = owner  # what lay between is empty
            else:
                edges.append(edge)
                owners.append(owner)
    tallies = [0] * len(numbers)
    windows = []
    for j, (n, owner) in enumerate(zip(spread.counts(edges), owners, strict=True)):
        if owner is not None:
            tallies[owner] += n
        elif n:
            windows.append((edges[j - 1], edges[j]))
    for day in days(windows):
        tallies[bisect_right(numbers, day) - 1] += 1
    return Timeline(unit, tuple(map(Bucket, starts, tallies)))


def _midnight(day: int, tz: tzinfo) -> tuple[int, int]:
    """(a, b): the moments before ``a`` fall on local days before ``day`` (its number from 1970-01-01), those
    from ``b`` on on it or after. Equal where its midnight is shown once; else they are the midnight read at
    the offsets before and after the change (PEP 495's folds), and the moments between may fall either side."""
    d = date.fromordinal(_EPOCH_ORDINAL + day)
    midnight = datetime(d.year, d.month, d.day, tzinfo=tz)
    a, b = sorted(int(m.timestamp()) for m in (midnight, midnight.replace(fold=1)))
    return a, b


def _marks(a: int, b: int, bucket: int) -> list[tuple[int, int | None]]:
    return [(b, bucket)] if a == b else [(a, None), (b, bucket)]


def _clamped(moments: Iterable[int], clamp: tuple[int, int]) -> list[int]:
    lo, hi = clamp
    return [min(max(ts, lo), hi) for ts in moments]


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def _bucketed(days: Mapping[int, int], unit: str | None = None) -> Timeline:
    """``from_days`` of counts per local day, each day as its number from 1970-01-01. Each bucket's count is
    read off the days' running total at its two ends: the days are never each made a date (a search's matches
    fall on 12,000 days of 98 years; a date and a bucket for each day were half of `refind search --timeline`'s
    extra CPU, bench/RESULTS.md, issue 26 item 5, session 15)."""
    if not days:
        return Timeline(unit or "day", ())
    numbers = sorted(days)
    totals = [0, *accumulate(days[d] for d in numbers)]
    first, last = (date.fromordinal(_EPOCH_ORDINAL + d) for d in (numbers[0], numbers[-1]))
    unit = unit or unit_for(first, last)
    buckets = []
    at, end = bucket_start(first, unit), bucket_start(last, unit)
    while at <= end:
        after = next_start(at, unit)
        lo, hi = (bisect_left(numbers, d.toordinal() - _EPOCH_ORDINAL) for d in (at, after))
        buckets.append(Bucket(at, totals[hi] - totals[lo]))
        at = after
    return Timeline(unit, tuple(buckets))


def _offset(second: int, tz: tzinfo) -> int:
    delta = datetime.fromtimestamp(second, UTC).astimezone(tz).utcoffset()
    return int(delta.total_seconds()) if delta else 0


def zone_offsets(lo: int, hi: int, tz: tzinfo) -> list[tuple[int, int]]:
    """(from epoch second, UTC offset in seconds) of ``tz`` from ``lo`` to ``hi`` (epoch seconds): its
    offset at ``lo`` and every change after. Zones change at most once a day, so the offset is sampled daily
    and each change found to the second by bisection."""
    fixed = tz.utcoffset(None)
    if fixed is not None:
        # A zone that gives an offset for no moment in particular has only that one (a fixed offset, UTC, the
        # system's zone without daylight saving time): sampling a century of it cost 1.9 s in dateutil.
        return [(lo, int(fixed.total_seconds()))]
    changes = [(lo, _offset(lo, tz))]
    at = lo
    while at < hi:
        step = min(at + 86_400, hi)
        after = _offset(step, tz)
        if after != changes[-1][1]:
            a, b = at, step  # the offset at a is the old one, at b the new
            while b - a > 1:
                mid = (a + b) // 2
                a, b = (mid, b) if _offset(mid, tz) == changes[-1][1] else (a, mid)
            changes.append((b, after))
        at = step
    return changes


def local_days(epoch_seconds: Iterable[int], tz: tzinfo) -> Counter[date]:
    """How many of these moments fall on each local day in ``tz``."""
    days = _day_numbers(epoch_seconds, tz)
    return Counter({date.fromordinal(_EPOCH_ORDINAL + d): n for d, n in days.items()})


def _day_of(second: int, tz: tzinfo) -> int:
    return datetime.fromtimestamp(second, tz).date().toordinal() - _EPOCH_ORDINAL


def _day_numbers(epoch_seconds: Iterable[int], tz: tzinfo) -> Counter[int]:
    """``local_days``, each day as its number from 1970-01-01."""
    moments = epoch_seconds if isinstance(epoch_seconds, list) else list(epoch_seconds)
    if not moments:
        return Counter()
    # Sorted only where runs between the zone's changes are counted: 2 of the 9 ms of 14,667 moments in
    # Europe/Berlin (bench/RESULTS.md, issue 26 item 5, session 16).
    lo, hi = min(moments), max(moments)
    if tz.utcoffset(None) is None and (hi - lo) // 86_400 > len(moments):
        # Few moments over a long span (one dated in the year 9998) in a zone whose offset changes: converting
        # each costs less than sampling the zone every day between them. (A fixed zone needs neither.)
        bounds = offset_bounds(tz)
        if bounds is None:
            return Counter(_day_of(ts, tz) for ts in moments)
        # A moment on the same day at the zone's least and greatest offsets is on that day whichever it gets,
        # and only the others (those within the bounds' spread before a local midnight) are converted: each
        # ~35 us in dateutil, the system's zone (`refind search --timeline` of 14,667 matches over 98 years:
        # 575 ms of CPU, 7x a plain search, in Europe/Berlin as the system's zone; bench/RESULTS.md, issue 26
        # item 5, session 15), ~0.5 us in zoneinfo, 9 of the 14 ms a timeline took with `--tz Europe/Berlin`
        # (whose bounds, +0:53:28 of its local mean time to +3 of 1945, leave 9 % of them; session 16).
        least, most = bounds
        return Counter(
            [
                day if day == (ts + most) // 86400 else _day_of(ts, tz)
                for ts in moments
                for day in ((ts + least) // 86400,)
            ]
        )
    # The zone's changes over the moments' span, then the moments in order, each run between two changes with
    # its offset: 100,000 moments spread over six years in 26 ms with a bisection a moment, against 150 ms
    # converting each with astimezone (the same days, checked for Berlin, Kolkata and St John's).
    changes = zone_offsets(lo, hi, tz)
    if len(changes) == 1:  # one offset throughout (a fixed zone): no runs to find
        offset = changes[0][1]
        return Counter([(ts + offset) // 86400 for ts in moments])
    moments = sorted(moments)
    ends = [start for start, _ in changes[1:]]
    days: list[int] = []
    at = 0
    for (_, offset), end in zip(changes, [*ends, hi + 1], strict=True):
        upto = bisect_left(moments, end, at)
        days += [(ts + offset) // 86400 for ts in moments[at:upto]]
        at = upto
    return Counter(days)
