"""Instagram's "Download your information" export in JSON: read by ``meta``, which tells it from
Messenger's; this module is the ``instagram`` registration's face of it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import tzinfo
from pathlib import Path

from refind_cli.importers import meta
from refind_cli.records import ChatExport

FORMAT = meta.INSTAGRAM


def sniff(path: Path) -> bool:
    return meta.service(path) == FORMAT


def read(path: Path, *, tz: tzinfo) -> Iterator[ChatExport]:
    """Meta's times are epoch milliseconds, so ``tz`` is not needed."""
    return meta.read(path, FORMAT)
