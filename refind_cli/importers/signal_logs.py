"""Signal chats as the tools that export them write them (the phone apps have no text export):

- signal-export's ``chat.md``: ``[YYYY-MM-DD HH:MM:SS] Name: text`` (older ``[YYYY-MM-DD, HH:MM]``), a quoted
  message as ``> `` lines, reactions appended as ``(- Name: 👍 -)``, attachments as ``[name](./media/…)``,
  stickers as ``(( 👍 ))``; ``Me`` is the exporting person. A ``chat.md`` is recognised by its name ending:
  WhatsApp's Swedish iOS stamps look the same;
- signal-export's ``data.json``: one JSON object a line, ``{date, sender, body, quote, sticker, reactions,
  attachments, deleted, call, missed}``, the date local ISO time;
- signalbackup-tools' text export: ``[Jan 05, 2024 14:22:01] <Sender> text``, status lines ``*** …``;
- sigtop's text export of Signal Desktop: ``Conversation:`` then ``From:``/``Type:``/``Sent:`` blocks, read by
  sigtop.py.

signal-export writes both files into one folder per chat, named after the chat: that folder is one export,
read from its ``chat.md``, so a chat is not imported twice; ``data.json`` is read when named.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

from refind_cli.errors import InputError
from refind_cli.importers import container, linelog, sigtop
from refind_cli.importers.linelog import TIME, Grammar, Head, Layout, pattern
from refind_cli.records import Chat, ChatExport, Kind, Mark, Message, NotResumable

FORMAT = "signal"

OWN = "Me"  # signal-export's name for the exporting person
CHAT_MD = "chat.md"
DATA_JSON = "data.json"
_DATA_KEYS = frozenset({"date", "sender", "body"})

_LAYOUTS = (
    Layout(
        message=pattern(
            rf"\[(?P<y>\d{{4}})-(?P<mo>\d\d)-(?P<d>\d\d),? {TIME}\] (?P<sender>[^:\n]*): ?(?P<text>.*)"
        ),
        suffixes=(".md",),
    ),
    Layout(
        message=pattern(
            rf"\[(?P<mon>[A-Z][a-z]{{2}}) (?P<d>\d{{1,2}}), (?P<y>\d{{4}}),? {TIME}\]"
            r" (?:<(?P<sender>[^>\n]*)> |\*\*\* ?)?(?P<text>.*)"
        ),
    ),
)

GRAMMAR = Grammar(
    what="a Signal chat export (signal-export or signalbackup-tools)",
    example="[2024-01-05 14:22:01] Name: text",
    layouts=_LAYOUTS,
    kinds={"(This message was deleted)": Kind.DELETED},
    kind_patterns=(
        (pattern(r"!?\[[^\]\n]*\]\(\./media/"), Kind.ATTACHMENT),
        (pattern(r"\(\( .* \)\)$"), Kind.MEDIA),
        (pattern(r"(?:Incoming|Outgoing|Missed) (?:voice |video )?call\b"), Kind.SYSTEM),
    ),
    own=frozenset({OWN}),
    trim=True,
)


def sniff(path: Path) -> bool:
    try:
        if path.is_dir():
            path = path / CHAT_MD
        if not container.is_file(path):
            return False
        lines = linelog.head_lines(linelog.file_head(path))
        if path.name.lower().endswith(".json"):
            return _data_head(lines)
        return sigtop.sniff_lines(lines) or linelog.sniff_lines(GRAMMAR, lines, path.suffix.lower())
    except Exception:  # sniffing looks at foreign files of any shape; none of them may stop detection
        return False


def read(path: Path, *, tz: tzinfo, after: Mark | None = None) -> Iterator[ChatExport]:
    """One chat per file, named after the folder signal-export wrote it into (signalbackup-tools: the
    file); read as consumed."""
    if path.is_dir():
        path = path / CHAT_MD
        if not container.is_file(path):
            raise InputError(path.parent, f"no {CHAT_MD} in this folder; not a signal-export chat folder")
    if _is_sigtop(path):
        yield sigtop.read(path)
        return
    folder_named = path.name.lower() in (CHAT_MD, DATA_JSON)
    told = "\n".join(linelog.head_lines(linelog.file_head(path)))  # the chat's first lines name its people
    name = container.unmarked(
        path.absolute().parent.name if folder_named else path.name.rsplit(".", 1)[0], told
    )
    if path.name.lower().endswith(".json"):
        if after is not None:
            raise NotResumable  # data.json is read whole
        chat = Chat(source=FORMAT, key=name, name=name, kind="chat")
        yield ChatExport(chat=chat, messages=_data_messages(path, tz))
        return

    def chat_of(head: Head) -> Chat:
        return Chat(source=FORMAT, key=name, name=name, kind=head.kind)

    yield linelog.read_file_log(GRAMMAR, path, tz, chat_of, after)


def _is_sigtop(path: Path) -> bool:
    """Whether a file starts as sigtop's do: a broken one is then told what sigtop's should look like."""
    content = (line for line in linelog.head_lines(linelog.file_head(path)) if line.strip())
    return next(content, "").removeprefix("\ufeff").startswith("Conversation: ")


# --- data.json ------------------------------------------------------------------------------------------


def _data_head(lines: list[str]) -> bool:
    first = next((line for line in lines if line.strip()), "")
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and record.keys() >= _DATA_KEYS


def _data_messages(path: Path, tz: tzinfo) -> Iterator[Message]:
    clock = linelog.Clock(tz)
    seen = False
    for number, line in enumerate(linelog.file_lines(path), 1):
        if not line.strip():
            continue
        seen = True
        yield _data_message(path, number, line, clock)
    if not seen:
        raise InputError(path, "has no messages; not a signal-export data.json")


def _data_message(path: Path, number: int, line: str, clock: linelog.Clock) -> Message:
    place = f"line {number}"
    try:
        record = json.loads(line)
    except ValueError as exc:
        raise InputError(
            path, f"not a JSON line ({exc.args[0]}); not a signal-export data.json", place
        ) from None
    if not isinstance(record, dict) or not record.keys() >= _DATA_KEYS:
        raise InputError(path, "expected an object with date, sender and body", place)
    date, sender, body = record["date"], record["sender"], record["body"]
    if not isinstance(date, str) or not isinstance(sender, str) or not isinstance(body, str):
        raise InputError(path, "date, sender and body must be strings", place)
    try:
        when = datetime.fromisoformat(date)
    except ValueError:
        raise InputError(path, f"date {date!r} cannot be read", place) from None
    if not linelog.YEARS[0] <= when.year <= linelog.YEARS[1]:
        raise InputError(path, f"date {date!r} is out of range", place)
    if when.tzinfo is None:
        instant = clock.at(
            (when.year, when.month, when.day),
            timedelta(
                hours=when.hour, minutes=when.minute, seconds=when.second, microseconds=when.microsecond
            ),
        )
    else:
        instant = when.astimezone(UTC)
    text = body.rstrip()  # signal-export pads every text with Markdown's line-break spaces
    sticker = record.get("sticker")
    attachments = record.get("attachments")
    kind = Kind.TEXT
    if record.get("deleted") is True:
        kind = Kind.DELETED
    elif record.get("call") or record.get("missed"):
        kind = Kind.SYSTEM
    elif not text and sticker:
        kind, text = Kind.MEDIA, sticker if isinstance(sticker, str) else ""
    elif not text and isinstance(attachments, list) and attachments:
        kind = Kind.ATTACHMENT
        text = "\n".join(str(a.get("name", "")) if isinstance(a, dict) else str(a) for a in attachments)
    local = f"{when:%Y-%m-%d %H:%M:%S}"
    return Message(
        instant, sender or None, text, kind, None, None, local, None, None, False, line, sender == OWN
    )
