"""Atheris target: the Slack importer on a folder with a day file, channels.json, users.json and a second
day file, cut from one fuzz input at ``shapes.SEPARATOR``.

Run through ``fuzz/run.py``, or alone: ``python fuzz/fuzz_slack.py CORPUS_DIR -max_total_time=60``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["refind_cli"]):
    from refind_cli.errors import InputError
    from refind_cli.importers import slack

import shapes

_FOLDER = Path(tempfile.mkdtemp(prefix="refind-fuzz-slack-"))


def test_one_input(data: bytes) -> None:
    root = shapes.write_slack(data, _FOLDER)
    try:
        slack.sniff(root)
        shapes.drain(slack.read(root, tz=shapes.TZ), slack.FORMAT)
    except InputError:
        pass


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
