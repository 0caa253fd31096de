"""`refind COMMAND` imports only the module that registers COMMAND (typer builds every registered command on
every start); --help and anything unknown still see them all."""

from __future__ import annotations

import subprocess
import sys

import pytest

import refind_cli.frontends.cli.ask
import refind_cli.frontends.cli.completion
import refind_cli.frontends.cli.imports
import refind_cli.frontends.cli.maintain
import refind_cli.frontends.cli.mcp
import refind_cli.frontends.cli.search
import refind_cli.frontends.cli.stats  # noqa: F401  (the imports register the commands)
from refind_cli import __version__
from refind_cli.frontends.cli import COMMAND_MODULES, app
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
    _, modules = loaded_after("--home", str(tmp_path / "home"), "chats", "--json")
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


def test_search_does_not_import_the_mcp_sdk(tmp_path):
    text, modules = loaded_after("--home", str(tmp_path / "home"), "search", "dentist", "--json")
    assert modules == ["refind_cli.frontends.cli.search"]
    assert "NO-SDK" in text


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


def test_search_json_does_not_import_rich(tmp_path):
    code = (
        "import sys\n"
        "from refind_cli.frontends.cli import main\n"
        f"sys.argv = ['refind', '--home', {str(tmp_path / 'home')!r}, 'search', 'dentist', '--json']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print('RICH' if 'rich' in sys.modules else 'NO-RICH')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert out.splitlines()[-1] == "NO-RICH"
