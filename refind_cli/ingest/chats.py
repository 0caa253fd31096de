"""One chat into the archive: its row, its new messages, and its sessions brought up to date."""

from __future__ import annotations

import collections
import hashlib
from collections.abc import Callable, Iterable, Iterator
from datetime import timedelta

from refind_cli.ingest.progress import ChatProgress, Progress
from refind_cli.ingest.rows import Batches, ChatPlan, Planned, Rows
from refind_cli.method import segment
from refind_cli.records import Chat, Message
from refind_cli.reports import ChatImportResult
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import CROSS_ZONE
from refind_cli.storage.identity import Identity
from refind_cli.storage.sessions import (
    SessionWriter,
    parse_segmenting,
    replan,
    resegment_chat,
    segmenting_key,
)
from refind_cli.text import language
from refind_cli.text.analysis import analyzer_for


def import_chat(
    archive: Archive,
    chat: Chat,
    messages: Iterable[Message],
    *,
    session_gap: timedelta = timedelta(hours=1),
    pairing: str = "burst",
    import_seq: int | None = None,
    progress: Progress | None = None,
    restore_forgotten: bool = False,
) -> ChatImportResult:
    """Add one chat's messages and bring its sessions and turns up to date. Runs inside the caller's
    transaction when there is one, else in its own. Messages the user forgot stay forgotten unless
    ``restore_forgotten``."""
    if pairing not in segment.PAIRINGS:
        raise ValueError(f"pairing must be one of {segment.PAIRINGS}")
    with archive.transaction():
        return import_chat_rows(
            archive,
            chat,
            messages,
            segmenting_key(pairing, session_gap),
            import_seq,
            (lambda n, _read: progress(n, None)) if progress else None,
            restore_forgotten,
        )


def import_chat_rows(
    archive: Archive,
    chat: Chat,
    messages: Iterable[Message],
    segmenting: str,
    import_seq: int | None,
    progress: ChatProgress | None,
    restore_forgotten: bool,
    identity: Identity | None = None,
    seen: int = 0,
    unchanged: Callable[[ChatPlan, bool], ChatImportResult | None] | None = None,
) -> ChatImportResult:
    """``import_chat`` inside the caller's transaction, with the rows made here (``identity``, ``seen``:
    ``Rows``'). ``unchanged``: given the chat's plan and whether it is segmented anew, what reading it would
    report where it needs no reading (``ingest.resume.Prints``)."""
    plan, segmented_before = open_chat(archive, chat, segmenting, import_seq, restore_forgotten)
    resegmenting = segmenting != segmented_before
    if unchanged is not None and (result := unchanged(plan, resegmenting)) is not None:
        return result
    rows = Planned(plan, Rows(plan, messages, identity, seen))
    return write_chat(archive, chat, plan, rows, progress, resegmenting)


def open_chat(
    archive: Archive, chat: Chat, segmenting: str, import_seq: int | None, restore_forgotten: bool
) -> tuple[ChatPlan, str]:
    """The chat's row in the archive, and its plan; also how it was segmented before (``""`` if new)."""
    chat_seq, segmented_before = archive.upsert_chat(
        chat.source, chat.key, chat.name, chat.kind, chat.raw, segmenting, chat.former_key
    )
    chat_uid = archive.chat_uid(chat_seq)
    if restore_forgotten:
        archive.restore_forgotten(chat_uid)
    pairing, gap_us = parse_segmenting(segmenting)
    plan = ChatPlan(
        chat_seq,
        chat_uid,
        not archive.has_messages(chat_seq),
        archive.next_message_seq(),
        archive.forgotten_uids(chat_uid),
        import_seq,
        pairing,
        gap_us,
    )
    return plan, segmented_before


def write_chat(
    archive: Archive,
    chat: Chat,
    plan: ChatPlan,
    batches: Planned,
    progress: ChatProgress | None,
    resegmenting: bool,
) -> ChatImportResult:
    """Store a chat's rows; plan a fresh chat's sessions while the rows stream past, an updated one's after."""
    chat_seq = plan.chat_seq
    stored = _Stored(archive, plan, batches, progress)
    if not plan.fresh:
        collections.deque(stored, maxlen=0)
        changed = 0
        if resegmenting:
            changed = resegment_chat(archive, chat_seq)
        elif stored.added:
            # New rows got seqs from next_message_seq on; only what follows the earliest of them can change.
            start = archive.replan_start(chat_seq, plan.next_message_seq)
            changed = resegment_chat(archive, chat_seq, start, threads=stored.threaded)
    else:
        writer = SessionWriter(archive, chat_seq, {})
        for _batch in stored:
            writer.write_turned(batches.take())
        writer.write_turned(batches.take())
        writer.flush()
        if batches.out_of_order or stored.duplicates:
            # Out-of-order lines or duplicate ids within the file: plan again from the stored, sorted rows.
            archive.delete_sessions(writer.written)
            changed = resegment_chat(archive, chat_seq)
        else:
            if batches.threaded:
                replan(
                    archive, plan.chat_uid, chat_seq, writer, plan.gap_us, plan.pairing, threaded_only=True
                )
            changed = writer.changed
    n_sessions, n_turns = archive.session_counts(chat_seq)
    seen = batches.seen
    if not seen or (plan.forgotten and not n_sessions):
        # Nothing (left) to keep: a chat whose every message was forgotten does not come back empty.
        archive.delete_chat_if_empty(chat_seq)
    return ChatImportResult(
        chat_seq,
        chat.name,
        chat.source,
        stored.added,
        seen - stored.added,
        n_sessions,
        n_turns,
        changed,
        plan.chat_uid,
    )


def settle_languages(archive: Archive, chat_seqs: Iterable[int], given: str | None) -> None:
    """Decide each chat's language after an import. A language the user gave (``given``, or at an earlier
    import) stays until another is given. Otherwise it is told from the chat's latest text when the chat has
    none yet, or has at least doubled its messages since it was told: a chat's language rarely changes, and
    telling it again on every import would cost a read of its text each time for the same answer. The chats
    to tell are told together (``language.detect_each``: an assistant's export has thousands)."""
    telling: list[tuple[int, str, int]] = []  # (chat, its language so far, its messages)
    # No chat holds more messages than the highest message seq: one that cannot have doubled is not counted
    # (0.14 s for a million messages, on every re-import of a grown export). Asked once: nothing here adds
    # a message.
    most = archive.next_message_seq()
    for chat_seq in chat_seqs:
        state = archive.chat_language(chat_seq)
        if state is None:
            continue
        lang, basis, was_given = state
        if given is None and (was_given or (lang and most <= 2 * basis)):
            continue
        messages = archive.message_count(chat_seq)
        if given is not None:
            _set_language(archive, chat_seq, lang, given, messages, True)
        elif not (was_given or (lang and messages < 2 * basis)):
            telling.append((chat_seq, lang, messages))
    told = language.detect_each(
        len(telling), lambda i: archive.latest_texts(telling[i][0], language.TEXT_CHARS)
    )
    for (chat_seq, lang, messages), new in zip(telling, told, strict=True):
        _set_language(archive, chat_seq, lang, new, messages, False)


def _set_language(archive: Archive, chat_seq: int, old: str, new: str, basis: int, given: bool) -> None:
    archive.set_chat_language(chat_seq, new, basis, given)
    if analyzer_for(new) is not analyzer_for(old):
        # Its turns were indexed under the other language's stems and stop words.
        archive.queue_chat(chat_seq)


class _Stored:
    """Rows, stored batch by batch as they pass; counts what was new."""

    def __init__(
        self, archive: Archive, plan: ChatPlan, batches: Batches, progress: ChatProgress | None
    ) -> None:
        self.archive = archive
        self.plan = plan
        self.batches = batches
        self.progress = progress
        self.added = self.rows = 0
        self.duplicates = False  # a row's identity was stored already: the seqs planned for the rest are off
        self.threaded = False  # a threaded row was added: the chat's threads are planned again

    def __iter__(self) -> Iterator[list[tuple]]:
        """Each batch's new rows, once stored."""
        for batch in self.batches:
            self.rows += len(batch)
            new = batch if self.plan.fresh else self._threaded(self._unknown(batch))
            n = self.archive.insert_messages(new)
            self.duplicates |= n != len(new)
            if n != len(batch):
                n += self._keep_changed(batch)
            self.archive.count_stored()  # while the worker reads on
            self.added += n
            if self.progress:
                self.progress(self.rows, self.batches.read)
            yield new

    def _keep_changed(self, batch: list[tuple]) -> int:
        """A row whose identity is the source's id, stored already with another text (a Slack message
        edited between two exports, two messages sharing an id) is kept as a message of its own, flagged
        edited, never dropped. (A hashed identity covers the text, so only source ids can differ.)"""
        sourced = [row for row in batch if row[9] is not None]
        if not sourced:
            return 0
        stored = self.archive.stored_texts(self.plan.chat_seq, [(row[3], row[2]) for row in sourced])
        changed = []
        for row, text in zip(sourced, stored, strict=True):
            mine = row[7] if text is None or isinstance(row[7], str) else row[7].whole()
            if text is not None and text != mine:
                uid = f"{row[2]}~{hashlib.blake2b(mine.encode(), digest_size=6).hexdigest()}"
                if uid not in self.plan.forgotten:
                    # The row's planned seq (a fresh chat's) is free: the row itself was not stored.
                    changed.append((*row[:2], uid, *row[3:12], 1, *row[13:]))
        return self.archive.insert_messages(self._threaded(changed)) if changed else 0

    def _threaded(self, rows: list[tuple]) -> list[tuple]:
        self.threaded = self.threaded or any(row[10] is not None for row in rows)
        return rows

    def _unknown(self, batch: list[tuple]) -> list[tuple]:
        """The rows whose uid the chat does not hold yet at any time the same message could have: a file
        read in another zone gives the same uids at other instants. The rows' own time span first (a
        re-import finds its rows there), then the few left within a zone change of it."""
        if not batch:
            return batch
        times = [row[3] for row in batch]
        lo, hi = min(times), max(times)
        known = self.archive.known_uids(self.plan.chat_seq, lo, hi)
        rest = [row for row in batch if row[2] not in known]
        if rest:
            uids = [row[2] for row in rest]
            elsewhere = self.archive.known_uids(self.plan.chat_seq, lo - CROSS_ZONE, hi + CROSS_ZONE, uids)
            rest = [row for row in rest if row[2] not in elsewhere]
        return rest
