"""Errors that reach the user as one line, ``refind: error: ...``, with exit code 2."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def echoed(value: object, limit: int = 80) -> str:
    """What the user (or a model) gave, as an error line repeats it: its repr, cut to ``limit`` characters, so
    a 100,000-character id or a 300-digit number is not echoed back whole."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}..."


class RefindError(Exception):
    """A problem the user can act on. ``str(err)`` is the whole message, without the ``refind: error:``."""


class InputError(RefindError):
    """An export that cannot be read. Names the file and the place inside it (line, entry, JSON path)."""

    def __init__(self, path: Path | str, what: str, where: str | None = None) -> None:
        self.path = str(path)
        self.what = what
        self.where = where
        super().__init__(_located(self.path, what, where))

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, str | None]]:
        # An import worker process sends it to the writer as it is.
        return InputError, (self.path, self.what, self.where)


class UnknownFormat(InputError):
    """A file that no importer recognises as an export. Inside a folder or an archive that holds exports it
    is passed over with a warning (Takeout's ``archive_browser.html``, a notes file beside the chats)."""


class InputWarning(UserWarning):
    """Part of an export read with a doubt and kept, flagged (e.g. a line whose date cannot be read): issued
    with ``warnings.warn`` while the import goes on, named like an InputError."""

    def __init__(self, path: Path | str, what: str, where: str | None = None) -> None:
        super().__init__(_located(str(path), what, where))


@contextlib.contextmanager
def input_warnings(report: Callable[[str], None]) -> Iterator[None]:
    """Within the block, every ``InputWarning`` goes to ``report`` as its one line (each one, not only the
    first of a place), instead of Python's warning format on stderr; other warnings go on as before."""
    import warnings  # here, not at the top: only an import diverts warnings; every command loads this module

    with warnings.catch_warnings():
        warnings.simplefilter("always", InputWarning)
        show = warnings.showwarning

        def divert(message: Warning | str, category: type[Warning], *rest: Any, **kw: Any) -> None:
            if issubclass(category, InputWarning):
                report(str(message))
            else:
                show(message, category, *rest, **kw)

        warnings.showwarning = divert
        yield


def _located(path: str, what: str, where: str | None) -> str:
    return f"{path}: {where}: {what}" if where else f"{path}: {what}"


class BusyError(RefindError):
    """Another refind process holds the archive or the index for writing, and waiting timed out."""


class ModelError(RefindError):
    """The configured language model cannot be reached or refused the request."""
