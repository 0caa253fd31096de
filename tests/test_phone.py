"""Phones and messengers (issue 22): SMS Backup & Restore XML (and Signal's plaintext backup), iMessage through
imessage-exporter (TXT and HTML), Skype's messages.json and the Teams privacy export. Fixtures in
tests/fixtures/phone/ are written by hand from the layouts in FORMATS.md §4c; broken files are made from them
here."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from samples import SAMPLES, load_script
from test_discord import one_error, refind_import

from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.importers import container, sms
from refind_cli.records import Kind, Message

TZ = ZoneInfo("Europe/Berlin")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
PHONE = FIXTURES / "phone"
SMS = PHONE / "sms-backup.xml"
SIGNAL = PHONE / "SignalPlaintextBackup.xml"
IMESSAGE_TXT = PHONE / "imessage-gym.txt"
IMESSAGE_HTML = PHONE / "imessage-gym.html"
SKYPE = PHONE / "skype-messages.json"
TEAMS = PHONE / "teams-export"
MINE = ("sms", "imessage", "skype", "teams")


def added(out: dict[str, Any]) -> int:
    return sum(c["messages_added"] for f in out["files"] for c in f["chats"])


def read(path: Path, fmt: str, tz: ZoneInfo = TZ) -> list[tuple[Any, list[Message]]]:
    return [(e.chat, list(e.messages)) for e in importers.get(fmt).read(path, tz)]


def copy(tmp_path: Path, source: Path, data: bytes | None = None, name: str | None = None) -> Path:
    target = tmp_path / (name or source.name)
    if data is None:
        shutil.copyfile(source, target)
    else:
        target.write_bytes(data)
    return target


# --- SMS Backup & Restore ----------------------------------------------------------------------------


def test_sms_every_row_is_a_message_in_its_thread() -> None:
    chats = read(SMS, "sms")
    assert (
        sum(len(m) for _, m in chats) == 11 == SMS.read_text().count("<sms ") + SMS.read_text().count("<mms ")
    )
    by_key = {c.key: (c, m) for c, m in chats}
    assert set(by_key) == {
        "+4915123456789",
        "72345",
        "+49301234567",
        "+4915123456789~+4917611112222",
        "+4917611112222",
    }
    jonas, messages = by_key["+4915123456789"]
    assert (jonas.name, jonas.kind) == ("Jonas Becker", "direct")
    # "+49 151 2345 6789" and "+4915123456789" are one thread; rows are put in time order.
    assert [(m.sender, m.own, m.text) for m in messages] == [
        ("Jonas Becker", False, "Are we still on for Saturday?"),
        ("Me", True, "Yes! 10:00 at the\nclimbing gym \U0001f60a"),
        ("Jonas Becker", False, "\U0001f44d"),
        ("Me", True, "Bring the chalk bag"),  # a draft (type 3): the phone's own
    ]
    assert messages[0].timestamp == datetime(2026, 5, 1, 18, 40, tzinfo=UTC)
    group, messages = by_key["+4915123456789~+4917611112222"]
    assert (group.name, group.kind) == ("Jonas Becker, Aylin Demir", "group")
    assert [(m.sender, m.kind, m.own) for m in messages] == [
        ("Aylin Demir", Kind.TEXT, False),
        ("Me", Kind.ATTACHMENT, True),
    ]
    assert messages[0].text == "Group plan: boulder Saturday,\nthen lunch at Alfama"
    assert messages[1].text == "The wall we want\nIMG_20260502_213600.jpg (image/jpeg)"


def test_sms_unknown_contacts_attachments_and_placeholders() -> None:
    by_key = {c.key: (c, m) for c, m in read(SMS, "sms")}
    code, messages = by_key["72345"]
    assert code.name == "72345" and messages[0].sender == "72345"  # contact_name="(Unknown)"
    office, messages = by_key["+49301234567"]
    assert office.name == "+4930 1234567"  # contact_name="null": the address as written
    assert messages[0].text.startswith("Dr. Okafor's office") and "& please" in messages[0].text
    assert messages[1].own  # type 5, failed: still the phone's own
    _, messages = by_key["+4917611112222"]
    # An MMS of a picture alone, in seconds, with its subject; an MMS with no parts at all.
    assert [(m.kind, m.text) for m in messages] == [(Kind.ATTACHMENT, "Tickets\nimage/png"), (Kind.MEDIA, "")]
    assert messages[0].timestamp == datetime(2026, 5, 2, 19, 43, 20, tzinfo=UTC)
    for _, msgs in by_key.values():
        for m in msgs:
            assert "/9j/4AAQ" not in m.text + m.raw and "iVBORw0KGgo" not in m.text + m.raw
    # raw is the row's XML as written, its base64 replaced by its length.
    raw = by_key["+4915123456789~+4917611112222"][1][1].raw
    assert raw.startswith('<mms date="1777750600000"') and raw.endswith("</mms>")
    assert 'data="(216 characters of base64, not kept)"' in raw and 'msg_box="2"' in raw
    first = by_key["+4915123456789"][1][0].raw
    assert first.startswith('<sms protocol="0" address="+49 151 2345 6789"') and first.endswith("/>")


def test_signal_plaintext_backup_reads_as_sms() -> None:
    assert importers.detect(SIGNAL) == "sms"
    chats = read(SIGNAL, "sms")
    assert [(c.name, len(m)) for c, m in chats] == [("Noah Fischer", 3)]
    assert [(m.own, m.text) for m in chats[0][1]] == [
        (False, "Signal test from the new phone"),
        (True, "Got it \u2764\ufe0f"),
        (False, "Line one\nLine two"),
    ]


def test_sms_count_that_disagrees_is_one_warning(tmp_path: Path) -> None:
    path = copy(tmp_path, SMS, SMS.read_bytes().replace(b'count="11"', b'count="14"'))
    code, out, stderr = refind_import(tmp_path / "home", path)
    assert code == 0 and added(out) == 11
    assert out["files"][0]["chats"]
    warnings = [line for line in stderr.splitlines() if "count=" in line]
    assert len(warnings) == 1 and 'count="14" but holds 11 messages' in warnings[0]


@pytest.mark.parametrize(
    "cut", ["</smses>", "</mms>\n</smses>", '<sms protocol="0" address="72345"', "<parts>"]
)
def test_sms_truncated_backup_is_one_error_and_nothing_kept(tmp_path: Path, cut: str) -> None:
    data = SMS.read_bytes()
    path = copy(tmp_path, SMS, data[: data.rindex(cut.encode())])
    code, out, stderr = refind_import(tmp_path / "home", path)
    line = one_error(code, stderr, "sms-backup.xml", "line ")
    assert "cut short" in line or "invalid XML" in line
    assert added(out) == 0


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        (
            '<!DOCTYPE smses [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
            '<smses count="1"><sms address="1" date="1" type="1" body="&b;" /></smses>',
            "refusing XML that can declare entities",
        ),
        (
            '<!DOCTYPE smses [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            '<smses count="1"><sms address="1" date="1" type="1" body="&x;" /></smses>',
            "refusing XML that can declare entities",
        ),
        ('<smses count="1"><sms address="1" date="soon" type="1" body="x" /></smses>', "unreadable date"),
        (
            '<smses count="1"><sms address="1" date="999999999999999999999" type="1" /></smses>',
            "unreadable date",
        ),
        (
            '<smses count="1"><mms address="1" date="-99999999999999" msg_box="1" /></smses>',
            "unreadable date",
        ),
        ('<smses count="1"><sms address="1" date="1" type="1" body="x" /><smses>', "cut short"),
        ('<smses count="1"><sms address="1" date="1" type="1" body="x&y" /></smses>', "invalid XML"),
        ('<smses count="1"></smses><smses/>', "invalid XML"),
    ],
)
def test_sms_hostile_and_broken_xml_is_one_error(tmp_path: Path, body: str, phrase: str) -> None:
    path = copy(tmp_path, SMS, b"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n" + body.encode())
    assert importers.detect(path) == "sms"
    code, out, stderr = refind_import(tmp_path / "home", path)
    one_error(code, stderr, phrase)
    assert added(out) == 0


def test_sms_sniff_wants_the_root_element(tmp_path: Path) -> None:
    calls = copy(
        tmp_path, SMS, b'<?xml version="1.0"?>\n<calls count="1"><call number="1" /></calls>', "c.xml"
    )
    rss = copy(tmp_path, SMS, b'<?xml version="1.0"?>\n<rss version="2.0"><channel/></rss>', "feed.xml")
    for path in (calls, rss):
        assert not sms.sniff(path)
        code, _, stderr = refind_import(tmp_path / "home", path)
        one_error(code, stderr, "unknown export format")


def _sms_xml(bodies: list[str]) -> bytes:
    """A backup as the app writes it: references for line breaks and quotes, emoji as two references to
    UTF-16 surrogates."""

    def attr(text: str) -> str:
        out = []
        for ch in text:
            if ch in "&<>\"'\n\t\r" or ord(ch) < 0x20:
                out.append(f"&#{ord(ch)};")
            elif ord(ch) > 0xFFFF:
                units = ch.encode("utf-16-be")
                out.append("".join(f"&#{int.from_bytes(units[i : i + 2], 'big')};" for i in (0, 2)))
            else:
                out.append(ch)
        return "".join(out)

    rows = "".join(
        f'<sms protocol="0" address="+1555000{i % 3}" date="{1_700_000_000_000 + i * 1000}" type="{1 + i % 2}" '
        f'body="{attr(body)}" contact_name="null" />\n'
        for i, body in enumerate(bodies)
    )
    return f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<smses count=\"{len(bodies)}\">\n{rows}</smses>\n".encode()


# A body of exactly "null" is how the backup writes a missing one (read as empty: the test below), so it is
# not among the bodies that must read back as written.
_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\ufffe\uffff"), max_size=40
).filter(lambda s: s != "null") | st.sampled_from(
    ["\U0001f60a&#55357;", "a\nb", "&amp;", "\x1b[0m", "\U0001f44d\U0001f3fd", "\ud7ff", "\ud6d8\U000f0000"]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies=st.lists(_TEXT, min_size=1, max_size=12), chunk=st.integers(min_value=1, max_value=64))
def test_sms_any_bodies_in_any_chunk_size_read_back_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bodies: list[str], chunk: int
) -> None:
    path = tmp_path / "prop.xml"
    path.write_bytes(_sms_xml(bodies))
    # Bodies that hold nothing but UTF-8's bytes read in Windows-1252, enough to prove it, are read as first
    # written (``tests/test_mojibake2.py``): not bodies as written.
    assume(container.text_encoding(path.read_bytes()).codec != container.TWICE)
    monkeypatch.setattr(container, "CHUNK", chunk)
    chats = read(path, "sms")
    got = sorted((m.timestamp, m.text) for _, msgs in chats for m in msgs)
    # What XML cannot hold (control characters other than tab and line breaks) is read as U+FFFD; a lone
    # carriage return written as a reference stays one.
    expected = [re.sub(r"[\x01-\x08\x0b\x0c\x0e-\x1f]", "\ufffd", b) for b in bodies]
    assert [text for _, text in got] == expected
    assert sum(len(m) for _, m in chats) == len(bodies)


def test_sms_a_body_the_backup_writes_as_null_is_empty(tmp_path: Path) -> None:
    path = tmp_path / "null.xml"
    path.write_bytes(_sms_xml(["null", "not null"]))
    assert sorted(m.text for _, msgs in read(path, "sms") for m in msgs) == ["", "not null"]


@pytest.mark.parametrize(
    ("written", "read_as"),
    [
        (b"&#55357;&#56842;", b"&#128522;"),  # a pair: one emoji
        (b"&#55000;&#56000;&#56842;", b"&#55000;&#786954;"),  # Hangul, then a pair from plane 12
        (b"a&#55357;&#55357;&#56842;b", b"a&#65533;&#128522;b"),  # a lone high half, then a pair
        (b"&#56842;&#1;&#10;&#57400;", b"&#65533;&#65533;&#10;&#57400;"),  # lone low half, control, ordinary
    ],
)
def test_sms_references_xml_forbids_are_repaired(written: bytes, read_as: bytes) -> None:
    assert b"".join(sms.repaired(iter([written]))) == read_as
    assert b"".join(sms.repaired(iter(written[i : i + 1] for i in range(len(written))))) == read_as


def test_sms_reimport_adds_nothing_and_tz_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    code, out, _ = refind_import(home, SMS)
    assert code == 0 and added(out) == 11
    code, out, _ = refind_import(home, SMS, args=("--reread",))
    assert code == 0 and added(out) == 0
    utc = [m.timestamp for _, msgs in read(SMS, "sms", ZoneInfo("UTC")) for m in msgs]
    assert utc == [m.timestamp for _, msgs in read(SMS, "sms") for m in msgs]


# --- iMessage --------------------------------------------------------------------------------------


def test_imessage_txt_blocks() -> None:
    [(chat, messages)] = read(IMESSAGE_TXT, "imessage")
    assert (chat.key, chat.name, chat.kind) == ("imessage-gym", "imessage-gym", "group")
    assert [(m.sender, m.own, m.kind, m.text) for m in messages] == [
        ("Me", True, Kind.TEXT, "Are you at the gym already?"),
        ("+15555550123", False, Kind.TEXT, "Almost! Traffic on the bridge.\nTen minutes"),
        ("Me", True, Kind.TEXT, "No rush"),
        (
            "+15555550123",
            False,
            Kind.ATTACHMENT,
            "/Users/maya/Library/Messages/Attachments/4f/15/IMG_0412.HEIC",
        ),
        ("Me", True, Kind.TEXT, "A poem:\n\nroses are red"),
        (None, False, Kind.SYSTEM, "You named the conversation Gym crew"),
        ("Dana Whitfield", False, Kind.DELETED, "see you at the wall"),
        ("+15555550123", False, Kind.MEDIA, "Attachment missing!"),
    ]
    # Space-padded hour, read in --tz (Berlin is UTC+2 in April); the read receipt stays in raw.
    assert messages[0].local_time == "2024-04-01T09:58:12"
    assert messages[0].timestamp == datetime(2024, 4, 1, 7, 58, 12, tzinfo=UTC)
    assert "(Read by you after 12 seconds)" in messages[1].raw and "Tapbacks:" in messages[1].raw
    assert "    No rush" in messages[1].raw  # the reply's copy under its parent: raw, not text


def test_imessage_html_matches_the_txt() -> None:
    [(chat, html)] = read(IMESSAGE_HTML, "imessage")
    [(_, txt)] = read(IMESSAGE_TXT, "imessage")
    assert chat.key == "imessage-gym"
    assert len(html) == 7
    assert [(m.timestamp, m.sender, m.own, m.kind) for m in html] == [
        (m.timestamp, m.sender, m.own, m.kind if m.kind != Kind.DELETED else Kind.TEXT) for m in txt[:7]
    ]
    assert html[4].text == "A poem: & more\n\nroses are red"
    assert html[3].text == "attachments/4f/IMG_0412.jpeg"
    assert html[5].text == "You named the conversation Gym crew"
    assert html[1].raw.startswith('<div class="message">') and html[1].raw.endswith("</div>")
    assert "Loved" in html[1].raw and "Loved" not in html[1].text


def test_imessage_reimport_adds_nothing(tmp_path: Path) -> None:
    for path in (IMESSAGE_TXT, IMESSAGE_HTML):
        home = tmp_path / path.suffix
        assert added(refind_import(home, path)[1]) == len(read(path, "imessage")[0][1])
        assert added(refind_import(home, path, args=("--reread",))[1]) == 0


def test_imessage_folder_of_conversations(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    shutil.copyfile(IMESSAGE_TXT, folder / "+15555550123.txt")
    shutil.copyfile(IMESSAGE_HTML, folder / "Gym crew.html")
    (folder / "attachments").mkdir()
    (folder / "attachments" / "IMG_0412.jpeg").write_bytes(b"\xff\xd8")
    code, out, _ = refind_import(tmp_path / "home", folder)
    assert code == 0 and [f["format"] for f in out["files"]] == ["imessage", "imessage"]
    assert added(out) == 8 + 7


@pytest.mark.parametrize(
    ("data", "phrase"),
    [
        (
            b"Apr 01, 2024 10:00:00 AM\nMe\nhi\n\nApr 31, 2024 10:00:00 AM\nMe\nno such day\n",
            "unreadable time",
        ),
        (b"hello\nApr 01, 2024 10:00:00 AM\nMe\nhi\n", "line 1"),
        (
            b'<html><div class="message"><div class="sent"><p><span class="timestamp">Apr 01, 2024',
            "cut short",
        ),
        (
            b'<html><div class="message"><span class="timestamp">soon</span></div></html>',
            "no readable timestamp",
        ),
        (b"<html><body>a web page</body></html>", "no messages"),
    ],
)
def test_imessage_broken_files_are_one_error(tmp_path: Path, data: bytes, phrase: str) -> None:
    path = copy(tmp_path, IMESSAGE_TXT, data, "conv.html" if data.startswith(b"<") else "conv.txt")
    code, out, stderr = refind_import(tmp_path / "home", path, args=("--format", "imessage"))
    one_error(code, stderr, phrase)
    assert added(out) == 0


# --- Skype -----------------------------------------------------------------------------------------


def test_skype_conversations_kinds_and_markup() -> None:
    chats = read(SKYPE, "skype")
    assert [(c.key, c.name, c.kind, len(m)) for c, m in chats] == [
        ("8:live:jonas.becker", "Jonas Becker", "direct", 6),
        ("19:3f2a9c@thread.skype", "Climbing crew", "group", 4),
    ]
    assert sum(len(m) for _, m in chats) == SKYPE.read_text().count('"originalarrivaltime"')
    direct, group = chats[0][1], chats[1][1]
    assert [(m.sender, m.own, m.kind, m.text) for m in direct] == [
        ("Jonas Becker", False, Kind.TEXT, "Are we still on for Saturday? :)"),
        (
            "Me",
            True,
            Kind.TEXT,
            "> Jonas Becker: Are we still on for Saturday?\nYes, 10:00 at the gym & then lunch",
        ),
        ("Jonas Becker", False, Kind.ATTACHMENT, "wall.jpg"),
        ("Me", True, Kind.SYSTEM, "Call ended, 95 s"),
        ("Jonas Becker", False, Kind.DELETED, ""),
        ("Jonas Becker", False, Kind.TEXT, "first line\nsecond line"),
    ]
    assert direct[1].edited and direct[1].reply_to == "1777660800001"
    assert "<e_m" in json.loads(direct[1].raw)["content"]
    assert direct[0].timestamp == datetime(2026, 5, 1, 18, 40, 0, 123000, tzinfo=UTC)
    assert [(m.kind, m.text) for m in group] == [
        (Kind.SYSTEM, "Me added live:aylin.demir"),
        (Kind.SYSTEM, "Me changed the topic to Climbing crew"),
        (Kind.TEXT, "Hi @Jonas, I'm in for Saturday"),
        (Kind.SYSTEM, "Control/LiveState"),
    ]
    assert group[2].sender_id == "8:live:aylin.demir"


def test_skype_folder_reimport_and_truncation(tmp_path: Path) -> None:
    folder = tmp_path / "8_live_maya_export"
    folder.mkdir()
    shutil.copyfile(SKYPE, folder / "messages.json")
    (folder / "endpoints.json").write_text("{}")
    assert importers.detect(folder) == "skype"
    home = tmp_path / "home"
    assert added(refind_import(home, folder)[1]) == 10
    assert added(refind_import(home, folder, args=("--reread",))[1]) == 0
    cut = copy(tmp_path, SKYPE, SKYPE.read_bytes()[:-300], "messages.json")
    code, out, stderr = refind_import(tmp_path / "home2", cut)
    one_error(code, stderr, "truncated JSON")
    assert added(out) == 0


def test_skype_wrong_shapes_are_one_error(tmp_path: Path) -> None:
    path = copy(tmp_path, SKYPE, b'{"userId": "8:me", "conversations": {"a": 1}}', "messages.json")
    code, _, stderr = refind_import(tmp_path / "home", path, args=("--format", "skype"))
    one_error(code, stderr, "conversations is not a list")


# --- Teams -----------------------------------------------------------------------------------------


def test_teams_channel_threads_and_chats() -> None:
    chats = read(TEAMS, "teams")
    assert [(c.key, c.kind, len(m)) for c, m in chats] == [
        ("19:general@thread.tacv2", "channel", 4),
        ("19:a7d2-maya_c3e4-kemal@unq.gbl.spaces", "direct", 2),
    ]
    channel, chat = chats[0][1], chats[1][1]
    assert [(m.sender, m.kind, m.text, m.thread, m.edited) for m in channel] == [
        (
            "Lea Wagner",
            Kind.TEXT,
            "Offsite\nOffsite is on 12 June in Hamburg.\nPlease book trains & hotels by Friday.",
            "1777660800123",
            False,
        ),
        ("Maya Lindqvist", Kind.TEXT, "@Lea booked, arriving Thursday night", "1777660800123", True),
        ("Kemal Arslan", Kind.DELETED, "", "1777660800123", False),
        (None, Kind.SYSTEM, "members added", None, False),
    ]
    assert chats[1][0].name == "Kemal Arslan, Maya Lindqvist"
    assert [(m.kind, m.text) for m in chat] == [
        (Kind.TEXT, "Can you send me the deck?\nThe one from Tuesday"),
        (Kind.ATTACHMENT, "Here \U0001f642\nQ2-deck.pptx"),
    ]
    assert chat[0].timestamp == datetime(2026, 5, 2, 5, 33, 20, 123456, tzinfo=UTC)


def test_teams_zip_file_and_reimport(tmp_path: Path) -> None:
    archive = Path(shutil.make_archive(str(tmp_path / "teams-export"), "zip", TEAMS))
    assert importers.detect(archive) == "teams"
    home = tmp_path / "home"
    assert added(refind_import(home, archive)[1]) == 6
    assert added(refind_import(home, archive, args=("--reread",))[1]) == 0
    one = TEAMS / "users" / "a7d2-maya" / "messages_19-chat.json"
    assert importers.detect(one) == "teams"
    assert added(refind_import(home, one)[1]) == 0


@pytest.mark.parametrize(
    ("data", "phrase"),
    [
        (
            b'[{"Id": "1", "CreatedDateTime": "2026-05-02T05:33:20Z", "ChatId": "c", "Body": {}}',
            "truncated JSON",
        ),
        (b'[{"Id": "1", "CreatedDateTime": "yesterday", "ChatId": "c"}]', "unreadable time"),
        (b'{"ChatId": "c"}', "not a JSON list"),
    ],
)
def test_teams_broken_files_are_one_error(tmp_path: Path, data: bytes, phrase: str) -> None:
    path = copy(tmp_path, TEAMS, data, "messages_1.json")
    code, out, stderr = refind_import(tmp_path / "home", path, args=("--format", "teams"))
    one_error(code, stderr, phrase)
    assert added(out) == 0


# --- detection -------------------------------------------------------------------------------------


# The samples generate_phone.py writes, by the format that reads them.
MY_SAMPLES = {
    SAMPLES / "sms-20261004213000.xml": "sms",
    SAMPLES / "Priya Nair.txt": "imessage",
    SAMPLES / "Lars Lindqvist.html": "imessage",
    SAMPLES / "skype-8_live_maya.lindqvist_export": "skype",
    SAMPLES / "teams-export": "teams",
}


def _other_samples() -> list[Path]:
    files = [p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix != ".py"]
    folders = [p for p in SAMPLES.iterdir() if p.is_dir()]
    fixtures = [p for p in FIXTURES.rglob("*") if p.is_file() and PHONE not in p.parents]
    mine = set(MY_SAMPLES)
    return sorted(p for p in files + folders + fixtures if not ({p, *p.parents} & mine))


def test_these_sniffs_say_no_to_every_other_sample() -> None:
    for path in _other_samples():
        for name in MINE:
            importer = importers.get(name)
            try:
                kind = importers.path_kind(path)
            except InputError:
                continue
            if kind in importer.takes:
                assert not importer.sniff(path), (name, path)


MY_FILES = {
    SMS: "sms",
    SIGNAL: "sms",
    IMESSAGE_TXT: "imessage",
    IMESSAGE_HTML: "imessage",
    SKYPE: "skype",
    TEAMS: "teams",
    TEAMS / "users" / "a7d2-maya" / "messages_19-chat.json": "teams",
    **MY_SAMPLES,
}


@pytest.mark.parametrize("path", list(MY_FILES), ids=lambda p: p.name)
def test_other_sniffs_say_no_to_these(path: Path) -> None:
    kind = importers.path_kind(path)
    claims = [n for n in importers.names() if kind in importers.get(n).takes and importers.get(n).sniff(path)]
    assert claims == [MY_FILES[path]]


def test_phone_samples_regenerate_byte_for_byte(tmp_path: Path) -> None:
    module = load_script("generate_phone")
    module.main(tmp_path)
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert produced == sorted(Path(name) for name in module.files())
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for rel in produced:
        assert (tmp_path / rel).read_bytes() == (SAMPLES / rel).read_bytes(), rel
        assert rel.parts[0] in readme, rel
    assert {SAMPLES / rel.parts[0] for rel in produced} == set(MY_SAMPLES)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "feed.xml",
            b'<?xml version="1.0"?>\n<rss version="2.0"><channel><title>News</title></channel></rss>\n',
        ),
        (
            "novel.txt",
            b"Chapter 1\n\nIt was a bright cold day in April, and the clocks were striking thirteen.\n",
        ),
        ("page.html", b'<!DOCTYPE html>\n<html><body><div class="message">Hello</div></body></html>\n'),
        ("messages.json", b'{"userId": "8:me", "exportDate": "2026", "conversations": "none"}'),
        ("messages_1.json", b'[{"CreatedDateTime": "2026-05-02T05:33:20Z", "Body": {}}]'),
    ],
)
def test_things_that_are_not_exports_are_one_error(tmp_path: Path, name: str, data: bytes) -> None:
    path = copy(tmp_path, SMS, data, name)
    assert not any(importers.get(n).sniff(path) for n in MINE)
    code, out, stderr = refind_import(tmp_path / "home", path)
    one_error(code, stderr, name)
    assert added(out) == 0
