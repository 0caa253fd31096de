"""Figures for issue 24's resource items, the release before (``--base``) beside this checkout, in one run:

4. one 50-MB WhatsApp message: `import`, `show`, `show --json`, `search`, `search --json`, `stats`,
   `reindex`, `ask --offline`; beside each, the same command on a one-line chat (``--small``: the baseline);
5. 25,000 WhatsApp lines stamped the same minute: `import`, `show` and `show --json` of the first session;
6. a Telegram result.json of two senders taking turns 5-400 s apart (sessions end only at the cap): the
   peak RSS of the importing process and of its worker.

    git archive d90e163 | tar -x -C /tmp/hostile-base
    python bench/hostile_two_figures.py --base /tmp/hostile-base [--huge-mb 50] [--telegram-mb 300]

Each command runs in a fresh child with ``PYTHONPATH`` (and the working folder) set to the checkout it
measures; inputs are built once, in a child of their own, and each checkout imports into a home of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_figures import IMPORT_CHILD, MB, ROOT, run_measured, wa_one_huge_message


def wa_same_minute(count: int) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        path = folder / "WhatsApp Chat with Ann.txt"
        with path.open("w") as fh:
            for i in range(count):
                fh.write(
                    f"01/02/2024, 10:00 - {'Ann' if i % 2 else 'Bob'}: line {i} about the flat in lisbon\n"
                )
        return path

    return build


def tg_taking_turns(megabytes: int) -> Callable[[Path], Path]:
    """Two senders alternating, 5-400 s apart: no silence ever ends a session, only the 10,000 cap."""

    def build(folder: Path) -> Path:
        rng = random.Random(24)
        path = folder / "result.json"
        with path.open("w", encoding="utf-8") as fh:
            head = '{\n "name": "Turns",\n "type": "personal_chat",\n "id": 1,\n "messages": [\n'
            fh.write(head)
            written, stamp, i = len(head), 1546329600, 0
            while written < megabytes * MB:
                stamp += rng.randint(5, 400)
                text = " ".join(rng.choices(("flat", "lisbon", "dentist", "ok", "see", "you", "soon"), k=12))
                message = {"id": i + 1, "type": "message", "date": "2019-01-01T08:00:00"}
                message |= {"date_unixtime": str(stamp), "from": f"P{i % 2}", "from_id": f"user{i % 2 + 1}"}
                message |= {"text": text, "text_entities": [{"type": "plain", "text": text}]}
                data = (",\n" if i else "") + json.dumps(message, indent=1)
                fh.write(data)
                written += len(data)
                i += 1
            fh.write("\n ]\n}")
        return path

    return build


def wa_huge_found_early(megabytes: int) -> Callable[[Path], Path]:
    """One message, "abc" at 1% of it: in the part a search reads (``INDEXED_CHARS``) up to 100 MB."""
    return wa_one_huge_message(megabytes, abc_at=0.01)


CASES = {"huge": wa_huge_found_early, "minute": wa_same_minute, "turns": tg_taking_turns}


def built(case: str, size: int, folder: Path) -> Path:
    out = subprocess.run(
        [sys.executable, __file__, "--build", case, str(size), str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def first_session(home: Path, source: Path, query: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(source)}
    out = subprocess.run(
        [sys.executable, "-m", "refind_cli", "--home", str(home), "search", query, "-k", "1", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=source,
        check=True,
    )
    return str(json.loads(out.stdout)["results"][0]["session_id"])


def row(case: str, label: str, r: dict) -> None:
    print(
        f"{case:<34} {label:<28} {r['seconds']:>8.2f}s {r['rss_mb']:>7.0f}MB {r['rc']:>3} "
        f"{' '.join(r['stderr'])[:50]}",
        flush=True,
    )


def commands(case: str, path: Path, home: Path, source: Path) -> list[tuple[str, list[str]]]:
    refind = [sys.executable, "-m", "refind_cli", "--home", str(home)]
    out = [("import", [*refind, "import", "--tz", "UTC", str(path)])]
    if case == "huge":
        out += [("show SESSION", []), ("show SESSION --json", [])]
        out += [
            ("search abc", [*refind, "search", "abc"]),
            ("search abc --json", [*refind, "search", "abc", "--json"]),
        ]
        out += [("stats", [*refind, "stats"])]
        out += [("reindex", [*refind, "reindex"]), ("ask --offline", [*refind, "ask", "--offline", "abc?"])]
    if case == "minute":
        out += [("show SESSION", []), ("show SESSION --json", [])]
    return out


def measure_case(case: str, size: int, checkouts: dict[str, Path], tmp: Path, prefix: str = "") -> None:
    path = built(case, size, tmp)
    for name, source in checkouts.items():
        name = f"{prefix}{name}"
        home = tmp / f"home-{name}"
        if case == "turns":
            env = {**os.environ, "PYTHONPATH": str(source)}
            proc = subprocess.run(
                [sys.executable, "-c", IMPORT_CHILD, str(path), str(home)],
                capture_output=True,
                text=True,
                env=env,
                cwd=source,
                check=True,
            )
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"{case:<34} {'import (' + name + ')':<28} {r['seconds']:>8.2f}s importer {r['main_mb']:>5.0f}MB"
                f"  worker {r['worker_mb']:>5.0f}MB",
                flush=True,
            )
            continue
        session = None
        for label, argv in commands(case, path, home, source):
            if label.startswith("show"):
                session = session or first_session(home, source, "abc" if case == "huge" else "lisbon")
                argv = [sys.executable, "-m", "refind_cli", "--home", str(home), "show", session]
                argv += ["--json"] if label.endswith("--json") else []
            row(case, f"{label} ({name})", run_measured(argv, source))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=False, help="checkout of the release before")
    parser.add_argument("--huge-mb", type=int, default=50)
    parser.add_argument("--lines", type=int, default=25_000)
    parser.add_argument("--telegram-mb", type=int, default=300)
    parser.add_argument("--only", choices=sorted(CASES), action="append")
    parser.add_argument(
        "--small", action="store_true", help="also the huge case's commands on a one-line chat"
    )
    parser.add_argument("--build", nargs=3, metavar=("CASE", "SIZE", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        case, size, folder = args.build
        print(CASES[case](int(size))(Path(folder)))
        return
    checkouts = {"before": args.base.resolve(), "after": ROOT} if args.base else {"after": ROOT}
    sizes = {"huge": args.huge_mb, "minute": args.lines, "turns": args.telegram_mb}
    print(f"{'input':<34} {'command (checkout)':<28} {'time':>9} {'peak RSS':>9}")
    for case in args.only or ["minute", "turns", "huge"]:
        if case == "huge" and args.small:
            with tempfile.TemporaryDirectory(prefix="refind-issue24-") as tmp:
                measure_case(case, 0, checkouts, Path(tmp), "small, ")
        with tempfile.TemporaryDirectory(prefix="refind-issue24-") as tmp:
            measure_case(case, sizes[case], checkouts, Path(tmp))


if __name__ == "__main__":
    main()
