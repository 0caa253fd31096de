"""`refind ask` and `refind eval`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from refind_cli.frontends.cli.common import (
    ChatsOption,
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

BudgetOption = Annotated[
    int | None,
    typer.Option(
        "--budget",
        min=1,
        help="Evidence tokens a question the offline planner's notes may spend (default: measured).",
    ),
]


@app.command("ask")
def ask_command(
    ctx: typer.Context,
    question: Annotated[
        str | None,
        typer.Argument(help="The question, in your own words. None, on a terminal: a conversation."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="litellm model name, e.g. openai/gpt-4o-mini (env REFIND_MODEL)."),
    ] = None,
    answer_model: Annotated[
        str | None, typer.Option("--answer-model", help="Model for the answer (default: --model).")
    ] = None,
    api_base: Annotated[
        str | None,
        typer.Option("--api-base", help="Server URL, e.g. http://localhost:11434/v1 (env REFIND_API_BASE)."),
    ] = None,
    offline: Annotated[
        bool,
        typer.Option("--offline", help="No model: deterministic search rounds and an extractive answer."),
    ] = False,
    protocol: Annotated[
        str,
        typer.Option("--protocol", help="auto, tools (native tool calls) or text (JSON actions in text)."),
    ] = "auto",
    max_rounds: Annotated[int, typer.Option("--max-rounds", min=1, help="Searches per question.")] = 4,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", min=1, help="Stop searching after this many tokens.")
    ] = None,
    max_cost: Annotated[
        float | None, typer.Option("--max-cost", min=0.0, help="Stop searching after this many US dollars.")
    ] = None,
    budget: BudgetOption = None,
    now: Annotated[
        str | None, typer.Option("--now", help="When the question is asked, ISO date-time (default: now).")
    ] = None,
    tz: TzOption = None,
    chat: ChatsOption = None,
    source: SourcesOption = None,
    speaker: SpeakersOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not print the search rounds.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object.")] = False,
    follow: Annotated[
        bool,
        typer.Option("--continue", "-c", help="A follow-up of the last conversation (kept in the home)."),
    ] = False,
    no_history: Annotated[
        bool,
        typer.Option(
            "--no-history",
            envvar="REFIND_NO_HISTORY",
            help="Keep nothing of what is asked: no history of the lines typed, no conversation for -c.",
        ),
    ] = False,
) -> None:
    """Answer a question from your chats: a search agent looks in rounds, keeps notes, and answers from them.
    With no question, on a terminal: a conversation, where each question may refer to the ones before."""
    from refind_cli.dates.clock import zone
    from refind_cli.frontends.cli.conversation import Typed
    from refind_cli.frontends.render import visible
    from refind_cli.frontends.render.ask import AskTrace, ask_json, print_answer, print_details

    if question is None and (json_out or not (sys.stdin.isatty() and sys.stdout.isatty())):
        fail("a question is needed (a conversation opens only on a terminal)", json_mode=json_out)
    with error_boundary(json_out):
        zone_ = zone(tz)
        terminal = sys.stdout.isatty() and not json_out
        trace = AskTrace(stderr_console(), tz=zone_, rounds=not quiet and not json_out)
        typed = Typed(
            model, answer_model, api_base, offline, protocol, max_rounds, max_tokens, max_cost,
            chat, source, speaker, now, zone_, budget,
        )  # fmt: skip
        with open_home(ctx) as home:
            if question is None or follow:
                from refind_cli.frontends.cli.conversation import start

                started = start(home, question, typed, follow=follow, trace=trace, history=not no_history)
                if started is None:  # the conversation on the terminal ended
                    raise typer.Exit(0)
                result = started
            else:
                result = home.ask(typed.request(home, question), on_event=trace)
                if not no_history:
                    home.keep(typed.conversation().answered(result), on_event=trace)
    if json_out:
        print_json(ask_json(result, tz=zone_))
    elif terminal:
        print_answer(result, stdout_console(), tz=zone_)
    else:
        sys.stdout.write(visible(result.answer) + "\n")
        sys.stdout.flush()
        if not quiet:
            print_details(result, stderr_console(), tz=zone_)
    raise typer.Exit(0 if result.found else 1)


@app.command("eval")
def eval_command(
    file: Annotated[Path, typer.Argument(help="LongMemEval .json/.jsonl[.gz] or LoCoMo .json file.")],
    model: Annotated[
        str | None,
        typer.Option("--model", help="Run the agent with this model (default: the offline planner)."),
    ] = None,
    judge_model: Annotated[
        str | None, typer.Option("--judge-model", help="Model that grades the answers (default: --model).")
    ] = None,
    api_base: Annotated[str | None, typer.Option("--api-base", help="Server URL for the models.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N questions.")] = None,
    max_rounds: Annotated[int, typer.Option("--max-rounds", min=1, help="Searches per question.")] = 4,
    k: Annotated[int, typer.Option("-k", min=1, help="Hits of the single-search baseline.")] = 5,
    budget: BudgetOption = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Measure retrieval (and, with a model, judged answer accuracy) on LongMemEval or LoCoMo data."""
    from datetime import UTC

    from refind_cli.facade import benchmark_questions, eval_request, evaluate
    from refind_cli.frontends.render.ask import AskTrace
    from refind_cli.frontends.render.evaluate import eval_json, eval_progress, print_eval

    with error_boundary(json_out):
        request = eval_request(
            file,
            model=model,
            judge_model=judge_model,
            api_base=api_base,
            limit=limit,
            max_rounds=max_rounds,
            k=k,
            evidence_tokens=budget,
        )
        questions = benchmark_questions(request)
        err = stderr_console()
        with eval_progress(err, len(questions)) as tick:
            report = evaluate(
                request, questions, on_question=tick, on_event=AskTrace(err, tz=UTC, rounds=False)
            )
    if json_out:
        print_json(eval_json(report))
    else:
        print_eval(report, stdout_console())
