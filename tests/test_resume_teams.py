"""A Microsoft Teams export imported again: a message file whose name and bytes an earlier import fingerprinted
is not parsed (``teams._chats``), its chats told from the fingerprints. The archive ends exactly as a full
re-read (``--reread``) of the new export leaves it: after a chat grew, a chat was edited in the middle, a
message was deleted and a chat's file was deleted; nothing already archived is lost."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from test_resume_import import BERLIN, archive_rows, both_ways, forgotten_both_ways

from refind_cli.importers import teams
from refind_cli.ingest import import_file
from refind_cli.operations import Selection
from refind_cli.storage.archive import Archive

CHATS = 6  # chat c is users/me/messages_<c>.json; the channel is teams/t1/messages_general.json


def message(c: int, i: int, *, edit: bool = False, reply: bool = False) -> dict:
    """Message ``i`` of chat ``c`` (-1: the channel, whose odd messages reply to the one before)."""
    where = (
        {"ChannelIdentity": {"TeamId": "t1", "ChannelId": "19:general@thread.tacv2"}}
        if c < 0
        else {"ChatId": f"19:chat{c}@unq.gbl.spaces"}
    )
    sender = (c + i) % 3
    return {
        "Id": f"{c + 1}{i:05d}",
        "ReplyToId": f"{c + 1}{i - 1:05d}" if reply else None,
        "MessageType": "message",
        "CreatedDateTime": f"2026-05-{2 + max(c, 0):02d}T10:{i % 60:02d}:{i // 60:02d}.000Z",
        "LastEditedDateTime": "2026-06-01T00:00:00Z" if edit else None,
        "DeletedDateTime": None,
        **where,
        "From": {"User": {"Id": f"u{sender}", "DisplayName": f"Person {sender}"}},
        "Body": {
            "ContentType": "html",
            "Content": f"<p>chat {c} message {i} about <b>trains</b>" + " (edited)" * edit + "</p>",
        },
        "Attachments": [],
    }


def chat(c: int, length: int, *, edit: int | None = None, gone: int | None = None) -> list[dict]:
    return [message(c, i, edit=i == edit, reply=c < 0 and i % 2 == 1) for i in range(length) if i != gone]


def files(chats: dict[int, list[dict]]) -> dict[str, bytes]:
    return {
        ("teams/t1/messages_general.json" if c < 0 else f"users/me/messages_{c}.json"): json.dumps(
            messages, indent=1
        ).encode()
        for c, messages in sorted(chats.items())
    }


def zipped(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def versions(change: str) -> tuple[dict[int, list[dict]], dict[int, list[dict]]]:
    earlier = {c: chat(c, 12) for c in range(-1, CHATS)}
    later = {**{c: chat(c, 12) for c in range(-1, CHATS)}, CHATS: chat(CHATS, 4)}  # a new chat
    later[2] = chat(2, 17)  # one grew
    later[-1] = chat(-1, 15)  # and the channel: a reply to a message of the earlier export
    if change == "edit":
        later[4] = chat(4, 12, edit=5)
    elif change == "message deleted":
        later[3] = chat(3, 12, gone=6)
    elif change == "deletion":
        del later[1]
    return earlier, later


def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the reader parses, from now on."""
    parsed: list[str] = []
    original = teams._file

    def spy(chunks, path, entry, tz, name):  # type: ignore[no-untyped-def]
        parsed.append(entry or path.name)
        return original(chunks, path, entry, tz, name)

    monkeypatch.setattr(teams, "_file", spy)
    return parsed


@pytest.mark.parametrize("change", ["append", "edit", "message deleted", "deletion"])
def test_a_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str):
    earlier, later = versions(change)
    resumed, reread, results = both_ways(
        tmp_path, "teams-export.zip", [zipped(files(earlier)), zipped(files(later))]
    )
    assert resumed == reread
    assert sum(c.messages_added + c.messages_skipped for c in results[-1].chats) == sum(
        len(m) for m in later.values()
    )
    if change == "deletion":  # chat 1's file is gone from the export, not from the archive
        assert sum(1 for row in resumed[0] if "chat1@" in repr(row)) == 1


def test_only_the_files_that_changed_are_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    earlier, later = versions("edit")
    parsed = counted(monkeypatch)
    path = tmp_path / "teams-export.zip"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(zipped(files(earlier)))
        import_file(archive, path, tz=BERLIN, worker=False)
        assert len(parsed) == CHATS + 1
        parsed.clear()
        path.write_bytes(zipped(files(later)))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        assert result.error is None
        changed = ["teams/t1/messages_general.json", *(f"users/me/messages_{c}.json" for c in (2, 4, CHATS))]
        assert sorted(parsed) == sorted(f"entry {n!r}" for n in changed)
        assert sum(c.messages_added for c in result.chats) == 5 + 3 + 4 + 1  # grew, channel, new, edited
        parsed.clear()
        # An unchanged export adds nothing; a third one parses only what changed since the second.
        assert import_file(archive, path, tz=BERLIN, worker=False).unchanged_since is not None
        later[0] = chat(0, 13)
        path.write_bytes(zipped(files(later)))
        result = import_file(archive, path, tz=BERLIN, worker=False)
        assert parsed == ["entry 'users/me/messages_0.json'"]
        assert sum(c.messages_added for c in result.chats) == 1
        assert len(result.chats) == CHATS + 2


def test_an_unpacked_export_goes_the_same_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    earlier, later = versions("message deleted")
    homes = []
    parsed = counted(monkeypatch)
    for way in ("resume", "reread"):
        root = tmp_path / way / "export"
        with Archive.open(tmp_path / way / "home") as archive:
            for n, version in enumerate((earlier, later)):
                for old in root.glob("*/*/*.json"):
                    old.unlink()
                for name, data in files(version).items():
                    (root / name).parent.mkdir(parents=True, exist_ok=True)
                    (root / name).write_bytes(data)
                parsed.clear()
                result = import_file(archive, root, tz=BERLIN, reread=n == 1 and way == "reread")
                assert result.error is None
            homes.append(archive_rows(archive))
            if way == "resume":  # grown, message deleted, new
                assert sorted(parsed) == sorted(
                    ["messages_general.json", *(f"messages_{c}.json" for c in (2, 3, CHATS))]
                )
    assert homes[0] == homes[1]


@pytest.mark.parametrize("what", [Selection(matching="trains"), Selection(chat=2)], ids=["messages", "chat"])
def test_what_was_forgotten_in_a_file_read_before_stays_forgotten(tmp_path: Path, what: Selection):
    earlier, later = versions("append")
    resumed, reread = forgotten_both_ways(
        tmp_path, "teams-export.zip", zipped(files(earlier)), zipped(files(later)), what
    )
    assert resumed == reread
