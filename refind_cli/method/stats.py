"""`refind stats`: messages per month and person, the weekday x hour heatmap, who writes most, the longest
silences and what share is media, computed in SQL by the archive (a few grouped passes over the messages)
and assembled here in the display zone."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import date, tzinfo

from refind_cli.dates.timeline import from_days, zone_offsets
from refind_cli.reports import Silence, Stats
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import from_us, representable_us

SILENCES = 5
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def _most_first(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _month_starts(first: date, last: date) -> list[date]:
    """The first day of each month from ``first``'s to ``last``'s."""
    starts, at = [], first.replace(day=1)
    while at <= last:
        starts.append(at)
        at = at.replace(year=at.year + 1, month=1) if at.month == 12 else at.replace(month=at.month + 1)
    return starts


def stats(
    archive: Archive,
    *,
    chats: Sequence[int] | None = None,
    since: int | None = None,
    until: int | None = None,
    senders: Sequence[str] | None = None,
    tz: tzinfo,
) -> Stats:
    """The statistics of the messages of ``chats`` (None: every chat) from ``since`` to ``until``
    (microseconds, inclusive), by ``senders`` only if given, in ``tz``. Silences are the chats' own,
    whoever wrote."""
    found = archive.message_span(chats, since, until, senders)
    if found is None:
        return Stats(0, None, None, (), (), tuple((0,) * 24 for _ in range(7)), (), ())
    span = (representable_us(found[0]), representable_us(found[1]))
    offsets = zone_offsets(span[0] // 1_000_000, span[1] // 1_000_000 + 1, tz)
    people: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    per_month: Counter[date] = Counter()
    month_people: defaultdict[date, Counter[str]] = defaultdict(Counter)
    firsts = _month_starts(from_us(span[0]).astimezone(tz).date(), from_us(span[1]).astimezone(tz).date())
    months_in = [d.toordinal() - _EPOCH_ORDINAL for d in firsts]
    for day, sender, kind, n in archive.messages_per_month(
        chats, since, until, offsets, senders, first=span[0], months=months_in
    ):
        month = date.fromordinal(_EPOCH_ORDINAL + day)
        kinds[kind] += n
        per_month[month] += n
        if sender is not None:
            people[sender] += n
            month_people[month][sender] += n
    heat = [[0] * 24 for _ in range(7)]
    for hour, n in archive.messages_per_hour(chats, since, until, offsets, senders, first=span[0]):
        heat[hour // 24][hour % 24] += n
    months = from_days(per_month, "month").buckets
    silences = tuple(
        Silence(archive.chat(chat), from_us(before), from_us(after))
        for chat, before, after in archive.longest_silences(chats, since, until, SILENCES)
    )
    return Stats(
        messages=sum(kinds.values()),
        first=from_us(span[0]),
        last=from_us(span[1]),
        people=_most_first(people),
        months=tuple((m.start, _most_first(month_people[m.start])) for m in months),
        heatmap=tuple(tuple(row) for row in heat),
        silences=silences,
        kinds=_most_first(kinds),
    )
