"""Errors that reach the user as one line, ``refind: error: ...``, with exit code 2."""

from __future__ import annotations

from pathlib import Path


class RefindError(Exception):
    """A problem the user can act on. ``str(err)`` is the whole message, without the ``refind: error:``."""


class InputError(RefindError):
    """An export that cannot be read. Names the file and the place inside it (line, entry, JSON path)."""

    def __init__(self, path: Path | str, what: str, where: str | None = None) -> None:
        self.path = str(path)
        self.what = what
        self.where = where
        place = f"{self.path}: {where}" if where else self.path
        super().__init__(f"{place}: {what}")

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, str | None]]:
        # An import worker process sends it to the writer as it is.
        return InputError, (self.path, self.what, self.where)


class BusyError(RefindError):
    """Another refind process holds the archive or the index for writing, and waiting timed out."""


class ModelError(RefindError):
    """The configured language model cannot be reached or refused the request."""
