"""Exports of many small files exported again (Slack: a channel's day files; Messenger and Instagram: a
thread's ``message_N.json``): a chat whose files and whatever else its messages are made of are unchanged is
not parsed again (``ChatExport.fingerprint``, ``ingest.resume.Prints``), and the archive ends exactly as a full
re-read of the new export would leave it: after messages were added, edited, deleted, a user renamed."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from test_meta import msg, thread
from test_resume_import import BERLIN, both_ways

from refind_cli.importers import meta, slack
from refind_cli.ingest import import_file
from refind_cli.reports import FileImportResult
from refind_cli.storage.archive import Archive

CHANNELS = ["general", "random", "climbing", "trips"]
USERS = [{"id": "U1", "name": "maya", "profile": {"real_name": "Maya"}}, {"id": "U2", "name": "jonas"}]


def day(channel: str, n: int, count: int = 5, edit: int | None = None) -> list[dict]:
    base = 1_700_000_000 + 86_400 * n
    return [
        {
            "type": "message",
            "user": f"U{1 + i % 2}",
            "ts": f"{base + 60 * i}.000{CHANNELS.index(channel)}00",
            "text": f"{channel} day {n} message {i} <@U2>" + (" (edited)" if i == edit else ""),
        }
        for i in range(count)
    ]


def slack_zip(days: dict[str, list[list[dict]]], users: list[dict] = USERS) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("users.json", json.dumps(users))
        zf.writestr("channels.json", json.dumps([{"id": f"C{i}", "name": c} for i, c in enumerate(CHANNELS)]))
        for channel, files in days.items():
            for n, messages in enumerate(files):
                zf.writestr(f"{channel}/2023-11-{15 + n:02d}.json", json.dumps(messages, indent=1))
    return buf.getvalue()


def slack_versions(change: str) -> list[bytes]:
    earlier = {c: [day(c, n) for n in range(3)] for c in CHANNELS}
    later = {c: [day(c, n) for n in range(3)] for c in CHANNELS}
    later["general"].append(day("general", 3))  # a new day
    later["random"][2] = day("random", 2, count=7)  # a day that grew
    users = USERS
    if change == "edit":
        later["climbing"][0] = day("climbing", 0, edit=2)
    elif change == "deletion":
        later["climbing"][1] = day("climbing", 1)[1:]
        del later["trips"][0]
    elif change == "renamed":
        users = [USERS[0], {**USERS[1], "profile": {"real_name": "Jonas B."}}]
    return [slack_zip(earlier), slack_zip(later, users)]


@pytest.mark.parametrize("change", ["append", "edit", "deletion", "renamed"])
def test_a_slack_reimport_leaves_the_archive_a_full_reread_would(tmp_path: Path, change: str):
    resumed, reread, results = both_ways(tmp_path, "Acme Slack export.zip", slack_versions(change))
    assert resumed == reread
    read = {c.name.split(" ")[0].lstrip("#") for c in results[-1].chats if c.messages_added}
    assert {"general", "random"} <= read
    if change == "renamed":
        assert len(read) == 4  # every channel mentions the renamed user


def test_an_unchanged_slack_channel_is_not_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    parsed: list[str] = []
    original = slack._load_json
    monkeypatch.setattr(slack, "_load_json", lambda tree, name: parsed.append(name) or original(tree, name))
    result = reimport(tmp_path / "Acme Slack export.zip", slack_versions("edit"), parsed)
    assert result.error is None
    built = {name.split("/")[0] for name in parsed if "/" in name}
    assert built == {"general", "random", "climbing"}


def test_a_grown_slack_channel_reads_only_its_new_day_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    parsed: list[str] = []
    original = slack._load_json
    monkeypatch.setattr(slack, "_load_json", lambda tree, name: parsed.append(name) or original(tree, name))
    versions = slack_versions("append")
    result = reimport(tmp_path / "Acme Slack export.zip", versions, parsed)
    # general gained a day; random's last day grew: read from the point its reading left before that day.
    assert sorted(n for n in parsed if "/" in n) == ["general/2023-11-18.json", "random/2023-11-17.json"]
    # It reports what a full reading would: every message of the export seen.
    seen = {c.name: c.messages_added + c.messages_skipped for c in result.chats}
    assert seen == {"#general": 20, "#random": 17, "#climbing": 15, "#trips": 15}
    # And the next export, grown again, goes on from the points this one left.
    later = {c: [day(c, n) for n in range(3)] for c in CHANNELS}
    later["general"] += [day("general", 3), day("general", 4)]
    later["random"][2] = day("random", 2, count=7)
    parsed.clear()
    with Archive.open(tmp_path / "home") as archive:
        (tmp_path / "Acme Slack export.zip").write_bytes(slack_zip(later))
        again = import_file(archive, tmp_path / "Acme Slack export.zip", tz=BERLIN, worker=False)
    assert [n for n in parsed if "/" in n] == ["general/2023-11-19.json"]
    assert sum(c.messages_added for c in again.chats) == 5


def reply(n: int, parent: str, text: str = "re") -> dict:
    ts = f"{1_700_000_000 + 86_400 * n + 7}.000900"
    return {"type": "message", "user": "U2", "ts": ts, "thread_ts": parent, "text": text}


@pytest.mark.parametrize(
    "change", ["a reply to a message of a day passed over", "a parent older than those days"]
)
def test_a_grown_slack_channel_stores_what_a_full_reread_would(tmp_path: Path, change: str):
    earlier = {c: [day(c, n) for n in range(3)] for c in CHANNELS}
    if change.startswith("a reply"):
        later = {c: [day(c, n) for n in range(3)] for c in CHANNELS}
        later["general"].append([*day("general", 3), reply(3, earlier["general"][0][1]["ts"])])
    else:
        # A day file passed over holds a reply whose parent the earlier export lacked; the later one files the
        # parent under a new day: read whole, the parent is stored as threaded, as a full reading stores it.
        ts = "1700086430.000900"
        parent = {"type": "message", "user": "U1", "ts": ts, "thread_ts": ts, "text": "the parent"}
        earlier["general"][2].append(reply(2, parent["ts"]))
        later = {c: [list(d) for d in days] for c, days in earlier.items()}
        later["general"].append([*day("general", 3), parent])
    versions = [slack_zip(earlier), slack_zip(later)]
    resumed, reread, results = both_ways(tmp_path, "Acme Slack export.zip", versions)
    assert resumed == reread
    assert [c.messages_added for c in results[-1].chats if c.name == "#general"] == [6]


def test_a_slack_channel_without_its_last_day_reports_what_a_full_reread_does(tmp_path: Path):
    earlier = {c: [day(c, n) for n in range(3)] for c in CHANNELS}
    later = {c: [day(c, n) for n in range(3 if c != "general" else 2)] for c in CHANNELS}
    resumed, reread, results = both_ways(
        tmp_path, "Acme Slack export.zip", [slack_zip(earlier), slack_zip(later)]
    )
    assert resumed == reread
    seen = {c.name: c.messages_added + c.messages_skipped for c in results[-1].chats}
    assert seen == {"#general": 10, "#random": 15, "#climbing": 15, "#trips": 15}


def reimport(path: Path, versions: list[bytes], calls: list[str]) -> FileImportResult:
    """Each version imported in turn into a home beside ``path``; ``calls`` cleared before the last."""
    with Archive.open(path.parent / "home") as archive:
        for n, content in enumerate(versions, 1):
            calls.clear()
            path.write_bytes(content)
            result = import_file(archive, path, tz=BERLIN, worker=False)
            assert result.error is None, (n, result.error)
    return result


def meta_zip(threads: dict[str, list[bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, files in threads.items():
            for n, data in enumerate(files, 1):
                zf.writestr(f"messages/inbox/{name}/message_{n}.json", data)
    return buf.getvalue()


T0 = 1_700_000_000_000


def meta_versions(change: str) -> list[bytes]:
    def messages(k: int, count: int = 6, edit: int | None = None) -> list[dict]:
        return [
            msg(T0 + k * 10**8 + 1000 * i, f"t{k} m{i}" + (" (edited)" if i == edit else ""))
            for i in range(count)
        ]

    def files(k: int, count: int = 6, edit: int | None = None) -> list[bytes]:
        ms = messages(k, count, edit)
        return [thread(ms[3:], path=f"inbox/t{k}"), thread(ms[:3], path=f"inbox/t{k}")]  # newest first

    earlier = {f"t{k}": files(k) for k in range(4)}
    later = {f"t{k}": files(k) for k in range(4)}
    later["t0"] = files(0, count=8)
    later["t9"] = files(9)
    if change == "edit":
        later["t2"] = files(2, edit=1)
    elif change == "deletion":
        later["t2"] = [thread(messages(2)[4:], path="inbox/t2"), thread(messages(2)[:3], path="inbox/t2")]
        del later["t3"]
    return [meta_zip(earlier), meta_zip(later)]


@pytest.mark.parametrize("change", ["append", "edit", "deletion"])
def test_a_messenger_reimport_leaves_the_archive_a_full_reread_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
):
    resumed, reread, results = both_ways(tmp_path, "facebook-maya.zip", meta_versions(change))
    assert resumed == reread
    assert sum(1 for c in results[-1].chats if c.messages_added) == 2 + (change == "edit")


def test_an_unchanged_thread_is_not_parsed_past_its_first_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    loaded: list[str] = []
    original = meta._load
    monkeypatch.setattr(meta, "_load", lambda src, f: loaded.append(f.thread) or original(src, f))
    reimport(tmp_path / "facebook-maya.zip", meta_versions("append"), loaded)
    # Each thread's first file names the chat; only the grown and the new thread read their second.
    assert sorted(loaded) == sorted(["t0", "t0", "t1", "t2", "t3", "t9", "t9"])
