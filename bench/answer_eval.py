"""The offline extractive answer on the dev sets, per category, on the conversations its rules were chosen
on and on the others: ``answer_evidence`` (the direct answer line quotes a gold evidence turn),
``top3_evidence`` (one of the first three quotes does) and ``when_date`` (a "when" question whose gold answer
is a date: the direct answer's date lies in it), as ``refind eval`` measures them (``evaluate``). Beside
them, as the peer of the same run, what the notes hold: ``notes_recall`` (LoCoMo: the share of a question's
evidence turns in the notes) or ``notes_any`` (LongMemEval: an answer session is noted), which bound what
any choice among the notes can quote.

The rules and weights of ``agent/extractive.py`` are chosen by cross-validation over the five LoCoMo dev
conversations (``bench/answer_cv.py``, which prints the held-out figures); the figures here are those of the
chosen defaults on every dev question, the way ``refind eval`` runs them. LongMemEval was not tuned on.

Usage: python bench/answer_eval.py [--locomo PATH] [--longmemeval PATH]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from statistics import mean

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
# ruff: noqa: E402  (the imports below need the path above)

from refind_cli.method.benchmarks import load_questions
from refind_cli.method.evaluate import evaluate

METRICS = ("answer_evidence", "top3_evidence", "when_date", "notes_recall", "notes_any")


def report(name: str, path: Path) -> None:
    results = evaluate(load_questions(path), max_rounds=4).results
    by_cat: dict[str, list] = defaultdict(list)
    for r in results:
        if "answer_evidence" in r.metrics:
            by_cat[r.category].append(r)
            by_cat["all"].append(r)
    for cat, rs in sorted(by_cat.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        cells = []
        for m in METRICS:
            values = [r.metrics[m] for r in rs if m in r.metrics]
            if values:
                cells.append(f"{m}={mean(values):.3f} (n={len(values)})")
        print(f"{name} · {cat}: " + "  ".join(cells))


def main() -> None:
    data = REPO.parent / "shared" / "data"
    parser = argparse.ArgumentParser()
    parser.add_argument("--locomo", type=Path, default=data / "locomo_dev5.json")
    parser.add_argument("--longmemeval", type=Path, default=data / "longmemeval_s_dev60.jsonl.gz")
    args = parser.parse_args()
    report("LoCoMo", args.locomo)
    report("LongMemEval", args.longmemeval)


if __name__ == "__main__":
    main()
