"""The offline planner's choices by cross-validation over the dev conversations (issue 27).

Every haystack is built once (``evaluate.build``, the archive and index `refind eval` builds); each planner
configuration then runs on every question, searches shared between configurations answered from a cache
(a search depends on its request alone). Folds: LoCoMo dev5's five conversations, and LongMemEval-S dev60 in
five folds of twelve questions (two of each category). For each evidence budget, each fold's choice is the
configuration with the best mean of LoCoMo notes recall and LongMemEval notes recall_all on the other four
folds; the figures are those of the held-out fold, then their mean and spread. The default budget is the least
whose held-out means reach every target of issue 27 (``TARGETS``); beside it, the knees of cross-validated
recall against the budget (Kneedle: the budget farthest above the line from the cheapest to the dearest), of
the mean of the two recalls and of LoCoMo's alone. The one-search rows measure fusion against plain BM25 at
several K the same way, and a model's rounds through MCP.

Usage: python bench/recall_cv.py [--locomo PATH] [--longmemeval PATH] [--quick]
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import pickle
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, timedelta
from pathlib import Path
from statistics import mean

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# ruff: noqa: E402  (the imports below need the path above)

from refind_cli.agent import offline
from refind_cli.agent.answer import estimate_tokens, evidence
from refind_cli.agent.archive_ask import archive_search
from refind_cli.agent.events import Note
from refind_cli.agent.tools import Toolbox
from refind_cli.method.benchmarks import LOCOMO, Question, load_questions
from refind_cli.method.evaluate import Built, build, retrieval_metrics
from refind_cli.method.search import search
from refind_cli.method.search_tools import DEFAULT_TOP_K, Seen, search_request
from refind_cli.operations import AskRequest
from refind_cli.request import SearchRequest
from refind_cli.results import SearchResult
from refind_cli.text.analysis import question_analyzer

FOLDS = 5
# What issue 27 holds the planner to, held out: LoCoMo notes recall and its category 2, LongMemEval
# recall_all and its multi-session and temporal questions.
TARGETS = {"locomo": 0.88, "cat2": 0.88, "lme": 0.93, "multi": 0.88, "temporal": 0.88}
ROUNDS = 4
BUDGETS = (3000, 4000, 5000, 6000, 8000)


@dataclass(frozen=True, slots=True)
class Config:
    tuning: offline.Tuning
    topic: bool  # date words out of the note rule's terms

    @property
    def name(self) -> str:
        t = self.tuning
        return (
            f"B{t.evidence_tokens} k{t.first_k}/{t.later_k} w{t.window} s{t.block_share:g} "
            f"f{t.forward.days}{' close' if t.closeness else ''} {'topic' if self.topic else 'terms'}"
        )


# Round 1's blocks, window, days forward, time closeness (1: the timed round ranked by it).
SEARCHES = ((6, 4, 0, 0), (10, 4, 0, 0), (15, 4, 0, 0), (15, 4, 7, 0), (15, 4, 7, 1), (15, 4, 14, 1))
SHARES = (0.1, 0.2)


def search_of(text: str) -> tuple[int, int, int, int]:
    first_k, window, days, close = map(int, [*text.split(","), "0"][:4])
    return first_k, window, days, close


def grid(
    searches: Sequence[tuple[int, int, int, int]],
    budgets: Sequence[int],
    shares: Sequence[float] = SHARES,
    topics: Sequence[bool] = (True, False),
) -> list[Config]:
    """Every (round 1's blocks, window, days forward, closeness) of ``searches`` at every budget, block
    share and note rule."""
    out = []
    for (first_k, window, days, close), budget, share, topic in itertools.product(
        searches, budgets, shares, topics
    ):
        spend = offline.Tuning(budget, first_k, 5, window, share, timedelta(days=days), bool(close))
        out.append(Config(spend, topic))
    return out


@dataclass(frozen=True, slots=True)
class Score:
    fold: int
    benchmark: str
    category: str
    recall: float  # LoCoMo notes recall; LongMemEval notes recall_all
    tokens: int


def fold_of(q: Question, order: dict[str, int], haystacks: list[str]) -> int:
    """LoCoMo: the conversation; LongMemEval: the question's place among its category's, modulo the folds."""
    if q.benchmark == LOCOMO:
        return haystacks.index(q.haystack.key) % FOLDS
    return order[q.qid] % FOLDS


def cached(search_fn: Callable[[SearchRequest], SearchResult]) -> Callable[[SearchRequest], SearchResult]:
    memo: dict[SearchRequest, SearchResult] = {}

    def fn(request: SearchRequest) -> SearchResult:
        if request not in memo:
            memo[request] = search_fn(request)
        return memo[request]

    return fn


def plan(q: Question, built: Built) -> offline.Plan:
    analyzer = question_analyzer(q.question, sorted(set(built.archive.chat_languages().values())))
    return offline.plan(q.question, now=q.asked_at, tz=UTC, span=built.archive.time_span(), analyzer=analyzer)


def run_planner(
    q: Question,
    built: Built,
    search_fn: Callable[[SearchRequest], SearchResult],
    p: offline.Plan,
    config: Config,
) -> list[Note]:
    if not config.topic:
        p = replace(p, topic=frozenset())
    box = Toolbox(search_fn, q.asked_at, UTC, ROUNDS, doc_freq=built.index.doc_freq)
    offline.run_planner(p, box, config.tuning)
    return box.notes


def note_metrics(q: Question, built: Built, notes: Sequence[Note]) -> tuple[float | None, int]:
    turns = [t for n in notes for t in n.turn_ids]
    m = retrieval_metrics(q, built, [], turns, [n.session_id for n in notes], 5)
    value = m.get("notes_recall", m.get("notes_all"))
    return value, estimate_tokens(evidence(notes, UTC)[0]) if notes else 0


def one_search(q: Question, built: Built, k: int, fused: bool) -> tuple[float | None, int]:
    """One search of the question, its hits (windows of 2) as notes."""
    res = search(built.archive, built.index, SearchRequest(q.question, k=k, session_rank=fused))
    notes = [
        Note(h.turn.session_id, h.turn.id, h.chat, tuple(w.turn for w in h.window) or (h.turn,), "")
        for h in res.hits
    ]
    return note_metrics(q, built, notes)


def rounds(
    q: Question,
    built: Built,
    search_fn: Callable[[SearchRequest], SearchResult],
    p: offline.Plan,
    fused: bool,
) -> tuple[float | None, int]:
    """A model searching through MCP in rounds: ``search_chat`` as MCP serves it (K = 5, windows of 2), the
    question's words ``ROUNDS - 1`` times, each skipping the sessions shown before (as one connection
    does); every block as a note."""
    seen = Seen()
    notes = []
    for _ in range(ROUNDS - 1):
        args = {"keywords": " ".join(p.keywords), "top_k": DEFAULT_TOP_K}
        res = search_fn(search_request(args, None, None, chats=None, exclude=seen, session_rank=fused))
        seen.add(res)
        notes += [
            Note(h.turn.session_id, h.turn.id, h.chat, tuple(w.turn for w in h.window) or (h.turn,), "")
            for h in res.hits
        ]
    return note_metrics(q, built, notes)


def measure(
    questions: list[Question], configs: list[Config], folds: dict[str, int], work: Path
) -> tuple[dict[str, list[Score]], dict[str, list[Score]]]:
    planner: dict[str, list[Score]] = defaultdict(list)
    single: dict[str, list[Score]] = defaultdict(list)
    by_haystack: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_haystack[q.haystack.key].append(q)
    for n, group in enumerate(by_haystack.values()):
        built = build(group[0].haystack, work / f"h{n}")
        try:
            search_fn = cached(archive_search(built.archive, built.index))
            for q in group:
                for k, fused in itertools.product((5, 10, 20, 30), (True, False)):
                    value, tokens = one_search(q, built, k, fused)
                    if value is not None:
                        name = f"one search K={k} {'fused' if fused else 'plain BM25'}"
                        single[name].append(Score(folds[q.qid], q.benchmark, q.category, value, tokens))
                p = plan(q, built)
                for fused in (True, False):
                    value, tokens = rounds(q, built, search_fn, p, fused)
                    if value is not None:
                        name = f"MCP, {ROUNDS - 1} rounds K=5 {'fused' if fused else 'plain BM25'}"
                        single[name].append(Score(folds[q.qid], q.benchmark, q.category, value, tokens))
                for config in configs:
                    value, tokens = note_metrics(q, built, run_planner(q, built, search_fn, p, config))
                    if value is not None:
                        planner[config.name].append(
                            Score(folds[q.qid], q.benchmark, q.category, value, tokens)
                        )
        finally:
            built.archive.close()
    return planner, single


def timing(
    questions: list[Question], work: Path, repeats: int, profile: cProfile.Profile | None = None
) -> None:
    """The default planner, searches not cached, a question: CPU time of ``ask`` whole (plan, rounds and
    the extractive answer) and of the planner alone (plan and rounds), the least of ``repeats`` runs of each
    question, and ``ask``'s wall time. CPU time holds on a shared machine where the wall clock does not.
    With ``profile``, the last run of each ``ask`` is profiled (after the timed ones)."""
    from refind_cli.agent import ask

    cpu: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    planner: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    wall: dict[str, list[float]] = defaultdict(list)
    by_haystack: dict[str, list[Question]] = defaultdict(list)
    for q in questions:
        by_haystack[q.haystack.key].append(q)
    for n, group in enumerate(by_haystack.values()):
        built = build(group[0].haystack, work / f"t{n}")
        search_fn = archive_search(built.archive, built.index)
        try:
            for _ in range(repeats):
                for q in group:
                    c0, w0 = time.process_time(), time.perf_counter()
                    ask(built.archive, built.index, AskRequest(q.question, q.asked_at, UTC))
                    c1 = time.process_time()
                    wall[q.benchmark].append(time.perf_counter() - w0)
                    box = Toolbox(search_fn, q.asked_at, UTC, ROUNDS, doc_freq=built.index.doc_freq)
                    offline.run_planner(plan(q, built), box)
                    cpu[q.benchmark][q.qid].append(c1 - c0)
                    planner[q.benchmark][q.qid].append(time.process_time() - c1)
            if profile is not None:
                for q in group:
                    profile.runcall(ask, built.archive, built.index, AskRequest(q.question, q.asked_at, UTC))
        finally:
            built.archive.close()
    for benchmark in cpu:
        least = mean(min(times) for times in cpu[benchmark].values())
        alone = mean(min(times) for times in planner[benchmark].values())
        print(
            f"{benchmark}: {len(cpu[benchmark])} questions, CPU a question: ask {least * 1000:.1f} ms, the planner"
            f" alone {alone * 1000:.1f} ms (the least of {repeats}); ask's wall {mean(wall[benchmark]) * 1000:.1f} ms"
        )


def figures(scores: Iterable[Score]) -> dict[str, float]:
    """LoCoMo recall (and category 2), LongMemEval recall_all (multi-session, temporal), tokens of each."""
    scores = list(scores)
    lo = [s for s in scores if s.benchmark == LOCOMO]
    lme = [s for s in scores if s.benchmark != LOCOMO]

    def avg(xs: list[Score], f: Callable[[Score], float]) -> float:
        return mean(map(f, xs)) if xs else float("nan")

    return {
        "locomo": avg(lo, lambda s: s.recall),
        "cat2": avg([s for s in lo if s.category == "2"], lambda s: s.recall),
        "lo_tokens": avg(lo, lambda s: s.tokens),
        "lme": avg(lme, lambda s: s.recall),
        "multi": avg([s for s in lme if s.category == "multi-session"], lambda s: s.recall),
        "temporal": avg([s for s in lme if s.category == "temporal-reasoning"], lambda s: s.recall),
        "lme_tokens": avg(lme, lambda s: s.tokens),
    }


def objective(scores: list[Score]) -> float:
    f = figures(scores)
    return (f["locomo"] + f["lme"]) / 2


def cross_validate(candidates: dict[str, list[Score]]) -> tuple[list[dict[str, float]], list[str]]:
    """Per held-out fold: the figures of the candidate best on the other folds, and its name."""
    held, chosen = [], []
    for fold in range(FOLDS):
        best = max(candidates, key=lambda name: objective([s for s in candidates[name] if s.fold != fold]))
        held.append(figures(s for s in candidates[best] if s.fold == fold))
        chosen.append(best)
    return held, chosen


def spread(values: list[float]) -> str:
    return f"{mean(values):.3f} ({min(values):.3f}-{max(values):.3f})"


KEYS = ("locomo", "cat2", "lo_tokens", "lme", "multi", "temporal", "lme_tokens")
HEAD = "| | LoCoMo notes recall | cat 2 | LoCoMo tokens | LME recall_all | multi-session | temporal | LME tokens |"


def row(name: str, held: list[dict[str, float]]) -> str:
    cells = []
    for key in KEYS:
        values = [h[key] for h in held]
        cells.append(f"{mean(values):,.0f}" if key.endswith("tokens") else spread(values))
    return f"| {name} | " + " | ".join(cells) + " |"


def knee(points: list[tuple[float, float]]) -> int:
    """Kneedle: the index of the point farthest above the chord from the first point to the last."""
    (x0, y0), (x1, y1) = points[0], points[-1]
    if x1 == x0 or y1 == y0:
        return len(points) - 1

    def lift(p: tuple[float, float]) -> float:
        return (p[1] - y0) / (y1 - y0) - (p[0] - x0) / (x1 - x0)

    return max(range(len(points)), key=lambda i: lift(points[i]))


RULES: dict[str, Callable[[Config], bool]] = {
    "date words out of the note rule": lambda c: c.topic,
    "time filter reaching 7-14 days forward": lambda c: c.tuning.forward > timedelta(0),
    "the timed round ranked by time closeness": lambda c: c.tuning.closeness,
    "round 1 of 10-15 blocks (not 6)": lambda c: c.tuning.first_k > 6,
    "blocks of 4 turns each side (not 3)": lambda c: c.tuning.window == 4,
    "a block up to 0.2 of the budget (not 0.1)": lambda c: c.tuning.block_share > 0.1,
}


def ablations(configs: list[Config], planner: dict[str, list[Score]], budget: int) -> None:
    """Each rule on held-out folds: the best configuration with it against the best without (each chosen
    on the other folds), at ``budget``. A rule worth keeping helps held-out folds, not only one."""
    print(
        f"Rules at budget {budget:,}, held-out fold by fold: with the rule minus without (LoCoMo; LME all)\n"
    )
    print("| rule | " + " | ".join(f"fold {f + 1}" for f in range(FOLDS)) + " | mean |")
    print("|---" * (FOLDS + 2) + "|")
    at = [c for c in configs if c.tuning.evidence_tokens == budget]
    for rule, holds in RULES.items():
        sides = []
        for value in (True, False):
            candidates = {c.name: planner[c.name] for c in at if holds(c) == value}
            sides.append(cross_validate(candidates)[0] if candidates else None)
        with_rule, without = sides
        if with_rule is None or without is None:
            continue
        cells = [
            f"{a['locomo'] - b['locomo']:+.3f}; {a['lme'] - b['lme']:+.3f}"
            for a, b in zip(with_rule, without, strict=True)
        ]
        lo = mean(a["locomo"] - b["locomo"] for a, b in zip(with_rule, without, strict=True))
        lme = mean(a["lme"] - b["lme"] for a, b in zip(with_rule, without, strict=True))
        print(f"| {rule} | " + " | ".join(cells) + f" | {lo:+.3f}; {lme:+.3f} |")
    print()


def paired(configs: list[Config], planner: dict[str, list[Score]]) -> None:
    """The time rules against the same configuration without them, fold by fold (no choice made): the
    closeness ranking against the reach alone and against no reach."""
    names = {c.name for c in configs}
    print("Time rules by fold, against the same configuration without them (LoCoMo; LME all)\n")
    for c in configs:
        if not c.tuning.closeness:
            continue
        for other, label in (
            (replace(c.tuning, closeness=False), "the reach alone"),
            (replace(c.tuning, closeness=False, forward=timedelta(0)), "no reach"),
        ):
            base = Config(other, c.topic).name
            if base not in names:
                continue
            cells = []
            for fold in range(FOLDS):
                a = figures(s for s in planner[c.name] if s.fold == fold)
                b = figures(s for s in planner[base] if s.fold == fold)
                cells.append(f"{a['locomo'] - b['locomo']:+.3f}; {a['lme'] - b['lme']:+.3f}")
            print(f"- {c.name} minus {label}: " + ", ".join(cells))
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--locomo", type=Path, default=REPO / "../shared/data/locomo_dev5.json")
    ap.add_argument("--longmemeval", type=Path, default=REPO / "../shared/data/longmemeval_s_dev60.jsonl.gz")
    ap.add_argument("--quick", action="store_true", help="one search configuration only")
    ap.add_argument("--budgets", type=int, nargs="+", default=BUDGETS, help="evidence budgets to measure")
    ap.add_argument(
        "--searches", nargs="+", help="round 1's blocks, window, days forward, closeness: 15,4,0,0 ..."
    )
    ap.add_argument("--shares", type=float, nargs="+", default=SHARES, help="a block's largest shares")
    ap.add_argument("--date-words-out", action="store_true", help="only the note rule without date words")
    ap.add_argument("--time", action="store_true", help="only time the default planner, uncached")
    ap.add_argument("--repeats", type=int, default=1, help="--time: runs of each question (the least counts)")
    ap.add_argument("--only", choices=("locomo", "longmemeval"), help="--time: one benchmark's questions")
    ap.add_argument(
        "--profile", action="store_true", help="--time: cProfile each ask once more, print the top"
    )
    ap.add_argument("--save", type=Path, help="keep the scores in this file (pickle)")
    ap.add_argument("--load", type=Path, help="print the figures of scores kept by --save, measuring nothing")
    args = ap.parse_args()
    questions = [
        *(load_questions(args.locomo) if args.only != "longmemeval" else []),
        *(load_questions(args.longmemeval) if args.only != "locomo" else []),
    ]
    haystacks = list(dict.fromkeys(q.haystack.key for q in questions if q.benchmark == LOCOMO))
    order: dict[str, int] = {}
    seen: dict[str, int] = defaultdict(int)
    for q in questions:
        order[q.qid] = seen[q.category]
        seen[q.category] += 1
    folds = {q.qid: fold_of(q, order, haystacks) for q in questions}
    if args.time:
        with tempfile.TemporaryDirectory(prefix="refind-cv-") as tmp:
            profile = cProfile.Profile() if args.profile else None
            timing(questions, Path(tmp), args.repeats, profile)
            if profile is not None:
                pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
        return
    searches = [search_of(s) for s in args.searches] if args.searches else SEARCHES
    topics = (True,) if args.date_words_out else (True, False)
    configs = grid(searches[1:2] if args.quick else searches, args.budgets, args.shares, topics)
    t0 = time.perf_counter()
    if args.load:
        planner, single = pickle.loads(args.load.read_bytes())
    else:
        with tempfile.TemporaryDirectory(prefix="refind-cv-") as tmp:
            planner, single = measure(questions, configs, folds, Path(tmp))
        if args.save:
            args.save.write_bytes(pickle.dumps((dict(planner), dict(single))))
    print(f"{len(configs)} planner configurations, {time.perf_counter() - t0:.0f} s (searches cached)\n")

    print("Each budget, cross-validated: per fold the configuration best on the other four; mean (min-max)")
    print("of the held-out folds.\n")
    print(HEAD)
    print("|---" * 8 + "|")
    curve = []
    reaching: list[int] = []
    locomo: list[tuple[float, float]] = []
    for budget in args.budgets:
        candidates = {c.name: planner[c.name] for c in configs if c.tuning.evidence_tokens == budget}
        held, chosen = cross_validate(candidates)
        print(row(f"budget {budget:,}", held))
        curve.append((budget, mean((h["locomo"] + h["lme"]) / 2 for h in held), chosen))
        means = {key: mean(h[key] for h in held) for key in TARGETS}
        if all(means[key] >= least for key, least in TARGETS.items()):
            reaching.append(budget)
        locomo.append((budget, means["locomo"]))
    print()
    best = knee([(b, r) for b, r, _ in curve])
    print(
        f"knee of cross-validated recall (mean of LoCoMo and LME all) against the budget: {curve[best][0]:,};"
        f" of LoCoMo's alone: {locomo[knee(locomo)][0]:,}"
    )
    targets = ", ".join(f"{key} >= {least}" for key, least in TARGETS.items())
    print(f"least budget whose held-out means reach every target ({targets}): {min(reaching, default=None)}")
    for budget, _, chosen in curve:
        print(f"  budget {budget:,}: chosen per fold: {'; '.join(chosen)}")
    print()

    ablations(configs, planner, args.budgets[best])
    paired(configs, planner)
    print("Every configuration on all folds (no choice made): mean over questions\n")
    print("| configuration | LoCoMo | cat 2 | tokens | LME all | multi | temporal | LME tokens |")
    print("|---" * 8 + "|")
    for c in configs:
        f = figures(planner[c.name])
        print(
            f"| {c.name} | {f['locomo']:.3f} | {f['cat2']:.3f} | {f['lo_tokens']:,.0f} | {f['lme']:.3f} | "
            f"{f['multi']:.3f} | {f['temporal']:.3f} | {f['lme_tokens']:,.0f} |"
        )
    print()
    print("One search (windows of 2), by fold: mean (min-max)\n")
    print(HEAD)
    print("|---" * 8 + "|")
    for name, scores in single.items():
        print(row(name, [figures(s for s in scores if s.fold == fold) for fold in range(FOLDS)]))
    print()
    print("Plain BM25 minus session fusion, fold by fold (LoCoMo; LME all)\n")
    for k in ("5", "10", "20", "30", f"5, {ROUNDS - 1} rounds"):
        kind = f"MCP, {ROUNDS - 1} rounds K=5" if "rounds" in k else f"one search K={k}"
        if f"{kind} fused" not in single:
            continue
        plain, fused = single[f"{kind} plain BM25"], single[f"{kind} fused"]
        cells = []
        for fold in range(FOLDS):
            a = figures(s for s in plain if s.fold == fold)
            b = figures(s for s in fused if s.fold == fold)
            cells.append(f"{a['locomo'] - b['locomo']:+.3f}; {a['lme'] - b['lme']:+.3f}")
        print(f"- K={k}: " + ", ".join(cells))
    print()
    points = []
    for size in (5, 10, 20, 30):
        one = figures(single[f"one search K={size} plain BM25"])
        points.append((one["lo_tokens"], one["locomo"]))
    print(f"knee of one search's LoCoMo recall against its tokens: K={(5, 10, 20, 30)[knee(points)]}")


if __name__ == "__main__":
    main()
