"""Google Takeout zips: one download can hold several of the chat products refind reads (Hangouts, Google
Chat, Gemini Apps activity), each in its own folder. An export is read by one importer, so the one that reads
a zip says in a warning which other products it holds and how to import them; an unpacked Takeout folder
needs no such word, since each product's folder is found as an export of its own."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from refind_cli.errors import InputError, InputWarning
from refind_cli.importers.container import is_zip, member_names, open_zip

# A product's files inside a Takeout zip, by the importer that reads them.
PRODUCTS = {
    "hangouts": re.compile(r"(^|/)Hangouts\.json$", re.I),
    "google-chat": re.compile(r"(^|/)Groups/[^/]+/messages\.json$"),
    "gemini": re.compile(r"(^|/)[^/]*(Gemini|Bard)[^/]*/[^/]+\.(json|html)$", re.I),
}


def products(path: Path) -> set[str]:
    """The importers whose product files the zip ``path`` holds; empty for anything else. Never raises."""
    try:
        if not is_zip(path):
            return set()
        with open_zip(path) as zf:
            names = member_names(zf)
    except (InputError, OSError, ValueError):
        return set()
    return {fmt for fmt, pattern in PRODUCTS.items() if any(pattern.search(n) for n in names)}


def warn_others(path: Path, mine: str) -> None:
    """One warning naming the other products of the Takeout zip ``path``, if it holds any."""
    others = sorted(products(path) - {mine})
    if others:
        how = " and ".join(f"--format {fmt}" for fmt in others)
        what = f"this Takeout also holds {', '.join(others)}, read only when imported again with {how}"
        warnings.warn(InputWarning(path, what), stacklevel=2)
