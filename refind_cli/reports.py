"""What the maintenance operations report: imports, forget plans, health, statistics, a session to show.
Records only, importing nothing heavy; apart from ``results.py`` so that a search loads none of them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from refind_cli.listings import SessionInfo
from refind_cli.records import ChatInfo, Turn
from refind_cli.typed import NamedTuple


class ChatImportResult(NamedTuple):
    """What an import did to one chat. A named tuple, not a frozen dataclass: a re-import reports every chat
    of its export, 20,000 of ChatGPT's conversations taken as they are, and a dataclass's nine
    ``object.__setattr__`` calls a record cost 2-2.7 us each against 0.6-0.8 (bench/RESULTS.md, resume15)."""

    chat_id: int
    name: str
    source: str
    messages_added: int
    messages_skipped: int
    sessions: int  # sessions of the chat after the import
    turns: int
    sessions_changed: int
    chat_uid: str


@dataclass(frozen=True, slots=True)
class FileImportResult:
    path: str
    format: str | None
    chats: tuple[ChatImportResult, ...] = ()
    error: str | None = None
    # The ledger entry of an earlier import of the same content with the same settings, when this one
    # therefore did not read the export again.
    unchanged_since: int | None = None
    # What was read with a doubt and kept, flagged (a line whose date cannot be read), one line each.
    warnings: tuple[str, ...] = ()
    # The bytes of a grown export that an earlier import had read, and this one therefore read from.
    resumed_at: int | None = None
    # No importer recognised the file (its ``error`` says so).
    unknown_format: bool = False


@dataclass(frozen=True, slots=True)
class ForgetPlan:
    message_seqs: tuple[int, ...]
    chats: tuple[ChatInfo, ...]  # chats that lose messages
    emptied: tuple[ChatInfo, ...]  # chats that lose all of them
    sessions: int  # sessions that lose messages
    first: datetime | None
    last: datetime | None


@dataclass(frozen=True, slots=True)
class ForgetOutcome:
    plan: ForgetPlan
    forgotten: bool  # False: nothing matched, a dry run, or the user said no


@dataclass(frozen=True, slots=True)
class Health:
    integrity: tuple[str, ...]  # SQLite's integrity_check complaints; empty when the archive is sound
    archive_turns: int | None  # None: the archive is damaged and was not counted
    index_docs: int
    queued_sessions: int | None  # sessions the index has not caught up with yet

    @property
    def index_agrees(self) -> bool:
        return self.queued_sessions == 0 and self.archive_turns == self.index_docs

    @property
    def ok(self) -> bool:
        return not self.integrity and self.index_agrees


@dataclass(frozen=True, slots=True)
class Reindexed:
    turns: int
    seconds: float


@dataclass(frozen=True, slots=True)
class SessionView:
    """A session, the turns to show of it, and the turn to mark (``refind show``)."""

    session: SessionInfo
    turns: tuple[Turn, ...]
    around: str | None
    previous: str | None = None  # the ids of the chat's sessions before and after this one, to browse on
    next: str | None = None


@dataclass(frozen=True, slots=True)
class Silence:
    chat: ChatInfo
    start: datetime  # the last message before it
    end: datetime  # the first message after it


@dataclass(frozen=True, slots=True)
class Stats:
    """`refind stats`: who wrote how much, when, and what (of some chats, in some time range)."""

    messages: int
    first: datetime | None
    last: datetime | None
    people: tuple[tuple[str, int], ...]  # (sender, messages), most first; messages without a sender left out
    # Every month from the first to the last (empty ones too), with its messages per person, most first.
    months: tuple[tuple[date, tuple[tuple[str, int], ...]], ...]
    heatmap: tuple[tuple[int, ...], ...]  # messages by local weekday (Monday first) and hour (0-23)
    silences: tuple[Silence, ...]  # longest first
    kinds: tuple[tuple[str, int], ...]  # messages per kind (records.Kind), most first
