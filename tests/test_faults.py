"""Faults of the machine or the file, not of refind: a damaged archive, a full disk, a home that cannot be
written. Each is one line and exit 2, nothing is half-written, and `doctor` reports damage as a failed
check."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import apsw
import pytest
from samples import JONAS, TELEGRAM
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports
import refind_cli.storage.archive
import refind_cli.storage.schema
from refind_cli.frontends.cli import app

PAGE = 4096


def refind(*args: str, unprivileged: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "refind_cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_drop_root_file_access if unprivileged and os.geteuid() == 0 else None,
    )


def _drop_root_file_access() -> None:
    # Without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH, even root's child obeys file permissions.
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("faults") / "home"
    assert refind("--home", str(home), "import", "--tz", "UTC", str(JONAS)).returncode == 0
    return home


def one_error_line(p: subprocess.CompletedProcess[str], says: str) -> None:
    assert p.returncode == 2, (p.args, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("refind: error: ") and says in lines[0], p.stderr


def test_a_damaged_archive_is_one_line_everywhere_and_a_failed_check(imported: Path, tmp_path: Path):
    home = tmp_path / "home"
    shutil.copytree(imported, home)
    db = home / "archive.db"
    # Every page but the schema's (the first, and those it grew into): no valid b-tree page.
    with apsw.Connection(str(db)) as conn:
        schema = {n - 1 for (n,) in conn.execute("SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")}
    data = bytearray(db.read_bytes())
    for page in set(range(len(data) // PAGE)) - schema:
        data[page * PAGE] = 0
    db.write_bytes(bytes(data))
    before = db.read_bytes()

    for args in (["chats"], ["forget", "--chat", "Jonas", "--yes"], ["ask", "--offline", "Jonas"]):
        one_error_line(refind("--home", str(home), *args), "the archive is damaged")
    one_error_line(refind("--home", str(home), "import", "--tz", "UTC", str(TELEGRAM)), "damaged")
    assert db.read_bytes() == before  # nothing of the refused import reached the file

    doctor = refind("--home", str(home), "doctor", "--json")
    assert doctor.returncode == 2 and "Traceback" not in doctor.stderr
    health = json.loads(doctor.stdout)
    assert health["ok"] is False and health["integrity"] and health["archive_turns"] is None
    text = refind("--home", str(home), "doctor")
    assert text.returncode == 2 and "damaged" in text.stdout and "Traceback" not in text.stderr


def test_a_full_disk_during_an_import_is_one_line_and_keeps_nothing_of_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    home = tmp_path / "home"
    assert CliRunner().invoke(app, ["--home", str(home), "import", "--tz", "UTC", str(JONAS)]).exit_code == 0
    real_connect = refind_cli.storage.schema.connect

    def small_disk(path: Path) -> apsw.Connection:
        db = real_connect(path)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 4}")  # room for a little, not for an export
        return db

    monkeypatch.setattr(refind_cli.storage.archive, "connect", small_disk)
    r = CliRunner().invoke(app, ["--home", str(home), "import", "--tz", "UTC", "--json", str(TELEGRAM)])
    assert r.exit_code == 2, r.output
    assert "disk is full" in json.loads(r.stdout)["error"]
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("refind: error: ")
    monkeypatch.undo()
    chats = json.loads(CliRunner().invoke(app, ["--home", str(home), "chats", "--json"]).stdout)["chats"]
    assert [c["name"] for c in chats] == ["Jonas Becker"]


@pytest.mark.parametrize("args", [["doctor"], ["forget", "--chat", "Jonas", "--yes"], ["reindex"]])
def test_writing_to_a_read_only_home_is_one_line(imported: Path, tmp_path: Path, args: list[str]):
    home = tmp_path / "home"
    shutil.copytree(imported, home)
    for path in [home, *home.rglob("*")]:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        one_error_line(refind("--home", str(home), *args, unprivileged=True), str(home))
        # Reading it still works.
        assert refind("--home", str(home), "search", "Jonas", unprivileged=True).returncode == 0
    finally:
        for path in [home, *home.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
