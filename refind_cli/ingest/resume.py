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

A JSON export grows inside its list of messages, so its reader's mark is short of the file's end
(``Mark.read``: a one-chat Telegram ``result.json``, ``importers.jsonstream.Head``): the hash of the bytes
before it is taken once the import is done and kept beside it (``ResumePoint.prefix``); a later reading
starts there, between two messages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from refind_cli.importers import read_export
from refind_cli.ingest.chats import import_chat_rows
from refind_cli.ingest.progress import ChatProgress
from refind_cli.ingest.rows import ChatPlan
from refind_cli.records import Chat, ChatExport, Mark, NotResumable
from refind_cli.reports import ChatImportResult
from refind_cli.storage.archive import Archive
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
        return json.dumps({**mark, **short, "recent": self.recent, "seen": self.seen})

    @classmethod
    def from_json(cls, text: str) -> ResumePoint:
        data = json.loads(text)
        mark = Mark(data["offset"], data["state"], data.get("digest", ""), data.get("read"))
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
    return (
        ResumePoint(mark, {}, mark.read)
        if mark.read is not None
        else ResumePoint(mark, identity.recent, seen)
    )


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
    (``Mark.digest``)."""
    named = [(seq, point) for seq, earlier, _, point in points if point.mark.digest and earlier == name]
    return max(named, key=lambda f: f[0]) if named else None


def read_entries(
    entries: Sequence[tuple[int, str, str, str]],
) -> tuple[list[tuple[int, str, str, ResumePoint]], Prints]:
    """The ledger's entries of a format and settings that left something to go on from (seq, path, hash,
    resume column): the marks (seq, file name, hash, point), and the chats' fingerprints."""
    marks = []
    prints: dict[str, tuple[str, int]] = {}
    names: set[str] = set()
    for seq, path, digest, text in sorted(entries):
        data = json.loads(text)
        if "chats" in data:
            prints.update((uid, (fp, seen)) for uid, (fp, seen) in data["chats"].items())
            names.add(Path(path).name)
        else:
            marks.append((seq, Path(path).name, digest, ResumePoint.from_json(text)))
    return marks, Prints(prints, frozenset(names))


class Prints:
    """The chats' fingerprints that earlier imports of a format and settings left (by chat uid: the latest,
    with the messages read then), and those of this import's chats (``took``), which its entry keeps."""

    def __init__(self, earlier: dict[str, tuple[str, int]], names: frozenset[str] = frozenset()) -> None:
        self.earlier = earlier
        self.names = names  # the names of the files those imports read
        self.taken: dict[str, tuple[str, int]] = {}
        self.skipped: set[int] = set()  # the chats (seqs) of this import not read again

    def again(self, path: Path) -> bool:
        """Whether the file is, by its name, one that left fingerprints: an export read again, most of whose
        chats are likely the same."""
        return path.name in self.names

    def unchanged(
        self, archive: Archive, chat: Chat, fingerprint: str | None, plan: ChatPlan, resegmenting: bool
    ) -> ChatImportResult | None:
        """What reading the chat would report, where it was read before as it is (nothing added; none of its
        rows read); None where it must be read."""
        earlier = self.earlier.get(plan.chat_uid)
        if fingerprint is None or earlier is None or earlier[0] != fingerprint or resegmenting or plan.fresh:
            return None
        self.taken[plan.chat_uid] = earlier
        self.skipped.add(plan.chat_seq)
        n_sessions, n_turns = archive.session_counts(plan.chat_seq)
        return ChatImportResult(
            plan.chat_seq, chat.name, chat.source, 0, earlier[1], n_sessions, n_turns, 0, plan.chat_uid
        )

    def known(self) -> frozenset[str]:
        """The fingerprints earlier imports left: what a reader that passes over chats read before is given."""
        return frozenset(fingerprint for fingerprint, _ in self.earlier.values())

    def took(self, fingerprint: str | None, result: ChatImportResult) -> None:
        if fingerprint is not None:
            self.taken[result.chat_uid] = (fingerprint, result.messages_added + result.messages_skipped)

    def to_json(self) -> str | None:
        return json.dumps({"chats": self.taken}) if self.taken else None


def import_resumed(
    archive: Archive,
    path: Path,
    fmt: str,
    tz: tzinfo,
    segmenting: str,
    import_seq: int,
    progress: ChatProgress | None,
    point: ResumePoint,
) -> tuple[ChatImportResult, ResumePoint | None] | None:
    """The file's one chat, read from ``point`` on, and where a later reading can go on from; None (with
    nothing written) when the file does not go on from the point."""
    exports = read_export(path, fmt, tz, point.mark)
    try:
        export = next(exports)
    except NotResumable:
        return None
    identity = Identity(recent={when: dict(counts) for when, counts in point.recent.items()})
    result = import_chat_rows(
        archive, export.chat, export.messages, segmenting, import_seq, progress, False, identity, point.seen
    )
    return result, point_after(export, identity, result.messages_added + result.messages_skipped)


def keeps(archive: Archive, chat_uid: str) -> bool:
    """Whether a chat's identities can be taken up at a mark: not where some of its forgotten messages
    carry the identity of archives before named migrations, which counts occurrences by other keys."""
    return not any(uid.startswith(LEGACY_PREFIX) for uid in archive.forgotten_uids(chat_uid))
