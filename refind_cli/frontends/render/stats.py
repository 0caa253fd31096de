"""Output of `refind stats`: bars, a heatmap and lists in the terminal (text only: no browser, no image
files; Styled, so that piped it needs no rich), and the same numbers as JSON for scripts."""

from __future__ import annotations

from datetime import tzinfo

from refind_cli.frontends.render import iso, short_time, visible
from refind_cli.frontends.render.charts import BAR_WIDTH, bar
from refind_cli.frontends.render.styled import Out, Styled
from refind_cli.records import Kind
from refind_cli.reports import Stats

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MEDIA_KINDS = (Kind.MEDIA, Kind.ATTACHMENT)
# The people the monthly bars tell apart (the rest are "others"), each in its own colour.
COLOURS = ("cyan", "magenta", "green", "yellow")
_SHADES = " ░▒▓█"
TOP_PEOPLE = 10


def media_share(stats: Stats) -> float:
    media = sum(n for kind, n in stats.kinds if kind in MEDIA_KINDS)
    return media / stats.messages if stats.messages else 0.0


def stats_json(stats: Stats, tz: tzinfo | None) -> dict:
    return {
        "messages": stats.messages,
        "first": iso(stats.first, tz),
        "last": iso(stats.last, tz),
        "people": [{"name": name, "messages": n} for name, n in stats.people],
        "months": [
            {"month": month.strftime("%Y-%m"), "messages": sum(n for _, n in people), "people": dict(people)}
            for month, people in stats.months
        ],
        "heatmap": {"weekdays": list(WEEKDAYS), "hours": [list(row) for row in stats.heatmap]},
        "silences": [
            {
                "chat": {"id": s.chat.seq, "name": s.chat.name, "source": s.chat.source},
                "from": iso(s.start, tz),
                "to": iso(s.end, tz),
                "days": round((s.end - s.start).total_seconds() / 86400, 2),
            }
            for s in stats.silences
        ],
        "kinds": dict(stats.kinds),
        "media_share": round(media_share(stats), 4),
    }


def _section(console: Out, title: str) -> None:
    console.print()
    console.print(Styled(title, style="bold underline"))


def print_stats(console: Out, stats: Stats, tz: tzinfo | None) -> None:
    if not stats.messages or stats.first is None or stats.last is None:
        console.print("No messages there.")
        return
    console.print(
        Styled(
            f"{stats.messages:,} messages from {short_time(stats.first, tz)[:10]} to {short_time(stats.last, tz)[:10]}",
            style="bold",
        )
    )
    _people(console, stats)
    _months(console, stats)
    _heatmap(console, stats)
    _silences(console, stats, tz)
    _section(console, "What they are")
    kinds = ", ".join(f"{kind} {n:,}" for kind, n in stats.kinds)
    console.print(f"{kinds}; media and attachments {media_share(stats):.1%}", markup=False)


def _people(console: Out, stats: Stats) -> None:
    _section(console, "Who writes most")
    if not stats.people:
        return
    most = stats.people[0][1]
    width = max(len(visible(name)) for name, _ in stats.people[:TOP_PEOPLE])
    for name, n in stats.people[:TOP_PEOPLE]:
        line = Styled(visible(name).ljust(width) + "  ")
        line.append(bar(n, most).ljust(BAR_WIDTH), style="cyan")
        line.append(f" {n:,} ({n / stats.messages:.0%})")
        console.print(line)
    if len(stats.people) > TOP_PEOPLE:
        console.print(Styled(f"and {len(stats.people) - TOP_PEOPLE:,} more", style="dim"))


def _months(console: Out, stats: Stats) -> None:
    _section(console, "Messages per month")
    named = [name for name, _ in stats.people[: len(COLOURS)]]
    legend = Styled()
    for name, colour in zip(named, COLOURS, strict=False):
        legend.append("█ ", style=colour)
        legend.append(visible(name) + "  ")
    if len(stats.people) > len(named):
        legend.append("█ ", style="dim")
        legend.append("others")
    console.print(legend)
    most = max((sum(n for _, n in people) for _, people in stats.months), default=0)
    lines = []
    for month, people in stats.months:
        total = sum(n for _, n in people)
        counts = dict(people)
        line = Styled(month.strftime("%Y-%m") + "  ", style="" if total else "dim")
        # Each person's share of the month's bar, cut from the bar of the running total so the parts add up.
        drawn, running = 0, 0
        parts = [(counts.get(name, 0), colour) for name, colour in zip(named, COLOURS, strict=False)]
        parts.append((total - sum(n for n, _ in parts), "dim"))
        for n, colour in parts:
            running += n
            upto = len(bar(running, most))
            line.append("█" * (upto - drawn), style=colour)
            drawn = max(drawn, upto)
        line.append(" " * (BAR_WIDTH - drawn + 1) + (f"{total:,}" if total else ""))
        lines.append(line)
    if lines:  # one print: a century of months is 1,200 lines, and rich's cost is per print
        console.print(Styled("\n").join(lines))


def _heatmap(console: Out, stats: Stats) -> None:
    _section(console, "When (weekday x hour)")
    hottest = max(max(row) for row in stats.heatmap)
    console.print(Styled("     " + "".join(f"{h:<6}" for h in range(0, 24, 3)), style="dim"))
    for name, row in zip(WEEKDAYS, stats.heatmap, strict=True):
        line = Styled(f"{name}  ")
        for n in row:
            shade = 0 if not n else 1 + (n * (len(_SHADES) - 2)) // hottest
            line.append(_SHADES[shade] * 2, style="yellow")
        line.append(f"  {sum(row):,}", style="dim")
        console.print(line)


def _silences(console: Out, stats: Stats, tz: tzinfo | None) -> None:
    _section(console, "Longest silences")
    for s in stats.silences:
        days = (s.end - s.start).total_seconds() / 86400
        line = Styled(f"{days:,.1f} days".rjust(12) + "  ")
        line.append(f"{short_time(s.start, tz)} to {short_time(s.end, tz)}  ", style="cyan")
        line.append(visible(s.chat.name), style="magenta")
        console.print(line)
