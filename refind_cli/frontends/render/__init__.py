"""Renderers: rich terminal output and JSON shapes, one module per command family. They know nothing of
storage: they receive the library's result records."""

from __future__ import annotations

import re
from datetime import datetime, tzinfo

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What chat text must not send to a terminal: C0 controls but tab and newline (ESC starts every escape
# sequence, BEL ends OSC titles and hyperlinks, CR overwrites a line), DEL, C1 controls (U+009B is a
# one-character CSI on some terminals), and the bidirectional overrides and isolates that can make text
# read differently from what it is.
_CONTROL = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
# JSON escapes C0 controls by itself; these it leaves raw when not ASCII-only.
_JSON_CONTROL = "[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
# Both are pattern strings, compiled on first use (``re`` keeps them): a class reaching beyond Latin-1 takes
# ~2.5M instructions to compile, 2 % of a cold search, and a command's output uses one of them or neither.


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` safe to print on a terminal: control characters become visible escapes (``\\x1b``), so a
    message cannot clear the screen, retitle the window or plant a disguised link."""
    return re.sub(_CONTROL, _escape, text)


def has_control(text: str) -> bool:
    """Whether ``visible`` would change ``text``."""
    return re.search(_CONTROL, text) is not None


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(obj: Any, *, indent: int | None = None, compact: bool = False) -> str:
    """JSON for stdout: readable UTF-8, with every control character escaped (JSON's ``\\u`` escapes, so
    the data read back is exactly the data). ``compact``: no space after separators."""
    import json  # only for JSON output: loading it compiles five regular expressions (issue 26 item 3)

    separators = (",", ":") if compact else None
    return re.sub(
        _JSON_CONTROL, _json_escape, json.dumps(obj, ensure_ascii=False, indent=indent, separators=separators)
    )


def iso(dt: datetime | None, tz: tzinfo | None = None) -> str | None:
    """ISO 8601 with the UTC offset, in the display zone when one is given."""
    if dt is None:
        return None
    return (dt.astimezone(tz) if tz else dt).isoformat()


def short_time(dt: datetime, tz: tzinfo | None = None) -> str:
    return (dt.astimezone(tz) if tz else dt).strftime("%Y-%m-%d %H:%M")
