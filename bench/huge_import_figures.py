"""Issue 24, item 4 (session 10): the peak RSS of importing one huge WhatsApp message, in the writing process
and in its worker, for the release before (``--base``) and this checkout, rounds interleaved with the
import of a one-line chat (the baseline) in the same run.

    git archive main | tar -x -C /tmp/huge-base
    python bench/huge_import_figures.py --base /tmp/huge-base [--mb 50] [--rounds 2]

Three inputs: a one-line chat; a chat whose last message is the huge one; the huge message between two short
ones (the worker reads on past it). Each import runs in a fresh child (``IMPORT_CHILD``: the importing
process's VmHWM, and its worker's sampled every 20 ms) with ``PYTHONPATH`` set to the checkout it measures,
into a fresh home; the worker is used for the huge inputs (over 4 MB), not for the one-line chat.
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


def inputs(folder: Path, megabytes: int) -> dict[str, Path]:
    body = WORDS * (megabytes * MB // len(WORDS))
    texts = {
        "one line": "01/02/2024, 10:59 - Ann: hi\n",
        f"{megabytes} MB, last": f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n",
        f"{megabytes} MB, between": f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n"
        "01/02/2024, 11:01 - Ann: ok\n",
    }
    paths = {}
    for i, (name, text) in enumerate(texts.items()):
        (folder / str(i)).mkdir()
        paths[name] = folder / str(i) / "WhatsApp Chat with Jack.txt"
        paths[name].write_text(text)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="checkout of the release before")
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    checkouts = {"before": args.base.resolve(), "after": ROOT}
    print(f"load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'input':<18} {'code':<7} {'round':>5} {'time':>8} {'importer':>9} {'worker':>7}")
    with tempfile.TemporaryDirectory(prefix="refind-huge-import-") as tmp:
        paths = inputs(Path(tmp), args.mb)
        for r in range(1, args.rounds + 1):
            for name, path in paths.items():
                for code, source in checkouts.items():
                    home = Path(tmp) / f"home-{r}-{code}-{path.parent.name}"
                    f = measure_import(path, home, source)
                    if "crash" in f:
                        raise SystemExit(f"{name} ({code}): {f['crash']}")
                    print(
                        f"{name:<18} {code:<7} {r:>5} {f['seconds']:>7.1f}s {f['main_mb']:>7.0f}MB"
                        f" {f['worker_mb']:>5.0f}MB",
                        flush=True,
                    )
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
