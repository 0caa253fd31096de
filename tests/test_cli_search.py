from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_runs import run

from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def two_chat_home(tmp_path: Path) -> Path:
    """Two chats; nothing indexed yet (the first command catches the index up)."""
    home = tmp_path / "home"
    with Archive.open(home) as arch:
        import_chat(
            arch,
            Chat("test", "c1", "Alice"),
            [
                Message(T0, "Alice", "I need a dentist"),
                Message(T0 + timedelta(minutes=1), "Bob", "try Dr. Paris\nshe is great"),
                Message(T0 + timedelta(minutes=2), "Alice", "thanks"),
                Message(T0 + timedelta(days=4, hours=9), "Alice", "the dentist was great"),
                Message(T0 + timedelta(days=4, hours=9, minutes=5), "Bob", "told you"),
            ],
        )
        import_chat(
            arch,
            Chat("test", "c2", "Book club"),
            [Message(T0 + timedelta(days=9), "Carol", "dentist memoir")],
        )
    return home


def test_from_sort_and_newest(two_chat_home: Path) -> None:
    r = run(two_chat_home, "search", "dentist great", "--from", "car", "--from", "alice", "--json")
    out = json.loads(r.stdout)
    assert out["filters"]["from"] == ["car", "alice"] and out["total"] == 3
    assert {h["speaker"] for h in out["results"]} == {"Carol", "Alice"}
    newest = json.loads(run(two_chat_home, "search", "dentist great", "--newest", "--json").stdout)
    times = [h["timestamp"] for h in newest["results"]]
    assert newest["filters"]["sort"] == "time" and times == sorted(times, reverse=True) and len(times) == 4
    assert json.loads(run(two_chat_home, "search", "dentist", "--sort", "time", "--json").stdout) == {
        **json.loads(run(two_chat_home, "search", "dentist", "--newest", "--json").stdout)
    }
    for args, problem in [
        (["--from", "zed"], "from 'zed': no speaker is called that"),
        (["--sort", "size"], "--sort: 'size' is not one of score, time"),
        (["--newest", "--sort", "score"], "--newest and --sort score cannot be used together"),
    ]:
        r = run(two_chat_home, "search", "dentist", *args)
        assert r.exit_code == 2 and r.stderr == f"refind: error: {problem}\n"


def test_tz_takes_an_offset_and_refuses_nothing(two_chat_home: Path) -> None:
    r = run(two_chat_home, "search", "dentist", "--json", "--tz", "+05:30", "--since", "2026/01/05")
    out = json.loads(r.stdout)
    assert out["filters"]["since"] == "2026-01-05T00:00:00+05:30"
    assert sorted(h["timestamp"] for h in out["results"]) == [
        "2026-01-05T23:30:00+05:30",
        "2026-01-10T14:30:00+05:30",
    ]
    r = run(two_chat_home, "search", "dentist", "--tz", "")
    assert (
        r.exit_code == 2 and r.stderr == "refind: error: --tz: empty (leave --tz out for the system's zone)\n"
    )


def test_search_json_shape(two_chat_home: Path) -> None:
    r = run(
        two_chat_home, "search", "dentists", "--json", "--tz", "Europe/Berlin", "-k", "2", "--window", "1"
    )
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["query"] == "dentists"
    assert out["filters"] == {
        "since": None,
        "until": None,
        "chat": None,
        "chat_ids": None,
        "source": None,
        "exclude_sessions": [],
        "from": None,
        "sort": "score",
    }
    assert out["total"] == 3 and len(out["results"]) == 2
    first = out["results"][0]
    for key in ("rank", "score", "chat", "session_id", "turn_id", "timestamp", "speaker", "text", "window"):
        assert key in first
    assert set(first["chat"]) == {"id", "name", "source"}
    assert first["rank"] == 1
    assert first["timestamp"].endswith("+01:00")
    for w in first["window"]:
        assert set(w) == {"turn_id", "timestamp", "speaker", "text", "hit"}
    assert [w["hit"] for w in first["window"]].count(True) == 1
    assert any(w["turn_id"] == first["turn_id"] and w["hit"] for w in first["window"])


def test_exit_one_when_nothing_found(two_chat_home: Path) -> None:
    r = run(two_chat_home, "search", "zebra", "--json")
    assert r.exit_code == 1
    assert json.loads(r.stdout)["results"] == []
    assert run(two_chat_home, "search", "the of and").exit_code == 1


def test_a_search_that_finds_nothing_says_so_of_an_empty_home_only(
    two_chat_home: Path, tmp_path: Path
) -> None:
    empty = run(tmp_path / "empty", "search", "zebra")
    assert (empty.exit_code, empty.stderr.count("holds no chats yet")) == (1, 1)
    assert "holds no chats yet" not in run(two_chat_home, "search", "zebra").stderr


def test_human_output(two_chat_home: Path) -> None:
    r = run(two_chat_home, "search", "paris", "--tz", "UTC")
    assert r.exit_code == 0
    assert "Alice (test)" in r.stdout
    assert "> 09:01  Bob: try Dr. Paris" in r.stdout
    assert "she is great" in r.stdout
    assert "1 of 1 matching turns" in r.stdout


def test_bad_date_names_the_option(two_chat_home: Path) -> None:
    r = run(two_chat_home, "search", "dentist", "--since", "the day after never")
    assert r.exit_code == 2
    assert r.stderr.startswith("refind: error: --since: ")
    assert r.stderr.count("\n") == 1
    r = run(two_chat_home, "search", "dentist", "--until", "blah", "--json")
    assert r.exit_code == 2
    assert json.loads(r.stdout)["error"].startswith("--until: ")


def test_other_errors(two_chat_home: Path) -> None:
    assert run(two_chat_home, "search", "dentist", "--json", "--jsonl").exit_code == 2
    r = run(two_chat_home, "search", "dentist", "--chat", "nobody")
    assert r.exit_code == 2 and "--chat" in r.stderr
    r = run(two_chat_home, "search", "dentist", "--tz", "Mars/Olympus")
    assert r.exit_code == 2 and "--tz" in r.stderr
    r = run(two_chat_home, "search", "dentist", "--since", "2026-02-01", "--until", "2026-01-01")
    assert r.exit_code == 2 and "after" in r.stderr
    assert run(two_chat_home, "search", "dentist", "-k", "0").exit_code == 2


def test_filters(two_chat_home: Path) -> None:
    def turns(*args: str) -> list[str]:
        r = run(two_chat_home, "search", "dentist", "--json", "--tz", "UTC", "-k", "10", *args)
        assert r.exit_code in (0, 1), r.stderr
        return [h["text"] for h in json.loads(r.stdout)["results"]]

    assert len(turns()) == 3
    # Date-only bounds are whole days, inclusive at both ends.
    assert turns("--since", "2026-01-05", "--until", "2026-01-05") == ["the dentist was great"]
    assert turns("--until", "2026-01-01") == ["I need a dentist"]
    assert turns("--chat", "book") == ["dentist memoir"]
    r = run(two_chat_home, "search", "dentist", "--json", "--chat", "book")
    assert json.loads(r.stdout)["filters"]["chat"] == ["book"]
    first = json.loads(run(two_chat_home, "search", "dentist", "--json").stdout)["results"][0]["session_id"]
    assert len(turns("--exclude-session", first)) == 2


def test_json_echoes_the_filters_by_value(two_chat_home: Path) -> None:
    first = json.loads(run(two_chat_home, "search", "need dentist", "--json", "-k", "1").stdout)["results"][0]
    filters = [
        *("--since", "2026-01-02", "--until", "2026-01-05", "--tz", "Europe/Berlin"),
        *("--chat", "alice", "--chat", "book", "--exclude-session", first["session_id"]),
        *("--from", "ALICE", "--newest"),
    ]
    echo = {
        "since": "2026-01-02T00:00:00+01:00",
        "until": "2026-01-05T23:59:59.999999+01:00",
        "chat": ["alice", "book"],
        "chat_ids": [1, 2],
        "source": None,
        "exclude_sessions": [first["session_id"]],
        "from": ["ALICE"],
        "sort": "time",
    }
    r = run(two_chat_home, "search", "dentist", "--json", *filters)
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["filters"] == echo
    assert [h["text"] for h in out["results"]] == ["the dentist was great"]
    r = run(two_chat_home, "search", "-", "--jsonl", *filters, input="dentist\nzebra\n")
    assert [json.loads(line)["filters"] for line in r.stdout.splitlines()] == [echo, echo]


def test_stdin_queries_jsonl_in_order(two_chat_home: Path) -> None:
    r = run(two_chat_home, "search", "-", "--jsonl", "-k", "1", input="paris\nzebra\n\nmemoir\n")
    assert r.exit_code == 0
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [o["query"] for o in lines] == ["paris", "zebra", "", "memoir"]
    assert [len(o["results"]) for o in lines] == [1, 0, 0, 1]
    r = run(two_chat_home, "search", "-", "--json", input="paris\nmemoir\n")
    assert [o["query"] for o in json.loads(r.stdout)] == ["paris", "memoir"]
    assert run(two_chat_home, "search", "-", input="zebra\nunicorn\n").exit_code == 1


def test_no_session_rank_is_plain_bm25(two_chat_home: Path) -> None:
    r = run(two_chat_home, "search", "dentist great", "--json", "--no-session-rank", "-k", "10")
    results = json.loads(r.stdout)["results"]
    assert [h["score"] for h in results] == [h["bm25"] for h in results]


def test_show_session_and_turn(two_chat_home: Path) -> None:
    hit = json.loads(run(two_chat_home, "search", "paris", "--json").stdout)["results"][0]
    r = run(two_chat_home, "show", hit["session_id"], "--tz", "UTC")
    assert r.exit_code == 0
    assert "I need a dentist" in r.stdout and "thanks" in r.stdout
    assert "Thursday 01 January 2026" in r.stdout
    r = run(two_chat_home, "show", hit["session_id"], "--around", hit["turn_id"], "--context", "0", "--json")
    shown = json.loads(r.stdout)
    assert shown["session_id"] == hit["session_id"]
    assert [(t["turn_id"], t["hit"]) for t in shown["turns"]] == [(hit["turn_id"], True)]
    by_turn = json.loads(run(two_chat_home, "show", hit["turn_id"], "--json").stdout)
    assert len(by_turn["turns"]) == 3 and [t["hit"] for t in by_turn["turns"]] == [False, True, False]
    r = run(two_chat_home, "show", "no-such-session", "--json")
    assert r.exit_code == 2 and "no session" in json.loads(r.stdout)["error"]
    assert run(two_chat_home, "show", hit["session_id"], "--around", "nope").exit_code == 2


def test_reindex(two_chat_home: Path) -> None:
    assert run(two_chat_home, "search", "dentist").exit_code == 0
    r = run(two_chat_home, "reindex", "--json")
    assert r.exit_code == 0
    assert json.loads(r.stdout)["turns"] == 6
    assert (
        len(json.loads(run(two_chat_home, "search", "dentist", "--json", "-k", "9").stdout)["results"]) == 3
    )


def test_search_never_imports_litellm(two_chat_home: Path) -> None:
    code = (
        "import sys\n"
        "from refind_cli.frontends.cli import main\n"
        f"sys.argv = ['refind', '--home', {str(two_chat_home)!r}, 'search', 'dentist', '--json']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    status = e.code\n"
        "sys.stderr.write(f'STATUS={status} LITELLM={\"litellm\" in sys.modules}\\n')\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "STATUS=0 LITELLM=False" in p.stderr, p.stderr
    assert json.loads(p.stdout)["results"]


def test_a_turn_of_several_speakers_does_not_repeat_the_first_name(tmp_path: Path):
    """An exchange turn (a question with its answer) names each speaker in its text; shown after the
    speaker's name, the first is not said twice, in the terminal and to a model."""
    from refind_cli.agent import prompts
    from refind_cli.records import said

    assert said("You", "You: when?\nChatGPT: at 8") == "when?\nChatGPT: at 8"
    assert said("Maya", "You: not hers") == "You: not hers"
    home = tmp_path / "home"
    with Archive.open(home) as arch:
        import_chat(
            arch,
            Chat("chatgpt", "c1", "Dentist email"),
            [Message(T0, "You", "draft an email to the dentist"), Message(T0, "ChatGPT", "Dear Dr. Okafor")],
            pairing="exchange",
        )
    out = run(home, "search", "dentist").stdout
    assert "You: draft an email" in out and "You: You:" not in out
    shown = run(
        home, "show", json.loads(run(home, "search", "dentist", "--json").stdout)["results"][0]["turn_id"]
    )
    assert "You: You:" not in shown.stdout
    assert prompts.turn_text(said("You", "You: x")) == "x"


def test_emoji_and_unaccented_spellings_find_what_was_written(tmp_path: Path):
    home = tmp_path / "home"
    with Archive.open(home) as arch:
        import_chat(
            arch,
            Chat("test", "c1", "Family"),
            [
                Message(T0, "Mum", "Happy birthday darling 🎂🎉"),
                Message(T0 + timedelta(hours=3), "Maya", "the key box is on Rua dos Remédios"),
                Message(T0 + timedelta(hours=6), "Maya", "new flat: Weserstraße 12"),
            ],
        )
    for query, said in (("🎂", "birthday"), ("remedios", "Remédios"), ("weserstrasse", "Weserstraße")):
        hits = json.loads(run(home, "search", query, "--json").stdout)["results"]
        assert hits and said in hits[0]["text"], query
