"""Output of `refind search` and `refind show`: rich blocks for people, the documented JSON for scripts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from refind_cli.frontends.render import iso, visible
from refind_cli.frontends.render.styled import Out, Styled
from refind_cli.records import ChatInfo, Turn, said
from refind_cli.results import Hit, SearchResult
from refind_cli.text.snippet import JSON_CHARS, TERMINAL_CHARS, highlight_spans, snippet

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    # rich draws a session for people (`refind show`); a search's hits are Styled, which rich draws only on
    # a terminal: piped and JSON output never import it (a third of the start-up of `refind search`).
    from rich.console import Console

    from refind_cli.reports import SessionView

HIGHLIGHT = "bold yellow"


def _chat_json(chat: ChatInfo) -> dict:
    return {"id": chat.seq, "name": chat.name, "source": chat.source}


def _turn_json(turn: Turn, tz: tzinfo | None) -> dict:
    data: dict[str, object] = {
        "turn_id": turn.id,
        "timestamp": iso(turn.start, tz),
        "speaker": turn.speaker,
        "text": turn.text,
    }
    if turn.length is not None:  # only the start of the text was read (`show` of a huge message)
        data |= {"truncated": True, "text_offset": 0, "text_length": turn.length}
    return data


def _bounded_text(turn: Turn, terms: Sequence[str], lang: str = "") -> dict:
    """A search result's ``text``: whole, or for a turn over JSON_CHARS a window around the match, marked
    ``truncated`` with where it starts and the whole length (`refind show --json` has the whole text)."""
    view = snippet(turn.text, terms, JSON_CHARS, lang, turn.length)
    if not view.truncated:
        return {}
    return {"text": view.text, "truncated": True, "text_offset": view.start, "text_length": view.length}


def hit_json(hit: Hit, tz: tzinfo | None = None) -> dict:
    own = _bounded_text(hit.turn, hit.terms, hit.chat.lang)  # once: the hit is in its window too
    return {
        "rank": hit.rank,
        "score": hit.score,
        "bm25": hit.bm25,
        "chat": _chat_json(hit.chat),
        "session_id": hit.turn.session_id,
        **_turn_json(hit.turn, tz),
        **own,
        "matched_terms": list(hit.terms),
        "window": [
            {**_turn_json(w.turn, tz), **(own if w.hit else _bounded_text(w.turn, ())), "hit": w.hit}
            for w in hit.window
        ],
    }


def to_json(result: SearchResult, tz: tzinfo | None = None) -> dict:
    """The `refind search --json` object (README, "JSON for scripts"); times ISO 8601 with their offset in ``tz``. The filters
    are echoed from the request: ``chat`` as typed, ``chat_ids`` the chats they matched."""
    request = result.request
    return {
        "query": result.query,
        "filters": {
            "since": iso(request.since, tz),
            "until": iso(request.until, tz),
            "chat": list(request.chat_names) if request.chat_names is not None else None,
            "chat_ids": list(request.chats) if request.chats is not None else None,
            "source": list(request.sources) if request.sources is not None else None,
            "exclude_sessions": list(request.exclude_sessions),
            "from": list(request.speakers) if request.speakers is not None else None,
            "sort": request.sort,
        },
        "total": result.total,
        "results": [hit_json(h, tz) for h in result.hits],
        # only with --timeline: the spread of every match, not just of the results
        **({"timeline": _timeline_json(result)} if result.timeline is not None else {}),
    }


def _timeline_json(result: SearchResult) -> dict:
    from refind_cli.frontends.render.charts import timeline_json

    assert result.timeline is not None
    return timeline_json(result.timeline)


def _local(dt: datetime, tz: tzinfo | None) -> datetime:
    return dt.astimezone(tz) if tz else dt


def _body(text: str, terms: Sequence[str], indent: int, lang: str) -> Styled:
    """A turn's text with the matched words highlighted, continuation lines indented under the first, and
    control characters shown as escapes (chat text must not drive the terminal)."""
    pad = "\n" + " " * indent
    body = Styled()
    at = 0
    for start, end in highlight_spans(text, terms, lang) if terms else ():
        body.append(_shown(text[at:start], pad))
        body.append(_shown(text[start:end], pad), style=HIGHLIGHT)
        at = end
    body.append(_shown(text[at:], pad))
    return body


def _shown(text: str, pad: str) -> str:
    return visible(text).replace("\n", pad)


def _turn_line(
    turn: Turn, *, hit: bool, terms: Sequence[str], lang: str, tz: tzinfo | None, with_date: bool
) -> Styled:
    when = _local(turn.start, tz).strftime("%Y-%m-%d %H:%M" if with_date else "%H:%M")
    line = Styled("> " if hit else "  ", style="bold" if hit else "dim")
    line.append(when, style="cyan")
    line.append("  ")
    line.append(visible(turn.speaker or "?"), style="bold" if hit else "green")
    line.append(": ")
    indent = len(line.plain)
    # A huge turn shows a window around the match: highlighting and layout cost what the window costs.
    text = said(turn.speaker, turn.text)
    view = snippet(text, terms if hit else (), TERMINAL_CHARS, lang, turn.whole(text))
    if view.start:
        line.append("…")
    body = _body(view.text, terms if hit else (), indent, lang)
    if not hit:
        body.stylize("dim")
    line.append_text(body)
    if view.truncated:
        end = view.start + len(view.text)
        line.append("…" if end < view.length else "")
        line.append(
            f"  [characters {view.start + 1:,}-{end:,} of {view.length:,}; all: refind show {turn.id} --json]",
            style="dim",
        )
    return line


def print_result(
    console: Out,
    result: SearchResult,
    tz: tzinfo | None = None,
    *,
    heading: bool = False,
    err: Out | None = None,
) -> None:
    """The hits as blocks; "no matching turns" goes to ``err`` (stderr), so that `| wc -l` counts hits."""
    if heading:
        console.print(Styled(f"query: {visible(result.query)}", style="bold underline"))
    if result.timeline is not None and result.timeline.buckets:
        console.print(Styled(f"{result.total:,} matching turns by {result.timeline.unit}", style="bold"))
        from refind_cli.frontends.render.charts import print_timeline

        print_timeline(console, result.timeline)
        console.print()
    if not result.hits:
        (err or console).print(Styled("no matching turns", style="dim"))
        return
    for hit in result.hits:
        head = Styled(f"{hit.rank}. ", style="bold")
        head.append(visible(hit.chat.name), style="bold magenta")
        head.append(f" ({hit.chat.source})  ", style="magenta")
        head.append(_local(hit.turn.start, tz).strftime("%a %Y-%m-%d"), style="cyan")
        # The turn id also names the session: `refind show <turn id>` opens the conversation there.
        head.append(f"  {hit.turn.id}", style="dim")
        console.print(head)
        # The header carries the hit's date; a context turn from another day shows its own.
        day = _local(hit.turn.start, tz).date()
        for w in hit.window:
            this_day = _local(w.turn.start, tz).date()
            line = _turn_line(
                w.turn, hit=w.hit, terms=hit.terms, lang=hit.chat.lang, tz=tz, with_date=this_day != day
            )
            console.print(line)
            day = this_day
        console.print()
    console.print(Styled(f"{len(result.hits)} of {result.total:,} matching turns", style="dim"))


def session_json(view: SessionView, tz: tzinfo | None = None) -> dict:
    """`refind show --json`: the session and its turns (all, or those around the marked one)."""
    session, around = view.session, view.around
    return {
        "session_id": session.id,
        "chat": _chat_json(session.chat),
        "start": iso(session.start, tz),
        "end": iso(session.end, tz),
        "turns": [{**_turn_json(t, tz), "hit": t.id == around} for t in view.turns],
        "previous_session_id": view.previous,
        "next_session_id": view.next,
    }


def print_session(console: Console, view: SessionView, tz: tzinfo | None = None) -> None:
    """The session the way a chat app shows it: a header, then the turns under a line for each day."""
    from rich.text import Text

    session, around = view.session, view.around
    head = Text(visible(session.chat.name), style="bold magenta")
    head.append(f" ({session.chat.source})", style="magenta")
    head.append(
        f"  session {session.id}  {session.n_turns} turns, {session.n_messages} messages", style="dim"
    )
    console.print(head)
    day = None
    for t in view.turns:
        local = _local(t.start, tz)
        if local.date() != day:
            day = local.date()
            console.rule(Text(local.strftime("%A %d %B %Y"), style="cyan"), style="dim")
        line = Text("> " if t.id == around else "  ", style="bold")
        line.append(local.strftime("%H:%M"), style="cyan")
        line.append("  ")
        line.append(visible(t.speaker or "?"), style="bold green")
        line.append(": ")
        text = said(t.speaker, t.text)
        line.append(_shown(text, "\n" + " " * len(line.plain)), style="bold" if t.id == around else "")
        if t.length is not None:
            line.append(f" [... {t.length - len(t.text):,} more characters not shown]", style="dim")
        console.print(line)
    # Where to go on from here: `refind show ID` with either id.
    ends = Text("previous: ", style="dim")
    ends.append(view.previous or "(none)")
    ends.append("  next: ", style="dim")
    ends.append(view.next or "(none)")
    console.print(ends)
