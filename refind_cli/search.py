"""The ReFind search: BM25 over turns, session fusion, context windows, time/chat filters, session exclusion.

One call:
1. The query is analysed like the turns were; its distinct terms form an OR of term queries (never tantivy's
   query parser, so any user text is a valid query).
2. Filters restrict the candidates without touching scores: time range and chat set sit under a constant-0
   score wrapper, excluded sessions under MustNot.
3. Session fusion: every matching turn is scored (count pass, then all hits), the BM25 scores are summed per
   session, and each turn's rank r1 and its session's rank r2 fuse by reciprocal rank: 1/(60+r1)+1/(60+r2).
4. The top K turns come back with up to ``window`` turns either side, never across the session boundary.

Ties are broken deterministically. Ranks are competition ranks (equal scores share the best rank), so the
order in which tantivy happens to return equal scores never changes a fused score; equal final scores are
ordered by BM25, then newest first, then by session and position.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import tantivy

from refind_cli.archive import Archive
from refind_cli.index import Index
from refind_cli.records import ChatInfo, Turn
from refind_cli.snippet import terms_in

RRF_K = 60
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class WindowTurn:
    turn: Turn
    hit: bool  # the result's own turn (the others are context)


@dataclass(frozen=True, slots=True)
class Hit:
    rank: int  # 1-based
    score: float  # the fused RRF score, or BM25 when fusion is off
    turn: Turn
    chat: ChatInfo
    window: tuple[WindowTurn, ...]
    bm25: float  # the turn's own BM25 score
    terms: tuple[str, ...]  # the query terms this turn contains (analysed form), for highlighting


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    hits: tuple[Hit, ...]
    total: int  # turns that match the query and pass the filters


def query_terms(index: Index, query: str) -> list[str]:
    """The distinct analysed terms of ``query``, in order. Duplicates would count twice in a boolean OR."""
    return list(dict.fromkeys(index.analyzer.analyze(query)))


def _epoch(dt: datetime) -> int:
    # Naive datetimes are taken as UTC, as tantivy does; turn times are indexed as floored epoch seconds.
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() // 1)


def build_query(
    index: Index,
    terms: Sequence[str],
    *,
    since: datetime | None,
    until: datetime | None,
    chats: Sequence[int] | None,
    exclude_seqs: Collection[int],
) -> tantivy.Query:
    schema = index.schema
    Q, Occur = tantivy.Query, tantivy.Occur
    term_queries = [Q.term_query(schema, "text", t) for t in terms]
    text_q = (
        term_queries[0]
        if len(term_queries) == 1
        else Q.boolean_query([(Occur.Should, q) for q in term_queries])
    )
    clauses: list[tuple[tantivy.Occur, tantivy.Query]] = [(Occur.Must, text_q)]
    if since is not None or until is not None:
        lo = _epoch(since) if since is not None else _I64_MIN
        hi = _epoch(until) if until is not None else _I64_MAX
        rng = Q.range_query(schema, "ts", tantivy.FieldType.Integer, lo, hi)
        # Under Must a filter would add 1.0 to every score; the wrapper makes it a pure restriction.
        clauses.append((Occur.Must, Q.const_score_query(rng, 0.0)))
    if chats is not None:
        clauses.append((Occur.Must, Q.const_score_query(Q.term_set_query(schema, "chat", list(chats)), 0.0)))
    if exclude_seqs:
        clauses.append((Occur.MustNot, Q.term_set_query(schema, "sess", sorted(exclude_seqs))))
    return Q.boolean_query(clauses) if len(clauses) > 1 else text_q


def _competition_ranks(sorted_desc: Sequence[float]) -> list[int]:
    """1-based ranks of a descending sequence, equal values sharing the best rank (1, 2, 2, 4)."""
    ranks = []
    rank, previous = 0, None
    for i, value in enumerate(sorted_desc, start=1):
        if value != previous:
            rank, previous = i, value
        ranks.append(rank)
    return ranks


def _fuse_python(scores: list[float], sess: list[int], k: int) -> list[tuple[int, float]]:
    """(hit index, fused score) of the hits that can be in the top k: all those at least as good as the
    k-th best fused score. ``scores`` are in descending order, as tantivy returns them."""
    r1 = _competition_ranks(scores)
    sums: dict[int, float] = {}
    for s, x in zip(sess, scores, strict=True):
        sums[s] = sums.get(s, 0.0) + x
    by_sum = sorted(sums.items(), key=lambda item: -item[1])
    r2 = dict(zip((s for s, _ in by_sum), _competition_ranks([v for _, v in by_sum]), strict=True))
    fused = [1.0 / (RRF_K + a) + 1.0 / (RRF_K + r2[s]) for a, s in zip(r1, sess, strict=True)]
    cut = heapq.nlargest(k, fused)[-1]
    return [(i, f) for i, f in enumerate(fused) if f >= cut]


def _competition_ranks_np(np: Any, sorted_desc: Any) -> Any:
    """``_competition_ranks`` for a descending numpy array."""
    n = len(sorted_desc)
    starts = np.empty(n, dtype=bool)
    starts[0] = True
    np.not_equal(sorted_desc[1:], sorted_desc[:-1], out=starts[1:])
    return np.maximum.accumulate(np.where(starts, np.arange(n), 0)) + 1


def _fuse_numpy(scores: list[float], sess: list[int], k: int) -> list[tuple[int, float]]:
    """``_fuse_python`` for many hits, vectorized; the same float64 operations in the same order, so the
    same results to the bit."""
    import numpy as np

    n = len(scores)
    score = np.asarray(scores, dtype=np.float64)
    session = np.asarray(sess, dtype=np.int64)
    r1 = _competition_ranks_np(np, score)
    sums = np.bincount(session, weights=score)  # sequential float64 sums, as the dict above
    present = np.flatnonzero(sums)  # Lucene idf is positive, so every matching session sums to more than 0
    by_sum = present[np.argsort(-sums[present], kind="stable")]
    r2 = np.zeros(len(sums), dtype=np.int64)
    r2[by_sum] = _competition_ranks_np(np, sums[by_sum])
    fused = 1.0 / (RRF_K + r1) + 1.0 / (RRF_K + r2[session])
    cut = np.partition(fused, n - k)[n - k]
    idx = np.flatnonzero(fused >= cut)
    return list(zip(idx.tolist(), fused[idx].tolist(), strict=True))


# numpy fuses faster from a few thousand hits on (14,000 hits: 9 ms against 26 ms), but importing it costs
# ~120 ms, more than plain Python loses below ~60,000 hits (84 ms there against 20 + 120). So a one-off
# `refind search` imports numpy only for very broad queries; a process that has it already uses it early.
NUMPY_FROM = 2_000
NUMPY_COLD_FROM = 60_000
# The most hits one counting pass collects (tantivy allocates a buffer of twice the limit per segment);
# 65,536 measured best among 16K, 64K and 256K on 1M turns.
FIRST_PASS = 65_536


def search(
    archive: Archive,
    index: Index,
    query: str,
    *,
    k: int = 5,
    window: int = 2,
    since: datetime | None = None,
    until: datetime | None = None,
    chats: Sequence[int] | None = None,
    exclude_sessions: Collection[str] = (),
    session_rank: bool = True,
) -> SearchResult:
    """Search the turns. ``since``/``until`` are inclusive bounds on a turn's start time; ``chats`` (chat seqs)
    restricts to those chats (an empty sequence matches nothing); ``exclude_sessions`` are session ids."""
    if k < 1 or window < 0:
        raise ValueError("k must be at least 1 and window at least 0")
    terms = query_terms(index, query)
    if not terms or (chats is not None and not chats):
        return SearchResult(query, (), 0)
    exclude_seqs = set(archive.session_seqs(exclude_sessions).values()) if exclude_sessions else set()
    q = build_query(index, terms, since=since, until=until, chats=chats, exclude_seqs=exclude_seqs)
    searcher = index.searcher()
    # tantivy scores every match on every pass, so one pass should collect them all: no more turns match
    # than the sum of the terms' document frequencies (a bound that ignores the filters). Above FIRST_PASS
    # the buffer tantivy allocates for the bound would cost more than a second pass.
    bound = sum(searcher.doc_freq("text", t) for t in terms)
    first = searcher.search(q, max(1, min(bound, FIRST_PASS)), count=True)
    total = first.count
    if total == 0:
        return SearchResult(query, (), 0)
    hits = first.hits  # read .hits once: every access rebuilds the list
    picked = (_fused_top if session_rank else _bm25_top)(searcher, q, hits, total, k)
    return SearchResult(query, _hits(archive, index, picked, terms, window), total)


# (fused or bm25 score, bm25, session seq, ordinal) of the chosen turns, best first.
_Picked = list[tuple[float, float, int, int]]


def _order(
    searcher: tantivy.Searcher, cands: list[tuple[float, float, tantivy.DocAddress]], k: int
) -> _Picked:
    """The best ``k`` of the candidates: score, then BM25, then newest, then session and position."""
    addrs = [c[2] for c in cands]
    ts = searcher.fast_field_values("ts", addrs)
    sess = searcher.fast_field_values("sess", addrs)
    ordinal = searcher.fast_field_values("turn", addrs)
    keyed = sorted(range(len(cands)), key=lambda i: (-cands[i][0], -cands[i][1], -ts[i], sess[i], ordinal[i]))
    return [(cands[i][0], cands[i][1], sess[i], ordinal[i]) for i in keyed[:k]]


def _all_hits(searcher: tantivy.Searcher, q: tantivy.Query, hits: list, total: int) -> list:
    return hits if len(hits) >= total else searcher.search(q, total, count=False).hits


def _bm25_top(searcher: tantivy.Searcher, q: tantivy.Query, hits: list, total: int, k: int) -> _Picked:
    # The first pass holds the best hits; only when ties at the k-th score run past it are all fetched.
    if len(hits) < total and hits[-1][0] == hits[min(k, len(hits)) - 1][0]:
        hits = _all_hits(searcher, q, hits, total)
    cut = hits[min(k, len(hits)) - 1][0]
    return _order(searcher, [(s, s, a) for s, a in hits if s >= cut], k)


def _fused_top(searcher: tantivy.Searcher, q: tantivy.Query, hits: list, total: int, k: int) -> _Picked:
    # Session sums need every match, not a top-N sample.
    hits = _all_hits(searcher, q, hits, total)
    scores = [h[0] for h in hits]
    addrs = [h[1] for h in hits]
    sess = searcher.fast_field_values("sess", addrs)
    threshold = NUMPY_FROM if "numpy" in sys.modules else NUMPY_COLD_FROM
    fuse = _fuse_numpy if len(hits) >= threshold else _fuse_python
    return _order(searcher, [(f, scores[i], addrs[i]) for i, f in fuse(scores, sess, min(k, len(hits)))], k)


def _hits(
    archive: Archive, index: Index, picked: _Picked, terms: Sequence[str], window: int
) -> tuple[Hit, ...]:
    out: list[Hit] = []
    for score, bm25, sess, ordinal in picked:
        around = archive.window(sess, ordinal - window, ordinal + window)
        turn = next((t for t in around if t.ordinal == ordinal), None)
        if turn is None:
            # Forgotten by another process after this index was last synced.
            continue
        # Bounded by what it takes to find the terms, not by the analysed turn: one may be a 50 MB message.
        own = terms_in(index.analyzer, index.indexed_text(turn.speaker, turn.text), terms)
        out.append(
            Hit(
                rank=len(out) + 1,
                score=score,
                turn=turn,
                chat=archive.chat(turn.chat_seq),
                window=tuple(WindowTurn(t, t.ordinal == ordinal) for t in around),
                bm25=bm25,
                terms=tuple(t for t in terms if t in own),
            )
        )
    return tuple(out)
