"""An in-memory ``TurnIndex``: BM25 in plain Python, scored the way tantivy scores, over the archive's turns
through the same analyzer. The method in ``search.py`` runs on it unchanged, so the tests can hold the method
apart from the engine: the same ranking from both says the seam carries everything the method needs.

tantivy's BM25: k1 = 1.2, b = 0.75, Lucene idf ln(1 + (N - n + 0.5) / (n + 0.5)), the (k1 + 1) factor kept,
avgdl = all tokens / N, and each turn's length rounded down to one of 256 fieldnorm values (exact up to 40
terms, then on a log scale), as tantivy stores it. Scores are float64 here and float32 in tantivy, so they
agree within float tolerance. N and n are those of the live turns: tantivy's count deleted documents until a
merge, so compare the two on freshly built indexes.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from refind_cli.index import INDEXED_CHARS, TurnKey, chat_analyzers, epoch_seconds, turn_text
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import DEFAULT_ANALYZER, Analyzer

K1 = 1.2
B = 0.75


def _fieldnorm(code: int) -> int:
    """The length tantivy's one-byte fieldnorm ``code`` stands for: 0-23 as they are, then 8 steps per power
    of two (Lucene's SmallFloat scheme)."""
    if code < 24:
        return code
    b = code - 24
    mantissa, shift = b & 7, b >> 3
    return 24 + (mantissa if shift == 0 else (mantissa | 8) << (shift - 1))


_FIELDNORMS = [_fieldnorm(code) for code in range(256)]


def stored_length(n: int) -> int:
    """A turn's length as tantivy stores it: rounded down to the nearest fieldnorm value."""
    return _FIELDNORMS[bisect.bisect_right(_FIELDNORMS, n) - 1]


@dataclass(frozen=True, slots=True)
class _Turn:
    session: int
    ordinal: int
    chat: int
    ts: int
    tf: Counter[str]
    length: int  # terms after analysis, exact
    terms: tuple[str, ...]  # in order, for phrases
    speaker: str

    def holds(self, phrase: Sequence[str]) -> bool:
        n = len(phrase)
        return all(t in self.tf for t in phrase) and any(
            self.terms[i : i + n] == tuple(phrase) for i in range(len(self.terms) - n + 1)
        )


class MemoryMatches:
    def __init__(self, scored: list[tuple[float, _Turn]]) -> None:
        self._turns = [t for _, t in scored]
        self.scores = [s for s, _ in scored]
        self.total = len(scored)

    def sessions(self) -> list[int]:
        return [t.session for t in self._turns]

    def turns(self, which: Sequence[int]) -> list[TurnKey]:
        return [(t.ts, t.session, t.ordinal) for t in (self._turns[i] for i in which)]

    # ``best`` holds every match here: a timeline's counts are read off the times held.
    def span(self) -> tuple[int, int] | None:
        times = [t.ts for t in self._turns]
        return (min(times), max(times)) if times else None

    def counts(self, edges: Sequence[int]) -> list[int]:
        times = sorted(t.ts for t in self._turns)
        at = [0, *(bisect.bisect_left(times, e) for e in edges), len(times)]
        return [b - a for a, b in itertools.pairwise(at)]

    def times_within(self, ranges: Sequence[tuple[int, int]]) -> list[int]:
        return [t.ts for t in self._turns if any(a <= t.ts < b for a, b in ranges)]


class MemoryIndex:
    """A ``TurnIndex`` held in a dict; ``best`` holds every match, which the contract allows."""

    def __init__(self, analyzer: Analyzer = DEFAULT_ANALYZER, *, speaker_in_text: bool = True) -> None:
        self.analyzer = analyzer
        self.speaker_in_text = speaker_in_text
        self._turns: dict[tuple[int, int], _Turn] = {}

    @property
    def num_docs(self) -> int:
        return len(self._turns)

    def indexed_text(self, speaker: str, text: str) -> str:
        return turn_text(speaker, text, speaker_in_text=self.speaker_in_text)

    def _add(self, archive: Archive, rows: Iterable[tuple[int, int, int, int, str, str]]) -> int:
        n = 0
        others = chat_analyzers(self, archive)
        for session, ordinal, chat, ts, speaker, text in rows:
            terms = others.get(chat, self.analyzer).index_text(self.indexed_text(speaker, text)).split()
            self._turns[session, ordinal] = _Turn(
                session, ordinal, chat, ts, Counter(terms), len(terms), tuple(terms), speaker
            )
            n += 1
        return n

    def sync(self, archive: Archive, *, meanwhile: Callable[[], None] | None = None) -> int:
        n = self._sync(archive)
        if meanwhile is not None:
            meanwhile()
        return n

    def _sync(self, archive: Archive) -> int:
        queue = archive.index_queue()
        if not self._turns:
            n = self._add(archive, archive.index_rows(None, chars=INDEXED_CHARS))
        else:
            stale = set(queue)
            self._turns = {key: t for key, t in self._turns.items() if t.session not in stale}
            n = self._add(archive, archive.index_rows(queue, chars=INDEXED_CHARS))
        archive.clear_index_queue(queue)
        return n

    def refresh(self) -> None:
        """Nothing to do: every change is this object's own."""

    def rebuild(self, archive: Archive) -> int:
        queue = archive.index_queue()
        self._turns = {}
        n = self._add(archive, archive.index_rows(None, chars=INDEXED_CHARS))
        archive.clear_index_queue(queue)
        return n

    def matching(
        self,
        terms: Sequence[str],
        request: SearchRequest,
        exclude: Collection[int],
        *,
        phrases: Sequence[Sequence[str]] = (),
        without: Sequence[Sequence[str]] = (),
        speakers: Collection[str] | None = None,
    ) -> MemoryMatches:
        n_docs = len(self._turns)
        if not n_docs:
            return MemoryMatches([])
        avgdl = sum(t.length for t in self._turns.values()) / n_docs
        df = {term: sum(1 for t in self._turns.values() if term in t.tf) for term in terms}
        idf = {term: math.log(1 + (n_docs - n + 0.5) / (n + 0.5)) for term, n in df.items()}
        lo = epoch_seconds(request.since) if request.since is not None else -math.inf
        hi = epoch_seconds(request.until) if request.until is not None else math.inf
        chats = None if request.chats is None else set(request.chats)
        scored = []
        for t in self._turns.values():
            if not lo <= t.ts <= hi or (chats is not None and t.chat not in chats) or t.session in exclude:
                continue
            if not all(t.holds(p) for p in phrases) or any(t.holds(w) for w in without):
                continue
            if speakers is not None and t.speaker not in speakers:
                continue
            norm = K1 * (1 - B + B * stored_length(t.length) / avgdl)
            score = sum(
                idf[term] * (K1 + 1) * t.tf[term] / (t.tf[term] + norm) for term in terms if term in t.tf
            )
            if score:
                scored.append((score, t))
        scored.sort(key=lambda st: -st[0])
        return MemoryMatches(scored)

    best = matching

    def expand(self, prefix: str, limit: int) -> list[str]:
        df = Counter(term for t in self._turns.values() for term in t.tf if term.startswith(prefix))
        return sorted(df, key=lambda term: (-df[term], term))[:limit]

    def doc_freq(self, term: str) -> int:
        return sum(1 for t in self._turns.values() if term in t.tf)


def held(times: Sequence[int]) -> MemoryMatches:
    """Matches at these times (epoch seconds) and nothing else: what a timeline reads of them."""
    return MemoryMatches([(0.0, _Turn(0, i, 0, ts, Counter(), 0, (), "")) for i, ts in enumerate(times)])
