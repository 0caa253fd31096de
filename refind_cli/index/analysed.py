"""Each turn as an engine takes it: its fields and the analysed terms of its text (``contract``: what a turn
is indexed under), as a JSON object keyed by the engine's field names. Read from the archive, analysed and
written out in this process, or, for a large build, in a second process while this one hands the documents
to the engine.

Building the index of a fresh import ran on one core after the archive's commit, the import's worker gone:
reading the turns back and analysing them (Python) took 60 % of the time, tantivy's calls the rest. The second
process reads and analyses, this one adds the documents, both cores busy: the same documents in the same
order, from the archive's last commit, which is what this process would read (it is used only outside a
transaction). ``serve`` is the second process; it sends batches of documents as pickles over stdout.

JSON, because the engine reads it at Rust speed (tantivy's ``add_json``): handed over as six values a turn,
the builder's Python took 0.45-0.51 s per 200,000 turns and tantivy's side of it 0.86-0.97 s; as one JSON
string 0.28-0.35 and 0.69-0.81 s, the second process writing them in 0.18 s, and a batch of strings pickles
and unpickles in 0.10 s against 0.24 s for the tuples (bench/RESULTS.md, issue 26 item 2, session 15).
"""

from __future__ import annotations

import itertools
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from json.encoder import encode_basestring  # the C encoder of a JSON string (a str stays a str)
from typing import TYPE_CHECKING, Any

from refind_cli.index.contract import INDEXED_CHARS, turn_text
from refind_cli.processes import can_use_a_child, python_child
from refind_cli.storage.database import BEFORE_ALL
from refind_cli.text.analysis import DEFAULT_ANALYZER, Analyzer, analyzer_for

if TYPE_CHECKING:
    from refind_cli.storage.archive import Archive

# (session seq, ordinal, chat seq, start in epoch seconds, speaker, the analysed terms joined by spaces)
AnalysedTurn = tuple[int, int, int, int, str, str]
# The engine's names of an ``AnalysedTurn``'s fields, in its order: the keys of each turn's JSON object.
Fields = tuple[str, str, str, str, str, str]

# Below this many sessions to index the second process (a fresh interpreter, about 0.2 s to start) costs
# more than it saves: 20,000 sessions are about 50,000 turns, 0.5 s of reading and analysis.
CHILD_MIN_SESSIONS = 20_000
# From this many sessions on, every turn is read and analysed by two processes, each a part of the sessions
# at a time in turn (``PART``), while this one hands them to the engine in order: one took 7 s of CPU at a
# million messages while this one took 3, the second core idle for 4 (bench/RESULTS.md, issue 26 item 2,
# session 14).
CHILDREN_MIN_SESSIONS = 2 * CHILD_MIN_SESSIONS
# Sessions a part: about 2,700 turns at a million messages, 0.3 MB pickled, so that each process can be a
# part or more ahead in its pipe.
PART = 1_000
_BATCH = 2_000  # turns a batch (a pickle)
_PIPE_BUFFER = 1 << 20


def turn_documents(
    archive: Archive,
    session_seqs: list[int] | None,
    *,
    analyzer: Analyzer,
    others: dict[int, Analyzer],
    speaker_in_text: bool,
    fields: Fields,
    meanwhile: Callable[[], None] | None = None,
) -> Iterator[list[str]]:
    """The turns of these sessions (None: every turn) in ``Archive.index_rows``' order, analysed by
    ``analyzer``, or by ``others``' for those chats, each a JSON object of ``fields``, in batches; in a second
    process when it pays and can be done. ``meanwhile``: work on the archive's connection (a first import's
    compaction), done by the time every turn is given: in a thread beside them where the second process
    reads them, else after them."""
    sessions = len(session_seqs) if session_seqs is not None else archive.next_session_seq() - 1
    if (
        sessions >= CHILD_MIN_SESSIONS
        and analyzer is DEFAULT_ANALYZER
        and not archive.db.in_transaction  # the second process reads the last commit
        and os.path.isfile(archive.path)
        and can_use_a_child()
    ):
        languages = archive.chat_languages()
        if all(others[chat] is analyzer_for(languages.get(chat, "")) for chat in others):
            langs = {chat: languages[chat] for chat in others}
            parts = None
            if session_seqs is None and sessions >= CHILDREN_MIN_SESSIONS:
                parts = [(lo, lo + PART - 1) for lo in range(1, sessions + 1, PART)]
                parts[-1] = (parts[-1][0], -BEFORE_ALL)  # and any session after the last seq counted
            return _in_child(archive.path, session_seqs, speaker_in_text, langs, fields, meanwhile, parts)
    written = json_documents(fields)
    batches = map(written, _batches(_analysed(archive, session_seqs, analyzer, others, speaker_in_text)))
    return itertools.chain(batches, _then(meanwhile)) if meanwhile is not None else batches


def json_documents(fields: Fields) -> Callable[[list[AnalysedTurn]], list[str]]:
    """Turns as JSON objects of ``fields`` (compact, the text as it is: UTF-8 where the JSON is read as
    such), written by one %-format a turn: ``json.dumps`` of a dict a turn took four times as long (0.85-0.93
    s against 0.17-0.22 s per 200,000 turns)."""
    keys = [json.dumps(name).replace("%", "%%") for name in fields]
    template = (
        "{"
        + ",".join(f"{key}:%d" for key in keys[:4])
        + ","
        + ",".join(f"{key}:%s" for key in keys[4:])
        + "}"
    )

    def written(turns: list[AnalysedTurn]) -> list[str]:
        quoted = encode_basestring
        return [template % (s, o, c, t, quoted(who), quoted(terms)) for s, o, c, t, who, terms in turns]

    return written


def _then(work: Callable[[], None]) -> Iterator[list[str]]:
    work()
    yield from ()


def _analysed(
    archive: Archive,
    session_seqs: list[int] | None,
    analyzer: Analyzer,
    others: dict[int, Analyzer],
    speaker_in_text: bool,
    between: tuple[int, int] = (BEFORE_ALL, -BEFORE_ALL),
) -> Iterator[AnalysedTurn]:
    # The hot loop of a bulk build: attribute lookups hoisted.
    index_text = analyzer.index_text
    other: dict[int, Callable[[str], str]] = {chat: a.index_text for chat, a in others.items()}
    rows = archive.index_rows(session_seqs, chars=INDEXED_CHARS, between=between)
    for sess, ordinal, chat, ts, speaker, text in rows:
        analyze = other.get(chat, index_text) if other else index_text
        yield (
            sess,
            ordinal,
            chat,
            ts,
            speaker,
            analyze(turn_text(speaker, text, speaker_in_text=speaker_in_text)),
        )


def _in_child(
    path: str,
    session_seqs: list[int] | None,
    speaker_in_text: bool,
    langs: dict[int, str],
    fields: Fields,
    meanwhile: Callable[[], None] | None = None,
    parts: list[tuple[int, int]] | None = None,
) -> Iterator[list[str]]:
    """The turns, read and analysed in a second process; with ``parts`` (ranges of session seqs, every turn
    of them), in two, which take the parts in turn (the first the even ones), and are read from in the
    parts' order."""
    processes = [
        python_child("from refind_cli.index.analysed import serve; serve()", _PIPE_BUFFER)
        for _ in range(1 if parts is None else 2)
    ]
    # This process leaves the archive alone while the child reads it: the connection is the thread's. The
    # compaction of a first import is mostly waiting on the disk (3 s of wall for 0.9 s of CPU at a
    # million messages), while building the index is CPU: side by side (whatever commit the child
    # reads, a compaction does not change what the archive holds).
    beside = _Beside(meanwhile) if meanwhile is not None else None
    try:
        if beside is not None:
            beside.start()
        for i, process in enumerate(processes):
            assert process.stdin is not None
            mine = None if parts is None else parts[i :: len(processes)]
            request = (path, session_seqs, speaker_in_text, langs, fields, mine)
            pickle.dump(request, process.stdin, pickle.HIGHEST_PROTOCOL)
            process.stdin.close()
        for i in range(1 if parts is None else len(parts)):
            yield from _part(processes[i % len(processes)], path)
        for process in processes:
            yield from _part(process, path)  # none left: the process says it is done
    finally:
        for process in processes:
            assert process.stdout is not None
            if process.poll() is None:
                process.kill()  # the build gave up early: the rest is not wanted
            process.wait()
            process.stdout.close()
        if beside is not None:
            beside.join()
    if beside is not None:
        beside.finish()  # what the work raised, once the turns are all given


def _part(process: subprocess.Popen[bytes], path: str) -> Iterator[list[str]]:
    """The batches of the next part the process sends (``serve``), none once it is done."""
    assert process.stdout is not None
    while True:
        try:
            kind, payload = pickle.load(process.stdout)
        except EOFError:
            raise RuntimeError(
                f"{path}: the index's analysis process stopped (exit code {process.wait()})"
            ) from None
        if kind in ("part", "done"):
            return
        if kind == "crash":
            raise RuntimeError(f"{path}: the index's analysis process failed:\n{payload}")
        yield payload


class _Beside(threading.Thread):
    """``work`` in a thread; ``finish`` waits for it and raises what it raised."""

    def __init__(self, work: Callable[[], None]) -> None:
        super().__init__(name="refind-beside-index", daemon=True)
        self.work = work
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.work()
        except BaseException as exc:  # raised in the thread that waits for it
            self.error = exc

    def finish(self) -> None:
        self.join()
        if self.error is not None:
            raise self.error


def serve() -> None:
    """The second process: reads (archive path, session seqs, speaker_in_text, {chat: language} of the chats
    not analysed by the default analyzer, the fields' names, parts: ranges of session seqs or None) from
    stdin, sends ("turns", [JSON document, ...]) batches (``json_documents``), ("part", None) after each
    part's (with parts: every turn of those sessions; else of the session seqs), then ("done", None); or
    ("crash", traceback)."""
    from refind_cli.storage.archive import Archive  # here: the module itself never opens an archive

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt means
    out = os.fdopen(os.dup(1), "wb", buffering=_PIPE_BUFFER)
    os.dup2(2, 1)  # anything else printed goes to stderr

    def send(obj: Any) -> None:
        pickle.dump(obj, out, pickle.HIGHEST_PROTOCOL)

    try:
        path, session_seqs, speaker_in_text, langs, fields, parts = pickle.load(sys.stdin.buffer)
        written = json_documents(fields)
        try:
            archive = Archive(path, readonly=True)
            others = {chat: analyzer_for(lang) for chat, lang in langs.items()}
            with archive.snapshot():
                for between in [(BEFORE_ALL, -BEFORE_ALL)] if parts is None else parts:
                    turns = _analysed(
                        archive, session_seqs, DEFAULT_ANALYZER, others, speaker_in_text, between
                    )
                    for batch in _batches(turns):
                        send(("turns", written(batch)))
                    send(("part", None))
                    # Now, not once the buffer fills: the builder, which reads the parts in turn, is
                    # waiting for this one's end while the other process's pipe fills.
                    out.flush()
            archive.close()
        except Exception:
            send(("crash", traceback.format_exc()))
        else:
            send(("done", None))
        out.flush()
    except (BrokenPipeError, EOFError):
        os._exit(1)  # the parent is gone: nobody to tell


def _batches(turns: Iterable[AnalysedTurn]) -> Iterator[list[AnalysedTurn]]:
    batch: list[AnalysedTurn] = []
    for turn in turns:
        batch.append(turn)
        if len(batch) >= _BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
