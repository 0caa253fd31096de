"""The lossless store: chats, messages (with the source's raw record), sessions, turns and the import ledger,
in one SQLite file. The search index is derived from it and can always be rebuilt from it.

Times are stored as integer microseconds since the epoch, UTC.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Self, TypeVar, cast
from urllib.parse import quote

import apsw

from refind_cli.errors import RefindError
from refind_cli.records import ChatInfo, Kind, Turn
from refind_cli.results import ChatSummary, SessionInfo
from refind_cli.storage.home import ensure_home, home_to_read

# apsw types a row as a tuple of any SQLite values; the schema fixes each query's row shape, so these state it
# once, next to the SQL (``shape`` is only read by the type checker).
_Row = TypeVar("_Row", bound=tuple[Any, ...])


def _rows(cursor: apsw.Cursor, shape: type[_Row]) -> list[_Row]:
    return cast(list[_Row], cursor.fetchall())


def _row(cursor: apsw.Cursor, shape: type[_Row]) -> _Row | None:
    return cast("_Row | None", cursor.fetchone())


def _first(cursor: apsw.Cursor, shape: type[_Row]) -> _Row:
    """The row a query always has: an aggregate's, or one of a key the caller holds."""
    return cast(_Row, cursor.fetchone())


# The schema grows by named migrations, each applied once and recorded (name, time) in the table
# ``migrations``. The first is the schema of the release before them, so its archives upgrade in place.

INITIAL_SCHEMA = """
CREATE TABLE IF NOT EXISTS chats (
    seq INTEGER PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    key TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    raw TEXT NOT NULL DEFAULT '',
    -- how the chat was cut into sessions and turns ("burst:<gap in us>"), so re-segmentation repeats it
    segmenting TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY,
    chat_seq INTEGER NOT NULL,
    uid TEXT NOT NULL,
    ts INTEGER NOT NULL,
    local_time TEXT,
    sender TEXT,
    sender_id TEXT,
    text TEXT NOT NULL,
    kind TEXT NOT NULL,
    source_id TEXT,
    thread TEXT,
    reply_to TEXT,
    edited INTEGER NOT NULL DEFAULT 0,
    raw TEXT NOT NULL,
    import_seq INTEGER,
    -- Identity, and the chat's time order in one index: keyed by time first, a chat's messages arrive as
    -- near-appends rather than random inserts (measured 6 us a row against 12 with a hash-first key). The
    -- same uid at another time (a file read in another zone) is found by known_uids.
    UNIQUE (chat_seq, ts, uid)
);
CREATE TABLE IF NOT EXISTS sessions (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    chat_seq INTEGER NOT NULL,
    thread TEXT,
    start_ts INTEGER NOT NULL,
    end_ts INTEGER NOT NULL,
    n_turns INTEGER NOT NULL,
    n_messages INTEGER NOT NULL,
    signature TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_chat ON sessions (chat_seq, start_ts);
-- A turn's id is "<session id>-<ordinal>": derived, not stored, so it needs no index of its own.
CREATE TABLE IF NOT EXISTS turns (
    session_seq INTEGER NOT NULL,
    ordinal INTEGER NOT NULL,
    chat_seq INTEGER NOT NULL,
    start_ts INTEGER NOT NULL,
    end_ts INTEGER NOT NULL,
    speaker TEXT NOT NULL,
    text TEXT NOT NULL,
    message_seqs TEXT NOT NULL,
    PRIMARY KEY (session_seq, ordinal)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS imports (
    seq INTEGER PRIMARY KEY,
    path TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    format TEXT NOT NULL,
    started TEXT NOT NULL,
    finished TEXT,
    counts TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS forgotten (chat_uid TEXT NOT NULL, uid TEXT NOT NULL, PRIMARY KEY (chat_uid, uid))
    WITHOUT ROWID;
-- Sessions whose index documents are stale (new, changed or deleted), written in the same transaction as
-- the change itself, so the index can always catch up after a crash.
CREATE TABLE IF NOT EXISTS index_queue (session_seq INTEGER PRIMARY KEY);
"""


def _m001_initial(db: apsw.Connection) -> None:
    db.execute(INITIAL_SCHEMA)


def _m002_import_settings(db: apsw.Connection) -> None:
    # What else decides what an import of this content writes (refind's version, the zone, the segmenting):
    # the same content with the same settings need not be read again. Earlier imports never count as
    # unchanged. (The release before named migrations may have added the column already.)
    if "settings" not in {row[1] for row in db.execute("PRAGMA table_info(imports)")}:
        db.execute("ALTER TABLE imports ADD COLUMN settings TEXT NOT NULL DEFAULT ''")


def _m003_drop_schema_version(db: apsw.Connection) -> None:
    # The release before named migrations wrote a schema version it never read; the migrations table says it.
    db.execute("DROP TABLE IF EXISTS meta")


def _m004_wall_clock_identity(db: apsw.Connection) -> None:
    """Identities of messages without a source id hashed their instant, which depends on the zone the file
    was read in; they hash the written time now (refind_cli.storage.identity). Sessions are named after their first
    message, so their ids follow."""
    from refind_cli.method import segment
    from refind_cli.storage.identity import Identity

    chats = _rows(
        db.execute(
            "SELECT DISTINCT m.chat_seq, c.uid FROM messages m JOIN chats c ON c.seq = m.chat_seq"
            " WHERE m.source_id IS NULL AND m.local_time IS NOT NULL"
        ),
        tuple[int, str],
    )
    for chat_seq, chat_uid in chats:
        identity = Identity()
        rows = _rows(
            db.execute(
                "SELECT seq, uid, local_time, ts, sender, text FROM messages"
                " WHERE chat_seq = ? AND source_id IS NULL ORDER BY seq",
                (chat_seq,),
            ),
            tuple[int, str, str | None, int, str | None, str],
        )
        renamed = {}
        for seq, old, local_time, ts, sender, text in rows:
            new = identity.uid(None, local_time, ts, sender, text)
            if new != old:
                renamed[seq] = new
        db.executemany("UPDATE messages SET uid = ? WHERE seq = ?", [(u, s) for s, u in renamed.items()])
        firsts = _rows(
            db.execute(
                "SELECT s.seq, t.message_seqs FROM sessions s JOIN turns t ON t.session_seq = s.seq"
                " WHERE s.chat_seq = ? AND t.ordinal = 1",
                (chat_seq,),
            ),
            tuple[int, str],
        )
        db.executemany(
            "UPDATE sessions SET id = ? WHERE seq = ?",
            [
                (segment.session_id(chat_uid, renamed[first]), session_seq)
                for session_seq, seqs in firsts
                if (first := int(seqs.split(",")[0])) in renamed
            ],
        )


def _m005_forgotten_chats_hashed(db: apsw.Connection) -> None:
    """Forgotten entries were keyed by the chat's uid, which holds its name, and the ledger kept the name and
    the export's path of a chat forgotten whole: keep hashes of them instead."""
    db.execute("ALTER TABLE forgotten RENAME COLUMN chat_uid TO chat_key")
    keys = [r[0] for r in db.execute("SELECT DISTINCT chat_key FROM forgotten")]
    db.executemany("UPDATE forgotten SET chat_key = ? WHERE chat_key = ?", [(_chat_key(k), k) for k in keys])
    present = {r[0] for r in db.execute("SELECT uid FROM chats")}
    _hide_chats_in_ledger(db, lambda chat_uid: chat_uid not in present)


def _m006_chat_repairs(db: apsw.Connection) -> None:
    """`refind chats rename` and `merge`: a name the user gave is kept through re-imports (``renamed``), and
    a chat merged into another is found there when its export is imported again (``chat_aliases``, keyed by
    the hash of the merged chat's uid, as ``forgotten`` is)."""
    db.execute("ALTER TABLE chats ADD COLUMN renamed INTEGER NOT NULL DEFAULT 0")
    db.execute(
        "CREATE TABLE chat_aliases (chat_key TEXT PRIMARY KEY, chat_seq INTEGER NOT NULL) WITHOUT ROWID"
    )


def _m007_chat_language(db: apsw.Connection) -> None:
    """The language of each chat (ISO 639-1, or "und"), told from its text at import (refind_cli.text.language)
    or given with `refind import --lang` (``lang_given``: kept through re-imports). ``lang_basis``: the
    chat's message count when it was decided, so a re-import decides again only once the chat has doubled.
    Chats imported before are decided at their next import ('' until then)."""
    db.execute("ALTER TABLE chats ADD COLUMN lang TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE chats ADD COLUMN lang_basis INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE chats ADD COLUMN lang_given INTEGER NOT NULL DEFAULT 0")


# `refind stats` counts messages by chat, quarter hour (UTC), sender and kind from this table instead of two
# grouped passes over the messages themselves. Triggers keep it exact through every insert, change and
# delete of a message, whichever code path makes it (import, forget, merge). A quarter hour, because every
# zone's offset and change of offset today falls on one; a zone or range that does not is counted from the
# messages. ``sender`` is '' with ``named`` 0 where the message has none. Left out: assistants' hidden
# records, as stats leaves them out, and times before 1970 (stats of those reads the messages).
_QUARTER_US = 900_000_000
_COUNT_KEY = "(chat_seq, quarter, sender, named, kind)"


def _counted_values(row: str) -> str:
    return f"{row}.chat_seq, {row}.ts / {_QUARTER_US}, coalesce({row}.sender, ''), {row}.sender NOT NULL, {row}.kind"


def _count_in(row: str) -> str:
    # An upsert: measured on SQLite 3.54, the INSERT OR IGNORE that fires it does not override its DO UPDATE
    # (tests/test_stats.py holds the counts to a recount after imports, forgetting and merging).
    return (
        f"INSERT INTO message_counts SELECT {_counted_values(row)}, 1"
        f" WHERE {row}.kind != '{Kind.HIDDEN}' AND {row}.ts >= 0 ON CONFLICT DO UPDATE SET n = n + 1;"
    )


def _count_out(row: str) -> str:
    # A count that falls to 0 goes: forgetting a chat leaves no trace of its senders' names.
    key = f"{_COUNT_KEY} = ({_counted_values(row)})"
    return (
        f"UPDATE message_counts SET n = n - 1 WHERE {key}; DELETE FROM message_counts WHERE n = 0 AND {key};"
    )


def _m008_message_counts(db: apsw.Connection) -> None:
    """Counts of messages for `refind stats` (see ``_QUARTER_US``), built from the messages held and kept
    up to date by triggers from now on."""
    db.execute(
        "CREATE TABLE message_counts (chat_seq INT, quarter INT, sender TEXT, named INT, kind TEXT, n INT,"
        f" PRIMARY KEY {_COUNT_KEY}) WITHOUT ROWID"
    )
    db.execute(
        f"INSERT INTO message_counts SELECT chat_seq, ts / {_QUARTER_US}, coalesce(sender, ''), sender NOT NULL,"
        f" kind, count(*) FROM messages WHERE kind != '{Kind.HIDDEN}' AND ts >= 0 GROUP BY 1, 2, 3, 4, 5"
    )
    db.execute(f"CREATE TRIGGER message_counts_in AFTER INSERT ON messages BEGIN {_count_in('new')} END")
    db.execute(f"CREATE TRIGGER message_counts_out AFTER DELETE ON messages BEGIN {_count_out('old')} END")
    db.execute(
        "CREATE TRIGGER message_counts_change AFTER UPDATE OF chat_seq, ts, sender, kind ON messages"
        f" BEGIN {_count_out('old')} {_count_in('new')} END"
    )


def _m009_own_messages(db: apsw.Connection) -> None:
    """Which messages the person whose export it is wrote, where the export says so (``Message.own``): what
    ``--from me`` finds. Messages imported before stay unmarked: a re-import adds only what is new (forget
    the chat and import it again to mark them)."""
    db.execute("ALTER TABLE messages ADD COLUMN own INTEGER NOT NULL DEFAULT 0")


def _m010_resume_points(db: apsw.Connection) -> None:
    """Where the reading of an imported file stopped (``ingest.resume``: its reader's mark, the identities'
    state there, the messages read), so a later import of the file grown reads only what follows. Imports
    before have none: their files' next import reads them whole, and leaves one."""
    db.execute("ALTER TABLE imports ADD COLUMN resume TEXT")


def _hide_chats_in_ledger(db: apsw.Connection, gone: Callable[[str], bool]) -> None:
    """Ledger entries that read a chat that is ``gone``: its uid becomes a hash, and the export's path too;
    where its reading stopped is dropped (the file's next import reads it whole)."""
    rows = _rows(db.execute("SELECT seq, path, counts FROM imports"), tuple[int, str, str])
    resumes = "resume" in {row[1] for row in db.execute("PRAGMA table_info(imports)")}  # m010 on
    for seq, path, counts in rows:
        data = json.loads(counts)
        seen = data.get("seen")
        if not isinstance(seen, dict) or not any(gone(uid) for uid in seen):
            continue
        data["seen"] = {(_chat_key(uid) if gone(uid) else uid): n for uid, n in seen.items()}
        hidden = path if path.startswith("p:") else _path_key(path)
        db.execute("UPDATE imports SET path = ?, counts = ? WHERE seq = ?", (hidden, json.dumps(data), seq))
        if resumes:
            db.execute("UPDATE imports SET resume = NULL WHERE seq = ?", (seq,))


MIGRATIONS: tuple[tuple[str, Callable[[apsw.Connection], None]], ...] = (
    ("m001_initial", _m001_initial),
    ("m002_import_settings", _m002_import_settings),
    ("m003_drop_schema_version", _m003_drop_schema_version),
    ("m004_wall_clock_identity", _m004_wall_clock_identity),
    ("m005_forgotten_chats_hashed", _m005_forgotten_chats_hashed),
    ("m006_chat_repairs", _m006_chat_repairs),
    ("m007_chat_language", _m007_chat_language),
    ("m008_message_counts", _m008_message_counts),
    ("m009_own_messages", _m009_own_messages),
    ("m010_resume_points", _m010_resume_points),
)


def applied_migrations(db: apsw.Connection) -> list[str]:
    """Names of the migrations an archive has had, in the order applied."""
    if (
        db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'migrations'").fetchone()
        is None
    ):
        return []
    return [r[0] for r in db.execute("SELECT name FROM migrations ORDER BY rowid")]


def _migrate(db: apsw.Connection) -> None:
    """Apply the migrations an archive has not had, each in its own transaction with its record. An archive
    that has them all is not written to (so opening it does not wait for a writer)."""
    if len(applied_migrations(db)) == len(MIGRATIONS):
        return
    for name, step in MIGRATIONS:
        with _immediate(db):
            # Checked again under the write lock: another process may have applied it meanwhile.
            db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)")
            if db.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone() is None:
                step(db)
                db.execute(
                    "INSERT INTO migrations (name, applied) VALUES (?, ?)",
                    (name, datetime.now(UTC).isoformat(timespec="seconds")),
                )


@contextlib.contextmanager
def _immediate(db: apsw.Connection) -> Iterator[None]:
    """One transaction, or a part of the one already open. IMMEDIATE takes the write lock at once, so a
    second writer waits (busy timeout) instead of failing late."""
    if db.in_transaction:
        yield
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        # mypy keeps in_transaction narrowed to False from the check above, though BEGIN set it.
        if db.in_transaction:
            db.execute("ROLLBACK")  # type: ignore[unreachable]
        raise
    db.execute("COMMIT")


def _chat_key(chat_uid: str) -> str:
    # Imported where an id is computed: identity loads hashlib (OpenSSL, ~2 ms), which a search never needs.
    from refind_cli.storage.identity import chat_key

    return chat_key(chat_uid)


def _path_key(path: str) -> str:
    from refind_cli.storage.identity import path_key

    return path_key(path)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# More than any two zones' offsets differ (UTC-12 to UTC+14), in microseconds: how far apart the same
# wall-clock time read in two zones can be.
CROSS_ZONE = 27 * 3600 * 1_000_000
_BEFORE_ALL = -(1 << 62)  # microseconds earlier than any stored time
_MICROSECOND = timedelta(microseconds=1)


def to_us(dt: datetime) -> int:
    """Microseconds since the epoch of an aware datetime."""
    return (dt - EPOCH) // _MICROSECOND


def from_us(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


def _ensure_home(home: Path) -> None:
    try:
        ensure_home(home)
    except OSError as exc:
        raise RefindError(f"{home}: cannot use this as the home folder ({exc.strerror or exc})") from None


def _tune(db: apsw.Connection) -> None:
    db.setbusytimeout(60_000)
    # 16 MB: an import appends to its tables, so a bigger cache only held more of the import's memory
    # (64 MB: main process 141 MB at the peak, 16 MB: 87 MB, the same CPU time; bench/RESULTS.md).
    db.execute("PRAGMA cache_size=-16384")
    db.execute("PRAGMA temp_store=MEMORY")


def _connect(path: Path) -> apsw.Connection:
    # apsw rather than the standard library's sqlite3: it binds parameters in about half the time (writing a
    # million messages' rows: 9.8 s against 11-15, bench/RESULTS.md). Like sqlite3 with
    # isolation_level=None, it opens no transaction by itself.
    db = apsw.Connection(str(path))
    _tune(db)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    # Forgotten text must not linger in free pages.
    db.execute("PRAGMA secure_delete=ON")
    _migrate(db)
    return db


_READONLY = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI


def _empty() -> apsw.Connection:
    db = apsw.Connection(":memory:")
    _migrate(db)
    return db


def _connect_readonly(path: Path) -> apsw.Connection:
    """The archive for reading only. Where there is none yet, an empty one in memory (nothing is created);
    so too where the file holds no tables yet (its first import was stopped before it committed)."""
    if not path.exists():
        return _empty()
    uri = f"file:{quote(str(path))}?mode=ro"
    db = apsw.Connection(uri, flags=_READONLY)
    try:
        _tune(db)
        return _schema_or_empty(db)
    except (apsw.ReadOnlyError, apsw.CantOpenError):
        # A WAL archive in a folder this user cannot write: SQLite cannot create the shared-memory file
        # readers coordinate through. Nobody can be writing there either (a writer needs that file), so
        # the file is read as it stands, unless a write-ahead log holds commits not yet in it.
        db.close()
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size:
        raise RefindError(
            f"{path}: cannot read the archive here: its write-ahead log needs a folder this user can write"
        )
    db = apsw.Connection(uri + "&immutable=1", flags=_READONLY)
    _tune(db)
    return _schema_or_empty(db)


def _schema_or_empty(db: apsw.Connection) -> apsw.Connection:
    if db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'chats'").fetchone():
        return db
    db.close()
    return _empty()


@contextlib.contextmanager
def storage_errors(path: Path) -> Iterator[None]:
    """SQLite failures that are the file's or the machine's, not refind's: one line naming the file. A write
    that fails this way was inside a transaction, which rolled back: nothing of it is in the archive."""
    try:
        yield
    except (apsw.CorruptError, apsw.NotADBError) as exc:
        raise RefindError(f"{path}: the archive is damaged ({exc}); `refind doctor` says where") from None
    except apsw.FullError:
        raise RefindError(f"{path}: the disk is full; what was being written was not kept") from None
    except (apsw.IOError, apsw.ReadOnlyError, apsw.CantOpenError, apsw.PermissionsError) as exc:
        # SQLite says "disk I/O error" when even a read finds no room (a reader's shared-memory file).
        if isinstance(exc, apsw.IOError) and _disk_full(path):
            raise RefindError(
                f"{path}: the disk is full; even reading the archive needs a little room"
            ) from None
        raise RefindError(f"{path}: cannot read or write the archive ({exc})") from None


def _disk_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path.parent).free == 0
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class StoredSession:
    """A session as written: ``turns`` are (ordinal, start, end, speaker, text, message_seqs)."""

    seq: int
    id: str
    chat_seq: int
    thread: str | None
    start: int
    end: int
    n_messages: int
    signature: str
    turns: list[tuple[int, int, int, str, str, str]]


# Older SQLite builds cap a statement at 999 variables.
_MAX_VARIABLES = 900


def _in_chunks(values: Sequence) -> Iterator[tuple[list, str]]:
    """Slices of ``values`` small enough for one statement, each with its ``?,?,...`` placeholders."""
    for i in range(0, len(values), _MAX_VARIABLES):
        part = list(values[i : i + _MAX_VARIABLES])
        yield part, ",".join("?" * len(part))


_TURN_COLUMNS = "s.id || '-' || t.ordinal, s.id, t.session_seq, t.chat_seq, t.ordinal, t.start_ts, t.end_ts, t.speaker, t.text"


def _turn(row: Sequence) -> Turn:
    return Turn(
        id=row[0],
        session_id=row[1],
        session_seq=row[2],
        chat_seq=row[3],
        ordinal=row[4],
        start=from_us(row[5]),
        end=from_us(row[6]),
        speaker=row[7],
        text=row[8],
    )


def _step_case(column: str, steps: Sequence[tuple[int, int]]) -> str:
    """SQL for the value of the last step at or before ``column``'s value, the first applying before its
    start too (integers only). A balanced tree of CASEs: a row costs log2(steps) comparisons, forty steps in
    6, not 20 on average."""
    if len(steps) == 1:
        return str(steps[0][1])
    mid = len(steps) // 2
    return f"CASE WHEN {column} < {steps[mid][0]} THEN {_step_case(column, steps[:mid])} ELSE {_step_case(column, steps[mid:])} END"


class Archive:
    """One open archive. Writes go through ``transaction()``; reads see the last commit (WAL mode).

    Opened ``readonly``, it writes nothing and takes no lock, so a reader never waits for a writer and a
    home on read-only media can be read; an archive the migrations have not reached yet is read as it is.
    The first write (a transaction; the CLI writes only under the home's write lock) opens it for writing,
    which applies the migrations."""

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self._chats: dict[int, ChatInfo] = {}
        self._lang_column = False
        try:
            self.db = _connect_readonly(path) if readonly else _connect(path)
        except apsw.Error as exc:
            # Not an SQLite file, or one this user cannot open or write: the user's to fix, not a crash.
            raise RefindError(f"{path}: cannot open the archive ({exc})") from None

    @classmethod
    def open(cls, home: Path, *, readonly: bool = False) -> Self:
        if not readonly:
            _ensure_home(home)
        else:
            home_to_read(home)  # a reader creates nothing: a home that does not exist yet reads as empty
        return cls(home / "archive.db", readonly=readonly)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _writable(self) -> None:
        """Reopen a read-only archive for writing (migrating it first)."""
        if not self.readonly:
            return
        _ensure_home(self.path.parent)
        try:
            db = _connect(self.path)
        except apsw.Error as exc:
            raise RefindError(f"{self.path}: cannot open the archive for writing ({exc})") from None
        self.db.close()
        self.db = db
        self.readonly = False
        self._chats.clear()

    # -- transactions ---------------------------------------------------------------------------------

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside the block see one commit, the latest when it begins, whatever other processes commit
        meanwhile: for a reader that lives on (the MCP server). An archive that was not there when this one
        was opened read-only (an empty one in memory stood in) is opened now."""
        if self.readonly and not self.db.filename and self.path.exists():
            try:
                db = _connect_readonly(self.path)
            except apsw.Error as exc:
                raise RefindError(f"{self.path}: cannot open the archive ({exc})") from None
            self.db.close()
            self.db = db
        self._chats.clear()  # a re-import may have renamed a chat
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
        try:
            with _immediate(self.db):
                yield
        except BaseException:
            # Chats cached in a rolled-back transaction may not exist.
            self._chats.clear()
            raise

    # -- chats ------------------------------------------------------------------------------------------

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
        ``former_key`` (an earlier release's key for it) is adopted, uid and all; a new chat inherits what
        was forgotten under it."""
        uid = f"{source}:{key}"
        former = None if former_key is None else f"{source}:{former_key}"
        row = self.chat_by_uid(uid)
        if row is None and former is not None:
            row = self.chat_by_uid(former)
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
                (_chat_key(uid), _chat_key(former)),
            )
        return seq, ""

    def _merged_into(self, uid: str) -> tuple[int, str] | None:
        """(seq, segmenting) of the chat the chat with this uid was merged into, if it was and that one is
        still there."""
        return _row(
            self.db.execute(
                "SELECT c.seq, c.segmenting FROM chat_aliases a JOIN chats c ON c.seq = a.chat_seq"
                " WHERE a.chat_key = ?",
                (_chat_key(uid),),
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
            self.db.execute("UPDATE OR IGNORE messages SET chat_seq = ? WHERE chat_seq = ?", (into, other))
            self.db.execute("DELETE FROM messages WHERE chat_seq = ?", (other,))
            self.delete_sessions(
                [r[0] for r in self.db.execute("SELECT seq FROM sessions WHERE chat_seq = ?", (other,))]
            )
            self.db.execute(
                "INSERT OR IGNORE INTO forgotten (chat_key, uid) SELECT ?, uid FROM forgotten WHERE chat_key = ?",
                (_chat_key(into_uid), _chat_key(other_uid)),
            )
            # Chats merged into ``other`` before now stand for ``into`` too.
            self.db.execute("UPDATE chat_aliases SET chat_seq = ? WHERE chat_seq = ?", (into, other))
            self.db.execute(
                "INSERT OR REPLACE INTO chat_aliases (chat_key, chat_seq) VALUES (?, ?)",
                (_chat_key(other_uid), into),
            )
            self.db.execute("DELETE FROM chats WHERE seq = ?", (other,))
            self._chats.pop(other, None)

    def chat_by_uid(self, uid: str) -> tuple[int, str] | None:
        """(seq, segmenting) of the chat with this uid, if there is one."""
        return _row(
            self.db.execute("SELECT seq, segmenting FROM chats WHERE uid = ?", (uid,)), tuple[int, str]
        )

    def session_counts(self, chat_seq: int) -> tuple[int, int]:
        """(sessions, turns) of a chat."""
        return _first(
            self.db.execute(
                "SELECT count(*), coalesce(sum(n_turns), 0) FROM sessions WHERE chat_seq = ?", (chat_seq,)
            ),
            tuple[int, int],
        )

    def chat_segmenting(self, chat_seq: int) -> tuple[str, str]:
        """(chat uid, segmenting) of a chat."""
        return _first(
            self.db.execute("SELECT uid, segmenting FROM chats WHERE seq = ?", (chat_seq,)), tuple[str, str]
        )

    def forgotten_uids(self, chat_uid: str) -> frozenset[str]:
        return frozenset(
            r[0]
            for r in self.db.execute("SELECT uid FROM forgotten WHERE chat_key = ?", (_chat_key(chat_uid),))
        )

    def restore_forgotten(self, chat_uid: str) -> None:
        self.db.execute("DELETE FROM forgotten WHERE chat_key = ?", (_chat_key(chat_uid),))

    def delete_chat_if_empty(self, chat_seq: int) -> None:
        if not self.has_messages(chat_seq):
            self.db.execute("DELETE FROM chats WHERE seq = ?", (chat_seq,))
            self._chats.pop(chat_seq, None)

    def chat_uid(self, chat_seq: int) -> str:
        return _first(self.db.execute("SELECT uid FROM chats WHERE seq = ?", (chat_seq,)), tuple[str])[0]

    def chat(self, seq: int) -> ChatInfo:
        info = self._chats.get(seq)
        if info is None:
            lang = "lang" if self._has_lang() else "''"
            row = _row(
                self.db.execute(
                    f"SELECT seq, source, key, name, kind, {lang} FROM chats WHERE seq = ?", (seq,)
                ),
                tuple[int, str, str, str, str, str],
            )
            if row is None:
                raise KeyError(seq)
            info = self._chats[seq] = ChatInfo(*row)
        return info

    def chats(self, sources: Sequence[str] | None = None) -> list[ChatSummary]:
        """Every chat (of these sources, if given) with its counts and time span, in import order."""
        where = f"WHERE c.source IN ({','.join('?' * len(sources))})" if sources is not None else ""
        has_lang = self._has_lang()
        rows = _rows(
            self.db.execute(
                f"""
            SELECT c.seq, c.source, c.key, c.name, c.kind,
                   (SELECT count(*) FROM messages m WHERE m.chat_seq = c.seq),
                   (SELECT count(*) FROM sessions s WHERE s.chat_seq = c.seq),
                   (SELECT coalesce(sum(n_turns), 0) FROM sessions s WHERE s.chat_seq = c.seq),
                   (SELECT min(ts) FROM messages m WHERE m.chat_seq = c.seq),
                   (SELECT max(ts) FROM messages m WHERE m.chat_seq = c.seq),
                   {"c.lang" if has_lang else "''"}
            FROM chats c {where} ORDER BY c.seq
            """,
                tuple(sources or ()),
            ),
            tuple[int, str, str, str, str, int, int, int, int | None, int | None, str],
        )
        return [
            ChatSummary(
                info=ChatInfo(*r[:5], lang=r[10]),
                messages=r[5],
                sessions=r[6],
                turns=r[7],
                first=from_us(r[8]) if r[8] is not None else None,
                last=from_us(r[9]) if r[9] is not None else None,
                lang=r[10],
            )
            for r in rows
        ]

    def _has_lang(self) -> bool:
        """Whether chats have a language column: an archive opened read-only before m007 has none yet (a
        writer may add it meanwhile). Once there it stays, so a search asks SQLite only until it is."""
        if not self._lang_column:
            self._lang_column = "lang" in {r[1] for r in self.db.execute("PRAGMA table_info(chats)")}
        return self._lang_column

    def chat_languages(self) -> dict[int, str]:
        """Each chat's language (seq -> ISO 639-1, "und" or ""), which decides how its turns are analysed."""
        if not self._has_lang():
            return {}
        return dict(_rows(self.db.execute("SELECT seq, lang FROM chats"), tuple[int, str]))

    def queue_chat(self, chat_seq: int) -> None:
        """Mark every session of the chat for re-indexing (its analysis changed)."""
        self.db.execute(
            "INSERT OR IGNORE INTO index_queue (session_seq) SELECT seq FROM sessions WHERE chat_seq = ?",
            (chat_seq,),
        )

    def chat_language(self, chat_seq: int) -> tuple[str, int, bool] | None:
        """The chat's language, its message count when that was decided, and whether the user gave it
        (None: no such chat, e.g. one deleted as empty)."""
        row = _row(
            self.db.execute("SELECT lang, lang_basis, lang_given FROM chats WHERE seq = ?", (chat_seq,)),
            tuple[str, int, int],
        )
        return None if row is None else (row[0], row[1], bool(row[2]))

    def set_chat_language(self, chat_seq: int, lang: str, basis: int, given: bool) -> None:
        self.db.execute(
            "UPDATE chats SET lang = ?, lang_basis = ?, lang_given = ? WHERE seq = ?",
            (lang, basis, int(given), chat_seq),
        )

    def latest_texts(self, chat_seq: int) -> Iterator[str]:
        """The chat's text messages (no system, media or hidden records), latest first."""
        for row in self.db.execute(
            "SELECT text FROM messages WHERE chat_seq = ? AND kind = ? ORDER BY ts DESC",
            (chat_seq, Kind.TEXT),
        ):
            yield row[0]

    def chats_of_sources(self, sources: Sequence[str]) -> list[int]:
        marks = ",".join("?" * len(sources))
        return [
            r[0] for r in self.db.execute(f"SELECT seq FROM chats WHERE source IN ({marks})", tuple(sources))
        ]

    def match_chats(self, text: str) -> list[int]:
        """Chats for ``--chat``: an exact seq, key or name first; otherwise names containing the text."""
        needle = text.strip().lower()
        rows = _rows(self.db.execute("SELECT seq, key, name FROM chats"), tuple[int, str, str])
        exact = [seq for seq, key, name in rows if needle in (str(seq), key.lower(), name.lower())]
        return exact or [seq for seq, _key, name in rows if needle in name.lower()]

    def speakers(self) -> list[tuple[str, str | None, bool]]:
        """Every (name, sender id, whether any of its messages is the exporting person's own) the messages
        are from, as turns name their speakers: what ``--from`` matches. A scan of the messages, paid only by
        a search that asks for speakers. (An archive read before m008 knows no message as anyone's own.)"""
        columns = {r[1] for r in self.db.execute("PRAGMA table_info(messages)")}
        own = "max(own)" if "own" in columns else "0"
        return [
            (name, sid, bool(mine))
            for name, sid, mine in _rows(
                self.db.execute(f"SELECT coalesce(sender, ''), sender_id, {own} FROM messages GROUP BY 1, 2"),
                tuple[str, str | None, int],
            )
        ]

    # -- messages ---------------------------------------------------------------------------------------

    def next_message_seq(self) -> int:
        return _first(self.db.execute("SELECT coalesce(max(seq), 0) + 1 FROM messages"), tuple[int])[0]

    def has_messages(self, chat_seq: int) -> bool:
        return (
            self.db.execute("SELECT 1 FROM messages WHERE chat_seq = ? LIMIT 1", (chat_seq,)).fetchone()
            is not None
        )

    def insert_messages(self, rows: list[tuple]) -> int:
        """Rows as (seq, chat_seq, uid, ts, local_time, sender, sender_id, text, kind, source_id, thread,
        reply_to, edited, raw, import_seq, own); seq may be None. Returns how many were new; known uids are
        left alone."""
        # Counted by what the insert returns: the changes SQLite counts include the triggers' (message_counts).
        return sum(
            1
            for _ in self.db.executemany(
                "INSERT OR IGNORE INTO messages (seq, chat_seq, uid, ts, local_time, sender, sender_id, text, kind,"
                " source_id, thread, reply_to, edited, raw, import_seq, own)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING 1",
                rows,
            )
        )

    def stored_texts(self, chat_seq: int, keys: list[tuple[int, str]]) -> list[str | None]:
        """The stored text of each (ts, uid) of a chat, None where there is none."""
        found = dict(
            self.db.executemany(
                "SELECT ?, text FROM messages WHERE chat_seq = ? AND ts = ? AND uid = ?",
                [(i, chat_seq, ts, uid) for i, (ts, uid) in enumerate(keys)],
            )
        )
        return [found.get(i) for i in range(len(keys))]

    def segment_rows(
        self, chat_seq: int, threaded: bool, start: int | None = None
    ) -> Iterator[tuple[int, str, int, str, str | None, str]]:
        """(seq, uid, ts, sender, thread, text) of a chat's messages that sessions hold (hidden ones are
        not): unthreaded ones in time order (from ``start`` on, if given), or threaded ones grouped by thread
        and in time order within each."""
        columns = (
            "SELECT seq, uid, ts, coalesce(sender, ''), thread, text FROM messages"
            f" WHERE kind != '{Kind.HIDDEN}'"
        )
        if threaded:
            sql = f"{columns} AND chat_seq = ? AND thread IS NOT NULL ORDER BY thread, ts, seq"
            return self.db.execute(sql, (chat_seq,))
        sql = f"{columns} AND chat_seq = ? AND thread IS NULL AND ts >= ? ORDER BY ts, seq"
        return self.db.execute(sql, (chat_seq, _BEFORE_ALL if start is None else start))

    # -- sessions and turns -----------------------------------------------------------------------------

    def session_signatures(self, chat_seq: int, start: int | None = None) -> dict[str, tuple[int, str]]:
        """id -> (seq, signature) of a chat's sessions; with ``start``, its threads and the unthreaded
        sessions that begin at ``start`` or later."""
        rows = self.db.execute(
            "SELECT id, seq, signature FROM sessions WHERE chat_seq = ? AND (thread IS NOT NULL OR start_ts >= ?)",
            (chat_seq, _BEFORE_ALL if start is None else start),
        )
        return {sid: (seq, sig) for sid, seq, sig in rows}

    def replan_start(self, chat_seq: int, first_new_seq: int) -> int | None:
        """Where re-planning a chat's unthreaded sessions must begin once messages were added to it (those
        with seqs from ``first_new_seq`` on): the start of the last session that begins no later than the
        earliest of them and that no earlier session reaches (a session cut at the cap inside a run of equal
        timestamps shares its start time with the one before). Sessions before it end more than a session gap
        before it, so nothing added after can change them. None: from the chat's beginning."""
        rows = self.db.execute(
            "SELECT start_ts, end_ts FROM sessions WHERE chat_seq = ? AND thread IS NULL AND start_ts <="
            " (SELECT min(ts) FROM messages WHERE chat_seq = ? AND seq >= ?) ORDER BY start_ts DESC, seq DESC",
            (chat_seq, chat_seq, first_new_seq),
        )
        start: int | None = None
        for begins, ends in rows:
            if start is not None and ends < start:
                break
            start = begins
        return start

    def next_session_seq(self) -> int:
        return _first(self.db.execute("SELECT coalesce(max(seq), 0) + 1 FROM sessions"), tuple[int])[0]

    def store_sessions(self, sessions: list[StoredSession], replace: bool) -> None:
        """Write sessions (with their seqs decided by the caller) and their turns, and queue them for the
        index. With ``replace``, older versions of the same seqs are replaced."""
        if replace:
            for s in sessions:
                self.db.execute("DELETE FROM turns WHERE session_seq = ?", (s.seq,))
        # Plain INSERT for new sessions: OR REPLACE looks for conflicts first (measured 8.2 us a row against 6.2).
        self.db.executemany(
            f"INSERT{' OR REPLACE' if replace else ''} INTO sessions (seq, id, chat_seq, thread, start_ts,"
            " end_ts, n_turns, n_messages, signature) VALUES (?,?,?,?,?,?,?,?,?)",
            [
                (s.seq, s.id, s.chat_seq, s.thread, s.start, s.end, len(s.turns), s.n_messages, s.signature)
                for s in sessions
            ],
        )
        self.db.executemany(
            "INSERT INTO turns (session_seq, ordinal, chat_seq, start_ts, end_ts, speaker, text, message_seqs)"
            " VALUES (?,?,?,?,?,?,?,?)",
            [(s.seq, t[0], s.chat_seq, *t[1:]) for s in sessions for t in s.turns],
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO index_queue (session_seq) VALUES (?)", [(s.seq,) for s in sessions]
        )

    def delete_sessions(self, seqs: Iterable[int]) -> None:
        for seq in seqs:
            self.db.execute("DELETE FROM turns WHERE session_seq = ?", (seq,))
            self.db.execute("DELETE FROM sessions WHERE seq = ?", (seq,))
            self.db.execute("INSERT OR IGNORE INTO index_queue (session_seq) VALUES (?)", (seq,))

    def session_message_seqs(self, session_seq: int) -> list[int]:
        rows = self.db.execute("SELECT message_seqs FROM turns WHERE session_seq = ?", (session_seq,))
        return [int(x) for (seqs,) in rows for x in seqs.split(",")]

    def sessions_of_messages(self, chat_seqs: Iterable[int], message_seqs: set[int]) -> set[int]:
        """Sessions (seqs) of the given chats that contain any of the given messages."""
        found: set[int] = set()
        for chat_seq in chat_seqs:
            for session_seq, seqs in self.db.execute(
                "SELECT session_seq, message_seqs FROM turns WHERE chat_seq = ?", (chat_seq,)
            ):
                if session_seq not in found and not message_seqs.isdisjoint(int(x) for x in seqs.split(",")):
                    found.add(session_seq)
        return found

    def select_messages(
        self,
        *,
        chat_seq: int | None = None,
        message_seqs: Sequence[int] | None = None,
        since: int | None = None,
        until: int | None = None,
        before: int | None = None,
        matching: str | None = None,
    ) -> list[tuple[int, int, int]]:
        """(seq, chat_seq, ts) of the messages that meet every criterion given, in time order: of a chat,
        among ``message_seqs``, at or after ``since``, at or before ``until``, before ``before`` (times in
        microseconds), whose text contains ``matching`` (case-insensitive)."""
        where: list[str] = []
        args: list[object] = []
        if chat_seq is not None:
            where.append("chat_seq = ?")
            args.append(chat_seq)
        if message_seqs is not None:
            where.append(f"seq IN ({','.join('?' * len(message_seqs))})")
            args.extend(message_seqs)
        for column, op, value in (("ts", ">=", since), ("ts", "<=", until), ("ts", "<", before)):
            if value is not None:
                where.append(f"{column} {op} ?")
                args.append(value)
        if matching is not None:
            # apsw types a scalar function as taking any SQLite values; this one is only called with a text
            # column and a bound str.
            self.db.create_scalar_function("refind_contains", _contains, 2, deterministic=True)  # type: ignore[arg-type]
            where.append("refind_contains(text, ?)")
            args.append(matching.casefold())
        return _rows(
            self.db.execute(
                f"SELECT seq, chat_seq, ts FROM messages WHERE {' AND '.join(where) or '1'} ORDER BY ts", args
            ),
            tuple[int, int, int],
        )

    def message_count(self, chat_seq: int) -> int:
        return _first(
            self.db.execute("SELECT count(*) FROM messages WHERE chat_seq = ?", (chat_seq,)), tuple[int]
        )[0]

    def known_uids(self, chat_seq: int, lo: int, hi: int, among: Sequence[str] | None = None) -> set[str]:
        """Uids of a chat's messages stored with times from ``lo`` to ``hi`` (only those ``among`` the given
        uids, if given)."""
        sql = "SELECT uid FROM messages WHERE chat_seq = ? AND ts BETWEEN ? AND ?"
        if among is None:
            return {r[0] for r in self.db.execute(sql, (chat_seq, lo, hi))}
        found: set[str] = set()
        for part, marks in _in_chunks(among):
            found.update(
                r[0] for r in self.db.execute(f"{sql} AND uid IN ({marks})", (chat_seq, lo, hi, *part))
            )
        return found

    def forget_messages(self, seqs: Sequence[int]) -> None:
        """Delete messages, remembering only their identities (under a hash of their chat's uid) so a
        re-import skips them."""
        for part, marks in _in_chunks(seqs):
            rows = _rows(
                self.db.execute(
                    f"SELECT c.uid, m.uid FROM messages m JOIN chats c ON c.seq = m.chat_seq WHERE m.seq IN ({marks})",
                    part,
                ),
                tuple[str, str],
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO forgotten (chat_key, uid) VALUES (?, ?)",
                [(_chat_key(chat_uid), uid) for chat_uid, uid in rows],
            )
            self.db.execute(f"DELETE FROM messages WHERE seq IN ({marks})", part)

    def hide_forgotten_chats(self, chat_uids: Iterable[str]) -> None:
        """After chats were forgotten whole: the import ledger keeps only hashes of their uids and of the
        paths of the exports that held them."""
        gone = set(chat_uids)
        if gone:
            _hide_chats_in_ledger(self.db, gone.__contains__)

    def compact(self) -> None:
        """Rewrite the database file and empty the write-ahead log, so no free page or old frame keeps
        deleted text."""
        self._writable()
        self.db.execute("VACUUM")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def integrity_problems(self) -> list[str]:
        try:
            rows = [r[0] for r in self.db.execute("PRAGMA integrity_check")]
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            return [str(exc)]  # damaged where even the check cannot read
        return [] if rows == ["ok"] else rows

    def iter_turns(self, session_seqs: Iterable[int] | None = None) -> Iterator[Turn]:
        sql = f"SELECT {_TURN_COLUMNS} FROM turns t JOIN sessions s ON s.seq = t.session_seq"
        return map(_turn, self._of_sessions(sql, "t.session_seq", "t.ordinal", session_seqs))

    def index_rows(
        self, session_seqs: Iterable[int] | None = None
    ) -> Iterator[tuple[int, int, int, int, str, str]]:
        """What the index needs of each turn, as plain tuples (session_seq, ordinal, chat_seq, start in epoch
        seconds, speaker, text): building ``Turn`` records with datetimes cost more than the indexing."""
        sql = "SELECT session_seq, ordinal, chat_seq, start_ts / 1000000, speaker, text FROM turns"
        return self._of_sessions(sql, "session_seq", "ordinal", session_seqs)

    def _of_sessions(
        self, sql: str, session_column: str, ordinal_column: str, session_seqs: Iterable[int] | None
    ) -> Iterator[tuple]:
        """Rows of ``sql`` for all sessions or the given ones, in session and turn order."""
        order = f" ORDER BY {session_column}, {ordinal_column}"
        if session_seqs is None:
            yield from self.db.execute(sql + order)
            return
        for part, marks in _in_chunks(sorted(set(session_seqs))):
            yield from self.db.execute(f"{sql} WHERE {session_column} IN ({marks}){order}", part)

    def window(self, session_seq: int, lo: int, hi: int) -> list[Turn]:
        rows = self.db.execute(
            f"SELECT {_TURN_COLUMNS} FROM turns t JOIN sessions s ON s.seq = t.session_seq"
            " WHERE t.session_seq = ? AND t.ordinal BETWEEN ? AND ? ORDER BY t.ordinal",
            (session_seq, lo, hi),
        )
        return [_turn(r) for r in rows]

    def turns(self, turn_ids: Iterable[str]) -> dict[str, Turn]:
        out: dict[str, Turn] = {}
        for turn_id in dict.fromkeys(turn_ids):
            sid, _, ordinal = turn_id.rpartition("-")
            if not ordinal.isdigit():
                continue
            row = self.db.execute(
                f"SELECT {_TURN_COLUMNS} FROM turns t JOIN sessions s ON s.seq = t.session_seq"
                " WHERE s.id = ? AND t.ordinal = ?",
                (sid, int(ordinal)),
            ).fetchone()
            if row:
                out[turn_id] = _turn(row)
        return out

    def session_seqs(self, session_ids: Iterable[str]) -> dict[str, int]:
        ids = list(dict.fromkeys(session_ids))
        out: dict[str, int] = {}
        for part, marks in _in_chunks(ids):
            out.update(self.db.execute(f"SELECT id, seq FROM sessions WHERE id IN ({marks})", part))
        return out

    def session(self, session_id: str) -> SessionInfo | None:
        row = self.db.execute(
            "SELECT seq, id, chat_seq, start_ts, end_ts, n_turns, n_messages FROM sessions WHERE id = ?",
            (session_id,),
        ).fetchone()
        if row is None:
            return None
        return SessionInfo(
            row[0], row[1], self.chat(row[2]), from_us(row[3]), from_us(row[4]), row[5], row[6]
        )

    def first_session_from(self, chat_seqs: Sequence[int], since: int) -> str | None:
        """The id of the first session of these chats that is still going at ``since`` (microseconds) or
        starts after it: a talk that began the evening before counts for the morning."""
        marks = ",".join("?" * len(chat_seqs))
        row = _row(
            self.db.execute(
                f"SELECT id FROM sessions WHERE chat_seq IN ({marks}) AND end_ts >= ?"
                " ORDER BY start_ts, seq LIMIT 1",
                (*chat_seqs, since),
            ),
            tuple[str],
        )
        return None if row is None else row[0]

    def neighbour_sessions(self, session_id: str) -> tuple[str | None, str | None]:
        """The ids of the sessions of the same chat just before and just after this one, in time order."""
        found = []
        for op, order in (("<", "DESC"), (">", "ASC")):
            row = _row(
                self.db.execute(
                    f"""SELECT n.id FROM sessions s JOIN sessions n ON n.chat_seq = s.chat_seq
                    WHERE s.id = ? AND (n.start_ts, n.seq) {op} (s.start_ts, s.seq)
                    ORDER BY n.start_ts {order}, n.seq {order} LIMIT 1""",
                    (session_id,),
                ),
                tuple[str],
            )
            found.append(None if row is None else row[0])
        return found[0], found[1]

    def session_turns(self, session_id: str) -> list[Turn]:
        rows = self.db.execute(
            f"SELECT {_TURN_COLUMNS} FROM turns t JOIN sessions s ON s.seq = t.session_seq"
            " WHERE s.id = ? ORDER BY t.ordinal",
            (session_id,),
        )
        return [_turn(r) for r in rows]

    def turn_source_ids(self) -> dict[str, frozenset[str]]:
        """Each turn's messages' own source ids (benchmarks map their evidence ids through this)."""
        sources = dict(self.db.execute("SELECT seq, source_id FROM messages"))
        rows = self.db.execute(
            "SELECT s.id || '-' || t.ordinal, t.message_seqs FROM turns t JOIN sessions s ON s.seq = t.session_seq"
        )
        return {tid: frozenset(sources[int(m)] for m in seqs.split(",") if m) for tid, seqs in rows}

    def session_threads(self) -> dict[str, str | None]:
        """Session id -> the explicit thread key it was built from (None for silence-split sessions)."""
        return dict(self.db.execute("SELECT id, thread FROM sessions"))

    def has_turns(self) -> bool:
        return self.db.execute("SELECT 1 FROM turns LIMIT 1").fetchone() is not None

    def time_span(self) -> tuple[datetime, datetime] | None:
        lo, hi = _first(
            self.db.execute("SELECT min(start_ts), max(end_ts) FROM sessions"), tuple[int | None, int | None]
        )
        return None if lo is None or hi is None else (from_us(lo), from_us(hi))

    def counts(self) -> dict[str, int]:
        def q(sql: str) -> int:
            return _first(self.db.execute(sql), tuple[int])[0]

        return {
            "chats": q("SELECT count(*) FROM chats"),
            "messages": q("SELECT count(*) FROM messages"),
            "sessions": q("SELECT count(*) FROM sessions"),
            "turns": q("SELECT count(*) FROM turns"),
        }

    # -- statistics (`refind stats`) --------------------------------------------------------------------
    # Each is one pass over the messages, grouped in SQL, so a million messages come back as a few thousand
    # rows. Times are read in a zone through ``offsets``: (from epoch second, UTC offset in seconds) in time
    # order, the first applying before the second too. Assistant chats' hidden records are left out.

    def _stats_where(
        self,
        chats: Sequence[int] | None,
        since: int | None,
        until: int | None,
        senders: Sequence[str] | None = None,
        counted: bool = False,
    ) -> tuple[str, list[object]]:
        where, args = [f"kind != '{Kind.HIDDEN}'"], list[object]()
        if chats is not None:
            where.append(f"chat_seq IN ({','.join('?' * len(chats))})")
            args.extend(chats)
        if senders is not None:
            where.append(f"coalesce(sender, '') IN ({','.join('?' * len(senders))})")
            args.extend(senders)
        if counted:  # the bounds fall on quarter hours (_counted)
            bounds = [(">=", None if since is None else since // _QUARTER_US)]
            bounds.append(("<", None if until is None else (until + 1) // _QUARTER_US))
            column = "quarter"
        else:
            bounds, column = [(">=", since), ("<=", until)], "ts"
        for op, value in bounds:
            if value is not None:
                where.append(f"{column} {op} ?")
                args.append(value)
        return " AND ".join(where), args

    @staticmethod
    def _local_seconds(offsets: Sequence[tuple[int, int]], counted: bool = False) -> str:
        """SQL for a message's local time in epoch seconds (with ``counted``, of a row of message_counts:
        its quarter hour's). The zone's changes are searched as a tree (``_step_case``)."""
        # A quarter hour is compared and scaled as it is, not as microseconds (a third less per row).
        column, unit, quarter = ("quarter", 900, True) if counted else ("ts", 1_000_000, False)
        changes = [(at // 900 if quarter else at * 1_000_000, offset) for at, offset in offsets]
        seconds = f"{column} * {unit}" if quarter else f"{column} / {unit}"
        return f"({seconds} + {_step_case(column, changes) if offsets else 0})"

    def _counted(
        self, offsets: Sequence[tuple[int, int]], since: int | None, until: int | None, first: int
    ) -> bool:
        """Whether message_counts answers exactly: the table is there (a read-only open of an archive the
        migrations have not reached reads the messages), the zone's offsets and changes and the range's
        bounds all fall on quarter hours, and nothing selected is older than 1970 (not counted)."""
        quarter = _QUARTER_US // 1_000_000
        return (
            first >= 0
            and (since is None or since % _QUARTER_US == 0)
            and (until is None or (until + 1) % _QUARTER_US == 0)
            and all(offset % quarter == 0 for _, offset in offsets)
            # The first offset applies before its time too: only the later ones are changes.
            and all(at % quarter == 0 for at, _ in offsets[1:])
            and "m008_message_counts" in applied_migrations(self.db)
        )

    def message_span(
        self,
        chats: Sequence[int] | None,
        since: int | None,
        until: int | None,
        senders: Sequence[str] | None = None,
    ) -> tuple[int, int] | None:
        """(first, last) time in microseconds of the messages of these chats (by these senders) in the
        range, if any. Each chat's ends are read off the (chat_seq, ts) index, not by a pass over the
        messages (500,000: 1 ms against 140); only some senders' ends take a pass."""
        if senders is not None:
            where, params = self._stats_where(chats, since, until, senders)
            first, last = _first(
                self.db.execute(f"SELECT min(ts), max(ts) FROM messages WHERE {where}", params),
                tuple[int | None, int | None],
            )
            return None if first is None or last is None else (first, last)
        args: dict[str, int] = {"lo": _BEFORE_ALL if since is None else since, "hi": -_BEFORE_ALL}
        if until is not None:
            args["hi"] = until
        where = ""
        if chats is not None:
            args |= {f"c{i}": seq for i, seq in enumerate(chats)}
            where = f"WHERE seq IN ({','.join(f':c{i}' for i in range(len(chats)))})"
        in_range = "FROM messages WHERE chat_seq = c.seq AND ts BETWEEN :lo AND :hi"
        lo, hi = _first(
            self.db.execute(
                f"SELECT min(first), max(last) FROM (SELECT (SELECT min(ts) {in_range}) AS first,"
                f" (SELECT max(ts) {in_range}) AS last FROM chats c {where})",
                args,
            ),
            tuple[int | None, int | None],
        )
        return None if lo is None or hi is None else (lo, hi)

    def messages_per_month(
        self,
        chats: Sequence[int] | None,
        since: int | None,
        until: int | None,
        offsets: Sequence[tuple[int, int]],
        senders: Sequence[str] | None = None,
        *,
        first: int,
        months: Sequence[int],
    ) -> list[tuple[int, str | None, str, int]]:
        """(local month, sender, kind, messages) of the messages selected, none of them before ``first``.
        ``months``: the first day (days since the epoch) of each local month they fall in, in order; a
        month is given as its first day. Grouped by day, then the days by month, so the month's CASE runs
        once a day rather than once a message."""
        counted = self._counted(offsets, since, until, first)
        where, args = self._stats_where(chats, since, until, senders, counted)
        local = self._local_seconds(offsets, counted)
        per_day = (
            f"SELECT {local} / 86400 AS day, CASE WHEN named THEN sender END AS who, kind, sum(n) AS n"
            f" FROM message_counts WHERE {where} GROUP BY day, who, kind"
            if counted
            else f"SELECT {local} / 86400 AS day, sender AS who, kind, count(*) AS n FROM messages WHERE {where}"
            " GROUP BY day, who, kind"
        )
        month = _step_case("day", [(m, m) for m in months]) if months else "day"
        return _rows(
            self.db.execute(
                f"SELECT {month} AS month, who, kind, sum(n) FROM ({per_day}) GROUP BY month, who, kind", args
            ),
            tuple[int, str | None, str, int],
        )

    def messages_per_hour(
        self,
        chats: Sequence[int] | None,
        since: int | None,
        until: int | None,
        offsets: Sequence[tuple[int, int]],
        senders: Sequence[str] | None = None,
        *,
        first: int,
    ) -> list[tuple[int, int]]:
        """(local hour of the week, 0 at Monday 00:00, messages) of the messages selected, none of them
        before ``first``."""
        counted = self._counted(offsets, since, until, first)
        where, args = self._stats_where(chats, since, until, senders, counted)
        # One expression, so the zone's CASE runs once a row; 1970-01-01 was a Thursday, 72 hours past Monday.
        hour = f"({self._local_seconds(offsets, counted)} / 3600 + 72) % 168"
        sql = (
            f"SELECT {hour} AS h, sum(n) FROM message_counts WHERE {where} GROUP BY h"
            if counted
            else f"SELECT {hour} AS h, count(*) FROM messages WHERE {where} GROUP BY h"
        )
        return _rows(self.db.execute(sql, args), tuple[int, int])

    def longest_silences(
        self, chats: Sequence[int] | None, since: int | None, until: int | None, limit: int
    ) -> list[tuple[int, int, int]]:
        """(chat seq, end of the talk before, start of the talk after) in microseconds, of the ``limit``
        longest silences of one chat, longest first. Read from the sessions, which the segmenter already cut
        at every silence longer than the session gap (an hour by default), so this passes over sessions,
        not messages; threads may overlap, so a silence starts at the latest end so far."""
        where, args = ["1"], list[object]()
        if chats is not None:
            where.append(f"chat_seq IN ({','.join('?' * len(chats))})")
            args.extend(chats)
        for clause, value in (("end_ts >= ?", since), ("start_ts <= ?", until)):
            if value is not None:
                where.append(clause)
                args.append(value)
        return _rows(
            self.db.execute(
                f"""SELECT chat_seq, prev, start_ts FROM (
                    SELECT chat_seq, start_ts, max(end_ts) OVER (PARTITION BY chat_seq ORDER BY start_ts
                        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
                    FROM sessions WHERE {" AND ".join(where)})
                WHERE prev IS NOT NULL AND start_ts > prev ORDER BY start_ts - prev DESC, start_ts LIMIT ?""",
                [*args, limit],
            ),
            tuple[int, int, int],
        )

    # -- index bookkeeping ------------------------------------------------------------------------------

    def index_queue(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT session_seq FROM index_queue ORDER BY session_seq")]

    def clear_index_queue(self, seqs: Iterable[int]) -> None:
        seqs = list(seqs)
        with self.transaction():
            for part, marks in _in_chunks(seqs):
                self.db.execute(f"DELETE FROM index_queue WHERE session_seq IN ({marks})", part)

    def queue_all_sessions(self) -> None:
        """Mark every session stale: used when the index is found missing or unreadable."""
        self.db.execute("INSERT OR IGNORE INTO index_queue (session_seq) SELECT seq FROM sessions")

    # -- import ledger ----------------------------------------------------------------------------------

    def start_import(self, path: str, sha256: str, fmt: str, started: str, settings: str) -> int:
        self.db.execute(
            "INSERT INTO imports (path, sha256, format, started, settings) VALUES (?, ?, ?, ?, ?)",
            (path, sha256, fmt, started, settings),
        )
        return self.db.last_insert_rowid()

    def earlier_import(self, sha256: str, fmt: str, settings: str) -> tuple[int, dict] | None:
        """(seq, counts) of the latest finished import of the same content, format and settings."""
        row = self.db.execute(
            "SELECT seq, counts FROM imports WHERE sha256 = ? AND format = ? AND settings = ?"
            " AND finished IS NOT NULL ORDER BY seq DESC LIMIT 1",
            (sha256, fmt, settings),
        ).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    def resume_points(self, fmt: str, settings: str) -> list[tuple[int, str, str, str]]:
        """(seq, path, hash, resume point) of the finished imports of this format and settings that left one."""
        return _rows(
            self.db.execute(
                "SELECT seq, path, sha256, resume FROM imports WHERE format = ? AND settings = ?"
                " AND finished IS NOT NULL AND resume IS NOT NULL",
                (fmt, settings),
            ),
            tuple[int, str, str, str],
        )

    def set_resume_point(self, import_seq: int, point: str) -> None:
        self.db.execute("UPDATE imports SET resume = ? WHERE seq = ?", (point, import_seq))

    def finish_import(self, import_seq: int, finished: str, counts: dict) -> None:
        self.db.execute(
            "UPDATE imports SET finished = ?, counts = ? WHERE seq = ?",
            (finished, json.dumps(counts), import_seq),
        )


def _contains(text: str | None, needle: str) -> bool:
    return text is not None and needle in text.casefold()
