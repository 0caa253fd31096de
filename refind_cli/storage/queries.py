"""The archive's reads: chats and their languages, turns, windows and sessions for search and `show`, the
counts `refind stats` groups in SQL. Everything here only reads: ``Queries`` is what a reader needs of an
archive."""

from __future__ import annotations

# ``json`` is imported by the functions here that use it: a search opens the archive and needs none of it
# (loading it compiles five regular expressions; bench/RESULTS.md, issue 26 item 3, session 16).
import codecs
import itertools
import operator
from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime, timedelta

import apsw

from refind_cli.records import ChatInfo, Kind, Message, Turn
from refind_cli.storage import raw
from refind_cli.storage.database import (
    APART,
    BEFORE_ALL,
    QUARTER_US,
    apart,
    fetch_all,
    fetch_first,
    fetch_one,
    from_us,
    in_chunks,
    kind_name,
    sender_name,
    senders_in,
    seqs_of,
    session_id_forms,
    session_id_text,
    step_case,
)
from refind_cli.storage.schema import applied_migrations

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from refind_cli.listings import ChatSummary, SessionInfo
    from refind_cli.storage.written import Chatwide


# A turn's text is not stored: it is its messages' texts, a line each, each after its sender's name where
# the turn has more than one sender (an assistant chat's question and answer). Rebuilt here from the
# messages the turn lists, in its order (a turn of one message read directly; a run, ``database.stored_seqs``,
# as a range of seqs); an archive before m013 holds the same text in turns.text. About 3 us a turn (an index
# build of a million messages: +1.3 s). (One name has one key: senders are compared as stored.)
def _several(messages: str, order: str) -> str:
    return f"""(SELECT CASE WHEN min(coalesce(m.sender, '')) = max(coalesce(m.sender, ''))
        THEN group_concat(m.text, char(10) ORDER BY {order})
        ELSE group_concat(coalesce({sender_name("m.sender")}, '') || ': ' || m.text, char(10) ORDER BY {order}) END
    FROM {messages})"""


# A turn's first message's seq (CAST reads the number before the first comma or plus), and its last's: of a
# run, the first and how many follow; of a list, the number after the last comma (rtrim strips the digits
# back to it).
_FIRST_SEQ = "CAST(t.message_seqs AS INTEGER)"
_RUN = "instr(t.message_seqs, '+')"
_RUN_LAST = f"{_FIRST_SEQ} + CAST(substr(t.message_seqs, {_RUN} + 1) AS INTEGER)"
_LAST_SEQ = (
    f"CASE WHEN {_RUN} THEN {_RUN_LAST}"
    " ELSE CAST(substr(t.message_seqs, length(rtrim(t.message_seqs, replace(t.message_seqs, ',', ''))) + 1)"
    " AS INTEGER) END"
)
_MANY = "t.message_seqs GLOB '*[,+]*'"
_LISTED = "json_each('[' || t.message_seqs || ']') AS j JOIN messages m ON m.seq = j.value"
_SEVERAL = (
    f"CASE WHEN {_RUN} THEN {_several(f'messages m WHERE m.seq BETWEEN {_FIRST_SEQ} AND {_RUN_LAST}', 'm.seq')}"
    f" ELSE {_several(_LISTED, 'j.key')} END"
)
_TURN_TEXT = f"CASE WHEN {_MANY} THEN {_SEVERAL} ELSE f.text END"

# Nor are its times and speaker (since m016): its first message's time and sender (``f``) and its last
# message's time.
_TURNS = f"turns t JOIN messages f ON f.seq = {_FIRST_SEQ}"
_TURN_END = f"CASE WHEN {_MANY} THEN (SELECT ts FROM messages WHERE seq = {_LAST_SEQ}) ELSE f.ts END"
_SPEAKER = f"coalesce({sender_name('f.sender')}, '')"
_SESSION_ID = session_id_text("s.id")
_TURN_FIELDS = (
    f"{_SESSION_ID} || '-' || t.ordinal, {_SESSION_ID}, t.session_seq, f.chat_seq, t.ordinal, f.ts, {_TURN_END},"
    f" {_SPEAKER}"
)
_TURN_COLUMNS = f"{_TURN_FIELDS}, {_TURN_TEXT}"

# `show` (and MCP's get_context) reads at most this many characters of a turn's text, and its whole length:
# the segmenter's turn cap is the same (``segment.Caps.turn_chars``), so only a single longer message is cut,
# and a 50-MB message is no longer held, rendered and printed whole.
SHOWN_CHARS = 100_000
# A turn's text longer than wanted is a single message (the segmenter's caps bound a turn of several), and
# it is read this many bytes at a time (``_head``): SQLite loads a value whole to give it, or even its
# ``substr`` or ``length`` (65 and 116 MB for a 50-MB message), but not its ``octet_length``. Small, so that
# `show` holds little more than the characters it shows; 16 KB pieces cost a search of a 50-MB message 10 MB
# more RSS, 1 MB pieces the show 1 MB more Python memory (bench/RESULTS.md, issue 24).
_PIECE_BYTES = 1 << 16


def _longer(text: str, size: int) -> str:
    """SQL: whether a message's text (the column ``text``) is stored apart or is longer than ``size`` bytes,
    without loading it."""
    return f"({apart(text)} OR octet_length({text}) > {int(size)})"


def _turn_text_within(chars: int) -> str:
    """A turn's text, or NULL for a single message of more than ``chars`` bytes (then read by ``_head``),
    and its (first) message's seq; over ``_TURNS``."""
    single = f"CASE WHEN {_longer('f.text', chars)} THEN NULL ELSE f.text END"
    return f"CASE WHEN {_MANY} THEN {_SEVERAL} ELSE {single} END, f.seq"


def _index_rows_sql(chars: int) -> str:
    return (
        f"SELECT t.session_seq, t.ordinal, f.chat_seq, f.ts / 1000000, {_SPEAKER},"
        f" {_turn_text_within(chars)} FROM {_TURNS}"
    )


_ROW_TEXT = operator.itemgetter(4)


def _name(sender: str | bytes | None, names: dict[bytes, str]) -> str:
    """``_SPEAKER`` of a stored sender, with the senders table at hand."""
    name = names.get(sender) if isinstance(sender, bytes) else sender
    return name if name is not None else ""


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
        length=row[9] if len(row) > 9 else None,
    )


_EPOCH_DAY = date(1970, 1, 1)


def _month_step(day: int, step: int) -> int:
    """The first day of the month ``step`` months from the one that begins on ``day`` (days since epoch)."""
    at = _EPOCH_DAY + timedelta(days=day)
    year, month = divmod(at.year * 12 + at.month - 1 + step, 12)
    return (date(year, month + 1, 1) - _EPOCH_DAY).days


def _contains(text: str | None, needle: str) -> bool:
    return text is not None and needle in text.casefold()


class Queries:
    """Reads on the archive's connection; a chat's record is cached until a write or a new snapshot."""

    db: apsw.Connection
    _chats: dict[int, ChatInfo]
    _lang_column: bool

    def chat(self, seq: int) -> ChatInfo:
        info = self._chats.get(seq)
        if info is None:
            lang = "lang" if self._has_lang() else "''"
            row = fetch_one(
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
        from refind_cli.listings import ChatSummary  # a search does not build it

        where = f"WHERE c.source IN ({','.join('?' * len(sources))})" if sources is not None else ""
        has_lang = self._has_lang()
        rows = fetch_all(
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
        return dict(fetch_all(self.db.execute("SELECT seq, lang FROM chats"), tuple[int, str]))

    def chat_language(self, chat_seq: int) -> tuple[str, int, bool] | None:
        """The chat's language, its message count when that was decided, and whether the user gave it
        (None: no such chat, e.g. one deleted as empty)."""
        row = fetch_one(
            self.db.execute("SELECT lang, lang_basis, lang_given FROM chats WHERE seq = ?", (chat_seq,)),
            tuple[str, int, int],
        )
        return None if row is None else (row[0], row[1], bool(row[2]))

    def latest_texts(self, chat_seq: int, chars: int) -> Iterator[str]:
        """The first ``chars`` characters of each of the chat's text messages (no system, media or hidden
        records), latest first; a long one is read a piece at a time (``_head``), never whole."""
        for text, seq in self.db.execute(
            f"SELECT CASE WHEN {_longer('text', chars)} THEN NULL ELSE text END, seq FROM messages"
            " WHERE chat_seq = ? AND kind IN ('', ?) ORDER BY ts DESC",
            (chat_seq, Kind.TEXT),
        ):
            yield self._head(seq, chars)[0] if text is None else text[:chars]

    def chats_of_sources(self, sources: Sequence[str]) -> list[int]:
        marks = ",".join("?" * len(sources))
        return [
            r[0] for r in self.db.execute(f"SELECT seq FROM chats WHERE source IN ({marks})", tuple(sources))
        ]

    def match_chats(self, text: str) -> list[int]:
        """Chats for ``--chat``: an exact seq, key or name first; otherwise names containing the text."""
        needle = text.strip().lower()
        rows = fetch_all(self.db.execute("SELECT seq, key, name FROM chats"), tuple[int, str, str])
        exact = [seq for seq, key, name in rows if needle in (str(seq), key.lower(), name.lower())]
        return exact or [seq for seq, _key, name in rows if needle in name.lower()]

    def speakers(self) -> list[tuple[str, str | None, bool]]:
        """Every (name, sender id, whether any of its messages is the exporting person's own) the messages
        are from, as turns name their speakers: what ``--from`` matches. A scan of the messages, paid only by
        a search that asks for speakers. (An archive read before m008 knows no message as anyone's own.)"""
        own = "max(own)" if "own" in self._message_columns() else "0"
        # Grouped by the senders as stored first: a name is read once a group, not once a message.
        stored = f"SELECT sender, sender_id, {own} AS mine FROM messages GROUP BY 1, 2"
        return [
            (name, sid, bool(mine))
            for name, sid, mine in fetch_all(
                self.db.execute(
                    f"SELECT coalesce({sender_name('sender')}, ''), sender_id, max(mine) FROM ({stored})"
                    " GROUP BY 1, 2"
                ),
                tuple[str, str | None, int],
            )
        ]

    def message_count(self, chat_seq: int) -> int:
        return fetch_first(
            self.db.execute("SELECT count(*) FROM messages WHERE chat_seq = ?", (chat_seq,)), tuple[int]
        )[0]

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
        needle = None if matching is None else matching.casefold()
        if needle is not None:
            # apsw types a scalar function as taking any SQLite values; this one is only called with a text
            # column and a bound str.
            self.db.create_scalar_function("refind_contains", _contains, 2, deterministic=True)  # type: ignore[arg-type]
            # A long text is not handed to the function (SQLite would load it, Python copy it and fold the
            # copy: three times a 50-MB message): it is a candidate, read in pieces below.
            where.append(
                f"CASE WHEN {_longer('text', _PIECE_BYTES)} THEN 1 ELSE refind_contains(text, ?) END"
            )
            args.append(needle)
        rows = fetch_all(
            self.db.execute(
                f"SELECT seq, chat_seq, ts, {_longer('text', _PIECE_BYTES)} FROM messages"
                f" WHERE {' AND '.join(where) or '1'} ORDER BY ts",
                args,
            ),
            tuple[int, int, int, int | None],
        )
        return [
            (seq, chat_seq, ts)
            for seq, chat_seq, ts, long in rows
            if needle is None or not long or self._holds(seq, needle)
        ]

    def _holds(self, message_seq: int, needle: str) -> bool:
        """Whether a message's text, case-folded, holds ``needle``: read ``_PIECE_BYTES`` at a time (case
        folding maps each character on its own, so the text's folding is its pieces' foldings joined)."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        tail = ""  # the end of the text folded so far, where a needle cut by a piece's end begins
        keep = max(len(needle) - 1, 0)
        with self._text_blob(message_seq) as blob:
            while piece := blob.read(_PIECE_BYTES):
                folded = tail + decoder.decode(piece).casefold()
                if needle in folded:
                    return True
                tail = folded[max(len(folded) - keep, 0) :] if keep else ""
        return False

    def stored_messages(self, chat_seq: int) -> Iterator[Message]:
        """A chat's messages as its exports gave them, every field and the raw record (``raw.joined``), in
        the order they were stored: what the lossless promise keeps."""
        columns = self._message_columns()
        form = "raw_form" if "raw_form" in columns else "NULL"  # an archive read before m013
        own = "own" if "own" in columns else "0"
        wall = "wall" if "wall" in columns else "NULL"  # before m018
        wide = self.chatwide(chat_seq)
        # Message's fields in its order, then how to rebuild the record.
        rows = self.db.execute(
            f"SELECT ts, {sender_name('sender')}, text, {kind_name('kind')}, source_id, sender_id, local_time, thread, reply_to,"
            f" edited, raw, {own}, {form}, {wall}, seq FROM messages WHERE chat_seq = ? ORDER BY seq",
            (chat_seq,),
        )
        for row in rows:
            if not isinstance(row[2], str):
                row = (*row[:2], self._text_apart(row[14]), *row[3:])
            if row[10] == APART:
                row = (*row[:10], self._text_apart(row[14], "long_raws", "raw"), *row[11:])
            written = row[6] if row[13] is None else wide.written_time(row[0], row[13])
            rest = wide.record_rest(row[10], row[12])
            record = raw.joined(rest, row[12], (row[2], written, row[1], row[5]))
            yield Message._make(
                (from_us(row[0]), *row[1:6], written, row[7], row[8], bool(row[9]), record, bool(row[11]))
            )

    def chatwide(self, chat_seq: int) -> Chatwide:
        """What the chat holds once for its messages' rows (nothing before m018)."""
        from refind_cli.storage.written import Chatwide  # here: a search never reads written times

        columns = {r[1] for r in self.db.execute("PRAGMA table_info(chats)")}
        if "written" not in columns:
            return Chatwide(None, None)
        rests = "rests" if "rests" in columns else "NULL"  # before m030
        return Chatwide.loads(
            *fetch_first(
                self.db.execute(f"SELECT written, rest, {rests} FROM chats WHERE seq = ?", (chat_seq,)),
                tuple[str, str | None, str | None],
            )
        )

    def _message_columns(self) -> set[str]:
        return {r[1] for r in self.db.execute("PRAGMA table_info(messages)")}

    def integrity_problems(self) -> list[str]:
        try:
            rows = [r[0] for r in self.db.execute("PRAGMA integrity_check")]
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            return [str(exc)]  # damaged where even the check cannot read
        return [] if rows == ["ok"] else rows

    def iter_turns(self, session_seqs: Iterable[int] | None = None) -> Iterator[Turn]:
        """Every turn, its text whole."""
        sql = f"SELECT {_TURN_COLUMNS}, f.seq FROM {_TURNS} JOIN sessions s ON s.seq = t.session_seq"
        for *fields, text, seq in self._of_sessions(sql, "t.session_seq", "t.ordinal", session_seqs):
            yield _turn((*fields, text if isinstance(text, str) else self._text_apart(seq)))

    def index_rows(
        self,
        session_seqs: Iterable[int] | None,
        *,
        chars: int,
        between: tuple[int, int] = (BEFORE_ALL, -BEFORE_ALL),
    ) -> Iterator[tuple[int, int, int, int, str, str]]:
        """What the index needs of each turn, as plain tuples (session_seq, ordinal, chat_seq, start in epoch
        seconds, speaker, the first ``chars`` characters of its text): building ``Turn`` records with
        datetimes cost more than the indexing. ``session_seqs`` None: every turn of the sessions whose seqs
        lie ``between`` the two given."""
        if session_seqs is None:
            return self._every_index_row(chars, between)
        rows = self._of_sessions(_index_rows_sql(chars), "t.session_seq", "t.ordinal", session_seqs)
        return (row[:-1] for row in self._within(rows, chars))

    def _every_index_row(
        self, chars: int, between: tuple[int, int]
    ) -> Iterator[tuple[int, int, int, int, str, str]]:
        """``index_rows`` of every turn (of the sessions ``between``), the same rows, from one pass over the
        messages in seq order beside the turns, from the first turn's first message on: a turn's messages
        are taken where the pass is (a fresh import's turns list them in that order), else looked up.
        Rebuilding each turn's text in SQL, a lookup and a grouping a turn, was half of the analysing
        process of a million messages' index (bench/RESULTS.md, issue 26 item 2, session 13)."""
        names = dict(fetch_all(self.db.execute("SELECT key, name FROM senders"), tuple[bytes, str]))
        select = (
            f"SELECT seq, chat_seq, ts, sender, CASE WHEN {_longer('text', chars)} THEN NULL ELSE text END"
            " FROM messages"
        )
        turns = self.db.cursor().execute(
            "SELECT session_seq, ordinal, message_seqs FROM turns WHERE session_seq BETWEEN ? AND ?"
            " ORDER BY session_seq, ordinal",
            between,
        )
        head = next(turns, None)
        if head is None:
            return
        scan = self.db.cursor().execute(f"{select} WHERE seq >= ? ORDER BY seq", (seqs_of(head[2])[0],))
        at = next(scan, None)
        try:
            for sess, ordinal, stored in itertools.chain((head,), turns):
                # The turn's messages: its first where the pass is, the rest after it (a run, "12+2": as many
                # rows as it holds, ending at its last seq), else each looked up.
                first, _, more = stored.partition("+")
                seq = int(first) if first.isdigit() else seqs_of(stored)[0]
                while at is not None and at[0] < seq:
                    at = next(scan, None)
                if at is not None and at[0] == seq and (more or first.isdigit()):
                    rows = [at]
                    if more:
                        rows += itertools.islice(scan, int(more))
                    at = next(scan, None)
                    if rows[-1][0] != seq + len(rows) - 1 or len(rows) != (int(more) + 1 if more else 1):
                        rows = self._rows_of(select, seqs_of(stored))
                else:
                    rows = self._rows_of(select, seqs_of(stored))
                if not rows or rows[0][0] != seq:
                    continue  # its first message is gone: the query's join finds none
                seq, chat, us, sender, text = rows[0]
                if len(rows) > 1:
                    texts = list(map(_ROW_TEXT, rows))
                    if None in texts:
                        # A text stored apart, or longer than ``chars``, in a turn of several (none the
                        # segmenter's caps make): read as the query reads it.
                        sql = f"{_index_rows_sql(chars)} WHERE t.session_seq = ? AND t.ordinal = ?"
                        yield from (
                            row[:-1] for row in self._within(self.db.execute(sql, (sess, ordinal)), chars)
                        )
                        continue
                    if len({row[3] if row[3] is not None else "" for row in rows}) == 1:
                        text = "\n".join(texts)
                    else:
                        text = "\n".join([f"{_name(row[3], names)}: {row[4]}" for row in rows])
                elif text is None:
                    text = self._head(seq, chars)[0]
                if len(text) > chars:
                    text = text[:chars]
                # SQLite's integer division truncates toward zero.
                ts = us // 1_000_000 if us >= 0 else -(-us // 1_000_000)
                speaker = names.get(sender) if type(sender) is bytes else sender
                yield sess, ordinal, chat, ts, speaker if speaker is not None else "", text
        finally:
            scan.close()  # rows may follow the last turn's (hidden ones): the statement ends with the pass

    def _rows_of(self, select: str, seqs: list[int]) -> list[tuple]:
        """The rows of ``select`` of these messages, in this order, those that exist."""
        rows = (self.db.execute(f"{select} WHERE seq = ?", (seq,)).fetchone() for seq in seqs)
        return [row for row in rows if row is not None]

    def _within(self, rows: Iterable[Sequence], chars: int) -> Iterator[tuple]:
        """Rows ending in ``_turn_text_within(chars)``'s two columns, with those as (at most ``chars``
        characters of the turn's text, its whole length where that is longer, else None)."""
        for *fields, text, seq in rows:
            if text is None:
                text, length = self._head(seq, chars)
            elif len(text) > chars:
                text, length = text[:chars], len(text)
            else:
                length = None
            yield (*fields, text, length)

    def _text_blob(self, message_seq: int) -> apsw.Blob:
        """A message's text as stored, to read in pieces: in its row, or apart (``database.LONG_TEXT``)."""
        held = fetch_first(
            self.db.execute(f"SELECT {apart()} FROM messages WHERE seq = ?", (message_seq,)), tuple[int]
        )
        return self.db.blob_open("main", "long_texts" if held[0] else "messages", "text", message_seq, False)

    def _text_apart(self, message_seq: int, table: str = "long_texts", column: str = "text") -> str:
        """A text (or a raw record's rest) stored apart, whole: for the reader that gives or compares every
        field."""
        with self.db.blob_open("main", table, column, message_seq, False) as blob:
            stored = blob.read()
        return stored.decode()

    def _head(self, message_seq: int, chars: int) -> tuple[str, int | None]:
        """The first ``chars`` characters of a message's text, and its whole length in characters where that
        is more: read ``_PIECE_BYTES`` at a time, so a 50-MB message costs a piece of memory, not 50 MB."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        head: list[str] = []
        kept = length = 0
        with self._text_blob(message_seq) as blob:
            while piece := blob.read(_PIECE_BYTES):
                if kept < chars:
                    text = decoder.decode(piece)
                    head.append(text[: chars - kept])
                    kept += len(head[-1])
                    length += len(text)
                else:
                    # A piece of ASCII holds no character cut in two (a cut one leaves bytes over 127).
                    length += len(piece) if piece.isascii() else len(decoder.decode(piece))
        return "".join(head), length if length > kept else None

    def _of_sessions(
        self, sql: str, session_column: str, ordinal_column: str, session_seqs: Iterable[int] | None
    ) -> Iterator[tuple]:
        """Rows of ``sql`` for all sessions or the given ones, in session and turn order."""
        order = f" ORDER BY {session_column}, {ordinal_column}"
        if session_seqs is None:
            yield from self.db.execute(sql + order)
            return
        for part, marks in in_chunks(sorted(set(session_seqs))):
            yield from self.db.execute(f"{sql} WHERE {session_column} IN ({marks}){order}", part)

    def window(self, session_seq: int, lo: int, hi: int, *, chars: int) -> list[Turn]:
        """The session's turns from ordinal ``lo`` to ``hi``, each with at most ``chars`` characters of its
        text (``Turn.length``: the whole text's, where it is longer)."""
        rows = self.db.execute(
            f"SELECT {_TURN_FIELDS}, {_turn_text_within(chars)} FROM {_TURNS}"
            " JOIN sessions s ON s.seq = t.session_seq"
            " WHERE t.session_seq = ? AND t.ordinal BETWEEN ? AND ? ORDER BY t.ordinal",
            (session_seq, lo, hi),
        )
        return [_turn(r) for r in self._within(rows, chars)]

    def turns(self, turn_ids: Iterable[str]) -> dict[str, Turn]:
        """The turns of these ids as `show` has them: at most ``SHOWN_CHARS`` of each text."""
        out: dict[str, Turn] = {}
        for turn_id in dict.fromkeys(turn_ids):
            sid, _, ordinal = turn_id.rpartition("-")
            if not ordinal.isdigit():
                continue
            rows = self.db.execute(
                f"SELECT {_TURN_FIELDS}, {_turn_text_within(SHOWN_CHARS)} FROM {_TURNS}"
                " JOIN sessions s ON s.seq = t.session_seq WHERE s.id IN (?, ?) AND t.ordinal = ?",
                (*session_id_forms([sid]), int(ordinal)),
            )
            for row in self._within(rows, SHOWN_CHARS):
                out[turn_id] = _turn(row)
        return out

    def session_seqs(self, session_ids: Iterable[str]) -> dict[str, int]:
        ids = list(dict.fromkeys(session_ids))
        out: dict[str, int] = {}
        for part, marks in in_chunks(session_id_forms(ids)):
            out.update(
                self.db.execute(
                    f"SELECT {session_id_text('id')}, seq FROM sessions WHERE id IN ({marks})", part
                )
            )
        return out

    def session(self, session_id: str) -> SessionInfo | None:
        from refind_cli.listings import SessionInfo  # a search does not build it

        row = self.db.execute(
            f"SELECT seq, {session_id_text('id')}, chat_seq, start_ts, end_ts, n_turns, n_messages FROM sessions"
            " WHERE id IN (?, ?)",
            session_id_forms([session_id]),
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
        row = fetch_one(
            self.db.execute(
                f"SELECT {session_id_text('id')} FROM sessions WHERE chat_seq IN ({marks}) AND end_ts >= ?"
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
            row = fetch_one(
                self.db.execute(
                    f"""SELECT {session_id_text("n.id")} FROM sessions s JOIN sessions n ON n.chat_seq = s.chat_seq
                    WHERE s.id IN (?, ?) AND (n.start_ts, n.seq) {op} (s.start_ts, s.seq)
                    ORDER BY n.start_ts {order}, n.seq {order} LIMIT 1""",
                    session_id_forms([session_id]),
                ),
                tuple[str],
            )
            found.append(None if row is None else row[0])
        return found[0], found[1]

    def session_turns(self, session_id: str) -> list[Turn]:
        """The session's turns as `show` has them: at most ``SHOWN_CHARS`` of each text."""
        rows = self.db.execute(
            f"SELECT {_TURN_FIELDS}, {_turn_text_within(SHOWN_CHARS)} FROM {_TURNS}"
            " JOIN sessions s ON s.seq = t.session_seq WHERE s.id IN (?, ?) ORDER BY t.ordinal",
            session_id_forms([session_id]),
        )
        return [_turn(r) for r in self._within(rows, SHOWN_CHARS)]

    def turn_source_ids(self) -> dict[str, frozenset[str]]:
        """Each turn's messages' own source ids (benchmarks map their evidence ids through this)."""
        sources = dict(self.db.execute("SELECT seq, source_id FROM messages"))
        rows = self.db.execute(
            f"SELECT {_SESSION_ID} || '-' || t.ordinal, t.message_seqs FROM turns t"
            " JOIN sessions s ON s.seq = t.session_seq"
        )
        return {tid: frozenset(sources[m] for m in seqs_of(seqs)) for tid, seqs in rows}

    def session_threads(self) -> dict[str, str | None]:
        """Session id -> the explicit thread key it was built from (None for silence-split sessions)."""
        return dict(self.db.execute(f"SELECT {session_id_text('id')}, thread FROM sessions"))

    def has_turns(self) -> bool:
        return self.db.execute("SELECT 1 FROM turns LIMIT 1").fetchone() is not None

    def has_chats(self) -> bool:
        return self.db.execute("SELECT 1 FROM chats LIMIT 1").fetchone() is not None

    def time_span(self) -> tuple[datetime, datetime] | None:
        lo, hi = fetch_first(
            self.db.execute("SELECT min(start_ts), max(end_ts) FROM sessions"), tuple[int | None, int | None]
        )
        return None if lo is None or hi is None else (from_us(lo), from_us(hi))

    def counts(self) -> dict[str, int]:
        def q(sql: str) -> int:
            return fetch_first(self.db.execute(sql), tuple[int])[0]

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
            where.append(senders_in("sender", len(senders)))
            args.extend([*senders, *senders])
        if counted:  # the bounds fall on quarter hours (_counted)
            bounds = [(">=", None if since is None else since // QUARTER_US)]
            bounds.append(("<", None if until is None else (until + 1) // QUARTER_US))
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
        its quarter hour's). The zone's changes are searched as a tree (``step_case``)."""
        # A quarter hour is compared and scaled as it is, not as microseconds (a third less per row).
        column, unit, quarter = ("quarter", 900, True) if counted else ("ts", 1_000_000, False)
        changes = [(at // 900 if quarter else at * 1_000_000, offset) for at, offset in offsets]
        seconds = f"{column} * {unit}" if quarter else f"{column} / {unit}"
        return f"({seconds} + {step_case(column, changes) if offsets else 0})"

    def _counted(
        self, offsets: Sequence[tuple[int, int]], since: int | None, until: int | None, first: int
    ) -> bool:
        """Whether message_counts answers exactly: the table is there (a read-only open of an archive the
        migrations have not reached reads the messages), the zone's offsets and changes and the range's
        bounds all fall on quarter hours, and nothing selected is older than 1970 (not counted)."""
        quarter = QUARTER_US // 1_000_000
        return (
            first >= 0
            and (since is None or since % QUARTER_US == 0)
            and (until is None or (until + 1) % QUARTER_US == 0)
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
            first, last = fetch_first(
                self.db.execute(f"SELECT min(ts), max(ts) FROM messages WHERE {where}", params),
                tuple[int | None, int | None],
            )
            return None if first is None or last is None else (first, last)
        args: dict[str, int] = {"lo": BEFORE_ALL if since is None else since, "hi": -BEFORE_ALL}
        if until is not None:
            args["hi"] = until
        where = ""
        if chats is not None:
            args |= {f"c{i}": seq for i, seq in enumerate(chats)}
            where = f"WHERE seq IN ({','.join(f':c{i}' for i in range(len(chats)))})"
        in_range = "FROM messages WHERE chat_seq = c.seq AND ts BETWEEN :lo AND :hi"
        lo, hi = fetch_first(
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
        month = step_case("day", [(m, m) for m in months]) if months else "day"
        if counted and months and "m014_month_counts" in applied_migrations(self.db):
            return self._months_counted(chats, since, until, offsets, senders, months, month)
        where, args = self._stats_where(chats, since, until, senders, counted)
        local = self._local_seconds(offsets, counted)
        per_day = (
            f"SELECT {local} / 86400 AS day, CASE WHEN named THEN sender END AS who, kind, sum(n) AS n"
            f" FROM message_counts WHERE {where} GROUP BY day, who, kind"
            if counted
            else f"SELECT {local} / 86400 AS day, sender AS who, kind, count(*) AS n FROM messages WHERE {where}"
            " GROUP BY day, who, kind"
        )
        return fetch_all(
            self.db.execute(
                f"SELECT {month} AS month, {sender_name('who')}, {kind_name('kind')}, sum(n) FROM ({per_day})"
                " GROUP BY month, who, kind",
                args,
            ),
            tuple[int, str | None, str, int],
        )

    def _months_counted(
        self,
        chats: Sequence[int] | None,
        since: int | None,
        until: int | None,
        offsets: Sequence[tuple[int, int]],
        senders: Sequence[str] | None,
        months: Sequence[int],
        month: str,
    ) -> list[tuple[int, str | None, str, int]]:
        """``messages_per_month`` from month_counts: each UTC month wholly in the range as counted there,
        but the messages of the quarter hours at its ends that the zone moves into the month before or after
        (read from the messages) taken out of it and put into their local month; the messages of a month the
        range only partly covers read each into its local month."""
        import json

        quarter = QUARTER_US // 1_000_000
        per_day = 86400 // quarter
        back = max(0, -min(o for _, o in offsets)) // quarter  # quarters a zone west of UTC moves back
        ahead = max(0, max(o for _, o in offsets)) // quarter
        # UTC months from the one before the first local month to the one after the last (days since epoch).
        starts = [_month_step(months[0], -1)]
        while starts[-1] <= months[-1]:
            starts.append(_month_step(starts[-1], 1))
        starts.append(_month_step(starts[-1], 1))
        lo = None if since is None else since // QUARTER_US
        hi = None if until is None else (until + 1) // QUARTER_US  # exclusive
        whole = [
            (start, end)
            for start, end in itertools.pairwise(starts)
            if (lo is None or lo <= start * per_day) and (hi is None or end * per_day <= hi)
        ]
        # (first quarter, quarter after the last, UTC month the counts hold them under or None)
        ranges: list[tuple[int | None, int | None, int | None]] = []
        for start, end in whole:
            first_q, end_q = start * per_day, end * per_day
            ranges.append((first_q, first_q + back, start))
            ranges.append((max(end_q - ahead, first_q + back), end_q, start))
        outside = [(lo, hi)] if not whole else [(lo, whole[0][0] * per_day), (whole[-1][1] * per_day, hi)]
        ranges.extend(
            (a, b, None) for a, b in outside if not (a is None and whole) and not (b is None and whole)
        )
        where, args = self._stats_where(chats, None, None, senders)
        which = "1" if chats is None else f"seq IN ({','.join('?' * len(chats))})"
        local = self._local_seconds(offsets)
        first_month, last_month = (whole[0][0], whole[-1][0]) if whole else (1, 0)
        # The ranges drive the reads (CROSS JOIN fixes the order): each is one seek per chat into the
        # messages' (chat, time) index; a few hours a month.
        sql = f"""
            WITH ranges(lo, hi, utc) AS (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)),
            moved AS MATERIALIZED (
                SELECT r.utc, {local} / 86400 AS day, sender AS who, kind, 1 AS n
                FROM ranges r CROSS JOIN (SELECT seq FROM chats WHERE {which}) ch CROSS JOIN messages
                    ON chat_seq = ch.seq AND ts >= r.lo AND ts < r.hi
                WHERE {where})
            SELECT month, {sender_name("who")}, {kind_name("kind")}, sum(n) FROM (
                SELECT month, CASE WHEN named THEN sender END AS who, kind, n FROM month_counts
                    WHERE month BETWEEN ? AND ? AND {where}
                UNION ALL SELECT {month} AS month, who, kind, n FROM moved
                UNION ALL SELECT utc, who, kind, -n FROM moved WHERE utc IS NOT NULL)
            GROUP BY month, who, kind HAVING sum(n) != 0"""
        params = [
            json.dumps(
                [
                    (
                        BEFORE_ALL if a is None else a * QUARTER_US,
                        -BEFORE_ALL if b is None else b * QUARTER_US,
                        utc,
                    )
                    for a, b, utc in ranges
                    if a is None or b is None or a < b
                ]
            ),
            *(chats or ()),
            *args,
            first_month,
            last_month,
            *args,
        ]
        return fetch_all(self.db.execute(sql, params), tuple[int, str | None, str, int])

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
        if counted and "m017_counts_in_week_order" in applied_migrations(self.db):
            return self._hours_counted(where, args, offsets)
        # One expression, so the zone's CASE runs once a row; 1970-01-01 was a Thursday, 72 hours past Monday.
        hour = f"({self._local_seconds(offsets, counted)} / 3600 + 72) % 168"
        # The counts of a quarter hour summed first, in the table's own order (no sort): 511,000 rows of the
        # bench's archive are 318,000 quarter hours, which the sort for the hours of the week then takes.
        sql = (
            f"SELECT {hour} AS h, sum(n) FROM (SELECT quarter, sum(n) AS n FROM message_counts WHERE {where}"
            " GROUP BY chat_seq, quarter) GROUP BY h"
            if counted
            else f"SELECT {hour} AS h, count(*) FROM messages WHERE {where} GROUP BY h"
        )
        return fetch_all(self.db.execute(sql, args), tuple[int, int])

    def _hours_counted(
        self, where: str, args: Sequence[object], offsets: Sequence[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        """``messages_per_hour`` from message_counts in its order (a chat's quarters by their place in the UTC
        week): per place, a sum for each offset the zone has then, with no sort; the places are then moved by
        their offsets into local hours of the week."""
        distinct = sorted({offset for _, offset in offsets})
        # The first offset's sum is what the others leave of the whole: the zone's CASE (a tree of its
        # changes) runs once a row fewer, for a zone with summer time once.
        offset = step_case("quarter", [(at // 900, o) for at, o in offsets])
        sums = "".join(f", sum(CASE WHEN {offset} = {o} THEN n END)" for o in distinct[1:])
        heat = [0] * 168
        rows = self.db.execute(
            f"SELECT qow, sum(n){sums} FROM message_counts WHERE {where} GROUP BY chat_seq, qow", args
        )
        for qow, total, *others in rows:
            counts = [total - sum(n or 0 for n in others), *others]
            for o, n in zip(distinct, counts, strict=True):
                if n:
                    # 1970-01-01 (the week's place 0) was a Thursday, 72 hours past Monday.
                    heat[((qow * 900 + o) // 3600 + 72) % 168] += n
        return [(h, n) for h, n in enumerate(heat) if n]

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
        return fetch_all(
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
