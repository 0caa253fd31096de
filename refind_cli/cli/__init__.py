"""The command line: argument parsing and wiring only. Each command calls the library and hands the result
to a renderer. Heavy modules are imported inside the commands, so ``refind --help`` stays fast and never
loads litellm."""

from __future__ import annotations

import contextlib
import importlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from refind_cli import __version__
from refind_cli.errors import RefindError
from refind_cli.home import resolve_home

if TYPE_CHECKING:
    from datetime import datetime, tzinfo

    from rich.console import Console

    from refind_cli.archive import Archive
    from refind_cli.index import Index

app = typer.Typer(
    name="refind",
    help="Find things in your own chat history: import WhatsApp, Slack and Telegram exports, search them, ask.",
    no_args_is_help=True,
    add_completion=False,
    # Locals in a traceback could show chat text or API keys.
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
)


@dataclass
class State:
    home: Path


def _version(value: bool) -> None:
    if value:
        typer.echo(f"refind {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    home: Annotated[
        Path | None,
        typer.Option("--home", envvar="REFIND_HOME", help="Data folder (default: $XDG_DATA_HOME/refind)."),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    ctx.obj = State(home=resolve_home(home))


def state(ctx: typer.Context) -> State:
    return ctx.ensure_object(State) if ctx.obj is None else ctx.obj


def stdout_console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def print_error(message: str) -> None:
    """The one-line error, never wrapped (scripts and people grep it)."""
    sys.stderr.write(f"refind: error: {message}\n")
    sys.stderr.flush()


def fail(message: str, *, json_mode: bool = False) -> NoReturn:
    """One line on stderr (and an error object on stdout for scripts), exit code 2."""
    if json_mode:
        print_json({"error": message})
    print_error(message)
    raise typer.Exit(2)


@contextlib.contextmanager
def error_boundary(json_mode: bool = False) -> Iterator[None]:
    """Turns the library's user-facing errors into the one-line error and exit code 2."""
    try:
        yield
    except RefindError as exc:
        fail(str(exc), json_mode=json_mode)
    except KeyboardInterrupt:
        sys.stderr.write("refind: interrupted\n")
        raise typer.Exit(130) from None


def time_option(option: str, text: str | None, *, tz: tzinfo, now: datetime, end: bool) -> datetime | None:
    """A --since/--until/--before value as an instant (the start or the inclusive end of what it names)."""
    if text is None:
        return None
    from refind_cli.timeexpr import parse_bound

    try:
        return parse_bound(text, now=now, tz=tz, end=end)
    except ValueError as exc:
        raise RefindError(f"{option}: {exc}") from None


def chat_option(archive: Archive, names: list[str] | None) -> tuple[int, ...] | None:
    """The chats --chat names (each name must match at least one), or None when none is given."""
    if not names:
        return None
    ids: dict[int, None] = {}
    for name in names:
        found = archive.match_chats(name)
        if not found:
            raise RefindError(f"--chat: no chat matches {name!r} (see `refind chats`)")
        ids.update(dict.fromkeys(found))
    return tuple(ids)


def open_archive(ctx: typer.Context) -> Archive:
    from refind_cli.archive import Archive

    return Archive.open(state(ctx).home, readonly=True)


def open_index(ctx: typer.Context, archive: Archive) -> Index:
    """The index, caught up with the archive if it fell behind (a crash between the two) or was lost.
    Catching up needs the write lock; while another process writes, search answers from the last commit."""
    from refind_cli.index import Index
    from refind_cli.locks import try_write_lock

    home = state(ctx).home
    index = Index.open(home)
    if archive.index_queue() or (index.num_docs == 0 and archive.has_turns()):
        with try_write_lock(home) as free:
            if free:
                index.sync(archive)
    return index


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
}
_GLOBAL_OPTIONS_WITH_A_VALUE = ("--home",)


def named_command(args: list[str]) -> str | None:
    """The command a command line names: its first word that is neither a global option nor its value."""
    value_next = False
    for arg in args:
        if value_next:
            value_next = False
        elif arg in _GLOBAL_OPTIONS_WITH_A_VALUE:
            value_next = True
        elif not arg.startswith("-"):
            return arg
    return None


def main() -> None:
    # Command modules register themselves on `app` when imported; they import nothing heavy at top level.
    module = COMMAND_MODULES.get(named_command(sys.argv[1:]) or "")
    if module is not None:
        importlib.import_module(f"refind_cli.cli.{module}")
    else:
        # --help, no command, or a misspelt one: all of them, in the order `refind --help` lists them.
        from refind_cli.cli import imports, search, ask, maintain  # noqa: F401  # isort: skip
    app()
