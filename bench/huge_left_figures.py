"""Issue 24, item 4 (session 15): the readers that still hold one huge message whole, measured: the peak RSS
of importing a sample export whose one message is ``--mb`` MB of words, beside the same export with that
message 1 KB long (the peer), in one run.

    python bench/huge_left_figures.py [--mb 50] [--only NAME ...]

Each input is a file of ``sample_exports/`` with one message's text replaced: an SMS Backup & Restore body
(XML), an iMessage TXT and HTML message (imessage-exporter), a Hangouts JSON text, a sigtop edited message's
newest version (its lines "| "-prefixed), a quote in sigtop. Each import runs in a fresh child
(``IMPORT_CHILD``: the importing process's VmHWM and its worker's, sampled every 20 ms) into a fresh home.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_figures import MB, ROOT, measure_import

WORDS = "all work and no play makes jack a dull boy "
SAMPLES = ROOT / "sample_exports"
# (name, sample file, the message's text as written there, how a text of words is written in its place)
INPUTS = {
    "SMS XML": ("sms-20261004213000.xml", "Can I borrow the big pot on Saturday?", str),
    "iMessage TXT": (
        "Priya Nair.txt",
        "The cake is in the office fridge, top shelf 🎂 don't tell anyone",
        str,
    ),
    "iMessage HTML": ("Lars Lindqvist.html", "The tomatoes are finally red 🍅 eleven today", str),
    "Hangouts JSON": ("Hangouts.json", "Is the flat in Weserstraße yours now?", str),
    "sigtop, edited": (
        "Noah Weber.txt",
        "| we're out of chairs 😅 can you bring three?",
        lambda text: "| " + text,
    ),
    "sigtop, quoted": ("Noah Weber.txt", "> From: Noah Weber (+4915209876543)", lambda text: "> " + text),
}


def inputs(folder: Path, megabytes: int, only: list[str]) -> dict[str, Path]:
    paths = {}
    for name, (sample, written, write) in INPUTS.items():
        if only and name not in only:
            continue
        for size, text in (("1 KB", WORDS * 23), (f"{megabytes} MB", WORDS * (megabytes * MB // len(WORDS)))):
            original = (SAMPLES / sample).read_text()
            assert written in original, (name, written)
            target = folder / f"{name} {size}"
            target.mkdir()
            path = target / sample
            path.write_text(original.replace(written, write(text), 1))
            paths[f"{name}, {size}"] = path
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--only", action="append", default=[], choices=sorted(INPUTS))
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'input':<26} {'time':>8} {'importer':>9} {'worker':>7} {'both':>7}")
    with tempfile.TemporaryDirectory(prefix="refind-huge-left-") as tmp:
        for name, path in inputs(Path(tmp), args.mb, args.only).items():
            f = measure_import(path, path.parent / "home", ROOT)
            if "crash" in f:
                print(f"{name:<26} refused: {f['crash']}", flush=True)
                continue
            print(
                f"{name:<26} {f['seconds']:>7.1f}s {f['main_mb']:>7.0f}MB {f['worker_mb']:>5.0f}MB"
                f" {f['main_mb'] + f['worker_mb']:>5.0f}MB",
                flush=True,
            )
            path.unlink()
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
