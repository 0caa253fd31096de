"""A cold read's CPU (issue 26 item 3, session 15): the quick path runs with the cyclic collector paused (its
start-up makes objects that live until it ends; a search of stdin's queries, which may run long, runs with it
as it was), and the records a search builds make their named tuple classes from evaluated annotations, not
strings that typing compiles one by one."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

import pytest

import refind_cli.frontends.cli.params
import refind_cli.records
import refind_cli.request
import refind_cli.results
import refind_cli.text.query
import refind_cli.text.snippet


def collections_during(home: Path, args: list[str], *, stdin: str = "", collecting: bool = True) -> list[str]:
    """What a process running ``refind --home HOME ARGS`` through ``main`` says: the number of collections the
    collector ran until the quick path ended the command (else until ``main`` was done; its threshold at 1:
    any allocation with it on starts one), whether it is on once ``main`` is done, and the exit status."""
    code = (
        "import gc, sys\n"
        f"{'' if collecting else 'gc.disable()'}\n"
        "gc.set_threshold(1)\n"
        "runs = []\n"
        "gc.callbacks.append(lambda phase, info: runs.append(phase) if phase == 'start' else None)\n"
        f"sys.argv = ['refind', '--home', {str(home)!r}, *{args!r}]\n"
        "from refind_cli.frontends.cli import main\n"
        "count = None\n"
        "runs.clear()\n"
        "def end(code):\n    global count\n    count = len(runs)\n    sys.exit(code)\n"
        "try:\n    main(end)\nexcept SystemExit as exc:\n    status = exc.code\n"
        "print('RAN', len(runs) if count is None else count, gc.isenabled(), status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=120
    )
    assert "RAN" in done.stdout, done.stderr
    return done.stdout.rpartition("RAN")[2].split()


@pytest.mark.parametrize(
    "args",
    [["search", "dentist"], ["search", "dentist", "--json"], ["chats"], ["stats", "--tz", "UTC"]],
)
def test_a_quick_read_runs_without_the_collector_and_turns_it_back_on(sample_home: Path, args: list[str]):
    assert collections_during(sample_home, args) == ["0", "True", "0"]


def test_a_caller_that_paused_the_collector_finds_it_paused(sample_home: Path):
    assert collections_during(sample_home, ["search", "dentist"], collecting=False) == ["0", "False", "0"]


def test_a_search_of_stdins_queries_runs_with_the_collector(sample_home: Path):
    count, on, status = collections_during(sample_home, ["search", "-"], stdin="dentist\nsofa\n")
    assert int(count) > 0 and on == "True" and status == "0"


def test_the_typer_app_runs_with_the_collector(sample_home: Path):
    # `show` is not on the quick path: typer builds its command and runs it, the collector on.
    count, on, status = collections_during(sample_home, ["show", "no-such-turn"])
    assert int(count) > 0 and on == "True" and status == "2"


@pytest.mark.parametrize(
    "module",
    [
        refind_cli.records,
        refind_cli.results,
        refind_cli.request,
        refind_cli.text.query,
        refind_cli.text.snippet,
        refind_cli.frontends.cli.params,
    ],
)
def test_the_records_a_search_builds_have_no_field_typing_compiles(module: object):
    tuples = [
        c
        for c in vars(module).values()
        if isinstance(c, type) and issubclass(c, tuple) and hasattr(c, "_fields")
    ]
    assert tuples
    compiled = {
        (c.__name__, field)
        for c in tuples
        for field, kind in c.__annotations__.items()
        if isinstance(kind, typing.ForwardRef)
    }
    # The one type a search's result names that only type checking imports (the timeline, a search's option).
    assert compiled <= {("SearchResult", "timeline")}
