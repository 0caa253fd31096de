"""Google Chat and Skype exports read again (issue 26 item 1, session 17).

A Google Chat group whose print (``google_chat._Print``) an earlier import left is taken as it is where its
messages.json's stamp is the same (in a zip, its CRC-32 and size: nothing inflated), and read on from the
print's head where its first bytes are the same; a Skype conversation that grew is read on from a head of its
``MessageList``, with the names its messages before the head taught. Either way the archive ends exactly as a
full re-read (``--reread``) of the new file leaves it: after a group or conversation grew, one was edited in
the middle, one lost a message, one was deleted, one's context changed. A home whose Google Chat groups main
fingerprinted (the hash of their files) takes them as they are once, and prints them from then on."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import pytest
from test_resume_import import BERLIN, archive_rows, both_ways
from test_resume_teams import zipped

from refind_cli.importers import container, google_chat, skype
from refind_cli.ingest import import_file
from refind_cli.reports import FileImportResult
from refind_cli.storage.archive import Archive

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
WORDS = "the climbing wall opens at nine and we meet at the bouldering cave before lunch".split()
ROOT = "Takeout/Google Chat"
T = TypeVar("T")


def _text(i: int) -> str:
    """A message of 60-100 characters, different for each ``i``: 500 of them run past a read block."""
    return " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(12 + i % 6)) + f" #{i}"


# --- Google Chat ---------------------------------------------------------------------------------------------


def _stamp(t: datetime) -> str:
    return f"{t:%A, %B} {t.day}, {t.year} at {t.hour % 12 or 12}:{t:%M:%S %p} UTC"


def gchat_message(g: int, i: int, *, edit: bool = False, undated: bool = False) -> dict:
    sender = ("Aylin Demir", "Jonas Weber", "Mina Park")[(i + g) % 3]
    return {
        "creator": {
            "name": sender,
            "email": f"{sender.split()[0].lower()}@example.com",
            "user_type": "Human",
        },
        "created_date": "Unknown Date" if undated else _stamp(START + timedelta(days=g, minutes=i)),
        "text": _text(i) + " (edited)" * edit,
        "topic_id": f"t{i}",
        "message_id": f"SPACE{g}/t{i}/m{i}",
    }


def gchat_group(
    g: int, n: int, *, edit: int | None = None, gone: int | None = None, undated: int = -1
) -> bytes:
    messages = [gchat_message(g, i, edit=i == edit, undated=i == undated) for i in range(n) if i != gone]
    return json.dumps({"messages": messages}, indent=2, ensure_ascii=False).encode()


def gchat_files(groups: dict[int, bytes], names: dict[int, str] | None = None) -> dict[str, bytes]:
    """A Takeout's Google Chat files: each group's messages.json and group_info.json, the account's email."""
    files = {
        f"{ROOT}/Users/User 1/user_info.json": json.dumps({"user": {"email": "aylin@example.com"}}).encode()
    }
    for g, raw in groups.items():
        folder = f"{ROOT}/Groups/Space SPACE{g}"
        files[f"{folder}/messages.json"] = raw
        name = (names or {}).get(g, f"Space {g}")
        files[f"{folder}/group_info.json"] = json.dumps({"name": name}).encode()
    return files


def read_again(
    tmp_path: Path, built: list[str], name: str, versions: list[bytes], earlier: int, later: int
) -> tuple[list[str], FileImportResult]:
    """``both_ways`` of two versions (of ``earlier`` and ``later`` messages), held to both archives being the
    same: what the resumed import built (``built`` counts all: between the first import's and the re-read's,
    each of which builds all it reads), and its result."""
    resumed, reread, results = both_ways(tmp_path, name, versions)
    assert resumed == reread
    return built[earlier : len(built) - earlier - later], results[-1]


def grown(make: Callable[..., T], change: str) -> tuple[dict[int, T], dict[int, T]]:
    """Chats 0-3 of 500 messages each (``make(c, n, edit=, gone=)``); then chat 1 grew by 40, chat 4 is new,
    and as ``change`` says: chat 2 edited in the middle, chat 3 lost a message or was deleted."""
    earlier = {c: make(c, 500) for c in range(4)}
    later = {**earlier, 1: make(1, 540), 4: make(4, 30)}
    if change == "edit":
        later[2] = make(2, 500, edit=250)
    elif change == "message deleted":
        later[3] = make(3, 500, gone=200)
    elif change == "deletion":
        del later[3]
    return earlier, later


def gchat_versions(change: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
    earlier, later = grown(gchat_group, change)
    names = None
    if change == "undated":  # the first message after the head takes the time of the one before it
        later[1] = gchat_group(1, 540, undated=500)
    elif change == "renamed":  # the grown group's info changed: its print is another's
        names = {1: "Kletterkiez"}
    return gchat_files(earlier), gchat_files(later, names)


def built_messages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the Google Chat messages built from now on."""
    built: list[str] = []
    original = google_chat._message

    def counted(entry: dict, me: str | None, when: datetime):  # type: ignore[no-untyped-def]
        built.append(entry["message_id"])
        return original(entry, me, when)

    monkeypatch.setattr(google_chat, "_message", counted)
    return built


def inflated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The zip members whose bytes are read from now on."""
    names: list[str] = []
    original = container.iter_member_chunks

    def counted(zf: zipfile.ZipFile, name: str, path: Path, step: int = container.CHUNK):  # type: ignore[no-untyped-def]
        names.append(name)
        return original(zf, name, path, step)

    monkeypatch.setattr(google_chat, "iter_member_chunks", counted)
    return names


@pytest.mark.parametrize("change", ["append", "edit", "message deleted", "deletion", "undated", "renamed"])
def test_a_grown_google_chat_zip_reimports_as_a_full_reread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    earlier, later = gchat_versions(change)
    built = built_messages(monkeypatch)
    n_later = sum(len(json.loads(raw)["messages"]) for name, raw in later.items() if name.endswith("s.json"))
    read, result = read_again(
        tmp_path, built, "takeout-001.zip", [zipped(earlier), zipped(later)], 2000, n_later
    )
    by_group = {g: sum(1 for m in read if m.startswith(f"SPACE{g}/")) for g in range(5)}
    assert by_group[4] == 30  # the new group, whole
    if change == "renamed":
        assert by_group[1] == 540  # its print's tag is another's: read whole
    else:
        assert 40 <= by_group[1] < 540  # from its head on
    assert by_group[2] == (500 if change == "edit" else 0)
    assert by_group[3] == (499 if change == "message deleted" else 0)
    assert by_group[0] == 0
    chat = {c.chat_uid: c for c in result.chats}["google-chat:SPACE1"]
    assert (chat.messages_added, chat.messages_added + chat.messages_skipped) == (40, 540)


def test_unchanged_google_chat_groups_are_not_inflated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The resumed import opens the grown group's messages.json (its head checked, read on, its print's head
    hashed) and the new group's; not the others'."""
    earlier, later = gchat_versions("append")
    path = tmp_path / "takeout.zip"
    with Archive.open(tmp_path / "home") as archive:
        path.write_bytes(zipped(earlier))
        assert import_file(archive, path, tz=BERLIN).error is None
        path.write_bytes(zipped(later))
        opened = inflated(monkeypatch)
        built = built_messages(monkeypatch)
        result = import_file(archive, path, tz=BERLIN)
    assert result.error is None
    groups = {n.split("/")[-2] for n in opened if n.endswith("messages.json")}
    assert groups == {"Space SPACE1", "Space SPACE4"}
    assert not any(m.startswith(("SPACE0/", "SPACE2/", "SPACE3/")) for m in built)


def test_a_google_chat_folder_reimports_as_a_full_reread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unpacked Takeout: a file's stamp is the hash of its bytes."""
    built = built_messages(monkeypatch)
    out = []
    for way in ("resume", "reread"):
        root = tmp_path / way / "Takeout"
        with Archive.open(tmp_path / way / "home") as archive:
            for i, files in enumerate(gchat_versions("edit")):
                for name, data in files.items():
                    (root.parent / name).parent.mkdir(parents=True, exist_ok=True)
                    (root.parent / name).write_bytes(data)
                reread = i == 1 and way == "reread"
                result = import_file(archive, root / "Google Chat", tz=BERLIN, reread=reread)
                assert result.error is None, result.error
                if way == "resume" and i == 1:
                    assert 40 <= sum(1 for m in built[2000:] if m.startswith("SPACE1/")) < 300
            out.append(archive_rows(archive))
    assert out[0] == out[1]


@pytest.mark.parametrize("message", [502, 510, 525, 539])
def test_an_error_after_the_head_is_the_one_a_whole_reading_meets(tmp_path: Path, message: int) -> None:
    """The same words and place ("near byte ..."): the reading gone on from a head reads in other blocks."""
    earlier, later = gchat_versions("append")
    name = f"{ROOT}/Groups/Space SPACE1/messages.json"
    raw = later[name]
    at = raw.index(b'"topic_id": "t%d"' % message) + len(b'"topic_id"')  # a message after the head
    broken = raw[:at] + b";" + raw[at + 1 :]
    errors: list[str] = []
    for way in ("resume", "reread"):
        path = tmp_path / way / "takeout.zip"
        path.parent.mkdir()
        with Archive.open(tmp_path / way / "home") as archive:
            path.write_bytes(zipped(earlier))
            assert import_file(archive, path, tz=BERLIN).error is None
            path.write_bytes(zipped({**later, name: broken}))
            errors.append(str(import_file(archive, path, tz=BERLIN, reread=way == "reread").error))
    assert "invalid JSON" in errors[0]
    assert errors[0].replace(f"{tmp_path}/resume", "") == errors[1].replace(f"{tmp_path}/reread", "")


def _as_main_left_them(archive: Archive, files: dict[str, bytes]) -> None:
    """The home's Google Chat prints rewritten as main (up to session 16) wrote them: each group's fingerprint
    the hash of its messages.json, its group_info.json and the account's email, each framed by its length."""
    [(seq, _, _, resume)] = archive.resume_points("google-chat", _settings(archive))
    data = json.loads(resume)
    for uid, (_, seen) in data["chats"].items():
        folder = f"{ROOT}/Groups/Space {uid.split(':')[1]}"
        former = container.fingerprint(
            [files[f"{folder}/messages.json"], files[f"{folder}/group_info.json"], b"aylin@example.com"]
        )
        data["chats"][uid] = [former, seen]
    archive.set_resume_point(seq, json.dumps(data))


def _settings(archive: Archive) -> str:
    [(settings,)] = archive.db.execute("SELECT DISTINCT settings FROM imports WHERE format = 'google-chat'")
    return str(settings)


def test_a_home_main_wrote_takes_its_groups_as_they_are_once_then_goes_on_from_heads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    earlier, later = gchat_versions("append")
    further = gchat_files(
        {**{g: gchat_group(g, 500) for g in range(4)}, 1: gchat_group(1, 560), 4: gchat_group(4, 30)}
    )
    built = built_messages(monkeypatch)
    out = []
    for way in ("resume", "reread"):
        path = tmp_path / way / "takeout.zip"
        path.parent.mkdir()
        with Archive.open(tmp_path / way / "home") as archive:
            path.write_bytes(zipped(earlier))
            assert import_file(archive, path, tz=BERLIN).error is None
            _as_main_left_them(archive, earlier)
            start = len(built)
            path.write_bytes(zipped(later))
            assert import_file(archive, path, tz=BERLIN, reread=way == "reread").error is None
            if way == "resume":
                # The groups as they were are taken so; the grown one, whose former print has no head, is read
                # whole; every group is printed anew.
                assert {m.split("/")[0] for m in built[start:]} == {"SPACE1", "SPACE4"}
                assert sum(1 for m in built[start:] if m.startswith("SPACE1/")) == 540
                [(_, _, _, resume)] = archive.resume_points("google-chat", _settings(archive))
                prints = json.loads(resume)["chats"]
                assert len(prints) == 5 and all(fp.startswith("google-chat-1 ") for fp, _ in prints.values())
                start = len(built)
            path.write_bytes(zipped(further))
            assert import_file(archive, path, tz=BERLIN, reread=way == "reread").error is None
            if way == "resume":
                assert {m.split("/")[0] for m in built[start:]} == {"SPACE1"}
                assert 20 <= len(built[start:]) < 300
            out.append(archive_rows(archive))
    assert out[0] == out[1]


# --- Skype ---------------------------------------------------------------------------------------------------


def skype_conversation(
    c: int,
    n: int,
    *,
    edit: int | None = None,
    gone: int | None = None,
    ids: bool = True,
    one: str = "Person 1",
) -> dict:
    """``n`` messages from persons 0-3 in turn, but every tenth from person ``local<c>`` (named by their first
    message, ahead of any head; read by their later ones) and, from message 520 on, person 9 (named by
    message 520). Conversation 0's first messages name persons 1 (``one``) and 2, whom later conversations
    read."""
    messages = []
    for i in range(n):
        if i == gone:
            continue
        sender, shown = f"8:person{(c + i) % 4}", None
        if c == 0 and i in (1, 2):
            shown = one if i == 1 else "Person 2"
        if i % 10 == 1 and c != 0:
            sender, shown = f"8:local{c}", f"Local {c}" if i == 1 else None
        if i >= 520:
            sender, shown = "8:person9", "Late" if i == 520 else None
        messages.append(
            {
                **({"id": f"{c}{i:05d}"} if ids else {}),
                "displayName": shown,
                "originalarrivaltime": (START + timedelta(days=c, minutes=i)).strftime(
                    "%Y-%m-%dT%H:%M:%S.000Z"
                ),
                "messagetype": "RichText",
                "content": f"<b>{_text(i)}</b>" + " (edited)" * (i == edit),
                "from": sender,
            }
        )
    return {
        "id": f"19:group{c}@thread.skype",
        "displayName": None,
        "threadProperties": {"topic": f"Group {c}"},
        "MessageList": messages,
    }


def skype_export(conversations: list[dict]) -> bytes:
    data = {"userId": "8:person0", "exportDate": "2026-06-01T00:00:00.000Z", "conversations": conversations}
    return json.dumps(data, indent=1).encode()


def skype_versions(change: str) -> tuple[list[dict], list[dict]]:
    earlier, later = grown(skype_conversation, change)
    if change == "renamed":  # a name conversation 0 taught changed: the later conversations read it
        later[0] = skype_conversation(0, 500, one="Pat One")
    elif change == "unnamed":  # conversation 1's messages have no ids: read whole
        earlier[1] = skype_conversation(1, 500, ids=False)
        later[1] = skype_conversation(1, 540, ids=False)
    return list(earlier.values()), list(later.values())


def skype_built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The places of the Skype messages built from now on."""
    built: list[str] = []
    original = skype._Reader._message

    def counted(self: skype._Reader, obj: dict, where: str):  # type: ignore[no-untyped-def]
        built.append(where)
        return original(self, obj, where)

    monkeypatch.setattr(skype._Reader, "_message", counted)
    return built


def _count(conversations: list[dict]) -> int:
    return sum(len(c["MessageList"]) for c in conversations)


@pytest.mark.parametrize("change", ["append", "edit", "message deleted", "deletion", "renamed", "unnamed"])
def test_a_grown_skype_export_reimports_as_a_full_reread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    earlier, later = skype_versions(change)
    built = skype_built(monkeypatch)
    versions = [skype_export(earlier), skype_export(later)]
    read, result = read_again(tmp_path, built, "messages.json", versions, _count(earlier), _count(later))
    by = {c: sum(1 for w in read if w.startswith(f"conversations[{c}].")) for c in range(5)}
    if change in ("renamed", "unnamed"):
        assert by[1] == 540  # the names before it changed, or a message before any head has no id
    else:
        assert 40 <= by[1] < 540
    assert by[0] == (500 if change == "renamed" else 0)
    chat = {c.chat_uid: c for c in result.chats}["skype:19:group1@thread.skype"]
    assert (chat.messages_added, chat.messages_added + chat.messages_skipped) == (40, 540)


def test_a_skype_conversation_grown_twice_goes_on_from_its_new_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The names its messages before the first head taught, and those after it, carry over to the print of
    the second reading (``_Reader._taught``): the third export goes on from its head with them."""
    versions = [[skype_conversation(c, n) for c in range(3)] for n in (500, 540, 600)]
    built = skype_built(monkeypatch)
    resumed, reread, _ = both_ways(tmp_path, "messages.json", [skype_export(v) for v in versions])
    assert resumed == reread
    path = tmp_path / "again" / "messages.json"
    path.parent.mkdir()
    with Archive.open(tmp_path / "again" / "home") as archive:
        for version in versions:
            path.write_bytes(skype_export(version))
            start = len(built)
            assert import_file(archive, path, tz=BERLIN).error is None
    # The third reading of each conversation (each grew by 60): from its second reading's head on.
    for c in range(3):
        assert 60 <= sum(1 for w in built[start:] if w.startswith(f"conversations[{c}].")) < 600
