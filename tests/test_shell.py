"""Shell conventions: -h, examples in every command's help, completion scripts, --color, output into a pipe
(not wrapped, tables as TSV, "no matching turns" on stderr)."""

from __future__ import annotations

import csv
import io
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_runs import refind, run, runner
from samples import JONAS

import refind_cli.frontends.cli.mcp  # noqa: F401  (registers `refind mcp`, which cli_runs leaves out)
from refind_cli.frontends.cli import COMMAND_MODULES, app
from refind_cli.ingest import import_chat
from refind_cli.records import Chat, Message
from refind_cli.storage.archive import Archive

T0 = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
LONG = "dentist " + "word " * 60 + "end"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("shell") / "home"
    with Archive.open(home) as archive:
        import_chat(
            archive,
            Chat("test", "c1", "Tab\there"),
            [
                Message(T0, "Ann", LONG),
                Message(T0 + timedelta(minutes=1), "Bo", "dentist first\nsecond line"),
            ],
        )
        import_chat(archive, Chat("test", "c2", "Other"), [Message(T0, "Cy", "nothing")])
    return home


def test_dash_h_is_help_everywhere_with_examples() -> None:
    assert runner.invoke(app, ["-h"]).stdout == runner.invoke(app, ["--help"]).stdout
    assert "    refind search 'dentist appointment'\n" in runner.invoke(app, ["-h"]).stdout
    for command in COMMAND_MODULES:
        short = runner.invoke(app, [command, "-h"])
        assert short.exit_code == 0, command
        assert short.stdout == runner.invoke(app, [command, "--help"]).stdout
        assert "Examples:\n    refind " + command in short.stdout, command


def test_completion_scripts_and_answers() -> None:
    for shell in ("bash", "zsh", "fish"):
        script = runner.invoke(app, ["completion", shell])
        assert script.exit_code == 0 and "_REFIND_COMPLETE" in script.stdout
    assert runner.invoke(app, ["completion", "tcsh"]).exit_code == 2
    env = {**os.environ, "_REFIND_COMPLETE": "bash_complete", "COMP_WORDS": "refind st", "COMP_CWORD": "1"}
    assert refind(env=env).stdout.split() == ["plain,stats"]
    env |= {"COMP_WORDS": "refind --color ", "COMP_CWORD": "2"}
    assert refind(env=env).stdout.split() == ["plain,auto", "plain,always", "plain,never"]


def test_color_when(home: Path) -> None:
    def out(*args: str, env: dict[str, str] | None = None) -> str:
        return runner.invoke(app, ["--home", str(home), *args, "search", "dentist"], env=env).stdout

    assert "\x1b[" not in out()  # auto: a pipe gets none
    assert "\x1b[" in out("--color", "always")
    assert "\x1b[" in out("--color", "always", env={"NO_COLOR": "1"})  # asked for in so many words
    assert "\x1b[" not in out("--color", "never")
    assert run(home, "--color", "sometimes", "chats").exit_code == 2


def test_piped_text_is_one_line_per_line(home: Path) -> None:
    lines = refind("--home", str(home), "search", "dentist", env={**os.environ, "COLUMNS": "60"}).stdout
    lines_ = lines.splitlines()
    assert any(line.endswith(": " + LONG) for line in lines_)  # not wrapped at 60 (or 80) columns
    first = next(i for i, line in enumerate(lines_) if line.endswith("dentist first"))
    assert lines_[first + 1].strip() == "second line" and lines_[first + 1].startswith("   ")


def test_tables_into_a_pipe_are_tsv(home: Path) -> None:
    tsv = run(home, "chats").stdout
    rows = list(csv.reader(io.StringIO(tsv), dialect="excel-tab"))
    assert rows[0] == ["id", "chat", "source", "messages", "sessions", "first", "last", "lang", "language"]
    assert rows[1][:4] == ["1", "Tab\there", "test", "2"]
    assert run(home, "chats", "--csv").stdout.splitlines()[1].startswith("1,Tab\there,test,2,")


def test_no_hits_is_said_on_stderr(home: Path) -> None:
    done = run(home, "search", "zebra")
    assert done.exit_code == 1 and done.stdout == "" and "no matching turns" in done.stderr


def test_import_into_a_pipe_is_tsv(tmp_path: Path) -> None:
    done = run(tmp_path / "home", "import", "--tz", "UTC", str(JONAS))
    rows = list(csv.reader(io.StringIO(done.stdout), dialect="excel-tab"))
    assert rows[0] == ["path", "format", "chat", "added", "skipped", "sessions", "turns", "unchanged"]
    assert rows[1][1:5] == ["whatsapp", "Jonas Becker", "209", "0"] and len(rows) == 2
