"""How far an import has got: messages stored, and the share of the export's text read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from refind_cli.importers import container

# (messages read so far, the share of the export read: 0..1, or None where there is no file to measure)
Progress = Callable[[int, float | None], None]
# Within one chat: (messages stored so far, characters of their raw records)
ChatProgress = Callable[[int, int], None]


class FileProgress:
    """Each chat's progress as the file's: messages so far, and the share of the export's text read."""

    def __init__(self, report: Progress, size: int) -> None:
        self.report = report
        self.size = size
        self.messages = self.read = 0
        self.current = (0, 0)

    def chat(self, messages: int, read: int) -> None:
        self.current = (messages, read)
        share = min(1.0, (self.read + read) / self.size) if self.size else None
        self.report(self.messages + messages, share)

    def chat_done(self) -> None:
        self.messages += self.current[0]
        self.read += self.current[1]
        self.current = (0, 0)


def export_size(path: Path) -> int:
    """How much text an export holds, in bytes: a file's size, a folder's files, a zip's text and JSON
    entries uncompressed (its photos and videos are not read)."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    if container.is_zip(path):
        with container.open_zip(path) as zf:
            return sum(
                size
                for name, size in container.declared_sizes(zf)
                if name.lower().endswith((".txt", ".json"))
            )
    return container.file_size(path)
