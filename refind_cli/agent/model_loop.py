"""Stage 1 with a model: the ReAct loop over the toolbox, through native tool calls or the text protocol.

A malformed call gets one corrected retry; after the last allowed search the model gets exactly one more
reply, to take its notes. The loop stops on finish_search or the first budget that runs out.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from refind_cli.agent import prompts
from refind_cli.agent.events import AgentWarning, Thought
from refind_cli.agent.text_protocol import parse_text_action
from refind_cli.agent.tools import MalformedCall, Toolbox

if TYPE_CHECKING:
    from refind_cli.agent.budget import Meter
    from refind_cli.agent.llm import Completion, LLMClient
    from refind_cli.agent.notice import Notifier


def run_model_search(
    client: LLMClient,
    toolbox: Toolbox,
    *,
    question: str,
    asked_at: datetime,
    span: tuple[datetime, datetime] | None,
    languages: Sequence[str] = (),
    protocol: str,
    meter: Meter,
    notifier: Notifier,
) -> str:
    """Stage 1 with a model. Returns why it stopped."""
    from refind_cli.agent.llm import ToolsRejected

    tz = toolbox.tz
    system = prompts.search_system_prompt(
        asked_at=asked_at, tz=tz, span=span, max_rounds=toolbox.max_rounds, languages=languages
    )
    opening = prompts.question_message(question, asked_at, tz)
    mode = "text" if protocol == "text" else "tools"

    def start(mode: str) -> list[dict[str, Any]]:
        content = system + ("\n\n" + prompts.text_protocol(toolbox.tools) if mode == "text" else "")
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
            completion = client.complete(messages, tools=toolbox.tools.specs() if mode == "tools" else None)
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
        if toolbox.exhausted:
            if exhausted_at is not None:
                return "max_rounds"
            exhausted_at = calls


def _apply_tool_calls(
    completion: Completion, toolbox: Toolbox, messages: list[dict[str, Any]]
) -> tuple[str | None, bool]:
    """Run a native reply's tool calls in order. Returns (problem for the retry, finished)."""
    names = toolbox.tools.names
    if completion.content.strip():
        toolbox.on_event(Thought(completion.content.strip()))
    if not completion.tool_calls:
        messages.append({"role": "assistant", "content": completion.content or ""})
        no_call = "the reply called no tool"
        messages.append({"role": "user", "content": prompts.tool_correction(no_call, names)})
        return no_call, False
    messages.append(completion.assistant_message())
    problem: str | None = None
    finished = False
    for call in completion.tool_calls:
        # Every call id needs an answer, even after finish or a bad call, or the next request is invalid.
        if finished:
            content = "ignored: the search is finished"
        else:
            try:
                result = toolbox.call(call.name, toolbox.tools.parse(call.name, call.arguments))
            except MalformedCall as err:
                problem = str(err)
                content = prompts.tool_correction(problem, names)
            else:
                content, finished = result.text, result.finished
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return problem, finished


def _apply_text_action(
    completion: Completion, toolbox: Toolbox, messages: list[dict[str, Any]]
) -> tuple[str | None, bool]:
    messages.append({"role": "assistant", "content": completion.content})
    try:
        thought, name, args = parse_text_action(completion.content, toolbox.tools)
    except MalformedCall as err:
        messages.append({"role": "user", "content": prompts.text_correction(str(err), toolbox.tools.names)})
        return str(err), False
    if thought:
        toolbox.on_event(Thought(thought))
    result = toolbox.call(name, args)
    messages.append({"role": "user", "content": f"Observation:\n{result.text}"})
    return None, result.finished
