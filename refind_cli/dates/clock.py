"""Time zones as the user names them."""

from __future__ import annotations

import sys
from datetime import timedelta, timezone, tzinfo

from refind_cli.errors import RefindError, echoed


def zone(name: str | None) -> tzinfo:
    """The named IANA zone or fixed UTC offset (``+05:30``, ``-0800``, ``UTC+2``), or the system's zone
    (with its DST rules) when no name is given. An empty name is a mistake, not the system's zone."""
    if name is None:
        return system_zone()
    if not name.strip():
        raise RefindError("--tz: empty (leave --tz out for the system's zone)")
    offset = None
    if any(ch.isdigit() for ch in name):  # an offset has some; "Europe/Berlin" compiles no pattern (~0.5 ms)
        import re

        offset = re.fullmatch(r"(?:UTC|GMT)?([+-])([0-9]{1,2})(?::?([0-9]{2}))?", name.strip(), re.IGNORECASE)
    if offset is not None:
        sign, hours, minutes = offset[1], int(offset[2]), int(offset[3] or 0)
        if hours > 23 or minutes > 59:
            raise RefindError(f"--tz: there is no UTC offset {name!r}")
        delta = timedelta(hours=hours, minutes=minutes)
        return timezone(-delta if sign == "-" else delta)
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise RefindError(
            f"--tz: unknown time zone {name!r} (use an IANA name such as Europe/Berlin or an offset such as"
            " +05:30)"
        ) from None


def system_zone() -> tzinfo:
    """The zone the C library reads times in (``TZ``, else the link ``/etc/localtime``), as zoneinfo reads it
    where it names a zone of the tz database, else dateutil's ``tzlocal`` (a POSIX rule in ``TZ``, a copied
    file). ``tzlocal`` gives every moment the zone's standard or daylight saving offset of today, as the C
    library told them: its times differed from the system's own (``date``, ``time.localtime``) in zones whose
    offsets moved, 27 % of random instants of 2000-2037 in Europe/Moscow, 17 % in America/Sao_Paulo, 44 % in
    Africa/Casablanca; zoneinfo's in none of 60,000 instants of 1900-2037 in each of 15 zones. Where both are
    right they give the same times (bench/RESULTS.md, issue 26 item 5, session 16); zoneinfo loads in less
    time (no dateutil and six) and converts in C (a timeline in Europe/Berlin 18 against 4 ms)."""
    import os

    name = os.environ.get("TZ")
    if name is None:
        try:
            link = os.readlink("/etc/localtime")
        except OSError:
            link = ""
        name = link.partition("/zoneinfo/")[2]
    # ":Europe/Berlin" is the C library's spelling of a file of its database; "right/" zones count leap
    # seconds, which zoneinfo does not; an absolute path or a POSIX rule ("CET-1CEST,M3.5.0,M10.5.0/3") is
    # left to the C library.
    name = name.removeprefix(":")
    if name and not name.startswith(("/", "right/")):
        from zoneinfo import ZoneInfo

        try:
            return ZoneInfo(name)
        except (LookupError, ValueError, OSError):
            pass
    from dateutil.tz import tzlocal

    return tzlocal()


def system_offsets(tz: tzinfo) -> tuple[int, int] | None:
    """The least and the greatest UTC offset in seconds that ``tz`` gives any moment, where ``tz`` is the
    system's zone as ``zone(None)`` makes it (dateutil's ``tzlocal``): it gives its standard or its daylight
    saving offset, as the C library told them when it was made, and nothing else. None for another zone."""
    local = sys.modules.get("dateutil.tz")  # not imported for this: a zone of dateutil's has imported it
    if local is None or not isinstance(tz, local.tzlocal):
        return None
    offsets = [int(o.total_seconds()) for o in (tz._std_offset, tz._dst_offset)]
    return min(offsets), max(offsets)


def offset_bounds(tz: tzinfo) -> tuple[int, int] | None:
    """The least and the greatest UTC offset in seconds that ``tz`` gives any moment: the system's zone's two
    (``system_offsets``); a zoneinfo zone's from its file in the tz database, every local time type it holds
    and the rule it gives for the years after its last listed change; None for another zone, or where the file
    cannot be read as zoneinfo reads it."""
    told = system_offsets(tz)
    key = getattr(tz, "key", None)
    if told is not None or not isinstance(key, str):
        return told
    if key not in _BOUNDS:
        _BOUNDS[key] = _file_bounds(key)
    return _BOUNDS[key]


# A zone's offset bounds by its key: a server's timelines read each zone's file once.
_BOUNDS: dict[str, tuple[int, int] | None] = {}


def _file_bounds(key: str) -> tuple[int, int] | None:
    # zoneinfo's own reader of the file, found where ZoneInfo finds it: the system's tz database first, then
    # the tzdata package. The reader is not public; where it changes, the bounds are not known and a timeline
    # converts each moment instead.
    import os
    import zoneinfo

    try:
        from zoneinfo import _common

        path = next(
            (p for p in (os.path.join(root, key) for root in zoneinfo.TZPATH) if os.path.isfile(p)), None
        )
        with open(path, "rb") if path is not None else _common.load_tzdata(key) as file:
            _, _, offsets, _, _, rule = _common.load_data(file)
        seen = {int(o) for o in offsets} | (rule_offsets(rule.decode("ascii")) if rule else set())
    except (OSError, ValueError, LookupError, AttributeError, ImportError, TypeError):
        return None
    return (min(seen), max(seen)) if seen else None


def rule_offsets(rule: str) -> set[int]:
    """The UTC offsets in seconds that a POSIX TZ rule (the closing line of a tz database file, for the years
    after its last listed change) gives: its standard time's, and its daylight saving time's where it has
    one (its own offset, else an hour ahead of standard time). ``std[offset[dst[offset][,start,end]]]``,
    offsets ``[+-]hh[:mm[:ss]]`` counted west of Greenwich. Read here, not by zoneinfo's pure-Python
    ``_parse_tz_str``: that one loads ``calendar`` and ``locale`` and compiles five regular expressions,
    ~2 ms of a timeline in Europe/Berlin (bench/RESULTS.md, issue 26 item 5, session 17). ValueError where the
    rule is not in that form."""
    head = rule.partition(",")[0]
    at = 0

    def name() -> bool:
        nonlocal at
        start = at
        if head.startswith("<", at):
            at = head.index(">", at) + 1  # ValueError when unclosed
        else:
            while at < len(head) and head[at] not in "0123456789:.+-<":
                at += 1
        return at > start

    def offset() -> int | None:
        nonlocal at
        start = at
        while at < len(head) and head[at] in "+-0123456789:":
            at += 1
        text = head[start:at]
        if not text:
            return None
        body = text[1:] if text[0] in "+-" else text
        parts = body.split(":")
        if len(parts) > 3 or not 1 <= len(parts[0]) <= 3 or any(len(p) != 2 for p in parts[1:]):
            raise ValueError(f"{rule!r}: an offset is not [+-]hh[:mm[:ss]]")
        if not all(p.isdigit() for p in parts) or int(parts[0]) > 24:
            raise ValueError(f"{rule!r}: an offset is not [+-]hh[:mm[:ss]]")
        seconds = sum(int(p) * f for p, f in zip(parts, (3600, 60, 1), strict=False))
        return seconds if text[0] == "-" else -seconds  # a TZ rule counts west of Greenwich

    if not name():
        raise ValueError(f"{rule!r}: no zone name")
    standard = offset() or 0
    told = {standard}
    if at < len(head):
        if not name():
            raise ValueError(f"{rule!r}: not a TZ rule")
        daylight = offset()
        told.add(standard + 3600 if daylight is None else daylight)
    if at != len(head):
        raise ValueError(f"{rule!r}: not a TZ rule")
    return told


_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400}


def parse_duration(text: str, option: str = "--session-gap") -> timedelta:
    """``90m``, ``1h``, ``1h30m``, ``45min``, ``2d`` or a plain number of minutes."""
    import re

    s = text.strip().lower().replace(" ", "")
    parts = re.findall(r"(\d+(?:\.\d+)?)([a-z]+)", s + "m" if s.isdigit() else s)
    if (
        not parts
        or "".join(n + u for n, u in parts) not in (s, s + "m")
        or any(u not in _UNITS for _, u in parts)
    ):
        raise RefindError(f"{option}: cannot read {echoed(text)} as a duration (try 30m, 1h or 1h30m)")
    total = sum(float(n) * _UNITS[u] for n, u in parts)
    if total <= 0:
        raise RefindError(f"{option}: the duration must be positive")
    try:
        return timedelta(seconds=total)
    except OverflowError:  # past timedelta's 999,999,999 days (or a number of more digits than a float holds)
        raise RefindError(f"{option}: {echoed(text)} is longer than any duration refind can hold") from None


# Zone objects fingerprinted so far, by identity: one import command asks once per file with the same zone,
# and dateutil's system zone is not hashable. The zone is kept with its fingerprint, so its id stays its own.
_FINGERPRINTS: dict[int, tuple[tzinfo, str]] = {}


def zone_fingerprint(tz: tzinfo) -> str:
    """A name for what a zone does, stable from run to run: the IANA key where there is one, else the
    zone's UTC offsets at noon once a week from 1970 to 2040 (a system zone zoneinfo cannot name; 13-40 ms,
    once per zone object)."""
    key = getattr(tz, "key", None)
    if isinstance(key, str):
        return key
    known = _FINGERPRINTS.get(id(tz))
    if known is not None:
        return known[1]
    import hashlib
    from datetime import datetime

    day = datetime(1970, 1, 1, 12, tzinfo=tz)
    offsets = []
    while day.year < 2041:
        offsets.append(str(day.utcoffset()))
        day += timedelta(days=7)
    fingerprint = "offsets:" + hashlib.blake2b(",".join(offsets).encode(), digest_size=12).hexdigest()
    _FINGERPRINTS[id(tz)] = (tz, fingerprint)
    return fingerprint
