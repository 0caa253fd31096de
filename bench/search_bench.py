"""Search latency on a large synthetic archive: refind's full pipeline beside SQLite FTS5, plus a cold CLI call.

The corpus is built through the real code path: messages -> ingest.import_chat (archive, sessions, turns)
-> Index.sync (analysis + tantivy). FTS5 indexes the very same analysed token streams (unicode61 over our
space-joined Porter terms, contentless, detail=full) with a side table of (session, time, ordinal).

Both pipelines do the same work per query: score every matching turn, sum BM25 per session, fuse ranks
1/(60+r1)+1/(60+r2), take the top 5 and read their +-2 turn windows from the archive. FTS5 sums sessions in
SQL over a MATERIALIZED CTE (bm25() cannot be used under GROUP BY or OVER directly).

Usage: python bench/search_bench.py [--turns 1000000] [--queries 200] [--seed 7] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from refind_cli.index import INDEXED_CHARS
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_chat
from refind_cli.method.search import search
from refind_cli.records import Chat, Message
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive
from refind_cli.storage.database import session_id_text
from refind_cli.text.analysis import DEFAULT_ANALYZER, FULL_STOPWORDS

START = datetime(2024, 1, 1, tzinfo=UTC)
SPAN = timedelta(days=730)
TURNS_PER_SESSION = 20
SESSIONS_PER_CHAT = 1000
VOCAB = 50_000
FUNCTION_SHARE = 0.35  # share of running words that are function (stop) words, as in English chat
TOPIC_SHARE = 0.30  # share of content words drawn from the session's own 30-word topic
_SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou", "ee")]
_ENDINGS = ["", "", "", "s", "ed", "ing", "er", "ly", "tion", "ness"]


def vocabulary(rng: np.random.Generator) -> list[str]:
    """Pronounceable pseudo-words, some with English suffixes so that stemming has work to do."""
    words: dict[str, None] = {}
    while len(words) < VOCAB:
        n = int(rng.integers(1, 4))
        stem = "".join(_SYLLABLES[i] for i in rng.integers(0, len(_SYLLABLES), n))
        words[stem + _ENDINGS[int(rng.integers(0, len(_ENDINGS)))]] = None
    return list(words)


def zipf(n: int, a: float = 1.0) -> np.ndarray:
    p: np.ndarray = 1.0 / np.power(np.arange(1, n + 1) + 2.7, a)
    weights: np.ndarray = p / p.sum()
    return weights


def corpus(n_turns: int, seed: int) -> Iterator[tuple[Chat, list[Message]]]:
    """Chats of 1,000 sessions of 20 alternating messages (one message = one turn) over two years."""
    rng = np.random.default_rng(seed)
    vocab = np.array(vocabulary(rng), dtype=object)
    function = np.array(
        sorted(FULL_STOPWORDS - {"s", "t", "d", "ll", "m", "o", "re", "ve", "y"}), dtype=object
    )
    p_vocab, p_function = zipf(len(vocab)), zipf(len(function), 0.8)
    n_sessions = max(1, n_turns // TURNS_PER_SESSION)
    for chat_no, first in enumerate(range(0, n_sessions, SESSIONS_PER_CHAT), start=1):
        count = min(SESSIONS_PER_CHAT, n_sessions - first)
        n_msgs = count * TURNS_PER_SESSION
        lengths = rng.integers(6, 27, n_msgs)
        total = int(lengths.sum())
        session_of_word = np.repeat(np.repeat(np.arange(count), TURNS_PER_SESSION), lengths)
        topics = rng.integers(100, 20_000, (count, 30))
        words = np.where(
            rng.random(total) < FUNCTION_SHARE,
            function[rng.choice(len(function), total, p=p_function)],
            np.where(
                rng.random(total) < TOPIC_SHARE,
                vocab[topics[session_of_word, rng.integers(0, 30, total)]],
                vocab[rng.choice(len(vocab), total, p=p_vocab)],
            ),
        ).tolist()
        ends = np.cumsum(lengths).tolist()
        names = (f"Person{chat_no}a", f"Person{chat_no}b")
        slot = SPAN / count
        messages: list[Message] = []
        begin = 0
        for s in range(count):
            start = (
                START + slot * s + timedelta(minutes=int(rng.integers(0, int(slot.total_seconds() // 120))))
            )
            for i in range(TURNS_PER_SESSION):
                end = ends[s * TURNS_PER_SESSION + i]
                messages.append(
                    Message(start + timedelta(minutes=i), names[i % 2], " ".join(words[begin:end]))
                )
                begin = end
        yield Chat("bench", f"chat{chat_no}", f"Chat {chat_no}"), messages


def build(home: Path, n_turns: int, seed: int) -> dict[str, float]:
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    with Archive.open(home) as arch:
        n_messages = 0
        gen_time = 0.0
        g0 = time.perf_counter()
        for chat, messages in corpus(n_turns, seed):
            gen_time += time.perf_counter() - g0
            import_chat(arch, chat, messages)
            n_messages += len(messages)
            g0 = time.perf_counter()
        times["import_s"] = time.perf_counter() - t0 - gen_time
        times["messages"] = n_messages
        turns = list(arch.iter_turns())
        a0 = time.perf_counter()
        for t in turns:
            DEFAULT_ANALYZER.index_text(t.text)
        times["analysis_s"] = time.perf_counter() - a0
        times["turns"] = len(turns)
        del turns
        i0 = time.perf_counter()
        Index.open(home).sync(arch)
        times["index_s"] = time.perf_counter() - i0
    return times


def build_fts(home: Path, db_path: Path) -> float:
    t0 = time.perf_counter()
    db = sqlite3.connect(db_path)
    db.executescript(
        """
        PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
        CREATE VIRTUAL TABLE fts USING fts5(text, content='', tokenize='unicode61 remove_diacritics 0');
        CREATE TABLE t (id INTEGER PRIMARY KEY, sess INTEGER NOT NULL, ord INTEGER NOT NULL, ts INTEGER NOT NULL);
        """
    )
    with Archive.open(home) as arch:
        rows = ((i, t) for i, t in enumerate(arch.iter_turns(), start=1))
        batch_t, batch_f = [], []
        for i, t in rows:
            batch_t.append((i, t.session_seq, t.ordinal, int(t.start.timestamp())))
            batch_f.append((i, DEFAULT_ANALYZER.index_text(t.text)))
            if len(batch_t) == 50_000:
                db.executemany("INSERT INTO t VALUES (?,?,?,?)", batch_t)
                db.executemany("INSERT INTO fts (rowid, text) VALUES (?,?)", batch_f)
                batch_t.clear()
                batch_f.clear()
        db.executemany("INSERT INTO t VALUES (?,?,?,?)", batch_t)
        db.executemany("INSERT INTO fts (rowid, text) VALUES (?,?)", batch_f)
    db.executescript("CREATE INDEX t_ts ON t (ts); INSERT INTO fts (fts) VALUES ('optimize');")
    db.commit()
    db.close()
    return time.perf_counter() - t0


class Bm25sPeer:
    """bm25s (numpy, method "lucene", k1=1.2, b=0.75) over the same token streams, with the same pipeline:
    dense scores, then the time filter and exclusions as a mask, session sums, RRF, top 5, windows. It has no
    incremental add, so it is built once from the archive."""

    def __init__(self, home: Path) -> None:
        import bm25s

        t0 = time.perf_counter()
        tokens, sess, ords, ts = [], [], [], []
        with Archive.open(home) as arch:
            for t in arch.iter_turns():
                tokens.append(DEFAULT_ANALYZER.analyze(t.text))
                sess.append(t.session_seq)
                ords.append(t.ordinal)
                ts.append(int(t.start.timestamp()))
        self.retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
        self.retriever.index(tokens, show_progress=False)
        self.sess, self.ord, self.ts = np.array(sess), np.array(ords), np.array(ts)
        self.build_s = time.perf_counter() - t0

    def search(self, arch: Archive, query: str, lo: int, hi: int, excluded: list[int]) -> int:
        terms = list(dict.fromkeys(DEFAULT_ANALYZER.analyze(query)))
        if not terms:
            return 0
        scores = self.retriever.get_scores(terms)
        mask = scores > 0
        if lo > -(2**62):
            mask &= (self.ts >= lo) & (self.ts <= hi) & ~np.isin(self.sess, excluded)
        hits = np.flatnonzero(mask)
        if not len(hits):
            return 0
        s, sess = scores[hits].astype(np.float64), self.sess[hits]
        totals = np.bincount(sess, weights=s)[sess]
        fused = 1.0 / (60 + _ranks(s)) + 1.0 / (60 + _ranks(totals))
        for i in np.argsort(-fused, kind="stable")[:5]:
            arch.window(
                int(sess[i]), int(self.ord[hits[i]]) - 2, int(self.ord[hits[i]]) + 2, chars=INDEXED_CHARS
            )
        return len(hits)


FTS_SQL = """
WITH h AS MATERIALIZED (SELECT rowid AS id, -bm25(fts) AS s FROM fts WHERE fts MATCH :q),
f AS MATERIALIZED (
    SELECT h.id, h.s, t.sess, t.ord, t.ts FROM h JOIN t ON t.id = h.id
    WHERE t.ts BETWEEN :lo AND :hi AND t.sess NOT IN (SELECT value FROM json_each(:ex))
)
SELECT s, sess, ord, ts, sum(s) OVER (PARTITION BY sess) FROM f
"""
# The session sums come from a window function: a GROUP BY CTE joined back to f was planned as a nested
# scan (|f| x |sessions|), minutes per query at 1M turns.


def _ranks(desc_values: np.ndarray) -> np.ndarray:
    """Competition ranks of arbitrary values (1 = largest)."""
    order = np.argsort(-desc_values, kind="stable")
    sorted_v = desc_values[order]
    starts = np.r_[True, sorted_v[1:] != sorted_v[:-1]]
    ranks_sorted = np.maximum.accumulate(np.where(starts, np.arange(len(sorted_v)), 0)) + 1
    ranks = np.empty_like(ranks_sorted)
    ranks[order] = ranks_sorted
    return ranks


def fts_search(
    db: sqlite3.Connection, arch: Archive, query: str, lo: int, hi: int, excluded: list[int]
) -> int:
    terms = list(dict.fromkeys(DEFAULT_ANALYZER.analyze(query)))
    if not terms:
        return 0
    match = " OR ".join(f'"{t}"' for t in terms)
    rows = db.execute(FTS_SQL, {"q": match, "lo": lo, "hi": hi, "ex": json.dumps(excluded)}).fetchall()
    if not rows:
        return 0
    arr = np.array(rows, dtype=np.float64)
    s, totals = arr[:, 0], arr[:, 4]
    fused = 1.0 / (60 + _ranks(s)) + 1.0 / (60 + _ranks(totals))
    top = np.argsort(-fused, kind="stable")[:5]
    for i in top:
        sess, ordinal = int(arr[i, 1]), int(arr[i, 2])
        arch.window(sess, ordinal - 2, ordinal + 2, chars=INDEXED_CHARS)
    return len(rows)


def percentiles(ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return f"{statistics.median(ms):7.2f} / {q[94]:7.2f}"


def sample_queries(arch: Archive, n: int, rng: np.random.Generator) -> list[str]:
    """``n`` queries of 2-5 distinct content words, each from a random turn (bench/mcp_bench.py too)."""
    sessions = [(int(seq), int(turns)) for seq, turns in arch.db.execute("SELECT seq, n_turns FROM sessions")]
    texts = []
    for i in rng.integers(0, len(sessions), n * 3):
        seq, turns = sessions[int(i)]
        ordinal = int(rng.integers(1, turns + 1))
        texts.append(arch.window(seq, ordinal, ordinal, chars=INDEXED_CHARS)[0].text)
    queries = []
    for text in texts:
        content = [w for w in dict.fromkeys(text.split()) if w not in FULL_STOPWORDS]
        if len(content) >= 2:
            words = int(rng.integers(2, min(5, len(content)) + 1))
            queries.append(" ".join(rng.choice(content, words, replace=False)))
        if len(queries) == n:
            break
    return queries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workdir", type=Path, help="keep the built archive here (reused when present)")
    args = ap.parse_args()

    work = args.workdir or Path(tempfile.mkdtemp(prefix="refind-bench-"))
    home = work / "home"
    fts_path = work / "fts.db"
    if not (home / "archive.db").exists():
        print(f"building {args.turns:,} turns in {work} ...", flush=True)
        b = build(home, args.turns, args.seed)
        print(
            f"import (archive, segmentation): {b['import_s']:.1f} s, {b['messages'] / b['import_s']:,.0f} messages/s\n"
            f"analysis alone: {b['analysis_s']:.1f} s, {b['turns'] / b['analysis_s']:,.0f} turns/s\n"
            f"index sync (analysis + tantivy): {b['index_s']:.1f} s, {b['turns'] / b['index_s']:,.0f} turns/s\n"
            f"end to end: {b['messages'] / (b['import_s'] + b['index_s']):,.0f} messages/s",
            flush=True,
        )
        print(f"FTS5 build (same tokens, incl. optimize): {build_fts(home, fts_path):.1f} s", flush=True)

    rng = np.random.default_rng(args.seed + 1)
    with Archive.open(home) as arch:
        index = Index.open(home)
        index.sync(arch)
        n_turns = arch.counts()["turns"]
        span = arch.time_span()
        assert span is not None
        session_ids = [r[0] for r in arch.db.execute(f"SELECT {session_id_text('id')} FROM sessions")]
        queries = sample_queries(arch, args.queries, rng)
        lo_all = span[0]
        window = timedelta(days=182)
        filters = []
        for _ in queries:
            since = lo_all + (span[1] - lo_all - window) * float(rng.random())
            excluded = [session_ids[i] for i in rng.choice(len(session_ids), 20, replace=False)]
            filters.append((since, since + window, excluded))
        seq_of = arch.session_seqs(s for f in filters for s in f[2])

        fts = sqlite3.connect(fts_path)
        peer = Bm25sPeer(home)
        print(f"bm25s build (same tokens, numpy backend): {peer.build_s:.1f} s", flush=True)
        print(f"\n{n_turns:,} turns, {len(session_ids):,} sessions, {len(queries)} queries of 2-5 words")
        for q in queries[:20]:  # page the index and the FTS tables in
            search(arch, index, SearchRequest(q))
            fts_search(fts, arch, q, -(2**62), 2**62, [])
        results: dict[str, list[float]] = {}
        totals: dict[str, list[int]] = {"unfiltered": [], "filtered": []}
        for mode in ("unfiltered", "filtered"):
            ours, theirs, bm = [], [], []
            for q, (since, until, excluded) in zip(queries, filters, strict=True):
                request = SearchRequest(q, k=5, window=2)
                if mode == "filtered":
                    request = request._replace(since=since, until=until, exclude_sessions=tuple(excluded))
                t0 = time.perf_counter()
                r = search(arch, index, request)
                ours.append((time.perf_counter() - t0) * 1000)
                totals[mode].append(r.total)
                if mode == "filtered":
                    lo, hi, ex = int(since.timestamp()), int(until.timestamp()), [seq_of[s] for s in excluded]
                else:
                    lo, hi, ex = -(2**62), 2**62, []
                t0 = time.perf_counter()
                n = fts_search(fts, arch, q, lo, hi, ex)
                theirs.append((time.perf_counter() - t0) * 1000)
                t0 = time.perf_counter()
                n_bm = peer.search(arch, q, lo, hi, ex)
                bm.append((time.perf_counter() - t0) * 1000)
                if n != r.total or n_bm != r.total:
                    print(
                        f"  match count differs for {q!r}: refind {r.total}, FTS5 {n}, bm25s {n_bm}",
                        flush=True,
                    )
            results[f"refind {mode}"] = ours
            results[f"fts5 {mode}"] = theirs
            results[f"bm25s {mode}"] = bm
        print("\nfull pipeline (all matches, session sums, RRF, top 5, +-2 windows), ms p50 / p95:")
        for mode in ("unfiltered", "filtered"):
            mine, fts_ms, bm_ms = results[f"refind {mode}"], results[f"fts5 {mode}"], results[f"bm25s {mode}"]
            m = totals[mode]
            print(
                f"  {mode:10s}  refind {percentiles(mine)}   FTS5 {percentiles(fts_ms)}   bm25s {percentiles(bm_ms)}   "
                f"FTS5/refind p50 {statistics.median(fts_ms) / statistics.median(mine):4.1f}x   "
                f"bm25s/refind p50 {statistics.median(bm_ms) / statistics.median(mine):4.1f}x   "
                f"matches mean {statistics.mean(m):,.0f} max {max(m):,}"
            )

    cold = []
    for q in queries[:7]:
        t0 = time.perf_counter()
        p = subprocess.run(
            [sys.executable, "-m", "refind_cli", "--home", str(home), "search", q, "--json"],
            capture_output=True,
            text=True,
        )
        cold.append((time.perf_counter() - t0) * 1000)
        assert p.returncode in (0, 1), p.stderr
    print(
        f"\ncold `refind search` in a new process (page cache warm): median {statistics.median(cold):.0f} ms, "
        f"max {max(cold):.0f} ms over {len(cold)} runs"
    )
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
