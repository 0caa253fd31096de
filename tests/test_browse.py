"""Browsing with `refind show`: a chat's session of a given day, the ids of the sessions before and after,
and `ask` citations that `refind show` opens."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_runs import run

from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive

T0 = datetime(2024, 3, 1, 23, 50, tzinfo=UTC)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Three sessions of one chat: 1 March 23:50 UTC running past midnight, 3 March, 10 March; and a second
    chat on 2 March."""
    home = tmp_path / "home"
    talk = [
        Message(T0, "Ann", "late talk"),
        Message(T0 + timedelta(minutes=30), "Bo", "past midnight"),
        Message(T0 + timedelta(days=2), "Ann", "third of March"),
        Message(T0 + timedelta(days=9), "Bo", "tenth of March"),
    ]
    with Archive.open(home) as archive:
        import_chat(archive, Chat("test", "a", "Ann and Bo"), talk)
        import_chat(
            archive, Chat("test", "b", "Other"), [Message(T0 + timedelta(days=1), "Cy", "other chat")]
        )
    return home


def show(home: Path, *args: str) -> dict:
    done = run(home, "show", *args, "--tz", "UTC", "--json")
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def test_a_day_opens_its_session_and_the_ends_lead_on(home: Path) -> None:
    first = show(home, "--chat", "Ann", "--date", "2024-03-01")
    assert [t["text"] for t in first["turns"]] == ["late talk", "past midnight"]
    assert first["previous_session_id"] is None
    # A talk that began the evening before is the morning's session too.
    assert show(home, "--chat", "Ann", "--date", "2024-03-02")["session_id"] == first["session_id"]
    third = show(home, first["next_session_id"])
    assert [t["text"] for t in third["turns"]] == ["third of March"]
    assert third["previous_session_id"] == first["session_id"]
    # A silent day opens the next session; the other chat's session of that day is not this chat's.
    tenth = show(home, "--chat", "Ann", "--date", "2024-03-05")
    assert [t["text"] for t in tenth["turns"]] == ["tenth of March"]
    assert tenth["previous_session_id"] == third["session_id"] and tenth["next_session_id"] is None
    text = run(home, "show", "--chat", "Ann", "--date", "2024-03-03", "--tz", "UTC").stdout
    assert text.splitlines()[-1] == f"previous: {first['session_id']}  next: {tenth['session_id']}"


def test_browsing_mistakes_are_one_line(home: Path) -> None:
    for args in (
        ("--chat", "Ann", "--date", "2024-04-01"),  # nothing on or after it
        ("--date", "2024-03-01"),  # which chat?
        ("--chat", "Ann"),  # which day?
        ("--chat", "nobody", "--date", "2024-03-01"),
        ("--chat", "Ann", "--date", "someday"),
    ):
        done = run(home, "show", *args)
        assert done.exit_code == 2 and done.stderr.startswith("refind: error: "), args
        assert len(done.stderr.splitlines()) == 1


def test_offline_ask_names_the_turns_it_quotes(sample_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("REFIND_MODEL", "REFIND_API_BASE", "REFIND_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    done = run(sample_home, "ask", "--offline", "--tz", "Europe/Berlin", "when did I move the dentist?")
    assert done.exit_code == 0, done.output
    line = next(x for x in done.stderr.splitlines() if x.startswith("turns: "))
    ids = [part for part in line.removeprefix("turns: ").split() if not part.startswith("[")]
    cited = json.loads(run(sample_home, "ask", "--offline", "--json", "when did I move the dentist?").stdout)
    assert ids == [c["turn_id"] for c in cited["citations"]] and ids
    opened = json.loads(run(sample_home, "show", ids[0], "--json").stdout)
    assert [t["turn_id"] for t in opened["turns"] if t["hit"]] == [ids[0]]
