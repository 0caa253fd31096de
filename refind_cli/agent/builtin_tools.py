"""The ReFind tools: ``search_chat``, ``take_note`` and ``finish_search``. They register through
``tools.register`` like any other tool; importing ``refind_cli.agent`` imports this module.

``search_chat`` reads date_from/date_to with the one since/until rule (``request.time_range``). The offline
planner has its bounds as instants already and runs the same search through ``search_between``, so no time
of day is lost to a date string read back.
"""

from __future__ import annotations

from datetime import datetime, time, tzinfo
from typing import Any

from refind_cli.agent import prompts
from refind_cli.agent.events import HitSummary, Note, NoteTaken, SearchDone
from refind_cli.agent.tools import MalformedCall, Tool, Toolbox, ToolFailed, ToolResult, as_int, register
from refind_cli.errors import RefindError
from refind_cli.request import DEFAULT_WINDOW, SearchRequest, time_range

MAX_TOP_K = 20
DEFAULT_TOP_K = 5


def parse_search(args: dict[str, Any]) -> dict[str, Any]:
    keywords = args.get("keywords")
    if isinstance(keywords, list) and all(isinstance(k, str) for k in keywords):
        keywords = " ".join(keywords)
    if not isinstance(keywords, str) or not keywords.strip():
        raise MalformedCall("search_chat needs keywords: a non-empty string")
    top_k = args.get("top_k")
    top_k = DEFAULT_TOP_K if top_k is None else as_int(top_k, "top_k")
    out: dict[str, Any] = {"keywords": keywords.strip(), "top_k": min(max(top_k, 1), MAX_TOP_K)}
    speakers = _speakers(args.get("from"))
    if speakers is not None:  # only when given: the rounds record the arguments
        out["from"] = speakers
    for key in ("date_from", "date_to"):
        value = args.get(key)
        if value in (None, ""):
            out[key] = None
        elif isinstance(value, str):
            out[key] = value.strip()
        else:
            raise MalformedCall(f"{key} must be a date string YYYY-MM-DD")
    return out


def _speakers(value: Any) -> list[str] | None:
    """The ``from`` argument: speaker names (one alone is taken as a list of one); None or empty: everyone."""
    if value in (None, "", []):
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise MalformedCall("from must be a list of speaker names")
    return [v.strip() for v in value]


def search_chat(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    _check_budget(box)
    try:
        since, until = time_range(
            args["date_from"], args["date_to"], now=box.now, tz=box.tz, names=("date_from", "date_to")
        )
    except RefindError as err:
        raise ToolFailed(str(err)) from None
    return _search(box, args, since, until)


def search_between(
    box: Toolbox,
    keywords: str,
    top_k: int,
    since: datetime | None,
    until: datetime | None,
    *,
    session_rank: bool = True,
    window: int = DEFAULT_WINDOW,
    speakers: tuple[str, ...] = (),
) -> ToolResult:
    """``search_chat`` from bounds already resolved. Its round and event show them as date_from/date_to
    would name them. ``session_rank`` False ranks by plain BM25, ``window`` the turns on each side of a hit
    (the offline planner's measured choices); ``speakers``, as ``from``, keeps to their turns. The planner
    reads the hits, not a model's text: the result says how many, without the blocks."""
    arguments: dict[str, Any] = {
        "keywords": keywords,
        "top_k": top_k,
        "date_from": readable(since, box.tz, end=False),
        "date_to": readable(until, box.tz, end=True),
    }
    if speakers:
        arguments["from"] = list(speakers)

    def execute() -> ToolResult:
        _check_budget(box)
        return _search(box, arguments, since, until, session_rank=session_rank, window=window, blocks=False)

    return box.apply(SEARCH_CHAT.name, arguments, execute)


def readable(bound: datetime | None, tz: tzinfo, *, end: bool) -> str | None:
    """The day, when the bound is the first (or, for an end, the last) instant of a day; else the minute."""
    if bound is None:
        return None
    local = bound.astimezone(tz)
    if local.time() == (time.max if end else time.min):
        return local.date().isoformat()
    return local.strftime("%Y-%m-%d %H:%M")


def _check_budget(box: Toolbox) -> None:
    if box.exhausted:
        raise ToolFailed("the search budget is used up; call take_note or finish_search")


def _search(
    box: Toolbox,
    args: dict[str, Any],
    since: datetime | None,
    until: datetime | None,
    *,
    session_rank: bool = True,
    window: int = DEFAULT_WINDOW,
    blocks: bool = True,
) -> ToolResult:
    keywords, top_k = args["keywords"], args["top_k"]
    request = SearchRequest(
        keywords,
        k=top_k,
        window=window,
        since=since,
        until=until,
        chats=box.chats,
        exclude_sessions=tuple(sorted(box.seen_sessions)),
        session_rank=session_rank,
        speakers=tuple(args["from"]) if "from" in args else None,
    )
    try:
        result = box.search_fn(request)
    except RefindError as err:  # a speaker nobody is called
        raise ToolFailed(str(err)) from None
    box.searches += 1
    box.last_hits = hits = tuple(result.hits)
    box.seen_sessions.update(h.turn.session_id for h in hits)
    event = SearchDone(
        n=box.searches,
        keywords=keywords,
        date_from=args["date_from"],
        date_to=args["date_to"],
        top_k=top_k,
        hits=tuple(
            HitSummary(h.rank, h.turn.id, h.turn.session_id, h.chat.name, h.turn.start, h.turn.speaker)
            for h in hits
        ),
        total=result.total,
        excluded_sessions=len(request.exclude_sessions),
    )
    if not hits:
        text = f"No results for {keywords!r}" + (" in that date range." if since or until else ".")
        text += " Try other keywords" + (" or a wider date range." if since or until else ".")
    elif not blocks:
        text = f"{len(hits)} results for {keywords!r}."
    else:
        shown = "\n\n".join(f"[{i}] {prompts.format_block(h, box.tz)}" for i, h in enumerate(hits, 1))
        text = f"{len(hits)} results for {keywords!r}:\n{prompts.fence(shown)}"
    if box.exhausted:
        text += "\n\n" + prompts.LAST_SEARCH
    return ToolResult(text, event, tuple(h.turn.id for h in hits))


def parse_note(args: dict[str, Any]) -> dict[str, Any]:
    indices = args.get("indices")
    if isinstance(indices, int | str) and not isinstance(indices, bool):
        indices = [indices]
    if not isinstance(indices, list) or not indices:
        raise MalformedCall("take_note needs indices: a list of block numbers")
    return {"indices": [as_int(i, "each index") for i in indices]}


def take_note(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    indices: list[int] = args["indices"]
    if not box.last_hits:
        raise ToolFailed("there are no search results to take notes from")
    bad = [i for i in indices if not 1 <= i <= len(box.last_hits)]
    if bad:
        raise ToolFailed(
            f"no block {', '.join(map(str, bad))}: the last search had blocks 1-{len(box.last_hits)}"
        )
    known = {n.hit_turn_id for n in box.notes}
    taken: list[Note] = []
    for i in dict.fromkeys(indices):
        hit = box.last_hits[i - 1]
        if hit.turn.id in known:
            continue
        turns = tuple(w.turn for w in hit.window) or (hit.turn,)
        taken.append(
            Note(hit.turn.session_id, hit.turn.id, hit.chat, turns, prompts.format_block(hit, box.tz))
        )
        known.add(hit.turn.id)
    box.notes.extend(taken)
    return ToolResult(
        f"Saved {len(taken)} new note(s); {len(box.notes)} in total.",
        NoteTaken(tuple(indices), tuple(taken)),
        tuple(t for n in taken for t in n.turn_ids),
    )


def finish_search(box: Toolbox, args: dict[str, Any]) -> ToolResult:
    return ToolResult("Search finished.", finished=True)


SEARCH_CHAT = register(
    Tool(
        name="search_chat",
        description=(
            "BM25 keyword search over the user's chat archive. Returns numbered result blocks: the matching "
            "turn with the turns around it, its chat, session and dates. Sessions already returned by an "
            "earlier search are excluded automatically."
        ),
        parameters={
            "type": "object",
            "properties": {
                "keywords": {"type": "string", "description": "Space-separated keywords (not a question)."},
                "top_k": {
                    "type": "integer",
                    "description": f"How many results (1-{MAX_TOP_K}, default {DEFAULT_TOP_K}).",
                    "default": DEFAULT_TOP_K,
                },
                "date_from": {"type": "string", "description": "Optional first day, YYYY-MM-DD (inclusive)."},
                "date_to": {"type": "string", "description": "Optional last day, YYYY-MM-DD (inclusive)."},
                "from": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Optional: only what these people said (names as results show them).",
                },
            },
            "required": ["keywords"],
        },
        parse=parse_search,
        execute=search_chat,
        text_usage=(
            '{"keywords": "words to find", "top_k": 5, "date_from": "YYYY-MM-DD", "date_to": "YYYY-MM-DD"}'
            " (top_k and the dates are optional)"
        ),
    )
)

TAKE_NOTE = register(
    Tool(
        name="take_note",
        description=(
            "Save result blocks of the LAST search as notes, by their 1-based numbers. Only notes reach "
            "the answering step: save everything that may be relevant."
        ),
        parameters={
            "type": "object",
            "properties": {
                "indices": {"type": "array", "items": {"type": "integer"}, "description": "Block numbers."}
            },
            "required": ["indices"],
        },
        parse=parse_note,
        execute=take_note,
        text_usage='{"indices": [1, 3]} (block numbers of the last search)',
    )
)

FINISH_SEARCH = register(
    Tool(
        name="finish_search",
        description="End the search when the notes hold the evidence, or nothing more can be found.",
        parameters={"type": "object", "properties": {}},
        parse=lambda args: {},
        execute=finish_search,
        text_usage="{}",
    )
)
