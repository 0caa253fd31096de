"""`refind forget` and `refind doctor`."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Annotated

import typer

from refind_cli.cli import (
    app,
    error_boundary,
    open_archive,
    print_json,
    state,
    stderr_console,
    stdout_console,
    time_option,
)
from refind_cli.errors import RefindError


@app.command()
def forget(
    ctx: typer.Context,
    chat: Annotated[
        str | None, typer.Option("--chat", help="A chat, by name or id (see `refind chats`).")
    ] = None,
    session: Annotated[str | None, typer.Option("--session", help="A session id.")] = None,
    since: Annotated[str | None, typer.Option("--since", help="From this date or time (inclusive).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Up to this date or time (inclusive).")] = None,
    before: Annotated[str | None, typer.Option("--before", help="Everything before this date.")] = None,
    matching: Annotated[str | None, typer.Option("--matching", help="Messages containing this text.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show what would go, change nothing.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    tz: Annotated[str | None, typer.Option("--tz", help="Zone for dates (default: the system's).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Erase messages for good: from the archive, the index and every file under the home folder.
    Criteria combine; re-importing the same export does not bring forgotten messages back."""
    from refind_cli.clock import zone
    from refind_cli.forget import Selection, forget, plan
    from refind_cli.index import Index
    from refind_cli.locks import write_lock
    from refind_cli.render.maintain import plan_json, print_plan

    out = stdout_console()
    err = stderr_console()
    with error_boundary(json_out):
        zone_ = zone(tz)
        now = datetime.now(zone_)
        selection = Selection(
            chat=chat,
            session=session,
            since=time_option("--since", since, tz=zone_, now=now, end=False),
            until=time_option("--until", until, tz=zone_, now=now, end=True),
            before=time_option("--before", before, tz=zone_, now=now, end=False),
            matching=matching,
        )
        home = state(ctx).home
        with write_lock(home, on_wait=lambda msg: err.print(msg)):
            archive = open_archive(ctx)
            planned = plan(archive, selection)
            if not json_out:
                print_plan(out if dry_run or yes else err, planned, zone_)
            go = bool(planned.message_seqs) and not dry_run
            if go and not yes:
                if not sys.stdin.isatty():
                    raise RefindError("forget: not asking without a terminal; add --yes to confirm")
                go = typer.confirm(f"Forget {len(planned.message_seqs):,} messages for good?", err=True)
            if go:
                forget(archive, planned)
                Index.open(home).rebuild(archive)
                if not json_out:
                    out.print(f"Forgot {len(planned.message_seqs):,} messages.")
    if json_out:
        print_json(plan_json(planned, zone_, forgotten=go))
    if not planned.message_seqs:
        raise typer.Exit(1)


@app.command()
def doctor(
    ctx: typer.Context,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Check the archive's integrity and that the index agrees with it; rebuild the index if it does not."""
    from refind_cli.doctor import check, repair
    from refind_cli.index import Index
    from refind_cli.locks import write_lock
    from refind_cli.render.maintain import health_json, print_health

    out = stdout_console()
    with error_boundary(json_out):
        home = state(ctx).home
        with write_lock(home, on_wait=lambda msg: stderr_console().print(msg)):
            archive = open_archive(ctx)
            index = Index.open(home)
            health = check(archive, index)
            if not health.index_agrees:
                if not json_out:
                    print_health(out, health)
                    out.print("rebuilding the index from the archive ...")
                health = repair(archive, index)
    if json_out:
        print_json(health_json(health))
    else:
        print_health(out, health)
    if not health.ok:
        raise typer.Exit(2)
