"""Writing a module of data generated ahead of time from a maintained library (CLDR's words through Babel,
Unicode's classes through ``regex``), which an import then loads instead of asking the library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def write_module(path: Path, lines: list[str]) -> None:
    """``lines`` into ``path``, then laid out as the project's code is (``make test`` checks the layout)."""
    path.write_text("\n".join(lines), encoding="utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    if ruff.exists():
        subprocess.run([str(ruff), "format", "-q", str(path)], check=False)
