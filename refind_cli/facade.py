"""The library's front door: one home folder and every whole operation on it.

``Home`` opens what an operation needs and nothing more, takes the right lock, and catches the index up
before a read, so a front end (the typer CLI, the MCP server, a script) parses its input, makes one call and
hands the result to a renderer or a protocol. Nothing here prints or parses command lines.

Locks: readers never wait. A read opens the archive and the index and answers from the last commit; if the
index fell behind the archive (a crash between the two, or a lost index folder), the read catches it up
only when the home's write lock is free at that moment. Writers (import, forget, doctor, reindex) hold the
write lock for the whole operation; a second writer waits, saying so once through ``on_wait``.

Heavy modules (the archive and index engines, the agent, the importers) are imported inside the methods
that use them: ``refind --help`` and the argument errors of every command never load them.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from refind_cli.errors import RefindError
from refind_cli.home import ensure_home, resolve_home
from refind_cli.request import ImportOptions, SearchRequest, Selection, time_range

if TYPE_CHECKING:
    from refind_cli.agent.events import AskResult
    from refind_cli.archive import Archive
    from refind_cli.benchmarks import Question
    from refind_cli.evaluate import EvalReport
    from refind_cli.index import Index
    from refind_cli.ingest.progress import Progress
    from refind_cli.records import ChatInfo
    from refind_cli.reports import (
        FileImportResult,
        ForgetOutcome,
        ForgetPlan,
        Health,
        Reindexed,
        SessionView,
        Stats,
    )
    from refind_cli.results import ChatSummary, SearchResult

OnWait = Callable[[str], None]
# Opens the progress display of one export and gives the callback the import reports to (or None).
ProgressFor = Callable[[Path], contextlib.AbstractContextManager["Progress | None"]]


# How `refind chats --sort` orders chats: by id (import order), most recent activity first, name, size.
CHAT_ORDERS: dict[str, Callable[[ChatSummary], Any]] = {
    "id": lambda c: c.info.seq,
    "recent": lambda c: -(c.last.timestamp() if c.last else float("-inf")),
    "name": lambda c: (c.info.name.casefold(), c.info.seq),
    "messages": lambda c: (-c.messages, c.info.seq),
}


def _checked_sources(sources: Sequence[str] | None) -> tuple[str, ...] | None:
    """``--source`` values: importer names (``refind import --help`` lists them)."""
    if not sources:
        return None
    from refind_cli.importers import names

    known = names()
    for source in sources:
        if source not in known:
            raise RefindError(f"--source: {source!r} is not one of {', '.join(known)}")
    return tuple(dict.fromkeys(sources))


def _no_progress(_path: Path) -> contextlib.AbstractContextManager[None]:
    return contextlib.nullcontext()


@dataclass
class Home:
    """A refind home folder. Use as a context manager, or call ``close``."""

    path: Path
    on_wait: OnWait | None = None
    _archive: Archive | None = field(default=None, repr=False)
    _index: Index | None = field(default=None, repr=False)

    @classmethod
    def open(cls, path: str | Path | None = None, *, on_wait: OnWait | None = None) -> Home:
        """The home at ``path``, else ``$REFIND_HOME``, else ``$XDG_DATA_HOME/refind``."""
        return cls(resolve_home(path), on_wait)

    def close(self) -> None:
        if self._archive is not None:
            self._archive.close()
            self._archive = None
        self._index = None

    def __enter__(self) -> Home:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- opening ----------------------------------------------------------------------------------------

    def archive(self) -> Archive:
        if self._archive is None:
            from refind_cli.archive import Archive

            # Read-only until the first write: a reader never waits for a writer, and a home on read-only
            # media can be read. A write (under the write lock) reopens it for writing.
            self._archive = Archive.open(self.path, readonly=True)
        return self._archive

    def index(self) -> Index:
        """The index, caught up with the archive if it fell behind and nobody is writing right now."""
        if self._index is None:
            from refind_cli.index import Index

            self._index = Index.open(self.path)
            self._catch_up(self._index)
        return self._index

    def _catch_up(self, index: Index) -> None:
        from refind_cli.locks import try_write_lock

        archive = self.archive()
        if archive.index_queue() or (index.num_docs == 0 and archive.has_turns()):
            try:
                with try_write_lock(self.path) as free:
                    if free:
                        index.sync(archive)
            except OSError:
                pass  # a home this user cannot write (a backup disk): answer from the index as it is

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """For a front end that lives on (the MCP server): what is read inside the block is the latest
        commit: the index at its newest (caught up as ``index`` does), the archive read at one commit
        throughout, whatever another process imports or forgets meanwhile."""
        if self._index is None:
            self.index()
        else:
            self._index.refresh()
            self._catch_up(self._index)
        with self.archive().snapshot():
            yield

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Archive]:
        """The archive, under the home's write lock for the whole block."""
        from refind_cli.locks import write_lock

        with contextlib.ExitStack() as stack:
            try:
                ensure_home(self.path)
                stack.enter_context(write_lock(self.path, on_wait=self.on_wait))
            except OSError as exc:
                # A home on read-only media, or someone else's folder: it can be read, not changed.
                raise RefindError(f"{self.path}: cannot write here ({exc.strerror or exc})") from None
            with self._storage():
                yield self.archive()

    @contextlib.contextmanager
    def _storage(self) -> Iterator[None]:
        """A damaged archive, a full disk, a file this user cannot open: one line, never a traceback."""
        from refind_cli.archive import storage_errors

        with storage_errors(self.path / "archive.db"):
            yield

    # -- reading ----------------------------------------------------------------------------------------

    def chats(self, *, sources: Sequence[str] | None = None, order: str = "id") -> list[ChatSummary]:
        """The chats (of ``sources`` only, if given), ordered by ``order``: one of ``CHAT_ORDERS``."""
        if order not in CHAT_ORDERS:
            raise RefindError(f"--sort: {order!r} is not one of {', '.join(CHAT_ORDERS)}")
        with self._storage():
            found = self.archive().chats(_checked_sources(sources))
        return sorted(found, key=CHAT_ORDERS[order])

    def chat_ids(
        self,
        names: Sequence[str] | None,
        sources: Sequence[str] | None = None,
        *,
        option: str = "--chat",
        within: Collection[int] | None = None,
        listing: str = "`refind chats`",
    ) -> tuple[int, ...] | None:
        """The chats ``names`` name (each must match at least one) that are of ``sources``; None when
        neither is given (every chat). Only the chats ``within`` count, when given (a server limited to some
        chats); ``listing`` is where the error sends the user to see them."""
        if not names and not sources:
            return None
        archive = self.archive()
        ids: dict[int, None] = {}
        for name in names or ():
            found = [seq for seq in archive.match_chats(name) if within is None or seq in within]
            if not found:
                raise RefindError(f"{option}: no chat matches {name!r} (see {listing})")
            ids.update(dict.fromkeys(found))
        checked = _checked_sources(sources)
        if checked is None:
            return tuple(ids)
        of_sources = archive.chats_of_sources(checked)
        return tuple(i for i in ids if i in set(of_sources)) if names else tuple(of_sources)

    def request(
        self,
        query: str,
        *,
        since: str | None = None,
        until: str | None = None,
        chats: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        now: datetime,
        tz: tzinfo,
        **options: Any,
    ) -> SearchRequest:
        """A search request from what the user typed: ``since``/``until`` as ``--since`` takes them, chats
        by name, id or number, sources by importer name. ``options`` are the other ``SearchRequest`` fields."""
        lo, hi = time_range(since, until, now=now, tz=tz)
        with self._storage():
            chat_ids = self.chat_ids(chats, sources)
        return SearchRequest(
            query,
            since=lo,
            until=hi,
            chats=chat_ids,
            chat_names=tuple(chats) if chats else None,
            sources=tuple(sources) if sources else None,
            **options,
        )

    def search(
        self, request: SearchRequest, *, timeline: tzinfo | None = None, keep: list[object] | None = None
    ) -> SearchResult:
        """The ReFind search; with ``timeline`` (a zone), also how every match spreads over time there;
        ``keep`` takes what a server frees after answering (``search.search``)."""
        from refind_cli.search import search

        with self._storage():
            return search(self.archive(), self.index(), request, timeline_tz=timeline, keep=keep)

    def show(self, turn_or_session: str, *, around: str | None = None, context: int = 10) -> SessionView:
        """A whole session, or (given a turn id, or ``around``) the ``context`` turns either side of a turn."""
        with self._storage():
            return self._show(turn_or_session, around, context)

    def _show(self, turn_or_session: str, around: str | None, context: int) -> SessionView:
        archive = self.archive()
        session = archive.session(turn_or_session)
        if session is None:
            turn = archive.turns([turn_or_session]).get(turn_or_session)
            if turn is None:
                # Neither the home's path nor more of the id than an id holds: an MCP client reads this too.
                shown = turn_or_session if len(turn_or_session) <= 80 else f"{turn_or_session[:80]}..."
                raise RefindError(f"no session or turn {shown!r} (ids are in `refind search` output)")
            session = archive.session(turn.session_id)
            assert session is not None
            around = around or turn.id
        turns = archive.session_turns(session.id)
        if around is not None:
            at = next((i for i, t in enumerate(turns) if t.id == around), None)
            if at is None:
                raise RefindError(f"--around: turn {around!r} is not in session {session.id!r}")
            turns = turns[max(at - context, 0) : at + context + 1]
        from refind_cli.reports import SessionView

        return SessionView(session, tuple(turns), around, *archive.neighbour_sessions(session.id))

    def show_day(self, chats: Sequence[str], day: str, *, now: datetime, tz: tzinfo) -> SessionView:
        """The first session of these chats (by name, id or number) on ``day`` (as ``--since`` takes it; one
        that began before and went on into it counts), or, when they were silent then, the first one after."""
        from refind_cli.archive import to_us

        lo, _ = time_range(day, None, now=now, tz=tz, names=("--date", "--date"))
        assert lo is not None
        with self._storage():
            ids = self.chat_ids(chats) or ()
            found = self.archive().first_session_from(ids, to_us(lo))
            if found is None:
                raise RefindError(f"--date: no session on or after {day!r} in {', '.join(map(repr, chats))}")
            return self._show(found, None, 0)

    def stats(
        self,
        *,
        chats: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        speakers: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        now: datetime,
        tz: tzinfo,
    ) -> Stats:
        """`refind stats` of some chats (by name, id or number) or sources, of some speakers (as ``--from``
        names them), from ``since`` to ``until`` as ``--since`` takes them (None: everything), in ``tz``."""
        from refind_cli.archive import to_us
        from refind_cli.search import speakers_named
        from refind_cli.stats import stats

        lo, hi = time_range(since, until, now=now, tz=tz)
        with self._storage():
            archive = self.archive()
            return stats(
                archive,
                chats=self.chat_ids(chats, sources),
                since=None if lo is None else to_us(lo),
                until=None if hi is None else to_us(hi),
                senders=speakers_named(archive.speakers(), speakers) if speakers else None,
                tz=tz,
            )

    def ask(
        self,
        question: str,
        *,
        chats: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        speakers: Sequence[str] | None = None,
        now: datetime,
        tz: tzinfo,
        **options: Any,
    ) -> AskResult:
        """The ReFind agent over this home (some chats or sources only, what some speakers said only, if
        given). ``options`` are ``agent.run``'s (config, budget, on_event, ...)."""
        from refind_cli.agent import ask
        from refind_cli.search import speakers_named

        with self._storage():
            scope = self.chat_ids(chats, sources)
            said = speakers_named(self.archive().speakers(), speakers) if speakers else None
            return ask(
                self.archive(), self.index(), question, chats=scope, speakers=said, now=now, tz=tz, **options
            )

    # -- writing ----------------------------------------------------------------------------------------

    def import_files(
        self,
        paths: Sequence[Path],
        options: ImportOptions,
        *,
        progress: ProgressFor = _no_progress,
        indexing: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext,
    ) -> Iterator[FileImportResult]:
        """Import each export in its own transaction, yielding its result as it finishes (a bad file is a
        result with an error; the others still import), then bring the index up to date. A folder that is
        not itself one export stands for every export below it."""
        from refind_cli.clock import zone
        from refind_cli.importers import exports_in
        from refind_cli.ingest import import_file

        tz = options.tz or zone(None)
        with self._writing() as archive:
            for path in (export for given in paths for export in exports_in(given, options.fmt)):
                with progress(path) as report:
                    yield import_file(
                        archive,
                        path,
                        fmt=options.fmt,
                        tz=tz,
                        session_gap=options.session_gap,
                        progress=report,
                        restore_forgotten=options.restore_forgotten,
                        reread=options.reread,
                        lang=options.lang,
                    )
            with indexing():
                self._open_index_for_writing().sync(archive)

    def forget(self, selection: Selection, *, confirm: Callable[[ForgetPlan], bool]) -> ForgetOutcome:
        """Plan what ``selection`` names and ask ``confirm(plan)`` (also when nothing matches, so a front end
        can say so); if it agrees, erase the messages from the archive and rebuild the index, so that no
        file under the home keeps them."""
        from refind_cli import forget
        from refind_cli.reports import ForgetOutcome

        with self._writing() as archive:
            planned = forget.plan(archive, selection)
            if not confirm(planned) or not planned.message_seqs:
                return ForgetOutcome(planned, False)
            forget.forget(archive, planned)
            self._open_index_for_writing().rebuild(archive)
        return ForgetOutcome(planned, True)

    def rename_chat(self, chat: str, name: str) -> ChatInfo:
        """Give one chat (by name, id or number) the user's name for it. Re-importing its export keeps this
        name: the user's word wins over the export's, until the chat is renamed again."""
        if not name.strip():
            raise RefindError("chats rename: give a name (an empty one is not)")
        with self._writing() as archive:
            seq = self._one_chat(archive, chat)
            archive.rename_chat(seq, name)
            return archive.chat(seq)

    def merge_chats(self, into: str, other: str) -> ChatSummary:
        """Move the messages of chat ``other`` into chat ``into`` (each by name, id or number), plan the
        sessions of ``into`` again and bring the index up to date. ``into`` keeps its name; importing
        ``other``'s export again adds to ``into``."""
        from refind_cli.sessions import resegment_chat

        with self._writing() as archive:
            a, b = self._one_chat(archive, into), self._one_chat(archive, other)
            if a == b:
                raise RefindError(f"chats merge: {into!r} and {other!r} are the same chat")
            with archive.transaction():
                archive.merge_chats(a, b)
                resegment_chat(archive, a)
            self._open_index_for_writing().sync(archive)
            return next(c for c in archive.chats() if c.info.seq == a)

    @staticmethod
    def _one_chat(archive: Archive, text: str) -> int:
        """The one chat a repair names: a number is an id and nothing else (a chat named "+49 151 ..." must
        not be renamed for a mistyped id); a name must match a single chat."""
        found = archive.match_chats(text)
        if text.strip().isdigit():
            found = [seq for seq in found if str(seq) == text.strip()]
        if len(found) != 1:
            many = f"{len(found)} chats match" if found else "no chat matches"
            raise RefindError(f"chats: {many} {text!r}; give one chat's id (see `refind chats`)")
        return found[0]

    def doctor(self, *, repairing: Callable[[Health], None] | None = None) -> Health:
        """Check the archive's integrity and the index's agreement with it; rebuild the index when they
        disagree and the archive is sound (``repairing(health)`` is told first)."""
        from refind_cli import doctor

        with self._writing() as archive:
            index = self._open_index_for_writing()
            health = doctor.check(archive, index)
            # A damaged archive is reported, never used to rebuild the index.
            if not health.integrity and not health.index_agrees:
                if repairing is not None:
                    repairing(health)
                health = doctor.repair(archive, index)
        return health

    def reindex(self) -> Reindexed:
        """Rebuild the index from the archive (exact statistics again after many changes). A chat imported
        before languages were told gets its language first, so it is analysed in it."""
        from refind_cli.ingest.chats import settle_language
        from refind_cli.reports import Reindexed

        started = time.perf_counter()
        with self._writing() as archive:
            with archive.transaction():
                for chat, lang in archive.chat_languages().items():
                    if not lang:
                        settle_language(archive, chat, None)
            turns = self._open_index_for_writing().rebuild(archive)
        return Reindexed(turns, round(time.perf_counter() - started, 3))

    def _open_index_for_writing(self) -> Index:
        from refind_cli.index import Index

        self._index = Index.open(self.path, on_wait=self.on_wait)
        return self._index


def benchmark_questions(file: Path, *, limit: int | None = None) -> list[Question]:
    """The questions of a LongMemEval or LoCoMo file (the first ``limit``), for ``evaluate``."""
    from refind_cli.benchmarks import load_questions

    return load_questions(file, limit=limit)


def evaluate(questions: Sequence[Question], *, file: Path, **options: Any) -> EvalReport:
    """``refind eval``: each question's haystack in a throwaway archive of its own. ``options`` are
    ``evaluate.evaluate``'s (config, judge_config, max_rounds, k, on_question, on_event)."""
    from refind_cli.evaluate import evaluate as run

    return run(questions, file=str(file), **options)
