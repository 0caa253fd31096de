"""Signal chats as signal-export (chat.md, new and old stamps; data.json) and signalbackup-tools write them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from linelog_fixtures import FIXTURES, load, rows

from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.importers import signal_logs, whatsapp
from refind_cli.records import Kind

T, M, S, A, D = Kind.TEXT, Kind.MEDIA, Kind.SYSTEM, Kind.ATTACHMENT, Kind.DELETED
BERLIN = ZoneInfo("Europe/Berlin")


def test_signal_export_markdown_quotes_reactions_attachments_stickers() -> None:
    chat, msgs = load(FIXTURES / "Aylin Demir" / "chat.md", BERLIN)
    assert (chat.source, chat.key, chat.name) == ("signal", "Aylin Demir", "Aylin Demir")
    assert rows(msgs) == [
        ("2024-01-05 14:22:01", "Aylin Demir", "Are you back from Lisbon?", T, False),
        (
            "2024-01-05 14:23:10",
            "Me",
            "> Are you back from Lisbon?\n\nYes, since Sunday!\nStill unpacking  \n(- Aylin Demir: 👍 -)",
            T,
            True,
        ),
        ("2024-01-05 14:24:00", "Me", "![IMG_0042.jpg](./media/IMG_0042.jpg)", A, True),
        ("2024-01-05 14:25:00", "Aylin Demir", "(This message was deleted)", D, False),
        ("2024-01-05 14:26:00", "Me", "Missed voice call", S, True),
        ("2024-01-05 14:27:00", "Aylin Demir", "(( 🎉 ))", M, False),
    ]
    assert msgs[0].timestamp == datetime(2024, 1, 5, 13, 22, 1, tzinfo=UTC)


def test_the_chat_folder_is_one_export_read_from_its_markdown() -> None:
    folder = FIXTURES / "Aylin Demir"
    assert importers.detect(folder) == "signal"
    assert rows(load(folder, BERLIN)[1]) == rows(load(folder / "chat.md", BERLIN)[1])
    assert list(importers.exports_in(FIXTURES / "Aylin Demir")) == [folder]


def test_older_stamps_without_seconds() -> None:
    chat, msgs = load(FIXTURES / "Noah (old)" / "chat.md", BERLIN)
    assert chat.name == "Noah (old)"
    assert rows(msgs) == [
        ("2021-03-02 19:48", "Noah", "climbing tonight?", T, False),
        ("2021-03-02 19:50", "Me", "yes", T, True),
        ("2021-03-02 19:51", "Noah", "[topo.png](./media/topo.png)", A, False),
    ]


def test_data_json_lines() -> None:
    chat, msgs = load(FIXTURES / "Aylin Demir" / "data.json", BERLIN)
    assert chat.name == "Aylin Demir"
    assert rows(msgs) == [
        ("2024-01-05 14:22:01", "Aylin Demir", "Are you back from Lisbon?", T, False),
        ("2024-01-05 14:23:10", "Me", "Yes, since Sunday!\nStill unpacking", T, True),
        ("2024-01-05 14:24:00", "Me", "IMG_0042.jpg", A, True),
        ("2024-01-05 14:25:00", "Aylin Demir", "", D, False),
        ("2024-01-05 14:26:00", "Me", "Missed voice call", S, True),
    ]
    assert msgs[2].timestamp == datetime(2024, 1, 5, 13, 24, 0, 250000, tzinfo=UTC)


def test_signalbackup_tools_text() -> None:
    chat, msgs = load(FIXTURES / "signalbackup-Lena.txt", BERLIN)
    assert chat.name == "signalbackup-Lena"
    assert rows(msgs) == [
        ("2024-01-05 14:22:01", "Lena", "Did the deposit come back?", T, False),
        ("2024-01-05 14:23:01", None, "Lena changed the disappearing message time to 1 week ***", S, False),
        ("2024-01-05 14:24:01", "Me", "Not yet\nmaybe next week", T, True),
    ]


def test_markdown_is_never_whatsapp_and_whatsapp_text_is_never_signal(tmp_path: Path) -> None:
    # Swedish iOS WhatsApp writes the very stamps of signal-export: the file name tells them apart.
    same = "[2024-01-05 14:22:01] Aylin: hej\n[2024-01-05 14:23:01] Maya: hej hej\n"
    md = tmp_path / "chat.md"
    md.write_text(same, encoding="utf-8")
    txt = tmp_path / "_chat.txt"
    txt.write_text(same, encoding="utf-8")
    assert signal_logs.sniff(md) and not whatsapp.sniff(md)
    assert whatsapp.sniff(txt) and not signal_logs.sniff(txt)
    assert importers.detect(md) == "signal" and importers.detect(txt) == "whatsapp"


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("not json", "line 1: not a JSON line"),
        (
            '{"date": "2024-01-05T14:22:01", "sender": "A"}',
            "line 1: expected an object with date, sender and body",
        ),
        ('{"date": "yesterday", "sender": "A", "body": "x"}', "line 1: date 'yesterday' cannot be read"),
        (
            '{"date": "9999-01-01T00:00:00", "sender": "A", "body": "x"}',
            "line 1: date '9999-01-01T00:00:00' is out",
        ),
        ('{"date": 5, "sender": "A", "body": "x"}', "line 1: date, sender and body must be strings"),
        ("", "has no messages"),
    ],
)
def test_broken_data_json_is_one_input_error(tmp_path: Path, line: str, what: str) -> None:
    path = tmp_path / "data.json"
    path.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load(path, fmt="signal")
    assert what in str(err.value)


def test_sigtop_text_blocks() -> None:
    chat, msgs = load(FIXTURES / "sigtop-Aylin Demir.txt")
    assert (chat.source, chat.key, chat.name) == ("signal", "Aylin Demir (+491701234567)", "Aylin Demir")
    assert [(m.sender, m.sender_id, m.text, m.kind, m.own, m.edited) for m in msgs] == [
        (
            "Aylin Demir",
            "+491701234567",
            "Are we still on for Saturday?\nType: incoming\nis how I'd start a form",
            Kind.TEXT,
            False,
            False,
        ),
        ("You", None, "Yes!\n\n> quoting myself on purpose", Kind.TEXT, True, False),
        (
            "Aylin Demir",
            "+491701234567",
            "IMG_2041.jpg (image/jpeg, 183211 bytes)",
            Kind.ATTACHMENT,
            False,
            False,
        ),
        ("You", None, "See you at 10", Kind.TEXT, True, True),
        (None, None, "group-v2-change", Kind.SYSTEM, False, False),
        (None, None, "call-history", Kind.SYSTEM, False, False),
    ]
    assert msgs[0].timestamp == datetime(2024, 1, 5, 13, 22, 1, tzinfo=UTC)  # the file's +0100, not --tz
    assert msgs[-1].timestamp == datetime(2024, 1, 6, 8, 12, tzinfo=UTC)  # no Sent: when it was received
    assert msgs[1].raw.startswith("From: You\nType: outgoing\n") and msgs[1].raw.endswith("on purpose")


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("Conversation: Bob\n\nhello\n", "line 3: expected a message block"),
        ("Conversation: Bob\n\n", "has no messages"),
        (
            "Conversation: Bob\n\nFrom: Bob\nType: incoming\nSent: yesterday\n\nhi\n",
            "line 3: unreadable Sent",
        ),
        ("Conversation: Bob\n\nFrom: Bob\nType: incoming\n\nhi\n", "line 3: a message without a Sent"),
    ],
)
def test_a_broken_sigtop_file_is_one_input_error(tmp_path: Path, text: str, what: str) -> None:
    path = tmp_path / "Bob.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load(path, fmt="signal")
    assert str(exc.value).startswith(f"{path}: {what}"), str(exc.value)
