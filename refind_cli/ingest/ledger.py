"""The import ledger: what content was imported with which settings, so unchanged content is not read again."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path

import xxhash

from refind_cli import __version__
from refind_cli.dates.clock import zone_fingerprint
from refind_cli.importers.container import export_files, iter_file_chunks, member_of
from refind_cli.records import Tap
from refind_cli.reports import ChatImportResult
from refind_cli.storage.archive import Archive


def file_digest(path: Path) -> str:
    """The content hash of an export (``DIGEST``): its own name (a WhatsApp chat is named by its file, so a
    copy under another name is another chat, not the first one unchanged), and the file, or a folder's
    files with their relative names (a folder inside an archive too: zipped, it hashes as it did loose)."""
    return file_digests(path)[0]


def file_digests(
    path: Path, offsets: Collection[int] = (), taps: Collection[Tap] = ()
) -> tuple[str, int, dict[int, Prefix]]:
    """``file_digest``, the bytes hashed, and for each of ``offsets`` the hash the same way of a file's first
    ``offset`` bytes: what the hash of an earlier import of the file before it grew is compared with
    (``ingest.resume``). One pass, which also feeds a loose file's bytes to ``taps`` (what a reader checks
    its own marks by)."""
    h = xxhash.xxh3_128(path.name.encode() + b"\x00")
    files = export_files(path)
    loose = files == [path]
    wanted = sorted({o for o in offsets if o > 0}) if loose else []
    prefixes: dict[int, Prefix] = {}
    size = _hash_into(h, files, path, wanted, prefixes, taps=taps if loose else ())
    return DIGEST + h.hexdigest(), size, prefixes


def prefix_digest(path: Path, offset: int, shorter: tuple[int, Prefix] | None = None) -> str:
    """The hash of a file's first ``offset`` bytes, as ``file_digests`` takes it; going on from the hash of
    fewer of them where given (``shorter``: their count and hash), so that only the bytes between are read."""
    start, h = (0, xxhash.xxh3_128(path.name.encode() + b"\x00"))
    if shorter is not None and shorter[0] <= offset:
        start, h = shorter[0], shorter[1].state.copy()
    prefixes: dict[int, Prefix] = {}
    _hash_into(h, [path], path, [offset], prefixes, start, stop=offset)
    return prefixes[offset].digest if offset in prefixes else DIGEST + h.hexdigest()


@dataclass(frozen=True, slots=True)
class Prefix:
    """The hash of a file's first bytes, and the hasher that took it (to go on from)."""

    digest: str
    state: xxhash.xxh3_128


def _hash_into(
    h: xxhash.xxh3_128,
    files: list[Path],
    path: Path,
    wanted: list[int],
    prefixes: dict[int, Prefix],
    start: int = 0,
    stop: int | None = None,
    taps: Collection[Tap] = (),
) -> int:
    """Hash ``files`` (a folder's with their names) into ``h`` from byte ``start`` on (to about ``stop``);
    the hash at each of ``wanted`` into ``prefixes``; a loose file's chunks to ``taps`` too. The bytes
    read."""
    size = start
    buffer = bytearray(1 << 22)
    for p in files:
        if p != path:  # a folder's file by its name below it; a piece beside an archive's first by its own
            h.update(str(p.relative_to(path) if p.is_relative_to(path) else p.name).encode() + b"\x00")
        if member_of(p) is not None:  # a file inside an archive: read through the container
            for chunk in iter_file_chunks(p, start):
                size = _take(h, chunk, size, wanted, prefixes)
                if stop is not None and size >= stop:
                    break
            continue
        with p.open("rb", buffering=0) as fh, memoryview(buffer) as view:
            fh.seek(start)
            # Into one buffer, not a new bytes object a read: the hash is fast enough for the copies to count.
            while (stop is None or size < stop) and (n := fh.readinto(buffer)):
                with view[:n] as read:
                    for tap in taps:
                        tap.feed(size, read)
                    size = _take(h, read, size, wanted, prefixes)
    return size


def _take(
    h: xxhash.xxh3_128, chunk: bytes | memoryview, size: int, wanted: list[int], prefixes: dict[int, Prefix]
) -> int:
    """Hash ``chunk``, the bytes after the first ``size``, keeping the hash at each of ``wanted`` it passes."""
    while wanted and wanted[0] <= size + len(chunk):
        cut = wanted.pop(0) - size
        before = h.copy()
        before.update(chunk[:cut])
        prefixes[size + cut] = Prefix(DIGEST + before.hexdigest(), before)
    h.update(chunk)
    return size + len(chunk)


# XXH3-128, not SHA-256 as before issue 26: every re-import hashes the whole file, the part read before
# included (an edit there must be seen), and 77 MB took 0.4-0.5 s against 0.05-0.1 s (bench/RESULTS.md). What
# a ledger entry of an earlier release holds never equals such a digest: that file is read again once.
DIGEST = "xxh3:"  # hashed at a time: where a prefix's hash is copied off


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
    results = at_rest(archive, earlier[1]["seen"], segmenting)
    return None if results is None else (earlier[0], results)


def at_rest(archive: Archive, seen: dict[str, int], segmenting: str) -> list[ChatImportResult] | None:
    """What reading the chats again would report (nothing added; ``seen`` messages each, stored or
    forgotten), where each is still there, cut the same way (``segmenting``); else None."""
    found = archive.chats_by_uid(list(seen))
    if len(found) != len(seen) or any(row[1] != segmenting for row in found.values()):
        return None
    # One pass of a comprehension: a re-import takes 20,000 of ChatGPT's conversations so.
    return [
        ChatImportResult(seq, name, source, 0, n, n_sessions, n_turns, 0, chat_uid)
        for chat_uid, n in seen.items()
        for seq, _, name, source, n_sessions, n_turns in (found[chat_uid],)
    ]


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
