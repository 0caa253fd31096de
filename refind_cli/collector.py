"""The cyclic garbage collector paused around work that makes many container objects (tuples, lists) and frees
them by reference counting: the collector would walk them, and whatever else the process holds, again and
again for nothing."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block. Whatever cycles the block does leave are collected after
    it. A search at 1M turns makes a (score, address) tuple for every matching turn, 25,000 at the median,
    all freed by reference counting when it returns; the collector scanned each of them two or three times
    on the way: ~3 ms of a search on average, measured in the MCP server. The writer of an import read by a
    worker makes a row tuple or two a message: at a million messages the collector ran 3,873 times in it
    for 1.4-1.6 s of CPU, to find 668 objects in cycles at the end (bench/RESULTS.md, issue 26 item 2,
    session 15)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
