"""Health of a home folder: archive integrity, and whether the index agrees with the archive."""

from __future__ import annotations

from dataclasses import dataclass

from refind_cli.archive import Archive
from refind_cli.index import Index


@dataclass(frozen=True, slots=True)
class Health:
    integrity: tuple[str, ...]  # SQLite's integrity_check complaints; empty when the archive is sound
    archive_turns: int
    index_docs: int
    queued_sessions: int  # sessions the index has not caught up with yet

    @property
    def index_agrees(self) -> bool:
        return self.queued_sessions == 0 and self.archive_turns == self.index_docs

    @property
    def ok(self) -> bool:
        return not self.integrity and self.index_agrees


def check(archive: Archive, index: Index) -> Health:
    return Health(
        integrity=tuple(archive.integrity_problems()),
        archive_turns=archive.counts()["turns"],
        index_docs=index.num_docs,
        queued_sessions=len(archive.index_queue()),
    )


def repair(archive: Archive, index: Index) -> Health:
    """Rebuild the index from the archive (the archive is the source of truth), then check again."""
    index.rebuild(archive)
    return check(archive, index)
