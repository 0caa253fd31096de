"""Where refind keeps its data. Everything under the home folder is personal data."""

from __future__ import annotations

import os
import stat

from refind_cli.errors import RefindError
from refind_cli.storage.locks import WRITE_LOCK

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from _typeshed import StrPath


def resolve_home(explicit: StrPath | None = None) -> str:
    """The home folder's path: ``explicit``, else ``$REFIND_HOME``, else ``$XDG_DATA_HOME/refind``, else
    ``~/.local/share/refind``. A ``str``, joined and read with ``os.path``: pathlib, with the urllib.parse and
    ipaddress it imports, was a tenth of the instructions of a cold search (bench/RESULTS.md, issue 26 item
    3, session 19)."""
    if explicit:
        return os.path.expanduser(explicit)
    env = os.environ.get("REFIND_HOME")
    if env:
        return os.path.expanduser(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = os.path.expanduser(xdg) if xdg else os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "refind")


def home_to_read(home: StrPath) -> bool:
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


def ensure_home(home: StrPath) -> None:
    """The home folder, created private to the user (0700) when it does not exist. An existing folder keeps
    its mode: refind did not create it (it may be a shared /tmp or the current folder), and the files refind
    puts in it are private anyway (``cli.main`` sets the umask)."""
    try:
        os.makedirs(home, mode=0o700)  # the mode is the folder's own; the parents it creates get the default
    except FileExistsError:
        if not os.path.isdir(home):
            raise NotADirectoryError(f"{home} is not a folder") from None
        return
    os.chmod(home, 0o700)  # mkdir's mode is narrowed by the umask, never widened: make it exact


def empty_new_home(home: StrPath) -> None:
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


def remove_empty_home(home: StrPath) -> None:
    """Remove ``home`` once ``empty_new_home`` left only its write lock; a home another process has begun
    to write in since is not empty and stays."""
    try:
        if os.listdir(home) == [WRITE_LOCK]:
            os.remove(os.path.join(home, WRITE_LOCK))
            os.rmdir(home)
    except OSError:
        pass  # another writer is using it now, or the folder is gone: either way nothing of ours is left
