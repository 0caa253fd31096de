"""The archive's database file: opening it (read-write, read-only, or an empty stand-in), transactions,
the errors that are the machine's, and the shapes values take in it (times as integer microseconds since the
epoch, UTC; rows as the schema fixes them)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta

import apsw

from refind_cli.errors import RefindError

# A message's text of more than LONG_TEXT characters is stored apart (``schema._m040_long_texts_apart``): its
# row's text is then an empty BLOB, which no text a person wrote is (every importer gives a str or a HeldText).
from refind_cli.records import LONG_TEXT as LONG_TEXT
from refind_cli.records import TIMES, Kind
from refind_cli.storage.home import ensure_home
from refind_cli.typed import NamedTuple, cast

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from _typeshed import StrPath

# A message's raw record (what ``raw.cut`` left of it) of more than LONG_TEXT characters is stored apart too
# (``schema._m042_long_raws_apart``): its row's raw is then this empty BLOB, which no rest is (a rest is text,
# or the one-byte key of a rest its chat holds: ``written.Chatwide``).
APART = b""


def apart(text: str = "text") -> str:
    """SQL: whether a message's text (the column ``text`` of ``messages``) is stored apart. It does not load
    the text: SQLite answers ``typeof`` from the row's header."""
    return f"typeof({text}) = 'blob'"


# apsw types a row as a tuple of any SQLite values; the schema fixes each query's row shape, so these state it
# once, next to the SQL (``shape`` is only read by the type checker).
if TYPE_CHECKING:
    Row = TypeVar("Row", bound=tuple[Any, ...])


def fetch_all(cursor: apsw.Cursor, shape: type[Row]) -> list[Row]:
    return cast("list[Row]", cursor.fetchall())


def fetch_one(cursor: apsw.Cursor, shape: type[Row]) -> Row | None:
    return cast("Row | None", cursor.fetchone())


def fetch_first(cursor: apsw.Cursor, shape: type[Row]) -> Row:
    """The row a query always has: an aggregate's, or one of a key the caller holds."""
    return cast("Row", cursor.fetchone())


@contextlib.contextmanager
def immediate(db: apsw.Connection) -> Iterator[None]:
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


def vacuum(db: apsw.Connection) -> None:
    """Rewrite the file without its free pages, each table and index packed. VACUUM copies the archive into
    a temporary database first: in a file, not in memory (where sorts go), or compacting a million messages'
    archive would hold 150 MB more (190 MB peak against 48, the same time: bench/RESULTS.md, issue 26 item
    4, session 12)."""
    (temp_store,) = fetch_first(db.execute("PRAGMA temp_store"), tuple[int])
    db.execute("PRAGMA temp_store=FILE")
    try:
        db.execute("VACUUM")
    finally:
        db.execute(f"PRAGMA temp_store={temp_store}")


def hashed_chat_key(chat_uid: str) -> str:
    # Imported where an id is computed: identity loads hashlib (OpenSSL, ~2 ms), which a search never needs.
    from refind_cli.storage.identity import chat_key

    return chat_key(chat_uid)


def hashed_path_key(path: str) -> str:
    from refind_cli.storage.identity import path_key

    return path_key(path)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# More than any two zones' offsets differ (UTC-12 to UTC+14), in microseconds: how far apart the same
# wall-clock time read in two zones can be.
CROSS_ZONE = 27 * 3600 * 1_000_000

BEFORE_ALL = -(1 << 62)  # microseconds earlier than any stored time

_MICROSECOND = timedelta(microseconds=1)
_EARLIEST_US, _LATEST_US = ((bound - EPOCH) // _MICROSECOND for bound in TIMES)


def to_us(dt: datetime) -> int:
    """Microseconds since the epoch of an aware datetime."""
    return (dt - EPOCH) // _MICROSECOND


def from_us(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=representable_us(us))


def representable_us(us: int) -> int:
    """A stored time inside ``records.TIMES``: an archive of an earlier release on read-only media cannot
    be migrated (m010) and may hold one outside, which no zone east of UTC can show."""
    return min(max(us, _EARLIEST_US), _LATEST_US)


def use_home(home: StrPath) -> None:
    try:
        ensure_home(home)
    except OSError as exc:
        raise RefindError(f"{home}: cannot use this as the home folder ({exc.strerror or exc})") from None


@contextlib.contextmanager
def storage_errors(path: StrPath) -> Iterator[None]:
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


def _disk_full(path: StrPath) -> bool:
    import shutil  # here: it loads bz2 and lzma, which a reader's start-up never needs

    try:
        return shutil.disk_usage(os.path.dirname(path)).free == 0
    except OSError:
        return False


# Older SQLite builds cap a statement at 999 variables.
_MAX_VARIABLES = 900


def in_chunks(values: Sequence) -> Iterator[tuple[list, str]]:
    """Slices of ``values`` small enough for one statement, each with its ``?,?,...`` placeholders."""
    for i in range(0, len(values), _MAX_VARIABLES):
        part = list(values[i : i + _MAX_VARIABLES])
        yield part, ",".join("?" * len(part))


def step_case(column: str, steps: Sequence[tuple[int, int]]) -> str:
    """SQL for the value of the last step at or before ``column``'s value, the first applying before its
    start too (integers only). A balanced tree of CASEs: a row costs log2(steps) comparisons, forty steps in
    6, not 20 on average."""
    if len(steps) == 1:
        return str(steps[0][1])
    mid = len(steps) // 2
    return f"CASE WHEN {column} < {steps[mid][0]} THEN {step_case(column, steps[:mid])} ELSE {step_case(column, steps[mid:])} END"


# `refind stats` counts messages by chat, quarter hour (UTC), sender and kind from the table message_counts
# instead of two grouped passes over the messages themselves. Each write keeps it exact, whichever code path
# makes it: new messages are counted in one grouped pass when their transaction ends, messages deleted or
# moved are taken out first (refind_cli.storage.archive). A quarter hour, because every zone's offset and
# change of offset today falls on one; a zone or range that does not is counted from the messages. ``sender``
# is '' with ``named`` 0 where the message has none. Left out: assistants' hidden records, as stats leaves
# them out, and times before 1970 (stats of those reads the messages).
QUARTER_US = 900_000_000
# A message's key in message_counts (chat_seq, quarter, sender, named, kind), and which messages it counts.
COUNTED = f"chat_seq, ts / {QUARTER_US}, coalesce(sender, ''), sender NOT NULL, kind"
IS_COUNTED = f"kind != '{Kind.HIDDEN}' AND ts >= 0"
# Since m017 message_counts also holds each quarter's place in the UTC week (``qow``, 0 at Thursday 1 January
# 1970 00:00) and is ordered by it within a chat: the weekday x hour pass sums a chat's quarters in that order,
# a sum per offset the zone has, without sorting them (hundreds of thousands of rows at a million messages).
WEEK_QUARTERS = 7 * 96
# The same messages counted by UTC month (month_counts, its first day in days since the epoch): what a month
# of `refind stats` reads, all but its first and last hours, which a zone may move into another month
# (those are read from the messages). A few thousand rows where message_counts has hundreds of thousands.
MONTH_COUNTED = (
    "chat_seq, unixepoch(ts / 1000000, 'unixepoch', 'start of month') / 86400, coalesce(sender, ''),"
    " sender NOT NULL, kind"
)

# A quarter's month (``MONTH_COUNTED`` of each of its messages: a quarter hour lies within one month), where
# new messages are counted by quarter first: the date function once a quarter, not once a message.
MONTH_OF_QUARTER = f"unixepoch(quarter * {QUARTER_US // 1_000_000}, 'unixepoch', 'start of month') / 86400"


class CountTable(NamedTuple):
    """A table of counts of messages: ``key``, SQL for a message's key there (chat_seq, time, sender, named,
    kind); ``extra``, SQL for the columns after the count that the key decides; ``match``, SQL for the row of
    the key given as parameters ?1 to ?5."""

    table: str
    key: str
    extra: str
    match: str


COUNT_TABLES = (
    CountTable(
        "message_counts",
        COUNTED,
        f", ts / {QUARTER_US} % {WEEK_QUARTERS}",
        f"chat_seq = ?1 AND qow = ?2 % {WEEK_QUARTERS} AND quarter = ?2 AND sender = ?3 AND named = ?4 AND kind = ?5",
    ),
    CountTable(
        "month_counts",
        MONTH_COUNTED,
        "",
        "chat_seq = ?1 AND month = ?2 AND sender = ?3 AND named = ?4 AND kind = ?5",
    ),
)


# Message identities as stored since m015 (``storage.identity`` makes them): the hash of a written time,
# sender and text ("w:" and 20 hex digits) as its 10 bytes, the legacy hash of an instant ("h:" and 20) as
# 11 ("h" first); any other (a source's own id) as written: a BLOB, which the column's TEXT affinity leaves
# as it is (a number would be made text). Of a million WhatsApp messages' rows and identity index, 24 MB
# less. Both ways in SQL, so every query keeps its one statement; no text is ever taken for a packed one.
_HEX20 = "[0-9a-f]" * 20


def packed_uid(value: str) -> str:
    """SQL for the stored form of the identity the SQL expression ``value`` gives (a parameter, a column)."""
    return (
        f"CASE WHEN {value} GLOB 'w:{_HEX20}' THEN unhex(substr({value}, 3))"
        f" WHEN {value} GLOB 'h:{_HEX20}' THEN unhex('68' || substr({value}, 3)) ELSE {value} END"
    )


def packed(uid: str) -> str | bytes:
    """The stored form of an identity (``packed_uid``), in Python: for a writer that binds it."""
    if len(uid) == 22 and uid[1] == ":" and uid[0] in "wh":
        try:
            digits = bytes.fromhex(uid[2:])
        except ValueError:
            return uid
        # fromhex takes capitals and spaces too, which the SQL's pattern does not.
        if digits.hex() == uid[2:]:
            return b"h" + digits if uid[0] == "h" else digits
    return uid


def uid_text(column: str = "uid") -> str:
    """SQL for the identity a stored one (``packed_uid``) stands for, as ``storage.identity`` wrote it."""
    return (
        f"CASE typeof({column}) WHEN 'blob' THEN CASE length({column}) WHEN 10 THEN 'w:' || lower(hex({column}))"
        f" ELSE 'h:' || lower(hex(substr({column}, 2))) END ELSE {column} END"
    )


# Senders' names held once (since m020, table ``senders``): a message's ``sender`` is its name's key there, the
# fewest big-endian bytes of a number counted from 0 (one byte for a chat's first 256 names), as a BLOB, which
# the column's TEXT affinity keeps as it is; NULL where the message has none. Of a million WhatsApp messages'
# rows and counts, 18 MB less. Both ways in SQL, as identities are: a row of an archive before m020, read as it
# stands, holds the name itself.
def sender_key(number: int) -> bytes:
    return number.to_bytes(max(1, (number.bit_length() + 7) // 8), "big")


def sender_name(column: str) -> str:
    """SQL for the name a stored ``sender`` (``column``) stands for."""
    return f"CASE typeof({column}) WHEN 'blob' THEN (SELECT sn.name FROM senders sn WHERE sn.key = {column}) ELSE {column} END"


def senders_in(column: str, names: int) -> str:
    """SQL for whether the stored sender ``column`` (NULL read as '') is one of ``names`` names, given as the
    parameters that follow, twice over: once as names (an archive before m020, or no sender), once as keys."""
    marks = ",".join("?" * names)
    return f"(coalesce({column}, '') IN ({marks}) OR {column} IN (SELECT sn.key FROM senders sn WHERE sn.name IN ({marks})))"


# A text message's kind, the commonest by far, is stored as '' since m021 (4 bytes a message and a row of counts
# less); every other kind as its name. What a stored ``kind`` (``column``) stands for, in SQL:
def session_id_text(column: str) -> str:
    """SQL for a session's id (``segment.session_id``, hex) from its stored form: its bytes since m031, the
    text before."""
    return f"CASE typeof({column}) WHEN 'blob' THEN lower(hex({column})) ELSE {column} END"


def stored_session_id(session_id: str) -> str | bytes:
    """A session id as stored since m031: the bytes its hex spells (half the width), or the text where it
    spells none exactly."""
    try:
        packed = bytes.fromhex(session_id)
    except ValueError:
        return session_id
    return packed if packed.hex() == session_id else session_id


def session_id_forms(session_ids: Iterable[str]) -> list[str | bytes]:
    """Each id as stored since m031 and as stored before: a lookup by ``id IN (...)`` finds it either way."""
    return [form for sid in session_ids for form in (stored_session_id(sid), sid)]


def kind_name(column: str) -> str:
    return f"CASE {column} WHEN '' THEN '{Kind.TEXT}' ELSE {column} END"


# A turn's messages as stored (``turns.message_seqs``): their seqs in the turn's order, "12,15,13"; "12" for
# one; since m023 a run of consecutive seqs, what nearly every turn is, as its first and how many follow,
# "12+2" for 12, 13 and 14 (a million messages' turns: 4 MB less).
def stored_seqs(listed: str) -> str:
    """The stored form of a turn's seqs given as a list ("12,13,14") or stored already."""
    if "," not in listed:
        return listed
    seqs = listed.split(",")
    first = int(seqs[0])
    if seqs != [str(first + i) for i in range(len(seqs))]:
        return listed
    return run_of_seqs(first, len(seqs))


def run_of_seqs(first: int, n: int) -> str:
    """The stored form of the ``n`` consecutive seqs from ``first`` on (``stored_seqs``)."""
    return f"{first}+{n - 1}"


def seqs_of(stored: str) -> list[int]:
    """A turn's message seqs, in its order, from their stored form."""
    if "+" in stored:
        first, more = stored.split("+")
        return list(range(int(first), int(first) + int(more) + 1))
    return [int(seq) for seq in stored.split(",")]
