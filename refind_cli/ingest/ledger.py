"""The import ledger: what content was imported with which settings, so unchanged content is not read again."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from refind_cli import __version__
from refind_cli.dates.clock import zone_fingerprint
from refind_cli.importers.container import iter_file_chunks
from refind_cli.reports import ChatImportResult
from refind_cli.storage.archive import Archive


def file_digest(path: Path) -> str:
    """SHA-256 of an export: its own name (a WhatsApp chat is named by its file, so a copy under another
    name is another chat, not the first one unchanged), and the file, or a folder's files with their
    relative names."""
    return file_digests(path)[0]


def file_digests(path: Path, offsets: Collection[int] = ()) -> tuple[str, int, dict[int, str]]:
    """``file_digest``, the bytes hashed, and for each of ``offsets`` the hash the same way of a file's first
    ``offset`` bytes: what the hash of an earlier import of the file before it grew is compared with
    (``ingest.resume``). One pass."""
    h = hashlib.sha256(path.name.encode() + b"\x00")
    files = [p for p in sorted(path.rglob("*")) if p.is_file()] if path.is_dir() else [path]
    wanted = [] if path.is_dir() else sorted({o for o in offsets if o > 0})
    prefixes: dict[int, str] = {}
    size = 0
    for p in files:
        if p != path:
            h.update(str(p.relative_to(path)).encode() + b"\x00")
        for chunk in iter_file_chunks(p):  # a loose file, or a file inside an archive
            while wanted and wanted[0] <= size + len(chunk):
                cut = wanted.pop(0) - size
                before = h.copy()
                before.update(chunk[:cut])
                prefixes[size + cut] = before.hexdigest()
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size, prefixes


def import_settings(tz: tzinfo, segmenting: str) -> str:
    """What besides the content decides what an import writes. The zone stays in it although message
    identities no longer depend on it: content read in another zone is read again, and adds nothing."""
    return f"refind {__version__}; zone {zone_fingerprint(tz)}; segmenting {segmenting}"


def unchanged(
    archive: Archive, digest: str, fmt: str, settings: str, segmenting: str
) -> tuple[int, list[ChatImportResult]] | None:
    """When the same content was imported before with the same settings, and every chat it filled is
    still there, cut the same way: the earlier import's ledger entry, and what reading the export again
    would report (nothing added; every message skipped, as stored or forgotten). Else None."""
    earlier = archive.earlier_import(digest, fmt, settings)
    if earlier is None or "seen" not in earlier[1]:
        return None
    results = []
    for chat_uid, seen in earlier[1]["seen"].items():
        found = archive.chat_by_uid(chat_uid)
        if found is None or found[1] != segmenting:
            return None
        info = archive.chat(found[0])
        n_sessions, n_turns = archive.session_counts(info.seq)
        results.append(
            ChatImportResult(info.seq, info.name, info.source, 0, seen, n_sessions, n_turns, 0, chat_uid)
        )
    return earlier[0], results


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
