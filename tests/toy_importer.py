"""A toy export format, known to refind only through ``importers.register``: the proof that adding a format
is one module plus its registration. A ``.toy`` file is a first line ``TOYCHAT <name>`` and then one message
a line, ``<ISO time with offset>|<sender>|<text>``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from refind_cli.errors import InputError
from refind_cli.importers import Importer
from refind_cli.records import Chat, ChatExport, Message

FORMAT = "toy"
MAGIC = "TOYCHAT "

# Chats with an assistant: a question and its answer make one turn.
IMPORTER = Importer(FORMAT, __name__, takes=("file",), names=("*.toy",), pairing="exchange")


def sniff(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(MAGIC)) == MAGIC.encode()
    except OSError:
        return False


def read(path: Path, *, tz: tzinfo) -> Iterator[ChatExport]:
    lines = path.read_text(encoding="utf-8").splitlines()
    name = lines[0].removeprefix(MAGIC)
    messages = []
    for number, line in enumerate(lines[1:], start=2):
        stamp, sender, text = line.split("|", 2)
        try:
            when = datetime.fromisoformat(stamp)
        except ValueError:
            raise InputError(path, f"bad time {stamp!r}", f"line {number}") from None
        messages.append(Message(when.astimezone(UTC), sender, text, raw=line))
    yield ChatExport(Chat(FORMAT, name, name), messages)
