"""`refind search`, `refind show` and `refind reindex`."""

from __future__ import annotations

from typing import Annotated

import typer

from refind_cli.frontends.cli import read
from refind_cli.frontends.cli.common import (
    JsonOption,
    TzOption,
    app,
    error_boundary,
    fail,
    open_home,
    print_json,
    stdout_console,
    table_callback,
)
from refind_cli.frontends.cli.params import SEARCH

# Its options are declared in params.py, which the quick path parses too.
app.command("search")(table_callback("search", SEARCH, read.search, __name__))


@app.command("show")
def show_command(
    ctx: typer.Context,
    session_id: Annotated[
        str | None,
        typer.Argument(help="A session id or a turn id (shown around that turn), as `refind search` prints."),
    ] = None,
    around: Annotated[
        str | None, typer.Option("--around", help="Mark this turn id and show only the turns near it.")
    ] = None,
    context: Annotated[int, typer.Option("--context", min=0, help="With --around: turns either side.")] = 10,
    chat: Annotated[
        list[str] | None,
        typer.Option("--chat", help="With --date: the chat (name, id or number); repeatable."),
    ] = None,
    date: Annotated[
        str | None,
        typer.Option(
            "--date", help="With --chat: open the first session of that day (or the next one after)."
        ),
    ] = None,
    tz: TzOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the session as JSON.")] = False,
) -> None:
    """Show one conversation the way the chat app shows it, ending with the ids of the chat's previous and
    next sessions."""
    from datetime import datetime

    from refind_cli.dates.clock import zone
    from refind_cli.frontends.render.search import print_session, session_json

    if (session_id is None) == (date is None):
        fail("give a session or turn id, or --chat NAME --date DAY", json_mode=json_out)
    if date is not None and not chat:
        fail("--date needs --chat (the chat to open)", json_mode=json_out)
    with error_boundary(json_out), open_home(ctx) as home:
        zone_ = zone(tz)
        if session_id is not None:
            view = home.show(session_id, around=around, context=context)
        else:
            view = home.show_day(chat or (), date or "", now=datetime.now(zone_), tz=zone_)
    if json_out:
        print_json(session_json(view, zone_))
    else:
        print_session(stdout_console(), view, zone_)


@app.command("reindex")
def reindex_command(
    ctx: typer.Context,
    json_out: JsonOption = False,
) -> None:
    """Rebuild the search index from the archive (exact statistics again after many changes)."""
    with error_boundary(json_out), open_home(ctx) as home:
        done = home.reindex()
    if json_out:
        print_json({"turns": done.turns, "seconds": done.seconds})
    else:
        stdout_console().print(f"indexed {done.turns:,} turns in {done.seconds:.1f} s", markup=False)
