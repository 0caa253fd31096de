"""Retrieval quality of one search (the question as the query, K=5, W=2) on LoCoMo and LongMemEval-S dev splits.

Each conversation (LoCoMo) or haystack (LongMemEval) becomes a throwaway archive through
``ingest.import_chat`` and an index through ``Index.sync``; every source session is one archive session
(passed as a thread, so the gap segmenter never merges two). Metrics:

- LoCoMo evidence recall: the share of a question's evidence turns (dia_ids) inside the returned windows,
  averaged over questions of categories 1-4 (malformed or unknown evidence ids skipped).
- LongMemEval session recall_any@5 / recall_all@5: whether any / all answer sessions are among the sessions
  of the 5 results; abstention questions (``_abs``) excluded.

Rows: flat BM25, + session fusion, + context windows (the default pipeline), the same windows ranked by plain
BM25 (`refind eval`'s single-search baseline), then the default with one lever changed: the full stop word
list, the speaker's name indexed with the text, exchange turns instead of bursts.

Usage: python bench/retrieval_eval.py [--locomo PATH] [--longmemeval PATH]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# ruff: noqa: E402  (the imports below need the path above)

from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_chat
from refind_cli.method.benchmarks import Question, load_questions
from refind_cli.method.evaluate import Built, retrieval_metrics
from refind_cli.method.search import search
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import FULL_STOPWORDS, LUCENE_STOPWORDS, Analyzer

ANALYZERS = {
    "lucene": Analyzer(LUCENE_STOPWORDS, name="lucene"),
    "full": Analyzer(FULL_STOPWORDS, name="full"),
}


@dataclass(frozen=True, slots=True)
class Config:
    name: str
    session_rank: bool = True
    window: int = 2
    stopwords: str = "full"
    speaker: bool = True
    pairing: str = "burst"

    @property
    def index_format(self) -> tuple[str, bool]:
        return self.stopwords, self.speaker


CONFIGS = (
    Config("flat BM25 (W=0)", session_rank=False, window=0),
    Config("+ session fusion (W=0)", window=0),
    Config("+ windows W=2 (default)"),
    Config("flat BM25, windows W=2 (eval)", session_rank=False),
    Config("default, Lucene 33 stop words", stopwords="lucene"),
    Config("default, speaker name not indexed", speaker=False),
    Config("default, exchange turns", pairing="exchange"),
)
K = 5


def _configs_by_archive() -> dict[str, dict[tuple[str, bool], list[Config]]]:
    """Configs grouped by the archive (pairing) and index (stop words, speaker) they need."""
    out: dict[str, dict[tuple[str, bool], list[Config]]] = defaultdict(lambda: defaultdict(list))
    for c in CONFIGS:
        out[c.pairing][c.index_format].append(c)
    return out


def _evaluate(work: Path, questions: list[Question], scores: dict[str, dict[str, list[float]]]) -> None:
    """Score every config on the questions of one haystack, each with the archive and index it needs."""
    haystack = questions[0].haystack
    for pairing, formats in _configs_by_archive().items():
        arch_home = work / pairing
        with Archive.open(arch_home) as arch:
            import_chat(arch, haystack.chat, haystack.messages, pairing=pairing)
            sources, threads = arch.turn_source_ids(), arch.session_threads()
            for (stopwords, speaker), configs in formats.items():
                index = Index.open(arch_home, analyzer=ANALYZERS[stopwords], speaker_in_text=speaker)
                index.sync(arch)
                built = Built(arch, index, sources, threads)
                for config in configs:
                    for q in questions:
                        res = search(
                            arch,
                            index,
                            SearchRequest(
                                q.question, k=K, window=config.window, session_rank=config.session_rank
                            ),
                        )
                        hits = [(h.turn.session_id, [w.turn.id for w in h.window]) for h in res.hits]
                        # The scoring `refind eval` reports, without the agent's notes.
                        for metric, value in retrieval_metrics(q, built, hits, (), (), K).items():
                            if metric.startswith("search"):
                                scores[config.name][metric].append(value)
                                scores[config.name][f"{metric} cat{q.category}"].append(value)
        shutil.rmtree(arch_home)


def run(path: Path, work: Path) -> dict[str, dict[str, float]]:
    """Mean of each metric per config, over the questions that count for it."""
    by_haystack: dict[str, list[Question]] = defaultdict(list)
    for q in load_questions(path):
        by_haystack[q.haystack.key].append(q)
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for n, questions in enumerate(by_haystack.values()):
        _evaluate(work / f"h{n}", questions, scores)
    return {
        name: {metric: sum(v) / len(v) for metric, v in metrics.items()}
        | {"n": len(next(iter(metrics.values())))}
        for name, metrics in scores.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--locomo", type=Path, default=REPO / "../shared/data/locomo_dev5.json")
    ap.add_argument("--longmemeval", type=Path, default=REPO / "../shared/data/longmemeval_s_dev60.jsonl.gz")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="refind-eval-"))
    try:
        t0 = time.perf_counter()
        lo = run(args.locomo, work)
        t1 = time.perf_counter()
        lme = run(args.longmemeval, work)
        t2 = time.perf_counter()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    n_lo = next(iter(lo.values()))["n"]
    n_lme = next(iter(lme.values()))["n"]
    print(f"One search per question, K={K}. LoCoMo dev5: {n_lo} questions (cat. 1-4, {t1 - t0:.0f} s);")
    print(f"LongMemEval-S dev60: {n_lme} questions (abstention excluded, {t2 - t1:.0f} s).\n")
    head = (
        f"| {'configuration':34s} | LoCoMo ev. recall | cat1 | cat2 | cat3 | cat4 "
        f"| LME recall_any@5 | LME recall_all@5 |"
    )
    print(head)
    print("|" + "|".join("-" * (len(part)) for part in head.split("|")[1:-1]) + "|")
    for c in CONFIGS:
        a, b = lo[c.name], lme[c.name]
        # A file without questions of some category (a small sample) shows a dash there.
        cats = " | ".join(
            f"{a[key]:.3f}" if (key := f"search_recall cat{n}") in a else "  -  " for n in (1, 2, 3, 4)
        )
        print(
            f"| {c.name:34s} | {a['search_recall']:17.3f} | {cats} "
            f"| {b[f'search_any@{K}']:16.3f} | {b[f'search_all@{K}']:16.3f} |"
        )


if __name__ == "__main__":
    main()
