"""Crash safety and concurrency, with real processes: SIGKILL an import at spread-out moments, run two
imports at once, search during an import."""

from __future__ import annotations

import fcntl
import json
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from cli_runs import refind

WORDS = "dentist flat lisbon keys van coffee train job offer sintra charger dinner cake lease party".split()


def write_export(path: Path, n: int) -> Path:
    t = datetime(2024, 1, 1, 8, 0)
    lines = []
    for i in range(n):
        t += timedelta(minutes=(7, 2, 90, 30)[i % 4])
        sender = ("Maya", "Jonas", "Aylin")[(i // 3) % 3]
        lines.append(
            f"{t:%d/%m/%Y, %H:%M} - {sender}: {WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} note {i}\n"
        )
    path.write_text("".join(lines), encoding="utf-8")
    return path


def refind_on(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``refind --home HOME ARGS...``, with time for an import of 15,000 messages on a busy machine."""
    return refind("--home", str(home), *args, timeout=300)


def start(home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "refind_cli", "--home", str(home), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_until_writing(home: Path, proc: subprocess.Popen) -> None:
    """Until ``proc`` holds the home's write lock, so that what follows really runs beside a writer."""
    lock = home / ".write.lock"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the import ended before it was seen writing"
        if lock.exists():
            with lock.open("a") as fh:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    fcntl.flock(fh, fcntl.LOCK_UN)
                except BlockingIOError:
                    return
        time.sleep(0.02)
    raise AssertionError("the import never took the write lock")


def state_of(home: Path) -> tuple[int, list]:
    chats = json.loads(refind_on(home, "chats", "--json").stdout)["chats"]
    results = []
    for query in ("dentist keys", "lisbon charger", "note 4242"):
        r = refind_on(home, "search", query, "--json", "-k", "5")
        assert r.returncode in (0, 1), r.stderr
        results.append([(h["turn_id"], round(h["score"], 6)) for h in json.loads(r.stdout)["results"]])
    return sum(c["messages"] for c in chats), results


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> Path:
    return write_export(tmp_path_factory.mktemp("export") / "WhatsApp Chat with Crash.txt", 15_000)


@pytest.fixture(scope="module")
def clean(export: Path, tmp_path_factory) -> tuple[float, tuple[int, list]]:
    home = tmp_path_factory.mktemp("clean") / "home"
    t = time.monotonic()
    r = refind_on(home, "import", "--tz", "UTC", str(export))
    took = time.monotonic() - t
    assert r.returncode == 0, r.stderr
    return took, state_of(home)


@pytest.mark.parametrize("fraction", [0.2, 0.5, 0.8, 0.95])
def test_sigkill_during_import_loses_and_duplicates_nothing(
    export: Path, clean, tmp_path: Path, fraction: float
):
    took, (clean_messages, clean_results) = clean
    home = tmp_path / "home"
    proc = start(home, "import", "--tz", "UTC", str(export))
    time.sleep(took * fraction)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # Right after the kill: the file is in the archive whole or not at all.
    messages, _ = state_of(home) if (home / "archive.db").exists() else (0, None)
    assert messages in (0, clean_messages)
    # The next import completes it; the index catches up by itself; nothing is lost or doubled.
    r = refind_on(home, "import", "--tz", "UTC", str(export))
    assert r.returncode == 0, r.stderr
    assert state_of(home) == (clean_messages, clean_results)


def test_two_imports_at_once_and_a_search_during_them(export: Path, clean, tmp_path: Path):
    _, (clean_messages, _) = clean
    home = tmp_path / "home"
    sample = Path(__file__).parent.parent / "sample_exports" / "WhatsApp Chat with Jonas Becker.txt"
    assert refind_on(home, "import", "--tz", "UTC", str(sample)).returncode == 0
    first = start(home, "import", "--tz", "UTC", str(export))
    wait_until_writing(home, first)
    second = start(home, "import", "--tz", "UTC", str(sample), "--json")
    # A search while the big import writes: answers from the last commit, at once, without an error.
    t = time.monotonic()
    r = refind_on(home, "search", "dentist", "--json")
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t < 10
    _, err1 = first.communicate(timeout=300)
    out2, err2 = second.communicate(timeout=300)
    assert first.returncode == 0, err1
    assert second.returncode == 0, err2
    assert "waiting for another refind process" in err2
    assert json.loads(out2)["files"][0]["chats"][0]["messages_added"] == 0
    messages, _ = state_of(home)
    assert messages == clean_messages + 209


def test_index_lost_entirely_is_rebuilt_by_the_next_command(export: Path, tmp_path: Path):
    home = tmp_path / "home"
    sample = Path(__file__).parent.parent / "sample_exports" / "WhatsApp Chat with Jonas Becker.txt"
    assert refind_on(home, "import", "--tz", "UTC", str(sample)).returncode == 0
    before = refind_on(home, "search", "dentist", "--json").stdout
    shutil.rmtree(home / "index")
    after = refind_on(home, "search", "dentist", "--json")
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout)["results"] == json.loads(before)["results"]
