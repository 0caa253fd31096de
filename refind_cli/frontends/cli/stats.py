"""`refind stats`."""

from __future__ import annotations

from typing import Annotated

import typer

from refind_cli.frontends.cli.common import (
    ChatsOption,
    SourcesOption,
    SpeakersOption,
    app,
    error_boundary,
    open_home,
    print_json,
    stdout_console,
)


@app.command("stats")
def stats_command(
    ctx: typer.Context,
    chat: ChatsOption = None,
    source: SourcesOption = None,
    speaker: SpeakersOption = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Only messages from then on: 2023-05-04, 2023-05, last year, ..."),
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help="Only messages until then (inclusive).")
    ] = None,
    tz: Annotated[
        str | None, typer.Option("--tz", help="Time zone for months, days and hours (default: the system's).")
    ] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the numbers as JSON.")] = False,
) -> None:
    """Look at the chats rather than read them: messages per month and person, the weekday x hour heatmap,
    who writes most, the longest silences, the share of media."""
    from datetime import datetime

    from refind_cli.dates.clock import zone
    from refind_cli.frontends.render.stats import print_stats, stats_json

    with error_boundary(json_out), open_home(ctx) as home:
        zone_ = zone(tz)
        request = home.stats_request(
            chats=chat,
            sources=source,
            speakers=speaker,
            since=since,
            until=until,
            now=datetime.now(zone_),
            tz=zone_,
        )
        result = home.stats(request)
    if json_out:
        print_json(stats_json(result, zone_))
    else:
        print_stats(stdout_console(), result, zone_)
