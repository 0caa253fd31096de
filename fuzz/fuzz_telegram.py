"""Atheris target: the Telegram importer on a result.json, read in chunks whose size the fuzzer picks.

Besides the contract, one property: the chunk size must not change what is read. An input read in small
chunks is read again in the importer's own chunk size, and both readings must agree on success and, when
both succeed, on every chat and message.

Run through ``fuzz/run.py``, or alone: ``python fuzz/fuzz_telegram.py CORPUS_DIR -max_total_time=60``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["refind_cli"]):
    from refind_cli.errors import InputError
    from refind_cli.importers import container, telegram

import shapes

_FOLDER = Path(tempfile.mkdtemp(prefix="refind-fuzz-telegram-"))


def _read(path: Path, chunk: int) -> list[tuple] | None:
    # Loose files are read through container.iter_file_chunks, which reads the module-level CHUNK on every
    # call, so the harness can set it per input.
    container.CHUNK = chunk
    try:
        return shapes.drain(telegram.read(path, tz=shapes.TZ), telegram.FORMAT)
    except InputError:
        return None


def test_one_input(data: bytes) -> None:
    path = shapes.write_telegram(data, _FOLDER)
    telegram.sniff(path)
    chunk = shapes.telegram_chunk(data)
    small = _read(path, chunk)
    if chunk != shapes.TELEGRAM_BIG_CHUNK:
        whole = _read(path, shapes.TELEGRAM_BIG_CHUNK)
        if small != whole:
            raise AssertionError(f"chunk size {chunk} changes the result: {small!r:.300} != {whole!r:.300}")


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
