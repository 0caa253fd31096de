"""`refind import` and `refind chats`."""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from refind_cli import importers
from refind_cli.frontends.cli import read
from refind_cli.frontends.cli.common import (
    JsonOption,
    app,
    error_boundary,
    open_home,
    print_error,
    print_json,
    print_warning,
    stderr_console,
    stdout_console,
    table_callback,
)
from refind_cli.frontends.cli.output import for_a_terminal
from refind_cli.frontends.cli.params import CHATS_LIST

if TYPE_CHECKING:
    from rich.console import Console

    from refind_cli.facade import Progress


def _format_help() -> str:
    *first, last = ("auto", *importers.names())
    return f"{', '.join(first)} or {last}."


@app.command("import")
def import_(
    ctx: typer.Context,
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Export files or folders (.txt, .zip, result.json, Slack folder), or folders of exports.",
            # Checked per file by the import, so one unreadable file is one error line, not a usage error.
            readable=False,
        ),
    ],
    fmt: Annotated[str, typer.Option("--format", help=_format_help())] = "auto",
    tz: Annotated[
        str | None,
        typer.Option("--tz", help="Zone of times written without an offset (default: the system's)."),
    ] = None,
    session_gap: Annotated[
        str, typer.Option("--session-gap", help="A silence longer than this starts a new session.")
    ] = "1h",
    restore_forgotten: Annotated[
        bool, typer.Option("--restore-forgotten", help="Bring back messages removed with `refind forget`.")
    ] = False,
    reread: Annotated[
        bool,
        typer.Option("--reread", help="Read exports even when they were imported before, unchanged."),
    ] = False,
    lang: Annotated[
        str | None,
        typer.Option(
            "--lang",
            help="Language of the imported chats (ISO 639-1, e.g. de), kept through re-imports;"
            " default: told from each chat's text.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Import chat exports into the archive and the search index. Re-importing adds only what is new."""
    from refind_cli.dates.clock import zone
    from refind_cli.facade import Home
    from refind_cli.frontends.render.imports import import_json, print_import, write_imports
    from refind_cli.frontends.render.rows import table_format

    with error_boundary(json_out):
        options = Home.import_options(
            fmt=fmt,
            tz=zone(tz),
            session_gap=session_gap,
            restore_forgotten=restore_forgotten,
            reread=reread,
            lang=lang,
        )
    # rich only for a terminal: its import is a tenth of a second of CPU, the most of a re-import of a grown
    # export, which a script may run often.
    err = stderr_console() if for_a_terminal(sys.stderr) else None
    fmt_out = table_format(csv_out=False, tsv_out=False)  # into a pipe the tables are TSV
    out = stdout_console() if fmt_out == "table" and not json_out else None
    results = []
    with error_boundary(json_out), open_home(ctx) as home:
        indexing = (lambda: err.status("indexing ...")) if err is not None else contextlib.nullcontext
        for result in home.import_files(
            paths, options, progress=functools.partial(_progress, err), indexing=indexing
        ):
            results.append(result)
            for warning in result.warnings:
                print_warning(warning)
            if result.error:
                print_error(result.error)
            elif out is not None:
                print_import(out, result)
    if json_out:
        print_json(import_json(results))
    elif fmt_out != "table" and not all(r.error for r in results):
        # An import refused whole prints its error alone: no table's header without a row before it.
        write_imports(results, fmt_out)
    if any(r.error for r in results):
        raise typer.Exit(2)


@contextlib.contextmanager
def _progress(err: Console | None, path: Path) -> Iterator[Progress | None]:
    """A progress bar on stderr while one export is read (messages, share of the export read, time left;
    shown only on a terminal: ``err``), and the callback that moves it."""
    if err is None:
        yield None
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as p:
        task = p.add_task(f"{path.name}: reading", total=None)

        def progress(n: int, share: float | None) -> None:
            # Without a share the bar pulses; with one it fills and estimates the time left.
            p.update(
                task,
                description=f"{path.name}: {n:,} messages",
                total=None if share is None else 1.0,
                completed=share or 0,
            )

        yield progress


# `refind chats` lists; `refind chats rename` and `refind chats merge` repair what an import got wrong.
chats_app = typer.Typer(
    name="chats",
    invoke_without_command=True,
    no_args_is_help=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(chats_app)


# Its options are declared in params.py, which the quick path parses too.
chats_app.callback()(table_callback("chats", CHATS_LIST, read.chats, __name__))


@chats_app.command("rename")
def rename(
    ctx: typer.Context,
    chat: Annotated[str, typer.Argument(help="The chat: its id (see `refind chats`) or name.", metavar="ID")],
    name: Annotated[str, typer.Argument(help="Its new name.")],
    json_out: Annotated[bool, typer.Option("--json", help="Print the chat as JSON.")] = False,
) -> None:
    """Rename a chat. The name stays when the chat's export is imported again."""
    from refind_cli.frontends.render import visible

    with error_boundary(json_out), open_home(ctx) as home:
        info = home.rename_chat(chat, name)
    if json_out:
        print_json({"id": info.seq, "name": info.name, "source": info.source})
    else:
        stdout_console().print(f"chat {info.seq} is now {visible(info.name)!r}", markup=False)


@chats_app.command("merge")
def merge(
    ctx: typer.Context,
    into: Annotated[str, typer.Argument(help="The chat that stays (id or name).", metavar="ID")],
    other: Annotated[str, typer.Argument(help="The chat whose messages move into it.", metavar="OTHER")],
    json_out: Annotated[bool, typer.Option("--json", help="Print the merged chat as JSON.")] = False,
) -> None:
    """Merge two chats that are one (say, one conversation imported from two exports under two names):
    OTHER's messages move into ID, which is cut into sessions again; importing OTHER's export later adds
    to ID."""
    from refind_cli.frontends.render import visible
    from refind_cli.frontends.render.imports import chats_json

    with error_boundary(json_out), open_home(ctx) as home:
        merged = home.merge_chats(into, other)
    if json_out:
        print_json(chats_json([merged], None)["chats"][0])
    else:
        stdout_console().print(
            f"chat {merged.info.seq} ({visible(merged.info.name)}) now has {merged.messages:,} messages in"
            f" {merged.sessions:,} sessions",
            markup=False,
        )
