"""The command line: argument parsing and wiring only. Each command (one module per family, registering
itself on ``app``) parses its options, makes one call to the facade and hands the result to a renderer."""

from __future__ import annotations

import gc
import os
import sys

from refind_cli import COMPLETE_VAR, __version__

# Not typing's: importing typing is a tenth of `refind --version` (mypy reads any TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn, TextIO

    import typer

__all__ = ["COMMAND_MODULES", "app", "main"]


def __getattr__(name: str) -> typer.Typer:
    # The typer app is built on first use: `refind --version` never needs typer, click or rich (~60 % of
    # the start-up of a command).
    if name == "app":
        from refind_cli.frontends.cli.common import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The module that registers each command. Typer builds every registered command on every start (it reads
# each signature), so a command line that names a command imports only its module: ~30 ms less of every
# `refind search`. tests/test_cli_startup.py holds this table to what the modules register.
COMMAND_MODULES = {
    "import": "imports",
    "chats": "imports",
    "search": "search",
    "show": "search",
    "reindex": "search",
    "ask": "ask",
    "eval": "ask",
    "forget": "maintain",
    "doctor": "maintain",
    "mcp": "mcp",
    "stats": "stats",
    "completion": "completion",
}


def _null_stream(fd: int) -> TextIO:
    null = os.open(os.devnull, os.O_RDWR)  # the lowest free number: ``fd`` itself unless a lower one is free
    if null != fd:
        os.dup2(null, fd)
        os.close(null)
    # The process's own stream, open until it ends.
    return open(fd, closefd=False) if fd == 0 else open(fd, "w", closefd=False)


def main(end: Callable[[int], NoReturn] = sys.exit) -> None:
    """The command line in ``sys.argv``; ``end`` ends the process with a status where the quick path ran it."""
    # The cyclic collector is paused until the typer app runs: a read's start-up makes ~14,000 objects that
    # live until it ends (modules, classes, functions) and the collector scanned them 25 times on the way to
    # a cold search's first hit, finding nothing to free: ~5 ms of its ~55 ms of CPU in process at load 10
    # (bench/RESULTS.md, issue 26 item 3, session 15). What a read makes is freed by reference counting; a
    # search reading any number of queries from stdin runs with the collector as it was (``quick.serve``).
    collecting = gc.isenabled()
    gc.disable()
    try:
        if _served(end, collecting):
            return
    finally:
        if collecting:
            gc.enable()
    from refind_cli.frontends.cli import quick
    from refind_cli.frontends.cli.common import app

    # Command modules register themselves on `app` when imported; they import nothing heavy at top level.
    at = quick.command_at(sys.argv[1:])
    module = COMMAND_MODULES.get(sys.argv[1 + at] if at is not None else "")
    if module is not None and COMPLETE_VAR not in os.environ:
        import importlib

        importlib.import_module(f"refind_cli.frontends.cli.{module}")
    else:
        # --help, no command, a misspelt one, or a completion: all of them, in the order `refind --help`
        # lists them.
        from refind_cli.frontends.cli import imports, search, stats, ask, maintain, mcp, completion  # noqa: F401  # isort: skip
    app()


def _served(end: Callable[[int], NoReturn], collecting: bool) -> bool:
    """The process made ready; True when ``--version`` was answered, else the quick path's command run and
    ended by ``end``, or False when the typer app must run the command line."""
    # Everything refind writes is personal data: files and folders it creates are the user's alone.
    os.umask(0o077)
    # A standard stream closed at the start (`<&-`, `2>&-`) would lend its number to the next file opened
    # (the archive, the index): input reads as empty and errors go nowhere, as if from the null device.
    if sys.stdin is None:
        sys.stdin = _null_stream(0)
    if sys.stderr is None:
        sys.stderr = _null_stream(2)
    if sys.stdout is None:
        # Output was asked for and cannot be given (`refind search x >&-`).
        sys.stderr.write("refind: error: stdout: not open\n")
        sys.exit(2)
    # A terminal or pipe that cannot encode a character (ASCII, Latin-1) shows it escaped, not a traceback.
    # try/except, not contextlib.suppress: contextlib (with collections and functools) is a fifth of
    # `refind --version` beyond the interpreter's own start.
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
        except (AttributeError, ValueError):
            pass
    if sys.argv[1:] == ["--version"] and COMPLETE_VAR not in os.environ:
        # What the root's eager --version option prints, without building the app (it alone is 3x the
        # interpreter's start).
        sys.stdout.write(f"refind {__version__}\n")
        return True
    from refind_cli.frontends.cli import quick

    # `refind search` without building the app (typer, click and their work are a third of its start).
    code = quick.serve(sys.argv[1:], collecting=collecting)
    if code is not None:
        end(code)
    return False


def run() -> NoReturn:
    """The installed ``refind`` and ``python -m refind_cli``: ``main``, and a read command on the quick path
    ends without the interpreter's teardown (every module and object freed one by one, the index engine
    closed: ~10 ms of a cold search's 115 ms of CPU). By then it has closed what it opened and written its
    output (``output.guarded``)."""
    main(_end_now)
    sys.exit(0)


def _end_now(code: int) -> NoReturn:
    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 (contextlib is not imported here: above)
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
