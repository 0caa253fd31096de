"""sigtop's text export of Signal Desktop (``sigtop export-messages``, one ``.txt`` per conversation), read for
the ``signal`` source (signal_logs.py hands such files here).

The layout, as sigtop's ``fmt_text.go`` writes it: a ``Conversation: NAME (detail)`` line and a blank line,
then one block per message: header fields ``From:`` (``You`` for the exporting person; absent on a
system message), ``Type:`` (``incoming``, ``outgoing``, or a system type such as ``group-v2-change``),
``Sent:`` and ``Received:`` (RFC 2822 dates with their offset, ``Mon, 2 Jan 2006 15:04:05 -0700``), any
``Attachment:``, ``Reaction:`` and ``Edited: N versions`` lines; then a quoted message as ``>`` lines, the body
after a blank line, an edited message's versions as ``|`` lines (the newest first); a blank line ends the
block. A block starts at a ``From:`` line followed by a ``Type:`` line, or at a ``Type:`` line followed by
another header field, after a blank line: a body line that looks like a header field is text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

from refind_cli.errors import InputError
from refind_cli.importers import container, linelog
from refind_cli.records import HELD, LONG_TEXT, Chat, ChatExport, HeldText, Kind, Message

OWN = "You"
_CONVERSATION = "Conversation: "
_FIELD = re.compile(r"(From|Type|Sent|Received|Attachment|Reaction|Edited): (.*)")
_FIRST_FIELDS = ("Sent", "Received", "Attachment", "Reaction", "Edited")
# A contact or group shown with its detail (number, username, id) in parentheses.
_DETAILED = re.compile(r"(?P<name>.*) \((?P<detail>[^()]*)\)")
_MESSAGE_TYPES = frozenset({"incoming", "outgoing"})


def sniff_lines(lines: list[str]) -> bool:
    """A ``Conversation:`` line, then a block's ``From:``/``Type:`` fields."""
    content = [line for line in lines if line.strip()]
    return (
        len(content) >= 3
        and content[0].removeprefix("\ufeff").startswith(_CONVERSATION)
        and _block_starts(content[1], content[2])
    )


def _block_starts(line: str, following: str | None) -> bool:
    m = _FIELD.fullmatch(line)
    if m is None or following is None:
        return False
    after = _FIELD.fullmatch(following)
    if m[1] == "From":
        return after is not None and after[1] == "Type"
    return m[1] == "Type" and after is not None and after[1] in _FIRST_FIELDS


def read(path: Path) -> ChatExport:
    """The file's one conversation; its messages read as consumed. A line longer than ``linelog.SPILL`` is
    given as a ``linelog.Cut`` (its middle in a file), read whole if it is a field's or blank; a message that
    holds one has its text, its record or both held in a file (``_message``)."""
    lines = _whole_unless_body(linelog.iter_lines(container.iter_file_chunks(path), path, held=True))
    first = next(lines, "").removeprefix("\ufeff")
    if not first.startswith(_CONVERSATION):
        raise InputError(
            path, f"not a sigtop export: expected a first line like {_CONVERSATION}NAME", "line 1"
        )
    shown = first.removeprefix(_CONVERSATION).strip()
    m = _DETAILED.fullmatch(shown)
    name = m["name"] if m else shown
    chat = Chat("signal", shown, name, "chat")
    return ChatExport(chat, _messages(path, lines))


def _whole_unless_body(lines: Iterator[str]) -> Iterator[str]:
    """A ``Cut`` line whose head is blank, or a header field (``_FIELD``: whose value would be read from its
    head), read whole: one only a body holds is read by its head."""
    for line in lines:
        if isinstance(line, linelog.Cut) and (not line.strip() or _FIELD.fullmatch(line)):
            yield line.whole()
        else:
            yield line


def _messages(path: Path, lines: Iterator[str]) -> Iterator[Message]:
    """Blocks, found with one line of look-ahead: a block is whole when the next starts or the file ends. A
    block's body longer than ``linelog.SPILL`` is gathered into one ``linelog.Cut`` as it is read."""
    block: list[str] = []
    body: int | None = None  # where the block's body starts, once it is looked for (``_body_start``)
    whole = False  # every line after the fields gathered: the body's start is not known (``_message``)
    size = 0  # the characters of the body's lines not gathered, newlines counted
    start = 0
    previous = ""  # the line before: a block starts after a blank line
    seen = False
    line = next(lines, None)
    number = 2
    while line is not None:
        following = next(lines, None)
        if not previous.strip() and _block_starts(line, following):
            if block:
                seen = True
                yield _message(path, start, block, whole)
            block, start, body, size, whole = [], number, None, 0, False
        elif not block and line.strip():
            raise InputError(path, "expected a message block starting with From: or Type:", f"line {number}")
        if block or line.strip():
            block.append(line)
            size += len(line) + 1
            if size > linelog.SPILL:  # a long body: held as one long line is
                # Its start looked for once (the fields and quote before it are read again for it). Where
                # there is none (an edited message's versions, a quote longer than a spill), every line after
                # the fields is gathered, once they have ended, and the text read from them again.
                if body is None:
                    found = _body_start(block)
                    fields = _fields_end(block)
                    body = found if found is not None else fields if fields < len(block) else None
                    whole = found is None
                if body is not None:
                    kept, size = linelog.gather(block[body:])
                    block[body:] = kept
        previous, line = line, following
        number += 1
    if block:
        seen = True
        yield _message(path, start, block, whole)
    if not seen:
        raise InputError(path, "has no messages; not a sigtop export")


def _body_start(block: list[str]) -> int | None:
    """Where the body of a block starts, after its fields and quote (``_after``); None for an edited
    message's versions, or a block whose quote has not ended yet."""
    i = _fields_end(block)
    if i + 1 < len(block) and block[i + 1].startswith("| Version: "):
        return None
    at = _after(block, i)
    return at if at < len(block) else None


def _fields_end(block: list[str]) -> int:
    """Where a block's header fields end."""
    return next((i for i, line in enumerate(block) if not _FIELD.fullmatch(line)), len(block))


def _message(path: Path, start: int, block: list[str], whole: bool = False) -> Message:
    """The message of a block. ``whole``: its lines after the fields are gathered (``_messages``)."""
    while block and linelog.is_blank(block[-1]):
        block.pop()  # the blank line that ends a block
    fields: dict[str, list[str]] = {}
    i = 0
    while i < len(block) and (m := _FIELD.fullmatch(block[i])):
        fields.setdefault(m[1], []).append(m[2])
        i += 1
    if whole and i < len(block):  # the lines gathered since, too
        block[i:] = [linelog.gathered(block[i:])]
    rest = block[i:]
    place = f"line {start}"
    when = _when(path, place, fields)
    kind_name = (fields.get("Type") or ["unknown"])[0]
    sender_field = fields["From"][0] if "From" in fields else None
    sender, sender_id = sender_field, None
    if sender_field is not None and (m := _DETAILED.fullmatch(sender_field)):
        sender, sender_id = m["name"], m["detail"]
    own = sender_field == OWN
    cut = any(isinstance(line, linelog.Cut) for line in rest)
    held = _held(block, i) if cut and not whole else None
    text: str | HeldText
    raw: str | HeldText
    if held is not None:
        text, raw = held
        kind = Kind.TEXT if kind_name in _MESSAGE_TYPES else Kind.SYSTEM
    else:
        # Where some lines are cut, the record is held in a file whole (not cut: where ``_held`` cannot hold
        # the text, the record holds the text's lines ``|``-prefixed, or other lines cut, a quote's), and the
        # text too where its own lines are cut, from the same lines (their files kept for the record).
        lines = block[i:]  # as ``_held`` left them (a body it gathered)
        first, end = _text_lines(lines)
        body = lines[first:end]
        if whole and lines:
            assert isinstance(lines[0], linelog.Cut)
            text = _text_read_again(path, start + i, lines[0])
        elif any(isinstance(line, linelog.Cut) for line in body):
            text = linelog.held_lines(
                body, [_prefix(line) for line in body] if _versioned(lines) else [], True
            )
        else:
            text = _body(lines)
        raw = linelog.held_lines(block) if cut else "\n".join(block)
        attachments = fields.get("Attachment", [])
        if kind_name not in _MESSAGE_TYPES:
            kind = Kind.SYSTEM
            text = text or kind_name
        elif not text and attachments:
            kind, text = Kind.ATTACHMENT, "\n".join(attachments)
        else:
            kind = Kind.TEXT
    return Message(when, sender, text, kind, None, sender_id, None, None, None, "Edited" in fields, raw, own)


def _text_read_again(path: Path, number: int, gathered: linelog.Cut) -> str | HeldText:
    """The text of a block whose lines after its fields (from line ``number`` on) are gathered into one cut
    line: its lines read again from it one at a time (``_text_of``), written to a file of their own as they
    come; held there where the text is longer than ``LONG_TEXT``. The gathered line's file is kept: the
    record is held from it."""
    lines = linelog.iter_lines(gathered.chunks(), path, line=max(number, 1), held=True)
    spool = linelog.Spool()
    for n, (line, skip) in enumerate(_text_of(lines)):
        spool.write(f"\n{line[skip:]}" if n else line[skip:])
        if isinstance(line, linelog.Cut):
            spool.add(line.spool)
            spool.write(line.tail)
    return spool.held("", "") if spool.chars > LONG_TEXT else spool.read()


def _text_of(lines: Iterator[str]) -> Iterator[tuple[str, int]]:
    """The lines of a message's text in a block's lines after its fields, read one at a time, each with the
    length of its ``|`` prefix (0 where it has none): ``_body``'s, the body after the quote or the newest
    version's (``_newest_body``, ``_after``)."""
    first, second = next(lines, ""), next(lines, None)
    if second is None or not second.startswith("| Version: "):
        rest = itertools.chain([] if second is None else [second], lines)
        return _after_each(((line, 0) for line in itertools.chain([first], rest)), False)
    return _after_each(_newest_each(second, lines), True)


def _newest_each(line: str | None, lines: Iterator[str]) -> Iterator[tuple[str, int]]:
    """The newest version's lines, from its ``| Version:`` line, each with its prefix's length: up to the
    first line not ``|``-prefixed, or the ``|`` line before the next version's ``| Version:`` line."""
    while line is not None and line.startswith("|"):
        following = next(lines, None)
        if (
            following is not None
            and following.startswith("|")
            and following[_prefix(following) :].startswith("Version: ")
            and _prefix(line) == len(line)
        ):
            return
        yield line, _prefix(line)
        line = following


def _after_each(lines: Iterator[tuple[str, int]], fields: bool) -> Iterator[tuple[str, int]]:
    """The lines after the fields (a version's, where ``fields``: up to the first empty line), one blank
    line, a quote's ``>`` lines and one blank line after them (``_after``), one at a time."""
    phase = "fields" if fields else "blank"
    for line, skip in lines:
        shown = line[skip:]
        if phase == "fields":
            phase = "quote" if not shown else phase
            continue
        if phase == "blank":
            phase = "quote"
            if not shown:
                continue
        if phase == "quote":
            phase = "quoted" if shown.startswith(">") else "body"
            if phase == "quoted":
                continue
        if phase == "quoted":
            if shown.startswith(">"):
                continue
            phase = "body"
            if not shown:
                continue
        yield line, skip


def _when(path: Path, place: str, fields: dict[str, list[str]]) -> datetime:
    """When it was sent; when it was received, where sigtop knows no sending time."""
    for name in ("Sent", "Received"):
        for value in fields.get(name, []):
            if value == "unknown":
                continue
            try:
                when = parsedate_to_datetime(value)
            except (TypeError, ValueError):
                raise InputError(path, f"unreadable {name} date {value!r}", place) from None
            if when.tzinfo is None or not linelog.YEARS[0] <= when.year <= linelog.YEARS[1]:
                raise InputError(path, f"unreadable {name} date {value!r}", place)
            return when.astimezone(UTC)
    raise InputError(path, "a message without a Sent or Received date", place)


def _held(block: list[str], fields: int) -> tuple[HeldText, str] | None:
    """The body of a block whose lines after its ``fields`` hold a ``Cut`` as a text held in a file, and its
    record holding ``HELD`` in its place; None where it cannot be: a cut line before the body (a quote's), a
    text no longer than ``LONG_TEXT`` (held ones are longer) or one that holds a marker ``raw.cut`` reads.
    An edited message's text is its newest version's body: held where that is one line, the block's only
    cut one (the record writes it after a ``|`` prefix, so the text is there as written). Where this cannot
    be, ``_message`` holds the record whole (and the text beside it where its lines are cut)."""
    if _versioned(block[fields:]):
        start, end = (fields + at for at in _newest_body(block[fields:]))
        body = block[start] if end == start + 1 else None
        if not isinstance(body, linelog.Cut) or sum(isinstance(line, linelog.Cut) for line in block) > 1:
            return None
        prefix = _prefix(body)
        head = str(body)[prefix:]
        before, after = "\n".join([*block[:start], body[:prefix]]), "\n".join(["", *block[end:]])
    else:
        at = _after(block, fields)
        if at >= len(block) or any(isinstance(line, linelog.Cut) for line in block[:at]):
            return None
        body = linelog.gathered(block[at:])
        block[at:] = [body]
        head, before, after = str(body), "\n".join([*block[:at], ""]), ""
    tail = body.tail
    if (
        len(head) + body.spool.chars + len(tail) <= LONG_TEXT
        or any(linelog.UNHELD.search(part) for part in (before, head, tail, after))
        or body.spool.holds(linelog.UNHELD_BYTES)
    ):
        return None
    return body.spool.held(head, tail), f"{before}{HELD}{after}"


def _body(lines: list[str]) -> str:
    """The message's text: its body after the quote, or its newest version's."""
    start, end = _text_lines(lines)
    if _versioned(lines):
        return "\n".join(line[_prefix(line) :] for line in lines[start:end])
    return "\n".join(lines[start:end])


def _text_lines(lines: list[str]) -> tuple[int, int]:
    """Where the lines the text is read from are in a block's lines after its fields (``_body``): its body
    after the quote (``_after``), or its newest version's (``_newest_body``)."""
    return _newest_body(lines) if _versioned(lines) else (_after(lines, 0), len(lines))


def _versioned(lines: list[str]) -> bool:
    """Whether a block's lines after its fields are an edited message's versions."""
    return lines[1:2] != [] and lines[1].startswith("| Version: ")


def _after(lines: list[str], i: int) -> int:
    """Where the body starts in ``lines`` after the fields that end at ``i``: after a blank line, the
    quote's ``>`` lines and a blank line if it quotes a message."""
    i += lines[i : i + 1] == [""]
    if i < len(lines) and lines[i].startswith(">"):
        while i < len(lines) and lines[i].startswith(">"):
            i += 1
        i += lines[i : i + 1] == [""]
    return i


def _newest_body(lines: list[str]) -> tuple[int, int]:
    """Where the newest version's body is in an edited message's ``lines`` (a block's lines after its
    fields): its first line and the one after its last. The versions are ``|``-prefixed blocks of fields and
    body (``_after``), the newest first; between two versions a ``|`` line."""
    end = 1
    while end < len(lines) and lines[end].startswith("|"):
        if (
            end > 1
            and lines[end][_prefix(lines[end]) :].startswith("Version: ")
            and _prefix(lines[end - 1]) == len(lines[end - 1])
        ):
            end -= 1
            break
        end += 1
    newest = [line[_prefix(line) :] for line in lines[1:end]]  # short: a long line is sliced to its head
    fields = next((i for i, line in enumerate(newest) if not line), len(newest))
    return 1 + _after(newest, fields), end


def _prefix(line: str) -> int:
    """The length of a version line's ``|`` prefix: ``| `` before text, ``|`` alone on an empty line."""
    return 2 if line.startswith("| ") else 1
