"""The demo exports in sample_exports/: each is shaped like its app's real output, and together they tell
one consistent story. Read with plain parsing here, on purpose independent of refind's importers."""

from __future__ import annotations

import json
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from samples import load_script

SAMPLES = Path(__file__).resolve().parent.parent / "sample_exports"
JONAS = SAMPLES / "WhatsApp Chat with Jonas Becker.txt"
FAMILY = SAMPLES / "WhatsApp Chat - Family.zip"
SLACK = SAMPLES / "slack-export-acme"
TELEGRAM = SAMPLES / "telegram-result.json"
BERLIN = ZoneInfo("Europe/Berlin")

ANDROID_HEADER = re.compile(r"(\d\d/\d\d/\d{4}, \d\d:\d\d) - (.*)")
IOS_HEADER = re.compile(r"\u200e?\[(\d\d/\d\d/\d{4}, \d\d:\d\d:\d\d)\] ([^:]+): (.*)")
SLACK_MENTION = re.compile(r"<@(U[A-Z0-9]+)>")


def _records(lines: list[str], header: re.Pattern[str]) -> list[tuple[re.Match[str], str]]:
    """Header match plus full text (continuation lines joined) for each message of a WhatsApp text."""
    records: list[tuple[re.Match[str], str]] = []
    for number, line in enumerate(lines, 1):
        if m := header.fullmatch(line):
            records.append((m, line))
        else:
            assert records, f"line {number} is a continuation with nothing to continue: {line!r}"
            match, text = records[-1]
            records[-1] = (match, f"{text}\n{line}")
    return records


def _jonas() -> list[tuple[datetime, str]]:
    lines = JONAS.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "", "the file ends with a newline"
    return [
        (datetime.strptime(m[1], "%d/%m/%Y, %H:%M"), text) for m, text in _records(lines[:-1], ANDROID_HEADER)
    ]


def _family_chat() -> str:
    with zipfile.ZipFile(FAMILY) as zf:
        return zf.read("_chat.txt").decode("utf-8")


def _family() -> list[tuple[datetime, str, str]]:
    lines = _family_chat().split("\r\n")
    assert lines[-1] == ""
    return [
        (datetime.strptime(m[1], "%d/%m/%Y, %H:%M:%S"), m[2], text)
        for m, text in _records(lines[:-1], IOS_HEADER)
    ]


def _slack_days() -> dict[str, dict[str, list[dict[str, object]]]]:
    """folder -> day -> messages."""
    return {
        folder.name: {
            f.stem: json.loads(f.read_text(encoding="utf-8")) for f in sorted(folder.glob("*.json"))
        }
        for folder in sorted(p for p in SLACK.iterdir() if p.is_dir())
    }


def _slack_messages(folder: str) -> list[tuple[datetime, str]]:
    days = _slack_days()[folder]
    return [
        (datetime.fromtimestamp(float(str(m["ts"])), BERLIN).replace(tzinfo=None), str(m.get("text", "")))
        for batch in days.values()
        for m in batch
    ]


def _flat(text: object) -> str:
    if isinstance(text, str):
        return text
    assert isinstance(text, list)
    return "".join(part if isinstance(part, str) else part["text"] for part in text)


def _telegram() -> dict[str, object]:
    return json.loads(TELEGRAM.read_text(encoding="utf-8"))


def _telegram_messages() -> list[tuple[datetime, str]]:
    messages = _telegram()["messages"]
    assert isinstance(messages, list)
    return [(datetime.fromisoformat(m["date"]), _flat(m["text"])) for m in messages]


CHATS = {
    "jonas": lambda: _jonas(),
    "family": lambda: [(when, text) for when, _, text in _family()],
    "slack-dm": lambda: _slack_messages("D05MT2K8QZP"),
    "team-data": lambda: _slack_messages("team-data"),
    "telegram": _telegram_messages,
}


# --- files -----------------------------------------------------------------------------------------


def test_every_sample_file_exists() -> None:
    for path in (JONAS, FAMILY, TELEGRAM, SAMPLES / "README.md", SAMPLES / "make_family_zip.py"):
        assert path.is_file(), path
    for name in ("channels.json", "users.json", "dms.json"):
        assert (SLACK / name).is_file(), name
    for folder in ("general", "random", "team-data", "D05MT2K8QZP"):
        assert list((SLACK / folder).glob("*.json")), folder


def test_every_json_file_parses() -> None:
    files = [TELEGRAM, *SLACK.rglob("*.json")]
    assert len(files) > 30
    for path in files:
        json.loads(path.read_text(encoding="utf-8"))


def test_readme_names_every_export() -> None:
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name in (JONAS.name, FAMILY.name, "slack-export-acme", TELEGRAM.name):
        assert name in readme


# --- WhatsApp Android ------------------------------------------------------------------------------


def test_jonas_chat_is_android_24h_with_lf_line_ends() -> None:
    raw = JONAS.read_bytes()
    assert b"\r" not in raw
    assert not raw.startswith(b"\xef\xbb\xbf")
    messages = _jonas()
    assert 150 <= len(messages) <= 250
    first = messages[0][1]
    assert ANDROID_HEADER.fullmatch(first)[2].startswith("Messages and calls are end-to-end encrypted.")  # type: ignore[index]
    senders = {ANDROID_HEADER.match(text)[2].split(": ", 1)[0] for _, text in messages[1:]}  # type: ignore[index]
    assert senders == {"Maya", "Jonas Becker"}
    times = [when for when, _ in messages]
    assert times == sorted(times)
    assert datetime(2026, 3, 1) <= times[0] and times[-1] < datetime(2026, 11, 1)


def test_jonas_chat_has_the_android_markers() -> None:
    texts = [text for _, text in _jonas()]
    bodies = [text.split(": ", 1)[1] for text in texts[1:]]
    assert "<Media omitted>" in bodies
    assert "This message was deleted" in bodies
    assert any(b.endswith(" <This message was edited>") for b in bodies)
    assert any(re.fullmatch(r"location: https://maps\.google\.com/\?q=[\d.]+,[\d.]+", b) for b in bodies)
    assert sum("\n" in t for t in texts) >= 2, "a couple of multi-line messages"


# --- WhatsApp iOS group zip ------------------------------------------------------------------------


def test_family_zip_holds_chat_and_one_photo() -> None:
    with zipfile.ZipFile(FAMILY) as zf:
        names = zf.namelist()
        assert names == ["_chat.txt", "00000012-PHOTO-2026-05-30-14-02-11.jpg"]
        assert zf.read(names[1]).startswith(b"\xff\xd8")
    assert f"\u200e<attached: {names[1]}>" in _family_chat()


def test_family_chat_is_ios_bracketed_with_crlf() -> None:
    chat = _family_chat()
    assert chat.count("\n") == chat.count("\r\n")
    messages = _family()
    assert 120 <= len(messages) <= 200
    assert {sender for _, sender, _ in messages} == {"Family", "Mum", "Dad", "Erik", "Maya"}
    times = [when for when, _, _ in messages]
    assert times == sorted(times)
    assert "Family: \u200eMum created group \u201cFamily\u201d" in messages[1][2]
    omitted = [text for _, _, text in messages if text.endswith("image omitted")]
    assert omitted and all(t.startswith("\u200e[") and t.endswith(": \u200eimage omitted") for t in omitted)


def test_family_zip_rebuilds_byte_for_byte(tmp_path: Path) -> None:
    built = load_script("make_family_zip").build(tmp_path)
    assert built.read_bytes() == FAMILY.read_bytes()


# --- Slack -----------------------------------------------------------------------------------------


def test_slack_folders_match_channels_and_dms() -> None:
    channels = json.loads((SLACK / "channels.json").read_text(encoding="utf-8"))
    dms = json.loads((SLACK / "dms.json").read_text(encoding="utf-8"))
    folders = {p.name for p in SLACK.iterdir() if p.is_dir()}
    assert folders == {c["name"] for c in channels} | {d["id"] for d in dms}
    assert {c["name"] for c in channels} == {"general", "random", "team-data"}
    assert all(re.fullmatch(r"D[A-Z0-9]{8,}", d["id"]) and len(d["members"]) == 2 for d in dms)


def test_slack_day_files_hold_their_own_utc_day() -> None:
    users = {u["id"] for u in json.loads((SLACK / "users.json").read_text(encoding="utf-8"))}
    total = 0
    for folder, days in _slack_days().items():
        seen: set[str] = set()
        for day, batch in days.items():
            assert re.fullmatch(r"2026-\d\d-\d\d", day), (folder, day)
            stamps = [str(m["ts"]) for m in batch]
            assert stamps == sorted(stamps), (folder, day)
            for m in batch:
                ts = str(m["ts"])
                assert re.fullmatch(r"\d{10}\.\d{6}", ts)
                assert datetime.fromtimestamp(float(ts), UTC).date().isoformat() == day
                assert m["type"] == "message" and m["user"] in users
                assert set(SLACK_MENTION.findall(str(m["text"]))) <= users
                assert ts not in seen
                seen.add(ts)
            total += len(batch)
    assert 100 <= total <= 150


def test_slack_threads_link_to_parents_across_day_files() -> None:
    later_day_reply = False
    for folder, days in _slack_days().items():
        by_ts = {str(m["ts"]): (day, m) for day, batch in days.items() for m in batch}
        replies: dict[str, list[str]] = {}
        for day, m in by_ts.values():
            parent_ts = m.get("thread_ts")
            if parent_ts is None or parent_ts == m["ts"]:
                continue
            parent_day, parent = by_ts[str(parent_ts)]
            assert m["parent_user_id"] == parent["user"], (folder, m["ts"])
            replies.setdefault(str(parent_ts), []).append(str(m["ts"]))
            later_day_reply |= day > parent_day
        for parent_ts, reply_ts in replies.items():
            parent = by_ts[parent_ts][1]
            assert parent["reply_count"] == len(reply_ts)
            assert parent["latest_reply"] == max(reply_ts)
    assert later_day_reply


def test_slack_text_uses_real_markup() -> None:
    messages = [m for days in _slack_days().values() for batch in days.values() for m in batch]
    texts = [str(m["text"]) for m in messages]
    assert any(m.get("subtype") == "channel_join" for m in messages)
    assert any(re.search(r"<https://[^|>]+\|[^>]+>", t) for t in texts)
    assert any("&amp;" in t for t in texts)
    assert any(SLACK_MENTION.search(t) for t in texts)
    # Slack's exporter escapes slashes; a faithful sample must too.
    assert "https:\\/\\/" in (SLACK / "general" / "2026-04-20.json").read_text(encoding="utf-8")


def test_json_exports_regenerate_byte_for_byte(tmp_path: Path) -> None:
    load_script("generate").main(tmp_path)
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(
        [TELEGRAM.relative_to(SAMPLES), *(p.relative_to(SAMPLES) for p in SLACK.rglob("*") if p.is_file())]
    )
    assert produced == committed
    for rel in produced:
        assert (tmp_path / rel).read_bytes() == (SAMPLES / rel).read_bytes(), rel


# --- Telegram --------------------------------------------------------------------------------------


def test_telegram_is_a_single_chat_export() -> None:
    root = _telegram()
    assert list(root) == ["name", "type", "id", "messages"]
    assert root["name"] == "Aylin Demir" and root["type"] == "personal_chat"
    messages = root["messages"]
    assert isinstance(messages, list) and 100 <= len(messages) <= 150
    ids = [m["id"] for m in messages]
    assert ids == sorted(set(ids))


def test_telegram_dates_agree_with_unixtime_in_berlin() -> None:
    for m in _telegram()["messages"]:  # type: ignore[union-attr]
        local = datetime.fromtimestamp(int(m["date_unixtime"]), BERLIN)
        assert local.replace(tzinfo=None).isoformat() == m["date"], m["id"]
        if "edited" in m:
            edited = datetime.fromtimestamp(int(m["edited_unixtime"]), BERLIN)
            assert edited.replace(tzinfo=None).isoformat() == m["edited"]
        sender = m.get("from_id") or m.get("actor_id")
        assert re.fullmatch(r"user\d+", sender), m["id"]


def test_telegram_text_matches_its_entities() -> None:
    kinds: set[str] = set()
    for m in _telegram()["messages"]:  # type: ignore[union-attr]
        text, entities = m["text"], m["text_entities"]
        assert _flat(text) == "".join(e["text"] for e in entities), m["id"]
        plain_only = len(entities) == 1 and entities[0]["type"] == "plain"
        assert isinstance(text, str) == (plain_only or not entities), m["id"]
        if isinstance(text, list):
            kinds |= {part["type"] for part in text if isinstance(part, dict)}
    assert {"link", "bold"} <= kinds
    actions = {m.get("action") for m in _telegram()["messages"] if m["type"] == "service"}  # type: ignore[union-attr]
    assert actions == {"phone_call"}


# --- the story -------------------------------------------------------------------------------------


def _mentions(chat: str, pattern: str) -> list[tuple[datetime, str]]:
    return [(when, text) for when, text in CHATS[chat]() if re.search(pattern, text, re.IGNORECASE)]


@pytest.mark.parametrize(
    ("date_text", "chats"),
    [
        ("14 April", ["jonas", "family", "slack-dm"]),
        ("28 April", ["jonas", "family", "team-data"]),
        ("6 May", ["jonas", "family", "team-data", "telegram"]),
    ],
)
def test_dentist_dates_appear_in_the_expected_chats(date_text: str, chats: list[str]) -> None:
    for chat in chats:
        hits = _mentions(chat, rf"(dentist|okafor).*\b{date_text}\b|\b{date_text}\b.*(dentist|okafor)")
        assert hits, f"{chat} never ties the dentist to {date_text}"


def test_dentist_moves_are_told_before_they_happen_and_the_filling_after() -> None:
    booked = _mentions("family", r"dentist.*14 April")
    assert booked[0][0] < datetime(2026, 4, 14)
    moved_again = _mentions("telegram", r"okafor.*6 May")
    assert datetime(2026, 4, 28) > moved_again[0][0] > datetime(2026, 4, 14)
    for chat in ("jonas", "family", "team-data"):
        fillings = _mentions(chat, r"filling")
        assert fillings and all(when.date() == datetime(2026, 5, 6).date() for when, _ in fillings), chat


@pytest.mark.parametrize(
    ("pattern", "chats"),
    [
        (r"Wellenwerk", ["jonas", "telegram"]),
        (r"1 July", ["jonas", "telegram"]),
        (r"30 May", ["jonas", "family", "telegram"]),
        (r"29 May", ["slack-dm", "team-data"]),
        (r"Schliemannstra(ß|ss)e", ["jonas", "family", "telegram"]),
        (r"Alfama", ["jonas", "family", "telegram", "slack-dm"]),
        (r"Sintra", ["jonas", "family", "telegram", "slack-dm"]),
        (r"charger", ["jonas", "family", "telegram", "slack-dm"]),
        (r"9.16 July", ["slack-dm", "team-data"]),
    ],
)
def test_story_facts_are_spread_over_chats(pattern: str, chats: list[str]) -> None:
    for chat in chats:
        assert _mentions(chat, pattern), f"{chat} never mentions {pattern}"


def test_story_spans_march_to_october_in_every_chat() -> None:
    for chat in ("jonas", "family", "telegram", "team-data"):
        months = {when.month for when, _ in CHATS[chat]()}
        assert {3, 4, 5, 7, 9} <= months <= set(range(3, 11)), chat
