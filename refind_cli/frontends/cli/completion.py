"""`refind completion SHELL`: the shell's completion script, printed (install it where the shell looks)."""

from __future__ import annotations

from typing import Annotated

import typer

from refind_cli import COMPLETE_VAR
from refind_cli.frontends.cli.common import app, fail

SHELLS = ("bash", "zsh", "fish")


@app.command("completion")
def completion_command(
    ctx: typer.Context,
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish.", metavar="SHELL")],
) -> None:
    """Print the completion script for a shell. It asks refind for completions only on Tab, so it never
    slows refind's start."""
    from click.shell_completion import get_completion_class

    if shell not in SHELLS:
        fail(f"completion: {shell!r} is not one of {', '.join(SHELLS)}")
    cls = get_completion_class(shell)
    assert cls is not None  # click knows all three
    root = ctx.find_root()
    typer.echo(cls(root.command, {}, "refind", COMPLETE_VAR).source())
