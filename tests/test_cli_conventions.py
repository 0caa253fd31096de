"""Shell conventions every command keeps: one-line option errors (with a JSON error object under --json), a
closed pipe is not a failure, output a terminal cannot encode is escaped, --home never changes a folder
refind did not create, files refind creates are private."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runs import refind, runner
from samples import JONAS

from refind_cli.frontends.cli import app


@pytest.fixture(scope="module")
def jonas_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("conventions") / "home"
    assert refind("--home", str(home), "import", "--tz", "Europe/Berlin", str(JONAS)).returncode == 0
    return home


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["search", "--bogus", "x"], "search: No such option '--bogus'"),
        (["search", "x", "-k", "0"], "search: Invalid value for '-k'"),
        (["serch", "x"], "No such command 'serch'"),
    ],
)
def test_an_option_error_is_one_line_with_exit_2(args: list[str], says: str):
    p = refind(*args)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("refind: error: ")
    assert says in p.stderr
    assert "Usage:" not in p.stderr
    assert p.stderr.count("Did you mean") <= 1


def test_an_option_error_under_json_is_also_an_error_object():
    p = refind("search", "x", "--json", "-k", "0")
    assert p.returncode == 2
    assert "-k" in json.loads(p.stdout)["error"]
    assert p.stderr.startswith("refind: error: ") and p.stderr.count("\n") == 1


def test_the_one_line_error_also_holds_in_process():
    r = runner.invoke(app, ["search", "--bogus", "x"])
    assert r.exit_code == 2
    assert r.stderr.startswith("refind: error: search: No such option")


def test_a_reader_that_goes_away_is_not_a_failure(jonas_home: Path):
    for extra in ([], ["--json"]):
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "refind_cli",
                "--home",
                str(jonas_home),
                "search",
                "Jonas",
                "-k",
                "20",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # like `| head -0`: every write meets a closed pipe
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 0, err
        assert b"Traceback" not in err


def test_output_a_terminal_cannot_encode_is_escaped(jonas_home: Path, tmp_path: Path):
    chat = tmp_path / "WhatsApp Chat with Zoë.txt"
    chat.write_text("05/03/2026, 10:00 - Zoë: café ☕ naïve\n", encoding="utf-8")
    assert refind("--home", str(jonas_home), "import", "--tz", "UTC", str(chat)).returncode == 0
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "COLUMNS": "200"}
    p = refind("--home", str(jonas_home), "search", "café", env=env)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert "caf\\xe9" in p.stdout


def test_an_empty_home_is_refused(tmp_path: Path):
    before = stat.S_IMODE(tmp_path.stat().st_mode)
    p = refind("--home", "", "chats", cwd=tmp_path)
    assert p.returncode == 2 and "--home" in p.stderr
    assert list(tmp_path.iterdir()) == []
    assert stat.S_IMODE(tmp_path.stat().st_mode) == before


def test_a_shared_folder_keeps_its_mode(tmp_path: Path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    assert refind("--home", str(shared), "search", "anything").returncode == 1
    assert refind("--home", str(shared), "import", "--tz", "UTC", str(JONAS)).returncode == 0
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777
    # What refind writes there is private all the same.
    for path in shared.rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path


def test_a_new_home_is_private(tmp_path: Path):
    home = tmp_path / "a" / "home"
    assert refind("--home", str(home), "import", "--tz", "UTC", str(JONAS)).returncode == 0
    assert stat.S_IMODE(home.stat().st_mode) == 0o700


HOSTILE = "\x1b]0;PWNED\x07\x1b[2J\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\ \x9b31m \u202eevil"


def test_chat_text_cannot_drive_the_terminal(tmp_path: Path):
    """Escape sequences in a chat's name, a sender, a message or a file name reach no output raw."""
    home = tmp_path / "home"
    in_name = HOSTILE.replace("/", "_")
    export = tmp_path / f"WhatsApp Chat with Mallory{in_name}.txt"
    export.write_text(
        f"05/03/2026, 10:00 - Mallory{HOSTILE}: dentist {HOSTILE} tomorrow\n05/03/2026, 10:01 - Maya: ok\n",
        encoding="utf-8",
    )
    env = {**os.environ, "COLUMNS": "200"}
    imported = refind("--home", str(home), "import", "--tz", "UTC", str(export), env=env)
    assert imported.returncode == 0, imported.stderr
    hit = json.loads(refind("--home", str(home), "search", "dentist", "--json").stdout)["results"][0]
    assert "\x1b]0;PWNED\x07" in hit["text"]  # the data itself is kept as written
    runs = [
        imported,
        refind(
            "--home", str(home), "import", "--tz", "UTC", str(tmp_path / f"missing{in_name}.txt"), env=env
        ),
        *(
            refind("--home", str(home), *args, env=env)
            for args in (
                ["chats"],
                ["chats", "--json"],
                ["search", "dentist"],
                ["search", "dentist", "--json"],
                ["search", "dentist", "--jsonl"],
                ["show", hit["turn_id"]],
                ["show", hit["turn_id"], "--json"],
                ["ask", "--offline", "when is the dentist?"],
                ["ask", "--offline", "when is the dentist?", "--json"],
            )
        ),
    ]
    for p in runs:
        for stream in (p.stdout, p.stderr):
            assert not set(stream) & {"\x1b", "\x07", "\x9b", "\u202e"}, (p.args, stream[:300])
    assert "\\x1b]0;PWNED" in runs[4].stdout  # shown, escaped, where the text would be
