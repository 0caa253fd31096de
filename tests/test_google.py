"""Google Takeout (Hangouts, Google Chat, Gemini activity), Grok, the files other tools rewrite from ChatGPT and
Discord exports, and things that are not exports, from the hand-written files in tests/fixtures/google/."""

from __future__ import annotations

import importlib.util
import json
import shutil
import warnings
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from cli_runs import refind, run
from hypothesis import given
from hypothesis import strategies as st
from samples import SAMPLES

from refind_cli import importers
from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import gemini, google_chat, htmltext
from refind_cli.ingest import import_file
from refind_cli.records import Kind
from refind_cli.storage.archive import Archive

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "google"
HANGOUTS = FIXTURES / "Hangouts.json"
HANGOUTS_2016 = FIXTURES / "Hangouts-2016.json"
CHAT = FIXTURES / "Google Chat"
GEMINI_JSON = FIXTURES / "gemini" / "MyActivity.json"
GEMINI_DE = FIXTURES / "gemini" / "MeineAktivitäten.json"
GEMINI_HTML = FIXTURES / "gemini" / "MyActivity.html"
GEMINI_DE_HTML = FIXTURES / "gemini" / "MeineAktivitäten.html"
GEMINI_BARD = FIXTURES / "gemini" / "bard.json"
GROK = FIXTURES / "grok" / "prod-grok-backend.json"
REWRITTEN = FIXTURES / "rewritten"
NOT_EXPORTS = FIXTURES / "not-exports"
BERLIN = ZoneInfo("Europe/Berlin")

# Each export, the format it is, and its messages per chat as the file holds them (counted by hand).
EXPECTED = [
    (HANGOUTS, "hangouts", {"Jonas Becker": 4, "Climbing crew": 3}),
    (HANGOUTS_2016, "hangouts", {"444": 2}),
    (CHAT, "google-chat", {"Aylin Demir": 2, "Kletterkiez planning": 3}),
    (CHAT / "Groups" / "DM 8uBWc0AAAAE", "google-chat", {"Aylin Demir": 2}),
    (CHAT / "Groups" / "DM 8uBWc0AAAAE" / "messages.json", "google-chat", {"Aylin Demir": 2}),
    # 6 entries: 3 prompts with replies, one feedback, one "Used", one title in an unknown language.
    (
        GEMINI_JSON,
        "gemini",
        {"Translate 'key box' to Portuguese": 4, "What is the best café in Sintra for travesseiros?": 5},
    ),
    (GEMINI_DE, "gemini", {"Wie lange dauert eine Füllung beim Zahnarzt?": 2}),
    # A folder holding the activity file: the first JSON by name (this one holds four, for the tests).
    (GEMINI_DE.parent, "gemini", {"Wie lange dauert eine Füllung beim Zahnarzt?": 2}),
    (GEMINI_BARD, "gemini", {"Summarise these two leases": 4}),
    (GEMINI_HTML, "gemini", {"Used Gemini Apps": 1, "What is the best café in Sintra for travesseiros?": 4}),
    (GEMINI_DE_HTML, "gemini", {"Wie lange dauert eine Füllung beim Zahnarzt?": 2}),
    (GROK, "grok", {"Bouldering in Lisbon": 5, "Untitled conversation": 1}),
    (GROK.parent, "grok", {"Bouldering in Lisbon": 5, "Untitled conversation": 1}),
    (REWRITTEN / "chatgpt-no-id.json", "chatgpt", {"Packing list": 2}),
    (
        REWRITTEN / "Kletterkiez - general [1057658591919761408].json",
        "discord",
        {"Kletterkiez - general [1057658591919761408]": 2},
    ),
    (REWRITTEN / "anonymised.json", "discord", {"anonymised": 1}),
    (
        REWRITTEN / "discord-subset",
        "discord-package",
        {"channel 1057658591919761408 (only your messages)": 2},
    ),
]


def read(path: Path, fmt: str = "auto") -> dict[str, list[Any]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        return {e.chat.name: list(e.messages) for e in importers.read_export(path, fmt, BERLIN)}


@pytest.mark.parametrize(("path", "fmt", "counts"), EXPECTED, ids=lambda v: getattr(v, "name", None))
def test_each_file_is_recognised_and_every_message_is_read(path: Path, fmt: str, counts: dict[str, int]):
    assert importers.detect(path) == fmt
    assert {name: len(messages) for name, messages in read(path).items()} == counts


@pytest.mark.parametrize(("path", "fmt", "counts"), EXPECTED, ids=lambda v: getattr(v, "name", None))
def test_importing_again_adds_nothing(tmp_path: Path, path: Path, fmt: str, counts: dict[str, int]):
    copy = tmp_path / "again" / path.name
    copy.parent.mkdir()
    # One more byte at the end of each file, so that the ledger does not take it for the same export and
    # it is read again.
    if path.is_dir():
        shutil.copytree(path, copy)
        for file in copy.rglob("*.*"):
            file.write_bytes(file.read_bytes() + b"\n")
    else:
        copy.write_bytes(path.read_bytes() + b"\n")
    with Archive.open(tmp_path / "home") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        first = import_file(archive, path, fmt=fmt, tz=BERLIN)
        assert first.error is None
        assert sum(c.messages_added for c in first.chats) == sum(counts.values())
        again = import_file(archive, copy, fmt=fmt, tz=BERLIN)
        assert again.error is None and again.unchanged_since is None
        assert sum(c.messages_added for c in again.chats) == 0
        assert len(archive.chats()) == len(counts)


def test_hangouts_joins_segments_flags_attachments_and_keeps_events_as_system():
    chats = read(HANGOUTS)
    jonas = chats["Jonas Becker"]
    assert jonas[0].text == "Are you coming to the climbing gym tonight?\nhttp://example.org/gym"
    assert jonas[0].timestamp == datetime(2016, 6, 15, 14, 0, tzinfo=UTC)
    assert [m.own for m in jonas] == [False, True, True, False]
    assert jonas[2].kind == Kind.ATTACHMENT and "photo.jpg" in jonas[2].text
    assert (jonas[3].kind, jonas[3].text) == (Kind.SYSTEM, "Jonas Becker ended a call (1:35)")
    crew = chats["Climbing crew"]
    assert [m.kind for m in crew] == [Kind.SYSTEM, Kind.SYSTEM, Kind.LOCATION]
    assert crew[0].text == "Maya Lindqvist added Noah Keller"
    assert "renamed the conversation to 'Climbing crew'" in crew[1].text
    old = read(HANGOUTS_2016)["444"]
    assert old[0].text == "Frohe Weihnachten!\nBis bald" and [m.own for m in old] == [False, True]


def test_hangouts_finds_the_account_in_the_events_when_the_conversation_does_not_name_it(tmp_path: Path):
    data = json.loads(HANGOUTS_2016.read_text(encoding="utf-8"))
    state = data["conversation_state"][0]["conversation_state"]
    del state["conversation"]["self_conversation_state"]
    for event in state["event"]:
        event["self_event_state"] = {"user_id": {"gaia_id": "111", "chat_id": "111"}}
    path = tmp_path / "Hangouts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert [m.own for m in read(path)["444"]] == [False, True]


def test_google_chat_reads_dates_names_the_account_and_flags_files_and_bots():
    chats = read(CHAT)
    space = chats["Kletterkiez planning"]
    assert [m.timestamp for m in space][:2] == [
        datetime(2026, 6, 30, 18, 2, 11, tzinfo=UTC),
        datetime(2026, 6, 30, 18, 5, 40, tzinfo=UTC),  # a narrow no-break space before PM
    ]
    assert [m.kind for m in space] == [Kind.TEXT, Kind.ATTACHMENT, Kind.BOT]
    assert [m.own for m in space] == [False, True, False]
    assert space[1].text == "Perfect, here is the map\n[attachment: lisbon-map.png]"
    assert space[0].source_id == "AAAAkletter1/xYz1/xYz1"
    assert google_chat.created("Monday, April 27, 2015 at 8:29:01 PM CEST", BERLIN) == datetime(
        2015, 4, 27, 18, 29, 1, tzinfo=UTC
    )


def test_gemini_pairs_prompts_with_readable_replies_and_flags_other_activity():
    with pytest.warns(InputWarning, match=r"1 entry whose title refind cannot read.*kept as system records"):
        chats = {e.chat.name: list(e.messages) for e in gemini.read(GEMINI_JSON, tz=BERLIN)}
    sintra = chats["What is the best café in Sintra for travesseiros?"]
    assert [(m.sender, m.kind, m.own) for m in sintra] == [
        ("You", Kind.ATTACHMENT, True),
        ("Gemini", Kind.TEXT, False),
        ("You", Kind.TEXT, True),
        ("Gemini", Kind.TEXT, False),
        ("You", Kind.SYSTEM, True),
    ]
    assert sintra[3].text == (
        "Try these places near the station:\n- Worten in the mall\n- A kiosk on Rua Dr. Alfredo da Costa\n"
        "Ask for a USB\u2011C cable & plug."
    )
    assert sintra[3].raw.startswith('[{"html": "<p>Try these places')  # the HTML as written
    early = chats["Translate 'key box' to Portuguese"]
    assert [m.text for m in early[2:]] == ["Promptée quelque chose", "Used Gemini Apps"]
    assert {m.kind for m in early[2:]} == {Kind.SYSTEM}
    german = read(GEMINI_DE)["Wie lange dauert eine Füllung beim Zahnarzt?"]
    assert german[0].text == "Wie lange dauert eine Füllung beim Zahnarzt?" and german[0].own
    # The German page writes the same instant as the JSON, in day-first order with the zone's German name.
    page = read(GEMINI_DE_HTML)["Wie lange dauert eine Füllung beim Zahnarzt?"]
    assert [(m.timestamp, m.text) for m in page] == [(m.timestamp, m.text) for m in german]


def test_bard_era_titles_are_prompts_and_attached_files_leave_the_prompt():
    leases, reply, housewarming, _ = read(GEMINI_BARD)["Summarise these two leases"]
    assert (leases.text, leases.kind) == (
        "Summarise these two leases\n[attachment: Attached 2 files.]",
        Kind.ATTACHMENT,
    )
    assert (housewarming.text, housewarming.own) == ("What should I bring to a housewarming?", True)
    assert reply.text == "Both run for two years."


def test_gemini_groups_entries_by_the_gap_and_the_html_agrees_with_the_json():
    with pytest.warns(InputWarning):
        by_json = {e.chat.key: e.chat.name for e in gemini.read(GEMINI_JSON, tz=BERLIN)}
    by_html = {e.chat.key: e.chat.name for e in gemini.read(GEMINI_HTML, tz=BERLIN)}
    # 18:58 and 19:12 are one conversation, 07:58 on 1 July another (the gap is an hour).
    assert by_json == {
        "2026-07-01T07:58:00Z": "Translate 'key box' to Portuguese",
        "2026-07-13T18:58:02Z": "What is the best café in Sintra for travesseiros?",
    }
    assert by_html["2026-07-13T18:58:02Z"] == by_json["2026-07-13T18:58:02Z"]  # CEST read in --tz
    html = read(GEMINI_HTML)["What is the best café in Sintra for travesseiros?"]
    assert html[2].text == "Where in Sintra can I buy a phone charger?"
    assert html[3].text.endswith("- A kiosk\nAsk for a USB cable & plug.")


def test_grok_hides_the_branch_not_shown_and_reads_mongo_times():
    talk = read(GROK)["Bouldering in Lisbon"]
    assert [(m.source_id, m.kind, m.own) for m in talk] == [
        ("r1", Kind.TEXT, True),
        ("r2", Kind.TEXT, False),
        ("r3", Kind.HIDDEN, False),  # an earlier answer, regenerated
        ("r4", Kind.ATTACHMENT, True),
        ("r5", Kind.TEXT, False),
    ]
    assert talk[0].timestamp == datetime(2026, 6, 30, 19, 0, tzinfo=UTC)
    assert talk[3].timestamp == datetime(2026, 6, 30, 19, 5, tzinfo=UTC)  # {"$date": "<ISO>"}
    assert talk[4].reply_to == "r4"


def test_a_google_chat_date_that_cannot_be_read_takes_the_time_before_with_one_warning(tmp_path: Path):
    group = tmp_path / "Groups" / "DM 8uBWc0AAAAE"
    shutil.copytree(CHAT / "Groups" / "DM 8uBWc0AAAAE", group)
    messages = group / "messages.json"
    messages.write_text(
        messages.read_text(encoding="utf-8").replace(
            "Monday, April 27, 2026 at 8:30:15 PM UTC", "Unknown Date"
        ),
        encoding="utf-8",
    )
    with pytest.warns(
        InputWarning, match=r"1 message whose created_date cannot be read, the first at messages\[1\]"
    ):
        [chat] = list(google_chat.read(group, tz=BERLIN))
        times = [m.timestamp for m in chat.messages]  # built, and warned of, as they are read
    assert times == [datetime(2026, 4, 27, 20, 29, 1, tzinfo=UTC)] * 2


def test_grok_responses_without_parent_links_are_all_shown(tmp_path: Path):
    data = json.loads(GROK.read_text(encoding="utf-8"))
    for item in data["conversations"][0]["responses"]:
        item["response"].pop("parent_response_id", None)
    path = tmp_path / "prod-grok-backend.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert [m.kind for m in read(path)["Bouldering in Lisbon"]].count(Kind.HIDDEN) == 0


# --- Takeout zips ------------------------------------------------------------------------------------------


def _takeout(tmp_path: Path) -> Path:
    path = tmp_path / "takeout-20261005T101010Z-001.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.write(HANGOUTS, "Takeout/Hangouts/Hangouts.json")
        for file in sorted(CHAT.rglob("*.json")):
            zf.write(file, f"Takeout/Google Chat/{file.relative_to(CHAT).as_posix()}")
        zf.write(GEMINI_JSON, "Takeout/My Activity/Gemini Apps/MyActivity.json")
        zf.writestr("Takeout/archive_browser.html", "<html></html>")
    return path


def test_a_takeout_zip_is_read_by_each_format_and_says_what_else_it_holds(tmp_path: Path):
    path = _takeout(tmp_path)
    assert importers.detect(path) == "hangouts"
    with pytest.warns(InputWarning, match="also holds gemini, google-chat, read only when imported again"):
        assert {
            k: len(v)
            for k, v in {
                e.chat.name: list(e.messages) for e in importers.read_export(path, "auto", BERLIN)
            }.items()
        } == {"Jonas Becker": 4, "Climbing crew": 3}
    assert {k: len(v) for k, v in read(path, "google-chat").items()} == {
        "Aylin Demir": 2,
        "Kletterkiez planning": 3,
    }
    assert [m.own for m in read(path, "google-chat")["Aylin Demir"]] == [False, True]
    assert len(read(path, "gemini")) == 2


def test_an_unpacked_takeout_folder_imports_every_product(tmp_path: Path):
    path = _takeout(tmp_path)
    with zipfile.ZipFile(path) as zf:
        zf.extractall(tmp_path / "unpacked")
    done = refind(
        "--home",
        str(tmp_path / "home"),
        "import",
        "--tz",
        "Europe/Berlin",
        "--json",
        str(tmp_path / "unpacked" / "Takeout"),
    )
    formats = sorted(f["format"] for f in json.loads(done.stdout)["files"] if f["format"])
    assert formats == ["gemini", "google-chat", "hangouts"], done.stderr


# --- errors ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        HANGOUTS,
        HANGOUTS_2016,
        GEMINI_JSON,
        GEMINI_HTML,
        GROK,
        CHAT / "Groups" / "Space AAAAkletter1" / "messages.json",
    ],
    ids=lambda p: p.name,
)
def test_a_truncated_file_is_one_error_line(tmp_path: Path, path: Path):
    data = path.read_bytes()
    cut = tmp_path / path.name
    cut.write_bytes(data[: len(data) * 2 // 3])
    fmt = importers.detect(path)
    done = run(tmp_path / "home", "import", "--format", fmt, "--tz", "UTC", str(cut))
    assert done.exit_code == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"refind: error: {cut}"), done.stderr
    assert "Traceback" not in done.output


@pytest.mark.parametrize("path", sorted(NOT_EXPORTS.iterdir()), ids=lambda p: p.name)
def test_what_is_not_an_export_is_one_error_line(tmp_path: Path, path: Path):
    done = run(tmp_path / "home", "import", "--tz", "UTC", str(path))
    assert done.exit_code == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"refind: error: {path}: "), done.stderr


def test_the_real_command_says_one_line_for_each_thing_that_is_not_an_export(tmp_path: Path):
    paths = sorted(NOT_EXPORTS.iterdir())
    done = refind("--home", str(tmp_path / "home"), "import", "--tz", "UTC", *map(str, paths))
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert [line.split(": ")[2] for line in lines] == [str(p) for p in paths], done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("path", "missing"),
    [
        (REWRITTEN / "chatgpt-no-id.json", "a conversation has no id"),
        (REWRITTEN / "anonymised.json", "no guild or channel object"),
        (REWRITTEN / "discord-subset", "no messages/index.json"),
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_a_rewritten_file_imports_with_one_warning_saying_what_was_missing(
    tmp_path: Path, path: Path, missing: str
):
    done = run(tmp_path / "home", "import", "--tz", "UTC", str(path))
    assert done.exit_code == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"refind: warning: {path}: ") and missing in lines[0]


def test_a_discord_package_part_in_a_zip_is_read_too(tmp_path: Path):
    path = tmp_path / "package-part.zip"
    with zipfile.ZipFile(path, "w") as zf:
        for file in sorted((REWRITTEN / "discord-subset").rglob("*.csv")):
            zf.write(file, f"package/{file.relative_to(REWRITTEN / 'discord-subset').as_posix()}")
    assert importers.detect(path) == "discord-package"
    assert {k: len(v) for k, v in read(path).items()} == {
        "channel 1057658591919761408 (only your messages)": 2
    }


def test_a_gemini_card_without_a_time_is_an_error_naming_its_line(tmp_path: Path):
    broken = tmp_path / "MyActivity.html"
    broken.write_text(
        GEMINI_HTML.read_text(encoding="utf-8").replace("Jul 13, 2026, 8:58:02 PM CEST", "yesterday"),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"line 3: a card without a time"):
        read(broken)


# --- sniffing ----------------------------------------------------------------------------------------------


SAMPLE_FORMATS = {
    "Hangouts.json": "hangouts",
    "Google Chat": "google-chat",
    "Gemini-MyActivity.json": "gemini",
    "grok-export": "grok",
}


def _every_other_export() -> list[Path]:
    samples = [p for p in SAMPLES.iterdir() if p.suffix not in (".py", ".md")]
    return samples + [path for path, _, _ in EXPECTED] + sorted(NOT_EXPORTS.iterdir())


@pytest.mark.parametrize("fmt", ["hangouts", "google-chat", "gemini", "grok"])
def test_each_new_sniff_says_no_to_every_other_export(fmt: str):
    importer = importers.get(fmt)
    for path in _every_other_export():
        expected = next((f for p, f, _ in EXPECTED if p == path), SAMPLE_FORMATS.get(path.name))
        if expected != fmt:
            assert not importer.sniff(path), path


# --- parsers -----------------------------------------------------------------------------------------------


@given(st.text())
def test_readable_html_of_any_text_is_that_text_without_markup(text: str):
    plain = htmltext.page_text(text.replace("<", " ").replace("&", " "))
    assert "<" not in plain
    assert " ".join(plain.split()) == " ".join(
        text.replace("<", " ").replace("&", " ").replace("\xa0", " ").split()
    )


@given(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2099, 12, 31)))
def test_google_chat_dates_read_back_as_written(when: datetime):
    when = when.replace(microsecond=0)
    stamp = f"{when:%A, %B} {when.day}, {when.year} at {when.hour % 12 or 12}:{when:%M:%S %p} UTC"
    assert google_chat.created(stamp, BERLIN) == when.replace(tzinfo=UTC)


# --- the samples -------------------------------------------------------------------------------------------

GOOGLE_SAMPLES = ["Hangouts.json", "Google Chat", "Gemini-MyActivity.json", "grok-export"]


def test_the_samples_are_what_the_script_writes_and_the_readme_names_them(tmp_path: Path):
    spec = importlib.util.spec_from_file_location(
        "sample_exports_generate_google", SAMPLES / "generate_google.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path)
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(
        p.relative_to(SAMPLES)
        for name in GOOGLE_SAMPLES
        for p in [SAMPLES / name, *(SAMPLES / name).rglob("*")]
        if p.is_file()
    )
    assert produced == committed
    for rel in produced:
        assert (tmp_path / rel).read_bytes() == (SAMPLES / rel).read_bytes(), rel
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name in [*GOOGLE_SAMPLES, "generate_google.py"]:
        assert name in readme


@pytest.mark.parametrize(
    ("name", "fmt", "messages"),
    [
        ("Hangouts.json", "hangouts", 8),
        ("Google Chat", "google-chat", 6),
        ("Gemini-MyActivity.json", "gemini", 10),
        ("grok-export", "grok", 5),
    ],
)
def test_each_sample_is_its_format(name: str, fmt: str, messages: int):
    assert importers.detect(SAMPLES / name) == fmt
    assert sum(len(m) for m in read(SAMPLES / name).values()) == messages
