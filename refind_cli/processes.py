"""A second Python process for work that splits: the import's worker (``ingest.worker``) and the index's
analysis (``index.analysed``). One core gains nothing from one; an embedded interpreter cannot start one.

A plain subprocess rather than multiprocessing: its "spawn" re-runs the caller's main module, which a script
without an ``if __name__ == "__main__"`` guard does not survive, and "fork" would copy whatever threads (a
progress display) this process runs."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
from pathlib import Path


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def can_use_a_child() -> bool:
    return cores() > 1 and bool(sys.executable)


def python_child(code: str, buffer: int) -> subprocess.Popen[bytes]:
    """``python -c code`` with this package importable, talking over its stdin and stdout (``buffer``
    bytes of buffering each way)."""
    package_root = str(Path(__file__).resolve().parent.parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])),
    }
    # -P: not the working folder first on sys.path, where ``-c`` puts it: run from another checkout, the
    # child would import that checkout's package, not this one (and speak another protocol).
    process = subprocess.Popen(
        [sys.executable, "-P", "-c", code],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=buffer,
        env=env,
    )
    # The kernel's pipe as large as the buffers (up to 1 MB, Linux's limit for an ordinary user): through
    # the default 64 KB one the two processes take turns every 64 KB, where with it the child runs a batch
    # or more ahead (the import's worker: 2 s less waiting on a million messages; each of the index's two
    # analysing processes waited while this one read the other's part: half of their time asleep).
    assert process.stdout is not None
    with contextlib.suppress(AttributeError, OSError):  # F_SETPIPE_SZ is Linux's
        fcntl.fcntl(process.stdout.fileno(), fcntl.F_SETPIPE_SZ, buffer)
    return process
