"""A chat and a session as the archive lists them (`refind chats`, `refind show`, the read tools). Records
only; apart from ``results`` so that a search does not build their classes, and from ``reports`` so that a
listing builds none of the maintenance reports'. Named tuples, as ``records`` says why: `refind chats` loads
no ``dataclasses``."""

from __future__ import annotations

from datetime import datetime

from refind_cli.records import ChatInfo
from refind_cli.typed import NamedTuple


class ChatSummary(NamedTuple):
    info: ChatInfo
    messages: int
    sessions: int
    turns: int
    first: datetime | None
    last: datetime | None
    lang: str = ""  # ISO 639-1, "und" (too little text), "" (imported before languages were told)


class SessionInfo(NamedTuple):
    seq: int
    id: str
    chat: ChatInfo
    start: datetime
    end: datetime
    n_turns: int
    n_messages: int
