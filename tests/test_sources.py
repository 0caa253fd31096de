"""--source limits search, ask and chats to the chats of some services; `refind chats` sorts and counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from samples import EXPORTS
from typer.testing import CliRunner

import refind_cli.frontends.cli.ask
import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.search  # noqa: F401  (registers the commands on the app)
from refind_cli.frontends.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("sources") / "home"
    r = runner.invoke(app, ["--home", str(home), "import", "--tz", "Europe/Berlin", *map(str, EXPORTS)])
    assert r.exit_code == 0, r.stderr
    return home


def run(home: Path, *args: str):
    return runner.invoke(app, ["--home", str(home), *args])


def test_search_and_ask_keep_to_the_sources_named(home: Path):
    everywhere = json.loads(run(home, "search", "dentist", "-k", "20", "--json").stdout)
    assert {h["chat"]["source"] for h in everywhere["results"]} >= {"whatsapp", "slack", "telegram"}
    for sources in (["slack"], ["telegram", "whatsapp"]):
        args = [a for s in sources for a in ("--source", s)]
        out = json.loads(run(home, "search", "dentist", "-k", "20", "--json", *args).stdout)
        assert out["results"] and {h["chat"]["source"] for h in out["results"]} <= set(sources)
        assert out["filters"]["source"] == sources
        asked = json.loads(run(home, "ask", "--offline", "dentist", "--json", *args).stdout)
        assert asked["citations"] and {c["chat"] for c in asked["citations"]} <= {
            c["name"] for c in json.loads(run(home, "chats", "--json", *args).stdout)["chats"]
        }


def test_source_and_chat_combine(home: Path):
    out = json.loads(run(home, "search", "dentist", "--chat", "Family", "--source", "slack", "--json").stdout)
    assert out["results"] == [] and out["filters"]["chat_ids"] == []


def test_an_unknown_source_is_one_line(home: Path):
    r = run(home, "search", "dentist", "--source", "myspace")
    assert r.exit_code == 2 and r.stderr.startswith(
        "refind: error: --source: 'myspace' is not one of whatsapp"
    )


def test_chats_filter_sort_and_count(home: Path):
    everything = json.loads(run(home, "chats", "--json").stdout)
    assert everything["count"] == len(everything["chats"]) == 7
    recent = json.loads(run(home, "chats", "--json", "--sort", "recent").stdout)["chats"]
    lasts = [c["last"] for c in recent]
    assert lasts == sorted(lasts, reverse=True)
    slack = json.loads(run(home, "chats", "--json", "--source", "slack").stdout)
    assert slack["count"] == 4 and {c["source"] for c in slack["chats"]} == {"slack"}
    piped = run(home, "chats", "--source", "slack")  # into a pipe the table is TSV: a header and a row each
    assert len(piped.stdout.splitlines()) == 1 + 4
