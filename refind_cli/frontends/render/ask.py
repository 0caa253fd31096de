"""`refind ask` output: the live trace of rounds and notes, the answer with its citations, the usage line, and
the JSON object scripts rely on. Chat text is printed as plain ``Text``, never as rich markup: a message
containing ``[bold]`` or ``[1]`` must print as written."""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from refind_cli.agent.events import (
    AgentWarning,
    AskResult,
    Event,
    NoteTaken,
    RemoteNotice,
    SearchDone,
    SearchFinished,
    Thought,
    ToolError,
    ToolRan,
    Usage,
)
from refind_cli.frontends.render import iso, short_time, visible
from refind_cli.records import said

if TYPE_CHECKING:
    from refind_cli.agent.conversation import Conversation

QUOTE_CHARS = 160
STOP_REASONS = {
    "finish_search": "the search was finished",
    "max_rounds": "the round budget was used up",
    "max_tokens": "the token budget was used up",
    "max_cost": "the cost budget was used up",
    "max_calls": "the call limit was reached",
    "malformed": "the model's tool calls were malformed",
}


def clip(text: str, limit: int = QUOTE_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def notice_line(event: RemoteNotice) -> str:
    return f"refind: sending chat text to {event.provider} (model {event.model})"


class AskTrace:
    """An event sink that prints each step as it happens. With ``rounds=False`` (``-q``) only what must never
    be hidden is printed: that chat text leaves the machine, and warnings."""

    def __init__(self, console: Console, *, tz: tzinfo, rounds: bool = True) -> None:
        self.console = console
        self.tz = tz
        self.rounds = rounds

    def _line(self, *parts: tuple[str, str] | str) -> None:
        # Parts carry chat text and model output: their control characters are shown as escapes.
        shown = [(visible(p[0]), p[1]) if isinstance(p, tuple) else visible(p) for p in parts]
        self.console.print(Text.assemble(*shown), soft_wrap=True)

    def __call__(self, event: Event) -> None:
        if isinstance(event, RemoteNotice):
            self._line((notice_line(event), "yellow"))
        elif isinstance(event, AgentWarning):
            self._line((f"refind: warning: {event.message}", "yellow"))
        elif not self.rounds:
            return
        elif isinstance(event, SearchDone):
            self._search(event)
        elif isinstance(event, NoteTaken):
            for note in event.notes:
                hit = next(t for t in note.turns if t.id == note.hit_turn_id)
                self._line(
                    ("  noted ", "green"),
                    f"{note.chat.name} · {short_time(hit.start, self.tz)} · {hit.speaker}: ",
                    (clip(said(hit.speaker, hit.text), 100), "dim"),
                )
            if not event.notes:
                self._line(("  noted nothing new", "dim"))
        elif isinstance(event, Thought):
            self._line(("  thought: ", "dim"), (clip(event.text, 200), "dim italic"))
        elif isinstance(event, ToolRan):
            # Any tool this renderer does not know: its name and its own one-line summary.
            self._line((f"  {event.tool}: ", "green"), clip(event.summary, 200))
        elif isinstance(event, ToolError):
            self._line(("  tool error: ", "yellow"), f"{event.tool}: {event.message}")
        elif isinstance(event, SearchFinished):
            why = STOP_REASONS.get(event.reason, event.reason)
            self._line((f"search ended: {why}; {event.searches} searches, {event.notes} notes", "dim"))

    def _search(self, e: SearchDone) -> None:
        dates = ""
        if e.date_from or e.date_to:
            dates = f" {e.date_from or '…'} to {e.date_to or '…'}"
        chats = ", ".join(dict.fromkeys(h.chat for h in e.hits))
        sessions = len({h.session_id for h in e.hits})
        self._line(
            (f"round {e.n}: ", "bold"),
            "search_chat ",
            (repr(e.keywords), "cyan"),
            dates,
            f" → {len(e.hits)} hits" + (f" ({e.total} matching)" if e.total else ""),
            (f" in {sessions} sessions: {chats}" if e.hits else ""),
            ((f"; {e.excluded_sessions} seen sessions excluded") if e.excluded_sessions else "", "dim"),
        )


def usage_line(result: AskResult) -> str:
    if result.mode != "model":
        return "offline extractive answer · no model calls"
    u: Usage = result.usage
    cost = f" · ${u.cost_usd:.4f}" if u.cost_usd is not None else " · cost unknown"
    return (
        f"{result.model} · {u.llm_calls} calls · {u.tokens:,} tokens ({u.prompt_tokens:,} in, "
        f"{u.completion_tokens:,} out){cost}"
    )


def _turn_ids(result: AskResult) -> str:
    """The quoted turns' ids by number: `refind show ID` opens the conversation at one."""
    return "turns: " + "  ".join(f"[{k}] {c.turn_id}" for k, c in enumerate(result.citations, 1))


def print_answer(result: AskResult, console: Console, *, tz: tzinfo) -> None:
    """The answer, its numbered citations and the usage line (terminal mode)."""
    console.print(Text(visible(result.answer)), soft_wrap=True)
    # An extractive answer is its citations, quoted already; a model's answer points at them by number.
    if result.citations and result.mode == "model":
        console.print()
        for k, c in enumerate(result.citations, 1):
            console.print(
                Text.assemble(
                    (f"[{k}] ", "bold"),
                    (visible(f"{c.chat} · {short_time(c.timestamp, tz)} · {c.speaker}: "), "cyan"),
                    visible(clip(said(c.speaker, c.text))),
                    (f"  {c.turn_id}", "dim"),
                ),
                soft_wrap=True,
            )
    elif result.citations:
        console.print(Text(_turn_ids(result), style="dim"), soft_wrap=True)
    console.print()
    console.print(Text(usage_line(result), style="dim"), soft_wrap=True)


def print_details(result: AskResult, console: Console, *, tz: tzinfo) -> None:
    """Piped mode: the citations and usage go beside the answer, on stderr."""
    for k, c in enumerate(result.citations if result.mode == "model" else (), 1):
        console.print(
            Text(
                visible(
                    f"[{k}] {c.chat} · {short_time(c.timestamp, tz)} · {c.speaker}: {clip(said(c.speaker, c.text))}"
                    f"  {c.turn_id}"
                )
            ),
            soft_wrap=True,
        )
    if result.citations and result.mode != "model":
        console.print(Text(_turn_ids(result), style="dim"), soft_wrap=True)
    console.print(Text(usage_line(result), style="dim"), soft_wrap=True)


def ask_json(result: AskResult, *, tz: tzinfo | None = None) -> dict[str, Any]:
    """The `ask --json` object (README, "JSON for scripts": keys may be added, never removed)."""
    u = result.usage
    return {
        "question": result.question,
        "answer": result.answer,
        "citations": [
            {
                "session_id": c.session_id,
                "turn_id": c.turn_id,
                "chat": c.chat,
                "timestamp": iso(c.timestamp, tz),
                "speaker": c.speaker,
                "text": c.text,
                # As `show --json` marks a turn it gives only the start of.
                **(
                    {} if c.length is None else {"truncated": True, "text_offset": 0, "text_length": c.length}
                ),
            }
            for c in result.citations
        ],
        "rounds": [
            {"n": r.n, "tool": r.tool, "arguments": r.arguments, "result_turn_ids": list(r.result_turn_ids)}
            for r in result.rounds
        ],
        "notes": [
            {"session_id": n.session_id, "turn_ids": list(n.turn_ids), "text": n.text, "chat": n.chat.name}
            for n in result.notes
        ],
        "model": result.model,
        "usage": {
            "llm_calls": u.llm_calls,
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "cost_usd": u.cost_usd,
        },
        "mode": result.mode,
        "stop_reason": result.stop_reason,
        "asked_at": iso(result.asked_at, tz),
        "direct": None
        if result.direct is None
        else {
            "kind": result.direct.kind,
            "value": result.direct.value,
            "start": iso(result.direct.start, tz),
            "end": iso(result.direct.end, tz),
        },
    }


# ---- the conversation ------------------------------------------------------------------------------------

PROMPT = "refind> "


def banner(conversation: Conversation, model: str | None) -> str:
    how = "offline: no model" if conversation.offline or model is None else f"model {model}"
    return f"refind ask: a conversation with your chats ({how}). /help for the commands, Ctrl-D to leave."


def print_help(console: Console) -> None:
    from refind_cli.agent.conversation import COMMANDS

    width = max(map(len, COMMANDS))
    for spec, what in COMMANDS.items():
        console.print(Text.assemble((spec.ljust(width + 2), "bold"), what), soft_wrap=True)
    console.print(
        Text("Anything else is a question; it may refer to the ones before. Ctrl-C stops a question.", "dim")
    )


def conversation_markdown(conversation: Conversation, *, tz: tzinfo) -> str:
    """The transcript as Markdown: each question, its answer, and the messages it cites with their ids.
    Chat text is quoted as written (as Markdown block quotes, so it cannot become headings or lists)."""
    lines = ["# refind conversation", ""]
    for k, e in enumerate(conversation.exchanges, 1):
        how = "offline, extractive" if e.mode != "model" else f"model {e.model}"
        lines += [
            f"## {k}. {' '.join(e.question.split())}",
            "",
            f"*Asked {iso(e.asked_at, tz)} ({how}).*",
            "",
        ]
        lines += [f"> {line}" if line else ">" for line in e.answer.splitlines()]
        if e.citations:
            lines += ["", "Citations:", ""]
            for n, c in enumerate(e.citations, 1):
                quote = clip(said(c.speaker, c.text), 300)
                lines.append(
                    f"{n}. {c.chat} · {short_time(c.timestamp, tz)} · {c.speaker}: {quote} (`{c.turn_id}`)"
                )
        lines.append("")
    return "\n".join(lines)
