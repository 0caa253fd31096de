"""Stage 1, the search loop, and ``ask``: the whole two-stage run.

The ``Toolbox`` owns the three tools and the run's state: the blocks of the last search, the notes, and
the sessions already returned (excluded from every later search: the only state kept across rounds). A
model drives it through native tool calls or the plain-text action protocol; the offline planner drives the
same toolbox, so both paths produce the same rounds, notes and events.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, Protocol

from refind_cli.agent import prompts
from refind_cli.agent.events import (
    AgentWarning,
    Answered,
    AskResult,
    EventSink,
    HitSummary,
    ModelCall,
    Note,
    NoteTaken,
    RemoteNotice,
    Round,
    SearchDone,
    SearchFinished,
    Thought,
    ToolError,
    Usage,
    ignore,
)

if TYPE_CHECKING:
    from refind_cli.agent.llm import Completion, LLMClient, ModelConfig
    from refind_cli.archive import Archive
    from refind_cli.index import Index
    from refind_cli.search import Hit, SearchResult

MAX_TOP_K = 20
DEFAULT_TOP_K = 5
PROTOCOLS = ("auto", "tools", "text")


class SearchFn(Protocol):
    def __call__(
        self,
        query: str,
        *,
        k: int,
        since: datetime | None,
        until: datetime | None,
        exclude_sessions: Collection[str],
    ) -> SearchResult: ...


@dataclass(frozen=True, slots=True)
class Budget:
    max_rounds: int = 4  # searches per run
    max_tokens: int | None = None  # prompt + completion tokens of stage 1
    max_cost: float | None = None  # USD of stage 1, when the model's price is known

    @property
    def max_calls(self) -> int:
        """A ceiling on stage-1 model calls: a search, its notes and a retry per round, plus finishing."""
        return self.max_rounds * 3 + 2


class MalformedCall(ValueError):
    """A tool call the loop cannot execute: unknown tool, arguments that are not JSON or of the wrong type."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str
    finished: bool = False


def _as_int(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise MalformedCall(f"{what} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    raise MalformedCall(f"{what} must be an integer, not {value!r}")


def parse_arguments(name: str, raw: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate and normalise a tool call's arguments; MalformedCall says what is wrong, for the retry."""
    if name not in prompts.TOOL_NAMES:
        raise MalformedCall(f"unknown tool {name!r}")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        args: Any = {}
    elif isinstance(raw, str):
        try:
            args = json.loads(raw)
        except json.JSONDecodeError as err:
            raise MalformedCall(f"the arguments of {name} are not valid JSON ({err.msg})") from None
    else:
        args = dict(raw)
    if not isinstance(args, dict):
        raise MalformedCall(f"the arguments of {name} must be a JSON object")
    if name == "finish_search":
        return {}
    if name == "take_note":
        indices = args.get("indices")
        if isinstance(indices, int | str) and not isinstance(indices, bool):
            indices = [indices]
        if not isinstance(indices, list) or not indices:
            raise MalformedCall("take_note needs indices: a list of block numbers")
        return {"indices": [_as_int(i, "each index") for i in indices]}
    keywords = args.get("keywords")
    if isinstance(keywords, list) and all(isinstance(k, str) for k in keywords):
        keywords = " ".join(keywords)
    if not isinstance(keywords, str) or not keywords.strip():
        raise MalformedCall("search_chat needs keywords: a non-empty string")
    top_k = args.get("top_k")
    top_k = DEFAULT_TOP_K if top_k is None else _as_int(top_k, "top_k")
    out: dict[str, Any] = {"keywords": keywords.strip(), "top_k": min(max(top_k, 1), MAX_TOP_K)}
    for key in ("date_from", "date_to"):
        value = args.get(key)
        if value in (None, ""):
            out[key] = None
        elif isinstance(value, str):
            out[key] = value.strip()
        else:
            raise MalformedCall(f"{key} must be a date string YYYY-MM-DD")
    return out


_ACTION_RE = re.compile(r"^\s*\**Action\**\s*:\s*\**\s*([A-Za-z_]+)", re.MULTILINE)
_INPUT_RE = re.compile(r"^\s*\**Action[ _]Input\**\s*:", re.MULTILINE)
_OBSERVATION_RE = re.compile(r"^\s*Observation\s*:", re.MULTILINE)


def parse_text_action(content: str) -> tuple[str, str, dict[str, Any]]:
    """(thought, tool, arguments) from a text-protocol reply. Only the first action counts, and anything
    after an invented "Observation:" is ignored."""
    cut = _OBSERVATION_RE.search(content)
    text = content[: cut.start()] if cut else content
    action = _ACTION_RE.search(text)
    if not action:
        raise MalformedCall("no 'Action:' line")
    thought = text[: action.start()].strip()
    thought = re.sub(r"^\s*\**Thought\**\s*:\s*", "", thought).strip()
    name = action.group(1)
    rest = text[action.end() :]
    marker = _INPUT_RE.search(rest)
    raw: dict[str, Any] | None = None
    if marker:
        body = rest[marker.end() :]
        brace = body.find("{")
        if brace >= 0:
            try:
                value, _ = json.JSONDecoder().raw_decode(body[brace:])
            except json.JSONDecodeError as err:
                raise MalformedCall(f"the Action Input is not valid JSON ({err.msg})") from None
            if not isinstance(value, dict):
                raise MalformedCall("the Action Input must be a JSON object")
            raw = value
        elif name != "finish_search":
            raise MalformedCall("the Action Input is not a JSON object")
    elif name != "finish_search":
        raise MalformedCall("no 'Action Input:' line")
    return thought, name, parse_arguments(name, raw)


def format_block(hit: Hit, tz: tzinfo) -> str:
    """One search result as the model sees it, and as a note keeps it: header, then the window, the hit
    turn marked with ">>". Chat text is defused so it cannot close the data fence."""
    turns = [w.turn for w in hit.window] or [hit.turn]
    speakers = ", ".join(dict.fromkeys(t.speaker for t in turns))
    head = (
        f"chat: {prompts.quote_data(hit.chat.name)} ({hit.chat.source}) | session {hit.turn.session_id} | "
        f"{prompts.fmt_time(turns[0].start, tz)} to {prompts.fmt_time(turns[-1].end, tz)} | speakers: "
        f"{prompts.quote_data(speakers)}"
    )
    lines = [head]
    for w in hit.window or ():
        lines.append(_turn_line(w.turn, tz, hit=w.hit))
    if not hit.window:
        lines.append(_turn_line(hit.turn, tz, hit=True))
    return "\n".join(lines)


def _turn_line(turn: Any, tz: tzinfo, *, hit: bool) -> str:
    mark = ">>" if hit else "  "
    body = prompts.quote_data(turn.text).replace("\n", "\n      ")
    return f"{mark} {prompts.fmt_time(turn.start, tz)} {prompts.quote_data(turn.speaker)}: {body}"


@dataclass
class Toolbox:
    """The three tools over one archive, and the run's state. Read-only: nothing here writes anywhere."""

    search_fn: SearchFn
    now: datetime  # what relative dates in tool arguments are read against
    tz: tzinfo
    max_rounds: int
    on_event: EventSink = ignore
    seen_sessions: set[str] = field(default_factory=set)
    last_hits: tuple[Hit, ...] = ()
    notes: list[Note] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    searches: int = 0

    @property
    def exhausted(self) -> bool:
        return self.searches >= self.max_rounds

    def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        if name == "search_chat":
            return self.search_chat(args["keywords"], args["top_k"], args["date_from"], args["date_to"])
        if name == "take_note":
            return self.take_note(args["indices"])
        self.rounds.append(Round(len(self.rounds) + 1, "finish_search", {}, ()))
        return ToolResult("Search finished.", finished=True)

    def _error(self, tool: str, message: str) -> ToolResult:
        self.on_event(ToolError(tool, message))
        return ToolResult(f"error: {message}")

    def search_chat(
        self,
        keywords: str,
        top_k: int = DEFAULT_TOP_K,
        date_from: str | None = None,
        date_to: str | None = None,
    ) -> ToolResult:
        if self.exhausted:
            return self._error("search_chat", "the search budget is used up; call take_note or finish_search")
        from refind_cli.timeexpr import parse_bound

        try:
            since = parse_bound(date_from, now=self.now, tz=self.tz, end=False) if date_from else None
            until = parse_bound(date_to, now=self.now, tz=self.tz, end=True) if date_to else None
        except ValueError as err:
            return self._error("search_chat", str(err))
        if since and until and since > until:
            return self._error("search_chat", "date_from is after date_to")
        excluded = frozenset(self.seen_sessions)
        result = self.search_fn(keywords, k=top_k, since=since, until=until, exclude_sessions=excluded)
        self.searches += 1
        self.last_hits = tuple(result.hits)
        self.seen_sessions.update(h.turn.session_id for h in self.last_hits)
        arguments = {"keywords": keywords, "top_k": top_k, "date_from": date_from, "date_to": date_to}
        self.rounds.append(
            Round(len(self.rounds) + 1, "search_chat", arguments, tuple(h.turn.id for h in self.last_hits))
        )
        self.on_event(
            SearchDone(
                n=self.searches,
                keywords=keywords,
                date_from=date_from,
                date_to=date_to,
                top_k=top_k,
                hits=tuple(
                    HitSummary(
                        h.rank, h.turn.id, h.turn.session_id, h.chat.name, h.turn.start, h.turn.speaker
                    )
                    for h in self.last_hits
                ),
                total=result.total,
                excluded_sessions=len(excluded),
            )
        )
        if not self.last_hits:
            text = f"No results for {keywords!r}" + (" in that date range." if since or until else ".")
            text += " Try other keywords" + (" or a wider date range." if since or until else ".")
        else:
            blocks = "\n\n".join(f"[{i}] {format_block(h, self.tz)}" for i, h in enumerate(self.last_hits, 1))
            text = f"{len(self.last_hits)} results for {keywords!r}:\n{prompts.fence(blocks)}"
        if self.exhausted:
            text += "\n\n" + prompts.LAST_SEARCH
        return ToolResult(text)

    def take_note(self, indices: Sequence[int]) -> ToolResult:
        if not self.last_hits:
            return self._error("take_note", "there are no search results to take notes from")
        bad = [i for i in indices if not 1 <= i <= len(self.last_hits)]
        if bad:
            return self._error(
                "take_note",
                f"no block {', '.join(map(str, bad))}: the last search had blocks 1-{len(self.last_hits)}",
            )
        known = {n.hit_turn_id for n in self.notes}
        taken: list[Note] = []
        for i in dict.fromkeys(indices):
            hit = self.last_hits[i - 1]
            if hit.turn.id in known:
                continue
            turns = tuple(w.turn for w in hit.window) or (hit.turn,)
            note = Note(hit.turn.session_id, hit.turn.id, hit.chat, turns, format_block(hit, self.tz))
            taken.append(note)
            known.add(hit.turn.id)
        self.notes.extend(taken)
        self.rounds.append(
            Round(
                len(self.rounds) + 1,
                "take_note",
                {"indices": list(indices)},
                tuple(t for n in taken for t in n.turn_ids),
            )
        )
        self.on_event(NoteTaken(tuple(indices), tuple(taken)))
        return ToolResult(f"Saved {len(taken)} new note(s); {len(self.notes)} in total.")


@dataclass
class Meter:
    """Usage across both stages, and the stage-1 budget check."""

    budget: Budget
    on_event: EventSink
    usage: Usage = field(default_factory=Usage)
    search_usage: Usage = field(default_factory=Usage)
    warned_cost: bool = False

    def record(self, stage: str, model: str, completion: Completion) -> None:
        call = Usage().add(completion.prompt_tokens, completion.completion_tokens, completion.cost_usd)
        self.usage = self.usage + call
        if stage == "search":
            self.search_usage = self.search_usage + call
        self.on_event(ModelCall(stage, model, call, self.usage))

    def over_budget(self) -> str | None:
        b, u = self.budget, self.search_usage
        if b.max_tokens is not None and u.tokens >= b.max_tokens:
            return "max_tokens"
        if b.max_cost is not None:
            if u.cost_usd is None:
                if not self.warned_cost:
                    self.warned_cost = True
                    self.on_event(AgentWarning("the model's price is unknown: --max-cost cannot be enforced"))
            elif u.cost_usd >= b.max_cost:
                return "max_cost"
        return None


@dataclass
class Notifier:
    """Emits the remote-provider notice once per model, before that model's first call."""

    on_event: EventSink
    told: set[str] = field(default_factory=set)

    def before_call(self, client: LLMClient) -> None:
        provider = client.check()  # unknown model or missing key fail here, before any text is sent
        if client.model not in self.told:
            self.told.add(client.model)
            if not client.local:
                self.on_event(RemoteNotice(client.model, provider))


def run_model_search(
    client: LLMClient,
    toolbox: Toolbox,
    *,
    question: str,
    asked_at: datetime,
    span: tuple[datetime, datetime] | None,
    protocol: str,
    meter: Meter,
    notifier: Notifier,
) -> str:
    """Stage 1 with a model. Returns why it stopped."""
    from refind_cli.agent.llm import ToolsRejected

    tz = toolbox.tz
    system = prompts.search_system_prompt(asked_at=asked_at, tz=tz, span=span, max_rounds=toolbox.max_rounds)
    opening = prompts.question_message(question, asked_at, tz)
    mode = "text" if protocol == "text" else "tools"

    def start(mode: str) -> list[dict[str, Any]]:
        content = system + ("\n\n" + prompts.TEXT_PROTOCOL if mode == "text" else "")
        return [{"role": "system", "content": content}, {"role": "user", "content": opening}]

    messages = start(mode)
    strikes = 0
    calls = 0
    exhausted_at: int | None = None  # the call that made the last allowed search
    while True:
        if calls >= meter.budget.max_calls:
            return "max_calls"
        notifier.before_call(client)
        try:
            completion = client.complete(messages, tools=prompts.SEARCH_TOOLS if mode == "tools" else None)
        except ToolsRejected:
            if protocol != "auto":
                raise
            toolbox.on_event(
                AgentWarning(f"{client.model} does not accept tool calls: using the text protocol")
            )
            mode = "text"
            messages = start(mode)
            continue
        calls += 1
        meter.record("search", client.model, completion)
        if mode == "tools":
            problem, finished = _apply_tool_calls(completion, toolbox, messages)
        else:
            problem, finished = _apply_text_action(completion, toolbox, messages)
        stop = meter.over_budget()
        if finished:
            return "finish_search"
        if problem:
            if strikes:
                toolbox.on_event(
                    AgentWarning(f"the model's tool call was malformed twice ({problem}): search ends")
                )
                return "malformed"
            strikes = 1
        else:
            strikes = 0
        if stop:
            return stop
        # After the last allowed search the model gets exactly one more reply, to take its notes.
        if toolbox.exhausted:
            if exhausted_at is not None:
                return "max_rounds"
            exhausted_at = calls


def _apply_tool_calls(
    completion: Completion, toolbox: Toolbox, messages: list[dict[str, Any]]
) -> tuple[str | None, bool]:
    """Run a native reply's tool calls in order. Returns (problem for the retry, finished)."""
    if completion.content.strip():
        toolbox.on_event(Thought(completion.content.strip()))
    if not completion.tool_calls:
        messages.append({"role": "assistant", "content": completion.content or ""})
        problem = "the reply called no tool"
        messages.append({"role": "user", "content": prompts.tool_correction(problem)})
        return problem, False
    messages.append(completion.assistant_message())
    problem: str | None = None
    finished = False
    for call in completion.tool_calls:
        # Every call id needs an answer, even after finish or a bad call, or the next request is invalid.
        if finished:
            content = "ignored: the search is finished"
        else:
            try:
                args = parse_arguments(call.name, call.arguments)
            except MalformedCall as err:
                problem = str(err)
                content = prompts.tool_correction(problem)
            else:
                result = toolbox.call(call.name, args)
                content, finished = result.text, result.finished
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return problem, finished


def _apply_text_action(
    completion: Completion, toolbox: Toolbox, messages: list[dict[str, Any]]
) -> tuple[str | None, bool]:
    messages.append({"role": "assistant", "content": completion.content})
    try:
        thought, name, args = parse_text_action(completion.content)
    except MalformedCall as err:
        messages.append({"role": "user", "content": prompts.text_correction(str(err))})
        return str(err), False
    if thought:
        toolbox.on_event(Thought(thought))
    result = toolbox.call(name, args)
    messages.append({"role": "user", "content": f"Observation:\n{result.text}"})
    return None, result.finished


def run(
    question: str,
    *,
    search_fn: SearchFn,
    span: tuple[datetime, datetime] | None,
    config: ModelConfig | None = None,
    answer_config: ModelConfig | None = None,
    offline: bool = False,
    protocol: str = "auto",
    budget: Budget = Budget(),
    now: datetime,
    tz: tzinfo,
    on_event: EventSink = ignore,
    client_factory: Callable[[ModelConfig], LLMClient] | None = None,
) -> AskResult:
    """Both stages over any search function. ``config`` None or ``offline`` runs the deterministic planner
    and never imports litellm."""
    from refind_cli.agent import answer as answering

    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}")
    if budget.max_rounds < 1:
        raise ValueError("max_rounds must be at least 1")
    toolbox = Toolbox(search_fn, now, tz, budget.max_rounds, on_event)
    meter = Meter(budget, on_event)
    if offline or config is None:
        from refind_cli.agent import offline as planner

        reason = planner.run_planner(question, toolbox, now=now, tz=tz)
        on_event(SearchFinished(reason, toolbox.searches, len(toolbox.notes)))
        text, citations = planner.extractive_answer(question, toolbox.notes, now=now, tz=tz)
        model, mode = None, "offline-extractive"
    else:
        if client_factory is None:
            from refind_cli.agent.llm import LLMClient

            client_factory = LLMClient
        notifier = Notifier(on_event)
        client = client_factory(config)
        reason = run_model_search(
            client,
            toolbox,
            question=question,
            asked_at=now,
            span=span,
            protocol=protocol,
            meter=meter,
            notifier=notifier,
        )
        on_event(SearchFinished(reason, toolbox.searches, len(toolbox.notes)))
        answerer = (
            client if answer_config is None or answer_config == config else client_factory(answer_config)
        )
        if toolbox.notes:
            notifier.before_call(answerer)
            text, citations, completion = answering.answer(answerer, question, now, tz, toolbox.notes)
            meter.record("answer", answerer.model, completion)
        else:
            text, citations = answering.NOTHING_FOUND, ()
        model, mode = answerer.model, "model"
    result = AskResult(
        question=question,
        answer=text,
        citations=tuple(citations),
        rounds=tuple(toolbox.rounds),
        notes=tuple(toolbox.notes),
        model=model,
        usage=meter.usage,
        mode=mode,
        stop_reason=reason,
        asked_at=now,
    )
    on_event(Answered(result))
    return result


def archive_search(archive: Archive, index: Index, chats: Sequence[int] | None = None) -> SearchFn:
    """The agent's search tool over a real archive and index, optionally limited to some chats."""
    from refind_cli.search import search

    def search_fn(
        query: str,
        *,
        k: int,
        since: datetime | None,
        until: datetime | None,
        exclude_sessions: Collection[str],
    ) -> SearchResult:
        return search(
            archive,
            index,
            query,
            k=k,
            since=since,
            until=until,
            chats=chats,
            exclude_sessions=exclude_sessions,
        )

    return search_fn


def ask(
    archive: Archive,
    index: Index,
    question: str,
    *,
    chats: Sequence[int] | None = None,
    now: datetime | None = None,
    tz: tzinfo | None = None,
    **options: Any,
) -> AskResult:
    """``run`` over an archive and its index, optionally limited to some chats. ``options`` are ``run``'s."""
    zone = tz or datetime.now().astimezone().tzinfo
    assert zone is not None
    asked = (now or datetime.now(zone)).astimezone(zone)
    search_fn = archive_search(archive, index, chats)
    return run(question, search_fn=search_fn, span=archive.time_span(), now=asked, tz=zone, **options)
