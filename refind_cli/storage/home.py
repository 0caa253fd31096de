"""Where refind keeps its data. Everything under the home folder is personal data."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from refind_cli.errors import RefindError
from refind_cli.storage.locks import WRITE_LOCK


def resolve_home(explicit: str | Path | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("REFIND_HOME")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "refind"


def home_to_read(home: Path) -> bool:
    """Whether the home exists, for a reader, which creates nothing. A home that is not a folder, or one
    this user cannot list, is a ``RefindError``: a reader must not answer "no chats" from it."""
    try:
        if not stat.S_ISDIR(os.stat(home).st_mode):
            raise RefindError(f"{home}: cannot use this as the home folder (not a folder)")
        os.listdir(home)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise RefindError(f"{home}: cannot use this as the home folder ({exc.strerror or exc})") from None
    return True


def ensure_home(home: Path) -> Path:
    """The home folder, created private to the user (0700) when it does not exist. An existing folder keeps
    its mode: refind did not create it (it may be a shared /tmp or the current folder), and the files refind
    puts in it are private anyway (``cli.main`` sets the umask)."""
    try:
        home.mkdir(parents=True, mode=0o700)
    except FileExistsError:
        if not home.is_dir():
            raise NotADirectoryError(f"{home} is not a folder") from None
        return home
    os.chmod(home, 0o700)  # mkdir's mode is narrowed by the umask, never widened: make it exact
    return home


def empty_new_home(home: Path) -> None:
    """Remove everything but the write lock (the caller holds it) from a home folder that this process
    created for an import that kept nothing: a file that is not an export leaves no archive behind."""
    import shutil

    for entry in os.scandir(home):
        if entry.name == WRITE_LOCK:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.remove(entry.path)


def remove_empty_home(home: Path) -> None:
    """Remove ``home`` once ``empty_new_home`` left only its write lock; a home another process has begun
    to write in since is not empty and stays."""
    try:
        if os.listdir(home) == [WRITE_LOCK]:
            os.remove(home / WRITE_LOCK)
            os.rmdir(home)
    except OSError:
        pass  # another writer is using it now, or the folder is gone: either way nothing of ours is left
