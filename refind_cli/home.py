"""Where refind keeps its data. Everything under the home folder is personal data."""

from __future__ import annotations

import os
from pathlib import Path


def resolve_home(explicit: str | Path | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("REFIND_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "refind"


def ensure_home(home: Path) -> Path:
    """Create the home folder private to the user (0700), and tighten it if it already exists."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(home, 0o700)
    return home
