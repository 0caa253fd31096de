"""`refind forget` and `refind doctor`."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import typer

from refind_cli.errors import RefindError
from refind_cli.frontends.cli.common import (
    JsonOption,
    app,
    error_boundary,
    open_home,
    print_json,
    stderr_console,
    stdout_console,
)

if TYPE_CHECKING:
    from refind_cli.reports import ForgetPlan, Health


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
    json_out: JsonOption = False,
) -> None:
    """Erase messages for good: from the archive, the index and every file under the home folder.
    Criteria combine; re-importing the same export does not bring forgotten messages back."""
    from refind_cli.dates.clock import zone
    from refind_cli.frontends.render.maintain import plan_json, print_plan

    out = stdout_console()
    err = stderr_console()

    def confirm(planned: ForgetPlan) -> bool:
        if not json_out:
            print_plan(out if dry_run or yes else err, planned, zone_)
        if not planned.message_seqs or dry_run or yes:
            return not dry_run
        if not sys.stdin.isatty():
            raise RefindError("forget: not asking without a terminal; add --yes to confirm")
        return typer.confirm(f"Forget {len(planned.message_seqs):,} messages for good?", err=True)

    with error_boundary(json_out), open_home(ctx) as home:
        zone_ = zone(tz)
        selection = home.selection(
            chat=chat,
            session=session,
            since=since,
            until=until,
            before=before,
            matching=matching,
            now=datetime.now(zone_),
            tz=zone_,
        )
        outcome = home.forget(selection, confirm=confirm)
        if outcome.forgotten and not json_out:
            out.print(f"Forgot {len(outcome.plan.message_seqs):,} messages.")
    if json_out:
        print_json(plan_json(outcome.plan, zone_, forgotten=outcome.forgotten))
    if not outcome.plan.message_seqs:
        raise typer.Exit(1)


@app.command()
def doctor(
    ctx: typer.Context,
    json_out: JsonOption = False,
) -> None:
    """Check the archive's integrity and that the index agrees with it; rebuild the index if it does not."""
    from refind_cli.frontends.render.maintain import health_json, print_health

    out = stdout_console()

    def repairing(health: Health) -> None:
        if not json_out:
            print_health(out, health)
            out.print("rebuilding the index from the archive ...")

    with error_boundary(json_out), open_home(ctx) as home:
        health = home.doctor(repairing=repairing)
    if json_out:
        print_json(health_json(health))
    else:
        print_health(out, health)
    if not health.ok:
        raise typer.Exit(2)
