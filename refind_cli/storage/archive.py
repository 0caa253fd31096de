"""The lossless store: chats, messages (with the source's raw record), sessions, turns and the import ledger,
in one SQLite file. The search index is derived from it and can always be rebuilt from it. This module holds
the write model; reads are ``queries.Queries``, the ledger ``ledger.Ledger``, the schema ``schema``."""

from __future__ import annotations

# ``json`` is imported by the functions here that use it: a search opens the archive and needs none of it
# (loading it compiles five regular expressions; bench/RESULTS.md, issue 26 item 3, session 16).
import contextlib
import operator
import os
from collections.abc import Callable, Iterable, Iterator, Sequence

import apsw

from refind_cli.errors import RefindError
from refind_cli.records import ChatInfo, HeldText, Kind
from refind_cli.storage import raw
from refind_cli.storage.database import (
    BEFORE_ALL,
    COUNT_TABLES,
    COUNTED,
    IS_COUNTED,
    LONG_TEXT,
    MONTH_OF_QUARTER,
    WEEK_QUARTERS,
    apart,
    fetch_all,
    fetch_first,
    fetch_one,
    hashed_chat_key,
    immediate,
    in_chunks,
    packed,
    packed_uid,
    sender_key,
    sender_name,
    seqs_of,
    session_id_text,
    stored_seqs,
    stored_session_id,
    uid_text,
    use_home,
    vacuum,
)
from refind_cli.storage.home import home_to_read
from refind_cli.storage.ledger import Ledger
from refind_cli.storage.queries import Queries
from refind_cli.storage.schema import (
    MIGRATIONS,
    applied_migrations,
    connect,
    connect_readonly,
    spell_out,
    stand_in_senders,
)
from refind_cli.typed import NamedTuple

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Self

    from _typeshed import StrPath

    from refind_cli.storage import written


class StoredSession(NamedTuple):
    """A session as written: ``turns`` are (ordinal, message_seqs); a turn's text, times and speaker are its
    messages' (``queries``)."""

    seq: int
    id: str
    chat_seq: int
    thread: str | None
    start: int
    end: int
    n_messages: int
    signature: bytes
    turns: list[tuple[int, str]]


# Where a row holds its seq, its text, its raw record's rest.
_seq, _text, _rest = operator.itemgetter(0), operator.itemgetter(7), operator.itemgetter(13)


# A message's whole text, where it is stored apart too (on an archive opened for writing, so migrated).
_WHOLE_TEXT = f"CASE WHEN {apart()} THEN (SELECT CAST(l.text AS TEXT) FROM long_texts l WHERE l.seq = messages.seq) ELSE text END"


def _utf8_pieces(text: str) -> Iterator[bytes]:
    """A long text's UTF-8 bytes, ``LONG_TEXT`` characters at a time."""
    for start in range(0, len(text), LONG_TEXT):
        yield text[start : start + LONG_TEXT].encode()


def _opened(path: str, opener: Callable[[str], apsw.Connection], purpose: str = "") -> apsw.Connection:
    """A connection from ``opener``. Not an SQLite file, or one this user cannot open or write, is the user's
    to fix, not a crash: one line naming the file."""
    try:
        return opener(path)
    except apsw.Error as exc:
        raise RefindError(f"{path}: cannot open the archive{purpose} ({exc})") from None


def _insert_sql(text: str = "?8", rest: str = "?14") -> str:
    """The insert of a message row as ``Archive._lean`` gives it, in its stored form, its text and raw
    record's rest given by the SQL expressions ``text`` (of ?8) and ``rest`` (of ?14). Plain parameters: the
    packed identity, the stored kind and what the chat holds once, worked out in SQL for each row, cost
    SQLite 0.3 s of every 200,000 rows, Python less than half of that (bench/RESULTS.md, issue 26 item 2,
    session 14)."""
    return (
        "INSERT OR IGNORE INTO messages (seq, chat_seq, uid, ts, local_time, sender, sender_id, text, kind,"
        " source_id, thread, reply_to, edited, raw, import_seq, own, raw_form, wall)"
        f" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, {text}, ?9, ?10, ?11, ?12, ?13, {rest}, ?15, ?16, ?17, ?18)"
    )


# Without RETURNING: how many rows were new comes from SQLite's count of changes (``insert_messages``).
_INSERT = _insert_sql()
# A message whose long text, long raw record's rest, or both, are stored apart (an empty BLOB in their
# place, ``_insert_long``), by which of them are: its row's seq is wanted to store them under it.
_INSERT_APART = {
    (text, rest): _insert_sql("X''" if text else "?8", "X''" if rest else "?14") + " RETURNING seq"
    for text in (False, True)
    for rest in (False, True)
}
# Where each is stored apart, and the column of its row of the message's row it leaves an empty BLOB in.
_APART_TABLES = ((7, "long_texts", "text"), (13, "long_raws", "raw"))

# A write-ahead log longer than this is folded into the file by the next reader to find the home free.
LEFT_LOG = 4096 * 1000


def chat_uid_for(source: str, key: str) -> str:
    """The uid a chat of this source and key is stored under (``Archive.upsert_chat``), unless it was adopted
    under an earlier release's key."""
    return f"{source}:{key}"


class Archive(Queries, Ledger):
    """One open archive. Writes go through ``transaction()``; reads see the last commit (WAL mode).

    Opened ``readonly``, it writes nothing and takes no lock, so a reader never waits for a writer and a
    home on read-only media can be read; an archive the migrations have not reached yet is read as it is.
    The first write (a transaction; the CLI writes only under the home's write lock) opens it for writing,
    which applies the migrations."""

    def __init__(self, path: StrPath, *, readonly: bool = False) -> None:
        self.path = os.fspath(path)
        self.readonly = readonly
        self._chats: dict[int, ChatInfo] = {}
        # What each chat holds once for its rows (``_chatwide``), as decided in this transaction or read.
        self._wide: dict[int, written.Chatwide] = {}
        # Senders' keys (``database.sender_key``) by name, as stored or read in this transaction.
        self._senders: dict[str, bytes] = {}
        self._lang_column = False
        # The lowest seq of the messages stored in this transaction and not yet in message_counts.
        self._uncounted: int | None = None
        self.db = _opened(self.path, connect_readonly if readonly else connect)

    @classmethod
    def open(cls, home: StrPath, *, readonly: bool = False) -> Self:
        if not readonly:
            use_home(home)
        else:
            home_to_read(home)  # a reader creates nothing: a home that does not exist yet reads as empty
        return cls(os.path.join(home, "archive.db"), readonly=readonly)

    @property
    def folder(self) -> str:
        """The folder the file is in (the home, where ``open`` opened it); ``.`` for a bare file name."""
        return os.path.dirname(self.path) or os.curdir

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def behind(self) -> bool:
        """Whether the file lacks migrations of this release (a read-only open reads it as it stands)."""
        try:
            return bool(self.db.filename) and len(applied_migrations(self.db)) < len(MIGRATIONS)
        except apsw.Error:
            return False  # a damaged file: `refind doctor` reports it, nothing migrates it

    def log_left(self) -> bool:
        """Whether a write-ahead log longer than SQLite's automatic checkpoint keeps it (1,000 pages) lies
        beside the file: a writer that closed while a reader had the file open leaves it, and the first query
        of every process after reads all of it again (a migration's VACUUM at 1M messages: 200 MB, ~130 ms)."""
        try:
            return os.stat(f"{self.path}-wal").st_size > LEFT_LOG
        except OSError:
            return False

    def upgrade(self) -> None:
        """Apply the migrations the file lacks and fold the write-ahead log into it, for a reader holding the
        home's write lock; this connection reads on and sees them from its next read. Where the file cannot
        be written, it stays as it is."""
        with contextlib.suppress(apsw.Error, OSError):
            db = connect(self.path)
            try:
                # This reader's own connection keeps the file open, so closing the writer does not fold the
                # log in and remove it, as the last connection's close does.
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.close()
        stand_in_senders(self.db)
        self._chats.clear()
        self._wide.clear()

    def _writable(self) -> None:
        """Reopen a read-only archive for writing (migrating it first)."""
        if not self.readonly:
            return
        use_home(self.folder)
        db = _opened(self.path, connect, " for writing")
        self.db.close()
        self.db = db
        self.readonly = False
        self._chats.clear()
        self._wide.clear()
        self._senders.clear()

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside the block see one commit, the latest when it begins, whatever other processes commit
        meanwhile: for a reader that lives on (the MCP server). An archive that was not there when this one
        was opened read-only (an empty one in memory stood in) is opened now."""
        if self.readonly and not self.db.filename and os.path.exists(self.path):
            db = _opened(self.path, connect_readonly)
            self.db.close()
            self.db = db
        self._chats.clear()  # a re-import may have renamed a chat
        if self.readonly:
            stand_in_senders(self.db)  # another process may have migrated the file since
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception. Used inside another, it joins it."""
        self._writable()
        outermost = not self.db.in_transaction
        if outermost:
            # Another process may have removed a chat since, and a new one taken its seq; or a sender.
            self._wide.clear()
            self._senders.clear()
        try:
            with immediate(self.db):
                yield
                if outermost:
                    self._count_new()
        except BaseException:
            # Chats cached in a rolled-back transaction may not exist, nor messages left to count.
            self._chats.clear()
            self._wide.clear()
            self._senders.clear()
            self._uncounted = None
            raise

    def upsert_chat(
        self,
        source: str,
        key: str,
        name: str,
        kind: str,
        raw: str,
        segmenting: str,
        former_key: str | None = None,
    ) -> tuple[int, str]:
        """The chat's seq, and how it was segmented before (``""`` for a new chat). A chat stored under
        ``former_key`` (an earlier release's key for it) is adopted, uid and all, once: it takes ``key``, so
        that another chat with the same former key (a Slack channel id that two workspaces reuse) is a chat
        of its own. A new chat inherits what was forgotten under the former key."""
        uid = chat_uid_for(source, key)
        former = None if former_key is None else chat_uid_for(source, former_key)
        row = self.chat_by_uid(uid) or self._chat_by_key(source, key)
        if row is None and former_key is not None:
            row = self._chat_by_key(source, former_key, uid=former)
            if row is not None:
                self.db.execute("UPDATE chats SET key = ? WHERE seq = ?", (key, row[0]))
        if row is None:
            merged = self._merged_into(uid)
            if merged is not None:
                # A chat the user merged into another: its messages go there; the other keeps its own row.
                return merged
        if row:
            # The name the user gave (`refind chats rename`) wins over the export's, every time.
            self.db.execute(
                "UPDATE chats SET name = CASE WHEN renamed THEN name ELSE ? END, kind = ?, raw = ?,"
                " segmenting = ? WHERE seq = ?",
                (name, kind, raw, segmenting, row[0]),
            )
            self._chats.pop(row[0], None)
            return row[0], row[1]
        self.db.execute(
            "INSERT INTO chats (uid, source, key, name, kind, raw, segmenting) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (uid, source, key, name, kind, raw, segmenting),
        )
        seq = self.db.last_insert_rowid()
        if former is not None:
            self.db.execute(
                "INSERT OR IGNORE INTO forgotten (chat_key, uid) SELECT ?, uid FROM forgotten WHERE chat_key = ?",
                (hashed_chat_key(uid), hashed_chat_key(former)),
            )
        return seq, ""

    def _merged_into(self, uid: str) -> tuple[int, str] | None:
        """(seq, segmenting) of the chat the chat with this uid was merged into, if it was and that one is
        still there."""
        return fetch_one(
            self.db.execute(
                "SELECT c.seq, c.segmenting FROM chat_aliases a JOIN chats c ON c.seq = a.chat_seq"
                " WHERE a.chat_key = ?",
                (hashed_chat_key(uid),),
            ),
            tuple[int, str],
        )

    def rename_chat(self, seq: int, name: str) -> None:
        """Give a chat the user's name for it; a re-import of its export keeps it."""
        with self.transaction():
            self.db.execute("UPDATE chats SET name = ?, renamed = 1 WHERE seq = ?", (name, seq))
            self._chats.pop(seq, None)

    def merge_chats(self, into: int, other: int) -> None:
        """Move ``other``'s messages into ``into`` (a message both hold is kept once) and drop ``other``,
        which from now on stands for ``into``: a re-import of its export adds to ``into``, and what was
        forgotten in it stays forgotten. Both chats' sessions are planned again by the caller
        (``sessions.resegment_chat``), inside this transaction."""
        with self.transaction():
            into_uid, other_uid = self.chat_uid(into), self.chat_uid(other)
            if self.chatwide(other) != self.chatwide(into):
                spell_out(self.db, "m.chat_seq = ?", (other,))
            self._uncount("chat_seq = ?", (other,))
            self.db.execute("UPDATE OR IGNORE messages SET chat_seq = ? WHERE chat_seq = ?", (into, other))
            self._delete_messages("chat_seq = ?", (other,))
            self._recount(into)
            self.delete_sessions(
                [r[0] for r in self.db.execute("SELECT seq FROM sessions WHERE chat_seq = ?", (other,))]
            )
            self.db.execute(
                "INSERT OR IGNORE INTO forgotten (chat_key, uid) SELECT ?, uid FROM forgotten WHERE chat_key = ?",
                (hashed_chat_key(into_uid), hashed_chat_key(other_uid)),
            )
            # Chats merged into ``other`` before now stand for ``into`` too.
            self.db.execute("UPDATE chat_aliases SET chat_seq = ? WHERE chat_seq = ?", (into, other))
            self.db.execute(
                "INSERT OR REPLACE INTO chat_aliases (chat_key, chat_seq) VALUES (?, ?)",
                (hashed_chat_key(other_uid), into),
            )
            self.db.execute("DELETE FROM chats WHERE seq = ?", (other,))
            self._chats.pop(other, None)
            self._wide.pop(other, None)

    def _delete_messages(self, where: str, args: Sequence[object]) -> None:
        """Delete the messages ``where`` says (of ``messages``), and their texts and raw records stored
        apart: those are looked up from the few long ones, not from the messages."""
        for _, table, _ in _APART_TABLES:
            self.db.execute(
                f"DELETE FROM {table} WHERE (SELECT {where} FROM messages WHERE messages.seq = {table}.seq)",
                args,
            )
        self.db.execute(f"DELETE FROM messages WHERE {where}", args)

    def _chat_by_key(self, source: str, key: str, uid: str | None = None) -> tuple[int, str] | None:
        """(seq, segmenting) of the chat that has this key now (an adopted chat keeps its former uid)."""
        sql = "SELECT seq, segmenting FROM chats WHERE source = ? AND key = ?"
        if uid is None:
            return fetch_one(self.db.execute(sql, (source, key)), tuple[int, str])
        return fetch_one(self.db.execute(f"{sql} AND uid = ?", (source, key, uid)), tuple[int, str])

    def chat_by_uid(self, uid: str) -> tuple[int, str] | None:
        """(seq, segmenting) of the chat with this uid, if there is one."""
        return fetch_one(
            self.db.execute("SELECT seq, segmenting FROM chats WHERE uid = ?", (uid,)), tuple[int, str]
        )

    def chat_counted(self, uid: str) -> tuple[int, str, int, int, str, str, str, int] | None:
        """(seq, segmenting, sessions, turns, name, kind, raw, renamed) of the chat with this uid, if there is
        one."""
        return fetch_one(
            self.db.execute(
                "SELECT seq, segmenting, n_sessions, n_turns, name, kind, raw, renamed FROM chats WHERE uid = ?",
                (uid,),
            ),
            tuple[int, str, int, int, str, str, str, int],
        )

    def chats_by_uid(self, uids: Sequence[str]) -> dict[str, tuple[int, str, str, str, int, int]]:
        """By uid, the chats with these uids: (seq, segmenting, name, source, sessions, turns), in one
        query (a re-import that takes thousands of chats as they are), their counts as their rows keep them
        (``schema._m043_chats_keyed_and_counted``)."""
        import json

        rows = self.db.execute(
            "SELECT uid, seq, segmenting, name, source, n_sessions, n_turns FROM chats"
            " WHERE uid IN (SELECT value FROM json_each(?))",
            (json.dumps(list(uids)),),
        )
        return {row[0]: row[1:] for row in rows}

    def session_counts(self, chat_seq: int) -> tuple[int, int]:
        """(sessions, turns) of a chat."""
        return fetch_first(
            self.db.execute("SELECT n_sessions, n_turns FROM chats WHERE seq = ?", (chat_seq,)),
            tuple[int, int],
        )

    def chat_segmenting(self, chat_seq: int) -> tuple[str, str]:
        """(chat uid, segmenting) of a chat."""
        return fetch_first(
            self.db.execute("SELECT uid, segmenting FROM chats WHERE seq = ?", (chat_seq,)), tuple[str, str]
        )

    def forgotten_uids(self, chat_uid: str) -> frozenset[str]:
        return frozenset(
            r[0]
            for r in self.db.execute(
                "SELECT uid FROM forgotten WHERE chat_key = ?", (hashed_chat_key(chat_uid),)
            )
        )

    def restore_forgotten(self, chat_uid: str) -> None:
        self.db.execute("DELETE FROM forgotten WHERE chat_key = ?", (hashed_chat_key(chat_uid),))

    def delete_chat_if_empty(self, chat_seq: int) -> None:
        if not self.has_messages(chat_seq):
            self.db.execute("DELETE FROM chats WHERE seq = ?", (chat_seq,))
            self._chats.pop(chat_seq, None)
            self._wide.pop(chat_seq, None)

    def chat_uid(self, chat_seq: int) -> str:
        return fetch_first(self.db.execute("SELECT uid FROM chats WHERE seq = ?", (chat_seq,)), tuple[str])[0]

    def queue_chat(self, chat_seq: int) -> None:
        """Mark every session of the chat for re-indexing (its analysis changed)."""
        self.db.execute(
            "INSERT OR IGNORE INTO index_queue (session_seq) SELECT seq FROM sessions WHERE chat_seq = ?",
            (chat_seq,),
        )

    def set_chat_language(self, chat_seq: int, lang: str, basis: int, given: bool) -> None:
        self.db.execute(
            "UPDATE chats SET lang = ?, lang_basis = ?, lang_given = ? WHERE seq = ?",
            (lang, basis, int(given), chat_seq),
        )

    def next_message_seq(self) -> int:
        return fetch_first(self.db.execute("SELECT coalesce(max(seq), 0) + 1 FROM messages"), tuple[int])[0]

    def has_messages(self, chat_seq: int) -> bool:
        return (
            self.db.execute("SELECT 1 FROM messages WHERE chat_seq = ? LIMIT 1", (chat_seq,)).fetchone()
            is not None
        )

    def insert_messages(self, rows: list[tuple]) -> int:
        """Rows as (seq, chat_seq, uid, ts, local_time, sender, sender_id, text, kind, source_id, thread,
        reply_to, edited, raw, import_seq, own, raw_form), the raw record as ``raw.cut`` leaves it; seq may be
        None (the next free one), and a seq given is free. Returns how many were new; known uids are left
        alone. They are counted for `refind stats` when the transaction ends (``_count_new``), or before at
        ``count_stored``. What the chat holds once (``_lean``) is left out of them."""
        if not rows:
            return 0
        # Before counting changes: deciding what the chat holds once may update its row.
        rows = self._lean(rows)
        given = [seq for seq in map(_seq, rows) if seq is not None]
        # A row without a seq gets the highest stored one's next: no new row lies below this.
        lowest = min(given) if len(given) == len(rows) else min([self.next_message_seq(), *given])
        # How many were new from SQLite's count of changes rather than a RETURNING clause, which cost a
        # third of the insert's CPU time (bench/RESULTS.md, issue 26 item 2, session 10).
        before = self.db.total_changes()
        apart = 0  # rows of long_texts and long_raws, which SQLite counts as changes too
        # A HeldText is longer (``worker.PIECE``).
        if max(map(len, map(_text, rows))) > LONG_TEXT or max(map(len, map(_rest, rows))) > LONG_TEXT:
            apart = sum(map(self._insert_long, rows))
        else:
            self.db.executemany(_INSERT, rows)
        added = self.db.total_changes() - before - apart
        if added:
            self._uncounted = lowest if self._uncounted is None else min(self._uncounted, lowest)
            if not self.db.in_transaction:
                self._count_new()
        return added

    def count_stored(self) -> None:
        """Count the messages stored so far now rather than when the transaction ends. For a caller that
        stores no message below one stored before this (an import, between its batches: a seq it gives is
        above every stored one, or its batch's own); at the end of a large import the one pass over them
        all took 0.6 s per 200,000 messages on one core, its worker gone."""
        self._count_new()

    def _lean(self, rows: list[tuple]) -> list[tuple]:
        """``insert_messages``' rows in their stored form (``_insert_sql``): the identity packed
        (``database.packed``), the sender's key in place of the name (the archive holds the name once), a
        text message's kind as '', and what the chat holds once left out: the written time, stored as NULL
        where the chat's layout rebuilds it from the instant and the offset of the clock it was written by
        (``wall``, the row's last column), and the raw record's rest, stored as '' or a key where the chat
        holds it (``Chatwide``; a rest that holds nothing a person wrote is held from its first row on).
        Each rebuild is checked here. (Each value is bound once: a record kept whole may be a 50-MB
        message.)"""
        lean = []
        senders = self._senders
        text_kind = Kind.TEXT
        chat = layout = write = None
        held: dict[str, str | bytes] = {}
        offset = 0  # the last row's
        # The last row's written time, instant and wall: messages sent in the same minute share them, and
        # the check of one costs a time formatted (a fifth of the rows of a generated chat, more of a real one).
        last: tuple[str | None, int, int | None] = (None, 0, None)
        for row in rows:
            chat_seq, uid, ts, stamp, name = row[1:6]
            kind, rest, form = row[8], row[13], row[16]
            if chat_seq != chat:
                chat = chat_seq
                wide = self._wide.get(chat) or self._chatwide_from(chat, rows)
                layout, held = wide.layout, wide.stored
                write = None if layout is None else layout.write
                last = (None, 0, None)
            wall = None
            if stamp is not None and layout is not None:
                if stamp == last[0] and ts == last[1] and offset == last[2]:
                    wall = offset
                else:
                    # ``Layout.offset_near``, its first try here: a chat's clock seldom changes.
                    assert write is not None
                    wall = (
                        offset if write(ts // 1_000_000 + offset * 60) == stamp else layout.offset(stamp, ts)
                    )
                    offset = offset if wall is None else wall
                    last = (stamp, ts, wall)
                if wall is not None:
                    stamp = None
            key = None if name is None else senders.get(name) or self._sender_key(name)
            if form is not None:
                shared = held.get(rest)
                if shared is None and len(wide.rests) < raw.FURTHER_RESTS and raw.unwritten(rest):
                    wide = self._hold_rest(chat_seq, rest)
                    held = wide.stored
                    shared = held[rest]
                if shared is not None:
                    rest = shared
            uid, kind = packed(uid), "" if kind == text_kind else kind
            # The row's other columns are stored as they come: seq; sender_id, text; source_id to edited;
            # import_seq, own and raw_form.
            lean.append(
                (row[0], chat_seq, uid, ts, stamp, key, *row[6:8], kind, *row[9:13], rest, *row[14:], wall)
            )
        return lean

    def _hold_rest(self, chat_seq: int, rest: str) -> written.Chatwide:
        """The chat's ``Chatwide`` holding ``rest`` too, as its next further rest (stored now)."""
        import json

        wide = self._wide[chat_seq]
        rests = (*wide.rests, rest)
        self.db.execute(
            "UPDATE chats SET rests = ? WHERE seq = ?", (json.dumps(rests, ensure_ascii=False), chat_seq)
        )
        self._wide[chat_seq] = wide = type(wide)(wide.layout, wide.rest, rests)
        return wide

    def _sender_key(self, name: str) -> bytes:
        """The key of a sender's name, stored now if the archive does not hold the name yet: the number after
        the highest key's."""
        found = fetch_one(self.db.execute("SELECT key FROM senders WHERE name = ?", (name,)), tuple[bytes])
        if found is None:
            last = fetch_one(
                self.db.execute("SELECT key FROM senders ORDER BY length(key) DESC, key DESC LIMIT 1"),
                tuple[bytes],
            )
            key = sender_key(0 if last is None else int.from_bytes(last[0]) + 1)
            self.db.execute("INSERT INTO senders (key, name) VALUES (?, ?)", (key, name))
        else:
            key = found[0]
        self._senders[name] = key
        return key

    def _chatwide_from(self, chat_seq: int, rows: list[tuple]) -> written.Chatwide:
        """The chat's ``Chatwide``; what it does not hold yet is decided from ``rows`` (its first rows) and
        kept for good: rows stored from now on rely on it. Decided once a transaction: a chat whose times
        have no layout found keeps them as text (until the archive is opened again)."""
        from refind_cli.storage.written import Chatwide, told  # here: a search never writes

        wide = self.chatwide(chat_seq)
        layout, rest = wide.layout, wide.rest
        if layout is None:
            layout = told([(r[3], r[4]) for r in rows if r[1] == chat_seq and r[4] is not None])
            if layout is not None:
                self.db.execute("UPDATE chats SET written = ? WHERE seq = ?", (layout.dumps(), chat_seq))
        if rest is None:
            rest = raw.shared_rest(r[13] for r in rows if r[1] == chat_seq and r[16] is not None)
            if rest is not None:
                self.db.execute("UPDATE chats SET rest = ? WHERE seq = ?", (rest, chat_seq))
        self._wide[chat_seq] = wide = Chatwide(layout, rest, wide.rests)
        return wide

    def _insert_long(self, row: tuple) -> int:
        """Insert one row, its text and its raw record's rest each stored apart if it is long
        (``database.LONG_TEXT``; a ``HeldText`` always is): as a zeroblob of as many bytes as it has, the
        last column of a row of its own, then written a piece at a time, so SQLite never holds it whole. (In
        the message's row, cast from a zeroblob or bound whole, a 50-MB text cost SQLite two copies of it: the
        value and the row's record.) How many it stored apart: 0 to 2 (none is long, or the archive holds the
        message already)."""
        long = (len(row[7]) > LONG_TEXT, len(row[13]) > LONG_TEXT)  # as ``_APART_TABLES`` has them
        if not any(long):
            self.db.execute(_INSERT, row)
            return 0
        given = list(row)
        for (column, _, _), is_long in zip(_APART_TABLES, long, strict=True):
            if is_long:
                given[column] = None
        stored = [seq for (seq,) in self.db.execute(_INSERT_APART[long], given)]
        for seq in stored:
            for (column, table, name), is_long in zip(_APART_TABLES, long, strict=True):
                if is_long:
                    self._store_apart(table, name, seq, row[column])
        return len(stored) * sum(long)

    def _store_apart(self, table: str, column: str, seq: int, value: str | HeldText) -> None:
        """``value`` as the row ``seq`` of ``table``, written a piece at a time (``_insert_long``)."""
        if isinstance(value, HeldText):
            size, pieces = value.size, value.pieces()
        else:
            size, pieces = sum(map(len, _utf8_pieces(value))), _utf8_pieces(value)
        self.db.execute(
            f"INSERT INTO {table} (seq, chars, {column}) VALUES (?, ?, zeroblob(?))", (seq, len(value), size)
        )
        with self.db.blob_open("main", table, column, seq, True) as blob:
            for piece in pieces:
                blob.write(piece)

    def _count_new(self) -> None:
        """Add the messages stored since the last count to the tables of counts (new messages take the
        highest seqs): per-row triggers cost 8-13 % of an import's CPU. One grouped pass over them counts
        them by quarter hour; the months' counts are the sums of their quarters' (one grouped pass over
        the messages each, the months' date function a message cost 0.15 s of every 200,000:
        bench/RESULTS.md, issue 26 item 2, session 14)."""
        if self._uncounted is None:
            return
        quarters, months = COUNT_TABLES
        db = self.db
        db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS new_counts (chat_seq INT, quarter INT, sender, named INT, kind, n INT)"
        )
        db.execute(
            f"INSERT INTO temp.new_counts SELECT {COUNTED}, count(*) FROM messages WHERE seq >= ? AND {IS_COUNTED}"
            " GROUP BY 1, 2, 3, 4, 5",
            (self._uncounted,),
        )
        db.execute(
            f"INSERT INTO {quarters.table} SELECT *, quarter % {WEEK_QUARTERS}"
            " FROM temp.new_counts WHERE true ON CONFLICT DO UPDATE SET n = n + excluded.n"
        )
        db.execute(
            f"INSERT INTO {months.table} SELECT chat_seq, {MONTH_OF_QUARTER}, sender, named, kind, sum(n)"
            " FROM temp.new_counts GROUP BY 1, 2, 3, 4, 5 ON CONFLICT DO UPDATE SET n = n + excluded.n"
        )
        db.execute("DELETE FROM temp.new_counts")
        self._uncounted = None

    def _recount(self, chat_seq: int) -> None:
        """Count a chat's messages again from scratch (a merge moved some of another's into it)."""
        self._count_new()
        for counts in COUNT_TABLES:
            self.db.execute(f"DELETE FROM {counts.table} WHERE chat_seq = ?", (chat_seq,))
            self.db.execute(
                f"INSERT INTO {counts.table} SELECT {counts.key}, count(*){counts.extra} FROM messages"
                f" WHERE chat_seq = ? AND {IS_COUNTED} GROUP BY 1, 2, 3, 4, 5",
                (chat_seq,),
            )

    def _uncount(self, where: str, args: Sequence[object]) -> None:
        """Take the messages ``where`` selects out of the tables of counts, before they are deleted or moved;
        a count that falls to 0 goes (forgetting a chat leaves no trace of its senders' names)."""
        self._count_new()
        for counts in COUNT_TABLES:
            gone = fetch_all(
                self.db.execute(
                    f"SELECT {counts.key}, count(*) FROM messages WHERE {where} AND {IS_COUNTED}"
                    " GROUP BY 1, 2, 3, 4, 5",
                    args,
                ),
                tuple[int, int, str, int, str, int],
            )
            self.db.executemany(f"UPDATE {counts.table} SET n = n - ?6 WHERE {counts.match}", gone)
            self.db.executemany(
                f"DELETE FROM {counts.table} WHERE n <= 0 AND {counts.match}", [r[:5] for r in gone]
            )

    def stored_texts(self, chat_seq: int, keys: list[tuple[int, str]]) -> list[str | None]:
        """The stored text of each (ts, uid) of a chat, None where there is none."""
        found = dict(
            self.db.executemany(
                f"SELECT ?1, {_WHOLE_TEXT} FROM messages WHERE chat_seq = ?2 AND ts = ?3 AND uid = {packed_uid('?4')}",
                [(i, chat_seq, ts, uid) for i, (ts, uid) in enumerate(keys)],
            )
        )
        return [found.get(i) for i in range(len(keys))]

    def segment_rows(
        self, chat_seq: int, threaded: bool, start: int | None = None
    ) -> Iterator[tuple[int, str, int, str, str | None, int]]:
        """(seq, uid, ts, sender, thread, characters of the text) of a chat's messages that sessions hold
        (hidden ones are not): unthreaded ones in time order (from ``start`` on, if given), or threaded ones
        grouped by thread and in time order within each. The texts stay in SQLite: planning needs their
        lengths only."""
        # SQLite's length() stops at a NUL character: a text that holds one comes whole, to be counted here.
        # A long text's length is stored beside it.
        columns = (
            f"SELECT seq, {uid_text()}, ts, coalesce({sender_name('sender')}, ''), thread,"
            f" CASE WHEN {apart()} THEN (SELECT chars FROM long_texts l WHERE l.seq = messages.seq)"
            " WHEN instr(text, char(0)) THEN text ELSE length(text) END FROM messages"
            f" WHERE kind != '{Kind.HIDDEN}'"
        )
        if threaded:
            sql = f"{columns} AND chat_seq = ? AND thread IS NOT NULL ORDER BY thread, ts, seq"
            rows = self.db.execute(sql, (chat_seq,))
        else:
            sql = f"{columns} AND chat_seq = ? AND thread IS NULL AND ts >= ? ORDER BY ts, seq"
            rows = self.db.execute(sql, (chat_seq, BEFORE_ALL if start is None else start))
        for seq, uid, ts, sender, thread, chars in rows:
            yield seq, uid, ts, sender, thread, chars if isinstance(chars, int) else len(chars)

    def session_signatures(
        self, chat_seq: int, start: int | None = None, threads: bool = True
    ) -> dict[str, tuple[int, bytes]]:
        """id -> (seq, signature) of a chat's sessions; with ``start``, its threads (unless not ``threads``)
        and the unthreaded sessions that begin at ``start`` or later."""
        # Without threads, a range of the (chat_seq, start_ts) index.
        which = "(thread IS NOT NULL OR start_ts >= ?)" if threads else "start_ts >= ? AND thread IS NULL"
        rows = self.db.execute(
            f"SELECT {session_id_text('id')}, seq, signature FROM sessions WHERE chat_seq = ? AND {which}",
            (chat_seq, BEFORE_ALL if start is None else start),
        )
        return {sid: (seq, sig) for sid, seq, sig in rows}

    def replan_start(self, chat_seq: int, first_new_seq: int) -> int | None:
        """Where re-planning a chat's unthreaded sessions must begin once messages were added to it (those
        with seqs from ``first_new_seq`` on): the start of the last session that begins no later than the
        earliest of them and that no earlier session reaches (a session cut at the cap inside a run of equal
        timestamps shares its start time with the one before). Sessions before it end more than a session gap
        before it, so nothing added after can change them. None: from the chat's beginning."""
        rows = self.db.execute(
            # "+chat_seq": the new rows by their seqs (a rowid range), not the chat's whole index.
            "SELECT start_ts, end_ts FROM sessions WHERE chat_seq = ? AND thread IS NULL AND start_ts <="
            " (SELECT min(ts) FROM messages WHERE seq >= ? AND +chat_seq = ?) ORDER BY start_ts DESC, seq DESC",
            (chat_seq, first_new_seq, chat_seq),
        )
        start: int | None = None
        for begins, ends in rows:
            if start is not None and ends < start:
                break
            start = begins
        return start

    def next_session_seq(self) -> int:
        return fetch_first(self.db.execute("SELECT coalesce(max(seq), 0) + 1 FROM sessions"), tuple[int])[0]

    def store_sessions(self, sessions: list[StoredSession], replace: bool) -> None:
        """Write sessions (with their seqs decided by the caller) and their turns, queue them for the index,
        and count them on their chats' rows. With ``replace``, older versions of the same seqs are replaced
        (and no longer counted)."""
        if replace:
            self._uncount_sessions([s.seq for s in sessions])
            for s in sessions:
                self.db.execute("DELETE FROM turns WHERE session_seq = ?", (s.seq,))
        # Plain INSERT for new sessions: OR REPLACE looks for conflicts first (measured 8.2 us a row against 6.2).
        self.db.executemany(
            f"INSERT{' OR REPLACE' if replace else ''} INTO sessions (seq, id, chat_seq, thread, start_ts,"
            " end_ts, n_turns, n_messages, signature) VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (
                    s.seq,
                    stored_session_id(s.id),
                    s.chat_seq,
                    s.thread,
                    s.start,
                    s.end,
                    len(s.turns),
                    s.n_messages,
                    s.signature,
                )
                for s in sessions
            ],
        )
        self.db.executemany(
            "INSERT INTO turns (session_seq, ordinal, message_seqs) VALUES (?,?,?)",
            [(s.seq, ordinal, stored_seqs(seqs)) for s in sessions for ordinal, seqs in s.turns],
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO index_queue (session_seq) VALUES (?)", [(s.seq,) for s in sessions]
        )
        added: dict[int, tuple[int, int]] = {}
        for s in sessions:
            n, turns = added.get(s.chat_seq, (0, 0))
            added[s.chat_seq] = (n + 1, turns + len(s.turns))
        self.db.executemany(
            "UPDATE chats SET n_sessions = n_sessions + ?, n_turns = n_turns + ? WHERE seq = ?",
            [(n, turns, chat_seq) for chat_seq, (n, turns) in added.items()],
        )

    def _uncount_sessions(self, seqs: Sequence[int]) -> None:
        """Take the sessions of these seqs that are stored from their chats' counts (they are about to be
        replaced or deleted)."""
        import json

        self.db.execute(
            "UPDATE chats SET n_sessions = n_sessions - s.n, n_turns = n_turns - s.t FROM (SELECT chat_seq,"
            " count(*) AS n, sum(n_turns) AS t FROM sessions WHERE seq IN (SELECT value FROM json_each(?))"
            " GROUP BY chat_seq) AS s WHERE chats.seq = s.chat_seq",
            (json.dumps(list(seqs)),),
        )

    def delete_sessions(self, seqs: Iterable[int]) -> None:
        """Delete sessions and their turns (their chats count them no more), and queue them for the index."""
        seqs = list(seqs)
        self._uncount_sessions(seqs)
        for seq in seqs:
            self.db.execute("DELETE FROM turns WHERE session_seq = ?", (seq,))
            self.db.execute("DELETE FROM sessions WHERE seq = ?", (seq,))
            self.db.execute("INSERT OR IGNORE INTO index_queue (session_seq) VALUES (?)", (seq,))

    def session_message_seqs(self, session_seq: int) -> list[int]:
        rows = self.db.execute("SELECT message_seqs FROM turns WHERE session_seq = ?", (session_seq,))
        return [seq for (seqs,) in rows for seq in seqs_of(seqs)]

    def sessions_of_messages(self, chat_seqs: Iterable[int], message_seqs: set[int]) -> set[int]:
        """Sessions (seqs) of the given chats that contain any of the given messages."""
        found: set[int] = set()
        for chat_seq in chat_seqs:
            for session_seq, seqs in self.db.execute(
                "SELECT session_seq, message_seqs FROM turns"
                " WHERE session_seq IN (SELECT seq FROM sessions WHERE chat_seq = ?)",
                (chat_seq,),
            ):
                if session_seq not in found and not message_seqs.isdisjoint(seqs_of(seqs)):
                    found.add(session_seq)
        return found

    def known_uids(self, chat_seq: int, lo: int, hi: int, among: Sequence[str] | None = None) -> set[str]:
        """Uids of a chat's messages stored with times from ``lo`` to ``hi`` (only those ``among`` the given
        uids, if given)."""
        import json

        sql = f"SELECT {uid_text()} FROM messages WHERE chat_seq = ? AND ts BETWEEN ? AND ?"
        if among is None:
            return {r[0] for r in self.db.execute(sql, (chat_seq, lo, hi))}
        packed = f"{sql} AND uid IN (SELECT {packed_uid('value')} FROM json_each(?))"
        return {r[0] for r in self.db.execute(packed, (chat_seq, lo, hi, json.dumps(list(among))))}

    def forget_messages(self, seqs: Sequence[int]) -> None:
        """Delete messages, remembering only their identities (under a hash of their chat's uid) so a
        re-import skips them. A sender's name none of the messages left has goes with them."""
        keys: set[bytes] = set()
        for part, marks in in_chunks(seqs):
            keys.update(
                r[0]
                for r in self.db.execute(
                    f"SELECT DISTINCT sender FROM messages WHERE seq IN ({marks}) AND typeof(sender) = 'blob'",
                    part,
                )
            )
            rows = fetch_all(
                self.db.execute(
                    f"SELECT c.uid, {uid_text('m.uid')} FROM messages m JOIN chats c ON c.seq = m.chat_seq"
                    f" WHERE m.seq IN ({marks})",
                    part,
                ),
                tuple[str, str],
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO forgotten (chat_key, uid) VALUES (?, ?)",
                [(hashed_chat_key(chat_uid), uid) for chat_uid, uid in rows],
            )
            self._uncount(f"seq IN ({marks})", part)
            self._delete_messages(f"seq IN ({marks})", part)
        for part, marks in in_chunks(list(keys)):
            self.db.execute(
                f"DELETE FROM senders WHERE key IN ({marks})"
                " AND NOT EXISTS (SELECT 1 FROM messages WHERE sender = senders.key)",
                part,
            )
        self._senders.clear()

    @contextlib.contextmanager
    def checkpoints_deferred(self) -> Iterator[None]:
        """No checkpoint as a transaction commits, for writes that end in ``compact`` (which empties the
        write-ahead log): the log is copied into the file once, not once by the commit and again after the
        compaction. What is committed is as safe in the log as in the file."""
        self._writable()  # the connection the writes will use
        (pages,) = fetch_first(self.db.execute("PRAGMA wal_autocheckpoint"), tuple[int])
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        try:
            yield
        finally:
            self.db.execute(f"PRAGMA wal_autocheckpoint={pages:d}")

    def compact(self) -> None:
        """Rewrite the database file and empty the write-ahead log, so no free page or old frame keeps
        deleted text."""
        self._writable()
        vacuum(self.db)
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def index_queue(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT session_seq FROM index_queue ORDER BY session_seq")]

    def clear_index_queue(self, seqs: Iterable[int]) -> None:
        seqs = list(seqs)
        with self.transaction():
            for part, marks in in_chunks(seqs):
                self.db.execute(f"DELETE FROM index_queue WHERE session_seq IN ({marks})", part)

    def queue_all_sessions(self) -> None:
        """Mark every session stale: used when the index is found missing or unreadable."""
        self.db.execute("INSERT OR IGNORE INTO index_queue (session_seq) SELECT seq FROM sessions")
