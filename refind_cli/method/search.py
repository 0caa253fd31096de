"""The ReFind search: BM25 over turns, session fusion, context windows, time/chat filters, session exclusion.

The method lives here; the engine behind ``refind_cli.index.TurnIndex`` only finds and scores turns, and this
module never imports it. One call:
1. The query is parsed (``query.py``: phrases, exclusions, prefixes) and analysed like the turns were; its
   distinct terms are what the engine matches (any of them) and scores, phrases and exclusions restrict.
   Chats in different languages are analysed differently: the query is analysed once per language among the
   searched chats and each analysis matches only its own chats; the engine's matches of all of them are
   merged by score. One index, one N and one average length, so BM25 scores stay comparable across them.
2. Filters restrict the candidates without touching scores: time range, chat set, excluded sessions.
3. Session fusion: every matching turn is scored, the BM25 scores are summed per session, and each turn's
   rank r1 and its session's rank r2 fuse by reciprocal rank: 1/(60+r1)+1/(60+r2).
4. The top K turns come back with up to ``window`` turns either side, never across the session boundary.

Ties are broken deterministically. Ranks are competition ranks (equal scores share the best rank), so the
order in which the engine happens to return equal scores never changes a fused score; equal final scores are
ordered by BM25, then newest first, then by session and position.
"""

from __future__ import annotations

import heapq
import re
import sys
import unicodedata
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import tzinfo

from refind_cli.collector import collector_paused
from refind_cli.errors import RefindError
from refind_cli.index import INDEXED_CHARS, Matches, TurnIndex, TurnKey, analyzer_of
from refind_cli.records import TIMES
from refind_cli.request import SearchRequest
from refind_cli.results import Hit, SearchResult, WindowTurn
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import Analyzer, fold, query_analyzer
from refind_cli.text.query import parse
from refind_cli.text.snippet import terms_in
from refind_cli.typed import NamedTuple

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from refind_cli.dates.timeline import Timeline

RRF_K = 60
# The most index words one ``word*`` stands for, the most common first: enough for the forms of a word
# ("meet*": meet, meetup, meetinghous, ...) while a one-letter prefix stays a query of bounded cost.
PREFIX_TERMS = 64


class QueryTerms(NamedTuple):
    """A query analysed for the engine: the distinct terms it scores (plain words, phrase words, prefix
    expansions; duplicates would count twice in a boolean OR), the phrases a turn must hold and the
    phrases (or single terms) it must not."""

    terms: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...] = ()
    without: tuple[tuple[str, ...], ...] = ()


def query_terms(
    index: TurnIndex, query: str, analyzer: Analyzer | None = None, drop: Collection[str] = ()
) -> QueryTerms:
    """``query`` parsed and analysed like the turns were (by ``analyzer``, by default the index's own),
    without the words in ``drop``. A query without syntax gives the terms it always gave, in the same order."""
    analyzer = analyzer or index.analyzer

    def analyze(text: str) -> list[str]:
        return analyzer.analyze(text, drop)

    parsed = parse(query)
    phrases = [tuple(t) for p in parsed.phrases if (t := analyze(p))]
    # The plain words also as the language glues them to a letter ("and", "in"; none in most languages).
    terms = analyze(parsed.text) + analyzer.glued(parsed.text, drop) + [t for p in phrases for t in p]
    if not terms and not parsed.prefixes:
        # A query of stop words alone ("dette", "tháng"): the chat's analyzer indexed them apart.
        terms = analyzer.function_terms(parsed.text)
    for short in analyzer.short_terms(parsed.text, drop):
        # A word shorter than the cut also as the indexed cuts it begins ("lloj": "lloje" of "llojet").
        terms += [t for t in index.expand(short, PREFIX_TERMS) if len(t) <= analyzer.cut]
    for prefix in parsed.prefixes:
        # The word itself ("happy" is indexed as "happi"), then the indexed words it begins (folded, as the
        # index holds them: "médic*" finds "medic").
        folded = fold(unicodedata.normalize("NFC", prefix.lower()))
        terms += analyze(prefix) + index.expand(folded, PREFIX_TERMS)
    without = [tuple(t) for e in parsed.excluded if (t := analyze(e))]
    return QueryTerms(
        tuple(dict.fromkeys(terms)), tuple(dict.fromkeys(phrases)), tuple(dict.fromkeys(without))
    )


def _timeline(matches: Matches | None, tz: tzinfo) -> Timeline:
    from refind_cli.dates.timeline import Timeline, spread_timeline  # only for --timeline

    if matches is None:
        return Timeline("day", ())
    # An index built from an archive of an earlier release that read-only media kept from its migration (m010)
    # may hold a time outside TIMES: its day would have no date in a zone east of UTC.
    lo, hi = (int(bound.timestamp()) for bound in TIMES)
    return spread_timeline(matches, tz, (lo, hi))


def _competition_ranks(sorted_desc: Sequence[float]) -> list[int]:
    """1-based ranks of a descending sequence, equal values sharing the best rank (1, 2, 2, 4)."""
    ranks = []
    rank, previous = 0, None
    for i, value in enumerate(sorted_desc, start=1):
        if value != previous:
            rank, previous = i, value
        ranks.append(rank)
    return ranks


def _fuse_python(scores: Sequence[float], sess: Sequence[int], k: int) -> list[tuple[int, float]]:
    """(hit index, fused score) of the hits that can be in the top k: all those at least as good as the
    k-th best fused score. ``scores`` are in descending order, as the engine returns them."""
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


def _fuse_numpy(scores: Sequence[float], sess: Sequence[int], k: int) -> list[tuple[int, float]]:
    """``_fuse_python`` for many hits, vectorized; the same float64 operations in the same order, so the
    same results to the bit.

    Only turns that can reach the top k are ranked. A reciprocal rank is at most 1/61, so a turn whose fused
    score reaches a bound L has both 1/(60 + r1) and 1/(60 + r2) >= L - 1/61: r1 and r2 at most some depth.
    The k best BM25 turns give L (their fused scores, exact: every session's sum is known). The turns within
    the depth are a prefix of the BM25 order, and their sessions' ranks need only the sums as deep as the
    depth (a partition), not every session sorted. The best BM25 turns in poorly ranked sessions leave a
    bound too low to prune by: then every session is ranked."""
    import numpy as np

    score = np.asarray(scores, dtype=np.float64)
    session = np.asarray(sess, dtype=np.int64)
    sums = np.bincount(session, weights=score)  # sequential float64 sums, as the dict above
    # Lucene idf is positive, so every matching session sums to more than 0.
    present_sums = sums[sums > 0]
    depth = len(present_sums)
    if k <= _PRUNED_K_MOST:
        # A competition rank looks back only (1 + the position of the first equal score): a prefix ranks
        # alone. The k head sessions' ranks compare k x sessions sums at once, hence the cap on k.
        head = sums[session[:k]]
        head_r2 = 1 + np.count_nonzero(present_sums[None, :] > head[:, None], axis=1)
        room = float(np.min(_fused(_competition_ranks_np(np, score[:k]), head_r2))) - 1.0 / (RRF_K + 1)
        # 2 beyond the depth the bound allows: float rounding can only make the prefix longer, never shorter.
        if room > 0:
            depth = int(1.0 / room) - RRF_K + 2
    if depth < len(present_sums):
        # The `depth` greatest sums, ascending. A sum at least the least of them has its exact rank (all the
        # greater ones are among them); a smaller one gets depth + 1, a rank at least as good as its own,
        # which still keeps its turns below the bound.
        deepest = np.sort(np.partition(present_sums, len(present_sums) - depth)[len(present_sums) - depth :])
        # The turns ranked within the depth: those scoring at least the turn at that position.
        prefix = len(score) if depth >= len(score) else int(np.count_nonzero(score >= score[depth - 1]))
        r2 = 1 + depth - np.searchsorted(deepest, sums[session[:prefix]], side="right")
        return _at_least_kth(np, _fused(_competition_ranks_np(np, score[:prefix]), r2), k)
    present = np.flatnonzero(sums)
    # Any order among equal sums: they share a competition rank (a stable sort cost twice as much).
    by_sum = present[np.argsort(-present_sums)]
    r2_of = np.zeros(len(sums), dtype=np.int64)
    r2_of[by_sum] = _competition_ranks_np(np, sums[by_sum])
    return _at_least_kth(np, _fused(_competition_ranks_np(np, score), r2_of[session]), k)


# The largest k whose fusion is pruned: `refind search -k 1000` over 300,000 matching sessions would compare
# 300 million pairs; the agent's and MCP's k is at most 20.
_PRUNED_K_MOST = 32


def _fused(r1: Any, r2: Any) -> Any:
    return 1.0 / (RRF_K + r1) + 1.0 / (RRF_K + r2)


def _at_least_kth(np: Any, fused: Any, k: int) -> list[tuple[int, float]]:
    """(index, fused score) of every turn at least as good as the k-th best, in index order."""
    n = len(fused)
    cut = np.partition(fused, n - k)[n - k]
    idx = np.flatnonzero(fused >= cut)
    return list(zip(idx.tolist(), fused[idx].tolist(), strict=True))


# numpy fuses faster from a few thousand hits on (14,000 hits: 9 ms against 26 ms), but importing it costs
# ~120 ms, more than plain Python loses below ~60,000 hits (84 ms there against 20 + 120). So a one-off
# `refind search` imports numpy only for very broad queries; a process that has it already uses it early.
NUMPY_FROM = 2_000
NUMPY_COLD_FROM = 60_000


def search(
    archive: Archive,
    index: TurnIndex,
    request: SearchRequest,
    *,
    timeline_tz: tzinfo | None = None,
    keep: list[object] | None = None,
) -> SearchResult:
    """Search the turns for ``request``. With ``timeline_tz``, the result also says how every match spreads
    over time in that zone. With ``keep``, the engine's matches go there instead of being freed on return:
    an object per matching turn, ~1.2 ms to free at the median query of 1M turns, which a server can spend
    after it has answered."""
    with collector_paused():
        return _search(archive, index, request, timeline_tz, keep)


def _search(
    archive: Archive,
    index: TurnIndex,
    request: SearchRequest,
    timeline_tz: tzinfo | None,
    keep: list[object] | None,
) -> SearchResult:
    languages = language_groups(archive, index, request.chats)
    drop = query_language_stopwords(request.query, [a for a, _ in languages]) if len(languages) > 1 else ()
    groups = [
        (analyzer, chats, q)
        for analyzer, chats in languages
        if (q := query_terms(index, request.query, analyzer, drop)).terms
    ]
    speakers = None if request.speakers is None else speakers_named(archive.speakers(), request.speakers)
    if not groups or (request.chats is not None and not request.chats):
        return SearchResult(request, (), 0, None if timeline_tz is None else _timeline(None, timeline_tz))
    terms = tuple(dict.fromkeys(t for _, _, q in groups for t in q.terms))
    exclude = (
        set(archive.session_seqs(request.exclude_sessions).values()) if request.exclude_sessions else set()
    )
    # Fusion and the newest first need every match; a plain BM25 top k only the best (and a timeline counts
    # every match where the engine holds it: ``Matches.counts``).
    every = request.sort == "time" or request.session_rank
    find = index.matching if every else index.best
    parts = [
        find(
            q.terms,
            request if chats is request.chats else request._replace(chats=chats),
            exclude,
            phrases=q.phrases,
            without=q.without,
            speakers=speakers,
        )
        for _, chats, q in groups
    ]
    if keep is not None:
        keep.append(parts)
    matches = parts[0] if len(parts) == 1 else _Merged(parts)
    if request.sort == "time":
        picked = _newest(matches, request.k) if matches.total else []
    else:
        top = _fused_top if request.session_rank else _bm25_top
        picked = top(matches, request.k) if matches.total else []
    spread = None
    if timeline_tz is not None:
        # The same matches the ranking used, counted by the engine.
        spread = _timeline(matches, timeline_tz)
    # Every hit is of a chat of some group: one group covers them all; of several, each covers its chats.
    analyzers = {chat: analyzer for analyzer, chats, _ in groups for chat in chats or ()}
    hits = _hits(
        archive, index, picked, terms, request.window, lambda chat: analyzers.get(chat, groups[0][0])
    )
    return SearchResult(request, hits, matches.total, spread)


def language_groups(
    archive: Archive, index: TurnIndex, chats: tuple[int, ...] | None
) -> list[tuple[Analyzer, tuple[int, ...] | None]]:
    """The analyzers the searched chats (``chats``, None: all) were indexed with, each with the chats it
    covers; a single one keeps ``chats`` as it is, so a search of chats in one language adds no filter."""
    wanted = None if chats is None else set(chats)
    covered: dict[Analyzer, list[int]] = {}
    for chat, lang in archive.chat_languages().items():
        if wanted is None or chat in wanted:
            covered.setdefault(analyzer_of(index, lang), []).append(chat)
    if len(covered) <= 1:
        return [(next(iter(covered), index.analyzer), chats)]
    return [(analyzer, tuple(seqs)) for analyzer, seqs in covered.items()]


def query_language_stopwords(query: str, analyzers: Sequence[Analyzer]) -> frozenset[str]:
    """The stop words of the language ``query`` is written in (``analysis.query_analyzer``), none when that
    cannot be told. Searching chats in several languages, each analysis must leave these out: read as
    English, "wann war die Besichtigung" would keep "war" and "die", content words there, and rank an
    English message about a war first (bench/RESULTS.md, Languages)."""
    told = query_analyzer(query, analyzers)
    return frozenset() if told is None else told.stopwords


class _Merged:
    """The matches of several engine calls over disjoint chats, as one ``Matches``, best score first."""

    def __init__(self, parts: list[Matches]) -> None:
        # Each part's scores are in descending order already: merged, not sorted again.
        ranked = list(heapq.merge(*map(_numbered, range(len(parts)), parts), key=lambda item: -item[0]))
        self._parts = parts
        self._where = [(part, i) for _, part, i in ranked]
        self.scores = [score for score, _, _ in ranked]
        self.total = sum(m.total for m in parts)

    def sessions(self) -> list[int]:
        each = [m.sessions() for m in self._parts]
        return [each[part][i] for part, i in self._where]

    def span(self) -> tuple[int, int] | None:
        spans = [s for m in self._parts if (s := m.span()) is not None]
        return (min(s[0] for s in spans), max(s[1] for s in spans)) if spans else None

    def counts(self, edges: Sequence[int]) -> list[int]:
        return [sum(each) for each in zip(*(m.counts(edges) for m in self._parts), strict=True)]

    def times_within(self, ranges: Sequence[tuple[int, int]]) -> list[int]:
        return [t for m in self._parts for t in m.times_within(ranges)]

    def turns(self, which: Sequence[int]) -> list[TurnKey]:
        wanted = [self._where[j] for j in which]
        asked: dict[int, list[int]] = {}
        for part, i in wanted:
            asked.setdefault(part, []).append(i)
        found = {
            part: dict(zip(held, self._parts[part].turns(held), strict=True)) for part, held in asked.items()
        }
        return [found[part][i] for part, i in wanted]


def _numbered(part: int, matches: Matches) -> Iterator[tuple[float, int, int]]:
    return ((score, part, i) for i, score in enumerate(matches.scores))


def speakers_named(known: Sequence[tuple[str, str | None, bool]], wanted: Sequence[str]) -> tuple[str, ...]:
    """The speaker names ``wanted`` stand for, from the archive's (name, sender id, own) triples: each is a
    name or a sender id (in any case), or the start of any part of names ("maya" finds "Maya" and "Maya
    Lindqvist", "lind" too), or ``me``: the names the exporting person's own messages carry, where the
    export says which those are. RefindError for one that matches none."""
    found: dict[str, None] = {}
    for text in wanted:
        needle = text.strip().casefold()
        part = re.compile(r"(?<!\w)" + re.escape(needle))
        named = [
            name
            for name, sid, own in known
            if needle
            and ((own and needle == ME) or needle == (sid or "").casefold() or part.search(name.casefold()))
        ]
        if not named:
            if needle == ME:
                raise RefindError(
                    f"from {text!r}: no export imported says which messages are your own"
                    " (WhatsApp, Slack, Messenger, Instagram and DiscordChatExporter files do not)"
                )
            raise RefindError(f"from {text!r}: no speaker is called that")
        found.update(dict.fromkeys(named))
    return tuple(found)


# What `--from` takes for the exporting person's own messages.
ME = "me"


# (fused or bm25 score, bm25, session seq, ordinal) of the chosen turns, best first.
_Picked = list[tuple[float, float, int, int]]


def _order(matches: Matches, cands: list[tuple[float, float, int]], k: int) -> _Picked:
    """The best ``k`` of the candidates (score, bm25, position in ``matches``): score, then BM25, then
    newest, then session and position."""
    keys = matches.turns([c[2] for c in cands])
    keyed = sorted(
        range(len(cands)),
        key=lambda i: (-cands[i][0], -cands[i][1], -keys[i][0], keys[i][1], keys[i][2]),
    )
    return [(cands[i][0], cands[i][1], keys[i][1], keys[i][2]) for i in keyed[:k]]


def _bm25_top(matches: Matches, k: int) -> _Picked:
    scores = matches.scores
    cut = scores[min(k, len(scores)) - 1]
    return _order(matches, [(s, s, i) for i, s in enumerate(scores) if s >= cut], k)


def _newest(matches: Matches, k: int) -> _Picked:
    """The newest ``k`` matches, each with its BM25 score; equal times by session and position."""
    scores = matches.scores
    keys = matches.turns(range(len(scores)))
    newest = heapq.nsmallest(k, range(len(keys)), key=lambda i: (-keys[i][0], keys[i][1], keys[i][2]))
    return [(scores[i], scores[i], keys[i][1], keys[i][2]) for i in newest]


def _fused_top(matches: Matches, k: int) -> _Picked:
    # Session sums need every match, not a top-N sample.
    scores = matches.scores
    sess = matches.sessions()
    threshold = NUMPY_FROM if "numpy" in sys.modules else NUMPY_COLD_FROM
    fuse = _fuse_numpy if len(scores) >= threshold else _fuse_python
    return _order(matches, [(f, scores[i], i) for i, f in fuse(scores, sess, min(k, len(scores)))], k)


def _hits(
    archive: Archive,
    index: TurnIndex,
    picked: _Picked,
    terms: Sequence[str],
    window: int,
    analyzer_of_chat: Callable[[int], Analyzer],
) -> tuple[Hit, ...]:
    out: list[Hit] = []
    for score, bm25, sess, ordinal in picked:
        # What the index read of each turn: the terms it matched are there (the renderers show a part of it).
        around = archive.window(sess, ordinal - window, ordinal + window, chars=INDEXED_CHARS)
        turn = next((t for t in around if t.ordinal == ordinal), None)
        if turn is None:
            # Forgotten by another process after this index was last synced.
            continue
        # Bounded by what it takes to find the terms, not by the analysed turn: one may be a million characters.
        own = terms_in(analyzer_of_chat(turn.chat_seq), index.indexed_text(turn.speaker, turn.text), terms)
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
