"""A Google Chat Takeout or a Discord data package exported again: the chats whose files are as an earlier
import read them are not read again (``ChatExport.fingerprint``: their messages are never built), and the
archive ends exactly as a full re-read of the new export would leave it: after a chat grew, one was edited
in the middle, one lost a message, one was added and one is gone."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from test_resume_import import BERLIN, archive_rows, both_ways

from refind_cli.importers import discord_package, google_chat
from refind_cli.importers import hangouts as hangouts_module
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive

CHANGES = ["append", "edit", "message deleted", "chat deleted"]


def _texts(n: int, length: int, change: str, changed: int) -> list[str]:
    texts = [f"chat {n} message {i} about the crag" for i in range(length)]
    if n == changed and change == "edit":
        texts[2] += " (edited)"
    if n == changed and change == "message deleted":
        del texts[3]
    return texts


def google_group(n: int, texts: list[str]) -> dict:
    return {
        "messages": [
            {
                "creator": {
                    "name": f"Person {i % 2}",
                    "email": f"p{i % 2}@example.com",
                    "user_type": "Human",
                },
                "created_date": f"Tuesday, June {1 + n}, 2026 at 6:{i // 60:02d}:{i % 60:02d} PM UTC",
                "text": text,
                "topic_id": f"t{i}",
                "message_id": f"GROUP{n}/t{i}/m{i}",
            }
            for i, text in enumerate(texts)
        ]
    }


def takeout(tmp_path: Path, groups: dict[int, list[str]]) -> bytes:
    out = tmp_path / "takeout.zip"
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr(
            "Takeout/Google Chat/Users/User 1/user_info.json",
            json.dumps({"user": {"name": "Person 0", "email": "p0@example.com"}}),
        )
        for n, texts in groups.items():
            folder = f"Takeout/Google Chat/Groups/Space GROUP{n}"
            zf.writestr(f"{folder}/messages.json", json.dumps(google_group(n, texts), indent=2))
            zf.writestr(f"{folder}/group_info.json", json.dumps({"name": f"Group {n}"}))
    return out.read_bytes()


def package(root: Path, channels: dict[int, list[str]]) -> None:
    """A Discord data package folder of ``channels`` (by number: their messages' texts)."""
    messages = root / "messages"
    for old in messages.glob("c*/*") if messages.exists() else []:
        old.unlink()
    (root / "account").mkdir(parents=True, exist_ok=True)
    (root / "account" / "user.json").write_text(json.dumps({"id": "7", "username": "me"}))
    messages.mkdir(exist_ok=True)
    index = {str(900 + n): f"channel {n}" for n in channels}
    (messages / "index.json").write_text(json.dumps(index))
    for n, texts in channels.items():
        folder = messages / f"c{900 + n}"
        folder.mkdir(exist_ok=True)
        (folder / "channel.json").write_text(json.dumps({"id": str(900 + n), "type": 0}))
        rows = [
            {
                "ID": 1_500_000_000_000_000_000 + 1000 * n + i,
                "Timestamp": f"2026-06-{1 + n:02d} 18:{i // 60:02d}:{i % 60:02d}.000000+00:00",
                "Contents": text,
                "Attachments": "",
            }
            for i, text in enumerate(texts)
        ]
        (folder / "messages.json").write_text(json.dumps(rows))


def versions(change: str) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    earlier = {n: _texts(n, 8, "", -1) for n in range(6)}
    later = {n: _texts(n, 8, change, 4) for n in range(6)}
    later[1] = _texts(1, 12, "", -1)  # one grew
    later[6] = _texts(6, 3, "", -1)  # one is new
    if change == "chat deleted":
        del later[4]
    return earlier, later


def built(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[object]:
    calls: list[object] = []
    original = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a: calls.append(a[0]) or original(*a))
    return calls


@pytest.mark.parametrize("change", CHANGES)
def test_a_google_chat_reimport_leaves_the_archive_a_full_reread_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
):
    earlier, later = versions(change)
    made = tmp_path / "made"
    made.mkdir()
    old, new = takeout(made, earlier), takeout(made, later)
    resumed, reread, results = both_ways(tmp_path, "takeout.zip", [old, new])
    assert resumed == reread
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        len(t) for t in later.values()
    )
    calls = built(monkeypatch, google_chat, "_message")
    path = tmp_path / "again" / "takeout.zip"
    path.parent.mkdir()
    with Archive.open(tmp_path / "again" / "home") as archive:
        path.write_bytes(old)
        import_file(archive, path, tz=BERLIN, worker=False)
        calls.clear()
        path.write_bytes(new)
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
    changed = [n for n, texts in later.items() if earlier.get(n) != texts]
    assert len(calls) == sum(len(later[n]) for n in changed)  # only the changed groups' messages


@pytest.mark.parametrize("change", CHANGES)
def test_a_discord_package_reimport_leaves_the_archive_a_full_reread_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
):
    earlier, later = versions(change)
    out = []
    calls = built(monkeypatch, discord_package, "_message")
    for way in ("resume", "reread"):
        root = tmp_path / way / "package"
        with Archive.open(tmp_path / way / "home") as archive:
            package(root, earlier)
            assert import_file(archive, root, tz=BERLIN, worker=False).error is None
            calls.clear()
            package(root, later)
            result = import_file(archive, root, tz=BERLIN, worker=False, reread=way == "reread")
            assert result.error is None
            out.append(archive_rows(archive))
            if way == "resume":
                changed = [n for n, texts in later.items() if earlier.get(n) != texts]
                assert len(calls) == sum(len(later[n]) for n in changed)
                assert sum(c.messages_added + c.messages_skipped for c in result.chats) == sum(
                    len(t) for t in later.values()
                )
    assert out[0] == out[1]


def test_a_new_account_name_reads_every_package_channel_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    channels = {n: _texts(n, 5, "", -1) for n in range(3)}
    root = tmp_path / "package"
    calls = built(monkeypatch, discord_package, "_message")
    with Archive.open(tmp_path / "home") as archive:
        package(root, channels)
        import_file(archive, root, tz=BERLIN, worker=False)
        calls.clear()
        (root / "account" / "user.json").write_text(
            json.dumps({"id": "7", "username": "me", "global_name": "Me"})
        )
        import_file(archive, root, tz=BERLIN, worker=False)
    assert len(calls) == 15


def hangouts(conversations: dict[int, list[str]]) -> bytes:
    """A Hangouts.json of ``conversations`` (by number: their messages' texts) between two people."""
    people = [{"id": {"gaia_id": g, "chat_id": g}, "fallback_name": f"Person {g}"} for g in ("111", "222")]
    items = [
        {
            "conversation": {
                "conversation_id": {"id": f"conv{n}"},
                "conversation": {
                    "id": {"id": f"conv{n}"},
                    "type": "STICKY_ONE_TO_ONE",
                    "self_conversation_state": {"self_read_state": {"participant_id": {"gaia_id": "111"}}},
                    "participant_data": people,
                },
            },
            "events": [
                {
                    "sender_id": {"gaia_id": "111" if i % 2 else "222"},
                    "timestamp": str(1_465_999_200_000_000 + 86_400_000_000 * n + 60_000_000 * i),
                    "chat_message": {"message_content": {"segment": [{"type": "TEXT", "text": text}]}},
                    "event_id": f"c{n}-e{i}",
                    "event_type": "REGULAR_CHAT_MESSAGE",
                }
                for i, text in enumerate(texts)
            ],
        }
        for n, texts in conversations.items()
    ]
    return json.dumps({"conversations": items}, indent=1).encode()


@pytest.mark.parametrize("change", CHANGES)
def test_a_hangouts_reimport_leaves_the_archive_a_full_reread_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
):
    earlier, later = versions(change)
    resumed, reread, _ = both_ways(tmp_path, "Hangouts.json", [hangouts(earlier), hangouts(later)])
    assert resumed == reread
    calls = built(monkeypatch, hangouts_module, "_message")
    path = tmp_path / "again" / "Hangouts.json"
    path.parent.mkdir()
    with Archive.open(tmp_path / "again" / "home") as archive:
        path.write_bytes(hangouts(earlier))
        import_file(archive, path, tz=BERLIN, worker=False)
        calls.clear()
        path.write_bytes(hangouts(later))
        assert import_file(archive, path, tz=BERLIN, worker=False).error is None
    changed = [n for n, texts in later.items() if earlier.get(n) != texts]
    assert len(calls) == sum(len(later[n]) for n in changed)
