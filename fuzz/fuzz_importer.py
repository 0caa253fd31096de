"""Atheris target for one registered importer, named by the first argument: the input becomes an export as
``shapes.shape(importer)`` says, which must be sniffed without an exception and then read into records or an
``InputError`` (plus the shape's own property, if it has one).

Run through ``fuzz/run.py``, or alone: ``python fuzz/fuzz_importer.py slack CORPUS_DIR -max_total_time=60``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

# The importer's name, taken out before libFuzzer reads the rest of the command line.
NAME = sys.argv.pop(1) if len(sys.argv) > 1 else ""

with atheris.instrument_imports(include=["refind_cli"]):
    from refind_cli import importers

    if NAME not in importers.names():
        raise SystemExit(
            f"usage: fuzz_importer.py {{{','.join(importers.names())}}} CORPUS_DIR [libFuzzer flags]"
        )
    IMPORTER = importers.get(NAME)
    IMPORTER.load()  # the parser, imported inside this block so that it is instrumented

import shapes  # noqa: E402  (after the block: it imports refind_cli, which must be instrumented first)

SHAPE = shapes.shape(IMPORTER)
_FOLDER = Path(tempfile.mkdtemp(prefix=f"refind-fuzz-{NAME}-"))


def test_one_input(data: bytes) -> None:
    path = SHAPE.write(data, _FOLDER)
    try:
        IMPORTER.sniff(path)  # must never raise, whatever the input
        SHAPE.check(IMPORTER, path, data)
    finally:
        if path.is_file():
            path.unlink()


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
