"""Erasure: what the user asks to forget is gone from every file under the home folder.

Messages are deleted (SQLite ``secure_delete`` zeroes their pages), the sessions they were part of are cut
again from what is left, the database is vacuumed and its write-ahead log truncated, and the index is
rebuilt from the archive, because tantivy deletes leave text and statistics on disk until segments merge.
The identities of forgotten messages (source ids or hashes, never text) are remembered, under a hash of their
chat's uid, so that importing the same export again does not bring them back; of a chat forgotten whole, the
import ledger keeps only hashes of its uid and of its export's path.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from refind_cli.archive import Archive, from_us, to_us
from refind_cli.errors import RefindError
from refind_cli.records import ChatInfo
from refind_cli.sessions import resegment_chat


@dataclass(frozen=True, slots=True)
class Selection:
    """What to forget; the criteria given are combined (all must hold)."""

    chat: str | None = None
    session: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    before: datetime | None = None
    matching: str | None = None

    def is_empty(self) -> bool:
        return all(
            v is None for v in (self.chat, self.session, self.since, self.until, self.before, self.matching)
        )


@dataclass(frozen=True, slots=True)
class ForgetPlan:
    message_seqs: tuple[int, ...]
    chats: tuple[ChatInfo, ...]  # chats that lose messages
    emptied: tuple[ChatInfo, ...]  # chats that lose all of them
    sessions: int  # sessions that lose messages
    first: datetime | None
    last: datetime | None


def plan(archive: Archive, selection: Selection) -> ForgetPlan:
    """The messages a selection names, and what removing them touches. Writes nothing."""
    if selection.is_empty():
        raise RefindError(
            "forget: name what to forget (--chat, --session, --since/--until, --before or --matching)"
        )
    chat_seq = None
    if selection.chat is not None:
        matches = archive.match_chats(selection.chat)
        if not matches:
            raise RefindError(f"--chat: no chat matches {selection.chat!r} (see `refind chats`)")
        if len(matches) > 1:
            names = ", ".join(f"{archive.chat(s).name} (id {s})" for s in matches)
            raise RefindError(f"--chat: {selection.chat!r} matches several chats: {names}; give the id")
        chat_seq = matches[0]
    message_seqs = None
    if selection.session is not None:
        session = archive.session(selection.session)
        if session is None:
            raise RefindError(f"--session: no session {selection.session!r}")
        message_seqs = archive.session_message_seqs(session.seq)
    if selection.matching is not None and not selection.matching.strip():
        raise RefindError("--matching: give some text")
    rows = archive.select_messages(
        chat_seq=chat_seq,
        message_seqs=message_seqs,
        since=_us(selection.since),
        until=_us(selection.until),
        before=_us(selection.before),
        matching=selection.matching,
    )
    seqs = tuple(r[0] for r in rows)
    chat_seqs = sorted({r[1] for r in rows})
    per_chat = dict.fromkeys(chat_seqs, 0)
    for r in rows:
        per_chat[r[1]] += 1
    emptied = tuple(archive.chat(c) for c in chat_seqs if archive.message_count(c) == per_chat[c])
    return ForgetPlan(
        message_seqs=seqs,
        chats=tuple(archive.chat(c) for c in chat_seqs),
        emptied=emptied,
        sessions=len(archive.sessions_of_messages(chat_seqs, set(seqs))),
        first=from_us(rows[0][2]) if rows else None,
        last=from_us(rows[-1][2]) if rows else None,
    )


def _us(instant: datetime | None) -> int | None:
    return None if instant is None else to_us(instant)


def forget(archive: Archive, planned: ForgetPlan) -> None:
    """Remove the planned messages for good, and compact the database so no page keeps their text.
    The caller rebuilds the index afterwards (``Index.rebuild``)."""
    with archive.transaction():
        emptied = [archive.chat_uid(chat.seq) for chat in planned.emptied]
        archive.forget_messages(planned.message_seqs)
        for chat in planned.chats:
            resegment_chat(archive, chat.seq)
            archive.delete_chat_if_empty(chat.seq)
        archive.hide_forgotten_chats(emptied)
    archive.compact()
