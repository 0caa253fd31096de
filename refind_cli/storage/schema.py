"""The archive's schema: the tables of the release before migrations, and the named migrations since, each
applied once and recorded (name, time) in the table ``migrations``, so an older archive upgrades in place;
and opening the file at that schema: for writing (migrated first), or for reading as it stands (an empty
stand-in in memory where there is none yet)."""

from __future__ import annotations

# ``json`` is imported by the functions here that use it: a search opens the archive and needs none of it
# (loading it compiles five regular expressions; bench/RESULTS.md, issue 26 item 3, session 16).
import codecs
import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import apsw

from refind_cli.errors import RefindError
from refind_cli.records import TIMES, Kind
from refind_cli.storage import raw
from refind_cli.storage.database import (
    APART,
    COUNT_TABLES,
    COUNTED,
    IS_COUNTED,
    LONG_TEXT,
    WEEK_QUARTERS,
    CountTable,
    apart,
    fetch_all,
    hashed_chat_key,
    immediate,
    packed_uid,
    sender_key,
    stored_seqs,
    to_us,
    vacuum,
)
from refind_cli.storage.ledger import hide_chats_in_ledger

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from _typeshed import StrPath

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

# Where a long text is stored (``_m040_long_texts_apart``): ``chars`` its length in characters, what planning
# sessions reads of it.
LONG_TEXTS = """
CREATE TABLE IF NOT EXISTS long_texts (seq INTEGER PRIMARY KEY, chars INTEGER NOT NULL, text BLOB NOT NULL);
"""
# Where a long raw record is stored (``_m042_long_raws_apart``), alike: what ``raw.cut`` left of it, ``chars``
# its length in characters.
LONG_RAWS = """
CREATE TABLE IF NOT EXISTS long_raws (seq INTEGER PRIMARY KEY, chars INTEGER NOT NULL, raw BLOB NOT NULL);
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

    chats = fetch_all(
        db.execute(
            "SELECT DISTINCT m.chat_seq, c.uid FROM messages m JOIN chats c ON c.seq = m.chat_seq"
            " WHERE m.source_id IS NULL AND m.local_time IS NOT NULL"
        ),
        tuple[int, str],
    )
    for chat_seq, chat_uid in chats:
        identity = Identity()
        rows = fetch_all(
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
        firsts = fetch_all(
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
    db.executemany(
        "UPDATE forgotten SET chat_key = ? WHERE chat_key = ?", [(hashed_chat_key(k), k) for k in keys]
    )
    present = {r[0] for r in db.execute("SELECT uid FROM chats")}
    hide_chats_in_ledger(db, lambda chat_uid: chat_uid not in present)


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


def _m008_message_counts(db: apsw.Connection) -> None:
    """Counts of messages for `refind stats` (see ``QUARTER_US``), built from the messages held. (This
    migration also made triggers keep them; m012 keeps them in batches instead.)"""
    db.execute(
        "CREATE TABLE message_counts (chat_seq INT, quarter INT, sender TEXT, named INT, kind TEXT, n INT,"
        " PRIMARY KEY (chat_seq, quarter, sender, named, kind)) WITHOUT ROWID"
    )
    _count_quarters(db)


def _count_all(db: apsw.Connection, counts: CountTable) -> None:
    db.execute(
        f"INSERT INTO {counts.table} SELECT {counts.key}, count(*){counts.extra} FROM messages WHERE {IS_COUNTED}"
        " GROUP BY 1, 2, 3, 4, 5"
    )


def _count_quarters(db: apsw.Connection) -> None:
    """Fill message_counts, of the shape it has now (m017 added the quarter's place in the week)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(message_counts)")}
    _count_all(db, COUNT_TABLES[0] if "qow" in columns else CountTable("message_counts", COUNTED, "", ""))


def _m009_own_messages(db: apsw.Connection) -> None:
    """Which messages the person whose export it is wrote, where the export says so (``Message.own``): what
    ``--from me`` finds. Messages imported before stay unmarked: a re-import adds only what is new (forget
    the chat and import it again to mark them)."""
    db.execute("ALTER TABLE messages ADD COLUMN own INTEGER NOT NULL DEFAULT 0")


def _m010_representable_times(db: apsw.Connection) -> None:
    """Times outside 1970-2199 (``records.TIMES``), which releases before stored as read (a Telegram message
    dated 9999-12-31): east of UTC they have no local time, and a timeline's next bucket is the year 10000,
    so `stats`, timelines and views in such zones failed on the whole archive. Each is clamped into the
    range, as an import does now (with its warning); the message's record (``raw``, ``local_time``) keeps the
    time as written. Its sessions and turns follow, and their index documents are queued, so the index
    catches up with the times it filters by. A message stored twice by identity (read in two zones) whose
    times meet at the bound is kept apart by a microsecond."""
    low, high = (to_us(bound) for bound in TIMES)
    # Their written times stay as written (an archive given m018 before this one: a test's).
    spell_out(db, "m.ts NOT BETWEEN ? AND ?", (low, high))
    outside = fetch_all(
        db.execute(
            "SELECT seq, chat_seq, uid, ts FROM messages WHERE ts NOT BETWEEN ? AND ? ORDER BY ts",
            (low, high),
        ),
        tuple[int, int, str, int],
    )
    for seq, chat_seq, uid, ts in outside:
        kept, inward = (low, 1) if ts < low else (high, -1)
        taken = "SELECT 1 FROM messages WHERE chat_seq = ? AND ts = ? AND uid = ?"
        while db.execute(taken, (chat_seq, kept, uid)).fetchone():
            kept += inward
        db.execute("UPDATE messages SET ts = ? WHERE seq = ?", (kept, seq))
    if outside:
        # message_counts follows the times that moved (no trigger keeps it since m012).
        db.execute("DELETE FROM message_counts")
        _count_quarters(db)
    db.execute(
        "INSERT OR IGNORE INTO index_queue SELECT seq FROM sessions"
        " WHERE start_ts NOT BETWEEN ?1 AND ?2 OR end_ts NOT BETWEEN ?1 AND ?2",
        (low, high),
    )
    # Turns keep times of their own only before m016 (since then they are their messages').
    turn_times = "end_ts" in {row[1] for row in db.execute("PRAGMA table_info(turns)")}
    for table in ("sessions", "turns") if turn_times else ("sessions",):
        db.execute(
            f"UPDATE {table} SET start_ts = max(?1, min(?2, start_ts)), end_ts = max(?1, min(?2, end_ts))"
            " WHERE start_ts NOT BETWEEN ?1 AND ?2 OR end_ts NOT BETWEEN ?1 AND ?2",
            (low, high),
        )


def spell_out(db: apsw.Connection, where: str, args: Sequence[object]) -> None:
    """Put back into the messages ``where`` selects (``m`` the message, ``c`` its chat) what their chat
    holds once for them (m018, m019): before they move to another chat or their times change."""
    if "wall" not in {row[1] for row in db.execute("PRAGMA table_info(messages)")}:
        return
    from refind_cli.storage.written import Chatwide

    rests = "c.rests" if "rests" in {row[1] for row in db.execute("PRAGMA table_info(chats)")} else "NULL"
    rows = fetch_all(
        db.execute(
            f"SELECT m.seq, m.ts, m.wall, m.raw, m.raw_form, c.written, c.rest, {rests} FROM messages m"
            f" JOIN chats c ON c.seq = m.chat_seq WHERE ({where})"
            " AND (m.wall NOT NULL OR ((m.raw = '' OR typeof(m.raw) = 'blob') AND m.raw_form NOT NULL))",
            args,
        ),
        tuple[int, int, int | None, str | bytes, int | None, str, str | None, str | None],
    )
    wide: dict[tuple[str, str | None, str | None], Chatwide] = {}
    spelled = []
    for seq, ts, wall, rest, form, layout, shared, further in rows:
        chat = wide.get((layout, shared, further)) or wide.setdefault(
            (layout, shared, further), Chatwide.loads(layout, shared, further)
        )
        local_time = None if wall is None else chat.written_time(ts, wall)
        spelled.append((local_time, rest if rest == APART else chat.record_rest(rest, form), seq))
    db.executemany(
        "UPDATE messages SET local_time = coalesce(?, local_time), wall = NULL, raw = ? WHERE seq = ?",
        spelled,
    )


def _m011_resume_points(db: apsw.Connection) -> None:
    """Where the reading of an imported file stopped (``ingest.resume``: its reader's mark, the identities'
    state there, the messages read), so a later import of the file grown reads only what follows. Imports
    before have none: their files' next import reads them whole, and leaves one."""
    db.execute("ALTER TABLE imports ADD COLUMN resume TEXT")


def _m012_message_counts_batched(db: apsw.Connection) -> None:
    """message_counts is kept by the archive's writes, a grouped pass at the end of each (the triggers m008
    made cost 8-13 % of an import's CPU, one upsert a message)."""
    for trigger in ("message_counts_in", "message_counts_out", "message_counts_change"):
        db.execute(f"DROP TRIGGER IF EXISTS {trigger}")


def _m013_text_once(db: apsw.Connection) -> None:
    """Each message's text stored once. A message's raw record keeps only what its columns do not hold
    (refind_cli.storage.raw; ``raw_form`` says how to put them back), and a turn's text, which is its
    messages', is no longer stored. The space freed is given back by a VACUUM once the migrations are done."""
    db.execute("ALTER TABLE messages ADD COLUMN raw_form INTEGER")
    after = -1
    while batch := fetch_all(
        db.execute(
            "SELECT seq, raw, text, local_time, sender, sender_id FROM messages WHERE seq > ? ORDER BY seq"
            " LIMIT 10000",
            (after,),
        ),
        tuple[int, str, str, str | None, str | None, str | None],
    ):
        cuts = [(*raw.cut(record, fields), seq) for seq, record, *fields in batch]
        db.executemany(
            "UPDATE messages SET raw = ?, raw_form = ? WHERE seq = ?", [c for c in cuts if c[1] is not None]
        )
        after = batch[-1][0]
    db.execute("ALTER TABLE turns DROP COLUMN text")


def _m014_month_counts(db: apsw.Connection) -> None:
    """Counts of messages by UTC month beside those by quarter hour (``database.MONTH_COUNTED``): `refind
    stats` reads a month from them, not from each of its quarter hours (on a million messages: 6,562 rows,
    not 511,341), and only the hours at its ends, which a zone may move, from message_counts."""
    db.execute(
        "CREATE TABLE month_counts (chat_seq INT, month INT, sender TEXT, named INT, kind TEXT, n INT,"
        " PRIMARY KEY (chat_seq, month, sender, named, kind)) WITHOUT ROWID"
    )
    _count_all(db, COUNT_TABLES[1])


def _m015_packed_uids(db: apsw.Connection) -> None:
    """Message identities stored packed (``database.packed_uid``): a hash as its bytes, not as hex."""
    db.execute(f"UPDATE messages SET uid = {packed_uid('uid')} WHERE typeof(uid) = 'text'")


def _m016_turns_by_messages(db: apsw.Connection) -> None:
    """A turn's times and speaker are no longer stored: they are its first and last messages' (read from
    them by ``storage.queries``, as its text is since m013)."""
    for column in ("start_ts", "end_ts", "speaker"):
        db.execute(f"ALTER TABLE turns DROP COLUMN {column}")


def _m017_counts_in_week_order(db: apsw.Connection) -> None:
    """message_counts ordered, within a chat, by each quarter's place in the UTC week (``qow``): `refind
    stats` sums a chat's weekday x hour counts in that order, without sorting them."""
    db.execute(
        "CREATE TABLE week_ordered (chat_seq INT, quarter INT, sender TEXT, named INT, kind TEXT, n INT, qow INT,"
        " PRIMARY KEY (chat_seq, qow, quarter, sender, named, kind)) WITHOUT ROWID"
    )
    db.execute(f"INSERT INTO week_ordered SELECT *, quarter % {WEEK_QUARTERS} FROM message_counts")
    db.execute("DROP TABLE message_counts")
    db.execute("ALTER TABLE week_ordered RENAME TO message_counts")


def _m018_written_times(db: apsw.Connection) -> None:
    """A message's written time (``local_time``) is no longer stored where its chat's layout of a time
    (``chats.written``, ``storage.written``) rebuilds it from the instant and the offset of the clock it was
    written by (``messages.wall``, minutes); the others keep theirs. Each rebuild is checked as it is made."""
    from refind_cli.storage.written import SAMPLE, told

    db.execute("ALTER TABLE chats ADD COLUMN written TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE messages ADD COLUMN wall INTEGER")
    layouts = {}
    for (chat_seq,) in fetch_all(db.execute("SELECT seq FROM chats"), tuple[int]):
        # A chat's first times, by its (chat, time) index.
        layout = told(
            fetch_all(
                db.execute(
                    "SELECT ts, local_time FROM messages WHERE chat_seq = ? AND local_time NOT NULL ORDER BY ts LIMIT ?",
                    (chat_seq, SAMPLE),
                ),
                tuple[int, str],
            )
        )
        if layout is not None:
            layouts[chat_seq] = layout
            db.execute("UPDATE chats SET written = ? WHERE seq = ?", (layout.dumps(), chat_seq))
    offsets = dict.fromkeys(layouts, 0)  # each chat's last
    after = -1
    while batch := fetch_all(
        db.execute(
            "SELECT seq, chat_seq, ts, local_time FROM messages WHERE seq > ? AND local_time NOT NULL ORDER BY seq"
            " LIMIT 10000",
            (after,),
        ),
        tuple[int, int, int, str],
    ):
        walls = []
        for seq, chat_seq, ts, stamp in batch:
            if (layout := layouts.get(chat_seq)) is not None:
                wall = layout.offset_near(stamp, ts, offsets[chat_seq])
                if wall is not None:
                    walls.append((wall, seq))
                    offsets[chat_seq] = wall
        db.executemany("UPDATE messages SET local_time = NULL, wall = ? WHERE seq = ?", walls)
        after = batch[-1][0]


def _m019_shared_rests(db: apsw.Connection) -> None:
    """What is left of a raw record (m013) is held once by its chat (``chats.rest``) where most of the chat's
    records leave the same and it holds nothing a person wrote (``raw.shared_rest``); such a row's ``raw``
    is ''."""
    db.execute("ALTER TABLE chats ADD COLUMN rest TEXT")
    commonest = fetch_all(
        db.execute(
            "SELECT chat_seq, raw, max(n) FROM (SELECT chat_seq, raw, count(*) AS n FROM messages"
            " WHERE raw_form NOT NULL GROUP BY chat_seq, raw) GROUP BY chat_seq"
        ),
        tuple[int, str, int],
    )
    for chat_seq, rest, n in commonest:
        if raw.shareable(rest, n):
            db.execute("UPDATE chats SET rest = ? WHERE seq = ?", (rest, chat_seq))
            db.execute(
                "UPDATE messages SET raw = '' WHERE chat_seq = ? AND raw = ? AND raw_form NOT NULL",
                (chat_seq, rest),
            )


SENDERS = "CREATE TABLE {}senders (key BLOB PRIMARY KEY, name TEXT NOT NULL UNIQUE) WITHOUT ROWID"


def _m020_senders_held_once(db: apsw.Connection) -> None:
    """Each sender's name held once, in the table ``senders``; a message's ``sender`` is its key there
    (``database.sender_key``), and so is the sender of each row of the tables of counts, counted again."""
    db.execute(SENDERS.format(""))
    names = [r[0] for r in db.execute("SELECT DISTINCT sender FROM messages WHERE typeof(sender) = 'text'")]
    db.executemany(
        "INSERT INTO senders (key, name) VALUES (?, ?)", [(sender_key(i), n) for i, n in enumerate(names)]
    )
    db.execute(
        "UPDATE messages SET sender = (SELECT key FROM senders WHERE name = messages.sender)"
        " WHERE typeof(sender) = 'text'"
    )
    for counts in COUNT_TABLES:
        db.execute(f"DELETE FROM {counts.table}")
        _count_all(db, counts)


def _m021_text_kind_implied(db: apsw.Connection) -> None:
    """A text message's kind is stored as '' (``database.kind_name``), in the messages and the tables of
    counts."""
    db.execute(f"UPDATE messages SET kind = '' WHERE kind = '{Kind.TEXT}'")
    for counts in COUNT_TABLES:
        db.execute(f"UPDATE {counts.table} SET kind = '' WHERE kind = '{Kind.TEXT}'")


def _m022_signatures_as_bytes(db: apsw.Connection) -> None:
    """A session's signature (``segment.signature``) stored as its 12 bytes, not as their hex."""
    db.execute(
        "UPDATE sessions SET signature = unhex(signature)"
        " WHERE typeof(signature) = 'text' AND unhex(signature) NOT NULL"
    )


def _m023_turns_as_runs(db: apsw.Connection) -> None:
    """A turn of consecutive messages is stored as its first seq and how many follow
    (``database.stored_seqs``)."""
    after = (-1, -1)
    while batch := fetch_all(
        db.execute(
            "SELECT session_seq, ordinal, message_seqs FROM turns WHERE (session_seq, ordinal) > (?, ?)"
            " ORDER BY session_seq, ordinal LIMIT 10000",
            after,
        ),
        tuple[int, int, str],
    ):
        db.executemany(
            "UPDATE turns SET message_seqs = ? WHERE session_seq = ? AND ordinal = ?",
            [(run, *key) for *key, seqs in batch if (run := stored_seqs(seqs)) != seqs],
        )
        after = batch[-1][:2]


def _m030_further_rests(db: apsw.Connection) -> None:
    """The other rests a chat's raw records share, beside the one m019 holds (``written.Chatwide``: a
    WhatsApp sender saved as a phone number is written between direction marks), held once by the chat too
    (``chats.rests``, a JSON list); such a row's ``raw`` is its rest's one-byte key."""
    import json

    db.execute("ALTER TABLE chats ADD COLUMN rests TEXT")
    counted = fetch_all(
        db.execute(
            "SELECT chat_seq, raw, count(*) FROM messages"
            " WHERE raw_form NOT NULL AND typeof(raw) = 'text' AND raw != '' AND length(raw) <= ?"
            " GROUP BY chat_seq, raw ORDER BY chat_seq, 3 DESC, raw",
            (raw.SHARED_LONGEST,),
        ),
        tuple[int, str, int],
    )
    held: dict[int, list[str]] = {}
    for chat_seq, rest, n in counted:
        rests = held.setdefault(chat_seq, [])
        if raw.shareable(rest, n) and len(rests) < raw.FURTHER_RESTS:
            rests.append(rest)
    db.execute("CREATE TEMP TABLE further (chat_seq INT, rest TEXT, key BLOB, PRIMARY KEY (chat_seq, rest))")
    for chat_seq, rests in held.items():
        if rests:
            db.execute(
                "UPDATE chats SET rests = ? WHERE seq = ?", (json.dumps(rests, ensure_ascii=False), chat_seq)
            )
            db.executemany(
                "INSERT INTO temp.further VALUES (?, ?, ?)",
                [(chat_seq, rest, bytes([i])) for i, rest in enumerate(rests)],
            )
    db.execute(
        "UPDATE messages SET raw = f.key FROM temp.further f"
        " WHERE f.chat_seq = messages.chat_seq AND f.rest = messages.raw AND messages.raw_form NOT NULL"
    )
    db.execute("DROP TABLE temp.further")


def _m031_session_ids_as_bytes(db: apsw.Connection) -> None:
    """A session's id (``segment.session_id``, 12 hex digits) stored as the 6 bytes they spell
    (``database.stored_session_id``), in the table and its index; read back as text by
    ``database.session_id_text``."""
    db.execute("UPDATE sessions SET id = unhex(id) WHERE typeof(id) = 'text' AND lower(hex(unhex(id))) IS id")


def _m032_turns_without_chat(db: apsw.Connection) -> None:
    """A turn's chat is no longer stored: it is its session's, and its messages'."""
    db.execute("ALTER TABLE turns DROP COLUMN chat_seq")


def _m033_signatures_of_8_bytes(db: apsw.Connection) -> None:
    """A session's signature (``segment.signature``) keeps the first 8 of its 12 bytes: it tells a session's
    old turn structure from its new, which 64 bits do as well."""
    db.execute("UPDATE sessions SET signature = substr(signature, 1, 8) WHERE length(signature) > 8")


def _m040_long_texts_apart(db: apsw.Connection) -> None:
    """A text of more than ``LONG_TEXT`` characters is stored apart: a BLOB as the last column of a row of
    its own (``long_texts``), its message's text an empty BLOB. Written in place by blob I/O, it is never in
    SQLite's memory whole (in the message's row, two copies of it: bound or cast, and the row's record), and
    a change to its message's row (``chats merge``) does not rewrite it. A message deleted takes its long
    text with it (``Archive._delete_messages``). The long texts stored before are moved there a piece at a
    time."""
    db.execute(LONG_TEXTS)
    longer = fetch_all(
        db.execute(f"SELECT seq FROM messages WHERE NOT {apart()} AND octet_length(text) > ?", (LONG_TEXT,)),
        tuple[int],
    )
    for (seq,) in longer:
        with db.blob_open("main", "messages", "text", seq, False) as stored:
            size = stored.length()
            decoder = codecs.getincrementaldecoder("utf-8")()
            chars = sum(len(decoder.decode(stored.read(_MOVED))) for _ in range(0, size, _MOVED))
            if chars <= LONG_TEXT:
                continue
            db.execute(
                "INSERT INTO long_texts (seq, chars, text) VALUES (?, ?, zeroblob(?))", (seq, chars, size)
            )
            stored.seek(0)
            with db.blob_open("main", "long_texts", "text", seq, True) as moved:
                while piece := stored.read(_MOVED):
                    moved.write(piece)
        db.execute("UPDATE messages SET text = X'' WHERE seq = ?", (seq,))


def _m041_system_zone_named(db: apsw.Connection) -> None:
    """The system's zone is zoneinfo's where it names a zone of the tz database (``clock.system_zone``), and
    its fingerprint in an import's settings is the zone's name, no longer dateutil's offsets sampled weekly:
    a ledger entry written in the system's zone as it is now says so in the new way, so that an unchanged
    export is still known unchanged and a grown one still goes on from where it stopped. Entries written in
    another zone (another machine's, a ``--tz``) stay as they are, as a re-import there would write them."""
    if db.execute("SELECT 1 FROM imports WHERE settings LIKE '%; zone offsets:%' LIMIT 1").fetchone() is None:
        return  # nothing imported in a system zone the old way (a new archive): dateutil is not loaded
    from dateutil.tz import tzlocal

    from refind_cli.dates.clock import system_zone, zone_fingerprint

    old, new = zone_fingerprint(tzlocal()), zone_fingerprint(system_zone())
    if old != new:
        db.execute(
            "UPDATE imports SET settings = replace(settings, ?, ?) WHERE instr(settings, ?)",
            (f"; zone {old}; ", f"; zone {new}; ", f"; zone {old}; "),
        )


def _m042_long_raws_apart(db: apsw.Connection) -> None:
    """A raw record's rest (what ``raw.cut`` leaves of it) of more than ``LONG_TEXT`` characters is stored
    apart as a long text is (``_m040_long_texts_apart``): a BLOB as the last column of a row of its own
    (``long_raws``), its message's ``raw`` an empty BLOB (a rest shared with its chat is a key of one byte).
    A sigtop message quoting a 50-MB one is such a record: its text is short, and the record is held in a
    file from the reader to the archive (``HeldText``). The rests stored before stay in their rows, where
    every reader takes them as before: no command but the lossless rebuild reads them."""
    db.execute(LONG_RAWS)


def _m043_chats_keyed_and_counted(db: apsw.Connection) -> None:
    """A chat keeps the count of its sessions and of their turns on its row (``n_sessions``, ``n_turns``),
    kept exact where sessions are written and deleted (``Archive.store_sessions``, ``delete_sessions``, the
    only statements that change them after this migration): a re-import reports every chat of its export,
    and those it takes as they are (20,000 of ChatGPT's conversations) were counted from their 183,000
    sessions' rows each time (0.1-0.2 s of CPU). Chats are found by their source and key
    (``Archive.upsert_chat``): each new chat of an export looked for itself in every row of the table (3.4
    ms a chat among 20,000)."""
    db.execute("ALTER TABLE chats ADD COLUMN n_sessions INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE chats ADD COLUMN n_turns INTEGER NOT NULL DEFAULT 0")
    db.execute(
        "UPDATE chats SET n_sessions = s.n, n_turns = s.t FROM (SELECT chat_seq, count(*) AS n,"
        " sum(n_turns) AS t FROM sessions GROUP BY chat_seq) AS s WHERE chats.seq = s.chat_seq"
    )
    db.execute("CREATE INDEX IF NOT EXISTS chats_key ON chats (source, key)")


# Bytes of a long text moved at a time.
_MOVED = 1 << 20


def stand_in_senders(db: apsw.Connection) -> None:
    """For a connection that reads an archive as it stands: an empty table of senders in its own temporary
    space where the file has none yet (before m020 its rows hold names, so the SQL that reads keys finds
    none), or none where the file has its own now (another process migrated it), which the stand-in would
    hide."""
    held = db.execute("SELECT 1 FROM main.sqlite_schema WHERE name = 'senders'").fetchone() is not None
    standing = db.execute("SELECT 1 FROM temp.sqlite_schema WHERE name = 'senders'").fetchone() is not None
    if held and standing:
        db.execute("DROP TABLE temp.senders")
    elif not held and not standing:
        db.execute(SENDERS.format("temp."))


# Migrations after which the file is rewritten, to give back what they freed.
_SHRINKING = frozenset(
    {
        "m013_text_once",
        "m015_packed_uids",
        "m016_turns_by_messages",
        "m017_counts_in_week_order",
        "m018_written_times",
        "m019_shared_rests",
        "m020_senders_held_once",
        "m021_text_kind_implied",
        "m022_signatures_as_bytes",
        "m023_turns_as_runs",
        "m030_further_rests",
        "m031_session_ids_as_bytes",
        "m032_turns_without_chat",
        "m033_signatures_of_8_bytes",
    }
)


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
    ("m010_representable_times", _m010_representable_times),
    ("m011_resume_points", _m011_resume_points),
    ("m012_message_counts_batched", _m012_message_counts_batched),
    ("m013_text_once", _m013_text_once),
    ("m014_month_counts", _m014_month_counts),
    ("m015_packed_uids", _m015_packed_uids),
    ("m016_turns_by_messages", _m016_turns_by_messages),
    ("m017_counts_in_week_order", _m017_counts_in_week_order),
    ("m018_written_times", _m018_written_times),
    ("m019_shared_rests", _m019_shared_rests),
    ("m020_senders_held_once", _m020_senders_held_once),
    ("m021_text_kind_implied", _m021_text_kind_implied),
    ("m022_signatures_as_bytes", _m022_signatures_as_bytes),
    ("m023_turns_as_runs", _m023_turns_as_runs),
    ("m030_further_rests", _m030_further_rests),
    ("m031_session_ids_as_bytes", _m031_session_ids_as_bytes),
    ("m032_turns_without_chat", _m032_turns_without_chat),
    ("m033_signatures_of_8_bytes", _m033_signatures_of_8_bytes),
    ("m040_long_texts_apart", _m040_long_texts_apart),
    ("m041_system_zone_named", _m041_system_zone_named),
    ("m042_long_raws_apart", _m042_long_raws_apart),
    ("m043_chats_keyed_and_counted", _m043_chats_keyed_and_counted),
)


def applied_migrations(db: apsw.Connection) -> list[str]:
    """Names of the migrations an archive has had, in the order applied."""
    if (
        db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'migrations'").fetchone()
        is None
    ):
        return []
    return [r[0] for r in db.execute("SELECT name FROM migrations ORDER BY rowid")]


def migrate(db: apsw.Connection) -> None:
    """Apply the migrations an archive has not had, each in its own transaction with its record. An archive
    that has them all is not written to (so opening it does not wait for a writer)."""
    if len(applied_migrations(db)) == len(MIGRATIONS):
        return
    shrunk = False
    for name, step in MIGRATIONS:
        with immediate(db):
            # Checked again under the write lock: another process may have applied it meanwhile.
            db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied TEXT NOT NULL)")
            if db.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone() is None:
                step(db)
                db.execute(
                    "INSERT INTO migrations (name, applied) VALUES (?, ?)",
                    (name, datetime.now(UTC).isoformat(timespec="seconds")),
                )
                shrunk |= name in _SHRINKING
    if shrunk:
        vacuum(db)


def _tune(db: apsw.Connection) -> None:
    db.setbusytimeout(60_000)
    # 16 MB: an import appends to its tables, so a bigger cache only held more of the import's memory
    # (64 MB: main process 141 MB at the peak, 16 MB: 87 MB, the same CPU time; bench/RESULTS.md).
    db.execute("PRAGMA cache_size=-16384")
    db.execute("PRAGMA temp_store=MEMORY")


def _tune_reader(db: apsw.Connection) -> None:
    _tune(db)
    # One plan per statement whatever its parameters (the query planner stability guarantee): otherwise SQLite
    # marks a parameter of the turns' window as shaping the plan and prepares the 2 KB statement again at each
    # rebinding, 0.9M instructions a hit shown, 2 % of a cold search (bench/RESULTS.md, issue 26 item 3,
    # session 19). What it gives up needs a bound value to be worth it: a LIKE prefix, STAT4 samples, a partial
    # index; the archive has none of them. Writers keep SQLite's default.
    db.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, 1)


def connect(path: StrPath) -> apsw.Connection:
    # apsw rather than the standard library's sqlite3: it binds parameters in about half the time (writing a
    # million messages' rows: 9.8 s against 11-15, bench/RESULTS.md). Like sqlite3 with
    # isolation_level=None, it opens no transaction by itself.
    db = apsw.Connection(os.fspath(path))
    _tune(db)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    # Forgotten text must not linger in free pages.
    db.execute("PRAGMA secure_delete=ON")
    migrate(db)
    return db


def _empty() -> apsw.Connection:
    db = apsw.Connection(":memory:")
    migrate(db)
    return db


def connect_readonly(path: StrPath) -> apsw.Connection:
    """The archive for reading only. Where there is none yet, an empty one in memory (nothing is created);
    so too where the file holds no tables yet (its first import was stopped before it committed)."""
    if not os.path.exists(path):
        return _empty()
    db = apsw.Connection(os.fspath(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        _tune_reader(db)
        return _schema_or_empty(db)
    except (apsw.ReadOnlyError, apsw.CantOpenError):
        # A WAL archive in a folder this user cannot write: SQLite cannot create the shared-memory file
        # readers coordinate through. Nobody can be writing there either (a writer needs that file), so
        # the file is read as it stands, unless a write-ahead log holds commits not yet in it.
        db.close()
    if os.path.exists(wal := f"{path}-wal") and os.stat(wal).st_size:
        raise RefindError(
            f"{path}: cannot read the archive here: its write-ahead log needs a folder this user can write"
        )
    # Only a URI says immutable; it is imported here, not at the top (with ipaddress, urllib.parse is ~7 % of
    # a cold search's instructions), as this is the rare path.
    from urllib.parse import quote

    uri = f"file:{quote(os.fspath(path))}?mode=ro&immutable=1"
    db = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    _tune_reader(db)
    return _schema_or_empty(db)


def _schema_or_empty(db: apsw.Connection) -> apsw.Connection:
    if db.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'chats'").fetchone():
        stand_in_senders(db)
        return db
    db.close()
    return _empty()
