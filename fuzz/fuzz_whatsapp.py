"""Atheris target: the WhatsApp importer on a loose .txt, a zip holding ``_chat.txt``, or raw zip bytes.

Run through ``fuzz/run.py``, or alone: ``python fuzz/fuzz_whatsapp.py CORPUS_DIR -max_total_time=60``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["refind_cli"]):
    from refind_cli.errors import InputError
    from refind_cli.importers import whatsapp

import shapes

_FOLDER = Path(tempfile.mkdtemp(prefix="refind-fuzz-whatsapp-"))


def test_one_input(data: bytes) -> None:
    path = shapes.write_whatsapp(data, _FOLDER)
    try:
        whatsapp.sniff(path)  # must never raise, whatever the file
        shapes.drain(whatsapp.read(path, tz=shapes.TZ), whatsapp.FORMAT)
    except InputError:
        pass
    finally:
        path.unlink()


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
