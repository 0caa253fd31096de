"""What every command shares: the typer app and its group (one-line errors, quiet broken pipes, completion,
examples in every --help), the global options, the consoles and the error, warning and JSON output. Heavy
modules are imported inside the commands, so ``refind --help`` stays fast and never loads litellm."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer
from typer.core import TyperGroup

from refind_cli import COMPLETE_VAR, __version__
from refind_cli.frontends.cli.output import (
    Exit,
    error_boundary,
    fail,
    guarded,
    open_home_at,
    print_error,
    print_json,
    print_warning,
    set_color,
    stderr_console,
    stdout_console,
)
from refind_cli.frontends.cli.params import CHATS, COLOR, HOME, JSON, SOURCES, SPEAKERS, TZ, Param
from refind_cli.storage.home import resolve_home

if TYPE_CHECKING:
    from refind_cli.facade import Home

# What the command modules take from here, wherever it is defined.
__all__ = [
    "Exit",
    "error_boundary",
    "fail",
    "open_home",
    "print_error",
    "print_json",
    "print_warning",
    "stderr_console",
    "stdout_console",
]


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


def typer_param(param: Param) -> Any:
    """The typer declaration of an option or argument of ``params`` (its default is the parameter's)."""
    if not param.decls:
        return typer.Argument(help=param.help, show_default=False)
    return typer.Option(
        *param.decls,
        help=param.help,
        min=param.low,
        max=param.high,
        metavar=param.metavar,
        envvar=param.envvar,
        click_type=click.Choice(param.choices) if param.choices else None,
    )


def _annotation(param: Param) -> Any:
    if param.many:
        return list[param.kind] | None  # type: ignore[name-defined]
    return param.kind if param.default is not None or param.required else param.kind | None


def table_callback(
    name: str, params: Sequence[Param], body: Callable[..., int], module: str
) -> Callable[..., None]:
    """The typer callback of command ``name`` (registered by ``module``): its parameters built from
    ``params``, run by ``body`` (the home folder, then each parameter by name; returns the exit status), as
    the quick path runs it too. A group's callback runs only when no subcommand is named."""

    def callback(ctx: typer.Context, **values: Any) -> None:
        if ctx.invoked_subcommand is not None:
            return
        code = body(state(ctx).home, **values)
        if code:
            raise Exit(code)

    ctx_param = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
    callback.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [
            ctx_param,
            *(
                inspect.Parameter(
                    p.name,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=inspect.Parameter.empty if p.required else p.default,
                    annotation=Annotated[_annotation(p), typer_param(p)],
                )
                for p in params
            ),
        ]
    )
    callback.__doc__, callback.__module__ = body.__doc__, module
    callback.__name__ = callback.__qualname__ = f"{name}_command"
    return callback


# Options that several commands take, declared once (params.py; as sqlite-utils declares its output options
# once).
ChatsOption = Annotated[list[str] | None, typer_param(CHATS)]
SourcesOption = Annotated[list[str] | None, typer_param(SOURCES)]
SpeakersOption = Annotated[list[str] | None, typer_param(SPEAKERS)]
TzOption = Annotated[str | None, typer_param(TZ)]
JsonOption = Annotated[bool, typer_param(JSON)]


@dataclass
class State:
    home: str


def _version(value: bool) -> None:
    if value:
        typer.echo(f"refind {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    home: Annotated[str | None, typer_param(HOME)] = HOME.default,  # type: ignore[assignment]
    color: Annotated[str, typer_param(COLOR)] = COLOR.default,  # type: ignore[assignment]
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    set_color(color)
    if home is not None and not home.strip():
        # An empty value would be the current folder, which refind would then make private.
        raise click.BadParameter("give a folder (an empty value is not one)", param_hint="--home")
    ctx.obj = State(home=resolve_home(home))


def state(ctx: typer.Context) -> State:
    return ctx.ensure_object(State) if ctx.obj is None else ctx.obj


def run(group: click.Group, args: list[str], **extra: Any) -> int:
    """Run one command line and return its exit code."""
    json_mode = "--json" in args or "--jsonl" in args

    def invoke() -> int:
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
        except click.Abort:
            sys.stderr.write("refind: interrupted\n")
            return 130

    return guarded(invoke)


def open_home(ctx: typer.Context) -> Home:
    """The home folder the command line names; lock waits are said once on stderr."""
    return open_home_at(state(ctx).home)
