"""Issue 24, item 4 (session 10): what a huge message costs is bounded by how many times it is held.

Import: the worker holds the last record of a file twice (as written and its text), not with the file's
text beside them; the writer keeps a text sent in pieces in a file and stores it a piece at a time, never
holding it whole. Reads that tell a chat's language, and the citations of an answer, take a bounded part
of the text. Python memory is measured with tracemalloc (exact, whatever the machine's load); SQLite's
own is not traced, so these bounds are about what Python holds.
"""

from __future__ import annotations

import json
import os
import pickle
import tracemalloc
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from refind_cli.agent.answer import Numbered, citation
from refind_cli.agent.events import AskResult, Citation, Usage
from refind_cli.frontends.render.ask import ask_json
from refind_cli.importers import read_export
from refind_cli.ingest import import_file
from refind_cli.ingest.chats import settle_languages
from refind_cli.ingest.rows import ChatPlan, Rows
from refind_cli.ingest.worker import PIECE, _texts_apart
from refind_cli.records import ChatInfo, Turn
from refind_cli.storage.archive import Archive
from refind_cli.text.snippet import JSON_CHARS

MB = 1 << 20
LINE = "all work and no play makes jack a dull boy "


def whatsapp(folder: Path, chars: int, after: str = "") -> tuple[Path, str]:
    """A chat whose last message (unless ``after`` follows it) is about ``chars`` characters long."""
    body = LINE * (chars // len(LINE))
    folder.mkdir(exist_ok=True)
    path = folder / "WhatsApp Chat with Jack.txt"
    path.write_text(f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n{after}")
    return path, body


def traced_peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_worker_holds_a_huge_last_message_twice_not_three_times(tmp_path: Path):
    path, body = whatsapp(tmp_path / "in", 8 * MB)
    plan = ChatPlan(1, "whatsapp:Jack", True, 1, frozenset(), 1, "burst", 3_600_000_000)
    sent: list[int] = []

    def send(event: object) -> None:
        sent.append(len(pickle.dumps(event, pickle.HIGHEST_PROTOCOL)))

    def read() -> None:  # the worker's part of an import (``serve_worker``), sending nowhere
        for export in read_export(path, "whatsapp", UTC):
            rows = Rows(plan, export.messages)
            for batch in rows:
                send(("messages", (_texts_apart(batch, send), rows.read)))

    peak = traced_peak(read)
    assert sum(sent) > len(body)  # the text went out, in pieces
    # Before: 3 times (the file's text in the reading window, the record as written, its text).
    assert peak < 2.5 * len(body), f"{peak / len(body):.2f} times the message"


def test_the_writer_stores_a_text_sent_in_pieces_without_holding_it_whole(tmp_path: Path):
    path, body = whatsapp(tmp_path / "in", 8 * MB, after="01/02/2024, 11:01 - Ann: ok\n")
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        result = None

        def run() -> None:
            nonlocal result
            result = import_file(archive, path, tz=UTC, worker=True)

        peak = traced_peak(run)
        assert result is not None and result.error is None
        assert [m.text for m in archive.stored_messages(1)] == ["hi", body, "ok"]
    # Before: the pieces and the text joined from them, twice the message, then bound whole. Now a piece
    # or two, beside what does not grow with the message (the ledger's 4-MB read buffer, modules).
    assert peak < len(body), f"{peak / len(body):.2f} times the message"
    assert os.listdir(home) == sorted(os.listdir(home))  # the spool left no file behind (it had no name)
    assert not [name for name in os.listdir(home) if name.startswith("tmp")]


def _telegram(path: Path, text: str) -> Path:
    message = {
        "id": 7,
        "type": "message",
        "date": "2024-02-01T11:00:00",
        "date_unixtime": "1706785200",
        "from": "Jack",
        "from_id": "user1",
        "text": text,
    }
    path.write_text(json.dumps({"name": "Jack", "type": "personal_chat", "id": 42, "messages": [message]}))
    return path


def test_a_huge_message_changed_under_its_id_is_kept_beside_the_first_when_sent_in_pieces(tmp_path: Path):
    first, second = "x" * (PIECE + 10), "x" * (PIECE + 9) + "y"
    with Archive.open(tmp_path / "home") as archive:
        for text in (first, second):
            result = import_file(archive, _telegram(tmp_path / "result.json", text), tz=UTC, worker=True)
            assert result.error is None
        stored = sorted((m.text, m.edited) for m in archive.stored_messages(1))
    assert stored == sorted([(first, False), (second, True)])


def test_telling_a_chat_language_reads_the_start_of_a_huge_message_only(tmp_path: Path):
    path, body = whatsapp(tmp_path / "in", 8 * MB)
    with Archive.open(tmp_path / "home") as archive:
        assert import_file(archive, path, tz=UTC, worker=False).error is None
        with archive.transaction():
            archive.set_chat_language(1, "", 0, False)  # not told yet: told again from the text
            # Before: every text read whole (the message, in Python, besides SQLite's copy).
            peak = traced_peak(lambda: settle_languages(archive, [1], None))
        assert archive.chat_language(1)[0] == "en"
    assert peak < len(body) / 8, f"{peak / len(body):.2f} times the message"


def test_latest_texts_gives_at_most_the_characters_asked_for(tmp_path: Path):
    path, body = whatsapp(tmp_path / "in", 300_000)
    with Archive.open(tmp_path / "home") as archive:
        assert import_file(archive, path, tz=UTC, worker=False).error is None
        assert list(archive.latest_texts(1, 1000)) == [body[:1000], "hi"]
        assert list(archive.latest_texts(1, len(body))) == [body, "hi"]


def _turn(text: str, length: int | None) -> Turn:
    when = datetime(2024, 2, 1, 11, tzinfo=UTC)
    return Turn("s1-1", "s1", 1, 1, 1, when, when, "Jack", text, length)


def _result(citations: list[Citation]) -> AskResult:
    return AskResult(
        "q?", "a [1]", tuple(citations), (), (), None, Usage(), "model", "done", datetime.now(UTC)
    )


@pytest.mark.parametrize(
    ("text", "length", "marked"),
    [
        ("short", None, None),
        (LINE * (JSON_CHARS // len(LINE) + 10), None, len(LINE) * (JSON_CHARS // len(LINE) + 10)),
        ("x" * 1000, 50_000_000, 50_000_000),  # a turn read only in part: its whole length
    ],
)
def test_a_citation_of_a_long_turn_says_it_is_only_its_start(text: str, length: int | None, marked):
    chat = ChatInfo(1, "whatsapp", "Jack", "Jack", "chat")
    cited = citation(Numbered(1, _turn(text, length), chat))
    [data] = ask_json(_result([cited]))["citations"]
    assert len(data["text"]) <= JSON_CHARS and text.startswith(data["text"])
    if marked is None:
        assert "truncated" not in data and data["text"] == text
    else:
        assert (data["truncated"], data["text_offset"], data["text_length"]) == (True, 0, marked)
