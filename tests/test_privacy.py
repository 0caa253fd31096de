"""Personal data stays on the machine: with no remote model configured, no command opens a network
connection. Each command runs in a fresh process whose sockets refuse to connect and record the attempt."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from samples import SAMPLES, TELEGRAM

GUARD = """
import socket, sys
attempts = []
def refuse(*args, **kwargs):
    attempts.append(repr(args[:2]))
    raise OSError("network blocked by the test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
import atexit
atexit.register(lambda: sys.stderr.write("NETWORK-ATTEMPTS " + str(len(attempts)) + "\\n"))
atexit.register(lambda: sys.stderr.write("LITELLM-IMPORTED " + str("litellm" in sys.modules) + "\\n"))
sys.argv = ["refind", *sys.argv[1:]]
from refind_cli.frontends.cli import main
main()
"""


def guarded(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        k: v
        for k, v in __import__("os").environ.items()
        if not k.startswith(("REFIND_", "OPENAI", "ANTHROPIC"))
    }
    return subprocess.run(
        [sys.executable, "-c", GUARD, "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture(scope="module")
def guarded_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("privacy") / "home"
    r = guarded(
        home,
        "import",
        "--tz",
        "Europe/Berlin",
        *map(str, sorted(SAMPLES.glob("*.txt"))),
        str(TELEGRAM),
    )
    assert r.returncode == 0, r.stderr
    assert "NETWORK-ATTEMPTS 0" in r.stderr
    return home


@pytest.mark.parametrize(
    "args",
    [
        ("search", "dentist", "--json"),
        ("ask", "when did I move the dentist appointment?", "--json"),
        ("ask", "--offline", "who helped with the move?", "--json"),
        ("chats", "--json"),
    ],
    ids=["search", "ask-no-model", "ask-offline", "chats"],
)
def test_no_network_without_a_remote_model(guarded_home: Path, args: tuple[str, ...]):
    r = guarded(guarded_home, *args)
    assert r.returncode in (0, 1), r.stderr
    json.loads(r.stdout)
    assert "NETWORK-ATTEMPTS 0" in r.stderr
    # The model client is not even loaded on these paths.
    assert "LITELLM-IMPORTED False" in r.stderr


def test_help_does_not_load_the_model_client(guarded_home: Path):
    r = guarded(guarded_home, "--help")
    assert r.returncode == 0
    assert "LITELLM-IMPORTED False" in r.stderr
