"""Retrieval quality of one search (the question as the query, K=5, W=2) on LoCoMo and LongMemEval-S dev splits.

Each conversation (LoCoMo) or haystack (LongMemEval) becomes a throwaway archive through
``ingest.import_chat`` and an index through ``Index.sync``; every source session is one archive session
(passed as a thread, so the gap segmenter never merges two). Metrics:

- LoCoMo evidence recall: the share of a question's evidence turns (dia_ids) inside the returned windows,
  averaged over questions of categories 1-4 (malformed or unknown evidence ids skipped).
- LongMemEval session recall_any@5 / recall_all@5: whether any / all answer sessions are among the sessions
  of the 5 results; abstention questions (``_abs``) excluded.

Rows: flat BM25, + session fusion, + context windows (the default pipeline), then the default with one lever
changed: the full stop word list, the speaker's name indexed with the text, exchange turns instead of bursts.

Usage: python bench/retrieval_eval.py [--locomo PATH] [--longmemeval PATH]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# ruff: noqa: E402  (the imports below need the path above)

from refind_cli.analysis import FULL_STOPWORDS, LUCENE_STOPWORDS, Analyzer
from refind_cli.archive import Archive
from refind_cli.index import Index
from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Message, Turn
from refind_cli.search import search

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


def _evaluate(
    home: Path,
    messages: list[Message],
    questions: Iterable[str],
    score: callable,  # (config, archive, hits) -> None
) -> None:
    questions = list(questions)
    for pairing, formats in _configs_by_archive().items():
        arch_home = home / pairing
        with Archive.open(arch_home) as arch:
            import_chat(arch, Chat("eval", "c", "eval"), messages, pairing=pairing)
            for (stopwords, speaker), configs in formats.items():
                index = Index.open(arch_home, analyzer=ANALYZERS[stopwords], speaker_in_text=speaker)
                index.sync(arch)
                for config in configs:
                    for qi, q in enumerate(questions):
                        res = search(
                            arch, index, q, k=K, window=config.window, session_rank=config.session_rank
                        )
                        score(config, arch, qi, res.hits)
        shutil.rmtree(arch_home)


# -- LoCoMo -------------------------------------------------------------------------------------------------


def locomo(path: Path, work: Path) -> dict[str, dict[str, float]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    recall: dict[str, list[float]] = defaultdict(list)
    by_cat: dict[tuple[str, int], list[float]] = defaultdict(list)
    for conv_no, conv in enumerate(data):
        c = conv["conversation"]
        messages = []
        n = 1
        while f"session_{n}" in c:
            start = datetime.strptime(c[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y").replace(
                tzinfo=UTC
            )
            for i, turn in enumerate(c[f"session_{n}"]):
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [shares an image: {turn['blip_caption']}]"
                messages.append(
                    Message(
                        start + timedelta(minutes=i),
                        turn["speaker"],
                        text,
                        source_id=turn["dia_id"],
                        thread=f"session_{n}",
                    )
                )
            n += 1
        known = {m.source_id for m in messages}
        qas = []
        for qa in conv["qa"]:
            evidence = [e for e in qa.get("evidence", []) if e in known]
            if qa["category"] in (1, 2, 3, 4) and evidence:
                qas.append((qa["question"], set(evidence), qa["category"]))

        def score(config: Config, arch: Archive, qi: int, hits: tuple, qas: list = qas) -> None:
            found: set[str] = set()
            for h in hits:
                for w in h.window:
                    found |= _dia_ids(arch, w.turn)
            _, evidence, cat = qas[qi]
            r = len(evidence & found) / len(evidence)
            recall[config.name].append(r)
            by_cat[(config.name, cat)].append(r)

        _evaluate(work / f"locomo{conv_no}", messages, (q for q, _, _ in qas), score)
        _DIA_CACHE.clear()
    out = {name: {"all": _mean(v), "n": len(v)} for name, v in recall.items()}
    for (name, cat), v in by_cat.items():
        out[name][f"cat{cat}"] = _mean(v)
    return out


_DIA_CACHE: dict[tuple[int, str], set[str]] = {}


def _dia_ids(arch: Archive, turn: Turn) -> set[str]:
    """The LoCoMo dia_ids (stored as the messages' source ids) of the messages a turn is made of."""
    key = (id(arch), turn.id)
    if key not in _DIA_CACHE:
        row = arch.db.execute(
            "SELECT message_seqs FROM turns WHERE session_seq = ? AND ordinal = ?",
            (turn.session_seq, turn.ordinal),
        ).fetchone()
        seqs = [int(s) for s in row[0].split(",")]
        marks = ",".join("?" * len(seqs))
        _DIA_CACHE[key] = {
            r[0] for r in arch.db.execute(f"SELECT source_id FROM messages WHERE seq IN ({marks})", seqs)
        }
    return _DIA_CACHE[key]


# -- LongMemEval ------------------------------------------------------------------------------------------


def longmemeval(path: Path, work: Path) -> dict[str, dict[str, float]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        items = [json.loads(line) for line in fh]
    items = [it for it in items if not it["question_id"].endswith("_abs")]
    any_hit: dict[str, list[float]] = defaultdict(list)
    all_hit: dict[str, list[float]] = defaultdict(list)
    for item_no, item in enumerate(items):
        messages = []
        for sid, date, turns in zip(
            item["haystack_session_ids"], item["haystack_dates"], item["haystack_sessions"], strict=True
        ):
            start = datetime.strptime(date, "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC)
            for i, t in enumerate(turns):
                messages.append(Message(start + timedelta(minutes=i), t["role"], t["content"], thread=sid))
        answers = set(item["answer_session_ids"])

        def score(config: Config, arch: Archive, qi: int, hits: tuple, answers: set = answers) -> None:
            got = set()
            for h in hits:
                row = arch.db.execute(
                    "SELECT thread FROM sessions WHERE id = ?", (h.turn.session_id,)
                ).fetchone()
                got.add(row[0])
            any_hit[config.name].append(float(bool(answers & got)))
            all_hit[config.name].append(float(answers <= got))

        _evaluate(work / f"lme{item_no}", messages, [item["question"]], score)
    return {
        name: {
            "recall_any@5": _mean(any_hit[name]),
            "recall_all@5": _mean(all_hit[name]),
            "n": len(any_hit[name]),
        }
        for name in any_hit
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--locomo", type=Path, default=REPO / "../shared/data/locomo_dev5.json")
    ap.add_argument("--longmemeval", type=Path, default=REPO / "../shared/data/longmemeval_s_dev60.jsonl.gz")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="refind-eval-"))
    try:
        t0 = time.perf_counter()
        lo = locomo(args.locomo, work)
        t1 = time.perf_counter()
        lme = longmemeval(args.longmemeval, work)
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
        print(
            f"| {c.name:34s} | {a['all']:17.3f} | {a['cat1']:.3f} | {a['cat2']:.3f} | {a['cat3']:.3f} "
            f"| {a['cat4']:.3f} | {b['recall_any@5']:16.3f} | {b['recall_all@5']:16.3f} |"
        )


if __name__ == "__main__":
    main()
