"""Telegram Desktop result.json importer: both export shapes, fields, kinds, escapes, streaming, errors."""

from __future__ import annotations

import collections
import itertools
import json
import tracemalloc
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import telegram
from refind_cli.records import ChatExport, Kind, Message

TZ = ZoneInfo("Europe/Berlin")


def message(mid: int, text: Any = "hi", **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "id": mid,
        "type": "message",
        "date": "2023-07-01T12:00:00",
        "date_unixtime": "1688205600",
        "from": "Alice",
        "from_id": "user1",
        "text": text,
    }
    obj.update(extra)
    return obj


def dialog(ident: int, name: str | None, kind: str, messages: list[Any]) -> dict[str, Any]:
    return {"name": name, "type": kind, "id": ident, "messages": messages}


def account(chats: list[dict[str, Any]], left: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "about": "Here is the data you requested.",
        "personal_information": {"user_id": 1, "first_name": "Me", "last_name": "", "phone_number": "+1"},
        "profile_pictures": [{"photo": "profile_pictures/a.jpg"}],
        "contacts": {"about": "c", "list": [{"first_name": "Bob", "phone_number": "+2"}]},
        "chats": {"about": "Chats", "list": chats},
        "left_chats": {"about": "Left", "list": left or []},
        "other_data": {"about": "o", "changes_log": [{"x": [1, 2, {"y": None}]}]},
    }


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path


def read_all(path: Path) -> list[tuple[ChatExport, list[Message]]]:
    return [(export, list(export.messages)) for export in telegram.read(path, tz=TZ)]


def one(path: Path) -> list[Message]:
    [(_, messages)] = read_all(path)
    return messages


# --- shapes ------------------------------------------------------------------------------------------


def test_single_chat_export(tmp_path: Path) -> None:
    data = dialog(
        4242, "Bob", "personal_chat", [message(1), message(2, "yo", **{"from": "Bob", "from_id": "user2"})]
    )
    path = write(tmp_path / "result.json", data)
    assert telegram.sniff(path)
    [(export, messages)] = read_all(path)
    assert export.chat.source == "telegram"
    assert (export.chat.key, export.chat.name, export.chat.kind) == ("4242", "Bob", "direct")
    assert json.loads(export.chat.raw) == {"name": "Bob", "type": "personal_chat", "id": 4242}
    assert [(m.source_id, m.sender, m.sender_id, m.text) for m in messages] == [
        ("1", "Alice", "user1", "hi"),
        ("2", "Bob", "user2", "yo"),
    ]
    assert json.loads(messages[0].raw) == data["messages"][0]


def test_account_export(tmp_path: Path) -> None:
    chats = [
        dialog(1, "Bob", "personal_chat", [message(1)]),
        dialog(2, "Helper", "bot_chat", [message(1)]),
        {"type": "saved_messages", "id": 3, "messages": [message(1)]},
        dialog(4, None, "personal_chat", [message(1)]),
        dialog(5, "Friends", "private_group", [message(1)]),
        dialog(6, "Big group", "public_supergroup", [message(1)]),
        dialog(7, "News", "public_channel", [message(1)]),
        {"type": "replies", "id": 8, "messages": []},
        dialog(9, None, "private_supergroup", [message(1)]),
    ]
    left = [dialog(10, "Old club", "private_supergroup", [message(1, "bye")])]
    path = write(tmp_path / "result.json", account(chats, left))
    assert telegram.sniff(path)
    exports = read_all(path)
    assert [(e.chat.key, e.chat.name, e.chat.kind) for e, _ in exports] == [
        ("1", "Bob", "direct"),
        ("2", "Helper", "direct"),
        ("3", "Saved Messages", "direct"),
        ("4", "Deleted account", "direct"),
        ("5", "Friends", "group"),
        ("6", "Big group", "group"),
        ("7", "News", "channel"),
        ("8", "Replies", "chat"),
        ("9", "Unnamed chat 9", "group"),
        ("10", "Old club", "group"),
    ]
    assert exports[-1][1][0].text == "bye"
    assert [len(ms) for _, ms in exports] == [1, 1, 1, 1, 1, 1, 1, 0, 1, 1]


def test_account_export_without_chats_is_refused(tmp_path: Path) -> None:
    data = account([])
    del data["chats"], data["left_chats"]
    with pytest.raises(InputError, match="not a Telegram export"):
        read_all(write(tmp_path / "result.json", data))


@pytest.mark.parametrize("content", ["[]", "{}", '{"about": "x"}', '"text"', "3"])
def test_not_telegram_json(tmp_path: Path, content: str) -> None:
    path = tmp_path / "result.json"
    path.write_text(content)
    with pytest.raises(InputError, match="not a Telegram export"):
        read_all(path)


def test_folder_and_zip_forms(tmp_path: Path) -> None:
    data = dialog(1, "Bob", "personal_chat", [message(1), message(2)])
    folder = tmp_path / "ChatExport_2023-07-01"
    folder.mkdir()
    write(folder / "result.json", data)
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ChatExport_2023-07-01/photos/photo_1.jpg", b"\xff\xd8")
        zf.writestr("ChatExport_2023-07-01/result.json", json.dumps(data))
    assert telegram.sniff(folder) and telegram.sniff(archive)
    expected = [(e.chat, ms) for e, ms in read_all(folder / "result.json")]
    assert [(e.chat, ms) for e, ms in read_all(folder)] == expected
    assert [(e.chat, ms) for e, ms in read_all(archive)] == expected


def test_folder_or_zip_without_result_json(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    archive = tmp_path / "a.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("other.json", "{}")
    for path in (empty, archive):
        assert not telegram.sniff(path)
        with pytest.raises(InputError, match=r"no result\.json"):
            read_all(path)


def test_sniff_rejects_other_json(tmp_path: Path) -> None:
    dce = write(
        tmp_path / "dce.json", {"guild": {"id": "1"}, "channel": {"type": "GuildTextChat"}, "messages": []}
    )
    slack_day = write(tmp_path / "2020-01-01.json", [{"type": "message", "ts": "1.0"}])
    text = tmp_path / "chat.txt"
    text.write_text("[1/1/20, 10:00:00] A: hi\n")
    for path in (dce, slack_day, text, tmp_path / "missing.json"):
        assert not telegram.sniff(path)


# --- message fields ----------------------------------------------------------------------------------


def test_text_string_and_mixed_array(tmp_path: Path) -> None:
    parts = [
        "Look at ",
        {"type": "link", "text": "https://ex.am/ple"},
        "! And ",
        {"type": "bold", "text": "this"},
        ".",
    ]
    entity = [{"type": "mention_name", "text": "Bo", "user_id": 2}, "b"]
    data = dialog(
        1, "G", "private_group", [message(1, "plain"), message(2, parts), message(3, entity), message(4, "")]
    )
    assert [m.text for m in one(write(tmp_path / "result.json", data))] == [
        "plain",
        "Look at https://ex.am/ple! And this.",
        "Bob",
        "",
    ]


def test_from_id_int_and_string_and_deleted_sender(tmp_path: Path) -> None:
    msgs = [
        message(1, from_id=123456),
        message(2, from_id="channel777", **{"from": "News"}),
        message(3, **{"from": None, "from_id": "user9"}),
    ]
    got = one(write(tmp_path / "result.json", dialog(1, "G", "private_group", msgs)))
    assert [(m.sender, m.sender_id) for m in got] == [
        ("Alice", "123456"),
        ("News", "channel777"),
        ("Deleted account", "user9"),
    ]


def test_date_unixtime_and_local_date(tmp_path: Path) -> None:
    with_unix = message(1, date="2023-07-01T14:00:00", date_unixtime="1688212800")
    summer = message(2, date="2023-07-01T14:00:00")
    winter = message(3, date="2018-01-15T09:30:05")
    del summer["date_unixtime"], winter["date_unixtime"]
    got = one(write(tmp_path / "result.json", dialog(1, "G", "private_group", [with_unix, summer, winter])))
    assert got[0].timestamp == datetime(2023, 7, 1, 12, 0, tzinfo=UTC)
    assert got[1].timestamp == datetime(2023, 7, 1, 12, 0, tzinfo=UTC)  # Berlin, CEST
    assert got[2].timestamp == datetime(2018, 1, 15, 8, 30, 5, tzinfo=UTC)  # Berlin, CET
    assert [m.local_time for m in got] == [
        "2023-07-01T14:00:00",
        "2023-07-01T14:00:00",
        "2018-01-15T09:30:05",
    ]
    assert all(m.timestamp.tzinfo is UTC for m in got)


def test_reply_and_edited(tmp_path: Path) -> None:
    msgs = [
        message(1),
        message(2, reply_to_message_id=1, edited="2023-07-01T12:05:00", edited_unixtime="1688205900"),
        message(3, edited="2023-07-01T12:05:00"),
    ]
    got = one(write(tmp_path / "result.json", dialog(1, "G", "private_group", msgs)))
    assert [(m.reply_to, m.edited) for m in got] == [(None, False), ("1", True), (None, True)]
    assert all(m.thread is None for m in got)


@pytest.mark.parametrize(
    ("fields", "kind", "text"),
    [
        ({"photo": "photos/photo_1@01-07-2023_12-00-00.jpg", "width": 1, "height": 1}, Kind.ATTACHMENT, ""),
        ({"photo": "(File not included. Change data exporting settings to download.)"}, Kind.MEDIA, ""),
        (
            {"file": "files/report.pdf", "file_name": "report.pdf", "mime_type": "application/pdf"},
            Kind.ATTACHMENT,
            "report.pdf",
        ),
        (
            {"file": "(File exceeds maximum size. Change data exporting settings to download.)"},
            Kind.MEDIA,
            "",
        ),
        (
            {
                "file": "(File not included. Change data exporting settings to download.)",
                "media_type": "sticker",
                "sticker_emoji": "😀",
            },
            Kind.MEDIA,
            "😀",
        ),
        (
            {"file": "voice/a.ogg", "media_type": "audio_file", "performer": "Band", "title": "Song"},
            Kind.ATTACHMENT,
            "Song\nBand",
        ),
        ({"location_information": {"latitude": 52.52, "longitude": 13.405}}, Kind.LOCATION, "52.52, 13.405"),
        (
            {
                "location_information": {"latitude": 1.0, "longitude": 2.0},
                "place_name": "Cafe",
                "address": "Main St 1",
            },
            Kind.LOCATION,
            "Cafe\nMain St 1",
        ),
        (
            {
                "poll": {
                    "question": "Lunch?",
                    "closed": False,
                    "answers": [{"text": "Pizza", "voters": 2}, {"text": "Sushi"}],
                }
            },
            Kind.TEXT,
            "Lunch?\nPizza\nSushi",
        ),
        (
            {"contact_information": {"first_name": "Bob", "last_name": "B", "phone_number": "+49 1"}},
            Kind.ATTACHMENT,
            "Bob B\n+49 1",
        ),
    ],
)
def test_media_location_poll(tmp_path: Path, fields: dict[str, Any], kind: str, text: str) -> None:
    [m] = one(write(tmp_path / "result.json", dialog(1, "G", "private_group", [message(1, "", **fields)])))
    assert (m.kind, m.text) == (kind, text)


def test_photo_with_caption_is_text(tmp_path: Path) -> None:
    [m] = one(
        write(
            tmp_path / "result.json",
            dialog(1, "G", "private_group", [message(1, "look", photo="photos/p.jpg")]),
        )
    )
    assert (m.kind, m.text) == (Kind.TEXT, "look")


def service(mid: int, action: str | None, **fields: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "id": mid,
        "type": "service",
        "date": "2023-07-01T12:00:00",
        "date_unixtime": "1688205600",
    }
    obj.update({"actor": "Alice", "actor_id": "user1", "text": ""})
    if action:
        obj["action"] = action
    obj.update(fields)
    return obj


@pytest.mark.parametrize(
    ("obj", "text"),
    [
        (service(1, "invite_members", members=["Bob", "Carol"]), "Alice invited Bob, Carol"),
        (
            service(1, "create_group", title="Trip", members=["Alice", "Bob"]),
            'Alice created group "Trip" with Alice, Bob',
        ),
        (service(1, "edit_group_title", title="Trip 2024"), 'Alice changed the group name to "Trip 2024"'),
        (service(1, "remove_members", members=["Alice"]), "Alice left"),
        (service(1, "remove_members", members=["Bob", None]), "Alice removed Bob, Deleted account"),
        (
            service(1, "join_group_by_link", inviter="Bob"),
            "Alice joined the group via an invite link from Bob",
        ),
        (service(1, "pin_message", message_id=42), "Alice pinned message 42"),
        (
            service(1, "phone_call", duration_seconds=65, discard_reason="hangup"),
            "Alice called (65 s, hangup)",
        ),
        (service(1, "phone_call", discard_reason="missed"), "Alice called (missed)"),
        (service(1, "create_channel", title="News"), 'Alice created channel "News"'),
        (service(1, "set_chat_wallpaper"), "Alice set chat wallpaper"),
        (service(1, "topic_edit", title="Ideas", members=["Bob"]), 'Alice topic edit "Ideas": Bob'),
        (service(1, None, information_text="Bob joined via request"), "Bob joined via request"),
        (service(1, "invite_members", actor=None, members=["Bob"]), "Deleted account invited Bob"),
    ],
)
def test_service_messages(tmp_path: Path, obj: dict[str, Any], text: str) -> None:
    [m] = one(write(tmp_path / "result.json", dialog(1, "G", "private_group", [obj])))
    assert (m.kind, m.text) == (Kind.SYSTEM, text)
    assert (m.sender, m.sender_id) == (obj.get("actor"), obj.get("actor_id"))


# --- the exporter's \xHH escapes ---------------------------------------------------------------------


def test_hex_escapes_are_read(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    body = r'"a\x01b", "c\\x41d", "e\\\x41f", "g\u00e9\x1f"'
    path.write_text(
        '{"name": "X", "type": "personal_chat", "id": 1, "messages": ['
        + ", ".join(
            f'{{"id": {i}, "type": "message", "date_unixtime": "1", "text": {t}}}'
            for i, t in enumerate(body.split(", "))
        )
        + "]}"
    )
    assert [m.text for m in one(path)] == ["a\x01b", "c\\x41d", "e\\Af", "gé\x1f"]


def _fixed(chunks: list[bytes]) -> bytes:
    stream = telegram._JsonStream(iter(chunks), lambda what, where: InputError("x.json", what, where))
    out = []
    while piece := stream.read(7):
        out.append(piece)
    return b"".join(out)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (rb'"\x41"', rb'"\u0041"'),
        (rb'"\\x41"', rb'"\\x41"'),
        (rb'"\\\x41"', rb'"\\\u0041"'),
        (rb'"\\\\x41"', rb'"\\\\x41"'),
        (rb'"\"x\x00"', rb'"\"x\u0000"'),
        (b"\xef\xbb\xbf{}", b"{}"),
    ],
)
def test_escape_rewrite_at_every_chunk_boundary(source: bytes, expected: bytes) -> None:
    for cut in range(len(source) + 1):
        assert _fixed([source[:cut], source[cut:]]) == expected
    assert _fixed([source[i : i + 1] for i in range(len(source))]) == expected


@given(
    data=st.binary(max_size=60).map(lambda b: b.replace(b"y", b"\\").replace(b"z", b"x")),
    cuts=st.lists(st.integers(0, 60)),
)
def test_escape_rewrite_does_not_depend_on_chunking(data: bytes, cuts: list[int]) -> None:
    points = sorted({0, len(data), *(c for c in cuts if c <= len(data))})
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]
    assert _fixed(chunks) == _fixed([data])
    whole = _fixed([data])
    assert b"\\x" not in whole.replace(b"\\\\", b"")


# --- streaming ---------------------------------------------------------------------------------------


def test_chats_stream_before_the_rest_is_read(tmp_path: Path) -> None:
    good = json.dumps(dialog(1, "First", "personal_chat", [message(1), message(2)]))
    path = tmp_path / "result.json"
    path.write_text(
        '{"chats": {"list": ['
        + good
        + ', {"name": "Second", "type": "personal_chat", "id": 2, "messages": [ !!!'
    )
    chats = telegram.read(path, tz=TZ)
    first = next(chats)
    assert first.chat.name == "First"
    assert not isinstance(first.messages, list)  # a lazy iterator, not a buffered list
    assert [m.source_id for m in first.messages] == ["1", "2"]
    second = next(chats)  # its head is fine; the damage is inside its messages
    assert second.chat.name == "Second"
    with pytest.raises(InputError, match="invalid JSON"):
        list(second.messages)


def test_unread_messages_are_skipped(tmp_path: Path) -> None:
    chats = [
        dialog(1, "A", "personal_chat", [message(1), message(2)]),
        dialog(2, "B", "personal_chat", [message(3)]),
    ]
    path = write(tmp_path / "result.json", account(chats))
    chats = telegram.read(path, tz=TZ)
    first, second = next(chats), next(chats)  # the first chat's messages never touched
    assert [first.chat.name, second.chat.name] == ["A", "B"]
    assert [m.source_id for m in second.messages] == ["3"]
    assert list(first.messages) == []
    assert next(chats, None) is None


def test_metadata_after_messages_is_buffered(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    late = {"messages": [message(1), message(2)], "name": "Late", "type": "private_group", "id": 77}
    write(path, account([late, dialog(2, "Normal", "personal_chat", [message(3)])]))
    exports = read_all(path)
    assert [(e.chat.key, e.chat.name, e.chat.kind, len(ms)) for e, ms in exports] == [
        ("77", "Late", "group", 2),
        ("2", "Normal", "direct", 1),
    ]
    assert isinstance(exports[0][0].messages, list)


def test_a_dialog_without_id_is_keyed_by_what_it_holds_with_one_warning(tmp_path: Path) -> None:
    """A file another tool rewrote (FORMATS.md §4c): read, not refused, under a key that stays."""
    path = write(tmp_path / "result.json", account([{"name": "X", "type": "private_group", "messages": []}]))
    with pytest.warns(InputWarning, match="a dialog has no id") as caught:
        first = read_all(path)
    assert len([w for w in caught if issubclass(w.category, InputWarning)]) == 1
    with pytest.warns(InputWarning):
        assert [c.chat.key for c, _ in read_all(path)] == [c.chat.key for c, _ in first]


# --- errors ------------------------------------------------------------------------------------------


def test_truncated_json_names_the_byte(tmp_path: Path) -> None:
    full = json.dumps(dialog(1, "A", "personal_chat", [message(i) for i in range(50)])).encode()
    path = tmp_path / "result.json"
    path.write_bytes(full[: len(full) // 2])
    with pytest.raises(InputError) as err:
        read_all(path)
    assert "truncated JSON" in err.value.what
    assert err.value.where == f"byte {len(full) // 2}"
    assert str(err.value).startswith(f"{path}: byte {len(full) // 2}: truncated JSON")


def test_truncated_json_in_zip_names_the_entry(tmp_path: Path) -> None:
    archive = tmp_path / "t.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("result.json", '{"name": "A", "type": "personal_chat", "id": 1, "messages": [{"id": 1')
    with pytest.raises(InputError) as err:
        read_all(archive)
    assert err.value.path == str(archive)
    assert err.value.where is not None and err.value.where.startswith("entry 'result.json', byte ")


def test_trailing_garbage_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps(dialog(1, "A", "personal_chat", [message(1)])) + " x")
    with pytest.raises(InputError, match="invalid JSON"):
        read_all(path)


@pytest.mark.parametrize(
    ("msg", "what", "where"),
    [
        ("nope", "not a JSON object", "messages[0]"),
        ({"id": 1, "type": "message", "text": "no date"}, "no date", "messages[0]"),
        ({"id": 1, "date_unixtime": "soon"}, "unreadable time", "messages[0].date_unixtime"),
        ({"id": 1, "date": "yesterday"}, "unreadable time", "messages[0].date"),
        ({"id": 1, "date_unixtime": "1", "text": 5}, "neither a string nor a list", "messages[0].text"),
        ({"id": 1, "date_unixtime": "1", "text": [5]}, "text part", "messages[0].text"),
    ],
)
def test_bad_messages(tmp_path: Path, msg: Any, what: str, where: str) -> None:
    path = write(tmp_path / "result.json", dialog(1, "A", "personal_chat", [msg]))
    with pytest.raises(InputError) as err:
        read_all(path)
    assert what in err.value.what
    assert err.value.where == where


def test_invalid_utf8_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_bytes(
        b'{"name": "A", "type": "personal_chat", "id": 1, "messages": [{"id": 1, "text": "\xff"}]}'
    )
    with pytest.raises(InputError, match="invalid JSON"):
        read_all(path)


# --- properties --------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=10,
)
MESSAGE_KEYS = ["id", "type", "date", "date_unixtime", "from", "from_id", "actor", "actor_id", "action", "members",
                "title", "text", "photo", "file", "media_type", "location_information", "poll", "contact_information",
                "reply_to_message_id", "edited", "place_name", "information_text", "duration_seconds", "inviter"]  # fmt: skip


def _drain(chats: Iterator[ChatExport]) -> None:
    try:
        for export in chats:
            assert isinstance(export.chat.key, str)
            for m in export.messages:
                assert m.timestamp.tzinfo is not None
                assert isinstance(m.text, str)
    except InputError:
        pass


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=400))
def test_any_bytes_give_records_or_input_error(
    tmp_path_factory: pytest.TempPathFactory, content: bytes
) -> None:
    path = tmp_path_factory.mktemp("tg") / "result.json"
    path.write_bytes(content)
    _drain(telegram.read(path, tz=TZ))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.binary(max_size=200), cut=st.integers(0, 2000))
def test_spliced_bytes_give_records_or_input_error(
    tmp_path_factory: pytest.TempPathFactory, content: bytes, cut: int
) -> None:
    valid = json.dumps(
        account([dialog(1, "A", "private_group", [message(1), service(2, "invite_members")])])
    ).encode()
    path = tmp_path_factory.mktemp("tg") / "result.json"
    path.write_bytes(valid[:cut] + content + valid[cut:])
    _drain(telegram.read(path, tz=TZ))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    meta=st.dictionaries(st.sampled_from(["name", "type", "id"]), JSON_VALUES, max_size=3),
    messages=st.lists(
        st.fixed_dictionaries(
            {
                "date_unixtime": st.sampled_from(["1688205600", "-5", "99999999999999", 1688205600])
                | JSON_VALUES
            },
            optional=dict.fromkeys([k for k in MESSAGE_KEYS if k != "date_unixtime"], JSON_VALUES),
        ),
        max_size=4,
    ),
)
def test_any_field_values_give_records_or_input_error(
    tmp_path_factory: pytest.TempPathFactory, meta: dict[str, Any], messages: list[dict[str, Any]]
) -> None:
    path = tmp_path_factory.mktemp("tg") / "result.json"
    write(path, account([{**meta, "messages": messages}]))
    _drain(telegram.read(path, tz=TZ))


def _peak_traced_bytes(path: Path) -> int:
    """The most memory Python objects held at once while every message of ``path`` was read."""
    tracemalloc.start()
    try:
        for export in telegram.read(path, tz=TZ):
            collections.deque(export.messages, maxlen=0)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_messages(tmp_path: Path) -> None:
    # One line, as some exporters write it: the parser must not wait for a newline to hand out events.
    def export(n: int) -> Path:
        folder = tmp_path / str(n)
        folder.mkdir()
        path = folder / "result.json"
        messages = [message(i, f"text {i} " * 30) for i in range(n)]
        path.write_text(json.dumps(dialog(1, "Ann", "personal_chat", messages)), encoding="utf-8")
        return path

    small, large = export(3_000), export(12_000)
    assert large.stat().st_size > 4 << 20  # well past the 1 MB read chunks
    # Holding the 9,000 extra messages, or their raw records, would take several MB more.
    assert _peak_traced_bytes(large) < _peak_traced_bytes(small) + (1 << 20)
