"""The offline extractive answer's rules and constants by cross-validation over the five LoCoMo dev
conversations (issue 23), as ``recall_cv.py`` chooses the planner's.

Each question is asked once through ``ask`` (offline: the planner's notes, as `refind ask` takes them); the
notes are kept and every scoring of ``agent/extractive.py`` (a ``Scoring``) reads the same notes. Folds: the
five conversations. For each held-out conversation the scoring chosen is the one with the best mean of
``answer_evidence`` (a) and ``top3_evidence`` (b) on the other four; the figures are the held-out
conversation's, then their mean and spread. Each rule is measured the same way: the best scoring with it
against the best without, each chosen on the other folds. LongMemEval dev60 is not tuned on: it is measured
with each fold's choice, to check it holds.

Metrics (``evaluate.answer_metrics``): (a) the direct answer line quotes a gold evidence turn; (b) one of the
first three quotes does; (c) for a "when" question whose gold answer is a date, the direct answer's date lies
in it. Only the gold evidence ids and the gold date of (c) are read, as ``refind eval`` reads them.

Usage: python bench/answer_cv.py [--locomo PATH] [--longmemeval PATH] [--notes FILE]
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from statistics import mean

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# ruff: noqa: E402  (the imports below need the path above)

from refind_cli.agent import extractive
from refind_cli.agent import offline as planner
from refind_cli.agent.archive_ask import ask
from refind_cli.agent.events import Note
from refind_cli.method.benchmarks import LOCOMO, Question, load_questions
from refind_cli.method.evaluate import answer_metrics, build, date_matches, evidence_turn, gold_span
from refind_cli.request import AskRequest
from refind_cli.text.analysis import Analyzer, question_analyzer

FOLDS = 5


@dataclass(frozen=True, slots=True)
class Asked:
    """One question asked once: its notes and what the metrics need of its gold."""

    qid: str
    benchmark: str
    category: str
    fold: int
    question: str
    terms: frozenset[str]
    lang: str
    notes: tuple[Note, ...]
    doc_freq: dict[str, int]
    gold_turns: frozenset[str]  # LoCoMo: evidence turns; LongMemEval: turns of answer sessions
    gold_span: tuple[datetime, datetime] | None
    check: dict[str, float]  # the metrics of ``ask``'s own answer: the default scoring must give the same


def collect(questions: list[Question], work: Path) -> list[Asked]:
    haystacks = list(dict.fromkeys(q.haystack.key for q in questions))
    by_haystack: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_haystack[q.haystack.key].append(q)
    out = []
    for n, (key, group) in enumerate(by_haystack.items()):
        built = build(group[0].haystack, work / f"h{n}")
        try:
            langs = sorted(set(built.archive.chat_languages().values()))
            for i, q in enumerate(group):
                result = ask(built.archive, built.index, AskRequest(q.question, q.asked_at, UTC))
                check = answer_metrics(q, built, result)
                if not check:
                    continue
                analyzer = question_analyzer(q.question, langs)
                plan = planner.plan(
                    q.question, now=q.asked_at, tz=UTC, span=built.archive.time_span(), analyzer=analyzer
                )
                gold = evidence_turn(q, built)
                turns = {t.id: t.session_id for note in result.notes for t in note.turns}
                span = gold_span(q.answer, q.asked_at)
                out.append(
                    Asked(
                        q.qid,
                        q.benchmark,
                        q.category,
                        haystacks.index(key) % FOLDS if q.benchmark == LOCOMO else i % FOLDS,
                        q.question,
                        plan.terms,
                        analyzer.lang,
                        result.notes,
                        {t: built.index.doc_freq(t) for t in plan.terms},
                        frozenset(t for t, s in turns.items() if gold(t, s)),
                        span,
                        check,
                    )
                )
        finally:
            built.archive.close()
    return out


def metrics(a: Asked, scoring: extractive.Scoring, analyzers: Callable[[str], Analyzer]) -> dict[str, float]:
    found = extractive.extract(
        a.question,
        a.terms,
        a.notes,
        tz=UTC,
        analyzer=analyzers(a.lang),
        doc_freq=a.doc_freq.__getitem__,
        scoring=scoring,
    )
    _, citations, direct = extractive.extractive_answer(found, tz=UTC)
    cited = [c.turn_id in a.gold_turns for c in citations]
    out = {"a": float(any(cited[:1])), "b": float(any(cited[:3]))}
    if direct is not None and direct.kind == extractive.WHEN and a.gold_span is not None:
        named = (direct.start, direct.end) if direct.start and direct.end else None
        out["c"] = float(named is not None and date_matches(named, a.gold_span))
    return out


def load(args: argparse.Namespace) -> list[Asked]:
    """The questions asked once, from ``--notes`` when it holds them (saved by an earlier run)."""
    if args.notes and args.notes.exists():
        asked: list[Asked] = pickle.loads(args.notes.read_bytes())
        return asked
    questions = [q for q in load_questions(args.locomo) if q.category in ("1", "2", "3", "4")]
    questions += load_questions(args.longmemeval)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="refind-answer-cv-") as tmp:
        asked = collect(questions, Path(tmp))
    print(f"{len(asked)} questions asked in {time.perf_counter() - t0:.0f} s\n")
    if args.notes:
        args.notes.write_bytes(pickle.dumps(asked))
    return asked
