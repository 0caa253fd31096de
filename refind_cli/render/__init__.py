"""Renderers: rich terminal output and JSON shapes, one module per command family. They know nothing of
storage: they receive the library's result records."""

from __future__ import annotations

from datetime import datetime, tzinfo


def iso(dt: datetime | None, tz: tzinfo | None = None) -> str | None:
    """ISO 8601 with the UTC offset, in the display zone when one is given."""
    if dt is None:
        return None
    return (dt.astimezone(tz) if tz else dt).isoformat()


def short_time(dt: datetime, tz: tzinfo | None = None) -> str:
    return (dt.astimezone(tz) if tz else dt).strftime("%Y-%m-%d %H:%M")
