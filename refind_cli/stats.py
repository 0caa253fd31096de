"""`refind stats`: messages per month and person, the weekday x hour heatmap, who writes most, the longest
silences and what share is media, computed in SQL by the archive (a few grouped passes over the messages)
and assembled here in the display zone."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import date, tzinfo

from refind_cli.archive import Archive, from_us
from refind_cli.reports import Silence, Stats
from refind_cli.timeline import from_days, zone_offsets

SILENCES = 5
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def _most_first(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


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
    span = archive.message_span(chats, since, until, senders)
    if span is None:
        return Stats(0, None, None, (), (), tuple((0,) * 24 for _ in range(7)), (), ())
    offsets = zone_offsets(span[0] // 1_000_000, span[1] // 1_000_000 + 1, tz)
    people: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    per_day: Counter[date] = Counter()
    month_people: defaultdict[date, Counter[str]] = defaultdict(Counter)
    for day, sender, kind, n in archive.messages_per_day(chats, since, until, offsets, senders):
        local = date.fromordinal(_EPOCH_ORDINAL + day)
        kinds[kind] += n
        per_day[local] += n
        if sender is not None:
            people[sender] += n
            month_people[local.replace(day=1)][sender] += n
    heat = [[0] * 24 for _ in range(7)]
    for hour, n in archive.messages_per_hour(chats, since, until, offsets, senders):
        heat[hour // 24][hour % 24] += n
    months = from_days(per_day, "month").buckets
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
