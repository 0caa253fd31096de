"""Discord: DiscordChatExporter JSON (``discord``) and Discord's own data package (``discord-package``).
Samples, kinds and flags, identity and re-import, the refused outputs, hostile inputs, property tests."""

from __future__ import annotations

import copy
import csv
import importlib.util
import io
import json
import shutil
import sys
import time
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import SAMPLES
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401  (registers the command)
from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.frontends.cli import app
from refind_cli.importers import container, discord, discord_package
from refind_cli.records import Kind, Message

TZ = ZoneInfo("Europe/Berlin")
GENERAL = SAMPLES / "discord-kletterkiez-general.json"
DM = SAMPLES / "discord-dm-noah.json"
PACKAGE = SAMPLES / "discord-package"
runner = CliRunner()


def refind_import(home: Path, *paths: Path, args: tuple[str, ...] = ()) -> tuple[int, dict, str]:
    r = runner.invoke(
        app, ["--home", str(home), "import", "--tz", "Europe/Berlin", "--json", *args, *map(str, paths)]
    )
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.stdout + r.stderr
    return r.exit_code, json.loads(r.stdout), r.stderr


def added(out: dict) -> list[int]:
    return [c["messages_added"] for f in out["files"] for c in f["chats"]]


def read(path: Path, fmt: str = "discord") -> list[tuple[Any, list[Message]]]:
    return [(e.chat, list(e.messages)) for e in importers.get(fmt).read(path, TZ)]


def one_error(code: int, stderr: str, *phrases: str) -> str:
    lines = stderr.splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("refind: error: "), stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


def dce(messages: list[Any], **root: Any) -> dict[str, Any]:
    return {
        "guild": {"id": "1", "name": "Crag", "iconUrl": ""},
        "channel": {"id": "2", "type": "GuildTextChat", "name": "beta", "topic": None},
        "messages": messages,
        **root,
    }


def msg(ident: int, content: str = "hi", **extra: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "id": str(ident),
        "type": "Default",
        "timestamp": "2026-05-01T20:00:00.000+02:00",
        "timestampEdited": None,
        "content": content,
        "author": {"id": "7", "name": "ann_c", "nickname": "Ann", "isBot": False},
        "attachments": [],
        "embeds": [],
        "stickers": [],
        "reactions": [],
    }
    obj.update(extra)
    return obj


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


# --- DiscordChatExporter: the samples ----------------------------------------------------------------


def test_every_message_of_the_export_is_read_and_flagged_by_kind():
    source = json.loads(GENERAL.read_text(encoding="utf-8"))
    [(chat, messages)] = read(GENERAL)
    assert (chat.key, chat.name, chat.kind) == ("1098765432101234570", "general in Kletterkiez", "channel")
    assert len(messages) == len(source["messages"]) == source["messageCount"]
    assert [m.source_id for m in messages] == [m["id"] for m in source["messages"]]
    kinds = {m.source_id: m.kind for m in messages}
    by_type = {m["id"]: m for m in source["messages"]}
    for ident, kind in kinds.items():
        original = by_type[ident]
        expected = (
            Kind.SYSTEM
            if original["type"] not in ("Default", "Reply")
            else Kind.BOT
            if original["author"]["isBot"]
            else Kind.ATTACHMENT
            if original["attachments"]
            else Kind.MEDIA
            if original["stickers"] and not original["content"]
            else Kind.TEXT
        )
        assert kind == expected, original
    assert {Kind.SYSTEM, Kind.BOT, Kind.ATTACHMENT, Kind.MEDIA, Kind.TEXT} <= set(kinds.values())


def test_fields_nickname_times_replies_edits_and_indexed_extras():
    [(_, messages)] = read(GENERAL)
    by_text = {m.text.split("\n")[0]: m for m in messages}
    flat = by_text["I GOT THE FLAT in Prenzlauer Berg!! Schliemannstraße, 10 minutes from Berta Block"]
    assert flat.sender == "Maya" and flat.sender_id == "771203945861283840"  # nickname over name
    assert flat.timestamp.tzinfo == UTC and flat.timestamp.astimezone(TZ).strftime("%H:%M") == "20:05"
    edited = next(m for m in messages if m.text.startswith("finally, a climber"))
    assert edited.edited and not flat.edited
    tip = next(m for m in messages if m.text.startswith("Bloc Lisboa in Alcântara"))
    question = next(m for m in messages if m.text.startswith("Lisbon 9–16 July"))
    assert tip.reply_to == question.source_id
    assert "Bouldering gym in Alcântara" in tip.text  # the embed's description is indexed
    topo = next(m for m in messages if m.kind == Kind.ATTACHMENT and "topo" in m.text)
    assert "kletterwald-topo.pdf" in topo.text
    sticker = next(m for m in messages if m.kind == Kind.MEDIA)
    assert sticker.text == "Wave"
    join = next(m for m in messages if m.kind == Kind.SYSTEM and "Joined" in m.text)
    assert join.sender == "Yuki"
    pin = next(m for m in messages if m.text == "Pinned a message.")
    assert pin.kind == Kind.SYSTEM and pin.reply_to is not None
    assert json.loads(flat.raw)["reactions"][0]["emoji"]["name"] == "🎉"  # reactions stay in the record


def test_a_direct_message_export_and_its_call():
    [(chat, messages)] = read(DM)
    assert (chat.name, chat.kind) == ("noah.climbs", "direct")
    call = next(m for m in messages if m.kind == Kind.SYSTEM)
    assert call.text == "Started a call that lasted 12 minutes." and call.sender == "Noah"


def test_a_folder_of_channel_exports_imports_each_and_a_reimport_adds_nothing(tmp_path: Path):
    folder = tmp_path / "exports"
    folder.mkdir()
    shutil.copy(GENERAL, folder)
    shutil.copy(DM, folder)
    code, out, _ = refind_import(tmp_path / "home", folder)
    assert code == 0 and [f["format"] for f in out["files"]] == ["discord", "discord"]
    assert sorted(added(out)) == [9, 32]
    code, out, _ = refind_import(tmp_path / "home", folder, args=("--reread",))
    assert code == 0 and added(out) == [0, 0]


def test_a_longer_export_of_the_same_channel_adds_only_the_new_messages(tmp_path: Path):
    source = json.loads(GENERAL.read_text(encoding="utf-8"))
    early = write(tmp_path / "general [part 1].json", dict(source, messages=source["messages"][:20]))
    code, out, _ = refind_import(tmp_path / "home", early)
    assert code == 0 and added(out) == [20]
    code, out, _ = refind_import(tmp_path / "home", GENERAL)
    assert code == 0 and added(out) == [12] and out["files"][0]["chats"][0]["messages_skipped"] == 20


def test_channel_named_after_its_messages_is_still_read(tmp_path: Path):
    data = dce([msg(1), msg(2)])
    reordered = {"messages": data["messages"], "guild": data["guild"], "channel": data["channel"]}
    [(chat, messages)] = read(write(tmp_path / "late.json", reordered))
    assert chat.name == "beta in Crag" and len(messages) == 2


def test_a_message_without_a_time_takes_its_snowflake_time(tmp_path: Path):
    # 175928847299117063 is Discord's documented example: 2016-04-30 11:18:25.796 UTC.
    [(_, [m])] = read(write(tmp_path / "x.json", dce([msg(175928847299117063, timestamp=None)])))
    assert m.timestamp == datetime(2016, 4, 30, 11, 18, 25, 796000, tzinfo=UTC)


# --- DiscordChatExporter: the outputs refind does not read ---------------------------------------------


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("general.csv", "AuthorID,Author,Date,Content,Attachments,Reactions\n1,ann,2026-05-01,hi,,\n"),
        (
            "general.txt",
            "=" * 62
            + "\nGuild: Crag\nChannel: Text / beta\n"
            + "=" * 62
            + "\n\n[5/1/2026 8:00 PM] ann\nhi\n",
        ),
        (
            "general.html",
            '<!DOCTYPE html>\n<html><head><title>Crag - beta</title></head><body><div class="preamble">',
        ),
    ],
)
def test_other_exporter_outputs_are_refused_asking_for_json(tmp_path: Path, name: str, body: str):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    code, _, stderr = refind_import(tmp_path / "home", path)
    one_error(code, stderr, str(path), "DiscordChatExporter", "export the channel again as JSON")


# --- DiscordChatExporter: hostile input ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        (
            b'{"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": [{"id": "3", "content": "hi',
            "truncated",
        ),
        (b'{"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": [] } trailing', "invalid JSON"),
        (b'{"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": {}}', "messages is not a list"),
        (b'{"guild": {"id": "1"}, "channel": {"id": "2"}}', 'no "messages" list'),
        (b'{"guild": {"id": "1"}, "channel": {}, "messages": []}', "no message ids to key the channel by"),
        (b'{"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": [1]}', "not a JSON object"),
        (
            b'{"guild": {"id": "1"}, "channel": {"id": "2"}, "messages": [{"timestamp": "soon"}]}',
            "unreadable time",
        ),
    ],
)
def test_broken_exports_are_one_line_errors(tmp_path: Path, body: bytes, phrase: str):
    path = tmp_path / "broken.json"
    path.write_bytes(body)
    code, _, stderr = refind_import(tmp_path / "home", path, args=("--format", "discord"))
    one_error(code, stderr, str(path), phrase)


def test_deep_nesting_is_refused_without_building_it(tmp_path: Path):
    depth = 200_000
    body = dce([msg(1, embeds="EMBEDS")])
    raw = json.dumps(body).replace('"EMBEDS"', "[" * depth + "]" * depth)
    path = tmp_path / "deep.json"
    path.write_text(raw, encoding="utf-8")
    started = time.perf_counter()
    with pytest.raises(InputError, match="nested more than 64 levels"):
        read(path)
    assert time.perf_counter() - started < 5


def test_an_overlong_string_is_refused_quickly(tmp_path: Path):
    path = tmp_path / "long.json"
    path.write_bytes(json.dumps(dce([msg(1, "TEXT")])).encode().replace(b"TEXT", b"a" * (40 << 20)))
    started = time.perf_counter()
    with pytest.raises(InputError, match="runs past 8 MB"):
        read(path)
    assert time.perf_counter() - started < 5


# --- the data package ----------------------------------------------------------------------------------


def _package_chats(path: Path) -> dict[str, tuple[Any, list[Message]]]:
    return {chat.key: (chat, messages) for chat, messages in read(path, "discord-package")}


def test_the_package_makes_one_chat_per_channel_that_says_it_holds_only_your_messages():
    chats = _package_chats(PACKAGE)
    names = {key: (chat.name, chat.kind) for key, (chat, _) in chats.items()}
    assert names == {
        "1098765432101234570": ("general in Kletterkiez (only your messages)", "channel"),
        "1101122334455667788": ("Direct Message with noah.climbs#0 (only your messages)", "direct"),
        "905512345678901240": ("lfg in Couch Co-op (only your messages)", "channel"),  # null in index.json
    }
    for chat, messages in chats.values():
        assert chat.source == "discord-package"
        assert {m.sender for m in messages} == {"Maya"}
        assert {m.sender_id for m in messages} == {"771203945861283840"}


def test_package_messages_are_the_exports_own_messages_by_id():
    """The package's #general is Maya's side of the exported channel: same ids, same times, same words."""
    [(_, exported)] = read(GENERAL)
    _, own = _package_chats(PACKAGE)["1098765432101234570"]
    rows = list(
        csv.DictReader(io.StringIO((PACKAGE / "messages/c1098765432101234570/messages.csv").read_text()))
    )
    assert len(own) == len(rows)
    mine = {m.source_id: m for m in exported if m.sender == "Maya"}
    assert {m.source_id for m in own} == set(mine)
    for m in own:
        assert m.timestamp == mine[m.source_id].timestamp
    mention = next(m for m in own if "thanks! I'm in" in m.text)
    assert mention.text == "@Noah thanks! I'm in"  # <@id> resolved from the account's friends
    photo = next(m for m in own if m.kind == Kind.ATTACHMENT)
    assert photo.text.endswith("\nbloc-lisboa-wall.jpg")


def _zip(folder: Path, target: Path, prefix: str = "", rename: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                name = path.relative_to(folder).as_posix()
                for old, new in (rename or {}).items():
                    name = name.replace(old, new)
                zf.write(path, prefix + name)
    return target


def test_the_package_zip_a_rezipped_folder_and_the_older_layout_read_alike(tmp_path: Path):
    expected = {k: [m.source_id for m in ms] for k, (_, ms) in _package_chats(PACKAGE).items()}
    zipped = _zip(PACKAGE, tmp_path / "package.zip")
    nested = _zip(PACKAGE, tmp_path / "nested.zip", prefix="package/")
    older = _zip(PACKAGE, tmp_path / "older.zip", rename={"messages/c": "Messages/", "account/": "Account/"})
    for path in (zipped, nested, older):
        assert importers.detect(path) == "discord-package", path
        assert {k: [m.source_id for m in ms] for k, (_, ms) in _package_chats(path).items()} == expected
    home = tmp_path / "home"
    code, out, _ = refind_import(home, PACKAGE)
    assert code == 0 and sorted(added(out)) == [2, 4, 11]
    code, out, _ = refind_import(home, zipped)
    assert code == 0 and added(out) == [0, 0, 0]


def test_the_messages_folder_alone_is_a_package(tmp_path: Path):
    assert importers.detect(PACKAGE / "messages") == "discord-package"
    assert len(_package_chats(PACKAGE / "messages")) == 3


def _small_package(root: Path, csv_body: bytes) -> Path:
    channel = root / "messages" / "c42"
    channel.mkdir(parents=True)
    (root / "messages" / "index.json").write_text('{"42": "general in Crag"}')
    (channel / "channel.json").write_text('{"id": "42", "type": 0}')
    (channel / "messages.csv").write_bytes(csv_body)
    return root


def test_spreadsheet_mangled_ids_still_import_once(tmp_path: Path):
    body = (
        b"ID,Timestamp,Contents,Attachments\r\n1.05765859191976E+17,2020-05-01 18:22:04.512000+00:00,hi,\r\n"
    )
    root = _small_package(tmp_path / "pkg", body)
    [(_, [m])] = read(root, "discord-package")
    assert m.source_id is None and m.timestamp == datetime(2020, 5, 1, 18, 22, 4, 512000, tzinfo=UTC)
    assert m.sender == "me"  # no account/user.json
    assert added(refind_import(tmp_path / "home", root)[1]) == [1]
    assert added(refind_import(tmp_path / "home", root, args=("--reread",))[1]) == [0]


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        # A quote that never closes: read to the end (held in a file past the csv module's field limit,
        # session 15), refused there naming the line it opens on.
        (
            b'ID,Timestamp,Contents,Attachments\n1,2020-05-01 18:22:04+00:00,"' + b"x\n" * 200_000,
            "line 2: invalid CSV (unexpected end of data)",
        ),
        (
            b'ID,Timestamp,Contents,Attachments\n1,2020-05-01 18:22:04+00:00,"no end\n',
            "unexpected end of data",
        ),
        # UTF-8 (its first character says so) with a damaged byte; bytes of no UTF-8 are a legacy code page.
        (b"ID,Timestamp,Contents,Attachments\n1,2020-05-01,\xc3\xa9 \xff\xfe,\n", "invalid UTF-8"),
        (b"Author,Date\nann,2020\n", "no Timestamp column"),
        (b"ID,Timestamp,Contents,Attachments\nabc,yesterday,hi,\n", "unreadable time"),
    ],
)
def test_broken_package_csv_is_a_one_line_error_naming_file_and_line(
    tmp_path: Path, body: bytes, phrase: str
):
    root = _small_package(tmp_path / "pkg", body)
    code, _, stderr = refind_import(tmp_path / "home", root)
    line = one_error(code, stderr, phrase, "messages.csv")
    assert "line " in line


def test_broken_package_json_and_a_zip_bomb_are_one_line_errors(tmp_path: Path, monkeypatch):
    root = _small_package(tmp_path / "pkg", b"")
    (root / "messages" / "c42" / "messages.csv").unlink()
    (root / "messages" / "c42" / "messages.json").write_text(
        '[{"ID": "1", "Timestamp": "2020-05-01 18:22:04"'
    )
    one_error(*refind_import(tmp_path / "home", root)[::2], "truncated JSON", "messages.json")
    (root / "messages" / "index.json").write_text('{"42": ]')
    one_error(*refind_import(tmp_path / "home", root)[::2], "invalid JSON", "index.json")
    zipped = _zip(
        _small_package(tmp_path / "pkg2", b"ID,Timestamp\n" + b"1,2020-05-01\n" * 5000), tmp_path / "p.zip"
    )
    monkeypatch.setattr(container, "MAX_MEMBER_BYTES", 1000)
    one_error(*refind_import(tmp_path / "home", zipped)[::2], "zip bomb")


# --- properties ----------------------------------------------------------------------------------------

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_TYPES = st.sampled_from(["Default", "Reply", "GuildMemberJoin", "Call", "ChannelPinnedMessage", "21"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(
        st.tuples(
            _TEXT, _TYPES, st.booleans(), st.integers(0, 10**9), st.sampled_from(["+02:00", "Z", "-07:00"])
        ),
        max_size=12,
    )
)
def test_any_channel_export_reads_back_message_for_message(tmp_path: Path, rows):
    base = datetime(2026, 1, 1, tzinfo=UTC)
    messages = []
    for index, (text, kind, bot, ms, offset) in enumerate(rows):
        stamp = (
            (base + timedelta(milliseconds=ms)).isoformat(timespec="milliseconds").replace("+00:00", offset)
        )
        obj = msg(10**17 + index, text, type=kind, timestamp=stamp)
        obj["author"] = dict(obj["author"], isBot=bot)
        messages.append(obj)
    [(_, read_back)] = read(write(tmp_path / "p.json", dce(copy.deepcopy(messages))))
    assert [m.source_id for m in read_back] == [m["id"] for m in messages]
    for m, original in zip(read_back, messages, strict=True):
        assert m.timestamp == datetime.fromisoformat(original["timestamp"]).astimezone(UTC)
        assert m.text == original["content"] or (m.kind == Kind.SYSTEM and not original["content"].strip())
        assert m.kind in Kind.ALL and (m.kind == Kind.SYSTEM) == (
            original["type"] not in ("Default", "Reply")
        )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(st.tuples(_TEXT, st.lists(st.sampled_from(["a.jpg", "b c.pdf"]), max_size=2)), max_size=10)
)
def test_any_package_csv_reads_back_row_for_row(tmp_path: Path, rows):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["ID", "Timestamp", "Contents", "Attachments"])
    for index, (text, files) in enumerate(rows):
        urls = " ".join(
            f"https://cdn.discordapp.com/attachments/1/{index}/{f.replace(' ', '_')}" for f in files
        )
        writer.writerow([10**17 + index, f"2020-05-01 18:22:{index:02d}.512000+00:00", text, urls])
    root = tmp_path / f"pkg{len(list(tmp_path.iterdir()))}"
    _small_package(root, out.getvalue().encode())
    [(_, read_back)] = read(root, "discord-package")
    assert [m.source_id for m in read_back] == [str(10**17 + i) for i in range(len(rows))]
    for m, (text, files) in zip(read_back, rows, strict=True):
        assert m.text.split("\n")[: 1 if text else 0] == ([text.split("\n")[0]] if text else [])
        assert (m.kind == Kind.ATTACHMENT) == bool(files)


def test_sniffs_tell_the_discord_formats_from_each_other_and_the_rest():
    assert importers.detect(GENERAL) == "discord" and importers.detect(DM) == "discord"
    assert importers.detect(PACKAGE) == "discord-package"
    assert not discord.sniff(SAMPLES / "telegram-result.json")
    assert not discord_package.sniff(SAMPLES / "slack-export-acme")


def test_samples_regenerate_byte_for_byte_and_are_named_in_the_readme(tmp_path: Path):
    spec = importlib.util.spec_from_file_location(
        "sample_exports_generate_discord", SAMPLES / "generate_discord.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class body runs
    spec.loader.exec_module(module)
    module.main(tmp_path)
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(
        [GENERAL.relative_to(SAMPLES), DM.relative_to(SAMPLES)]
        + [p.relative_to(SAMPLES) for p in PACKAGE.rglob("*") if p.is_file()]
    )
    assert produced == committed
    for rel in produced:
        assert (tmp_path / rel).read_bytes() == (SAMPLES / rel).read_bytes(), rel
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name in (GENERAL.name, DM.name, PACKAGE.name, "generate_discord.py"):
        assert name in readme
