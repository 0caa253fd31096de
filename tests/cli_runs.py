"""refind's command line, run two ways: in this process (``run``, typer's CliRunner: fast, sees
monkeypatching) and in a process of its own (``refind``: the real entry point, exit status and streams).
``run`` runs a command line the quick path takes (``quick.serve``) through it too, and checks that both
entry points give the same exit status, stdout and stderr."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import Result
from typer.testing import CliRunner

# Every command registered, as `refind --help` has them.
from refind_cli.frontends.cli import app, ask, completion, imports, maintain, search, stats  # noqa: F401  # isort: skip
from refind_cli.frontends.cli import quick

runner = CliRunner()


def run(home: Path, *args: str, input: str | None = None) -> Result:
    """``refind --home HOME ARGS...`` in this process."""
    argv = ["--home", str(home), *args]
    result = runner.invoke(app, argv, input=input)
    with runner.isolation(input=input) as (out, err, _):
        code = quick.serve(argv)
        sys.stdout.flush()
        sys.stderr.flush()
    if code is not None:
        served = (code, out.getvalue().decode(), err.getvalue().decode())
        assert served == (result.exit_code, result.stdout, result.stderr), (
            f"quick path and typer differ: {args}"
        )
    return result


def refind(*args: str, timeout: float = 120, **kw: Any) -> subprocess.CompletedProcess[str]:
    """refind in a process of its own, so that a hang is a failed test (timeout) and not a stuck suite."""
    return subprocess.run(
        [sys.executable, "-m", "refind_cli", *args], capture_output=True, text=True, timeout=timeout, **kw
    )
