"""`refind chats rename` and `refind chats merge`: repairs that survive a re-import of the same export."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cli_runs import run

from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 2, 1, 9, 0, tzinfo=UTC)
MUM = Chat("test", "mum", "Mum")
# The same conversation, exported again from another phone under another name.
MUM_OLD = Chat("test", "mum-old-phone", "+49 151 000")
EARLY = [Message(T0, "Mum", "did you call the plumber"), Message(T0 + timedelta(minutes=5), "Me", "not yet")]
LATE = [
    Message(T0 + timedelta(minutes=5), "Me", "not yet"),  # in both exports
    Message(T0 + timedelta(minutes=20), "Mum", "his number is in the drawer"),
]


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        import_chat(archive, MUM, EARLY)
        import_chat(archive, MUM_OLD, LATE)
    return home


def _chats(home: Path) -> list[dict]:
    return json.loads(run(home, "chats", "--json").stdout)["chats"]


def test_a_rename_survives_a_reimport(tmp_path: Path) -> None:
    home = _home(tmp_path)
    done = run(home, "chats", "rename", "1", "Mother")
    assert done.exit_code == 0 and "Mother" in done.stdout
    with Archive.open(home) as archive:
        import_chat(archive, MUM, [*EARLY, Message(T0 + timedelta(days=1), "Mum", "plumber came")])
    assert [c["name"] for c in _chats(home)] == ["Mother", "+49 151 000"]
    hit = json.loads(run(home, "search", "plumber", "--json", "--chat", "Mother").stdout)["results"][0]
    assert hit["chat"]["name"] == "Mother"


def test_a_merge_moves_the_messages_and_replans_the_sessions(tmp_path: Path) -> None:
    home = _home(tmp_path)
    assert run(home, "search", "drawer", "--json").exit_code == 0  # the index is built before the merge
    done = run(home, "chats", "merge", "Mum", "+49", "--json")
    assert done.exit_code == 0, done.output
    merged = json.loads(done.stdout)
    # Three messages, the shared one once, and one session: they are minutes apart.
    assert (merged["id"], merged["name"], merged["messages"], merged["sessions"]) == (1, "Mum", 3, 1)
    assert [c["id"] for c in _chats(home)] == [1]
    hit = json.loads(run(home, "search", "drawer", "--json").stdout)["results"][0]
    assert hit["chat"]["id"] == 1 and hit["window"][0]["text"] == "did you call the plumber"
    assert run(home, "doctor").exit_code == 0
    # The other phone's export, imported again, adds to the merged chat and brings nothing back twice.
    with Archive.open(home) as archive:
        result = import_chat(archive, MUM_OLD, [*LATE, Message(T0 + timedelta(minutes=30), "Me", "found it")])
    assert result.chat_id == 1 and result.messages_added == 1
    chats = _chats(home)
    assert [(c["id"], c["name"], c["messages"]) for c in chats] == [(1, "Mum", 4)]


def test_what_was_forgotten_in_a_merged_chat_stays_forgotten(tmp_path: Path) -> None:
    home = _home(tmp_path)
    assert run(home, "forget", "--chat", "+49", "--matching", "drawer", "--yes").exit_code == 0
    assert run(home, "chats", "merge", "1", "2").exit_code == 0
    with Archive.open(home) as archive:
        assert import_chat(archive, MUM_OLD, LATE).messages_added == 0
    assert run(home, "search", "drawer").exit_code == 1


def test_repair_mistakes_are_one_line(tmp_path: Path) -> None:
    home = _home(tmp_path)
    for args in (
        ("rename", "9", "X"),
        ("rename", "1", " "),
        ("merge", "1", "1"),
        ("merge", "1", "nobody"),
    ):
        done = run(home, "chats", *args)
        assert done.exit_code == 2 and done.stderr.startswith("refind: error: "), args
    assert [c["name"] for c in _chats(home)] == ["Mum", "+49 151 000"]
