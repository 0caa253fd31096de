"""One export file into the archive, in one transaction."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Callable, Generator
from datetime import timedelta, tzinfo
from pathlib import Path

from refind_cli.errors import InputError, UnknownFormat, input_warnings
from refind_cli.importers import read_export
from refind_cli.importers.container import is_file
from refind_cli.importers.jsonstream import Span
from refind_cli.importers.linelog import spooling_in
from refind_cli.ingest import worker as _worker
from refind_cli.ingest.chats import import_chat_rows, settle_languages
from refind_cli.ingest.ledger import file_digests, import_settings, now, prefix_digest, unchanged
from refind_cli.ingest.progress import ChatProgress, FileProgress, Progress, export_size
from refind_cli.ingest.resume import (
    HEAD_EVERY,
    Prints,
    ResumePoint,
    checked_by_reader,
    file_point,
    heads,
    import_resumed,
    keeps,
    matching,
    point_after,
    printed,
    read_entries,
)
from refind_cli.reports import ChatImportResult, FileImportResult
from refind_cli.storage.archive import Archive
from refind_cli.storage.identity import Identity
from refind_cli.storage.sessions import segmenting_key


def import_file(
    archive: Archive,
    path: Path,
    *,
    fmt: str = "auto",
    tz: tzinfo,
    session_gap: timedelta = timedelta(hours=1),
    progress: Progress | None = None,
    restore_forgotten: bool = False,
    worker: bool | None = None,
    reread: bool = False,
    lang: str | None = None,
) -> FileImportResult:
    """Import one export in one transaction. An unreadable export is reported, and leaves nothing behind.
    Content imported before with the same settings is not read again (its result says so), unless
    ``reread``; reading it again would add nothing. Nor is the part of a grown export that an earlier
    import read (``ingest.resume``: its result says from where it was read). ``lang``: the language of its chats (ISO 639-1), given
    by the user; else each chat's is told from its text (``settle_languages``).
    ``worker``: read the export and build its rows in a second process while this one writes (default: for
    large exports on a machine with more than one core)."""
    from refind_cli.importers import resolve

    try:
        importer = resolve(path, fmt)
        fmt = importer.name
        segmenting = segmenting_key(importer.pairing, session_gap)
        settings = import_settings(tz, segmenting)
        marks, prints = read_entries(
            [] if reread or restore_forgotten else archive.resume_points(fmt, settings)
        )
        candidates = marks if importer.resumes and is_file(path) else []
        # A mark with its own digest is checked by its reader (the bytes it covers move in a grown file).
        offsets = [p.mark.offset for *_, p in candidates if not p.mark.digest]
        # Its bytes hashed in the ledger's pass too, so that the file is read once.
        named = checked_by_reader(candidates, path.name)
        tap = importer.tap(path, named[1].mark) if named is not None else None
        size = export_size(path)  # once: a zip's is a sum over its entries (73,000 for a large Slack export)
        if importer.knows:  # the hashes heads are taken from (``resume.heads``), and those earlier ones need
            offsets += [*prints.offsets(), *range(HEAD_EVERY, size, HEAD_EVERY)]
        # The bytes after each head counted from the file's end, from where they lie in this file.
        tails = {o: Span(path, size + o, size) for o in prints.tails() if size + o >= 0 and is_file(path)}
        taps = [*([tap] if tap is not None else []), *tails.values()]
        digest, hashed, prefixes = file_digests(path, offsets, taps)
        resume_from = matching(candidates, path.name, {o: p.digest for o, p in prefixes.items()})
        if resume_from is not None and named is not None and resume_from[0] == named[0]:
            mark = resume_from[1].mark._replace(taken=tap)
            resume_from = (resume_from[0], dataclasses.replace(resume_from[1], mark=mark))
        if worker is None:
            # Not for an export of many chats read again: the worker would wait for the writer's answer on
            # each chat, most of them not read again (2,000 round trips took 5 s of 7 at load 10).
            worker = (
                size >= _worker.WORKER_MIN_BYTES and _worker.can_use_a_worker() and not prints.again(path)
            )
    except InputError as exc:
        return FileImportResult(
            str(path),
            None if fmt == "auto" else fmt,
            error=str(exc),
            unknown_format=isinstance(exc, UnknownFormat),
        )
    except OSError as exc:
        return FileImportResult(str(path), fmt, error=f"{path}: cannot read ({exc.strerror or exc})")
    warned: list[str] = []
    points: list[ResumePoint | None] = []
    resumed: tuple[list[ChatImportResult], list[ResumePoint | None]] | None = None
    try:
        # A long text read here is held beside the archive (``linelog.spooling_in``), as the worker's is.
        with archive.transaction(), spooling_in(archive.folder):
            import_seq = archive.start_import(str(path.resolve()), digest, fmt, now(), settings)
            earlier = (
                None if reread or restore_forgotten else unchanged(archive, digest, fmt, settings, segmenting)
            )
            if earlier is not None:
                chats = earlier[1]
            else:
                chats = []
                report = FileProgress(progress, size) if progress else None
                chat_progress = report.chat if report else None
                # The chats of the items before a head whose bytes are as they were: taken as they are.
                chats += prints.go_on(
                    archive,
                    {o: p.digest for o, p in prefixes.items()},
                    segmenting,
                    {o: span.digest() for o, span in tails.items() if span.stop == size},
                    size,
                )
                if resume_from is not None:
                    with input_warnings(warned.append):
                        resumed = import_resumed(
                            archive, path, fmt, tz, segmenting, import_seq, chat_progress, resume_from[1]
                        )
                results: Generator[ChatImportResult, None, None]
                reading = (archive, path, fmt, tz, segmenting, import_seq, chat_progress, restore_forgotten)
                if resumed is not None:
                    results = (result for result in resumed[0])
                    points += resumed[1]
                elif worker:
                    results = _worker.import_in_worker(*reading, warned.append, points.append, prints)
                else:
                    results = _import_here(*reading, points.append, prints)
                with contextlib.closing(results), input_warnings(warned.append):
                    for result in results:
                        chats.append(result)
                        if report:
                            report.chat_done()
            # A chat taken as it is by a head and met again by a reader that could not start there (its
            # entries were not as the head said) is reported once, as read.
            latest: dict[int, ChatImportResult] = {}
            for chat in chats:
                if chat.chat_id in latest and chat.messages_added:
                    prints.skipped.discard(chat.chat_id)
                latest[chat.chat_id] = chat
            chats = list(latest.values())
            settle_languages(  # those taken as they are were settled when they were read
                archive,
                [c.chat_id for c in chats if c.chat_id not in prints.skipped or lang is not None],
                lang,
            )
            counts = {
                "chats": len(chats),
                "messages_added": sum(c.messages_added for c in chats),
                "messages_skipped": sum(c.messages_skipped for c in chats),
                # Messages read per chat that holds any: what a later import of the same content reports.
                "seen": {c.chat_uid: c.messages_added + c.messages_skipped for c in chats if c.sessions},
            }
            if earlier is not None:
                counts["unchanged_since"] = earlier[0]
            if resumed is not None and resume_from is not None:
                counts["resumed"] = {"from": resume_from[0], "offset": resume_from[1].mark.offset}
            archive.finish_import(import_seq, now(), counts)
            point = file_point(points, len(chats))
            if (
                point is not None
                and point.mark.read is not None
                and not point.mark.digest
                and 0 < point.mark.offset < hashed
            ):
                # A mark short of the file's end: the hash of the bytes before it, from the one gone on from.
                went_on = resume_from[1].mark.offset if resumed is not None and resume_from else 0
                shorter = (went_on, prefixes[went_on]) if went_on in prefixes else None
                point = dataclasses.replace(point, prefix=prefix_digest(path, point.mark.offset, shorter))
            if (
                point is not None
                and is_file(path)
                and (point.mark.offset == hashed or point.mark.digest or point.prefix)
                and (point.mark.each or keeps(archive, chats[0].chat_uid))
            ):
                archive.set_resume_point(import_seq, point.to_json())
                if resumed is not None and resume_from is not None:
                    archive.set_resume_point(resume_from[0], None)  # this one goes on further
            elif taken := prints.to_json(
                [
                    *prints.carried(),
                    *(heads(path, places, prefixes, hashed) if (places := prints.places()) else ()),
                ]
            ):
                archive.set_resume_point(import_seq, taken)
                for seq in prints.superseded():
                    archive.set_resume_point(seq, None)
    except InputError as exc:
        return FileImportResult(str(path), fmt, error=str(exc))
    return FileImportResult(
        str(path),
        fmt,
        tuple(chats),
        unchanged_since=earlier[0] if earlier else None,
        warnings=tuple(warned),
        resumed_at=resume_from[1].mark.offset if resumed is not None and resume_from is not None else None,
    )


def _import_here(
    archive: Archive,
    path: Path,
    fmt: str,
    tz: tzinfo,
    segmenting: str,
    import_seq: int,
    progress: ChatProgress | None,
    restore_forgotten: bool,
    points: Callable[[ResumePoint | None], None],
    prints: Prints,
) -> Generator[ChatImportResult, None, None]:
    """Each chat of the file read whole in this process (but those read before as they are: ``prints``),
    its resume point to ``points``."""
    for export in read_export(path, fmt, tz, known=prints.known()):
        identity = Identity()
        result = prints.taken_as_it_is(
            archive, export.chat, export.fingerprint, export.at, segmenting, export.formerly
        )
        if result is None:
            result = import_chat_rows(
                archive,
                export.chat,
                export.messages,
                segmenting,
                import_seq,
                progress,
                restore_forgotten,
                identity,
                export.passed,
                unchanged=functools.partial(
                    prints.unchanged,
                    archive,
                    export.chat,
                    export.fingerprint,
                    export.at,
                    formerly=export.formerly,
                ),
            )
        prints.took(printed(export), result, export.at)
        points(point_after(export, identity, result.messages_added + result.messages_skipped))
        yield result
