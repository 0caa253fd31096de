"""The facade as a front end sees it: every operation a typed request resolved from what a user typed, with
the project's error for what is wrong; one rule for naming a chat; and the engine chosen in one place, so the
whole facade runs on the in-memory index too."""

from __future__ import annotations

import dataclasses
import inspect
import shutil
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fake_index import MemoryIndex
from samples import EXPORTS

from refind_cli import agent, facade
from refind_cli.agent.llm import ModelConfig
from refind_cli.errors import RefindError
from refind_cli.facade import Home, eval_request
from refind_cli.index import OnWait, TurnIndex
from refind_cli.method import search

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 1, 12, tzinfo=BERLIN)


def test_no_loose_keywords_between_a_front_end_and_the_library() -> None:
    # A misspelt keyword (budgett=3, kk=3) must fail, under mypy (tests/typed_calls.py) and when run.
    seams = [
        Home.request,
        Home.ask_request,
        Home.ask,
        Home.stats_request,
        Home.stats,
        Home.selection,
        Home.import_options,
        Home.search,
        agent.ask,
        agent.run,
        search.search,
        facade.eval_request,
        facade.evaluate,
    ]
    for function in seams:
        kinds = {p.kind for p in inspect.signature(function).parameters.values()}
        assert inspect.Parameter.VAR_KEYWORD not in kinds, function.__qualname__


class MemoryEngine:
    """The in-memory engine, one index per home, opened the way ``index.open_index`` opens tantivy's."""

    def __init__(self) -> None:
        self.indexes: dict[Path, MemoryIndex] = {}

    def __call__(self, home: Path, *, on_wait: OnWait | None = None) -> TurnIndex:
        return self.indexes.setdefault(home, MemoryIndex())


def test_the_facade_runs_on_the_in_memory_index(tmp_path: Path) -> None:
    engine = MemoryEngine()
    with Home.open(tmp_path / "home", engine=engine) as home:
        imported = list(home.import_files(EXPORTS, Home.import_options(tz=BERLIN)))
        assert all(r.error is None for r in imported)
        (index,) = engine.indexes.values()
        assert home.index() is index and index.num_docs > 0
        request = home.request("Wellenwerk", now=NOW, tz=BERLIN)
        assert home.search(request).hits
        selection = home.selection(matching="wellenwerk", now=NOW, tz=BERLIN)
        assert home.forget(selection, confirm=lambda plan: True).forgotten
        assert not home.search(request).hits and index.doc_freq("wellenwerk") == 0
        assert home.doctor().ok


@pytest.fixture(scope="module")
def named(sample_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample home with a chat named as a number might be: "Room 77"."""
    home = tmp_path_factory.mktemp("named") / "home"
    shutil.copytree(sample_home, home)
    with Home.open(home) as h:
        h.rename_chat("1", "Room 77")
    return home


def test_one_rule_names_a_chat_for_every_operation(named: Path) -> None:
    with Home.open(named) as home:
        # A name, or part of one: each operation finds the same chat.
        assert home.chat_ids(["room"]) == (1,)
        assert home.selection(chat="room", now=NOW, tz=BERLIN).chat == 1
        assert home.rename_chat("room", "Room 77").seq == 1
        # A number is an id, a key or a whole name: never part of a name, in any operation.
        for op in (
            lambda: home.chat_ids(["77"]),
            lambda: home.selection(chat="77", now=NOW, tz=BERLIN),
            lambda: home.rename_chat("77", "x"),
        ):
            with pytest.raises(RefindError, match="no chat matches '77'"):
                op()
        assert home.chat_ids(["2"]) == (2,)
        # Where one chat is meant, a name that matches several is refused with their ids.
        several = home.chat_ids(["a"]) or ()
        assert len(several) > 1
        with pytest.raises(
            RefindError, match=r"--chat: 'a' matches several chats: .*\(id \d+\).*give the id"
        ):
            home.selection(chat="a", now=NOW, tz=BERLIN)


def test_ask_requests_resolve_the_model_and_the_time(sample_home: Path) -> None:
    env = {"REFIND_MODEL": "openai/m", "REFIND_API_BASE": "http://127.0.0.1:1/v1", "REFIND_API_KEY": "k"}
    with Home.open(sample_home) as home:
        request = home.ask_request(
            " when? ", answer_model="openai/big", now="2026-03-01T10:00", tz=BERLIN, env=env, max_rounds=2
        )
        assert request.question == "when?" and request.now == datetime(2026, 3, 1, 10, tzinfo=BERLIN)
        assert request.config == ModelConfig("openai/m", "http://127.0.0.1:1/v1", "k")
        assert request.answer_config == dataclasses.replace(request.config, model="openai/big")
        assert request.budget is not None and request.budget.max_rounds == 2
        assert home.ask_request("when?", offline=True, tz=BERLIN, env=env).config is None
        bad: list[tuple[dict[str, Any], str]] = [
            ({"now": "someday"}, "--now: "),
            ({"protocol": "smoke"}, "--protocol: 'smoke' is not one of auto, tools, text"),
            ({"answer_model": "x"}, r"--answer-model needs --model \(or REFIND_MODEL\)"),
            ({"max_rounds": 0}, "--max-rounds: 0 is not at least 1"),
            ({"chats": ["no such chat"]}, "--chat: no chat matches 'no such chat'"),
        ]
        for options, message in bad:
            with pytest.raises(RefindError, match=message):
                home.ask_request("when?", tz=BERLIN, env={}, **options)
        with pytest.raises(RefindError, match="the question is empty"):
            home.ask_request("  ", tz=BERLIN, env={})


def test_eval_requests_keep_the_timeout_for_the_judge(tmp_path: Path) -> None:
    file = tmp_path / "q.json"
    slow = eval_request(file, model="openai/m", judge_model="openai/judge", env={"REFIND_MODEL": "ignored"})
    assert slow.config is not None and slow.judge_config is not None
    assert slow.judge_config == dataclasses.replace(slow.config, model="openai/judge")
    # REFIND_MODEL alone keeps eval offline: only an explicit --model spends money.
    assert eval_request(file, env={"REFIND_MODEL": "openai/m"}).config is None
    with pytest.raises(RefindError, match="--judge-model needs --model"):
        eval_request(file, judge_model="openai/judge")
    with pytest.raises(RefindError, match="-k: 0 is not at least 1"):
        eval_request(file, k=0)


def test_import_options_and_stats_requests_are_checked_by_the_library(sample_home: Path) -> None:
    options = Home.import_options(fmt="whatsapp", session_gap="90m", lang="DE")
    assert (options.fmt, options.session_gap, options.lang) == ("whatsapp", timedelta(minutes=90), "de")
    for bad, message in (
        ({"fmt": "icq"}, "--format: 'icq' is not one of auto, "),
        ({"lang": "xx"}, "--lang: 'xx' is not an ISO 639-1 language code"),
        ({"session_gap": "soon"}, "--session-gap: cannot read 'soon'"),
    ):
        with pytest.raises(RefindError, match=message):
            Home.import_options(**bad)
    with Home.open(sample_home) as home:
        request = home.stats_request(since="2026-03", until="2026-03", now=NOW, tz=BERLIN)
        assert request.since == datetime(2026, 3, 1, tzinfo=BERLIN)
        assert home.stats(request).messages > 0
        with pytest.raises(RefindError, match="--since '2026-04' is after --until '2026-03'"):
            home.stats_request(since="2026-04", until="2026-03", now=NOW, tz=BERLIN)
