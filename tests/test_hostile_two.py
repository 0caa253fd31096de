"""Hostile input, round two (issue 24): far dates, homes that are not folders, MCP lines that are not
requests, text changed on import, unbounded options, and the other defects a second probe found. Each
test fails on the release before its fix."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from cli_runs import refind, run

from refind_cli.errors import RefindError
from refind_cli.importers import whatsapp
from refind_cli.records import Kind, Message
from refind_cli.request import SearchRequest

SAMPLES = Path(__file__).resolve().parent.parent / "sample_exports"

TG_FAR = {
    "name": "Ann",
    "type": "personal_chat",
    "id": 7,
    "messages": [
        {"id": 1, "type": "message", "date": "2024-01-01T10:00:00", "from": "Ann", "text": "early hello"},
        {"id": 2, "type": "message", "date": "9999-12-31T23:59:59", "from": "Ann", "text": "far hello"},
    ],
}
DCE_FAR = {
    "guild": {"id": "1", "name": "Crag", "iconUrl": ""},
    "channel": {"id": "2", "type": "GuildTextChat", "name": "beta", "topic": None},
    "messages": [
        {
            "id": "3",
            "type": "Default",
            "timestamp": "9999-12-31T23:59:59.999+14:00",
            "content": "far hello",
            "author": {"id": "7", "name": "ann_c", "nickname": "Ann", "isBot": False},
        }
    ],
}


# --- 1: far dates ----------------------------------------------------------------------------------------


FAR_VIEWS = (
    ("stats",),
    ("stats", "--tz", "Pacific/Kiritimati"),
    ("search", "hello", "--timeline"),
    ("search", "hello", "--timeline", "--tz", "Pacific/Kiritimati"),
    ("chats", "--tz", "Asia/Tokyo"),
    ("chats", "--json", "--tz", "Pacific/Kiritimati"),
    ("search", "far", "--tz", "Asia/Tokyo", "--json"),
)


@pytest.mark.parametrize(("name", "export"), [("result.json", TG_FAR), ("beta.json", DCE_FAR)])
def test_a_far_future_time_is_clamped_at_import_and_every_view_shows_it(
    tmp_path: Path, name: str, export: dict
):
    path = tmp_path / name
    path.write_text(json.dumps(export))
    home = tmp_path / "home"
    r = run(home, "import", "--tz", "Europe/Berlin", "--json", str(path))
    assert r.exit_code == 0, r.output
    [warning] = json.loads(r.stdout)["files"][0]["warnings"]
    assert "9999-12-31" in warning and "stored as 2199-12-31" in warning
    for args in FAR_VIEWS:
        r = run(home, *args)
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert r.exit_code == 0, (args, r.output)


def written_the_old_way(home: Path, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``path`` imported into ``home`` as releases before the clamp stored it: its far time as read, and the
    archive without the migration that repairs it."""
    import refind_cli.importers
    from refind_cli.storage import archive, schema

    old = [m for m in schema.MIGRATIONS if m[0] != "m010_representable_times"]
    with monkeypatch.context() as patch:
        patch.setattr(refind_cli.importers, "_representable", lambda _path, _chat, messages: messages)
        patch.setattr(schema, "MIGRATIONS", tuple(old))
        patch.setattr(archive, "MIGRATIONS", tuple(old))
        assert run(home, "import", "--tz", "Europe/Berlin", str(path)).exit_code == 0


@pytest.mark.parametrize(("name", "export"), [("result.json", TG_FAR), ("beta.json", DCE_FAR)])
def test_an_archive_that_stored_a_far_time_is_repaired_by_a_migration_the_first_reader_applies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, export: dict
):
    import apsw

    from refind_cli.records import TIMES
    from refind_cli.storage.archive import Archive
    from refind_cli.storage.database import to_us

    path = tmp_path / name
    path.write_text(json.dumps(export))
    home = tmp_path / "home"
    written_the_old_way(home, path, monkeypatch)
    db = apsw.Connection(str(home / "archive.db"))
    assert db.execute("SELECT max(ts) FROM messages").fetchone()[0] > to_us(TIMES[1])
    db.close()
    served = tmp_path / "served"
    shutil.copytree(home, served)
    for args in FAR_VIEWS:
        r = run(home, *args)
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert r.exit_code == 0, (args, r.output)
    db = apsw.Connection(str(home / "archive.db"))
    assert db.execute("SELECT max(ts) FROM messages").fetchone()[0] == to_us(TIMES[1])
    with Archive.open(home, readonly=True) as kept:  # the record keeps the time as written
        assert any("9999-12-31" in m.raw for c in kept.chats() for m in kept.stored_messages(c.info.seq))
    assert db.execute("SELECT max(end_ts) FROM sessions").fetchone()[0] == to_us(TIMES[1])
    with Archive.open(home, readonly=True) as kept:  # a turn's times are its messages'
        assert max(to_us(t.end) for t in kept.iter_turns()) == to_us(TIMES[1])
    counted = (
        "SELECT chat_seq, ts / 900000000, coalesce(sender, ''), sender NOT NULL, kind, count(*) FROM messages"
    )
    recount = db.execute(
        f"{counted} WHERE kind != 'hidden' AND ts >= 0 GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5"
    )
    held = "SELECT chat_seq, quarter, sender, named, kind, n FROM message_counts ORDER BY 1, 2, 3, 4, 5"
    assert recount.fetchall() == db.execute(held).fetchall()
    db.close()
    far = json.loads(run(home, "search", "far", "--json").stdout)["results"][0]
    assert far["timestamp"].startswith("2199-12-31")
    # Over MCP, on a copy the first reader has not repaired yet: every answer, no error.
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "list_chats", "arguments": {}},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "search_chat", "arguments": {"keywords": "far hello"}},
        },
    ]
    text = "".join(json.dumps(c) + "\n" for c in calls)
    p = refind("--home", str(served), "mcp", "--tz", "Asia/Tokyo", input=text, timeout=60)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    replies = {r["id"]: r for r in map(json.loads, p.stdout.splitlines())}
    assert not replies[2]["result"].get("isError") and not replies[3]["result"].get("isError"), replies
    assert '"timestamp": "2200-01-01T08:59:59.999999+09:00", "speaker": "Ann", "text": "far hello"' in (
        json.dumps(replies[3]["result"]["structuredContent"])
    )


def test_an_old_archive_that_cannot_be_migrated_is_read_with_its_times_in_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """On read-only media no reader can apply m010: the views read the far time as the last one they can show."""
    import apsw

    from refind_cli.storage.archive import Archive

    path = tmp_path / "result.json"
    path.write_text(json.dumps(TG_FAR))
    home = tmp_path / "home"
    written_the_old_way(home, path, monkeypatch)
    monkeypatch.setattr(Archive, "upgrade", lambda self: None)
    for args in FAR_VIEWS:
        r = run(home, *args)
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert r.exit_code == 0, (args, r.output)
    far = json.loads(run(home, "search", "far", "--json", "--tz", "Asia/Tokyo").stdout)["results"][0]
    assert far["timestamp"] == "2200-01-01T08:59:59.999999+09:00"
    db = apsw.Connection(str(home / "archive.db"))
    assert db.execute("SELECT max(ts) > 7258118400000000 FROM messages").fetchone() == (1,)  # still year 9999
    db.close()


# --- 2: a home that is a file, or cannot be read -----------------------------------------------------------


HOME_READS = (
    ("search", "x"),
    ("search", "x", "--json"),
    ("chats",),
    ("stats",),
    ("show", "abc"),
    ("ask", "--offline", "hi"),
)


def one_line_error(r, *phrases: str) -> str:
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 2, r.output
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("refind: error: "), r.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("args", HOME_READS)
def test_a_home_that_is_a_file_is_one_line_for_every_reader(tmp_path: Path, args: tuple[str, ...]):
    home = tmp_path / "home"
    home.write_text("not a folder")
    r = run(home, *args)
    one_line_error(r, str(home), "not a folder")
    if "--json" in args:
        assert "not a folder" in json.loads(r.stdout)["error"]


def test_a_home_that_is_a_file_is_one_line_for_the_mcp_server(tmp_path: Path):
    home = tmp_path / "home"
    home.write_text("not a folder")
    r = refind("--home", str(home), "mcp", input="")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [
        f"refind: error: {home}: cannot use this as the home folder (not a folder)"
    ]


@pytest.mark.parametrize("args", HOME_READS)
def test_a_home_this_user_cannot_read_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
):
    home = tmp_path / "home"
    run(home, "import", str(SAMPLES / "telegram-result.json"))
    home.chmod(0)
    if os.geteuid() == 0:  # root reads any folder: make this one refuse as it would anyone else
        listdir = os.listdir

        def refuse(path: Any = ".") -> list[str]:
            if Path(path) == home:
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return listdir(path)

        monkeypatch.setattr(os, "listdir", refuse)
    try:
        one_line_error(run(home, *args), str(home), "ermission denied")
    finally:
        home.chmod(0o700)


def test_a_reader_of_a_home_that_does_not_exist_creates_nothing(tmp_path: Path):
    home = tmp_path / "nowhere"
    for args in (("chats",), ("search", "x"), ("stats",), ("chats", "--json")):
        assert run(home, *args).exit_code in (0, 1)
    assert not home.exists()


# --- 3: every MCP line read gets an answer -----------------------------------------------------------------


# The standard descriptors cannot be moved (no descriptor left): the wire serves them in place.
IN_PLACE = (
    "import errno, types; from refind_cli.frontends.mcp import stdio\n"
    "def refuse(*args): raise OSError(errno.EMFILE, 'Too many open files')\n"
    "stdio.fcntl = types.SimpleNamespace(fcntl=refuse, F_DUPFD_CLOEXEC=0)\n"
    "from refind_cli.frontends.cli import main; main()"
)


@pytest.mark.parametrize("descriptors", ["moved", "in place"])
def test_every_mcp_line_that_is_not_a_request_or_holds_a_lone_surrogate_is_answered(
    tmp_path: Path, descriptors: str
):
    home = tmp_path / "home"
    run(home, "import", "--tz", "UTC", str(SAMPLES / "telegram-result.json"))
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}
    lines = [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_chat", '
        '"arguments": {"keywords": "dentist \\ud800"}}}',
        "not json at all",
        "[1, 2]",
        '{"id": 3, "foo": 1}',
        '{"jsonrpc": "2.0", "id": 4, "params": {}}',
        json.dumps({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
        '{"jsonrpc": "2.0", "id": 6, "method": "ping", "params": ' + "[" * 100_000 + "]" * 100_000 + "}",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "get_context", "arguments": {"turn_id": "x", "before": 1e308}},
            }
        ),
    ]
    args = ("--home", str(home), "mcp")
    if descriptors == "moved":
        p = refind(*args, input="\n".join(lines) + "\n", timeout=60)
    else:
        command = [sys.executable, "-c", IN_PLACE, *args]
        p = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    replies = [json.loads(line) for line in p.stdout.splitlines()]
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    assert sorted(by_id) == [1, 2, 3, 4, 5, 7]
    assert "result" in by_id[2] and not by_id[2]["result"].get("isError")
    assert by_id[3]["error"]["code"] == by_id[4]["error"]["code"] == -32600
    unnamed = sorted(r["error"]["code"] for r in replies if r["id"] is None)
    assert unnamed == [-32700, -32700, -32600]  # the line that is not JSON, the nested one, the array
    [refusal] = by_id[7]["result"]["content"]
    assert by_id[7]["result"]["isError"] and len(refusal["text"]) < 100, refusal  # not 309 digits


# --- 9: text a person wrote is stored and shown as written ---------------------------------------------------


def test_whatsapp_bodies_are_stored_as_written_and_found_as_typed(tmp_path: Path):
    bodies = ["好的，我明天来", "x² is ½ of ｈｅｌｌｏ", "שלום\u200fעולם 123", "مرحبا\u200fبك"]
    chat = tmp_path / "WhatsApp Chat with Ann.txt"
    chat.write_text("".join(f"01/02/2024, 10:0{i} - Ann: {b}\n" for i, b in enumerate(bodies)))
    home = tmp_path / "home"
    assert run(home, "import", "--tz", "UTC", str(chat)).exit_code == 0
    r = run(home, "search", "hello", "--json")
    [session] = {hit["session_id"] for hit in json.loads(r.stdout)["results"]}
    shown = json.loads(run(home, "show", session, "--json").stdout)
    assert shown["turns"][0]["text"] == "\n".join(bodies)
    assert json.loads(run(home, "search", "x2", "--json").stdout)["results"]


# --- 8, 10: WhatsApp stamps ----------------------------------------------------------------------------------


def read_whatsapp(path: Path, text: str, tz: str = "Europe/Berlin") -> tuple[list[Message], list[str]]:
    path.write_text(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = [m for e in whatsapp.read(path, tz=ZoneInfo(tz)) for m in e.messages]
    return found, [str(w.message) for w in caught]


@pytest.mark.parametrize("stamp", ["12/03/10000, 10:01", "12/03/123456, 10:01", "10000/03/12, 10:01"])
def test_a_header_with_a_five_or_six_digit_year_is_its_own_record_with_a_warning(tmp_path: Path, stamp: str):
    found, warned = read_whatsapp(
        tmp_path / "chat.txt", f"12/03/2025, 10:00 - Ann: hello\n{stamp} - Bob: far away\n"
    )
    assert [m.text for m in found] == ["hello", f"{stamp} - Bob: far away"]
    assert found[1].kind == Kind.MALFORMED
    assert len(warned) == 1 and "line 2" in warned[0] and stamp in warned[0]


def test_a_time_the_clocks_skipped_keeps_the_order_of_the_file(tmp_path: Path):
    found, _ = read_whatsapp(
        tmp_path / "chat.txt",
        "29/03/2026, 01:59 - Ann: before\n29/03/2026, 02:30 - Ann: skipped\n29/03/2026, 03:01 - Ann: after\n",
    )
    times = [m.timestamp for m in found]
    assert times == sorted(times)
    assert found[1].timestamp == datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # the moment the clocks changed


# --- 16: --from by the start of any name part, and --from me -------------------------------------------------


def test_from_takes_the_start_of_any_name_part_and_me_takes_the_exports_own_messages(tmp_path: Path):
    home = tmp_path / "home"
    chat = tmp_path / "WhatsApp Chat with Maya.txt"
    chat.write_text("01/02/2024, 10:00 - Maya: flat hunting in Lisbon\n01/02/2024, 10:01 - Jonas: lisbon!\n")
    for path in (chat, SAMPLES / "telegram-result.json", SAMPLES / "chatgpt-export.zip"):
        assert run(home, "import", "--tz", "UTC", str(path)).exit_code == 0

    def speakers(*args: str) -> set[str]:
        r = run(home, "search", *args, "-k", "50", "--json")
        assert r.exit_code == 0, r.output
        return {hit["speaker"] for hit in json.loads(r.stdout)["results"]}

    assert speakers("flat", "--from", "Maya") == {"Maya", "Maya Lindqvist"}
    assert speakers("flat", "--from", "lindq") == {"Maya Lindqvist"}
    # The Telegram chat is one-to-one with Aylin, so the export's own person is the other; ChatGPT's user.
    mine = speakers("flat hunting dentist email", "--from", "me")
    assert mine == {"Maya Lindqvist", "You"}
    assert speakers("flat hunting dentist email", "--from", "Aylin") == {"Aylin Demir"}


def test_from_me_without_an_export_that_says_is_a_clear_error(tmp_path: Path):
    home = tmp_path / "home"
    chat = tmp_path / "WhatsApp Chat with Maya.txt"
    chat.write_text("01/02/2024, 10:00 - Maya: flat hunting in Lisbon\n")
    run(home, "import", "--tz", "UTC", str(chat))
    one_line_error(run(home, "search", "flat", "--from", "me"), "your own")


# --- 7: -k and --window are bounded -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "phrase"), [(("-k", "1000000"), "'-k'"), (("--window", "1000"), "'--window'")]
)
def test_k_and_window_have_an_upper_bound_with_a_clear_error(
    tmp_path: Path, args: tuple[str, ...], phrase: str
):
    one_line_error(run(tmp_path / "home", "search", "love", *args), phrase, "1000")
    with pytest.raises(RefindError, match="-k: 1000000 is more than 1000"):
        SearchRequest("love", k=1_000_000)


# --- 5: the session cap holds among equal timestamps -------------------------------------------------------


def test_25000_lines_of_one_minute_are_cut_at_the_session_cap_and_a_longer_export_adds_alike(tmp_path: Path):
    def export(name: str, n: int) -> Path:
        path = tmp_path / name / "WhatsApp Chat with Ann.txt"
        path.parent.mkdir()
        path.write_text("".join(f"01/02/2024, 10:00 - Ann: line {i}\n" for i in range(n)))
        return path

    def sessions(home: Path) -> list[int]:
        out = json.loads(run(home, "chats", "--json").stdout)["chats"]
        return [(c["messages"], c["sessions"]) for c in out]

    first, longer = export("a", 25_000), export("b", 25_100)
    assert run(tmp_path / "h1", "import", "--tz", "UTC", str(first)).exit_code == 0
    assert sessions(tmp_path / "h1") == [(25_000, 3)]
    assert run(tmp_path / "h1", "import", "--tz", "UTC", str(longer)).exit_code == 0
    assert run(tmp_path / "h2", "import", "--tz", "UTC", str(longer)).exit_code == 0
    assert sessions(tmp_path / "h1") == sessions(tmp_path / "h2") == [(25_100, 3)]


# --- forget removes the words from the index itself --------------------------------------------------------


def test_forget_leaves_no_document_in_the_index_holding_the_forgotten_word(tmp_path: Path):
    from refind_cli.index import open_index
    from refind_cli.text.analysis import analyzer_for

    home = tmp_path / "home"
    assert run(home, "import", "--tz", "Europe/Berlin", str(SAMPLES / "telegram-result.json")).exit_code == 0
    assert run(home, "search", "Wellenwerk").exit_code == 0  # the index is built

    def doc_freqs() -> dict[str, int]:
        index = open_index(home)
        terms = {analyzer_for(lang).index_text("Wellenwerk") for lang in ("en", "de", "und")}
        return {term: index.doc_freq(term) for term in terms}

    before = doc_freqs()
    assert any(before.values()), before
    assert run(home, "forget", "--matching", "wellenwerk", "--yes").exit_code == 0
    assert doc_freqs() == dict.fromkeys(before, 0)


# --- 13: no secret, home path or huge echo in error lines ---------------------------------------------------


def test_a_password_in_the_api_base_is_never_printed(tmp_path: Path):
    home = tmp_path / "home"
    run(home, "import", "--tz", "UTC", str(SAMPLES / "telegram-result.json"))
    base = "http://maya:SECRET-PASSWORD@127.0.0.1:9/v1"
    r = run(home, "ask", "where is the flat?", "--model", "openai/x", "--api-base", base, "--json")
    assert r.exit_code == 2
    assert "SECRET-PASSWORD" not in r.stdout + r.stderr
    assert "http://maya:***@127.0.0.1:9/v1" in r.stderr


def test_an_unknown_id_error_names_neither_the_home_nor_the_whole_id(tmp_path: Path):
    from refind_cli.errors import RefindError
    from refind_cli.facade import Home

    home = tmp_path / "home"
    run(home, "import", "--tz", "UTC", str(SAMPLES / "telegram-result.json"))
    with Home.open(home) as opened, pytest.raises(RefindError) as caught:
        opened.show("x" * 100_000)
    assert str(home) not in str(caught.value) and len(str(caught.value)) < 200


# --- 14: what the README says of piped search output holds ---------------------------------------------------


def test_piped_search_output_is_as_the_readme_says(tmp_path: Path):
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "| wc -l` counts hit lines" not in readme  # it printed 30 lines for 5 hits
    assert "refind search x | grep -c '^>'` counts hits" in readme
    home = tmp_path / "home"
    run(home, "import", "--tz", "UTC", str(SAMPLES))
    p = refind("--home", str(home), "search", "dentist", "-k", "7", "--tz", "UTC")
    assert p.returncode == 0
    hits = [line for line in p.stdout.splitlines() if line.startswith(">")]
    assert len(hits) == 7


# --- 15: eval into a pipe is TSV, without a progress bar ------------------------------------------------------


def test_eval_into_a_pipe_prints_tsv_and_no_progress_bar(tmp_path: Path):
    sample = [{"question_id": f"q{i}", "question_type": "single-session-user", "question": "where did I go?",
               "answer": "Lisbon", "question_date": "2024/01/05 (Fri) 10:00",
               "haystack_session_ids": ["s1"], "haystack_dates": ["2024/01/01 (Mon) 10:00"],
               "haystack_sessions": [[{"role": "user", "content": "I went to Lisbon", "has_answer": True},
                                      {"role": "assistant", "content": "Nice!"}]],
               "answer_session_ids": ["s1"]} for i in range(2)]  # fmt: skip
    path = tmp_path / "longmemeval_s.json"
    path.write_text(json.dumps(sample))
    p = refind("--home", str(tmp_path / "home"), "eval", str(path))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split("\t")[:2] == ["category", "questions"]
    assert lines[1].split("\t")[:2] == ["all", "2"]
    assert all("\t" in line for line in lines) and "━" not in p.stdout
    assert "questions" not in p.stderr  # no progress bar into a log


# --- 17: what a new user meets ----------------------------------------------------------------------------------


def test_a_truncated_zip_and_an_empty_folder_are_named_as_what_they_are(tmp_path: Path):
    cut = tmp_path / "WhatsApp Chat - Family.zip"
    cut.write_bytes((SAMPLES / "WhatsApp Chat - Family.zip").read_bytes()[:3000])
    empty = tmp_path / "exports"
    empty.mkdir()
    r = run(tmp_path / "home", "import", str(cut), str(empty))
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        f"refind: error: {cut}: is a zip archive cut short or damaged (no central directory); download it again",
        f"refind: error: {empty}: is an empty folder; not a chat export",
    ]


def test_a_read_on_a_full_disk_says_the_disk_is_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import shutil

    import apsw

    from refind_cli.storage.archive import Archive

    home = tmp_path / "home"
    run(home, "import", "--tz", "UTC", str(SAMPLES / "telegram-result.json"))

    def no_room(self: Archive, *args: Any, **kw: Any) -> None:
        raise apsw.IOError("disk I/O error")  # what SQLite said reading on a full disk

    monkeypatch.setattr(Archive, "chats", no_room)
    monkeypatch.setattr(shutil, "disk_usage", lambda _path: shutil._ntuple_diskusage(100, 100, 0))
    one_line_error(run(home, "chats"), "the disk is full")


def test_searching_an_empty_home_says_to_import_first(tmp_path: Path):
    r = run(tmp_path / "home", "search", "dentist")
    assert r.exit_code == 1 and r.stdout == ""
    assert "no matching turns" in r.stderr and "refind import" in r.stderr


# --- 12: the unchanged-file fast path reports what reading the file would ---------------------------------------


def test_a_copy_under_another_name_is_read_as_what_it_is_with_or_without_reread(tmp_path: Path):
    jonas = tmp_path / "WhatsApp Chat with Jonas.txt"
    jonas.write_text("01/02/2024, 10:00 - Jonas: hello\n01/02/2024, 10:01 - Maya: hi\n")
    copy = tmp_path / "WhatsApp Chat with Bob.txt"
    copy.write_bytes(jonas.read_bytes())

    def chats(home: Path, *args: str) -> list[tuple[str, bool]]:
        r = run(home, "import", "--tz", "UTC", "--json", *args)
        return [(c["name"], f["unchanged"]) for f in json.loads(r.stdout)["files"] for c in f["chats"]]

    assert chats(tmp_path / "h1", str(jonas)) == [("Jonas", False)]
    assert chats(tmp_path / "h1", str(copy)) == [("Bob", False)]
    assert chats(tmp_path / "h2", str(jonas)) == [("Jonas", False)]
    assert chats(tmp_path / "h2", "--reread", str(copy)) == [("Bob", False)]
    assert chats(tmp_path / "h1", str(copy)) == [("Bob", True)]


# --- 11: Slack exports with no team id do not merge across workspaces -------------------------------------------


# Two workspaces that both hold a #general with id C1, and what in each export tells them apart.
WORKSPACES = {"acme": ("1600000000", "U1"), "globex": ("1650000000", "U9")}


@pytest.mark.parametrize("clue", ["created", "owner", "name"])
def test_slack_exports_without_team_ids_merge_one_workspace_and_keep_two_apart(tmp_path: Path, clue: str):
    """Renamed by the user (but for the last clue, the name Slack gave the export): what the export holds
    tells the workspace, so the same one exported twice merges and two do not."""

    def export(workspace: str, n: int, texts: list[str]) -> Path:
        created, owner = WORKSPACES[workspace]
        name = f"{workspace.title()} Slack export Jan 1 2024 - Feb {n} 2024" if clue == "name" else f"dl-{n}"
        root = tmp_path / name
        (root / "general").mkdir(parents=True)
        channel = {"id": "C1", "name": "general", **({"created": int(created)} if clue == "created" else {})}
        (root / "channels.json").write_text(json.dumps([channel]))
        user = {"id": owner, "name": "ann", **({"is_primary_owner": True} if clue == "owner" else {})}
        (root / "users.json").write_text(json.dumps([user]))
        day = [
            {"type": "message", "user": owner, "text": t, "ts": f"17041032{i:02d}.000100"}
            for i, t in enumerate(texts)
        ]
        (root / "general" / "2024-01-01.json").write_text(json.dumps(day))
        return root

    home = tmp_path / "home"
    for path in (
        export("acme", 1, ["acme hello"]),
        export("globex", 2, ["globex hello"]),
        export("acme", 3, ["acme hello", "acme later"]),
    ):
        assert run(home, "import", str(path)).exit_code == 0
    chats = json.loads(run(home, "chats", "--json").stdout)["chats"]
    assert sorted((c["name"], c["messages"]) for c in chats) == [("#general", 1), ("#general", 2)]


# --- 4: one huge message costs memory bounded by a piece, not by its words ---------------------------------------


def traced(work: Callable[[], Any]) -> tuple[Any, int]:
    """What ``work`` returns, and the peak of the memory Python allocated meanwhile (bytes)."""
    import tracemalloc

    tracemalloc.start()
    try:
        return work(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_analysing_a_huge_text_holds_a_piece_of_its_words_at_a_time(monkeypatch: pytest.MonkeyPatch):
    from refind_cli.text import analysis

    monkeypatch.setattr(analysis, "_PIECE", 1 << 16, raising=False)  # so that a 1-MB text has many pieces
    text = "all work and no play makes jack a dull boy " * (1_000_000 // 43)
    analyzer = analysis.Analyzer()
    whole = analyzer.index_text(text[:200])
    terms, peak = traced(lambda: analyzer.index_text(text))
    assert terms.startswith(whole) and len(terms.split()) == 6 * len(text) // 43  # 6 terms a line
    # Its output and a piece's words, not a list of a million words (15 times the text).
    assert peak < 3 * len(text), peak


def test_the_offline_answer_reads_a_bounded_part_of_a_huge_turn():
    from refind_cli.agent.events import Note
    from refind_cli.agent.extractive import extractive_answer, rank, read
    from refind_cli.records import ChatInfo, Turn

    text = "all work and no play makes jack a dull boy " * (2_000_000 // 43)
    when = datetime(2024, 2, 1, 11, tzinfo=UTC)
    turn = Turn("s-1", "s", 1, 1, 1, when, when, "Jack", text)
    note = Note("s", "s-1", ChatInfo(1, "whatsapp", "Jack", "Jack", "direct"), (turn,), text)

    def found_answer():
        return extractive_answer(
            rank(read("what does jack make?", frozenset({"jack"}), [note], tz=UTC)), tz=UTC
        )

    (answer, citations, _), peak = traced(found_answer)
    assert len(citations) == 1 and "all work and no play" in answer and len(answer) < 2000
    assert peak < len(text), peak  # not its million words (30 times the text)


def test_show_gives_the_start_of_a_huge_turn_and_says_how_much_is_left(tmp_path: Path):
    """A single message past the turn cap is one turn: `show` and get_context read, print and send its first
    ``SHOWN_CHARS`` characters and say how many more there are, not the whole message."""
    from refind_cli.facade import Home
    from refind_cli.storage.queries import SHOWN_CHARS

    # Long enough that its half is more than the shown part read in pieces and decoded (twice that part).
    body = "all work and no play makes jack a dull boy " * (8 * SHOWN_CHARS // 43)
    path = tmp_path / "WhatsApp Chat with Jack.txt"
    path.write_text(f"01/02/2024, 11:00 - Jack: {body}abc\n01/02/2024, 11:01 - Ann: ok\n")
    home = tmp_path / "home"
    assert run(home, "import", "--tz", "UTC", str(path)).exit_code == 0
    session = json.loads(run(home, "search", "abc", "--json").stdout)["results"][0]["session_id"]
    shown = json.loads(run(home, "show", session, "--json").stdout)["turns"]
    assert [len(t["text"]) for t in shown] == [SHOWN_CHARS, 2]
    whole = len(body) + 3
    assert shown[0] | {"text": ""} == shown[0] | {
        "text": "",
        "truncated": True,
        "text_offset": 0,
        "text_length": whole,
    }
    assert "truncated" not in shown[1]
    r = run(home, "show", session)
    assert f"[... {whole - SHOWN_CHARS:,} more characters not shown]" in r.stdout
    assert len(r.stdout) < 2 * SHOWN_CHARS
    with Home.open(home) as opened:
        view, peak = traced(lambda: opened.show(session))
    assert view.turns[0].length == whole and peak < whole // 2, peak


def test_a_body_of_spaces_and_marks_before_a_closing_bracket_reads_in_linear_time(tmp_path: Path):
    import time

    started = time.perf_counter()
    found, _ = read_whatsapp(
        tmp_path / "chat.txt", "01/02/2024, 10:00 - Ann: x" + " \u200e" * 100_000 + "y>\n"
    )
    assert len(found) == 1 and found[0].text.endswith("y>")
    assert time.perf_counter() - started < 2


# --- probed again: streams closed or full, huge durations -------------------------------------------------------


def refind_closing(
    fd: int | None, *args: str, stdout: Any = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    """refind with standard descriptor ``fd`` closed before it starts (as `<&-`, `>&-`, `2>&-` do)."""
    return subprocess.run(
        [sys.executable, "-m", "refind_cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=None if fd is None else lambda: os.close(fd),
    )


READS = (("search", "dentist"), ("search", "dentist", "--json"), ("chats",), ("stats",), ("mcp",))


@pytest.fixture(scope="module")
def sample_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("streams") / "home"
    assert run(home, "import", "--tz", "UTC", str(SAMPLES / "telegram-result.json")).exit_code == 0
    return home


@pytest.mark.parametrize("args", READS)
def test_output_that_cannot_be_written_is_one_line(sample_home: Path, args: tuple[str, ...]):
    runs = [refind_closing(1, "--home", str(sample_home), *args)]
    if args != ("mcp",):  # with no request, mcp writes nothing
        with Path("/dev/full").open("w") as full:  # every write fails: the disk is full
            runs.append(refind_closing(None, "--home", str(sample_home), *args, stdout=full))
    for p in runs:
        [line] = p.stderr.splitlines()
        assert p.returncode == 2 and line.startswith("refind: error: stdout: "), p.stderr


def test_a_closed_stdin_reads_as_empty_and_a_closed_stderr_keeps_the_exit_code(
    sample_home: Path, tmp_path: Path
):
    p = refind_closing(0, "--home", str(sample_home), "search", "-")
    # No queries at all is a mistake in the command (session 14), said in one line.
    assert (p.returncode, p.stdout, p.stderr.count("\n")) == (2, "", 1) and "stdin" in p.stderr
    p = refind_closing(0, "--home", str(sample_home), "mcp")
    assert (p.returncode, p.stdout, p.stderr) == (0, "", "")
    p = refind_closing(0, "--home", str(sample_home), "forget", "--chat", "Aylin")
    assert p.returncode == 2 and "add --yes" in p.stderr
    home = tmp_path / "file"
    home.write_text("not a folder")
    assert refind_closing(2, "--home", str(home), "search", "x").returncode == 2


@pytest.mark.parametrize("gap", ["99999999999999999999", "9999999999999999999h", "9" * 5000])
def test_a_session_gap_longer_than_any_duration_is_one_line(tmp_path: Path, gap: str):
    r = run(tmp_path / "home", "import", "--session-gap", gap, str(SAMPLES / "telegram-result.json"))
    line = one_line_error(r, "--session-gap", "longer than any duration")
    assert len(line) < 200
