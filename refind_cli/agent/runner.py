"""``run``: both stages over any search function. Stage 1 is the model loop, or the offline planner when no
model is configured; stage 2 answers from the notes (a model, or the extractive answer offline)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING

from refind_cli.agent import answer as answering
from refind_cli.agent import conversation
from refind_cli.agent.budget import DEFAULT_BUDGET, Budget, Meter
from refind_cli.agent.events import Answered, AskResult, EventSink, Note, SearchFinished, ignore
from refind_cli.agent.model_loop import run_model_search
from refind_cli.agent.notice import Notifier
from refind_cli.agent.tools import TOOLS, DocFreq, Registry, SearchFn, Toolbox
from refind_cli.request import PROTOCOLS

if TYPE_CHECKING:
    from refind_cli.agent.conversation import Earlier
    from refind_cli.agent.llm import LLMClient, ModelConfig


def run(
    question: str,
    *,
    search_fn: SearchFn,
    span: tuple[datetime, datetime] | None,
    config: ModelConfig | None = None,
    answer_config: ModelConfig | None = None,
    offline: bool = False,
    protocol: str = "auto",
    budget: Budget = DEFAULT_BUDGET,
    now: datetime,
    tz: tzinfo,
    chats: Sequence[int] | None = None,
    tools: Registry = TOOLS,
    on_event: EventSink = ignore,
    client_factory: Callable[[ModelConfig], LLMClient] | None = None,
    doc_freq: DocFreq | None = None,
    languages: Sequence[str] = (),
    earlier: Sequence[Earlier] = (),
    more: Sequence[Note] = (),
    speakers: Sequence[str] | None = None,
) -> AskResult:
    """Both stages over any search function. ``config`` None or ``offline`` runs the deterministic planner
    and never imports litellm. ``chats`` limits every search to those chat seqs; ``tools`` are the tools a
    model is offered; ``doc_freq`` (the index's) spares the offline planner a search per word it weighs;
    ``languages`` are those of the chats searched (ISO 639-1): the planner reads the question in theirs,
    and a model is told them. ``earlier``: the exchanges before this question in a conversation (a model
    reads them; the planner carries the last one, ``conversation.carried``). ``more``: notes of this
    question taken already (/more): the search goes past their sessions and the answer reads them too.
    ``speakers``: the search keeps to what they said (``search_fn`` does), so the extractive answer quotes
    only them, not the others in a hit's context."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}")
    if budget.max_rounds < 1:
        raise ValueError("max_rounds must be at least 1")
    scope = None if chats is None else tuple(chats)
    toolbox = Toolbox(search_fn, now, tz, budget.max_rounds, on_event, tools, scope, doc_freq)
    toolbox.seen_sessions.sessions.update(n.session_id for n in more)
    meter = Meter(budget, on_event)
    if offline or config is None:
        from refind_cli.agent import extractive, meaning  # these load the stemmer: only when the planner runs
        from refind_cli.agent import offline as planner
        from refind_cli.text.analysis import question_analyzer

        analyzer = question_analyzer(question, languages)
        plan = planner.plan(question, now=now, tz=tz, span=span, analyzer=analyzer)
        if earlier:
            plan, carried_chats = conversation.carried(plan, earlier, tz=tz, span=span, analyzer=analyzer)
            toolbox.chats = toolbox.chats or carried_chats
        reason = planner.run_planner(plan, toolbox, planner.tuning(budget.evidence_tokens))
        on_event(SearchFinished(reason, toolbox.searches, len(toolbox.notes)))
        reading = extractive.read(
            question,
            plan.terms,
            [*more, *toolbox.notes],
            tz=tz,
            analyzer=analyzer,
            doc_freq=doc_freq,
            meaning=meaning.load() if extractive.SCORING.reads_meaning else None,
        )
        during = extractive.time_named(plan.since, plan.until)
        found = extractive.rank(reading, speakers=speakers, during=during)
        text, citations, direct = extractive.extractive_answer(found, tz=tz)
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
            question=conversation.framed(question, earlier, tz),
            asked_at=now,
            span=span,
            languages=languages,
            protocol=protocol,
            meter=meter,
            notifier=notifier,
        )
        on_event(SearchFinished(reason, toolbox.searches, len(toolbox.notes)))
        answerer = (
            client if answer_config is None or answer_config == config else client_factory(answer_config)
        )
        notes = [*more, *toolbox.notes]
        if notes:
            notifier.before_call(answerer)
            asked = conversation.framed(question, earlier, tz)
            text, citations, completion = answering.answer(answerer, asked, now, tz, notes)
            meter.record("answer", answerer.model, completion)
        else:
            text, citations = answering.NOTHING_FOUND, []
        model, mode, direct = answerer.model, "model", None
    result = AskResult(
        question=question,
        answer=text,
        citations=tuple(citations),
        rounds=tuple(toolbox.rounds),
        notes=(*more, *toolbox.notes),
        model=model,
        usage=meter.usage,
        mode=mode,
        stop_reason=reason,
        asked_at=now,
        direct=direct,
    )
    on_event(Answered(result))
    return result
