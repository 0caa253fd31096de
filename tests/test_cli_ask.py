"""`refind ask` through the command line: pipe and JSON output, exit codes, errors, the terminal renderer,
and a model run over HTTP against the scripted server (in-process, so litellm is imported once)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_runs import run, runner
from rich.console import Console
from scripted_llm import ScriptedLLM, text, tool, tools
from test_agent_unit import BERLIN, T0

import refind_cli.frontends.cli.ask
import refind_cli.frontends.cli.imports  # noqa: F401
from refind_cli.agent.events import RemoteNotice, SearchDone
from refind_cli.frontends.cli import app
from refind_cli.frontends.render.ask import AskTrace, print_answer

QUESTION = "when did I move the dentist appointment?"
SECRET = "sk-test-secret-77aa"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for var in ("REFIND_MODEL", "REFIND_API_BASE", "REFIND_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    yield


def ask(home: Path, *args: str, env: dict[str, str] | None = None):
    base = ["--home", str(home), "ask", QUESTION, "--now", "2026-05-01T12:00", "--tz", "Europe/Berlin"]
    return runner.invoke(app, [*base, *args], env=env)


def test_piped_output_is_the_answer_only(sample_home: Path, clean_env: None) -> None:
    result = ask(sample_home)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("8 April 2026 — ") and "\nExtractive answer (offline" in result.stdout
    assert "28 April" in result.stdout and "round 1" not in result.stdout
    assert "round 1: search_chat 'move dentist appointment'" in result.stderr
    assert "noted" in result.stderr and "offline extractive answer" in result.stderr
    quiet = ask(sample_home, "-q")
    assert quiet.stdout == result.stdout and quiet.stderr == ""


def test_json_output_has_the_documented_shape(sample_home: Path, clean_env: None) -> None:
    result = ask(sample_home, "--json", "--max-rounds", "2")
    assert result.exit_code == 0 and "round 1" not in result.stderr
    data = json.loads(result.stdout)
    assert {"question", "answer", "citations", "rounds", "notes", "model", "usage"} <= set(data)
    assert data["model"] is None and data["mode"] == "offline-extractive"
    assert data["usage"] == {"llm_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None}
    assert data["rounds"][0]["tool"] == "search_chat"
    assert sum(r["tool"] == "search_chat" for r in data["rounds"]) <= 2
    cit = data["citations"][0]
    assert set(cit) == {"session_id", "turn_id", "chat", "timestamp", "speaker", "text"}
    assert datetime.fromisoformat(cit["timestamp"]).utcoffset() is not None
    note_turns = {t for n in data["notes"] for t in n["turn_ids"]}
    assert all(c["turn_id"] in note_turns for c in data["citations"])
    assert all(set(n) >= {"session_id", "turn_ids", "text"} for n in data["notes"])


def test_nothing_found_exits_1(sample_home: Path, clean_env: None) -> None:
    result = run(sample_home, "ask", "xylophone quartz zeppelin", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["citations"] == []


def test_errors_exit_2_with_json(sample_home: Path, clean_env: None) -> None:
    bad_now = ask(sample_home, "--now", "someday", "--json")
    assert bad_now.exit_code == 2 and "--now" in json.loads(bad_now.stdout)["error"]
    assert bad_now.stderr.startswith("refind: error: --now")
    bad_protocol = ask(sample_home, "--protocol", "smoke")
    assert bad_protocol.exit_code == 2 and "--protocol" in bad_protocol.stderr
    no_chat = ask(sample_home, "--chat", "nonexistent-chat-name", "--json")
    assert no_chat.exit_code == 2 and "--chat" in json.loads(no_chat.stdout)["error"]


def test_missing_key_is_one_line_and_leaks_nothing(sample_home: Path, clean_env: None, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = ask(sample_home, "--model", "gpt-4o-mini", "--json")
    assert result.exit_code == 2
    assert "no API key for gpt-4o-mini" in json.loads(result.stdout)["error"]
    assert result.stderr.count("\n") == 1


def test_model_run_over_http(sample_home: Path, clean_env: None) -> None:
    script = [
        tool("search_chat", {"keywords": "dentist appointment moved"}),
        tools(("take_note", {"indices": [1, 2]}), ("finish_search", {})),
        text("You moved it to 28 April [1]."),
    ]
    with ScriptedLLM(script) as server:
        env = {
            "REFIND_MODEL": "openai/scripted",
            "REFIND_API_BASE": server.api_base,
            "REFIND_API_KEY": SECRET,
        }
        piped = ask(sample_home, env=env)
        assert server.requests[0]["model"] == "scripted"
    assert piped.exit_code == 0, piped.stderr
    assert piped.stdout == "You moved it to 28 April [1].\n"
    assert "round 1: search_chat 'dentist appointment moved'" in piped.stderr
    assert "openai/scripted · 3 calls · 360 tokens" in piped.stderr
    assert "sending chat text" not in piped.stderr  # a loopback server is not remote
    assert SECRET not in piped.stdout + piped.stderr
    with ScriptedLLM(list(script)) as server:
        env = {"REFIND_API_KEY": SECRET}
        as_json = ask(
            sample_home, "--model", "openai/scripted", "--api-base", server.api_base, "--json", env=env
        )
    data = json.loads(as_json.stdout)
    assert data["model"] == "openai/scripted" and data["usage"]["llm_calls"] == 3
    assert data["citations"][0]["turn_id"] in data["notes"][0]["turn_ids"] + data["notes"][1]["turn_ids"]
    assert SECRET not in as_json.stdout


def test_terminal_rendering_and_remote_notice() -> None:
    from refind_cli.agent.events import AskResult, Citation, HitSummary, Usage

    err = io.StringIO()
    trace = AskTrace(Console(file=err, width=200, highlight=False), tz=BERLIN, rounds=False)
    trace(RemoteNotice("gpt-4o-mini", "openai"))
    trace(SearchDone(1, "dentist", None, None, 5, (), 0, 0))  # hidden by -q
    assert err.getvalue() == "refind: sending chat text to openai (model gpt-4o-mini)\n"
    loud = io.StringIO()
    AskTrace(Console(file=loud, width=200), tz=BERLIN)(
        SearchDone(
            2,
            "dentist [bold]",
            "2026-04-01",
            "2026-04-30",
            5,
            (HitSummary(1, "s-1", "s", "Jonas", T0, "Maya"),),
            7,
            3,
        )
    )
    assert (
        "round 2: search_chat 'dentist [bold]' 2026-04-01 to 2026-04-30 → 1 hits (7 matching)"
        in loud.getvalue()
    )
    assert "3 seen sessions excluded" in loud.getvalue()
    result = AskResult(
        "q?",
        "On Thursday [1].",
        (Citation("s", "s-1", "Jonas", T0, "Maya", "moved to [red]Thursday[/red]"),),
        (),
        (),
        "m",
        Usage(2, 1000, 50, 0.0012),
        "model",
        "finish_search",
        T0,
    )
    out = io.StringIO()
    print_answer(result, Console(file=out, width=200), tz=UTC)
    lines = out.getvalue().splitlines()
    assert lines[0] == "On Thursday [1]."
    assert lines[2] == "[1] Jonas · 2026-01-05 09:00 · Maya: moved to [red]Thursday[/red]  s-1"
    assert lines[-1] == "m · 2 calls · 1,050 tokens (1,000 in, 50 out) · $0.0012"


def test_chat_limits_every_search_to_those_chats(sample_home: Path, clean_env: None) -> None:
    everywhere = json.loads(ask(sample_home, "--json").stdout)
    assert len({n["chat"] for n in everywhere["notes"]}) > 1
    family = ask(sample_home, "--chat", "Family", "--json")
    data = json.loads(family.stdout)
    assert family.exit_code == 0 and data["notes"]
    assert {n["chat"] for n in data["notes"]} == {c["chat"] for c in data["citations"]} == {"Family"}
    elsewhere = ask(sample_home, "--chat", "#random", "--json")
    assert elsewhere.exit_code == 1 and json.loads(elsewhere.stdout)["notes"] == []


def test_from_limits_every_search_to_those_speakers(sample_home: Path, clean_env: None) -> None:
    everyone = json.loads(ask(sample_home, "--json").stdout)
    assert len({c["speaker"] for c in everyone["citations"]}) > 1
    data = json.loads(ask(sample_home, "--from", "jonas b", "--json").stdout)
    assert data["citations"] and {c["speaker"] for c in data["citations"]} == {"Jonas Becker"}
    nobody = ask(sample_home, "--from", "nobody at all", "--json")
    assert nobody.exit_code == 2 and "no speaker is called that" in json.loads(nobody.stdout)["error"]


def test_answer_model_answers(sample_home: Path, clean_env: None) -> None:
    script = [
        tool("search_chat", {"keywords": "dentist appointment moved"}),
        tools(("take_note", {"indices": [1]}), ("finish_search", {})),
        text("You moved it to 28 April [1]."),
    ]
    with ScriptedLLM(script) as server:
        result = ask(
            sample_home,
            *("--model", "openai/searcher", "--answer-model", "openai/answerer"),
            *("--api-base", server.api_base, "--json"),
            env={"REFIND_API_KEY": SECRET},
        )
    assert result.exit_code == 0, result.stderr
    assert [body["model"] for body in server.requests] == ["searcher", "searcher", "answerer"]
    data = json.loads(result.stdout)
    assert data["model"] == "openai/answerer" and data["usage"]["llm_calls"] == 3


def test_max_cost_stops_the_search(sample_home: Path, clean_env: None) -> None:
    # gpt-4o-mini is in litellm's bundled price map: 100 tokens in and 20 out cost $0.000027 a call, so a
    # budget of $0.00004 is spent by the second search call, and stage 2 still answers from the notes.
    script = [
        tool("search_chat", {"keywords": "dentist appointment moved"}),
        tool("take_note", {"indices": [1]}),
        text("You moved it to 28 April [1]."),
    ]
    with ScriptedLLM(script) as server:
        result = ask(
            sample_home,
            *("--model", "openai/gpt-4o-mini", "--api-base", server.api_base),
            *("--max-cost", "0.00004", "--json"),
            env={"REFIND_API_KEY": SECRET},
        )
        assert server.remaining == 0
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["stop_reason"] == "max_cost" and data["citations"]
    assert data["usage"]["cost_usd"] == pytest.approx(3 * 0.000027)


def test_budget_bounds_the_notes_of_the_offline_planner(sample_home: Path, clean_env: None) -> None:
    notes = {}
    for budget in ("60", "4000"):
        result = ask(sample_home, "--json", "--offline", "--budget", budget)
        assert result.exit_code == 0, result.stderr
        notes[budget] = json.loads(result.stdout)["notes"]
    assert 0 < len(notes["60"]) < len(notes["4000"])
