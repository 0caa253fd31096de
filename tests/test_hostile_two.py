"""Hostile input, round two (issue 24): far dates, homes that are not folders, MCP lines that are not
requests, text changed on import, unbounded options, and the other defects a second probe found. Each
test fails on the release before its fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runs import run

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
