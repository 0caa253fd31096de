"""The read commands both entry points run (the typer app, and the quick path that parses their options
without typer): each takes the home folder and its parsed options and returns the exit status. Nothing heavy
is imported at the top: piped output loads neither typer, click nor rich."""

from __future__ import annotations

import sys

from refind_cli.frontends.cli.output import (
    error_boundary,
    fail,
    open_home_at,
    print_json,
    stderr_out,
    stdout_console,
    stdout_out,
)

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from refind_cli.frontends.render.styled import Out


def search(
    home_path: str,
    *,
    query: str,
    since: str | None,
    until: str | None,
    chat: list[str] | None,
    source: list[str] | None,
    speaker: list[str] | None,
    sort: str | None,
    newest: bool,
    k: int,
    window: int,
    exclude_session: list[str] | None,
    session_rank: bool,
    tz: str | None,
    json_out: bool,
    jsonl_out: bool,
    timeline: bool,
) -> int:
    """Search the chats: BM25 over turns, ranked with their conversations, each hit with its context.
    Exit status 0 when something was found, 1 when nothing was, 2 on error."""
    from datetime import UTC, datetime

    from refind_cli.dates.clock import zone
    from refind_cli.frontends.render import json_text
    from refind_cli.frontends.render.search import print_result, to_json

    json_mode = json_out or jsonl_out
    if json_out and jsonl_out:
        fail("--json and --jsonl cannot be used together", json_mode=True)
    if newest and sort == "score":
        fail("--newest and --sort score cannot be used together", json_mode=json_mode)
    queries = [line.rstrip("\r\n") for line in sys.stdin] if query == "-" else [query]
    if query == "-" and not any(q.strip() for q in queries):
        # Nothing to look for is a mistake in the command (an empty pipe), not "nothing found" (exit 1).
        fail("'-' reads one query per line from stdin, and stdin held none", json_mode=json_mode)
    found = False
    with error_boundary(json_mode), open_home_at(home_path) as home:
        # The system's zone is read where something is shown in it or read against it: a search that finds
        # nothing loads no zoneinfo (~1.5 ms of its CPU; bench/RESULTS.md, issue 26 item 3, session 17). A
        # --tz is read first all the same: a wrong one is an error whatever is found.
        zone_ = zone(tz) if tz is not None or since or until or timeline else None
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
            now=datetime.now(zone_ or UTC),  # read only against --since or --until, which set zone_
            tz=zone_ or UTC,
        )
        out: Out | None = None
        objects = []
        for q in queries:
            result = home.search(request.for_query(q), timeline=zone_ if timeline else None)
            found = found or bool(result.hits)
            if zone_ is None and result.hits:
                zone_ = zone(None)
            if jsonl_out:
                # Written as each query finishes, so a pipeline can consume answers while asking more.
                sys.stdout.write(json_text(to_json(result, zone_)) + "\n")
                sys.stdout.flush()
            elif json_out:
                objects.append(to_json(result, zone_))
            else:
                out = out or stdout_out()
                print_result(out, result, zone_, heading=query == "-", err=stderr_out())
        if json_out:
            print_json(objects if query == "-" else objects[0])
        if not found and not (json_out or jsonl_out) and not home.has_chats():
            stderr_out().print(f"{home.path} holds no chats yet: `refind import FILE` first", markup=False)
    return 0 if found else 1


def chats(
    home_path: str,
    *,
    source: list[str] | None,
    sort: str,
    tz: str | None,
    json_out: bool,
    csv_out: bool,
    tsv_out: bool,
) -> int:
    """List imported chats with their counts and date ranges; rename or merge them."""
    from refind_cli.dates.clock import zone
    from refind_cli.frontends.render.imports import chats_json, print_chats, print_no_chats, write_chats
    from refind_cli.frontends.render.rows import table_format

    with error_boundary(json_out), open_home_at(home_path) as home:
        zone_ = zone(tz)
        summaries = home.chats(sources=source, order=sort)
    fmt = table_format(csv_out=csv_out, tsv_out=tsv_out)
    if json_out:
        print_json(chats_json(summaries, zone_))
    elif not summaries:
        print_no_chats(stdout_out(), filtered=bool(source))
    elif fmt != "table":
        write_chats(summaries, zone_, fmt)
    else:
        print_chats(stdout_console(), summaries, zone_)
    return 0


def stats(
    home_path: str,
    *,
    chat: list[str] | None,
    source: list[str] | None,
    speaker: list[str] | None,
    since: str | None,
    until: str | None,
    tz: str | None,
    json_out: bool,
) -> int:
    """Look at the chats rather than read them: messages per month and person, the weekday x hour heatmap,
    who writes most, the longest silences, the share of media."""
    from datetime import datetime

    from refind_cli.dates.clock import zone
    from refind_cli.frontends.render.stats import print_stats, stats_json

    with error_boundary(json_out), open_home_at(home_path) as home:
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
        print_stats(stdout_out(), result, zone_)
    return 0
