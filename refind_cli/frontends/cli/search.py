"""`refind search`, `refind show` and `refind reindex`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from refind_cli.frontends.cli.common import (
    ChatsOption,
    JsonOption,
    SourcesOption,
    SpeakersOption,
    TzOption,
    app,
    error_boundary,
    fail,
    open_home,
    print_json,
    stderr_console,
    stdout_console,
)
from refind_cli.request import MAX_K, MAX_WINDOW, SESSION_RANK

if TYPE_CHECKING:
    from rich.console import Console


@app.command("search")
def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="Words to look for; '-' reads one query per line from stdin.")],
    since: Annotated[
        str | None,
        typer.Option("--since", help="Only turns from then on: 2023-05-04, 2023-05, last week, ..."),
    ] = None,
    until: Annotated[str | None, typer.Option("--until", help="Only turns until then (inclusive).")] = None,
    chat: ChatsOption = None,
    source: SourcesOption = None,
    speaker: SpeakersOption = None,
    sort: Annotated[
        str | None,
        typer.Option(
            "--sort", help="Order hits by 'score' (best first, the default) or 'time' (newest first)."
        ),
    ] = None,
    newest: Annotated[bool, typer.Option("--newest", help="The newest matches first: --sort time.")] = False,
    k: Annotated[int, typer.Option("-k", min=1, max=MAX_K, help="Number of results.")] = 5,
    window: Annotated[
        int, typer.Option("--window", min=0, max=MAX_WINDOW, help="Turns of context either side.")
    ] = 2,
    exclude_session: Annotated[
        list[str] | None, typer.Option("--exclude-session", help="Skip this session id; repeatable.")
    ] = None,
    session_rank: Annotated[
        bool,
        typer.Option(
            "--session-rank/--no-session-rank", help="Fuse each hit's score with its session's (RRF)."
        ),
    ] = SESSION_RANK,
    tz: TzOption = None,
    json_out: JsonOption = False,
    jsonl_out: Annotated[
        bool, typer.Option("--jsonl", help="One JSON object per line, one per query.")
    ] = False,
    timeline: Annotated[
        bool,
        typer.Option("--timeline", help="First chart how all the matches spread over time, then the hits."),
    ] = False,
) -> None:
    """Search the chats: BM25 over turns, ranked with their conversations, each hit with its context.
    Exit status 0 when something was found, 1 when nothing was, 2 on error."""
    from datetime import datetime

    from refind_cli.dates.clock import zone
    from refind_cli.frontends.render import json_text
    from refind_cli.frontends.render.search import print_result, to_json

    json_mode = json_out or jsonl_out
    if json_out and jsonl_out:
        fail("--json and --jsonl cannot be used together", json_mode=True)
    if newest and sort == "score":
        fail("--newest and --sort score cannot be used together", json_mode=json_mode)
    found = False
    with error_boundary(json_mode), open_home(ctx) as home:
        zone_ = zone(tz)
        request = home.request(
            query,
            since=since,
            until=until,
            chats=chat,
            sources=source,
            speakers=speaker,
            k=k,
            window=window,
            exclude_sessions=exclude_session or (),
            session_rank=session_rank,
            sort="time" if newest else sort or "score",
            now=datetime.now(zone_),
            tz=zone_,
        )
        queries = [line.rstrip("\r\n") for line in sys.stdin] if query == "-" else [query]
        # rich is loaded only for output a person reads, not for JSON.
        out: Console | None = None
        objects = []
        for q in queries:
            result = home.search(request.for_query(q), timeline=zone_ if timeline else None)
            found = found or bool(result.hits)
            if jsonl_out:
                # Written as each query finishes, so a pipeline can consume answers while asking more.
                sys.stdout.write(json_text(to_json(result, zone_)) + "\n")
                sys.stdout.flush()
            elif json_out:
                objects.append(to_json(result, zone_))
            else:
                out = out or stdout_console()
                print_result(out, result, zone_, heading=query == "-", err=stderr_console())
        if json_out:
            print_json(objects if query == "-" else objects[0])
        if not found and not (json_out or jsonl_out) and not home.chats():
            stderr_console().print(
                f"{home.path} holds no chats yet: `refind import FILE` first", markup=False
            )
    raise typer.Exit(0 if found else 1)


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
