"""`refind eval`: retrieval recall (and, with a model, judged answer accuracy) on LongMemEval and LoCoMo.

Each haystack becomes a throwaway archive and index in a temporary folder, built with the same importer
path as real chats: LongMemEval sessions are user/assistant threads (``pairing="exchange"``: a turn is a
user message plus the reply), LoCoMo sessions are human chats with burst turns, each session one thread
with its own date. Benchmark ids are kept on the messages (``source_id``, ``thread``), so every turn and
session maps back to the dia_ids and session ids the gold evidence names.

Metrics, as the benchmarks define them:
- LoCoMo evidence recall: the share of a question's evidence turns inside the retrieved turns (the
  windows of one search, the question as its query, ranked by plain BM25; the turns of the agent's notes),
  categories 1-4.
- LongMemEval session recall_any@k / recall_all@k over ``answer_session_ids`` (one search: the sessions
  of its k hits; the agent: the sessions of its notes), abstention questions excluded.

And of the answer, judged by evidence and dates rather than by words (gold answers are rarely written as
the chat wrote them): ``answer_evidence``, whether the first citation (the direct answer line's quote,
offline) is a gold evidence turn (LoCoMo: a turn holding an evidence dia_id; LongMemEval: a turn of an
answer session); ``top3_evidence``, whether one of the first three is; ``when_date``, for a "when"
question whose gold answer is a date, whether the direct answer's date lies in it (offline only).
"""

from __future__ import annotations

import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Any

from refind_cli.agent import Budget, ask
from refind_cli.agent.answer import estimate_tokens, evidence
from refind_cli.agent.budget import EVIDENCE_TOKENS
from refind_cli.agent.events import AskResult, Event, EventSink, RemoteNotice, ignore
from refind_cli.agent.extractive import WHEN
from refind_cli.agent.notice import Notifier
from refind_cli.index import TurnIndex, open_index
from refind_cli.ingest import import_chat
from refind_cli.method.benchmarks import LOCOMO, Haystack, Question
from refind_cli.method.search import search
from refind_cli.operations import AskRequest
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

if TYPE_CHECKING:
    from refind_cli.agent.llm import LLMClient, ModelConfig


@dataclass(frozen=True, slots=True)
class QuestionResult:
    qid: str
    benchmark: str
    category: str
    abstention: bool
    metrics: dict[str, float]  # recall values; absent when the question does not count for that metric
    evidence_tokens: int  # estimate of what stage 2 reads (4 characters per token)
    notes: int
    searches: int
    llm_tokens: int
    judge_tokens: int
    seconds: float
    answer: str
    correct: bool | None


@dataclass(frozen=True, slots=True)
class EvalReport:
    file: str
    benchmark: str
    mode: str  # "offline" | the model name
    k: int
    results: tuple[QuestionResult, ...]
    summary: dict[str, Any] = field(default_factory=dict)
    budget: int = EVIDENCE_TOKENS  # evidence tokens a question the offline planner may spend


# ---- the throwaway archive ------------------------------------------------------------------------------------


@dataclass
class Built:
    archive: Archive
    index: TurnIndex
    turn_sources: dict[str, frozenset[str]]  # our turn id -> benchmark message ids (LoCoMo dia_ids)
    session_names: dict[str, str | None]  # our session id -> benchmark session id (the thread)


def build(haystack: Haystack, home: Path) -> Built:
    archive = Archive.open(home)
    import_chat(archive, haystack.chat, haystack.messages, pairing=haystack.pairing)
    index = open_index(home)
    index.sync(archive)
    turn_sources = archive.turn_source_ids()
    session_names = archive.session_threads()
    return Built(archive, index, turn_sources, session_names)


# ---- scoring --------------------------------------------------------------------------------------------------


def recall(gold: Iterable[str], found: Iterable[str]) -> float:
    gold = set(gold)
    return len(gold & set(found)) / len(gold)


def retrieval_metrics(
    q: Question,
    built: Built,
    hits: list[tuple[str, list[str]]],
    note_turns: Iterable[str],
    note_sessions: Iterable[str],
    k: int,
) -> dict[str, float]:
    """``hits``: the single search's hits, best first, as (session id, turn ids of the window)."""
    if q.abstention:
        return {}
    if q.benchmark == LOCOMO:
        known = set().union(*built.turn_sources.values())
        gold_ids = [e for e in q.evidence if e in known]  # malformed or missing evidence ids are skipped
        if not gold_ids:
            return {}
        seen = {d for _, window in hits for t in window for d in built.turn_sources.get(t, ())}
        noted_ids = {d for t in note_turns for d in built.turn_sources.get(t, ())}
        return {"search_recall": recall(gold_ids, seen), "notes_recall": recall(gold_ids, noted_ids)}
    gold = set(q.evidence)
    if not gold:
        return {}
    sessions: list[str] = []
    for session_id, _ in hits:
        name = built.session_names.get(session_id)
        if name is not None and name not in sessions:
            sessions.append(name)
    top = set(sessions[:k])
    noted = {built.session_names.get(s) for s in note_sessions}
    return {
        f"search_any@{k}": float(bool(gold & top)),
        f"search_all@{k}": float(gold <= top),
        "notes_any": float(bool(gold & noted)),
        "notes_all": float(gold <= noted),
    }


def evidence_turn(q: Question, built: Built) -> Callable[[str, str], bool]:
    """Whether a turn (its id and its session's) is gold evidence for ``q``."""
    gold = set(q.evidence)
    if q.benchmark == LOCOMO:
        return lambda turn, _session: bool(built.turn_sources.get(turn, frozenset()) & gold)
    return lambda _turn, session: built.session_names.get(session) in gold


# "The week before 9 June 2023", "two weekends before 17 July 2023", "the Friday before 15 July 2023".
_BEFORE_RE = re.compile(
    r"^\s*(?:the\s+)?(?:(?P<n>\w+)\s+)??(?P<unit>\w+?)s?\s+(?P<dir>before|after)\s+(?P<anchor>.+)$", re.I
)
_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 31, "year": 366}
_COUNT = {"a": 1, "one": 1, "two": 2, "three": 3, "few": 3, "couple": 2}


def gold_span(answer: str, asked_at: datetime) -> tuple[datetime, datetime] | None:
    """A gold answer that is a date, as the range it names (a day before or after a date is any of the
    days up to it, a weekday any of the week's); None when it is no date."""
    from refind_cli.dates.timeexpr import find_ranges, parse_range

    text = answer.strip().rstrip(".")
    m = _BEFORE_RE.match(text)
    if m:
        anchors = find_ranges(m["anchor"], now=asked_at, tz=UTC)
        if not anchors:
            return None
        n = m["n"].lower() if m["n"] else "1"
        count = int(n) if n.isdigit() else _COUNT.get(n, 1)
        span = timedelta(days=_UNIT_DAYS.get(m["unit"].lower(), 7) * count)
        a = anchors[0]
        if m["dir"].lower() == "before":
            return a.start - span, a.start - timedelta(microseconds=1)
        return a.end, a.end + span
    # The whole answer must be the date ("2022", "7 May 2023"), not a sentence that mentions one.
    try:
        whole = parse_range(text, now=asked_at, tz=UTC)
    except ValueError:
        return None
    return whole.start, whole.end


def date_matches(answer: tuple[datetime, datetime], gold: tuple[datetime, datetime]) -> bool:
    """Whether the answer's range falls in the gold one: they overlap, and the answer is no vaguer than the
    gold by more than a week ("last week" for "the Friday before 15 July" is right, "2023" is not)."""
    lo, hi = answer
    return lo <= gold[1] and hi >= gold[0] and hi - lo <= gold[1] - gold[0] + timedelta(days=7)


def answer_metrics(q: Question, built: Built, result: AskResult) -> dict[str, float]:
    """``answer_evidence``, ``top3_evidence`` and ``when_date`` (module docstring); none for abstention
    questions or questions without known evidence."""
    if q.abstention or not q.evidence:
        return {}
    if q.benchmark == LOCOMO and not set(q.evidence) & set().union(*built.turn_sources.values()):
        return {}
    gold = evidence_turn(q, built)
    cited = [gold(c.turn_id, c.session_id) for c in result.citations]
    out = {"answer_evidence": float(any(cited[:1])), "top3_evidence": float(any(cited[:3]))}
    direct = result.direct
    if direct is not None and direct.kind == WHEN and (span := gold_span(q.answer, q.asked_at)):
        named = (direct.start, direct.end) if direct.start and direct.end else None
        out["when_date"] = float(named is not None and date_matches(named, span))
    return out


JUDGE_BASE = (
    "I will give you a question, a correct answer, and a response from a model. Answer yes if the response "
    "contains the correct answer, otherwise answer no. If the response is equivalent to the correct answer or "
    "contains all the intermediate steps to get it, also answer yes. If the response contains only a subset of "
    "the information the answer requires, answer no."
)
JUDGE_EXTRA = {
    "temporal-reasoning": " Do not penalize off-by-one errors in numbers of days, weeks or months.",
    "knowledge-update": (
        " If the response mentions earlier information along with the updated answer, it is correct as long as"
        " the updated answer is the required one."
    ),
}
JUDGE_PREFERENCE = (
    "I will give you a question, a rubric for the desired personalized response, and a response from a model. "
    "Answer yes if the response satisfies the rubric, otherwise no. The response need not cover every point; it "
    "is correct as long as it recalls and uses the user's personal information correctly."
)
JUDGE_ABSTENTION = (
    "I will give you an unanswerable question, an explanation, and a response from a model. Answer yes if the "
    "model correctly says the question cannot be answered from what it knows (for example that the information "
    "is missing or incomplete), otherwise no."
)


def judge_prompt(q: Question, response: str) -> str:
    """LongMemEval's yes/no judging (its task-specific variants), used for LoCoMo as well."""
    if q.abstention:
        head, label = JUDGE_ABSTENTION, "Explanation"
    elif q.category == "single-session-preference":
        head, label = JUDGE_PREFERENCE, "Rubric"
    else:
        head, label = JUDGE_BASE + JUDGE_EXTRA.get(q.category, ""), "Correct Answer"
    return (
        f"{head}\n\nQuestion: {q.question}\n\n{label}: {q.answer}\n\nModel Response: {response}\n\n"
        "Is the model response correct? Answer yes or no only."
    )


def judge(client: LLMClient, q: Question, response: str) -> tuple[bool, int]:
    completion = client.complete([{"role": "user", "content": judge_prompt(q, response)}])
    verdict = completion.content.strip().lower()
    return verdict.startswith("yes"), completion.prompt_tokens + completion.completion_tokens


# ---- the run --------------------------------------------------------------------------------------------------


def evaluate(
    questions: Sequence[Question],
    *,
    file: str = "",
    config: ModelConfig | None = None,
    judge_config: ModelConfig | None = None,
    max_rounds: int = 4,
    k: int = 5,
    evidence_tokens: int | None = None,
    on_question: Callable[[int, int], None] | None = None,
    on_event: EventSink = ignore,
    client_factory: Callable[[ModelConfig], LLMClient] | None = None,
) -> EvalReport:
    """Run every question; haystacks shared by several questions (LoCoMo) are built once. ``on_event`` sees
    the agent's warnings and, once per model, the notice that chat text goes to a remote provider."""
    told: set[RemoteNotice] = set()
    evidence_tokens = evidence_tokens or EVIDENCE_TOKENS

    def sink(event: Event) -> None:
        if isinstance(event, RemoteNotice):
            if event in told:
                return
            told.add(event)
        on_event(event)

    judge_client = None
    if config is not None:
        if client_factory is None:
            from refind_cli.agent.llm import LLMClient

            client_factory = LLMClient
        judge_client = client_factory(judge_config or config)
    by_haystack: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_haystack[q.haystack.key].append(q)
    results: list[QuestionResult] = []
    for group in by_haystack.values():
        with tempfile.TemporaryDirectory(prefix="refind-eval-") as tmp:
            built = build(group[0].haystack, Path(tmp) / "home")
            try:
                for q in group:
                    budget = Budget(max_rounds=max_rounds, evidence_tokens=evidence_tokens)
                    results.append(_one(q, built, config, judge_client, budget, k, client_factory, sink))
                    if on_question:
                        on_question(len(results), len(questions))
            finally:
                built.archive.close()
    benchmark = questions[0].benchmark if questions else ""
    mode = config.model if config else "offline"
    return EvalReport(file, benchmark, mode, k, tuple(results), summarize(results), evidence_tokens)


def _one(
    q: Question,
    built: Built,
    config: ModelConfig | None,
    judge_client: LLMClient | None,
    budget: Budget,
    k: int,
    client_factory: Callable[[ModelConfig], LLMClient] | None,
    on_event: EventSink,
) -> QuestionResult:
    # The single-search baseline ranks by plain BM25: measured above session fusion on both dev sets
    # (bench/RESULTS.md, Agent), where one search of K turns rarely leaves the top sessions anyway.
    single = search(built.archive, built.index, SearchRequest(q.question, k=k, session_rank=False))
    hits = [(h.turn.session_id, [h.turn.id, *(w.turn.id for w in h.window)]) for h in single.hits]

    started = time.perf_counter()
    request = AskRequest(q.question, q.asked_at, UTC, config, budget=budget)
    result = ask(built.archive, built.index, request, on_event=on_event, client_factory=client_factory)
    seconds = time.perf_counter() - started
    note_turns = [t for n in result.notes for t in n.turn_ids]
    metrics = retrieval_metrics(q, built, hits, note_turns, [n.session_id for n in result.notes], k)
    metrics.update(answer_metrics(q, built, result))
    correct = None
    judge_tokens = 0
    if judge_client is not None:
        Notifier(on_event).before_call(judge_client)
        correct, judge_tokens = judge(judge_client, q, result.answer)
    return QuestionResult(
        qid=q.qid,
        benchmark=q.benchmark,
        category=q.category,
        abstention=q.abstention,
        metrics=metrics,
        evidence_tokens=estimate_tokens(evidence(result.notes, UTC)[0]) if result.notes else 0,
        notes=len(result.notes),
        searches=sum(1 for r in result.rounds if r.tool == "search_chat"),
        llm_tokens=result.usage.tokens,
        judge_tokens=judge_tokens,
        seconds=seconds,
        answer=result.answer,
        correct=correct,
    )


def _means(results: list[QuestionResult]) -> dict[str, Any]:
    keys = sorted({m for r in results for m in r.metrics})
    out: dict[str, Any] = {"questions": len(results)}
    for key in keys:
        values = [r.metrics[key] for r in results if key in r.metrics]
        out[key] = round(mean(values), 4)
        out[f"{key}_n"] = len(values)
    judged = [r.correct for r in results if r.correct is not None]
    if judged:
        out["accuracy"] = round(mean(judged), 4)
    if results:
        out["evidence_tokens"] = round(mean(r.evidence_tokens for r in results), 1)
        out["notes"] = round(mean(r.notes for r in results), 2)
        out["searches"] = round(mean(r.searches for r in results), 2)
        out["llm_tokens"] = round(mean(r.llm_tokens for r in results), 1)
        out["seconds"] = round(mean(r.seconds for r in results), 3)
    return out


def summarize(results: Iterable[QuestionResult]) -> dict[str, Any]:
    results = list(results)
    categories: dict[str, list[QuestionResult]] = defaultdict(list)
    for r in results:
        categories[r.category].append(r)
    return {
        "overall": _means(results),
        "by_category": {c: _means(rs) for c, rs in sorted(categories.items())},
    }
