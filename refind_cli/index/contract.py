"""The seam between the ReFind method (``search.py``) and a BM25 engine.

The method (query analysis, session sums, RRF, competition ranks, ties, windows) asks an engine for little:
the turns that match any of some analysed terms under filters, each with its BM25 score and session, then,
for the few turns it keeps, their time and ordinal. ``TurnIndex`` is that contract; ``tantivy_backend`` is
the one engine refind ships, and the only module that imports tantivy. ``tests/fake_index.py`` holds a pure
Python engine with the same BM25, against which the method is tested.

The contract, for any engine:
- A turn is indexed under ``indexed_text(speaker, text)``, ``text`` its first ``INDEXED_CHARS`` characters
  (``Archive.index_rows``), analysed by its chat's analyzer (``chat_analyzers``:
  ``analyzer`` for English and undetermined chats, ``analysis.analyzer_for`` of the chat's language for others;
  terms joined by spaces,
  term frequencies and positions kept), with its speaker as one keyword and integer fields: session seq,
  ordinal, chat seq and time (the archive's epoch
  seconds, ``Archive.index_rows``). The archive is the source of truth: ``sync`` catches up with its index
  queue, ``rebuild`` starts again from every turn.
- A turn matches when it contains at least one of the terms, every one of the ``phrases`` (analysed terms
  one after another, at consecutive positions of its analysed text) and none of the ``without`` entries (a
  term, or terms one after another). Its score is BM25 summed over the terms it contains (phrases and
  exclusions never change a score): k1 = 1.2, b = 0.75, Lucene idf ln(1 + (N - n + 0.5) / (n + 0.5)), the turn's length as the
  engine stores it (tantivy rounds lengths above 40 terms to one of 256 values). Filters restrict the matches
  and never change a score: ``request.since``/``until`` are inclusive bounds on the time at whole seconds
  (``epoch_seconds``), ``request.chats`` the chat seqs to keep (None: all), ``exclude`` the session seqs to drop,
  ``speakers`` the speaker names to keep, exactly as the archive holds them (None: all).
- ``refresh`` makes what another process committed (a sync, a rebuild) visible to the next query.
- ``expand`` lists the index's terms that start with a prefix, the ones in most turns first (for ``word*``).
- ``doc_freq`` is the number of turns holding an analysed term, the n of its idf (the offline planner's
  measure of how rare a word is).
- ``matching`` holds every match; ``best`` holds at least every match scoring at least as high as the
  ``request.k``-th best, so a plain BM25 top k need not fetch every match. Both know ``total``, the number of
  matches; both hold their scores best first, in any order among equal scores (the method breaks ties).

How other engines would implement it (none is built):
- OpenSearch / Elasticsearch: a ``text`` field with the ``whitespace`` analyzer (``index_options: positions``)
  fed our analysed text, and integer fields ``sess``, ``turn``, ``chat``, ``ts`` with doc values.
  The query is a ``bool`` of ``should`` term queries on ``text`` (never ``query_string``: any user text must
  be a valid query), ``filter`` clauses for the ``range`` on ``ts``, the ``terms`` on ``chat`` and ``speaker`` (a
  ``keyword`` field) and a
  ``match_phrase`` per phrase (filters do not score there), and ``must_not`` ``terms`` on ``sess`` and
  ``match_phrase`` per exclusion. ``expand`` is a ``terms`` aggregation with an ``include`` prefix pattern.
  ``track_total_hits: true`` gives ``total``; ``matching`` pages through every hit with a point in time and
  ``search_after`` (``_source: false``, ``docvalue_fields: [sess, ts, turn]``); ``best`` asks for ``size: k``
  and pages on while the last score equals the k-th. The session sums could come from the engine instead of from every hit, as a ``terms``
  aggregation on ``sess`` with a ``sum`` sub-aggregation over the script ``_score``, but the turn ranks of
  RRF still need every hit's score. Lucene's BM25 drops the constant (k1 + 1) factor (the same ranks) and
  quantizes lengths differently from tantivy (scores of long turns differ by a few percent); one shard, or
  ``dfs_query_then_fetch``, keeps N and n global. ``sync`` is a bulk request (delete by query on ``sess``,
  then index) with a refresh; ``rebuild`` writes a new index and swaps an alias, as ``CURRENT`` does here.
- Quickwit: the same query and filters; it is tantivy underneath, so, as here, aggregations cannot read the
  score and the sums come from the hits (``sess`` a fast field, hits sorted by ``_score``, paged). Its
  ingestion is append-only with delete tasks, so ``sync`` would delete by query on ``sess`` and re-ingest.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import UTC, datetime

from refind_cli.typed import Protocol

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from _typeshed import StrPath

    from refind_cli.request import SearchRequest
    from refind_cli.storage.archive import Archive
    from refind_cli.text.analysis import Analyzer

# (time in epoch seconds, session seq, ordinal): where a turn is, and what breaks ties between equal scores.
TurnKey = tuple[int, int, int]

# A turn is indexed, and read by a search, as the first this many characters of its text; the archive keeps
# and `show --json` gives it whole. Only a single message is ever longer (the segmenter caps a turn of several
# at 100,000 characters), and chat apps cap a message far below this (Telegram 4,096, Discord 4,000, WhatsApp
# 65,536): what passes it is a pasted document or log, whose words further in are not searched. Analysed
# whole, a 50-MB message cost an index build 180 MB more than a small archive; its first million characters
# cost a few (bench/RESULTS.md, issue 24).
INDEXED_CHARS = 1_000_000


class Matches(Protocol):
    """The turns that match a query under its filters, best BM25 score first."""

    @property
    def total(self) -> int:
        """Every match under the filters, held here or not."""
        ...

    @property
    def scores(self) -> Sequence[float]:
        """The BM25 scores of the matches held, in descending order."""
        ...

    def sessions(self) -> Sequence[int]:
        """The session seq of each match held, in the order of ``scores``."""
        ...

    def turns(self, which: Sequence[int]) -> list[TurnKey]:
        """Time, session and ordinal of the matches at these positions of ``scores``."""
        ...

    # What a timeline reads of every match, held or not (``dates.timeline.Spread``): counted in the engine, not
    # each turned into a Python object (a third of a cold search's work for "dinner" over 1M turns).
    def span(self) -> tuple[int, int] | None:
        """The earliest and the latest time (epoch seconds) of every match; None when nothing matches."""
        ...

    def counts(self, edges: Sequence[int]) -> list[int]:
        """How many of every match's times fall before ``edges[0]``, in each ``[edges[i], edges[i + 1])``
        and from ``edges[-1]`` on (``len(edges) + 1`` counts; ``edges`` strictly ascending)."""
        ...

    def times_within(self, ranges: Sequence[tuple[int, int]]) -> list[int]:
        """The time of every match whose time is within one of these ``[start, end)`` ranges."""
        ...


# Opens the index of a home folder (creating nothing an empty home would not need); ``on_wait`` hears, once,
# that a write waits for another process's. The registry in ``index/__init__.py`` maps names to these.
OnWait = Callable[[str], None]


class Engine(Protocol):
    def __call__(self, home: StrPath, *, on_wait: OnWait | None = None) -> TurnIndex: ...


class TurnIndex(Protocol):
    """A BM25 index of the archive's turns (see the module docstring for the contract)."""

    analyzer: Analyzer
    speaker_in_text: bool

    @property
    def num_docs(self) -> int: ...

    def indexed_text(self, speaker: str, text: str) -> str:
        """The text a turn is indexed under, before analysis."""
        ...

    def sync(self, archive: Archive, *, meanwhile: Callable[[], None] | None = None) -> int:
        """Catch up with the archive's index queue (everything, when nothing is indexed yet); returns the
        number of turns added. ``meanwhile``: work on the archive (a first import's compaction) done by the
        time it returns, once the queue is emptied: beside the build where the engine reads the archive in
        another process (this one's connection is the work's meanwhile), else after it."""
        ...

    def rebuild(self, archive: Archive) -> int:
        """Index every turn afresh; returns the number of turns."""
        ...

    def refresh(self) -> None:
        """See what was committed since it was opened, by this process or another (a front end that lives
        on, the MCP server, calls it before each read)."""
        ...

    def matching(
        self,
        terms: Sequence[str],
        request: SearchRequest,
        exclude: Collection[int],
        *,
        phrases: Sequence[Sequence[str]] = (),
        without: Sequence[Sequence[str]] = (),
        speakers: Collection[str] | None = None,
    ) -> Matches:
        """Every turn containing one of ``terms`` (distinct, analysed) and each of the ``phrases``, and none
        of the ``without`` phrases, under the request's filters, outside the ``exclude``d session seqs."""
        ...

    def best(
        self,
        terms: Sequence[str],
        request: SearchRequest,
        exclude: Collection[int],
        *,
        phrases: Sequence[Sequence[str]] = (),
        without: Sequence[Sequence[str]] = (),
        speakers: Collection[str] | None = None,
    ) -> Matches:
        """As ``matching``, holding at least the matches that score as high as the ``request.k``-th best."""
        ...

    def expand(self, prefix: str, limit: int) -> list[str]:
        """Up to ``limit`` indexed terms starting with ``prefix``, those in the most turns first."""
        ...

    def doc_freq(self, term: str) -> int:
        """The number of turns holding the analysed ``term``, as BM25's idf counts them."""
        ...


def analyzer_of(index: TurnIndex, lang: str) -> Analyzer:
    """How ``index`` analyses a chat in ``lang``: with its own analyzer when the language has none of its own
    (English, undetermined), else with that language's."""
    from refind_cli.text.analysis import DEFAULT_ANALYZER, analyzer_for

    found = analyzer_for(lang)
    return index.analyzer if found is DEFAULT_ANALYZER else found


def chat_analyzers(index: TurnIndex, archive: Archive) -> dict[int, Analyzer]:
    """The chats whose turns ``index`` analyses with another analyzer than its own: chat seq -> analyzer."""
    languages = archive.chat_languages()
    # Asked once a language, not once a chat: an import into a home of 20,000 chats asks this each time.
    by_lang = {lang: analyzer_of(index, lang) for lang in set(languages.values())}
    return {
        chat: analyzer
        for chat, lang in languages.items()
        if (analyzer := by_lang[lang]) is not index.analyzer
    }


def turn_text(speaker: str, text: str, *, speaker_in_text: bool) -> str:
    """The text a turn is indexed under. With the speaker's name, "what did Caroline say about ..." finds
    Caroline's turns (LoCoMo evidence recall 0.746 against 0.730 without)."""
    return f"{speaker}\n{text}" if speaker_in_text else text


def epoch_seconds(dt: datetime) -> int:
    """A time filter bound as the indexes compare it: floored epoch seconds, a naive datetime taken as UTC."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp() // 1)
