"""The library's front door: one home folder and every whole operation on it.

``Home`` opens what an operation needs and nothing more, takes the right lock, and catches the index up
before a read, so a front end (the typer CLI, the MCP server, a script) parses its input, makes one call and
hands the result to a renderer or a protocol. Nothing here prints or parses command lines.

Locks: readers never wait. A read opens the archive and the index and answers from the last commit; if the
index fell behind the archive (a crash between the two, or a lost index folder), the read catches it up
only when the home's write lock is free at that moment, and so it applies the migrations an archive of an
earlier release lacks. Writers (import, forget, doctor, reindex) hold the
write lock for the whole operation; a second writer waits, saying so once through ``on_wait``.

Heavy modules (the archive and index engines, the agent, the importers) are imported inside the methods
that use them: ``refind --help`` and the argument errors of every command never load them.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from datetime import datetime, timedelta, tzinfo

from refind_cli.errors import RefindError, echoed
from refind_cli.request import DEFAULT_K, DEFAULT_WINDOW, SESSION_RANK, SearchRequest, time_bound, time_range
from refind_cli.storage.home import empty_new_home, ensure_home, remove_empty_home, resolve_home
from refind_cli.typed import NamedTuple

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from _typeshed import StrPath

    from refind_cli.agent.conversation import Conversation, FollowUp
    from refind_cli.agent.events import AskResult, EventSink
    from refind_cli.agent.llm import ModelConfig
    from refind_cli.index import Engine, TurnIndex
    from refind_cli.ingest.progress import Progress
    from refind_cli.listings import ChatSummary
    from refind_cli.method.benchmarks import Question
    from refind_cli.method.evaluate import EvalReport
    from refind_cli.operations import AskRequest, EvalRequest, ImportOptions, Selection, StatsRequest
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
    from refind_cli.results import SearchResult
    from refind_cli.storage.archive import Archive

    # Opens the progress display of one export and gives the callback the import reports to (or None).
    ProgressFor = Callable[[Path], contextlib.AbstractContextManager[Progress | None]]

OnWait = Callable[[str], None]


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


class Home:
    """A refind home folder. Use as a context manager, or call ``close``."""

    def __init__(self, path: StrPath, on_wait: OnWait | None = None, engine: Engine | None = None) -> None:
        self.path = os.fspath(path)
        self.on_wait = on_wait
        # Opens the home's index; None: the registry's default engine (``index.open_index``).
        self.engine = engine
        self._archive: Archive | None = None
        self._index: TurnIndex | None = None

    def __repr__(self) -> str:
        return f"Home({self.path!r})"

    @classmethod
    def open(
        cls, path: StrPath | None = None, *, on_wait: OnWait | None = None, engine: Engine | None = None
    ) -> Home:
        """The home at ``path``, else ``$REFIND_HOME``, else ``$XDG_DATA_HOME/refind``."""
        return cls(resolve_home(path), on_wait, engine)

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
            from refind_cli.storage.archive import Archive

            # Read-only until the first write: a reader never waits for a writer, and a home on read-only
            # media can be read. A write (under the write lock) reopens it for writing.
            self._archive = Archive.open(self.path, readonly=True)
            if self._archive.behind() or self._archive.log_left():
                # An archive of an earlier release is migrated by the first reader to find the home free (a
                # migration may repair what it stored: times no zone can show); else it is read as it stands.
                # So is a long write-ahead log folded in, which every process's first query would read again.
                self._when_free(self._archive.upgrade)
        return self._archive

    def index(self) -> TurnIndex:
        """The index, caught up with the archive if it fell behind and nobody is writing right now."""
        if self._index is None:
            self._index = self._open_index(None)
            self._catch_up(self._index)
        return self._index

    def _open_index(self, on_wait: OnWait | None) -> TurnIndex:
        if self.engine is not None:
            return self.engine(self.path, on_wait=on_wait)
        from refind_cli.index import open_index

        return open_index(self.path, on_wait=on_wait)

    def _catch_up(self, index: TurnIndex) -> None:
        archive = self.archive()
        if archive.index_queue() or (index.num_docs == 0 and archive.has_turns()):
            self._when_free(lambda: index.sync(archive))

    def _when_free(self, write: Callable[[], object]) -> None:
        """A reader's ``write``, done only if the home's write lock is free right now: a reader never waits."""
        from refind_cli.storage.locks import try_write_lock

        try:
            with try_write_lock(self.path) as free:
                if free:
                    write()
        except OSError:
            pass  # a home this user cannot write (a backup disk): read it as it is

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """For a front end that lives on (the MCP server): what is read inside the block is the latest
        commit: the index at its newest (caught up as ``index`` does), the archive read at one commit
        throughout, whatever another process imports or forgets meanwhile. The cyclic collector is paused
        inside (``collector.collector_paused``): what a call's searches leave is freed by reference counting."""
        from refind_cli.collector import collector_paused

        if self._index is None:
            self.index()
        else:
            self._index.refresh()
            self._catch_up(self._index)
        with collector_paused(), self.archive().snapshot():
            yield

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Archive]:
        """The archive, under the home's write lock for the whole block."""
        from refind_cli.storage.locks import write_lock

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
        from refind_cli.storage.database import storage_errors

        with storage_errors(os.path.join(self.path, "archive.db")):
            yield

    # -- reading ----------------------------------------------------------------------------------------

    def chats(self, *, sources: Sequence[str] | None = None, order: str = "id") -> list[ChatSummary]:
        """The chats (of ``sources`` only, if given), ordered by ``order``: one of ``CHAT_ORDERS``."""
        if order not in CHAT_ORDERS:
            raise RefindError(f"--sort: {order!r} is not one of {', '.join(CHAT_ORDERS)}")
        with self._storage():
            found = self.archive().chats(_checked_sources(sources))
        return sorted(found, key=CHAT_ORDERS[order])

    def has_chats(self) -> bool:
        """Whether the home holds any chat: what a search that found nothing says, without counting them."""
        with self._storage():
            return self.archive().has_chats()

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
            ids.update(
                dict.fromkeys(chats_named(archive, name, option=option, within=within, listing=listing))
            )
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
        speakers: Sequence[str] | None = None,
        k: int = DEFAULT_K,
        window: int = DEFAULT_WINDOW,
        exclude_sessions: Sequence[str] = (),
        session_rank: bool = SESSION_RANK,
        sort: str = "score",
        now: datetime,
        tz: tzinfo,
    ) -> SearchRequest:
        """A search request from what the user typed: ``since``/``until`` as ``--since`` takes them, chats
        by name, id or number, sources by importer name, speakers as ``--from`` names them; the rest are the
        ``SearchRequest`` fields of the same names. RefindError names the option that is wrong."""
        lo, hi = time_range(since, until, now=now, tz=tz)
        with self._storage():
            chat_ids = self.chat_ids(chats, sources)
        return SearchRequest(
            query,
            k=k,
            window=window,
            since=lo,
            until=hi,
            chats=chat_ids,
            chat_names=tuple(chats) if chats else None,
            sources=tuple(sources) if sources else None,
            exclude_sessions=tuple(exclude_sessions),
            session_rank=session_rank,
            speakers=tuple(speakers) if speakers else None,
            sort=sort,
        )

    def search(
        self, request: SearchRequest, *, timeline: tzinfo | None = None, keep: list[object] | None = None
    ) -> SearchResult:
        """The ReFind search; with ``timeline`` (a zone), also how every match spreads over time there;
        ``keep`` takes what a server frees after answering (``search.search``)."""
        from refind_cli.method.search import search

        with self._storage():
            return search(self.archive(), self.index(), request, timeline_tz=timeline, keep=keep)

    def reader(self, *, keep: list[object] | None = None) -> HomeReader:
        """The home as the read tools (``search_tools.READ_TOOLS``) read it, for a server's connection;
        ``keep`` as ``search`` takes it."""
        return HomeReader(self, keep)

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
                raise RefindError(
                    f"no session or turn {echoed(turn_or_session)} (ids are in `refind search` output)"
                )
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
        from refind_cli.storage.database import to_us

        lo, _ = time_range(day, None, now=now, tz=tz, names=("--date", "--date"))
        assert lo is not None
        with self._storage():
            ids = self.chat_ids(chats) or ()
            found = self.archive().first_session_from(ids, to_us(lo))
            if found is None:
                raise RefindError(f"--date: no session on or after {day!r} in {', '.join(map(repr, chats))}")
            return self._show(found, None, 0)

    def _speakers(self, speakers: Sequence[str] | None) -> tuple[str, ...] | None:
        """The names ``--from`` values mean (a name, a sender id, or the start of one name); None: everyone."""
        if not speakers:
            return None
        from refind_cli.method.search import speakers_named

        return tuple(speakers_named(self.archive().speakers(), speakers))

    def stats_request(
        self,
        *,
        chats: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        speakers: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        now: datetime,
        tz: tzinfo,
    ) -> StatsRequest:
        """`refind stats` of some chats (by name, id or number) or sources, of some speakers (as ``--from``
        names them), from ``since`` to ``until`` as ``--since`` takes them (None: everything), in ``tz``."""
        from refind_cli.operations import StatsRequest

        lo, hi = time_range(since, until, now=now, tz=tz)
        with self._storage():
            return StatsRequest(tz, self.chat_ids(chats, sources), lo, hi, self._speakers(speakers))

    def stats(self, request: StatsRequest) -> Stats:
        from refind_cli.method.stats import stats
        from refind_cli.storage.database import to_us

        with self._storage():
            return stats(
                self.archive(),
                chats=request.chats,
                since=None if request.since is None else to_us(request.since),
                until=None if request.until is None else to_us(request.until),
                senders=None if request.senders is None else list(request.senders),
                tz=request.tz,
            )

    def ask_request(
        self,
        question: str,
        *,
        model: str | None = None,
        answer_model: str | None = None,
        api_base: str | None = None,
        offline: bool = False,
        protocol: str = "auto",
        max_rounds: int = 4,
        max_tokens: int | None = None,
        max_cost: float | None = None,
        chats: Sequence[str] | None = None,
        sources: Sequence[str] | None = None,
        speakers: Sequence[str] | None = None,
        now: datetime | str | None = None,
        tz: tzinfo,
        env: Mapping[str, str] | None = None,
        evidence_tokens: int | None = None,
    ) -> AskRequest:
        """A question for the agent from what the user typed. The model is ``model``, else ``$REFIND_MODEL``
        (``api_base`` and the key likewise from ``$REFIND_API_BASE``, ``$REFIND_API_KEY`` of ``env``, by
        default the process's); none, or ``offline``, runs the offline planner. ``now`` is when it is asked:
        a datetime, an ISO date-time as ``--now`` takes it, or None for this moment. ``evidence_tokens``: what
        the offline planner's notes may spend (None: the measured default)."""
        from dataclasses import replace

        from refind_cli.operations import AskRequest

        # The words typed are checked before the agent or the archive is loaded (an argument error stays cheap).
        typed = AskRequest(question.strip(), asked_at(now, tz), tz, protocol=protocol)
        from refind_cli.agent import Budget
        from refind_cli.agent.budget import EVIDENCE_TOKENS

        config, answer_config = (None, None) if offline else model_configs(model, answer_model, api_base, env)
        with self._storage():
            return replace(
                typed,
                config=config,
                answer_config=answer_config,
                budget=Budget(max_rounds, max_tokens, max_cost, evidence_tokens or EVIDENCE_TOKENS),
                chats=self.chat_ids(chats, sources),
                speakers=self._speakers(speakers),
            )

    def ask(self, request: AskRequest, *, on_event: EventSink | None = None) -> AskResult:
        """The ReFind agent over this home; ``on_event`` sees its rounds, notes and warnings as they come."""
        from refind_cli.agent import ask
        from refind_cli.agent.events import ignore

        with self._storage():
            return ask(self.archive(), self.index(), request, on_event=on_event or ignore)

    def follow_up(
        self, conversation: Conversation, request: FollowUp, *, on_event: EventSink | None = None
    ) -> Conversation:
        """One question of a conversation (``agent.conversation``): the agent run with the exchanges before
        it, in the conversation's scope (its chats, start date, offline); with ``request.more``, the last
        question searched further. The conversation with this exchange added, kept in the home (private)
        for ``refind ask -c`` unless ``request.keep`` is off."""
        from dataclasses import replace

        from refind_cli.agent import ask
        from refind_cli.agent.events import ignore

        asked = request.ask
        sink = on_event or ignore
        since = time_bound("/since", conversation.since, now=asked.now, tz=asked.tz, end=False)
        last = conversation.last if request.more else None
        if request.more and last is None:
            raise RefindError("/more needs an answer of this session to search further from")
        if last is not None:
            asked = replace(asked, question=last.question)
        if conversation.offline:
            asked = replace(asked, config=None, answer_config=None)
        with self._storage():
            if conversation.chats is not None:
                asked = replace(asked, chats=self.chat_ids(conversation.chats, option="/chat"))
            result = ask(
                self.archive(),
                self.index(),
                asked,
                on_event=sink,
                earlier=conversation.exchanges[:-1] if last is not None else conversation.exchanges,
                more=last.notes if last is not None else (),
                since=since,
            )
        after = conversation.answered(result)
        if request.keep:
            self.keep(after, on_event=sink)
        return after

    def keep(self, conversation: Conversation, *, on_event: EventSink) -> None:
        """Keep ``conversation`` in the home (private) for ``refind ask -c``; a home that cannot be written
        (read-only media) keeps none, which ``on_event`` is told as a warning."""
        from refind_cli.agent.conversation import save
        from refind_cli.agent.events import AgentWarning

        try:
            save(conversation, self.path)
        except OSError as err:
            on_event(AgentWarning(f"the conversation cannot be kept in {self.path} ({err.strerror or err})"))

    def in_chats(self, conversation: Conversation, chats: Sequence[str] | None) -> Conversation:
        """The conversation asking only in ``chats`` (names, ids or numbers; None: all); RefindError for a
        chat the archive does not hold."""
        from dataclasses import replace

        with self._storage():
            self.chat_ids(chats, None, option="/chat")
        return replace(conversation, chats=None if chats is None else tuple(chats))

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
        result with an error; the others still import), then bring the index up to date. A folder or an
        archive that is not itself one export stands for every export below it; a file in it that no
        importer recognises is passed over with a warning where it holds an export (Takeout's
        ``archive_browser.html``, notes kept beside the chats), and is an error where it holds none.
        The cycle collector is paused while a file is imported (``collector.collector_paused``), as the
        import worker's writer is: a re-import that takes 20,000 chats as they are makes a few tuples and
        lists for each, freed by reference counting, and the collector walked them and everything the
        process held again and again (0.07-0.15 s of a ChatGPT re-import's 1.1; resume15)."""
        from dataclasses import replace

        from refind_cli.collector import collector_paused
        from refind_cli.dates.clock import zone
        from refind_cli.importers import exports_in
        from refind_cli.ingest import import_file

        tz = options.tz or zone(None)
        created = not os.path.lexists(self.path)
        kept = False
        with self._writing() as archive:
            # A first import's commit copied the whole archive from the write-ahead log into the file, one
            # core busy and the other idle (a million messages: the commit 1.31 s against 0.23 s without, at
            # load 7; bench/RESULTS.md, issue 26 item 2, session 19); the compaction below rewrites the file
            # and empties the log anyway, beside the index's build.
            deferred = archive.checkpoints_deferred() if created else contextlib.nullcontext()
            with deferred:
                for given in paths:
                    holds_an_export = False
                    unknown: list[FileImportResult] = []
                    for path in exports_in(given, options.fmt):
                        with progress(path) as report, collector_paused():
                            result = import_file(
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
                        if result.unknown_format and path != given:
                            unknown.append(result)
                            continue
                        holds_an_export = holds_an_export or not result.unknown_format
                        kept = kept or result.error is None
                        yield result
                    for result in unknown:
                        passed = f"{result.path}: passed over: no importer recognises it as a chat export"
                        yield replace(result, error=None, warnings=(passed,)) if holds_an_export else result
                # Asked under the lock: another import may have filled the home since it was found missing.
                discard = created and not kept and not archive.chats()
                if not discard:
                    # A first import leaves its indexes' pages about 87 % full (SQLite splits a page it
                    # appends to) and the index queue's emptied: rewritten once, the archive of a million
                    # messages is 9 MB smaller for ~0.8 s of CPU (bench/RESULTS.md, issue 26 item 4,
                    # session 12), beside the index's build. Later imports add less than the archive holds;
                    # `forget` compacts too.
                    with indexing():
                        self._open_index_for_writing().sync(
                            archive, meanwhile=archive.compact if created else None
                        )
            if discard:
                self.close()
                empty_new_home(self.path)
        if discard:
            remove_empty_home(self.path)

    @staticmethod
    def import_options(
        *,
        fmt: str = "auto",
        tz: tzinfo | None = None,
        session_gap: str | timedelta = timedelta(hours=1),
        restore_forgotten: bool = False,
        reread: bool = False,
        lang: str | None = None,
    ) -> ImportOptions:
        """Import options from what the user typed: ``fmt`` "auto" or an importer's name, ``session_gap`` as
        ``--session-gap`` takes it (90m, 1h30m), ``lang`` an ISO 639-1 code in any case."""
        from refind_cli.dates.clock import parse_duration
        from refind_cli.importers import names
        from refind_cli.operations import ImportOptions

        choices = ("auto", *names())
        if fmt not in choices:
            raise RefindError(f"--format: {fmt!r} is not one of {', '.join(choices)}")
        if lang is not None:
            from refind_cli.text.language import is_code, parts

            lang = lang.lower()
            if not all(map(is_code, parts(lang))):
                raise RefindError(f"--lang: {lang!r} is not an ISO 639-1 language code (e.g. en, de, es)")
        gap = parse_duration(session_gap) if isinstance(session_gap, str) else session_gap
        return ImportOptions(fmt, tz, gap, restore_forgotten, reread, lang)

    def selection(
        self,
        *,
        chat: str | None = None,
        session: str | None = None,
        since: str | None = None,
        until: str | None = None,
        before: str | None = None,
        matching: str | None = None,
        now: datetime,
        tz: tzinfo,
    ) -> Selection:
        """What `refind forget` erases, from what the user typed: one chat by name, id or number, dates as
        ``--since`` takes them (``before``: everything before its start)."""
        from refind_cli.operations import Selection

        lo, hi = time_range(since, until, now=now, tz=tz)
        seq = None
        if chat is not None:
            with self._storage():
                seq = self._one_chat(self.archive(), chat, option="--chat")
        return Selection(
            chat=seq,
            session=session,
            since=lo,
            until=hi,
            before=time_bound("--before", before, now=now, tz=tz, end=False),
            matching=matching,
        )

    def forget(self, selection: Selection, *, confirm: Callable[[ForgetPlan], bool]) -> ForgetOutcome:
        """Plan what ``selection`` names and ask ``confirm(plan)`` (also when nothing matches, so a front end
        can say so); if it agrees, erase the messages from the archive and rebuild the index, so that no
        file under the home keeps them (the conversation kept for ``ask -c`` quotes notes: it goes too)."""
        from refind_cli.agent.conversation import FILE
        from refind_cli.reports import ForgetOutcome
        from refind_cli.storage import forget

        with self._writing() as archive:
            planned = forget.plan(archive, selection)
            if not confirm(planned) or not planned.message_seqs:
                return ForgetOutcome(planned, False)
            forget.forget(archive, planned)
            self._open_index_for_writing().rebuild(archive)
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(self.path, FILE))
        return ForgetOutcome(planned, True)

    def rename_chat(self, chat: str, name: str) -> ChatInfo:
        """Give one chat (by name, id or number) the user's name for it. Re-importing its export keeps this
        name: the user's word wins over the export's, until the chat is renamed again."""
        if not name.strip():
            raise RefindError("chats rename: give a name (an empty one is not)")
        with self._writing() as archive:
            seq = self._one_chat(archive, chat, option="chats rename")
            archive.rename_chat(seq, name)
            return archive.chat(seq)

    def merge_chats(self, into: str, other: str) -> ChatSummary:
        """Move the messages of chat ``other`` into chat ``into`` (each by name, id or number), plan the
        sessions of ``into`` again and bring the index up to date. ``into`` keeps its name; importing
        ``other``'s export again adds to ``into``."""
        from refind_cli.storage.sessions import resegment_chat

        with self._writing() as archive:
            a = self._one_chat(archive, into, option="chats merge")
            b = self._one_chat(archive, other, option="chats merge")
            if a == b:
                raise RefindError(f"chats merge: {into!r} and {other!r} are the same chat")
            with archive.transaction():
                archive.merge_chats(a, b)
                resegment_chat(archive, a)
            self._open_index_for_writing().sync(archive)
            return next(c for c in archive.chats() if c.info.seq == a)

    @staticmethod
    def _one_chat(archive: Archive, text: str, *, option: str) -> int:
        """The one chat a repair or `refind forget` names (``chats_named``); several are an error."""
        found = chats_named(archive, text, option=option)
        if len(found) > 1:
            names = ", ".join(f"{archive.chat(s).name} (id {s})" for s in found)
            raise RefindError(f"{option}: {text!r} matches several chats: {names}; give the id")
        return found[0]

    def doctor(self, *, repairing: Callable[[Health], None] | None = None) -> Health:
        """Check the archive's integrity and the index's agreement with it; rebuild the index when they
        disagree and the archive is sound (``repairing(health)`` is told first)."""
        from refind_cli.storage import doctor

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
        from refind_cli.ingest.chats import settle_languages
        from refind_cli.reports import Reindexed

        started = time.perf_counter()
        with self._writing() as archive:
            with archive.transaction():
                settle_languages(
                    archive, [c for c, lang in archive.chat_languages().items() if not lang], None
                )
            turns = self._open_index_for_writing().rebuild(archive)
        return Reindexed(turns, round(time.perf_counter() - started, 3))

    def _open_index_for_writing(self) -> TurnIndex:
        self._index = self._open_index(self.on_wait)
        return self._index


def chats_named(
    archive: Archive,
    text: str,
    *,
    option: str = "--chat",
    within: Collection[int] | None = None,
    listing: str = "`refind chats`",
) -> list[int]:
    """The one rule for the chats a user's word names, for every command and tool: a chat whose id, key or
    name is the text (in any case), else the chats whose names contain it; a number names the chat of that
    id, else a chat whose key or whole name it is, never part of a name (a chat named "+49 151 ..." must not
    be touched for a mistyped id).
    Only the chats ``within`` count, when given (a server limited to some chats). None matching is a
    RefindError naming ``option`` and ``listing``, where the user sees the chats."""
    found = archive.match_chats(text)
    needle = text.strip()
    if needle.isdigit():
        found = [seq for seq in found if str(seq) == needle] or [
            seq for seq in found if needle in _key_and_name(archive, seq)
        ]
    found = [seq for seq in found if within is None or seq in within]
    if not found:
        raise RefindError(f"{option}: no chat matches {text!r} (see {listing})")
    return found


def _key_and_name(archive: Archive, seq: int) -> tuple[str, str]:
    info = archive.chat(seq)
    return info.key.lower(), info.name.lower()


def asked_at(now: datetime | str | None, tz: tzinfo) -> datetime:
    """When a question is asked: ``now``, or the ISO date-time ``--now`` takes, or this moment, in ``tz``."""
    if now is None:
        return datetime.now(tz)
    if isinstance(now, datetime):
        return now.astimezone(tz)
    from refind_cli.dates.timeexpr import parse_instant

    try:
        return parse_instant(now, tz=tz)
    except ValueError as err:
        raise RefindError(f"--now: {err}") from None


def model_configs(
    model: str | None, answer_model: str | None, api_base: str | None, env: Mapping[str, str] | None = None
) -> tuple[ModelConfig | None, ModelConfig | None]:
    """The agent's model (``model``, else ``$REFIND_MODEL``; None: the offline planner) and the answer
    model, when another one answers (same server, key and timeout)."""
    from dataclasses import replace

    from refind_cli.agent import resolve_config

    config = resolve_config(model, api_base, os.environ if env is None else env)
    if answer_model is None:
        return config, None
    if config is None:
        raise RefindError("--answer-model needs --model (or REFIND_MODEL)")
    return config, replace(config, model=answer_model)


def eval_request(
    file: Path,
    *,
    model: str | None = None,
    judge_model: str | None = None,
    api_base: str | None = None,
    limit: int | None = None,
    max_rounds: int = 4,
    k: int = DEFAULT_K,
    env: Mapping[str, str] | None = None,
    evidence_tokens: int | None = None,
) -> EvalRequest:
    """`refind eval` from what the user typed. Only an explicit ``model`` spends money here:
    ``$REFIND_MODEL`` alone keeps eval offline. The judge is ``judge_model`` (default: ``model``)."""
    from refind_cli.operations import EvalRequest

    if judge_model and not model:
        raise RefindError("--judge-model needs --model")
    config, judge = model_configs(model, judge_model, api_base, env) if model else (None, None)
    return EvalRequest(file, config, judge, limit, max_rounds, k, evidence_tokens)


def benchmark_questions(request: EvalRequest) -> list[Question]:
    """The questions of the request's LongMemEval or LoCoMo file (the first ``limit``)."""
    from refind_cli.method.benchmarks import load_questions

    return load_questions(request.file, limit=request.limit)


def evaluate(
    request: EvalRequest,
    questions: Sequence[Question],
    *,
    on_question: Callable[[int, int], None] | None = None,
    on_event: EventSink | None = None,
) -> EvalReport:
    """``refind eval``: each question's haystack in a throwaway archive of its own."""
    from refind_cli.agent.events import ignore
    from refind_cli.method.evaluate import evaluate as run

    return run(
        questions,
        file=str(request.file),
        config=request.config,
        judge_config=request.judge_config,
        max_rounds=request.max_rounds,
        k=request.k,
        evidence_tokens=request.evidence_tokens,
        on_question=on_question,
        on_event=on_event or ignore,
    )


class HomeReader(NamedTuple):
    """A home as the read tools read it (``search_tools.Reader``): what a server (MCP, an HTTP API) hands
    them, so that each serves every read tool as it is declared."""

    home: Home
    keep: list[object] | None

    def search(self, request: SearchRequest) -> SearchResult:
        return self.home.search(request, keep=self.keep)

    def show(self, turn_id: str, context: int) -> SessionView:
        return self.home.show(turn_id, context=context)

    def chats(self) -> list[ChatSummary]:
        return self.home.chats()

    def chat_ids(self, names: Sequence[str], within: tuple[int, ...] | None) -> tuple[int, ...] | None:
        return self.home.chat_ids(names, option="chats", within=within, listing="list_chats")
