"""Erasure: what the user asks to forget is gone from every file under the home folder.

Messages are deleted (SQLite ``secure_delete`` zeroes their pages), the sessions they were part of are cut
again from what is left, the database is vacuumed and its write-ahead log truncated, and the index is
rebuilt from the archive, because tantivy deletes leave text and statistics on disk until segments merge.
The identities of forgotten messages (source ids or hashes, never text) are remembered, under a hash of their
chat's uid, so that importing the same export again does not bring them back; of a chat forgotten whole, the
import ledger keeps only hashes of its uid and of its export's path.
"""

from __future__ import annotations

from datetime import datetime

from refind_cli.errors import RefindError
from refind_cli.operations import Selection
from refind_cli.reports import ForgetPlan
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import from_us, to_us
from refind_cli.storage.sessions import resegment_chat


def plan(archive: Archive, selection: Selection) -> ForgetPlan:
    """The messages a selection names, and what removing them touches. Writes nothing."""
    if selection.is_empty():
        raise RefindError(
            "forget: name what to forget (--chat, --session, --since/--until, --before or --matching)"
        )
    message_seqs = None
    if selection.session is not None:
        session = archive.session(selection.session)
        if session is None:
            raise RefindError(f"--session: no session {selection.session!r}")
        message_seqs = archive.session_message_seqs(session.seq)
    if selection.matching is not None and not selection.matching.strip():
        raise RefindError("--matching: give some text")
    rows = archive.select_messages(
        chat_seq=selection.chat,
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
