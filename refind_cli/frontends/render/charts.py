"""Charts drawn with text: horizontal bars (eighth blocks) and the timeline of `refind search --timeline`
and `refind stats`. Only characters, so they read the same in a terminal, a pipe or a log."""

from __future__ import annotations

from refind_cli.dates.timeline import Bucket, Timeline
from refind_cli.frontends.render.styled import Out, Styled

BAR_WIDTH = 40
_EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(count: int, most: int, width: int = BAR_WIDTH) -> str:
    """A bar of ``count`` against ``most`` (the longest, ``width`` cells); a nonzero count shows at least a
    sliver."""
    if count <= 0 or most <= 0:
        return ""
    eighths = max(1, round(count * width * 8 / most))
    full, part = divmod(eighths, 8)
    return "█" * full + (_EIGHTHS[part] if part else "")


def bucket_label(bucket: Bucket, unit: str) -> str:
    if unit == "day":
        return bucket.start.strftime("%Y-%m-%d %a")
    if unit == "week":
        return bucket.start.strftime("%Y-%m-%d wk%V")
    return bucket.start.strftime("%Y-%m" if unit == "month" else "%Y")


def timeline_json(timeline: Timeline | None) -> dict:
    if timeline is None:
        return {"unit": None, "buckets": []}
    return {
        "unit": timeline.unit,
        "buckets": [{"start": b.start.isoformat(), "count": b.tally} for b in timeline.buckets],
    }


def print_timeline(console: Out, timeline: Timeline | None, *, style: str = "cyan") -> None:
    """One line per bucket: its label, the bar, the count."""
    if timeline is None or not timeline.buckets:
        return
    most = max(b.tally for b in timeline.buckets)
    for b in timeline.buckets:
        line = Styled(bucket_label(b, timeline.unit), style="dim" if not b.tally else "")
        line.append("  ")
        line.append(bar(b.tally, most).ljust(BAR_WIDTH), style=style)
        line.append(f" {b.tally:,}" if b.tally else "")
        console.print(line)
