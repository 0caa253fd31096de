"""Cross-process locks on files under the home folder (POSIX ``flock``): one writer at a time, readers free.

The lock belongs to the open descriptor, so a killed process releases it at once, and closing the
descriptor releases it."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator

from refind_cli.errors import BusyError

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from _typeshed import StrPath


@contextlib.contextmanager
def exclusive(
    path: StrPath, *, timeout: float, waiting: str, busy: str, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold ``path`` exclusively, waiting for another holder (``on_wait(waiting)`` once) up to ``timeout``
    seconds, then raising ``BusyError(busy)``."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise BusyError(busy) from None
                if not told and on_wait is not None:
                    on_wait(waiting)
                    told = True
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def exclusive_if_free(path: StrPath) -> Iterator[bool]:
    """Hold ``path`` if nobody does right now (yields True), else yield False without waiting."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


# The archive's lock: one writer per home (imports, forget, reindex), across processes.
WRITE_LOCK = ".write.lock"


def write_lock(
    home: StrPath, *, on_wait: Callable[[str], None] | None = None, timeout: float = 600.0
) -> contextlib.AbstractContextManager[None]:
    """One writer at a time per home: a second import waits (saying so once) instead of failing."""
    return exclusive(
        os.path.join(home, WRITE_LOCK),
        timeout=timeout,
        waiting=f"waiting for another refind process writing to {home} ...",
        busy=f"{home}: another refind process is writing; gave up after {timeout:.0f} s",
        on_wait=on_wait,
    )


def try_write_lock(home: StrPath) -> contextlib.AbstractContextManager[bool]:
    """The write lock if it is free right now (True), else False: readers never wait for a writer."""
    return exclusive_if_free(os.path.join(home, WRITE_LOCK))
