"""A Skype ``messages.json`` exported again: a conversation whose bytes, and the names read before it, an
earlier import fingerprinted is passed over unparsed (``jsonstream.Items``, ``jsonstream.Walk``), and the names
its messages taught later conversations are learnt from its fingerprint. The archive ends exactly as a full
re-read (``--reread``) of the new file leaves it: after a conversation grew, one was edited, one lost a message,
one was deleted, and a name one taught changed (the later conversations that read it are read again)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_resume_import import BERLIN, both_ways

from refind_cli.errors import InputWarning
from refind_cli.importers import skype
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive


def message(c: int, i: int, sender: int, shown: str | None = None, edit: bool = False) -> dict:
    """Conversation 5's messages have no id: their identities hold their senders' names."""
    return {
        **({"id": f"{c}{i:04d}"} if c != 5 else {}),
        "displayName": shown,
        "originalarrivaltime": f"2026-05-{1 + c:02d}T10:{i % 60:02d}:{i // 60:02d}.000Z",
        "messagetype": "RichText",
        "content": f"conversation {c} message {i} from <b>{sender}</b>" + " (edited)" * edit,
        "from": f"8:person{sender}",
    }


def conversation(
    c: int, length: int, *, edit: int | None = None, gone: int | None = None, name: str = ""
) -> dict:
    """The ``c``-th group, ``length`` messages from persons c and c-1 in turn. Person c's first message
    gives their name (``name`` or "Person c"); person c-1 is named by what the conversation before taught."""
    return {
        "id": f"19:group{c}@thread.skype",
        "displayName": None,
        "threadProperties": {"topic": f"Group {c}"},
        "MessageList": [
            message(c, i, c - i % 2, (name or f"Person {c}") if i == 0 else None, edit=i == edit)
            for i in range(length)
            if i != gone
        ],
    }


def export(conversations: list[dict]) -> bytes:
    data = {"userId": "8:person0", "exportDate": "2026-06-01T00:00:00.000Z", "conversations": conversations}
    return json.dumps(data, indent=1).encode()


def versions(change: str) -> tuple[list[dict], list[dict]]:
    earlier = [conversation(c, 20) for c in range(8)]
    later = [conversation(c, 20) for c in range(8)] + [conversation(8, 5)]  # a new one
    later[2] = conversation(2, 26)  # one grew
    if change == "edit":
        later[5] = conversation(5, 20, edit=7)
    elif change == "message deleted":
        later[6] = conversation(6, 20, gone=9)
    elif change == "deletion":
        del later[3]
    elif change == "renamed":
        later[4] = conversation(4, 20, name="Pat Four")  # conversation 5, unchanged, reads person 4 so
    return earlier, later


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The places of the messages the reader builds, from now on."""
    built: list[str] = []
    original = skype._Reader._message
    monkeypatch.setattr(
        skype._Reader, "_message", lambda self, obj, where: built.append(where) or original(self, obj, where)
    )
    return built


@pytest.mark.parametrize("change", ["append", "edit", "message deleted", "deletion", "renamed"])
def test_a_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str):
    earlier, later = versions(change)
    resumed, reread, results = both_ways(tmp_path, "messages.json", [export(earlier), export(later)])
    assert resumed == reread
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        len(c["MessageList"]) for c in later
    )


def test_only_the_conversations_that_changed_are_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    earlier, later = versions("edit")
    built = counted(monkeypatch)
    path = tmp_path / "messages.json"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(export(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        built.clear()
        path.write_bytes(export(later))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        assert result.error is None
        # 2 grew, 5 was edited, 8 is new: the other conversations' messages are not built.
        assert {p.split(".")[0] for p in built} == {f"conversations[{c}]" for c in (2, 5, 8)}
        built.clear()
        assert import_file(archive, path, tz=BERLIN, worker=False).unchanged_since is not None
        path.write_bytes(export([*later, conversation(9, 3)]))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert {p.split(".")[0] for p in built} == {"conversations[9]"}


def test_a_name_taught_by_a_conversation_passed_over_is_still_learnt(tmp_path: Path):
    earlier = [conversation(c, 20) for c in range(6)]
    # A new conversation with a message of person 4, who gives no name: conversation 4's messages taught it.
    later = [*earlier, {**conversation(9, 0), "MessageList": [message(9, 0, 4)]}]
    resumed, reread, _ = both_ways(tmp_path, "messages.json", [export(earlier), export(later)])
    assert resumed == reread
    read = [
        [m.sender for m in e.messages]
        for e in skype.read(tmp_path / "reread" / "exports" / "messages.json", tz=BERLIN)
    ]
    assert read[-1] == ["Person 4"]


def test_a_conversation_without_its_id_is_read_whole_and_keyed_alike(tmp_path: Path):
    earlier, later = versions("append")
    # A tool dropped the id of a person's conversation: it is keyed by what it holds and named after them.
    person = {"displayName": "Person 9", "MessageList": [message(9, i, 9 * (i % 2)) for i in range(4)]}
    earlier.insert(3, person)
    later.insert(3, {**person, "MessageList": [*person["MessageList"], message(9, 4, 9)]})
    resumed, reread, results = both_ways(tmp_path, "messages.json", [export(earlier), export(later)])
    assert resumed == reread
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        len(c["MessageList"]) for c in later
    )
    with pytest.warns(InputWarning, match="a conversation has no id") as said:
        read = list(skype.read(tmp_path / "resume" / "exports" / "messages.json", tz=BERLIN))
    assert len(said) == 1
    assert read[3].chat.key.startswith("derived:") and read[3].chat.name == "Person 9"
    assert [m.sender for m in read[3].messages] == ["Person 0", "Person 9"] * 2 + ["Person 9"]


def test_a_broken_file_says_what_a_whole_reading_says(tmp_path: Path):
    earlier, later = versions("append")
    text = export(later)
    broken = text.replace(b'"conversation 7 message 3', b'"conversation 7 message 3\x01', 1)
    path = tmp_path / "messages.json"
    said = []
    for home in ("resumed", "whole"):
        with Archive.open(tmp_path / home) as archive:
            if home == "resumed":
                path.write_bytes(export(earlier))
                import_file(archive, path, tz=BERLIN, worker=False)
            path.write_bytes(broken)
            said.append(import_file(archive, path, tz=BERLIN, worker=False).error)
    assert said[0] == said[1] and said[0]
