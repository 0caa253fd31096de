"""Reading a grown export from where the last reading of it stopped.

People export the same chat again months later: the new file is the old one with what was said since
appended. A reader that can go on (``Importer.resumes``: line-based logs) leaves a ``Mark`` at the end of a
loose file: the bytes it read and its state there. The ledger keeps it with what the archive side needs to go
on (the identities' occurrence counts of the latest written times, the messages read) as a ``ResumePoint``
on the import's entry, whose content hash is the hash of those bytes. A later import of a file whose first
bytes hash the same reads from the mark on (one pass over the file hashes it at every candidate offset, and
the whole of it for the ledger); the messages before it are the ones the archive holds already, so what is
stored is what a full reading would store. A file that changed before the mark (a message edited or
deleted), or whose bytes after it do not go on from it (``NotResumable``), is read whole.

A file of many chats (ChatGPT's or Claude's conversations) changes in some of them: its reader fingerprints
each chat before building its messages (``ChatExport.fingerprint``), and the import keeps the fingerprints of
the chats it read, by chat, in its entry (``Prints``). A chat whose fingerprint the latest import that read it
left, with the same settings, is not read again: the rows it would make are all stored (or forgotten) already.

A large file of many chats grows at its end (new conversations, the last one grown): the import leaves heads
in its entry (``Head``), places between two items of its list with the hash of the bytes before them, taken
from the hashes of the ledger's pass (``heads``). A later import whose file's bytes before one of them hash
the same takes the chats of the items before it as they are, and its reader walks the list from there
(``jsonstream.start_at``): the bytes before it cost the ledger's hash, nothing more.

A list written newest first (Gemini's activity) grows at its start: its heads are counted from the file's end
(a negative ``Head.offset``), each with the hash of the bytes after it, which the ledger's pass takes in the
grown file where they now begin (``Prints.tails``, ``jsonstream.Span``); the chats of the items after it are
taken as they are, and its reader walks the list up to it.

A JSON export grows inside its list of messages, so its reader's mark is short of the file's end
(``Mark.read``: a one-chat Telegram ``result.json``, ``importers.jsonstream.Head``): the hash of the bytes
before it is taken once the import is done and kept beside it (``ResumePoint.prefix``); a later reading
starts there, between two messages.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from refind_cli.importers import jsonstream, read_export
from refind_cli.ingest.chats import import_chat_rows
from refind_cli.ingest.ledger import Prefix, at_rest, prefix_digest
from refind_cli.ingest.progress import ChatProgress
from refind_cli.ingest.rows import ChatPlan
from refind_cli.records import Chat, ChatExport, Mark, NotResumable
from refind_cli.reports import ChatImportResult
from refind_cli.storage.archive import Archive, chat_uid_for
from refind_cli.storage.identity import LEGACY_PREFIX, Identity


@dataclass(frozen=True, slots=True)
class ResumePoint:
    """Where a reading of a one-chat file stopped: the reader's mark, the identities' state there (the
    occurrence counts of the latest written times: a message sent in the same minute as the one before
    the mark, with the same text, is its second occurrence) and the messages read before it."""

    mark: Mark
    recent: dict[str, dict[str, int]]
    seen: int
    # The hash of the file's bytes before a mark short of its end (``Mark.read``), taken as the ledger takes
    # its hash of the whole file; "" where the import's own hash is the hash of those bytes.
    prefix: str = ""

    def to_json(self) -> str:
        mark = {"offset": self.mark.offset, "state": self.mark.state, "digest": self.mark.digest}
        short = {"read": self.mark.read, "prefix": self.prefix} if self.mark.read is not None else {}
        each = {"each": True} if self.mark.each else {}
        return json.dumps({**mark, **short, **each, "recent": self.recent, "seen": self.seen})

    @classmethod
    def from_json(cls, text: str) -> ResumePoint:
        data = json.loads(text)
        mark = Mark(data["offset"], data["state"], data.get("digest", ""), data.get("read"))
        if data.get("each"):
            mark = mark._replace(each=True)
        return cls(mark, data["recent"], data["seen"], data.get("prefix", ""))


def printed(export: ChatExport) -> str | None:
    """A chat's fingerprint, its messages consumed: told before they were read, or once they were."""
    if export.fingerprint is None and export.printed is not None:
        return export.printed()
    return export.fingerprint


def point_after(export: ChatExport, identity: Identity, seen: int) -> ResumePoint | None:
    """Where a chat's reading, its messages consumed, can go on from; None if its reader cannot."""
    mark = export.end() if export.end is not None else None
    if mark is None:
        return None
    if mark.each:
        return ResumePoint(mark, {}, 0)
    # A mark short of the reading's end counts the messages before it; the identities' state is kept for
    # those without a source id (an HTML conversation's, whose closing tags follow the mark).
    return ResumePoint(mark, identity.recent, mark.read if mark.read is not None else seen)


def file_point(points: Sequence[ResumePoint | None], chats: int) -> ResumePoint | None:
    """Where a later reading of the whole file can go on from: its one chat's point, or the file's mark that
    the reading of each of its chats left (``Mark.each``)."""
    if len(points) == 1 and chats == 1:
        return points[0]
    first = points[0] if points and len(points) == chats else None
    if first is None or not first.mark.each or any(point != first for point in points):
        return None
    return first


def matching(
    points: Sequence[tuple[int, str, str, ResumePoint]], name: str, prefixes: dict[int, str]
) -> tuple[int, ResumePoint] | None:
    """Of earlier imports (seq, file name, hash, resume point) of this format and settings, the one whose
    bytes the file starts with (``prefixes``: the file's first bytes hashed, by offset), furthest on, then
    latest. Else the latest of a file of the same name whose mark the reader checks itself (a zip's text,
    which only the reader sees: ``Mark.digest``)."""
    found = [
        (point.mark.offset, seq, point)
        for seq, _, digest, point in points
        if not point.mark.digest and prefixes.get(point.mark.offset) == (point.prefix or digest)
    ]
    if not found:
        return checked_by_reader(points, name)
    _, seq, point = max(found, key=lambda f: (f[0], f[1]))
    return seq, point


def checked_by_reader(
    points: Sequence[tuple[int, str, str, ResumePoint]], name: str
) -> tuple[int, ResumePoint] | None:
    """The latest of the earlier imports' points of a file of this name whose mark the reader checks itself
    (``Mark.digest``); else the latest such mark of a file's chats (``Mark.each``) whatever its file's name:
    a phone backup is named by the time it was made, and its reader tells whether this one grew from it."""
    found = [
        (earlier == name, seq, point)
        for seq, earlier, _, point in points
        if point.mark.digest and (earlier == name or point.mark.each)
    ]
    if not found:
        return None
    _, seq, point = max(found, key=lambda f: (f[0], f[1]))
    return seq, point


def read_entries(
    entries: Sequence[tuple[int, str, str, str]],
) -> tuple[list[tuple[int, str, str, ResumePoint]], Prints]:
    """The ledger's entries of a format and settings that left something to go on from (seq, path, hash,
    resume column): the marks (seq, file name, hash, point), and the chats' fingerprints and heads."""
    marks = []
    prints: dict[str, tuple[str, int]] = {}
    names: set[str] = set()
    heads: list[Head] = []
    held: list[tuple[int, frozenset[str]]] = []
    for seq, path, digest, text in sorted(entries):
        data = json.loads(text)
        if "chats" in data:
            chats = [(uid, fp, seen) for uid, (fp, seen) in data["chats"].items()]
            prints.update((uid, (fp, seen)) for uid, fp, seen in chats)
            names.add(Path(path).name)
            heads += [Head(o, i, d, tuple(chats[:n])) for o, i, d, n in data.get("heads", [])]
            held.append((seq, frozenset(data["chats"])))
        else:
            marks.append((seq, Path(path).name, digest, ResumePoint.from_json(text)))
    return marks, Prints(prints, frozenset(names), heads, held)


@dataclass(frozen=True, slots=True)
class Head:
    """A place between two items of a file's list, where the bytes before it hash ``digest`` (as the ledger
    hashes a file's first bytes) and the ``items`` before it held ``chats`` (uid, fingerprint, messages
    read). A file whose bytes before it hash the same holds those items as they were. A negative ``offset``
    counts from the file's end, for a list that grows at its start: the bytes after the place hash
    ``digest`` (``jsonstream.Span``), and the items after it held ``chats``; ``items`` is the place's index
    in the list of the file that left it."""

    offset: int
    items: int
    digest: str
    chats: tuple[tuple[str, str, int], ...]


# Heads are left about this many bytes apart, and at the last item: each is where a later reading of the file,
# grown or changed after it, can start.
HEAD_EVERY = 8 << 20


class Prints:
    """The chats' fingerprints that earlier imports of a format and settings left (by chat uid: the latest,
    with the messages read then), and those of this import's chats (``took``), which its entry keeps; the
    heads earlier imports left (``Head``), and where this import's can go (``places``)."""

    def __init__(
        self,
        earlier: dict[str, tuple[str, int]],
        names: frozenset[str] = frozenset(),
        heads: Sequence[Head] = (),
        held: Sequence[tuple[int, frozenset[str]]] = (),
    ) -> None:
        self.earlier = earlier
        self.names = names  # the names of the files those imports read
        self.earlier_heads = heads
        self.held = held  # the imports that left fingerprints (seq), and their chats
        self.taken: dict[str, tuple[str, int]] = {}
        self.skipped: set[int] = set()  # the chats (seqs) of this import not read again
        self.start: Head | None = None  # the head this import's reading starts at (``go_on``)
        self.begins = 0  # where it lies in this file
        # This import's chats in reading order: uid ("" without a fingerprint), and where its item lies.
        self._placed: list[tuple[str, tuple[int, int] | None]] = []

    def again(self, path: Path) -> bool:
        """Whether the file is, by its name, one that left fingerprints: an export read again, most of whose
        chats are likely the same."""
        return path.name in self.names

    def offsets(self) -> list[int]:
        """Where earlier imports left heads: the ledger's pass hashes the file's bytes before each."""
        return [head.offset for head in self.earlier_heads if head.offset >= 0]

    def tails(self) -> list[int]:
        """The heads counted from the file's end (``Head``): the ledger's pass hashes the bytes after each."""
        return [head.offset for head in self.earlier_heads if head.offset < 0]

    def go_on(
        self,
        archive: Archive,
        prefixes: dict[int, str],
        segmenting: str,
        tails: dict[int, str] | None = None,
        size: int = 0,
    ) -> list[ChatImportResult]:
        """Where the file's bytes before a head hash as they did (``prefixes``, by offset; ``tails``: after a
        head counted from the end of the file of ``size`` bytes, by its offset), the furthest such head's
        chats, as reading them again would report them, where each is still as it was then (the latest
        fingerprint of its chat, there and cut the same way): the reading starts at the head (``known``).
        Else nothing."""
        hashed = {**prefixes, **(tails or {})}
        for head in sorted(self.earlier_heads, key=lambda h: (-len(h.chats), -h.offset)):
            if hashed.get(head.offset) != head.digest or any(
                self.earlier.get(uid, ("", 0))[0] != fp for uid, fp, _ in head.chats
            ):
                continue
            results = at_rest(archive, {uid: seen for uid, _, seen in head.chats}, segmenting)
            if results is None:
                continue
            self.start = head
            self.begins = head.offset if head.offset >= 0 else size + head.offset
            self.taken.update([(uid, (fp, seen)) for uid, fp, seen in head.chats])
            self.skipped.update([result.chat_id for result in results])
            self._placed += [(uid, None) for uid, _, _ in head.chats]
            return results
        return []

    def unchanged(
        self,
        archive: Archive,
        chat: Chat,
        fingerprint: str | None,
        at: tuple[int, int] | None,
        plan: ChatPlan,
        resegmenting: bool,
        formerly: str | None = None,
    ) -> ChatImportResult | None:
        """What reading the chat would report, where it was read before as it is (nothing added; none of its
        rows read); None where it must be read. ``at``: where its item lies (``ChatExport.at``); ``formerly``:
        its fingerprint as an earlier release told it, which stands for ``fingerprint`` (and gives way to it)."""
        earlier = self.earlier.get(plan.chat_uid)
        if (
            fingerprint is None
            or earlier is None
            or earlier[0] not in (fingerprint, formerly)
            or resegmenting
            or plan.fresh
        ):
            return None
        return self._taken(
            chat,
            plan.chat_uid,
            plan.chat_seq,
            (fingerprint, earlier[1]),
            at,
            archive.session_counts(plan.chat_seq),
        )

    def taken_as_it_is(
        self,
        archive: Archive,
        chat: Chat,
        fingerprint: str | None,
        at: tuple[int, int] | None,
        segmenting: str,
        formerly: str | None = None,
    ) -> ChatImportResult | None:
        """``unchanged`` before the chat's row is opened, from that row alone: where the chat is stored under
        its own uid with sessions (so messages: not fresh), cut the same way, as the export has it (opening it
        would write the row as it is), and its print is the latest, it is reported as ``unchanged`` reports it.
        Opening it first (``ingest.chats.open_chat``: its row written again, four lookups) cost each chat after
        the head seven statements: a ChatGPT export whose older conversation moved up has thousands. None where
        its row must be opened (``unchanged`` then decides)."""
        uid = chat_uid_for(chat.source, chat.key)
        earlier = self.earlier.get(uid)
        if fingerprint is None or earlier is None or earlier[0] not in (fingerprint, formerly):
            return None
        row = archive.chat_counted(uid)
        if row is None:
            return None
        seq, cut, n_sessions, n_turns, name, kind, raw, renamed = row
        written = (name if renamed else chat.name, chat.kind, chat.raw)  # what opening it would write
        if cut != segmenting or not n_sessions or (name, kind, raw) != written:
            return None
        return self._taken(chat, uid, seq, (fingerprint, earlier[1]), at, (n_sessions, n_turns))

    def _taken(
        self,
        chat: Chat,
        uid: str,
        seq: int,
        printed: tuple[str, int],
        at: tuple[int, int] | None,
        counts: tuple[int, int],
    ) -> ChatImportResult:
        """A chat taken as it is (its print and the messages read when it was, where its item lies, its
        sessions and turns): kept in this import's entry, and reported as reading it would report it."""
        self.taken[uid] = printed
        self._placed.append((uid, at))
        self.skipped.add(seq)
        return ChatImportResult(seq, chat.name, chat.source, 0, printed[1], *counts, 0, uid)

    def known(self) -> frozenset[str]:
        """The fingerprints earlier imports left, and the head to start at: what a reader that passes over
        chats read before is given."""
        if self.start is None:
            return frozenset(fingerprint for fingerprint, _ in self.earlier.values())
        # Not the fingerprints of the chats before the head, taken as they are: a reader parses each one it
        # is given (20,000 took 0.1 s), for items it will not meet. One of them met after the head is read,
        # as a reading given none reads it.
        before = {uid for uid, _, _ in self.start.chats}
        head = jsonstream.start_at(jsonstream.Head(self.begins, self.start.items))
        return frozenset([fp for uid, (fp, _) in self.earlier.items() if uid not in before] + [head])

    def took(self, fingerprint: str | None, result: ChatImportResult, at: tuple[int, int] | None) -> None:
        if fingerprint is not None:
            self.taken[result.chat_uid] = (fingerprint, result.messages_added + result.messages_skipped)
        placed = (result.chat_uid if fingerprint is not None else "", at)
        if self._placed[-1:] != [placed]:  # ``unchanged`` placed it already (a chat read in this process)
            self._placed.append(placed)

    def places(self) -> list[tuple[int, int, int]]:
        """Where this import's heads can go (offset, items before, chats before): at each item found by its
        bytes whose items before were each a chat of its own, with a fingerprint and messages (a chat a
        later import takes as it is must be one that reading it again would leave as it is)."""
        places: list[tuple[int, int, int]] = []
        uids: set[str] = set()
        before_start = 0 if self.start is None else len(self.start.chats)
        for n, (uid, at) in enumerate(self._placed):
            if at is not None and n:
                places.append((at[0], at[1], n))
            if not uid or uid in uids or not self.taken[uid][1] or (at is None and n >= before_start):
                break
            uids.add(uid)
        return places

    def carried(self) -> list[tuple[int, int, str, int]]:
        """The earlier heads before the one this import started at that hold the first of its chats: the
        bytes before them are as they were, their chats are this import's first (offset, items, hash,
        chats), so its entry keeps them (an edit in the middle of the next export goes on from one)."""
        if self.start is None:
            return []
        start = self.start
        return sorted(
            {
                (head.offset, head.items, head.digest, len(head.chats))
                for head in self.earlier_heads
                if head.offset < start.offset and start.chats[: len(head.chats)] == head.chats
            }
        )

    def superseded(self) -> list[int]:
        """The earlier imports whose every chat this one's entry holds (``to_json``), and the heads that
        count (``carried``): they tell a later import nothing more, and each later import would parse
        them (20,000 conversations' fingerprints are 1.9 MB an import)."""
        return [seq for seq, uids in self.held if uids <= self.taken.keys()]

    def to_json(self, heads: Sequence[tuple[int, int, str, int]] = ()) -> str | None:
        if not self.taken:
            return None
        return json.dumps({"chats": self.taken, **({"heads": list(heads)} if heads else {})})


def heads(
    path: Path, places: Sequence[tuple[int, int, int]], prefixes: dict[int, Prefix], size: int = 0
) -> list[tuple[int, int, str, int]]:
    """Of ``places`` (``Prints.places``), the first at or after every ``HEAD_EVERY`` bytes and the last, with
    the hash of the bytes before each (offset, items, hash, chats): from the nearest of ``prefixes`` before
    it (the ledger's pass hashed the file's first bytes at every ``HEAD_EVERY``), so that only the bytes
    between are read again. Places counted from the end of the file (of ``size`` bytes): the last, with the
    hash of the bytes after it (a hash for each other would read the file again for each)."""
    if places[-1][0] < 0:
        offset, items, chats = places[-1]
        after = jsonstream.Span(path, size + offset)
        return [(offset, items, after.digest(), chats)] if after.reach(size) else []
    offsets = [offset for offset, _, _ in places]  # in the file's order
    chosen = {
        places[-1],
        *(places[bisect.bisect_left(offsets, at)] for at in range(0, offsets[-1], HEAD_EVERY)),
    }
    found = []
    for offset, items, chats in sorted(chosen):
        shorter = max((o for o in prefixes if o <= offset), default=None)
        found.append(
            (
                offset,
                items,
                prefix_digest(path, offset, None if shorter is None else (shorter, prefixes[shorter])),
                chats,
            )
        )
    return found


def import_resumed(
    archive: Archive,
    path: Path,
    fmt: str,
    tz: tzinfo,
    segmenting: str,
    import_seq: int,
    progress: ChatProgress | None,
    point: ResumePoint,
) -> tuple[list[ChatImportResult], list[ResumePoint | None]] | None:
    """The file's chats, read from ``point`` on, and where a later reading of each can go on from
    (``file_point``); None (with nothing written) when the file does not go on from the point. A one-chat file's chat takes up the identities'
    state and the count the point holds; each chat of a file's mark (``Mark.each``) the count its reader
    tells (``ChatExport.passed``)."""
    exports = read_export(path, fmt, tz, point.mark)
    try:
        export: ChatExport | None = next(exports)
    except NotResumable:
        return None
    except StopIteration:
        export = None
    identity = Identity(recent={when: dict(counts) for when, counts in point.recent.items()})
    seen = point.seen
    results: list[ChatImportResult] = []
    after: list[ResumePoint | None] = []
    while export is not None:
        seen += export.passed
        result = import_chat_rows(
            archive, export.chat, export.messages, segmenting, import_seq, progress, False, identity, seen
        )
        results.append(result)
        after.append(point_after(export, identity, result.messages_added + result.messages_skipped))
        identity, seen = Identity(), 0
        export = next(exports, None)
    return results, after


def keeps(archive: Archive, chat_uid: str) -> bool:
    """Whether a chat's identities can be taken up at a mark: not where some of its forgotten messages
    carry the identity of archives before named migrations, which counts occurrences by other keys."""
    return not any(uid.startswith(LEGACY_PREFIX) for uid in archive.forgotten_uids(chat_uid))
