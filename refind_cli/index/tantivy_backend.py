"""The BM25 turn index in tantivy, on disk under ``$REFIND_HOME/index``, derived from the archive: the one engine
behind ``refind_cli.index.TurnIndex``, and the only module that imports tantivy.

Every turn is one document. Its text is analysed in Python (``analysis.py``: true Porter, our stop words,
CJK bigrams) and handed to tantivy already tokenized, joined by spaces, for the ``whitespace`` tokenizer;
term frequencies and positions are kept. BM25 needs no positions; ``"phrase"`` queries do. Measured on the
29,819 turns of LongMemEval-S dev (2.9M terms): the index grows from 3.8 to 7.3 MB and tantivy's build time
stays within the noise (0.7-1.1 s against 1.1-1.5 s, next to several seconds of analysis in Python). The
alternative, checking the candidate turns' text from the archive, cost 55-600 ms a phrase there (273-2,697
turns holding every term of "machine learning" .. "make sure", re-analysed), growing with the archive.
The turn's text itself stays in the archive. Integer fast fields carry what the search needs per hit: session, time, chat and ordinal.

Queries are built from the analysed terms as an OR of term queries, never with tantivy's query parser, so any
user text is a valid query. The time range and the chat set sit under a constant-0 score wrapper (under Must
a filter would add 1.0 to every score), excluded sessions under MustNot.

Layout: ``index/CURRENT`` names the live generation folder (``index/g-<n>``) and the format it was built
with. A rebuild writes a new generation and swaps ``CURRENT`` with one atomic rename, so readers never see a
half-built index. Writers (sync, rebuild) serialize on ``index/write.lock``; readers never take it.

The archive's index queue says which sessions are stale. ``sync`` deletes their documents and adds their
current turns in one commit, then clears those queue entries: a crash anywhere leaves the queue set, and the
next sync redoes the same work, so it is idempotent. tantivy's N and n count deleted documents until a merge;
``rebuild`` makes the statistics exact again.
"""

from __future__ import annotations

# shutil and tempfile are imported where an index is written: they load bz2, lzma and random, which a
# reader (`refind search`) never needs.
import collections
import contextlib
import itertools
import math
import operator
import os
import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence

import tantivy

from refind_cli.index.contract import OnWait, TurnKey, chat_analyzers, epoch_seconds, turn_text
from refind_cli.storage import locks
from refind_cli.storage.home import ensure_home, home_to_read
from refind_cli.text.analysis import ANALYSIS_VERSION, DEFAULT_ANALYZER, Analyzer
from refind_cli.typed import cast

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Self

    from _typeshed import StrPath

    from refind_cli.index.analysed import Fields
    from refind_cli.request import SearchRequest
    from refind_cli.storage.archive import Archive

# 3: positions; 4: the speaker field; 5: emoji terms, Latin diacritics folded; 6: each chat analysed in its
# language, Thai/Lao/Khmer/Myanmar as bigrams; 7: times and ordinals not indexed, only fast
FORMAT_VERSION = 7
INDEX_DIR = "index"
CURRENT = "CURRENT"
LOCK = "write.lock"

INDEX_THREADS = max(1, min(4, (os.cpu_count() or 2) - 1))

# The most hits one counting pass collects (tantivy allocates a buffer of twice the limit per segment);
# 65,536 measured best among 16K, 64K and 256K on 1M turns.
FIRST_PASS = 65_536
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1
# A writer's arena: tantivy fills it before it writes a segment, on a first build and on the update after a
# second large export alike. 512 MB made the first index of a million messages take 90 MB more memory than
# 32 MB for the same CPU time (more segments, merged in the background; bench/RESULTS.md). tantivy wants at
# least 15 MB per indexing thread.
WRITER_HEAP = max(32_000_000, 16_000_000 * INDEX_THREADS)


# The integer fields a term query names: excluded sessions (and a sync's deletes), the chat set.
_TERM_QUERIED = frozenset({"sess", "chat"})
# A turn's fields, in ``analysed.AnalysedTurn``'s order: the keys of the JSON document it is added as.
_FIELDS: Fields = ("sess", "turn", "chat", "ts", "speaker", "text")


def build_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("text", stored=False, tokenizer_name="whitespace", index_option="position")
    # Nothing is stored: (sess, turn) names the turn in the archive. A stored, raw-indexed turn id cost about
    # a quarter of the indexing time (measured) for a value the search can look up from two fast fields.
    # The speaker as one term, for --from: a filter, never scored (the name is in "text" too, for that).
    sb.add_text_field("speaker", stored=False, tokenizer_name="raw", index_option="basic")
    # i64, not date or u64: fast_field_values reads only numeric columns, and Python ints are i64. Indexed
    # (a term a value) only where a term query needs it: a set of sessions or chats. A time range is
    # answered from the fast column, and a turn's ordinal is only read back. The terms of every start time
    # and ordinal were 4.3 of the 13.2 MB of a million messages' index, and a third of the build's time
    # (bench/RESULTS.md, issue 26 item 4, session 12).
    for name in ("sess", "ts", "chat", "turn"):
        sb.add_integer_field(name, stored=False, indexed=name in _TERM_QUERIED, fast=True)
    return sb.build()


_SCORE, _ADDRESS = operator.itemgetter(0), operator.itemgetter(1)


# CURRENT as ``_publish`` writes it (``json.dumps`` of the two strings): read without loading ``json``, whose
# import compiles five regular expressions, ~1.2 ms of a cold search (bench/RESULTS.md, issue 26 item 3,
# session 16). A string without a quote, a backslash or a control character is its own JSON.
_WRITTEN = re.compile(r'\{"generation": "([^"\\\x00-\x1f]*)", "format": "([^"\\\x00-\x1f]*)"\}')


def _as_written(text: str) -> dict[str, str] | None:
    """What ``json.loads`` reads in ``text``, where it is in the form CURRENT is written in; else None."""
    found = _WRITTEN.fullmatch(text)
    return None if found is None else {"generation": found[1], "format": found[2]}


class TantivyMatches:
    """``Matches`` over tantivy hits: scores now, fast fields only when asked for. The query is kept, so that a
    timeline counts every match in tantivy (aggregations over the ``ts`` fast field)."""

    __slots__ = ("_addrs", "_query", "_schema", "_searcher", "scores", "total")

    def __init__(
        self, searcher: tantivy.Searcher, schema: tantivy.Schema, query: tantivy.Query, total: int, hits: list
    ) -> None:
        self._searcher = searcher
        self._schema = schema
        self._query = query
        self.total = total
        # itemgetter through map: a quarter faster than comprehensions over 25,000 hits (0.68 against 0.94 ms).
        self.scores = list(map(_SCORE, hits))
        self._addrs = list(map(_ADDRESS, hits))

    def sessions(self) -> list[int]:
        return self._values("sess", self._addrs)

    def span(self) -> tuple[int, int] | None:
        if not self.total:
            return None
        found = self._aggregate({"lo": {"min": {"field": "ts"}}, "hi": {"max": {"field": "ts"}}})
        # Aggregations answer in floats: exact for every second of years 1-9999 (under 2**53).
        return int(found["lo"]["value"]), int(found["hi"]["value"])

    def counts(self, edges: Sequence[int]) -> list[int]:
        if not edges:
            return [self.total]
        ranges = [
            {"to": edges[0]},
            *({"from": a, "to": b} for a, b in itertools.pairwise(edges)),
            {"from": edges[-1]},
        ]
        found = self._aggregate({"r": {"range": {"field": "ts", "ranges": ranges}}})["r"]["buckets"]
        if len(found) != len(ranges):
            raise AssertionError(f"tantivy counted {len(found)} ranges of {len(ranges)}")
        return [int(b["doc_count"]) for b in sorted(found, key=lambda b: b.get("from", -math.inf))]

    def times_within(self, ranges: Sequence[tuple[int, int]]) -> list[int]:
        if not ranges or not self.total:
            return []
        Q, Occur, integer = tantivy.Query, tantivy.Occur, tantivy.FieldType.Integer
        within = [(Occur.Should, Q.range_query(self._schema, "ts", integer, a, b - 1)) for a, b in ranges]
        q = Q.boolean_query([(Occur.Must, self._query), (Occur.Must, Q.boolean_query(within))])
        first = self._searcher.search(q, min(self.total, FIRST_PASS), count=True)
        # read .hits once: every access rebuilds the list. tantivy's stub leaves out .count (set by count=True).
        count, hits = first.count, first.hits  # type: ignore[attr-defined]
        if len(hits) < count:
            hits = self._searcher.search(q, count, count=False).hits
        return self._values("ts", list(map(_ADDRESS, hits)))

    def _aggregate(self, aggregations: dict[str, object]) -> dict[str, Any]:
        return cast("dict[str, Any]", self._searcher.aggregate(self._query, aggregations))

    def turns(self, which: Sequence[int]) -> list[TurnKey]:
        addrs = [self._addrs[i] for i in which]
        values = self._values
        return list(zip(values("ts", addrs), values("sess", addrs), values("turn", addrs), strict=True))

    def _values(self, field: str, addrs: list[tantivy.DocAddress]) -> list[int]:
        # tantivy types a fast field's values as any field type's; ours (ts, sess, turn) are integers.
        return cast("list[int]", self._searcher.fast_field_values(field, addrs))


class TantivyIndex:
    """An open turn index (``refind_cli.index.TurnIndex``). Each search takes a fresh searcher, so it sees what
    ``sync`` committed."""

    _refreshed_at: tuple[int, ...] | None = None  # ``_commit_stamp`` at the last refresh
    _index: tantivy.Index  # the generation on disk, or an empty one in memory until there is one

    def __init__(
        self,
        root: StrPath,
        *,
        analyzer: Analyzer,
        speaker_in_text: bool,
        on_wait: OnWait | None,
        wait_timeout: float,
    ) -> None:
        self.root = os.fspath(root)
        self.analyzer = analyzer
        self.speaker_in_text = speaker_in_text
        self.on_wait = on_wait
        self.wait_timeout = wait_timeout
        self.schema = build_schema()
        # What the documents mean: an index built with another analyzer or text recipe is not reused.
        self.format = (
            f"v{FORMAT_VERSION}:porter:{analyzer.name}:{'speaker' if speaker_in_text else 'text'}"
            f":languages-{ANALYSIS_VERSION}"
        )
        self.generation: str | None = None
        self._attach()
        if self.generation is None:
            # Until the first sync creates one on disk, searches run against an empty in-memory index (made
            # only then: not before opening the one on disk, as every search did).
            self._index = tantivy.Index(self.schema)

    @classmethod
    def open(
        cls,
        home: StrPath,
        *,
        analyzer: Analyzer = DEFAULT_ANALYZER,
        speaker_in_text: bool = True,
        on_wait: OnWait | None = None,
        wait_timeout: float = 60.0,
    ) -> Self:
        """Open the index of ``home`` for reading. Nothing is written: a missing, foreign or outdated index
        reads as empty, and the next ``sync`` builds it from the archive."""
        root = os.path.join(home, INDEX_DIR)
        if home_to_read(home):
            os.makedirs(root, mode=0o700, exist_ok=True)
        return cls(
            root,
            analyzer=analyzer,
            speaker_in_text=speaker_in_text,
            on_wait=on_wait,
            wait_timeout=wait_timeout,
        )

    # -- reading ----------------------------------------------------------------------------------------

    def _current(self) -> str | None:
        """The live generation, if CURRENT names one built in this index's format."""
        try:
            with open(os.path.join(self.root, CURRENT), encoding="utf-8") as file:
                text = file.read()
        except (OSError, ValueError):
            return None
        meta = _as_written(text)
        if meta is None:
            import json  # a CURRENT not as ``_swap`` writes it: read as any JSON (most searches load no json)

            try:
                meta = json.loads(text)
            except ValueError:
                return None
        if not isinstance(meta, dict) or meta.get("format") != self.format:
            return None
        gen = meta.get("generation")
        if not isinstance(gen, str) or not os.path.isdir(os.path.join(self.root, gen)):
            return None
        return gen

    def _attach(self) -> None:
        """Point at the generation CURRENT names (a rebuild by another process may have replaced ours)."""
        gen = self._current()
        if gen is None or gen == self.generation:
            return
        path = os.path.join(self.root, gen)
        try:
            index = tantivy.Index(self.schema, path=path, reuse=True)
        except ValueError:
            # Unreadable or of another schema: treated like a missing index; sync writes a fresh one. Or a
            # folder this user cannot write, where tantivy cannot take the lock it takes even to read
            # (tantivy #557): read it through links in a private folder instead.
            found = None if os.access(path, os.W_OK) else self._through_links(path)
            if found is None:
                return
            index = found
        self._index = index
        self.generation = gen

    def _through_links(self, path: str) -> tantivy.Index | None:
        """The generation at ``path`` opened from a temporary folder of links to its files (its lock files
        left out, so tantivy makes its own there). The folder goes when this index object does."""
        # Here, not at the top: weakref is ~2 % of the instructions of a search that finds nothing (one that
        # shows hits loads it with zoneinfo), and this is the rare path.
        import shutil
        import tempfile
        import weakref

        shadow = tempfile.mkdtemp(prefix="refind-index-")
        weakref.finalize(self, shutil.rmtree, shadow, True)
        for file in os.scandir(path):
            if not file.name.endswith(".lock"):
                os.symlink(file.path, os.path.join(shadow, file.name))
        try:
            return tantivy.Index(self.schema, path=shadow, reuse=True)
        except ValueError:
            return None

    def refresh(self) -> None:
        """See the latest commit now, and a generation another process's rebuild swapped in, rather than
        when tantivy's reader notices the commit by itself (a process that lives on: the MCP server).
        Costs ~0.09 ms at 1M turns, ~0.01 ms when neither CURRENT nor the generation's meta.json changed
        since the last refresh (both are replaced by a rename, so a new commit or generation is a new
        inode); reopening the index instead costs ~0.3 ms and its warm caches (~2 ms of the next search)."""
        seen = self._commit_stamp()
        if seen is not None and seen == self._refreshed_at:
            return
        self._refreshed_at = seen
        self._attach()
        try:
            self._index.reload()
        except ValueError:
            # A rebuild swapped this generation out (and removed it) after CURRENT was read: follow it.
            self._attach()

    def _commit_stamp(self) -> tuple[int, ...] | None:
        """(inode, mtime, size) of CURRENT and of the live generation's meta.json; None without them."""
        if self.generation is None:
            return None
        try:
            files = (
                os.stat(os.path.join(self.root, CURRENT)),
                os.stat(os.path.join(self.root, self.generation, "meta.json")),
            )
        except OSError:
            return None
        return tuple(v for f in files for v in (f.st_ino, f.st_mtime_ns, f.st_size))

    @property
    def num_docs(self) -> int:
        return self._index.searcher().num_docs

    def indexed_text(self, speaker: str, text: str) -> str:
        return turn_text(speaker, text, speaker_in_text=self.speaker_in_text)

    def _phrase(self, terms: Sequence[str]) -> tantivy.Query:
        if len(terms) == 1:
            return tantivy.Query.term_query(self.schema, "text", terms[0])
        return tantivy.Query.phrase_query(self.schema, "text", list(terms))

    def _query(
        self,
        terms: Sequence[str],
        request: SearchRequest,
        exclude: Collection[int],
        phrases: Sequence[Sequence[str]],
        without: Sequence[Sequence[str]],
        speakers: Collection[str] | None,
    ) -> tantivy.Query:
        schema = self.schema
        Q, Occur = tantivy.Query, tantivy.Occur
        term_queries = [Q.term_query(schema, "text", t) for t in terms]
        text_q = (
            term_queries[0]
            if len(term_queries) == 1
            else Q.boolean_query([(Occur.Should, q) for q in term_queries])
        )
        clauses: list[tuple[tantivy.Occur, tantivy.Query]] = [(Occur.Must, text_q)]
        # A phrase restricts like a filter; its terms score through text_q, as plain words do.
        clauses += [(Occur.Must, Q.const_score_query(self._phrase(p), 0.0)) for p in phrases]
        clauses += [(Occur.MustNot, self._phrase(p)) for p in without]
        since, until, chats = request.since, request.until, request.chats
        if since is not None or until is not None:
            lo = epoch_seconds(since) if since is not None else _I64_MIN
            hi = epoch_seconds(until) if until is not None else _I64_MAX
            rng = Q.range_query(schema, "ts", tantivy.FieldType.Integer, lo, hi)
            # Under Must a filter would add 1.0 to every score; the wrapper makes it a pure restriction.
            clauses.append((Occur.Must, Q.const_score_query(rng, 0.0)))
        if chats is not None:
            chat_q = Q.term_set_query(schema, "chat", list(chats))
            clauses.append((Occur.Must, Q.const_score_query(chat_q, 0.0)))
        if speakers is not None:
            speaker_q = Q.term_set_query(schema, "speaker", list(speakers))
            clauses.append((Occur.Must, Q.const_score_query(speaker_q, 0.0)))
        if exclude:
            clauses.append((Occur.MustNot, Q.term_set_query(schema, "sess", sorted(exclude))))
        return Q.boolean_query(clauses) if len(clauses) > 1 else text_q

    def _first_pass(
        self,
        terms: Sequence[str],
        request: SearchRequest,
        exclude: Collection[int],
        phrases: Sequence[Sequence[str]],
        without: Sequence[Sequence[str]],
        speakers: Collection[str] | None,
    ) -> tuple[tantivy.Searcher, tantivy.Query, int, list]:
        """(searcher, query, total, hits) of one counting pass. tantivy scores every match on every pass, so
        one pass should collect them all: no more turns match than the sum of the terms' document frequencies
        (a bound that ignores the filters). Above FIRST_PASS the buffer tantivy allocates for the bound
        would cost more than a second pass."""
        searcher = self._index.searcher()
        q = self._query(terms, request, exclude, phrases, without, speakers)
        bound = sum(searcher.doc_freq("text", t) for t in terms)
        first = searcher.search(q, max(1, min(bound, FIRST_PASS)), count=True)
        # read .hits once: every access rebuilds the list. tantivy's stub leaves out .count (set by count=True).
        return searcher, q, first.count, first.hits  # type: ignore[attr-defined]

    def matching(
        self,
        terms: Sequence[str],
        request: SearchRequest,
        exclude: Collection[int],
        *,
        phrases: Sequence[Sequence[str]] = (),
        without: Sequence[Sequence[str]] = (),
        speakers: Collection[str] | None = None,
    ) -> TantivyMatches:
        searcher, q, total, hits = self._first_pass(terms, request, exclude, phrases, without, speakers)
        if len(hits) < total:
            hits = searcher.search(q, total, count=False).hits
        return TantivyMatches(searcher, self.schema, q, total, hits)

    def best(
        self,
        terms: Sequence[str],
        request: SearchRequest,
        exclude: Collection[int],
        *,
        phrases: Sequence[Sequence[str]] = (),
        without: Sequence[Sequence[str]] = (),
        speakers: Collection[str] | None = None,
    ) -> TantivyMatches:
        searcher = self._index.searcher()
        q = self._query(terms, request, exclude, phrases, without, speakers)
        # The k best and one more, every match counted: turning every match into Python objects, as
        # ``matching`` must, was a third of a cold search's work ("dinner" over 1M turns: 14,667 of them).
        limit = request.k + 1
        first = searcher.search(q, limit, count=True)
        # read .hits once: every access rebuilds the list. tantivy's stub leaves out .count (set by count=True).
        total, hits = first.count, first.hits  # type: ignore[attr-defined]
        # While turns tying with the k-th best may lie past what was collected, collect more: the method
        # orders equal scores itself, so it needs all of them.
        while len(hits) < total and hits[-1][0] == hits[min(request.k, len(hits)) - 1][0]:
            limit = min(total, limit * 8)
            hits = searcher.search(q, limit, count=False).hits
        if not hits:
            return TantivyMatches(searcher, self.schema, q, total, hits)
        last = min(request.k, len(hits)) - 1
        cut = hits[last][0]
        end = last + 1
        while end < len(hits) and hits[end][0] >= cut:
            end += 1
        return TantivyMatches(searcher, self.schema, q, total, hits[:end])

    def expand(self, prefix: str, limit: int) -> list[str]:
        return [
            term for term, _count in self._index.searcher().terms_with_prefix("text", prefix, limit=limit)
        ]

    def doc_freq(self, term: str) -> int:
        return self._index.searcher().doc_freq("text", term)

    # -- writing ----------------------------------------------------------------------------------------

    def _write_lock(self) -> contextlib.AbstractContextManager[None]:
        """Exclusive writing across processes. Waits and retries, telling ``on_wait`` once, then gives up."""
        # Opened to read a home that did not exist yet, it has no folder of its own until a writer's.
        ensure_home(os.path.dirname(self.root))
        os.makedirs(self.root, mode=0o700, exist_ok=True)
        return locks.exclusive(
            os.path.join(self.root, LOCK),
            timeout=self.wait_timeout,
            waiting="waiting for another refind process to finish writing the index",
            busy=f"{self.root}: another refind process is writing the index; gave up after {self.wait_timeout:g} s",
            on_wait=self.on_wait,
        )

    def _new_generation(self) -> tuple[str, tantivy.Index]:
        gen = f"g-{time.time_ns()}"
        path = os.path.join(self.root, gen)
        os.mkdir(path, mode=0o700)
        return gen, tantivy.Index(self.schema, path=path, reuse=False)

    def _publish(self, gen: str, index: tantivy.Index) -> None:
        """Make ``gen`` the live generation (atomic rename) and remove the others."""
        import json

        tmp = os.path.join(self.root, f"{CURRENT}.tmp")
        with open(tmp, "w", encoding="utf-8") as file:
            file.write(json.dumps({"generation": gen, "format": self.format}))
        os.replace(tmp, os.path.join(self.root, CURRENT))
        self._index = index
        self.generation = gen
        import shutil

        for old in os.scandir(self.root):
            if old.name.startswith("g-") and old.name != gen:
                # Readers that still have the old files mapped keep reading them (POSIX unlink semantics).
                shutil.rmtree(old.path, ignore_errors=True)

    def _documents(
        self,
        archive: Archive,
        session_seqs: list[int] | None,
        meanwhile: Callable[[], None] | None = None,
    ) -> Iterator[list[str]]:
        """The turns of these sessions (None: every one), analysed as this index analyses them, in batches of
        JSON documents (``meanwhile``: ``analysed.turn_documents``')."""
        # Here, not at the top: a search opens the index and never builds it (the child process's start-up).
        from refind_cli.index.analysed import turn_documents

        return turn_documents(
            archive,
            session_seqs,
            analyzer=self.analyzer,
            others=chat_analyzers(self, archive),
            speaker_in_text=self.speaker_in_text,
            fields=_FIELDS,
            meanwhile=meanwhile,
        )

    def _add(self, writer: tantivy.IndexWriter, batches: Iterable[list[str]]) -> int:
        # Each document parsed from its JSON by tantivy, the loop over a batch in C.
        add = writer.add_json
        n = 0
        for batch in batches:
            collections.deque(map(add, batch), maxlen=0)
            n += len(batch)
        return n

    def _write(self, index: tantivy.Index, heap: int, work: Callable[[tantivy.IndexWriter], int]) -> int:
        # Python (archive reads, analysis) keeps one core busy; tantivy's indexing threads get the others.
        writer = index.writer(heap_size=heap, num_threads=INDEX_THREADS)
        try:
            n = work(writer)
            writer.commit()
        except BaseException:
            writer.rollback()
            raise
        writer.wait_merging_threads()
        index.reload()
        return n

    def sync(self, archive: Archive, *, meanwhile: Callable[[], None] | None = None) -> int:
        """Bring the index up to date with the archive's index queue. Returns the number of turns added.
        ``meanwhile``: ``TurnIndex.sync``'s."""
        if meanwhile is None:
            return self._sync(archive, None)
        done = False

        def beside() -> None:
            nonlocal done
            done = True
            meanwhile()

        n = self._sync(archive, beside)
        if not done:
            meanwhile()
        return n

    def _sync(self, archive: Archive, meanwhile: Callable[[], None] | None) -> int:
        """``sync``, ``meanwhile`` done beside a build of every turn."""
        queue = archive.index_queue()
        if not queue and self.generation is not None and self.num_docs > 0:
            return 0
        with self._write_lock():
            self._attach()
            queue = archive.index_queue()
            if self.generation is None or self.num_docs == 0:
                # Nothing indexed yet (first use, or the index was lost): index every turn, not just the
                # queue. A build cut short leaves nothing indexed, so the next sync indexes every turn
                # again: the queue can be emptied first, as ``meanwhile`` wants it.
                if meanwhile is not None:
                    archive.clear_index_queue(queue)
                    queue = []
                batches = self._documents(archive, None, meanwhile)
                first = next(batches, None)
                if first is None:
                    archive.clear_index_queue(queue)
                    return 0
                every = itertools.chain((first,), batches)
                if self.generation is None:
                    gen, index = self._new_generation()
                    n = self._write(index, WRITER_HEAP, lambda w: self._add(w, every))
                    self._publish(gen, index)
                else:
                    n = self._write(self._index, WRITER_HEAP, lambda w: self._add(w, every))
            else:
                if not queue:
                    return 0

                def upsert(w: tantivy.IndexWriter) -> int:
                    # One delete per run of consecutive sessions: tantivy holds each delete until the commit,
                    # and one a session took 200 MB for the 166,794 sessions of a second large export.
                    for lo, hi in _runs(queue):
                        w.delete_documents_by_query(
                            tantivy.Query.range_query(self.schema, "sess", tantivy.FieldType.Integer, lo, hi)
                        )
                    return self._add(w, self._documents(archive, queue))

                n = self._write(self._index, WRITER_HEAP, upsert)
            archive.clear_index_queue(queue)
            return n

    def rebuild(self, archive: Archive) -> int:
        """A fresh index of every turn, swapped in when complete. Also the way to exact BM25 statistics:
        deleted documents keep counting in tantivy's N and df until a merge. Returns the number of turns."""
        with self._write_lock():
            queue = archive.index_queue()
            gen, index = self._new_generation()
            try:
                n = self._write(
                    index,
                    WRITER_HEAP,
                    lambda w: self._add(w, self._documents(archive, None)),
                )
            except BaseException:
                import shutil

                shutil.rmtree(os.path.join(self.root, gen), ignore_errors=True)
                raise
            self._publish(gen, index)
            archive.clear_index_queue(queue)
            return n


def _runs(seqs: list[int]) -> Iterator[tuple[int, int]]:
    """Ascending ``seqs`` as runs of consecutive numbers, each (first, last)."""
    start = 0
    for i in range(1, len(seqs) + 1):
        if i == len(seqs) or seqs[i] != seqs[i - 1] + 1:
            yield seqs[start], seqs[i - 1]
            start = i
