"""Health of a home folder: archive integrity, and whether the index agrees with the archive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from refind_cli.reports import Health

if TYPE_CHECKING:
    from refind_cli.index import TurnIndex
    from refind_cli.storage.archive import Archive


def check(archive: Archive, index: TurnIndex) -> Health:
    problems = tuple(archive.integrity_problems())
    if problems:
        # Counting a damaged archive may fail or mislead: what is known is that it is damaged.
        return Health(problems, None, index.num_docs, None)
    return Health(
        integrity=problems,
        archive_turns=archive.counts()["turns"],
        index_docs=index.num_docs,
        queued_sessions=len(archive.index_queue()),
    )


def repair(archive: Archive, index: TurnIndex) -> Health:
    """Rebuild the index from the archive (the archive is the source of truth), then check again."""
    index.rebuild(archive)
    return check(archive, index)
