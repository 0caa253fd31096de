"""A chat's messages as archive rows: identities, forgotten ones left out, in batches. Pure: runs in the
writing process or in the import worker."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from refind_cli.records import HELD, HeldText, Message
from refind_cli.storage import raw as raw_record
from refind_cli.storage.database import to_us
from refind_cli.storage.identity import LEGACY_PREFIX, Identity
from refind_cli.storage.raw import SHARED_LONGEST
from refind_cli.storage.sessions import FreshPlan, TurnedSession

# Rows per batch: about 1 MB pickled, which the pipe from the worker holds while the worker builds the next.
BATCH = 5_000
# And characters per batch (texts and what is left of the raw records): a batch is held whole on each side of
# the pipe, so 5,000 messages of 15 KB each held 78 MB in the worker and as much in the writer (a 186-MB
# export of such messages peaked at 409 MB; bench/RESULTS.md, issue 26). Short chat messages (about 80
# characters) never reach it: their batches stay 5,000 rows.
BATCH_CHARS = 2_000_000


@dataclass(frozen=True, slots=True)
class ChatPlan:
    """What importing a chat needs to know of the archive."""

    chat_seq: int
    chat_uid: str
    # No stored messages: sessions are planned while the messages stream in, so the chat is never held in
    # memory or read back.
    fresh: bool
    next_message_seq: int
    forgotten: frozenset[str]
    import_seq: int | None
    pairing: str
    gap_us: int

    @property
    def legacy_forgotten(self) -> bool:
        """Some forgotten entries are identities of the archive before named migrations (which hashed the
        instant); a message forgotten then is recognised by that identity too, when read in the same zone."""
        return any(uid.startswith(LEGACY_PREFIX) for uid in self.forgotten)


class Batches(Protocol):
    """A chat's rows in batches. ``seen`` counts the messages read (forgotten ones too) once exhausted;
    ``read`` is how much of the export they came from, in characters of their raw records, so far."""

    @property
    def seen(self) -> int: ...

    @property
    def read(self) -> int: ...

    def __iter__(self) -> Iterator[list[tuple]]: ...


class Rows:
    """A chat's messages as archive rows, in batches. A fresh chat's rows get their seqs here, so its
    sessions can be planned before the rows are stored. ``identity`` and ``seen``: where the identities
    and the count of messages read stood at a mark, for messages read from there on (``ingest.resume``)."""

    def __init__(
        self, plan: ChatPlan, messages: Iterable[Message], identity: Identity | None = None, seen: int = 0
    ) -> None:
        self.plan = plan
        self.messages = messages
        self.identity = identity or Identity()
        self.seen = seen
        self.read = 0

    def __iter__(self) -> Iterator[list[tuple]]:
        # The import's hottest loop: one pass per message, with everything it touches in locals.
        plan = self.plan
        forgotten = plan.forgotten
        chat_seq, import_seq = plan.chat_seq, plan.import_seq
        uid = self.identity.uid
        legacy_uid = Identity(legacy=True).uid if plan.legacy_forgotten else None
        seq = plan.next_message_seq if plan.fresh else None
        cut = raw_record.cut
        batch: list[tuple] = []
        chars = 0
        seen, read = self.seen, self.read  # kept in locals, told at each batch and at the end
        # Messages of the same minute share their time (a reader parses each stamp once): converted once.
        last_when, ts = None, 0
        # Each short rest once per batch: most rows of a chat leave the same few (a WhatsApp line's " - : "
        # around its markers), which sent once and read back once are one string on both sides of the pipe.
        rests: dict[str, str] = {}
        try:
            # The fields unpacked in the loop's header: one step, where reading them by name took one each.
            for (
                when,
                sender,
                text,
                kind,
                source_id,
                sender_id,
                local_time,
                thread,
                reply_to,
                edited,
                record,
                own,
            ) in self.messages:
                if when is not last_when:
                    ts = to_us(when)
                    last_when = when
                identity = uid(source_id, local_time, ts, sender, text)
                seen += 1
                read += len(record)
                if isinstance(text, str):
                    written = text
                else:  # held in a file (``HeldText``): the record holds ``HELD`` in its place
                    written = HELD
                    if isinstance(record, str):  # (a record held too is kept whole: the text is in it)
                        read += len(text) - 1
                if identity in forgotten:
                    if legacy_uid is not None:
                        legacy_uid(source_id, local_time, ts, sender, text)  # counts the occurrence
                    continue
                if (
                    legacy_uid is not None
                    and legacy_uid(source_id, local_time, ts, sender, text) in forgotten
                ):
                    continue
                rest: str | HeldText
                if isinstance(record, str):
                    rest, form = cut(record, (written, local_time, sender, sender_id))
                    if len(rest) <= SHARED_LONGEST:
                        rest = rests.setdefault(rest, rest)
                else:  # held in a file (``HeldText``): kept whole, stored apart as it is
                    rest, form = record, None
                batch.append(
                    (
                        seq,
                        chat_seq,
                        identity,
                        ts,
                        local_time,
                        sender,
                        sender_id,
                        text,
                        kind,
                        source_id,
                        thread,
                        reply_to,
                        int(edited),
                        rest,
                        import_seq,
                        int(own),
                        form,
                    )
                )
                if seq is not None:
                    seq += 1
                chars += len(text) + len(rest)
                if len(batch) >= BATCH or chars >= BATCH_CHARS:
                    self.seen, self.read = seen, read
                    # Handed over and let go of, as the record read last: a suspended generator holds its
                    # locals, and a batch's rest or a record can be a 50-MB quote (sigtop's).
                    handed, batch, record, rest = [batch], [], "", ""
                    yield handed.pop()
                    chars = 0
                    rests = {}
        finally:
            self.seen, self.read = seen, read
        if batch:
            handed, batch, record, rest = [batch], [], "", ""
            yield handed.pop()


class Planned:
    """``batches``, with a fresh chat's unthreaded sessions planned from each batch as it passes (``take``:
    those planned so far and not taken yet), from the batch's rows themselves (``FreshPlan``): fed one row at
    a time through a generator between storing and planning, they cost the writer more than the planning's
    own loop. Another chat's batches pass as they are: its sessions are planned with the stored ones, after."""

    def __init__(self, plan: ChatPlan, batches: Batches) -> None:
        self.plan = plan
        self.batches = batches
        self.fresh = FreshPlan(plan.chat_uid, plan.gap_us, plan.pairing)

    @property
    def seen(self) -> int:
        return self.batches.seen

    @property
    def read(self) -> int:
        return self.batches.read

    @property
    def out_of_order(self) -> bool:
        """The rows came out of time order: the sessions planned are no good."""
        return self.fresh.unthreaded.out_of_order

    @property
    def threaded(self) -> bool:
        """Some rows are of explicit threads, planned from the stored rows after."""
        return self.fresh.unthreaded.threaded

    def take(self) -> list[TurnedSession]:
        taken, self.fresh.sessions = self.fresh.sessions, []
        return taken

    def __iter__(self) -> Iterator[list[tuple]]:
        if not self.plan.fresh:
            yield from self.batches
            return
        for batch in self.batches:
            self.fresh.feed(batch)
            handed = [batch]  # and let go of here (``Rows``)
            del batch
            yield handed.pop()
        self.fresh.close()
