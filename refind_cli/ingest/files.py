"""One export file into the archive, in one transaction."""

from __future__ import annotations

import contextlib
from datetime import timedelta, tzinfo
from pathlib import Path

from refind_cli.errors import InputError, input_warnings
from refind_cli.importers import read_export
from refind_cli.ingest import worker as _worker
from refind_cli.ingest.chats import import_chat_rows, settle_language
from refind_cli.ingest.ledger import file_digest, import_settings, now, unchanged
from refind_cli.ingest.progress import FileProgress, Progress, export_size
from refind_cli.reports import FileImportResult
from refind_cli.storage.archive import Archive
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
    ``reread``; reading it again would add nothing. ``lang``: the language of its chats (ISO 639-1), given
    by the user; else each chat's is told from its text (``settle_language``).
    ``worker``: read the export and build its rows in a second process while this one writes (default: for
    large exports on a machine with more than one core)."""
    from refind_cli.importers import resolve

    try:
        importer = resolve(path, fmt)
        fmt = importer.name
        digest = file_digest(path)
        size = export_size(path)
        if worker is None:
            worker = size >= _worker.WORKER_MIN_BYTES and _worker.can_use_a_worker()
    except InputError as exc:
        return FileImportResult(str(path), None if fmt == "auto" else fmt, error=str(exc))
    except OSError as exc:
        return FileImportResult(str(path), fmt, error=f"{path}: cannot read ({exc.strerror or exc})")
    segmenting = segmenting_key(importer.pairing, session_gap)
    settings = import_settings(tz, segmenting)
    warned: list[str] = []
    try:
        with archive.transaction():
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
                if worker:
                    results = _worker.import_in_worker(
                        archive,
                        path,
                        fmt,
                        tz,
                        segmenting,
                        import_seq,
                        chat_progress,
                        restore_forgotten,
                        warned.append,
                    )
                else:
                    results = (
                        import_chat_rows(
                            archive,
                            e.chat,
                            e.messages,
                            segmenting,
                            import_seq,
                            chat_progress,
                            restore_forgotten,
                        )
                        for e in read_export(path, fmt, tz)
                    )
                with contextlib.closing(results), input_warnings(warned.append):
                    for result in results:
                        chats.append(result)
                        if report:
                            report.chat_done()
            for chat in chats:
                settle_language(archive, chat.chat_id, lang)
            counts = {
                "chats": len(chats),
                "messages_added": sum(c.messages_added for c in chats),
                "messages_skipped": sum(c.messages_skipped for c in chats),
                # Messages read per chat that holds any: what a later import of the same content reports.
                "seen": {c.chat_uid: c.messages_added + c.messages_skipped for c in chats if c.sessions},
            }
            if earlier is not None:
                counts["unchanged_since"] = earlier[0]
            archive.finish_import(import_seq, now(), counts)
    except InputError as exc:
        return FileImportResult(str(path), fmt, error=str(exc))
    return FileImportResult(
        str(path), fmt, tuple(chats), unchanged_since=earlier[0] if earlier else None, warnings=tuple(warned)
    )
