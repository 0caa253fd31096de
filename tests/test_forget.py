"""`refind forget` erases for real, and `refind doctor` repairs the index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runs import run
from samples import JONAS, TELEGRAM

from refind_cli.index import chat_analyzers, open_index
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import DEFAULT_ANALYZER


def files_containing(home: Path, needle: bytes) -> list[str]:
    hits = []
    for path in home.rglob("*"):
        if path.is_file() and needle.lower() in path.read_bytes().lower():
            hits.append(str(path.relative_to(home)))
    return hits


@pytest.fixture
def jonas_telegram_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    r = run(home, "import", "--tz", "Europe/Berlin", str(JONAS), str(TELEGRAM))
    assert r.exit_code == 0, r.stderr
    return home


def test_forgotten_text_leaves_no_byte_on_disk_and_stays_forgotten(jonas_telegram_home: Path):
    assert files_containing(jonas_telegram_home, b"Wellenwerk"), "the token must be on disk before forgetting"
    # The conversation kept for `ask -c` quotes what the answer noted: forgetting takes it too.
    assert run(jonas_telegram_home, "ask", "--offline", "--quiet", "what is Wellenwerk?").exit_code == 0
    assert "conversation.json" in files_containing(jonas_telegram_home, b"Wellenwerk")
    r = run(jonas_telegram_home, "forget", "--matching", "wellenwerk", "--yes", "--json")
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["forgotten"] is True and out["messages"] > 0
    assert files_containing(jonas_telegram_home, b"Wellenwerk") == []
    assert run(jonas_telegram_home, "search", "Wellenwerk").exit_code == 1
    # Re-importing the same exports does not bring it back ...
    r = run(jonas_telegram_home, "import", "--tz", "Europe/Berlin", "--json", str(JONAS), str(TELEGRAM))
    assert sum(c["messages_added"] for f in json.loads(r.stdout)["files"] for c in f["chats"]) == 0
    assert run(jonas_telegram_home, "search", "Wellenwerk").exit_code == 1
    # ... unless asked to.
    r = run(
        jonas_telegram_home,
        "import",
        "--tz",
        "Europe/Berlin",
        "--restore-forgotten",
        "--json",
        str(JONAS),
        str(TELEGRAM),
    )
    assert (
        sum(c["messages_added"] for f in json.loads(r.stdout)["files"] for c in f["chats"]) == out["messages"]
    )
    assert run(jonas_telegram_home, "search", "Wellenwerk").exit_code == 0


def index_holds(home: Path, word: str) -> int:
    """Turns of the home's index holding ``word``, as any of its chats' languages analyses it: what the
    engine itself keeps, which a byte grep cannot see (tantivy's term dictionary is compressed)."""
    index = open_index(home)
    with Archive.open(home, readonly=True) as archive:
        analyzers = {DEFAULT_ANALYZER, *chat_analyzers(index, archive).values()}
    terms = {t for analyzer in analyzers for t in analyzer.analyze(word)}
    return sum(index.doc_freq(t) for t in terms)


def test_forgotten_text_leaves_the_engine_at_once(jonas_telegram_home: Path):
    # Right after forget, before any read could catch the index up: the forgotten word is in no document
    # the engine holds, deleted ones included (forget rebuilds the index; a sync would leave them counted).
    assert index_holds(jonas_telegram_home, "Wellenwerk") > 0
    r = run(jonas_telegram_home, "forget", "--matching", "wellenwerk", "--yes")
    assert r.exit_code == 0, r.stderr
    assert index_holds(jonas_telegram_home, "Wellenwerk") == 0


def test_forget_a_whole_chat(jonas_telegram_home: Path):
    with Archive.open(jonas_telegram_home) as archive:
        before = archive.counts()
    r = run(jonas_telegram_home, "forget", "--chat", "Aylin Demir", "--yes", "--json")
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["chats"][0]["emptied"] is True
    with Archive.open(jonas_telegram_home) as archive:
        after = archive.counts()
        assert [c.info.name for c in archive.chats()] == ["Jonas Becker"]
    assert after["messages"] == before["messages"] - out["messages"]
    assert files_containing(jonas_telegram_home, b"Aylin Demir") == []
    assert (
        json.loads(run(jonas_telegram_home, "chats", "--json").stdout)["chats"][0]["name"] == "Jonas Becker"
    )


def test_dry_run_changes_nothing_and_time_bounds_combine(jonas_telegram_home: Path):
    with Archive.open(jonas_telegram_home) as archive:
        before = archive.counts()
    r = run(
        jonas_telegram_home,
        "forget",
        "--chat",
        "Jonas",
        "--since",
        "2026-04-01",
        "--until",
        "2026-04-30",
        "--dry-run",
        "--json",
    )
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["forgotten"] is False and out["messages"] > 0
    assert out["first"] >= "2026-04-01" and out["last"] < "2026-05-01"
    with Archive.open(jonas_telegram_home) as archive:
        assert archive.counts() == before


def test_forget_asks_and_refuses_without_a_terminal(jonas_telegram_home: Path):
    r = run(jonas_telegram_home, "forget", "--matching", "dentist")
    assert r.exit_code == 2
    assert "--yes" in r.stderr


def test_forget_errors(jonas_telegram_home: Path):
    assert run(jonas_telegram_home, "forget").exit_code == 2
    r = run(jonas_telegram_home, "forget", "--chat", "nobody", "--yes")
    assert r.exit_code == 2 and "no chat matches" in r.stderr
    r = run(jonas_telegram_home, "forget", "--since", "the day after never", "--yes")
    assert r.exit_code == 2 and r.stderr.startswith("refind: error: --since:")
    assert run(jonas_telegram_home, "forget", "--matching", "zzzz-not-there", "--yes").exit_code == 1


def test_forget_a_session_keeps_the_rest(jonas_telegram_home: Path):
    hit = json.loads(run(jonas_telegram_home, "search", "dentist", "--json", "-k", "1").stdout)["results"][0]
    r = run(jonas_telegram_home, "forget", "--session", hit["session_id"], "--yes", "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["sessions"] == 1
    assert run(jonas_telegram_home, "show", hit["session_id"]).exit_code != 0
    with Archive.open(jonas_telegram_home) as archive:
        assert archive.session(hit["session_id"]) is None
        assert archive.counts()["sessions"] > 0


def test_doctor_repairs_an_index_that_fell_behind(jonas_telegram_home: Path):
    r = run(jonas_telegram_home, "doctor", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["ok"] is True
    with Archive.open(jonas_telegram_home) as archive, archive.transaction():
        archive.queue_all_sessions()
    r = run(jonas_telegram_home, "doctor", "--json")
    out = json.loads(r.stdout)
    assert r.exit_code == 0 and out["ok"] is True and out["queued_sessions"] == 0


def test_forgetting_a_chat_leaves_neither_its_name_nor_its_exports_path(jonas_telegram_home: Path):
    assert files_containing(jonas_telegram_home, b"Jonas Becker") and files_containing(
        jonas_telegram_home, JONAS.name.encode()
    )
    r = run(jonas_telegram_home, "forget", "--chat", "Jonas Becker", "--yes")
    assert r.exit_code == 0, r.stderr
    # The chat's uid holds its name, and the WhatsApp file is named after the chat.
    for needle in [b"Jonas Becker", JONAS.name.encode(), str(JONAS.resolve()).encode()]:
        assert files_containing(jonas_telegram_home, needle) == [], needle
    # Still forgotten: the same export read again adds nothing and the chat does not come back.
    r = run(jonas_telegram_home, "import", "--tz", "Europe/Berlin", "--json", str(JONAS))
    assert json.loads(r.stdout)["files"][0]["chats"][0]["messages_added"] == 0
    with Archive.open(jonas_telegram_home) as archive:
        assert [c.info.name for c in archive.chats()] == ["Aylin Demir"]


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_a_forgotten_chat_stays_forgotten_when_read_in_another_zone(jonas_telegram_home: Path, zone: str):
    assert run(jonas_telegram_home, "forget", "--chat", "Jonas Becker", "--yes").exit_code == 0
    r = run(jonas_telegram_home, "import", "--tz", zone, "--json", str(JONAS))
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["files"][0]["chats"][0]["messages_added"] == 0
    assert run(jonas_telegram_home, "search", "FOREWORD").exit_code == 1


def test_reading_an_export_in_another_zone_adds_no_duplicates(jonas_telegram_home: Path):
    with Archive.open(jonas_telegram_home) as archive:
        before = archive.counts()
    r = run(jonas_telegram_home, "import", "--tz", "UTC", "--json", str(JONAS), str(TELEGRAM))
    assert r.exit_code == 0, r.stderr
    assert sum(c["messages_added"] for f in json.loads(r.stdout)["files"] for c in f["chats"]) == 0
    with Archive.open(jonas_telegram_home) as archive:
        assert archive.counts() == before
