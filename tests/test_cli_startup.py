"""Start-up: `refind COMMAND` imports only the module that registers COMMAND (typer builds every registered
command on every start); --help and anything unknown still see them all; `refind --version` builds no app;
search, chats and stats into a pipe take the quick path (no typer, click or rich), and leave to typer what
it alone reads right."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st

import refind_cli.frontends.cli.ask
import refind_cli.frontends.cli.completion
import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.maintain
import refind_cli.frontends.cli.mcp
import refind_cli.frontends.cli.search
import refind_cli.frontends.cli.stats  # noqa: F401  (the imports register the commands)
from refind_cli import __version__
from refind_cli.frontends.cli import COMMAND_MODULES, app, quick
from refind_cli.frontends.cli.params import CHATS_LIST, SEARCH, STATS
from refind_cli.frontends.cli.quick import command_at


def test_the_table_names_the_module_of_every_command():
    registered = {
        c.name or c.callback.__name__.replace("_", "-"): c.callback.__module__.rpartition(".")[2]
        for c in app.registered_commands
    }
    for group in app.registered_groups:  # commands with commands of their own (`refind chats rename`)
        sub = group.typer_instance
        assert sub is not None and sub.registered_callback is not None and sub.registered_callback.callback
        registered[sub.info.name] = sub.registered_callback.callback.__module__.rpartition(".")[2]
    assert registered == COMMAND_MODULES


@pytest.mark.parametrize(
    ("args", "at"),
    [
        (["search", "dentist"], 0),
        (["--home", "/tmp/h", "search", "x"], 2),
        (["--home=/tmp/h", "import", "a.txt"], 1),
        (["--home", "search", "show", "x"], 2),  # a home folder named "search"
        (["--color", "never", "search", "x"], 2),
        (["--version"], None),
        (["--help"], None),
        ([], None),
    ],
)
def test_command_at(args: list[str], at: int | None):
    assert command_at(args) == at


def loaded_after(*args: str) -> tuple[str, list[str]]:
    code = (
        "import sys\n"
        "from refind_cli.frontends.cli import main\n"
        f"sys.argv = ['refind', *{list(args)!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('SDK' if 'mcp' in sys.modules else 'NO-SDK')\n"
        "from refind_cli.frontends.cli import COMMAND_MODULES\n"
        "print('MODULES', *sorted(m for m in sys.modules if m.startswith('refind_cli.frontends.cli.')"
        " and m.rpartition('.')[2] in COMMAND_MODULES.values()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    text, _, modules = out.rpartition("MODULES")
    return text, modules.split()


def test_a_named_command_loads_only_its_module(tmp_path):
    _, modules = loaded_after("--home", str(tmp_path / "home"), "import", str(tmp_path / "none.txt"))
    assert modules == ["refind_cli.frontends.cli.imports"]


@pytest.mark.parametrize("args", [("--help",), ("serch", "x")])
def test_help_and_unknown_commands_see_every_command(args: tuple[str, ...]):
    text, modules = loaded_after(*args)
    assert modules == [
        f"refind_cli.frontends.cli.{m}"
        for m in ("ask", "completion", "imports", "maintain", "mcp", "search", "stats")
    ]
    assert "NO-SDK" in text
    if args == ("--help",):
        assert all(command in text for command in COMMAND_MODULES)


def test_version_builds_no_app():
    code = (
        "import sys\n"
        "from refind_cli.frontends.cli import main\n"
        "sys.argv = ['refind', '--version']\n"
        "main()\n"
        "print('LOADED', *sorted(m for m in ('typer', 'click', 'rich', 'typing') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert out.splitlines() == [f"refind {__version__}", "LOADED"]


def imported_by(*args: str) -> tuple[str, set[str]]:
    """stdout of ``refind ARGS`` run as installed, into a pipe, and every module it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "refind_cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.findall(r"^import time:\s+\d+ \|\s+\d+ \| +(\S+)$", done.stderr, re.MULTILINE)
    assert found, done.stderr
    return done.stdout, set(found)


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("search", "dentist"), "Good luck at the dentist today!"),
        (("search", "dentist", "--json"), "Good luck at the dentist today!"),
        (("search", "dentist", "--jsonl"), "Good luck at the dentist today!"),
        (("search", "dentist", "--timeline", "--tz", "UTC"), "Good luck at the dentist today!"),
        (("chats",), "id\tchat\tsource\tmessages"),
        (("chats", "--json"), '"name": "Family"'),
        (("stats", "--tz", "UTC"), "Who writes most"),
    ],
)
def test_piped_reads_import_no_typer_click_or_rich(sample_home: Path, args: tuple[str, ...], shown: str):
    out, modules = imported_by("--home", str(sample_home), *args)
    assert shown in out
    assert not {m.partition(".")[0] for m in modules} & {"typer", "click", "rich", "mcp"}
    # nor a command module of the typer app
    assert not {m for m in modules if m.startswith("refind_cli.frontends.cli.")} & {
        f"refind_cli.frontends.cli.{m}" for m in COMMAND_MODULES.values()
    }


@pytest.mark.parametrize(
    "args",
    [
        ("search", "dentist"),
        ("search", "dentist", "--json"),
        ("search", "dentist", "--jsonl", "--sort", "time"),
        ("search", "dentist", "--timeline", "--tz", "UTC"),
        ("chats",),
        ("chats", "--json"),
    ],
)
def test_a_piped_search_builds_no_dataclass_and_parses_without_argparse(
    sample_home: Path, args: tuple[str, ...]
):
    # A frozen dataclass compiles its methods from source when its module loads, and ``dataclasses`` loads
    # inspect, ast and dis; argparse loads gettext and looks up a translation of each help string: together
    # ~40 ms of a cold search's CPU at load (bench/RESULTS.md, issue 26 item 3, session 11).
    out, modules = imported_by("--home", str(sample_home), *args)
    assert ("dentist" if args[0] == "search" else "family") in out.casefold()
    assert not modules & {"dataclasses", "inspect", "ast", "dis", "argparse", "gettext"}
    assert "refind_cli.index.analysed" not in modules  # the index's build, in a process of its own


def test_a_search_whose_hits_hold_emoji_highlights_them_without_regex(sample_home: Path):
    # Importing regex and compiling its Unicode-property patterns was ~70 % of a search's own work whenever a
    # hit held a character from the combining marks on (bench/RESULTS.md, issue 26 item 3, session 12).
    out, modules = imported_by("--home", str(sample_home), "search", "housewarming sofa", "--json")
    assert "\\ud83d\\ude02" in out or "\U0001f602" in out
    assert "regex" not in modules


@pytest.mark.parametrize(
    "args",
    [
        ("search", "x", "--help"),
        ("search", "-h"),
        ("search", "x", "-k", "0"),  # out of bounds: click's error
        ("search", "x", "-k=5"),  # click reads "=5"
        ("search", "x", "--tim"),  # an abbreviation
        ("search", "x", "y"),
        ("search", "--", "-x"),
        ("search",),
        ("--home", "", "search", "x"),
        ("--color", "sometimes", "search", "x"),
        ("search", "x", "--json=1"),
        ("show", "x"),
        ("chats", "rename", "1", "Mum"),
        ("chats", "--sort", "name", "merge", "1", "2"),
        ("--version",),
    ],
)
def test_what_the_quick_path_leaves_to_typer(args: tuple[str, ...]):
    assert quick.serve(list(args)) is None


def test_a_search_on_a_terminal_is_drawn_by_rich(sample_home: Path):
    # FORCE_COLOR: rich's own rule for a terminal, which the quick path follows too.
    done = subprocess.run(
        [sys.executable, "-m", "refind_cli", "--home", str(sample_home), "search", "dentist"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FORCE_COLOR": "1"},
    )
    assert "\x1b[" in done.stdout and "dentist" in done.stdout


@pytest.mark.parametrize(
    ("args", "code", "torn_down"),
    [
        (("search", "dentist"), 0, False),
        (("search", "zzzqqq"), 1, False),
        (("search", "dentist", "--since", "yesterday-ish"), 2, False),
        (("chats",), 0, False),
        (("search", "dentist", "--help"), 0, True),  # typer's
    ],
)
def test_the_installed_command_ends_a_quick_read_without_teardown(
    sample_home: Path, args: tuple[str, ...], code: int, torn_down: bool
):
    # What `refind` and `python -m refind_cli` run (``run``). Teardown is the interpreter's last step: the handler
    # below runs only when the process ends through it; the output is whole either way.
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('TORN DOWN'))\n"
        f"sys.argv = ['refind', '--home', {str(sample_home)!r}, *{list(args)!r}]\n"
        "from refind_cli.frontends.cli import run\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (done.returncode, "TORN DOWN" in done.stderr) == (code, torn_down), done.stderr
    if code == 0:
        assert done.stdout.endswith("\n") and len(done.stdout) > 100
    if code == 2:
        assert done.stderr.startswith("refind: error: --since") and done.stdout == ""


# Words a command line of the quick path's commands is made of: every option they declare, values good and
# bad, and the spellings click reads otherwise than a plain reading would.
_WORDS = sorted(
    {d for p in (*SEARCH, *CHATS_LIST, *STATS) for decl in p.decls for d in decl.split("/")}
    | {"x", "dinner", "-", "--", "", "5", "0", "-1", "1001", "score", "time", "name", "recent", "-x", "a=b"}
    | {"--json=1", "-k=5", "-k5", "--tim", "--k", "--window=3", "--sort=time", "--chat=Mum", "--since=-3d"}
)


@settings(max_examples=400, deadline=None)
@given(
    command=st.sampled_from(["search", "chats", "stats"]),
    args=st.lists(st.sampled_from(_WORDS), max_size=7),
)
def test_the_quick_path_reads_a_command_line_as_click_does_or_leaves_it(command: str, args: list[str]):
    params = dict(quick.COMMANDS)[command][0]
    values = quick._parsed(params, args)
    if values is None or not quick._in_bounds(params, values):
        return  # typer reads it
    group = typer.main.get_command(app)
    root = group.make_context("refind", [command], resilient_parsing=True)
    command_ = group.get_command(root, command)
    assert command_ is not None
    # click refuses what the quick path would have read (its error), or reads the same values.
    parsed = command_.make_context(command, list(args), parent=root).params
    assert {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()} == {
        k: None if v == () else v for k, v in parsed.items()
    }
