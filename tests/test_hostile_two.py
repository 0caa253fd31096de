"""Hostile input, round two (issue 24): far dates, homes that are not folders, MCP lines that are not
requests, text changed on import, unbounded options, and the other defects a second probe found. Each
test fails on the release before its fix."""

from __future__ import annotations

import errno
import json
import os
import warnings
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
    for args in (
        ("stats",),
        ("stats", "--tz", "Pacific/Kiritimati"),
        ("search", "hello", "--timeline"),
        ("search", "hello", "--timeline", "--tz", "Pacific/Kiritimati"),
        ("chats", "--tz", "Asia/Tokyo"),
        ("chats", "--json", "--tz", "Pacific/Kiritimati"),
        ("search", "far", "--tz", "Asia/Tokyo", "--json"),
    ):
        r = run(home, *args)
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert r.exit_code == 0, (args, r.output)


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


def test_every_mcp_line_that_is_not_a_request_or_holds_a_lone_surrogate_is_answered(tmp_path: Path):
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
    ]
    p = refind("--home", str(home), "mcp", input="\n".join(lines) + "\n", timeout=60)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    replies = [json.loads(line) for line in p.stdout.splitlines()]
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    assert sorted(by_id) == [1, 2, 3, 4, 5]
    assert "result" in by_id[2] and not by_id[2]["result"].get("isError")
    assert by_id[3]["error"]["code"] == by_id[4]["error"]["code"] == -32600
    unnamed = sorted(r["error"]["code"] for r in replies if r["id"] is None)
    assert unnamed == [-32700, -32600]  # the line that is not JSON, the array


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


def test_slack_exports_without_team_ids_keep_their_workspaces_apart_by_the_exports_name(tmp_path: Path):
    def export(name: str, text: str, ts: str) -> Path:
        root = tmp_path / name
        (root / "general").mkdir(parents=True)
        (root / "channels.json").write_text('[{"id": "C1", "name": "general"}]')
        (root / "users.json").write_text('[{"id": "U1", "name": "ann"}]')
        day = [{"type": "message", "user": "U1", "text": text, "ts": ts}]
        (root / "general" / "2024-01-01.json").write_text(json.dumps(day))
        return root

    acme = export("Acme Slack export Jan 1 2024 - Jan 2 2024", "acme hello", "1704103200.000100")
    globex = export("Globex Slack export Jan 1 2024 - Jan 2 2024", "globex hello", "1704103200.000100")
    later = export("Acme Slack export Jan 1 2024 - Feb 1 2024", "acme later", "1704106800.000100")
    home = tmp_path / "home"
    for path in (acme, globex, later):
        assert run(home, "import", str(path)).exit_code == 0
    chats = json.loads(run(home, "chats", "--json").stdout)["chats"]
    assert sorted((c["name"], c["messages"]) for c in chats) == [("#general", 1), ("#general", 2)]


# --- 4: one huge message costs memory bounded by a piece, not by its words ---------------------------------------


def test_analysing_a_huge_text_holds_a_piece_of_its_words_at_a_time(monkeypatch: pytest.MonkeyPatch):
    import tracemalloc

    from refind_cli.text import analysis

    monkeypatch.setattr(analysis, "_PIECE", 1 << 16, raising=False)  # so that a 1-MB text has many pieces
    text = "all work and no play makes jack a dull boy " * (1_000_000 // 43)
    analyzer = analysis.Analyzer()
    whole = analyzer.index_text(text[:200])
    tracemalloc.start()
    try:
        terms = analyzer.index_text(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert terms.startswith(whole) and len(terms.split()) == 6 * len(text) // 43  # 6 terms a line
    # Its output and a piece's words, not a list of a million words (15 times the text).
    assert peak < 3 * len(text), peak


def test_the_offline_answer_reads_a_bounded_part_of_a_huge_turn():
    import tracemalloc

    from refind_cli.agent.events import Note
    from refind_cli.agent.extractive import extractive_answer, rank, read
    from refind_cli.records import ChatInfo, Turn

    text = "all work and no play makes jack a dull boy " * (2_000_000 // 43)
    when = datetime(2024, 2, 1, 11, tzinfo=UTC)
    turn = Turn("s-1", "s", 1, 1, 1, when, when, "Jack", text)
    note = Note("s", "s-1", ChatInfo(1, "whatsapp", "Jack", "Jack", "direct"), (turn,), text)
    tracemalloc.start()
    try:
        found = rank(read("what does jack make?", frozenset({"jack"}), [note], tz=UTC))
        answer, citations, _ = extractive_answer(found, tz=UTC)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(citations) == 1 and "all work and no play" in answer and len(answer) < 2000
    assert peak < len(text), peak  # not its million words (30 times the text)


def test_a_body_of_spaces_and_marks_before_a_closing_bracket_reads_in_linear_time(tmp_path: Path):
    import time

    started = time.perf_counter()
    found, _ = read_whatsapp(
        tmp_path / "chat.txt", "01/02/2024, 10:00 - Ann: x" + " \u200e" * 100_000 + "y>\n"
    )
    assert len(found) == 1 and found[0].text.endswith("y>")
    assert time.perf_counter() - started < 2
