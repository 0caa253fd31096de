"""What every command shares: the typer app and its group (one-line errors, quiet broken pipes, completion,
examples in every --help), the global options, the consoles and the error, warning and JSON output. Heavy
modules are imported inside the commands, so ``refind --help`` stays fast and never loads litellm."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import click
import typer
from typer.core import TyperGroup

from refind_cli import COMPLETE_VAR, __version__
from refind_cli.errors import RefindError
from refind_cli.storage.home import resolve_home

if TYPE_CHECKING:
    from rich.console import Console

    from refind_cli.facade import Home


class RefindGroup(TyperGroup):
    """The command group, run the way ripgrep behaves: every failure is one line (with ``--json``, also an
    ``{"error": ...}`` object on stdout), exit 2; a closed pipe ends the run quietly with 0."""

    def main(  # type: ignore[override]
        self,
        args: list[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if COMPLETE_VAR in os.environ:
            # A shell asking for completions (the script `refind completion SHELL` printed): click answers
            # and exits. click's own answer, matching its scripts (typer's needs typer's completion set up).
            click.Command._main_shell_completion(self, extra, "refind", COMPLETE_VAR)
        code = run(self, sys.argv[1:] if args is None else list(args), **extra)
        if standalone_mode:
            sys.exit(code)
        return code

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # click already suggests a close command name; typer's override would add the suggestion again.
        return click.Group.resolve_command(self, ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is not None and command.epilog is None and cmd_name in EXAMPLES:
            command.epilog = examples(EXAMPLES[cmd_name])
        return command


# A few command lines for each command's --help, the way they are typed. One table, so every command has
# them and `refind --help` can show the common ones.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "import": (
        "refind import ~/Downloads/WhatsApp-Chat-with-Mum.zip",
        "refind import --tz Europe/Berlin slack-export/ telegram/result.json",
    ),
    "chats": ("refind chats --sort recent", "refind chats --source whatsapp --tsv | cut -f2"),
    "search": (
        "refind search 'dentist appointment'",
        "refind search flat lease --chat Mum --since 2024-01 --until 2024-06",
        "refind search dentist --timeline",
        "refind search dentist --json | jq '.results[].text'",
    ),
    "show": (
        "refind show 3f2a9c1d0b7e-4",
        "refind show --chat Mum --date 2024-03-01",
    ),
    "stats": ("refind stats", "refind stats --chat Mum --since 2024 --json"),
    "ask": (
        "refind ask 'when did I move the dentist appointment?'",
        "refind ask --offline --chat Mum 'what was the name of the plumber?'",
    ),
    "eval": ("refind eval longmemeval_s.json --limit 20",),
    "forget": (
        "refind forget --chat Mum --before 2020-01-01 --dry-run",
        "refind forget --matching 'PIN' --yes",
    ),
    "doctor": ("refind doctor",),
    "reindex": ("refind reindex",),
    "mcp": ("refind mcp",),
    "completion": (
        "refind completion bash > ~/.local/share/bash-completion/completions/refind",
        "refind completion zsh > ~/.zfunc/_refind",
        "refind completion fish > ~/.config/fish/completions/refind.fish",
    ),
}


def examples(lines: Sequence[str]) -> str:
    # \b keeps click from rewrapping the block into one paragraph.
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


app = typer.Typer(
    name="refind",
    cls=RefindGroup,
    help="Find things in your own chat history: import chat exports (`refind import --help` lists the formats), search them, ask.",
    epilog=examples((EXAMPLES["import"][0], EXAMPLES["search"][0], EXAMPLES["show"][1], EXAMPLES["ask"][0])),
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    add_completion=False,
    # Locals in a traceback could show chat text or API keys.
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
)


# Options that several commands take, declared once (as sqlite-utils declares its output options once).
ChatsOption = Annotated[
    list[str] | None, typer.Option("--chat", help="Only these chats (name, id or number); repeatable.")
]
SourcesOption = Annotated[
    list[str] | None,
    typer.Option("--source", help="Only chats from this service (whatsapp, slack, ...); repeatable."),
]
SpeakersOption = Annotated[
    list[str] | None,
    typer.Option(
        "--from",
        help="Only what this person said (a name, the start of any part of one, an id, or 'me'); repeatable.",
    ),
]
TzOption = Annotated[str | None, typer.Option("--tz", help="Time zone for dates (default: the system's).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


@dataclass
class State:
    home: Path


COLOR_CHOICES = ("auto", "always", "never")
# The --color choice for this run, set by the root options before any command prints.
_color = "auto"


def _version(value: bool) -> None:
    if value:
        typer.echo(f"refind {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    home: Annotated[
        str | None,
        typer.Option(
            "--home",
            envvar="REFIND_HOME",
            metavar="DIR",
            help="Data folder (default: $XDG_DATA_HOME/refind).",
        ),
    ] = None,
    color: Annotated[
        str,
        typer.Option(
            "--color",
            click_type=click.Choice(COLOR_CHOICES),
            help="Colour the output: auto (on a terminal, unless NO_COLOR is set), always or never.",
        ),
    ] = "auto",
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    global _color
    _color = color
    if home is not None and not home.strip():
        # An empty value would be the current folder, which refind would then make private.
        raise click.BadParameter("give a folder (an empty value is not one)", param_hint="--home")
    ctx.obj = State(home=resolve_home(home))


def state(ctx: typer.Context) -> State:
    return ctx.ensure_object(State) if ctx.obj is None else ctx.obj


def _colors() -> dict[str, Any]:
    """rich Console settings for --color: auto leaves rich to decide (a terminal, and NO_COLOR unset)."""
    if _color == "always":
        return {"force_terminal": True, "no_color": False}
    if _color == "never":
        return {"no_color": True, "color_system": None}
    return {}


def stdout_console() -> Console:
    from rich.console import Console

    # Into a pipe nothing is wrapped to a made-up width: one line per line, continuation lines indented,
    # so grep and cut see whole messages.
    piped = not sys.stdout.isatty()
    console = Console(highlight=False, soft_wrap=piped, **_colors())
    # rich ends the process with status 1 when the reader goes away; `run` makes that a quiet 0.
    console.on_broken_pipe = _pipe_closed  # type: ignore[method-assign]
    return console


def _pipe_closed() -> None:
    raise BrokenPipeError


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, **_colors())


def print_json(obj: Any) -> None:
    from refind_cli.frontends.render import json_text

    sys.stdout.write(json_text(obj, indent=2) + "\n")
    sys.stdout.flush()


def print_error(message: str) -> None:
    """The one-line error, never wrapped (scripts and people grep it)."""
    _stderr_line("error", message)


def print_warning(message: str) -> None:
    """One line on stderr for something done with a doubt (the work went on)."""
    _stderr_line("warning", message)


def _stderr_line(label: str, message: str) -> None:
    # The message may quote a file name or chat text: its control characters and line breaks are shown as
    # escapes, so it stays one line and cannot drive the terminal.
    from refind_cli.frontends.render import visible

    sys.stderr.write(f"refind: {label}: {visible(message).replace(chr(10), chr(92) + 'n')}\n")
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


def run(group: click.Group, args: list[str], **extra: Any) -> int:
    """Run one command line and return its exit code."""
    json_mode = "--json" in args or "--jsonl" in args
    try:
        with group.make_context("refind", args, **extra) as ctx:
            group.invoke(ctx)
        return 0
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()
        return 2
    except click.ClickException as exc:
        # Only a UsageError carries a context, and it may be None.
        usage_ctx = getattr(exc, "ctx", None)
        where = usage_ctx.command_path.removeprefix("refind").strip() if usage_ctx else ""
        message = exc.format_message().replace("\n", " ")
        if isinstance(exc, click.UsageError):
            hint = f"refind {where} --help" if where else "refind --help"
            message = f"{message.rstrip('.')} (see `{hint}`)"
        if where:
            message = f"{where}: {message}"
        if json_mode:
            print_json({"error": message})
        print_error(message)
        return 2
    except (KeyboardInterrupt, click.Abort):
        sys.stderr.write("refind: interrupted\n")
        return 130
    except BrokenPipeError:
        # The reader went away (`refind search x | head -1`): what it wanted was written. Further writes
        # (the interpreter's final flush) go nowhere instead of raising again.
        _stdout_to_nowhere()
        return 0
    except OSError as exc:
        # Output that cannot be written (`> /dev/full`, a full disk, a device gone) names no file: the
        # library's own file errors do, and are RefindErrors before they get here.
        if exc.filename is not None or exc.errno not in _OUTPUT_FAILURES:
            raise
        _stdout_to_nowhere()
        with contextlib.suppress(OSError):
            print_error(f"stdout: cannot write ({exc.strerror})")
        return 2


_OUTPUT_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EBADF, errno.EFBIG})


def _stdout_to_nowhere() -> None:
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def open_home(ctx: typer.Context) -> Home:
    """The home folder the command line names; lock waits are said once on stderr."""
    from refind_cli.facade import Home

    return Home(state(ctx).home, on_wait=lambda msg: stderr_console().print(msg, markup=False))
