"""The BM25 turn index: the contract the ReFind method searches through (``contract.py``, where the module
docstring says what an engine must do and how OpenSearch or Quickwit would do it) and the one engine refind
ships (``tantivy_backend.py``, the only module that imports tantivy)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from refind_cli.index.contract import (
    Matches,
    TurnIndex,
    TurnKey,
    analyzer_of,
    chat_analyzers,
    epoch_seconds,
    turn_text,
)

if TYPE_CHECKING:
    from refind_cli.index.tantivy_backend import TantivyIndex as Index

__all__ = [
    "Index",
    "Matches",
    "TurnIndex",
    "TurnKey",
    "analyzer_of",
    "chat_analyzers",
    "epoch_seconds",
    "turn_text",
]


def __getattr__(name: str) -> Any:
    # ``from refind_cli.index import Index`` (the tantivy index, for ``Index.open(home)``) loads the engine
    # only when asked for, so the method and the fake can use this module without importing tantivy.
    if name == "Index":
        from refind_cli.index.tantivy_backend import TantivyIndex

        return TantivyIndex
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
