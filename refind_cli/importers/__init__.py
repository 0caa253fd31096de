"""Export readers, one module per format. Each module exposes:

- ``FORMAT``: its name (``"whatsapp"``),
- ``sniff(path) -> bool``: a cheap look at the content (a zip's entry names, a folder's files, a file's
  first bytes) that says whether the export is this format; it never raises for foreign input,
- ``read(path, *, tz) -> Iterator[ChatExport]``: the chats and their messages, exactly as written. Times
  without an offset are read in ``tz``. Unreadable input raises ``InputError`` naming the place.

Importers know nothing of sessions, storage, search or the CLI.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from datetime import tzinfo
from pathlib import Path
from types import ModuleType

from refind_cli.errors import InputError
from refind_cli.importers import container
from refind_cli.records import ChatExport


def _modules() -> dict[str, ModuleType]:
    # Imported on demand: `refind --help` should not pay for parsers it does not run.
    from refind_cli.importers import slack, telegram, whatsapp

    # Order matters only for sniffing: the JSON formats have unmistakable shapes, WhatsApp text is the fallback.
    return {m.FORMAT: m for m in (telegram, slack, whatsapp)}


FORMATS = ("whatsapp", "slack", "telegram")


def detect(path: Path) -> str:
    if not path.exists():
        raise InputError(path, "no such file or folder")
    if path.is_file():
        if path.stat().st_size == 0:
            raise InputError(path, "is empty; not a chat export")
        if zipfile.is_zipfile(path):
            # A broken or hostile zip is reported as such, not as an unknown format.
            container.open_zip(path).close()
    for name, module in _modules().items():
        if module.sniff(path):
            return name
    raise InputError(path, f"unknown export format; supported: {', '.join(FORMATS)}")


def read_export(path: Path, fmt: str, tz: tzinfo) -> Iterator[ChatExport]:
    """Chats of one export. ``fmt`` is a name from FORMATS or ``"auto"``."""
    if fmt == "auto":
        fmt = detect(path)
    modules = _modules()
    if fmt not in modules:
        raise InputError(path, f"unknown format {fmt!r}; supported: {', '.join(FORMATS)}")
    if not path.exists():
        raise InputError(path, "no such file or folder")
    return modules[fmt].read(path, tz=tz)
