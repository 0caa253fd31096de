"""The BM25 turn index: the contract the ReFind method searches through (``contract.py``, where the module
docstring says what an engine must do and how OpenSearch or Quickwit would do it) and the registry of
engines that implement it. refind ships one, tantivy (``tantivy_backend.py``, the only module that imports
tantivy); every part of refind that opens an index (the facade, `refind eval`) opens it through
``open_index``, so an engine is chosen here and only here.

To add an engine: implement ``TurnIndex`` in a module of this package, and add its opener to ``ENGINES``.
"""

from __future__ import annotations

from refind_cli.index.contract import (
    INDEXED_CHARS,
    Engine,
    Matches,
    OnWait,
    TurnIndex,
    TurnKey,
    analyzer_of,
    chat_analyzers,
    epoch_seconds,
    turn_text,
)

__all__ = [
    "DEFAULT_ENGINE",
    "ENGINES",
    "INDEXED_CHARS",
    "Engine",
    "Matches",
    "OnWait",
    "TurnIndex",
    "TurnKey",
    "analyzer_of",
    "chat_analyzers",
    "epoch_seconds",
    "open_index",
    "turn_text",
]

# Not typing's: a cold read imports no typing (refind_cli.typed).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from _typeshed import StrPath


def _tantivy(home: StrPath, *, on_wait: OnWait | None = None) -> TurnIndex:
    # Imported on first open, so the method, the fake engine and `refind --help` never load tantivy.
    from refind_cli.index.tantivy_backend import TantivyIndex

    return TantivyIndex.open(home, on_wait=on_wait)


ENGINES: dict[str, Engine] = {"tantivy": _tantivy}
DEFAULT_ENGINE = "tantivy"


def open_index(home: StrPath, *, on_wait: OnWait | None = None, engine: str = DEFAULT_ENGINE) -> TurnIndex:
    """The index of ``home``, by the engine registered as ``engine``."""
    return ENGINES[engine](home, on_wait=on_wait)
