"""The ReFind tools: ``search_chat``, ``take_note`` and ``finish_search``. They register through
``tools.register`` like any other tool; importing ``refind_cli.agent`` imports this module.

The read tools come from ``search_tools.READ_TOOLS``, declared once for every front end: each one the agent
has (``agent_parameters``) is registered here as it is declared, run as every front end runs it, and shown to
the model by the presenter of its result's shape. The offline planner has its bounds as instants already and
runs the same search through ``search_between``, so no time of day is lost to a date string read back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time, tzinfo
from typing import TYPE_CHECKING, Any

from refind_cli.agent import prompts
from refind_cli.agent.events import HitSummary, Note, NoteTaken, SearchDone
from refind_cli.agent.tools import MalformedCall, Tool, Toolbox, ToolFailed, ToolResult, register
from refind_cli.errors import RefindError
from refind_cli.method.search_tools import READ_TOOLS, ReadTool, as_int
from refind_cli.request import DEFAULT_WINDOW

if TYPE_CHECKING:
    from refind_cli.results import SearchResult

# What the model reads of a read tool's result, by its shape; the call's parsed arguments are the round's.
Present = Callable[[Toolbox, dict[str, Any], Any], ToolResult]


def reading_tool(tool: ReadTool, present: Present) -> Tool:
    """The agent's tool for a read tool: the model is shown its agent parameters; a call runs as any front end
    runs it (over the run's scope, without the sessions already seen), within the round budget."""
    if tool.agent_parameters is None or tool.agent_parse is None:
        raise ValueError(f"{tool.name} is not declared for the agent")

    def execute(box: Toolbox, args: dict[str, Any]) -> ToolResult:
        _check_budget(box)
        try:
            record = tool.run(box.reading(), args)
        except RefindError as err:  # an unreadable date, a speaker nobody is called
            raise ToolFailed(str(err)) from None
        return present(box, args, record)

    return Tool(
        name=tool.name,
        description=tool.description,
        parameters=tool.agent_parameters,
        parse=tool.agent_parse,
        execute=execute,
        text_usage=tool.text_usage,
    )


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
        try:
            result = box.reading().search(arguments, since, until, window=window, session_rank=session_rank)
        except RefindError as err:  # a speaker nobody is called
            raise ToolFailed(str(err)) from None
        return _present_search(box, arguments, result, blocks=False)

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


def _present_search(
    box: Toolbox, args: dict[str, Any], result: SearchResult, *, blocks: bool = True
) -> ToolResult:
    """A search's hits as numbered blocks (the planner reads the hits, not text: with ``blocks`` False, how
    many), the last hits to take notes from, the round's event."""
    request, keywords = result.request, args["keywords"]
    box.searches += 1
    box.last_hits = hits = tuple(result.hits)
    event = SearchDone(
        n=box.searches,
        keywords=keywords,
        date_from=args["date_from"],
        date_to=args["date_to"],
        top_k=args["top_k"],
        hits=tuple(
            HitSummary(h.rank, h.turn.id, h.turn.session_id, h.chat.name, h.turn.start, h.turn.speaker)
            for h in hits
        ),
        total=result.total,
        excluded_sessions=len(request.exclude_sessions),
    )
    dated = request.since is not None or request.until is not None
    if not hits:
        text = f"No results for {keywords!r}" + (" in that date range." if dated else ".")
        text += " Try other keywords" + (" or a wider date range." if dated else ".")
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


# A read tool whose result has one of these shapes needs nothing here to be the agent's too.
PRESENT: dict[str, Present] = {"search": _present_search}
_REGISTERED = {
    tool.name: register(reading_tool(tool, PRESENT[tool.shape]))
    for tool in READ_TOOLS
    if tool.agent_parameters is not None
}
SEARCH_CHAT = _REGISTERED["search_chat"]

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
