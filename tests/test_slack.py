"""Slack workspace export importer: layout, names, threads, markup, kinds, errors."""

from __future__ import annotations

import json
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.errors import InputError
from refind_cli.importers import slack
from refind_cli.ingest import import_chat, import_file
from refind_cli.records import ChatExport, Kind
from refind_cli.storage.archive import Archive

TZ = UTC

USERS = [
    {
        "id": "U1",
        "name": "alice",
        "real_name": "Alice Real",
        "profile": {"display_name": "Ali", "real_name": "Alice Real"},
    },
    {
        "id": "U2",
        "name": "bob",
        "real_name": "Bob Stone",
        "profile": {"display_name": "", "real_name": "Bob Stone"},
    },
    {"id": "U3", "name": "carol", "profile": {"display_name": "", "real_name": ""}},
]
CHANNELS = [
    {"id": "C1", "name": "general", "created": 1600000000, "members": ["U1", "U2"], "topic": {"value": "hi"}}
]
GROUPS = [{"id": "G1", "name": "secret-plans", "members": ["U1", "U2"]}]
DMS = [{"id": "D1", "created": 1600000000, "members": ["U1", "U2"]}, {"id": "D2", "members": ["U1", "U3"]}]
MPIMS = [{"id": "G2", "name": "mpdm-alice--bob--carol-1", "members": ["U1", "U2", "U3"]}]


def msg(ts: str, text: str | None = "hello", user: str | None = "U1", **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"type": "message", "ts": ts}
    if user is not None:
        obj["user"] = user
    if text is not None:
        obj["text"] = text
    obj.update(extra)
    return obj


def export_files(days: dict[str, list[Any] | bytes], **lists: list[Any]) -> dict[str, bytes]:
    """Relative name -> bytes. ``days`` maps "folder/YYYY-MM-DD.json" to messages (or raw bytes)."""
    files = {f"{name}.json": json.dumps(records).encode() for name, records in lists.items()}
    for name, content in days.items():
        files[name] = content if isinstance(content, bytes) else json.dumps(content).encode()
    return files


def write_folder(root: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


def write_zip(path: Path, files: dict[str, bytes], prefix: str = "") -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(prefix + name, data)
    return path


def read_all(path: Path) -> list[tuple[ChatExport, list[Any]]]:
    return [(export, list(export.messages)) for export in slack.read(path, tz=TZ)]


def full_export() -> dict[str, bytes]:
    return export_files(
        {
            "general/2020-09-13.json": [
                msg("1600000000.000100", "morning <@U2>"),
                msg("1600000100.000200", "hey"),
            ],
            "secret-plans/2020-09-13.json": [msg("1600000200.000000", "psst", user="U2")],
            "D1/2020-09-13.json": [msg("1600000300.000000", "dm to bob")],
            "D2/2020-09-13.json": [msg("1600000400.000000", "dm to carol")],
            "mpdm-alice--bob--carol-1/2020-09-13.json": [msg("1600000500.000000", "all three", user="U3")],
        },
        users=USERS,
        channels=CHANNELS,
        groups=GROUPS,
        dms=DMS,
        mpims=MPIMS,
    )


# --- markup ------------------------------------------------------------------------------------------

USER_MAP = {u["id"]: u for u in USERS}
CHANNEL_MAP = {"C1": "general"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hi <@U1>", "hi @Ali"),
        ("hi <@U2|bobby>", "hi @Bob Stone"),  # users.json wins over the label written at the time
        ("hi <@U3>", "hi @carol"),
        ("hi <@U9|ghost>", "hi @ghost"),
        ("hi <@U9>", "hi @U9"),
        ("see <#C1>", "see #general"),
        ("see <#C7|old-name>", "see #old-name"),
        ("see <#C7>", "see #C7"),
        (
            "read <https://example.com/a?b=1&amp;c=2|the docs>",
            "read the docs (https://example.com/a?b=1&c=2)",
        ),
        ("read <https://example.com/x>", "read https://example.com/x"),
        ("mail <mailto:a@b.org|a@b.org>", "mail a@b.org"),
        ("go <https://example.com|example.com>", "go example.com"),
        ("<!here> <!channel> <!everyone>", "@here @channel @everyone"),
        ("<!here|@here> now", "@here now"),
        ("ping <!subteam^S123|@design-team>", "ping @design-team"),
        ("ping <!subteam^S123>", "ping @S123"),
        ("on <!date^1392734382^{date_short}|Feb 18, 2014>", "on Feb 18, 2014"),
        ("a &lt;b&gt; &amp; c", "a <b> & c"),
        ("&amp;lt; stays one level", "&lt; stays one level"),
        ("unclosed < bracket &amp; <@U1", "unclosed < bracket & <@U1"),
        ("*bold* _it_ :tada:", "*bold* _it_ :tada:"),
    ],
)
def test_render(text: str, expected: str) -> None:
    assert slack.render(text, USER_MAP, CHANNEL_MAP) == expected


# --- layout and chats --------------------------------------------------------------------------------


def test_folder_export_chats(tmp_path: Path) -> None:
    root = write_folder(tmp_path / "export", full_export())
    assert slack.sniff(root)
    keyed = {export.chat.key: (export.chat, messages) for export, messages in read_all(root)}
    # No user names a team: a conversation whose record says when it was made is told by that too.
    assert set(keyed) == {"C1@1600000000", "G1", "D1@1600000000", "D2", "G2"}
    chats = {key.split("@")[0]: chat for key, chat in keyed.items()}

    general, messages = chats["C1"]
    assert (general.source, general.name, general.kind) == ("slack", "#general", "channel")
    assert json.loads(general.raw) == CHANNELS[0]
    assert [m.text for m in messages] == ["morning @Bob Stone", "hey"]

    assert (chats["G1"][0].name, chats["G1"][0].kind) == ("#secret-plans", "channel")
    # U1 is in every DM, so the export is U1's: each DM is named after the other member.
    assert (chats["D1"][0].name, chats["D1"][0].kind) == ("Bob Stone", "direct")
    assert chats["D2"][0].name == "carol"
    assert (chats["G2"][0].name, chats["G2"][0].kind) == ("Bob Stone, carol", "group")


def test_dm_without_a_known_owner_names_both_members(tmp_path: Path) -> None:
    files = export_files({"D1/2020-09-13.json": [msg("1600000300.000000")]}, users=USERS, dms=DMS[:1])
    [(export, _)] = read_all(write_folder(tmp_path, files))
    assert export.chat.name == "Ali, Bob Stone"


def test_message_fields(tmp_path: Path) -> None:
    day = [msg("1736554801.872639", "hello <@U2>", client_msg_id="x")]
    root = write_folder(
        tmp_path, export_files({"general/2025-01-11.json": day}, users=USERS, channels=CHANNELS)
    )
    [(_, [m])] = read_all(root)
    assert m.timestamp == datetime(2025, 1, 11, 0, 20, 1, 872639, tzinfo=UTC)
    assert (m.source_id, m.sender, m.sender_id, m.text, m.kind) == (
        "1736554801.872639",
        "Ali",
        "U1",
        "hello @Bob Stone",
        "text",
    )
    assert (m.thread, m.reply_to, m.edited, m.local_time) == (None, None, False, None)
    assert m.raw == json.dumps(day[0], ensure_ascii=False, sort_keys=True)


def test_missing_optional_files(tmp_path: Path) -> None:
    days = {
        "random/2020-01-01.json": [
            msg(
                "1577836800.000001",
                user="U5",
                user_profile={"display_name": "", "real_name": "Eve Profile", "name": "eve"},
            ),
            msg("1577836801.000001", user="U6"),
        ],
        "D0ABCDEFG/2020-01-01.json": [msg("1577836802.000001")],
        "mpdm-x--y-1/2020-01-01.json": [msg("1577836803.000001")],
    }
    root = write_folder(tmp_path, export_files(days))
    assert slack.sniff(root)
    chats = {e.chat.key: (e.chat, ms) for e, ms in read_all(root)}
    assert (chats["random"][0].name, chats["random"][0].kind, chats["random"][0].raw) == (
        "#random",
        "channel",
        "",
    )
    assert [m.sender for m in chats["random"][1]] == ["Eve Profile", "U6"]
    assert chats["D0ABCDEFG"][0].kind == "direct"
    assert (chats["mpdm-x--y-1"][0].name, chats["mpdm-x--y-1"][0].kind) == ("x, y", "group")


def test_org_users_json(tmp_path: Path) -> None:
    org = [
        {"id": "W1", "name": "wanda", "profile": {"display_name": "Wanda M", "real_name": "Wanda Maximoff"}}
    ]
    days = {"general/2020-01-01.json": [msg("1577836800.000000", "cc <@W1>", user="W1")]}
    root = write_folder(tmp_path, export_files(days, org_users=org, channels=CHANNELS))
    [(_, [m])] = read_all(root)
    assert (m.sender, m.text) == ("Wanda M", "cc @Wanda M")


def test_threads_span_day_files_and_are_ordered_by_ts(tmp_path: Path) -> None:
    parent = msg("1600000000.000100", "question?", reply_count=2, thread_ts="1600000000.000100")
    lonely = msg("1600000050.000000", "no replies", thread_ts="1600000050.000000", reply_count=0)
    day1 = [parent, lonely, msg("1600000100.000000", "same day, later")]
    reply1 = msg(
        "1600090000.000000", "answer one", user="U2", thread_ts="1600000000.000100", parent_user_id="U1"
    )
    day2 = [msg("1600090100.000000", "next day chatter"), reply1]
    day3 = [msg("1600200000.000000", "late answer", user="U2", thread_ts="1600000000.000100")]
    # Day files deliberately listed out of order in the dict; file order must not matter.
    days = {"general/2020-09-16.json": day3, "general/2020-09-13.json": day1, "general/2020-09-14.json": day2}
    [(_, messages)] = read_all(write_folder(tmp_path, export_files(days, channels=CHANNELS)))
    assert [m.text for m in messages] == [
        "question?",
        "no replies",
        "same day, later",
        "answer one",
        "next day chatter",
        "late answer",
    ]
    by_text = {m.text: m for m in messages}
    assert by_text["question?"].thread == "1600000000.000100"
    assert by_text["question?"].reply_to is None
    for reply in ("answer one", "late answer"):
        assert by_text[reply].thread == by_text[reply].reply_to == "1600000000.000100"
    assert by_text["no replies"].thread is None
    assert by_text["same day, later"].thread is None


def test_parent_without_reply_count_still_a_thread_when_replies_exist(tmp_path: Path) -> None:
    day = [
        msg("1600000000.000000", "root", thread_ts="1600000000.000000"),
        msg("1600000001.000000", "r", thread_ts="1600000000.000000"),
    ]
    [(_, messages)] = read_all(write_folder(tmp_path, export_files({"general/2020-09-13.json": day})))
    assert [m.thread for m in messages] == ["1600000000.000000", "1600000000.000000"]


def test_subtypes_and_kinds(tmp_path: Path) -> None:
    day = [
        msg("1.000001", "<@U2> has joined the channel", user="U2", subtype="channel_join"),
        msg("1.000002", "<@U2> has left the channel", user="U2", subtype="channel_leave"),
        msg("1.000003", "set the channel topic: x", subtype="channel_topic"),
        msg("1.000004", "set the channel purpose: y", subtype="channel_purpose"),
        msg("1.000005", "renamed the channel", subtype="channel_name"),
        msg("1.000006", "build passed", user=None, subtype="bot_message", bot_id="B1", username="CI Bot"),
        msg("1.000007", "deploy done", user="U9", bot_id="B2", bot_profile={"name": "Deployer"}),
        msg(
            "1.000008",
            None,
            subtype="file_share",
            files=[{"id": "F1", "name": "report.pdf", "title": "Report"}],
        ),
        msg("1.000009", "see file", files=[{"id": "F2", "name": "a.png"}]),
        msg(
            "1.000010",
            "This message was deleted.",
            user="USLACKBOT",
            subtype="tombstone",
            thread_ts="1.000010",
            reply_count=1,
        ),
        msg("1.000011", "fixed typo", edited={"user": "U1", "ts": "1.000020"}),
        msg(
            "1.000012",
            "",
            user=None,
            subtype="bot_message",
            attachments=[{"fallback": "Alert: disk full", "pretext": "Ops"}],
        ),
        msg(
            "1.000013",
            None,
            attachments=[{"title": "Unfurl", "text": "body <https://x.org|X>", "fallback": "fb"}],
        ),
        msg("1.000014", None, file={"name": "legacy.txt"}),
        msg("1.000015", None, user=None),
    ]
    [(_, ms)] = read_all(write_folder(tmp_path, export_files({"general/1970-01-01.json": day}, users=USERS)))
    assert [m.kind for m in ms] == [
        Kind.SYSTEM,
        Kind.SYSTEM,
        Kind.SYSTEM,
        Kind.SYSTEM,
        Kind.SYSTEM,
        Kind.BOT,
        Kind.BOT,
        Kind.ATTACHMENT,
        Kind.ATTACHMENT,
        Kind.DELETED,
        Kind.TEXT,
        Kind.BOT,
        Kind.TEXT,
        Kind.ATTACHMENT,
        Kind.TEXT,
    ]
    assert ms[0].text == "@Bob Stone has joined the channel"
    assert (ms[5].sender, ms[5].sender_id) == ("CI Bot", None)
    assert (ms[6].sender, ms[6].sender_id) == ("Deployer", "U9")
    assert ms[7].text == "report.pdf"
    assert ms[8].text == "see file"
    assert ms[9].thread == "1.000010"
    assert [m.edited for m in ms].count(True) == 1 and ms[10].edited
    assert ms[11].text == "Ops\nAlert: disk full"
    assert ms[12].text == "Unfurl\nbody X (https://x.org)"
    assert ms[13].text == "legacy.txt"
    assert (ms[14].text, ms[14].sender) == ("", None)


# --- zip form ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["", "Acme Slack export Jan 1 2020 - Dec 31 2020/"])
def test_zip_matches_folder(tmp_path: Path, prefix: str) -> None:
    files = full_export()
    folder = write_folder(tmp_path / "folder", files)
    archive = write_zip(tmp_path / "export.zip", {**files, "__MACOSX/._users.json": b"\0junk"}, prefix)
    assert slack.sniff(archive)
    from_zip = [(e.chat, ms) for e, ms in read_all(archive)]
    from_folder = [(e.chat, ms) for e, ms in read_all(folder)]
    assert from_zip == from_folder
    assert len(from_zip) == 5


# --- identity in an archive -------------------------------------------------------------------------

SAMPLE = Path(__file__).resolve().parent.parent / "sample_exports" / "slack-export-acme"


def workspace_export(root: Path, team: str, texts: list[str]) -> Path:
    users = [{"id": "U1", "team_id": team, "name": "ann"}]
    days = {"chat/2020-09-13.json": [msg(f"16000000{i:02d}.000100", t) for i, t in enumerate(texts)]}
    return write_folder(root, export_files(days, users=users, channels=[{"id": "C0CHAT", "name": "chat"}]))


def stored(archive: Archive) -> list[tuple[str, str, str, int]]:
    sql = "SELECT c.key, m.uid, m.text, m.edited FROM messages m JOIN chats c ON c.seq = m.chat_seq"
    return sorted(archive.db.execute(sql).fetchall())


def test_exports_of_workspaces_reusing_a_channel_id_stay_apart(tmp_path: Path) -> None:
    with Archive.open(tmp_path / "home") as archive:
        for n in range(5):
            export = workspace_export(tmp_path / f"ws{n}", f"T{n}", [f"ws{n} says {i}" for i in range(6)])
            [chat] = import_file(archive, export, tz=UTC).chats
            assert (chat.name, chat.messages_added) == ("#chat", 6)
        assert sorted(c.info.key for c in archive.chats()) == [f"T{n}/C0CHAT" for n in range(5)]
        assert len(stored(archive)) == 30


def test_workspace_is_the_team_of_most_users() -> None:
    users = {u: {"team_id": t} for u, t in [("U1", "T2"), ("U2", "T2"), ("U3", "T1"), ("U4", "")]}
    assert slack._workspace(users) == "T2"
    assert slack._workspace({"U1": {"team_id": "T2"}, "U2": {"team_id": "T1"}}) == "T1"
    assert slack._workspace({"U1": {"name": "no team"}}) is None


def read_old_way(path: Path) -> list[ChatExport]:
    """The chats as earlier releases keyed them: by channel or DM id alone."""
    return [
        ChatExport(e.chat._replace(key=e.chat.former_key, former_key=None), list(e.messages))
        for e in slack.read(path, tz=UTC)
    ]


@pytest.mark.parametrize("worker", [False, True])
def test_reimporting_into_an_archive_of_an_earlier_release_adds_nothing(tmp_path: Path, worker: bool) -> None:
    with Archive.open(tmp_path / "home") as archive:
        old = read_old_way(SAMPLE)
        for export in old:
            import_chat(archive, export.chat, export.messages)
        before = [row[1:] for row in stored(archive)], archive.counts()
        result = import_file(archive, SAMPLE, tz=UTC, worker=worker)
        assert [c.messages_added for c in result.chats] == [0] * len(old)
        assert ([row[1:] for row in stored(archive)], archive.counts()) == before
        # Each chat keeps its uid (and so its session ids) and takes the key this release gives it.
        assert {c.info.key for c in archive.chats()} == {e.chat.key for e in slack.read(SAMPLE, tz=UTC)}
        uids = {r[0] for r in archive.db.execute("SELECT uid FROM chats")}
        assert uids == {f"slack:{e.chat.key}" for e in old}


def test_a_chat_adopted_under_its_former_key_is_adopted_once(tmp_path: Path) -> None:
    """An archive of an earlier release holds one workspace's channel under its id alone: another
    workspace's export reusing the id is a chat of its own, not added to the adopted one."""
    with Archive.open(tmp_path / "home") as archive:
        first = workspace_export(tmp_path / "a", "TA", ["a one", "a two"])
        for export in read_old_way(first):
            import_chat(archive, export.chat, export.messages)
        assert [c.messages_added for c in import_file(archive, first, tz=UTC).chats] == [0]
        other = workspace_export(tmp_path / "b", "TB", ["b one", "b two", "b three"])
        assert [c.messages_added for c in import_file(archive, other, tz=UTC).chats] == [3]
        assert [c.messages_added for c in import_file(archive, first, tz=UTC, reread=True).chats] == [0]
        assert sorted((c.info.key, c.messages) for c in archive.chats()) == [
            ("TA/C0CHAT", 2),
            ("TB/C0CHAT", 3),
        ]


def test_a_chat_forgotten_under_its_former_key_stays_forgotten(tmp_path: Path) -> None:
    export = workspace_export(tmp_path / "ws", "T1", ["one", "two"])
    with Archive.open(tmp_path / "home") as archive:
        [old] = read_old_way(export)
        import_chat(archive, old.chat, old.messages)
        archive.forget_messages([seq for (seq,) in archive.db.execute("SELECT seq FROM messages")])
        archive.delete_chat_if_empty(1)
        [chat] = import_file(archive, export, tz=UTC).chats
        assert (chat.messages_added, stored(archive)) == (0, [])


def test_a_message_stored_with_another_text_is_kept_flagged_edited(tmp_path: Path) -> None:
    with Archive.open(tmp_path / "home") as archive:
        import_file(archive, workspace_export(tmp_path / "a", "T1", ["one", "two"]), tz=UTC)
        # The same message ids, one text changed (edited in Slack), and two messages sharing an id.
        later = workspace_export(tmp_path / "b", "T1", ["one", "two, edited", "three"])
        day = later / "chat" / "2020-09-13.json"
        day.write_text(json.dumps([*json.loads(day.read_text()), msg("1600000002.000100", "three too")]))
        [chat] = import_file(archive, later, tz=UTC).chats
        assert chat.messages_added == 3
        rows = [(text, edited) for _key, _uid, text, edited in stored(archive)]
        assert sorted(rows) == [("one", 0), ("three", 0), ("three too", 1), ("two", 0), ("two, edited", 1)]
        [chat] = import_file(archive, later, tz=UTC, reread=True).chats
        assert chat.messages_added == 0
        edited_seqs = [
            s for (s,) in archive.db.execute("SELECT seq FROM messages WHERE text = 'two, edited'")
        ]
        archive.forget_messages(edited_seqs)
        [chat] = import_file(archive, later, tz=UTC, reread=True).chats
        assert chat.messages_added == 0 and len(stored(archive)) == 4


# --- errors ------------------------------------------------------------------------------------------


def test_malformed_day_file_in_folder(tmp_path: Path) -> None:
    days: dict[str, list[Any] | bytes] = {
        "general/2020-01-01.json": b'[\n  {"ts": "1.0",\n   "text": "x" oops}\n]'
    }
    root = write_folder(tmp_path, export_files(days, channels=CHANNELS))
    with pytest.raises(InputError) as err:
        read_all(root)
    assert err.value.path == str(root / "general/2020-01-01.json")
    assert err.value.where == "line 3 column 16"
    assert "invalid JSON" in err.value.what


def test_malformed_day_file_in_zip(tmp_path: Path) -> None:
    days: dict[str, list[Any] | bytes] = {"general/2020-01-01.json": b"[{"}
    archive = write_zip(tmp_path / "e.zip", export_files(days, channels=CHANNELS))
    with pytest.raises(InputError) as err:
        read_all(archive)
    assert err.value.path == str(archive)
    assert err.value.where == "entry 'general/2020-01-01.json', line 1 column 3"


@pytest.mark.parametrize(
    ("content", "what", "where"),
    [
        (b'{"ts": "1.0"}', "not a JSON array", None),
        (b'["text"]', "not a JSON object", "message 0"),
        (b'[{"ts": "1.0"}, {"text": "no ts"}]', "no valid ts", "message 1"),
        (b'[{"ts": "soon"}]', "no valid ts", "message 0"),
        (b'[{"ts": "999999999999.0"}]', "out of range", "message 0"),
        (b"\xff\xfe\x00\xd8", "invalid UTF-16", None),
        (b'["\xff"]', "invalid UTF-8", "line 1"),
    ],
)
def test_bad_day_files(tmp_path: Path, content: bytes, what: str, where: str | None) -> None:
    root = write_folder(tmp_path, export_files({"general/2020-01-01.json": content}))
    with pytest.raises(InputError) as err:
        read_all(root)
    assert what in err.value.what
    assert err.value.where == where


def test_lone_surrogates_become_replacement_characters(tmp_path: Path) -> None:
    day = b'[{"ts": "1.0", "text": "cut \\ud83d", "user": "U1", "x": ["\\ude00", "\\ud83d\\ude00", "\\\\ud800"]}]'
    [(_, [m])] = read_all(write_folder(tmp_path, export_files({"general/2020-01-01.json": day})))
    assert m.text == "cut \ufffd"
    assert json.loads(m.raw)["x"] == ["\ufffd", "\U0001f600", "\\ud800"]
    m.raw.encode("utf-8")  # storable


def test_bad_metadata_file(tmp_path: Path) -> None:
    files = export_files({"general/2020-01-01.json": [msg("1.0")]})
    files["users.json"] = b'{"not": "a list"}'
    root = write_folder(tmp_path, files)
    with pytest.raises(InputError, match=r"users\.json: is not a JSON array"):
        read_all(root)


def test_plain_file_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "x.json"
    file.write_text("[]")
    assert not slack.sniff(file)
    with pytest.raises(InputError, match="zip or a folder"):
        read_all(file)


def test_sniff_rejects_other_things(tmp_path: Path) -> None:
    (tmp_path / "tg").mkdir()
    (tmp_path / "tg" / "result.json").write_text(
        '{"name": "x", "type": "personal_chat", "id": 1, "messages": []}'
    )
    assert not slack.sniff(tmp_path / "tg")
    wa = write_zip(tmp_path / "wa.zip", {"_chat.txt": b"[1/1/20, 10:00:00] A: hi\n"})
    assert not slack.sniff(wa)
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    assert not slack.sniff(bad)
    assert not slack.sniff(tmp_path / "missing")


# --- properties --------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
MESSAGE_KEYS = ["ts", "text", "user", "subtype", "thread_ts", "reply_count", "files", "file", "attachments",
                "bot_id", "bot_profile", "user_profile", "username", "edited", "replies"]  # fmt: skip


def _read_or_input_error(root: Path) -> None:
    try:
        for export in slack.read(root, tz=TZ):
            for m in export.messages:
                assert m.timestamp.tzinfo is not None
    except InputError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=300))
def test_any_day_file_bytes_give_records_or_input_error(
    tmp_path_factory: pytest.TempPathFactory, content: bytes
) -> None:
    files = full_export()
    files["general/2020-09-14.json"] = content
    _read_or_input_error(write_folder(tmp_path_factory.mktemp("slack"), files))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    messages=st.lists(
        st.dictionaries(st.sampled_from(MESSAGE_KEYS), JSON_VALUES, max_size=6)
        | st.fixed_dictionaries(
            {"ts": st.sampled_from(["1.5", "1600000000.000100", "7"])},
            optional={k: JSON_VALUES for k in MESSAGE_KEYS[1:]},
        ),
        max_size=5,
    )
)
def test_any_message_shapes_give_records_or_input_error(
    tmp_path_factory: pytest.TempPathFactory, messages: list[dict[str, Any]]
) -> None:
    files = full_export()
    files["general/2020-09-14.json"] = json.dumps(messages).encode()
    _read_or_input_error(write_folder(tmp_path_factory.mktemp("slack"), files))
