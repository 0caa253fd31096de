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

from refind_cli.cli import app


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
    assert refind("--home", str(home), "chats").returncode == 0
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
