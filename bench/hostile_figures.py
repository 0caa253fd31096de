"""Figures for hostile input: what each importer costs in peak memory and time on inputs built to hurt,
what `refind import` and `refind search` cost end to end on huge turns, and what the last fuzz run found.

    python bench/hostile_figures.py [--telegram-mb 200] [--fuzz-summary fuzz/out/summary.json]
    python bench/hostile_figures.py --huge-only [--huge-mb 50] [--burst 400000] [--source CHECKOUT]
    python bench/hostile_figures.py --memory-only [--memory-telegram-mb 300] [--memory-messages 1000000]

Each file is imported in a fresh child process (``read`` drained to the end, as the ingest does) and
the child reports its own ``ru_maxrss``. On Linux that figure also counts the high-water mark of the
process that started the child, so the inputs are built in a child of their own and this process stays
small; the baseline rows (a child that imports the importer and reads nothing) show the floor.

With ``--memory`` (or ``--memory-only``) it also runs whole ``refind import`` commands (archive and index)
on large ordinary exports, each in a fresh child, and prints the peak RSS (VmHWM) of the importing process
and, apart, of its import worker (sampled from /proc every 20 ms): the two peaks are of different processes
at different times, so neither is the sum.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MB = 1 << 20
DEPTH = 100_000
# Well past the ratio guard's 64 MB floor and far below the 1 GB declared-size limit, so that it is the
# bytes actually produced that stop the read.
BOMB_BYTES = 256 * MB
TEN_MB_LINE = "all work and no play makes jack a dull boy " * 240_000

CHILD = """
import json, resource, sys, time
from pathlib import Path
from zoneinfo import ZoneInfo
from refind_cli.errors import InputError
from refind_cli.importers import {module} as importer
path = Path(sys.argv[1])
started = time.perf_counter()
count, error = 0, None
if path.name != "baseline":
    try:
        for export in importer.read(path, tz=ZoneInfo("Europe/Berlin")):
            for _ in export.messages:
                count += 1
    except InputError as exc:
        error = str(exc).removeprefix(str(path)).lstrip(": ")
print(json.dumps({{
    "seconds": time.perf_counter() - started,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "messages": count,
    "error": error,
}}))
"""


@dataclass(frozen=True, slots=True)
class Case:
    importer: str
    name: str
    build: Callable[[Path], Path]


def measure(importer: str, path: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD.format(module=importer), str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        # A traceback here is a finding in itself: report its last line instead of a figure.
        return {"crash": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    return dict(json.loads(proc.stdout))


# --- inputs ----------------------------------------------------------------------------------------


def _baseline(folder: Path) -> Path:
    return folder / "baseline"


def _write_bomb(path: Path, member: str, head: bytes, fill: bytes, extra: dict[str, bytes]) -> Path:
    """A zip whose one big member declares its true size (under the limit) but compresses ~1000:1."""
    block = fill * (MB // len(fill))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data in extra.items():
            zf.writestr(name, data)
        with zf.open(member, "w", force_zip64=True) as fh:
            fh.write(head)
            for _ in range(BOMB_BYTES // MB):
                fh.write(block)
    return path


def wa_long_line(folder: Path) -> Path:
    path = folder / "WhatsApp Chat with Jack.txt"
    path.write_text("01/02/2024, 11:00 - Jack: " + TEN_MB_LINE + "\n")
    return path


def wa_bomb(folder: Path) -> Path:
    return _write_bomb(
        folder / "WhatsApp Chat - Bomb.zip", "_chat.txt", b"01/02/2024, 11:00 - Jack: ", b"a", {}
    )


def slack_folder(folder: Path, day: bytes, users: bytes = b"[]") -> Path:
    root = folder / "slack"
    (root / "general").mkdir(parents=True)
    (root / "channels.json").write_text('[{"id": "C1", "name": "general"}]')
    (root / "users.json").write_bytes(users)
    (root / "general" / "2024-01-01.json").write_bytes(day)
    return root


def slack_nested(folder: Path) -> Path:
    return slack_folder(folder, b"[" * DEPTH + b"]" * DEPTH)


def slack_long_line(folder: Path) -> Path:
    return slack_folder(
        folder, json.dumps([{"ts": "1704099600.000100", "user": "U1", "text": TEN_MB_LINE}]).encode()
    )


def slack_many_users(folder: Path) -> Path:
    users = [
        {"id": f"U{i:07d}", "name": f"user{i}", "profile": {"real_name": f"User {i}"}} for i in range(50_000)
    ]
    day = [{"ts": "1704099600.000100", "user": "U0049999", "text": "hi <@U0000001>"}]
    return slack_folder(folder, json.dumps(day).encode(), json.dumps(users).encode())


def slack_bomb(folder: Path) -> Path:
    return _write_bomb(
        folder / "slack.zip",
        "general/2024-01-01.json",
        b'[{"ts": "1704099600.000100", "text": "',
        b"a",
        {"channels.json": b'[{"id": "C1", "name": "general"}]'},
    )


_TG_HEAD = b'{"name": "Ann", "type": "personal_chat", "id": 7, "messages": ['


def _tg_message(i: int, text: str) -> str:
    return json.dumps(
        {"id": i, "type": "message", "date": "2024-01-01T10:00:00", "date_unixtime": str(1704099600 + i)}
        | {"from": "Ann", "from_id": "user7", "text": text}
    )


def tg_nested(folder: Path) -> Path:
    path = folder / "result.json"
    nested = "[" * DEPTH + "]" * DEPTH
    path.write_bytes(_TG_HEAD + _tg_message(1, "hi")[:-1].encode() + f', "reactions": {nested}}}]}}'.encode())
    return path


def tg_long_string(folder: Path) -> Path:
    path = folder / "result.json"
    path.write_bytes(_TG_HEAD + _tg_message(1, TEN_MB_LINE).encode() + b"]}")
    return path


def tg_bomb(folder: Path) -> Path:
    return _write_bomb(folder / "telegram.zip", "result.json", _TG_HEAD + b'{"id": 1, "text": "', b"a", {})


def tg_big(megabytes: int) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        path = folder / "result.json"
        target = megabytes * MB
        with path.open("wb") as fh:
            fh.write(_TG_HEAD)
            written, i = len(_TG_HEAD), 0
            while written < target:
                batch = ",\n".join(
                    _tg_message(i + j, f"message {i + j} about the flat in lisbon") for j in range(1000)
                )
                data = (",\n" if i else "") + batch
                fh.write(data.encode())
                written += len(data)
                i += 1000
            fh.write(b"]}")
        return path

    build.__name__ = f"tg_big_{megabytes}mb"
    return build


def cases(telegram_mb: int) -> list[Case]:
    return [
        Case("whatsapp", "baseline (imports only)", _baseline),
        Case("whatsapp", "10-MB single line", wa_long_line),
        Case("whatsapp", "zip member 256 MB, ratio ~1000:1", wa_bomb),
        Case("slack", "baseline (imports only)", _baseline),
        Case("slack", f"day file nested {DEPTH:,} deep", slack_nested),
        Case("slack", "10-MB message text", slack_long_line),
        Case("slack", "users.json with 50,000 users", slack_many_users),
        Case("slack", "zip member 256 MB, ratio ~1000:1", slack_bomb),
        Case("telegram", "baseline (imports only)", _baseline),
        Case("telegram", f"message nested {DEPTH:,} deep", tg_nested),
        Case("telegram", "10-MB string", tg_long_string),
        Case("telegram", "zip member 256 MB, ratio ~1000:1", tg_bomb),
        Case("telegram", f"{telegram_mb} MB result.json", tg_big(telegram_mb)),
    ]


# --- whole imports of large ordinary exports ------------------------------------------------------

IMPORT_CHILD = """
import json, os, sys, threading, time
from pathlib import Path
def hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next((int(line.split()[1]) for line in fh if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0  # a process that ended while it was read
workers, done = {}, threading.Event()
def sample():
    # VmHWM only grows, so the last reading of each child before it ends is its peak, give or take 20 ms.
    while not done.wait(0.02):
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in children:
                workers[child] = max(workers.get(child, 0), hwm_kb(child))
threading.Thread(target=sample, daemon=True).start()
from refind_cli.frontends.cli import main
started = time.perf_counter()
sys.argv = ["refind", "--home", sys.argv[2], "import", "--json", "--tz", "UTC", sys.argv[1]]
try:
    main()
except SystemExit as exc:
    if exc.code:
        raise
done.set()
print(json.dumps({
    "seconds": time.perf_counter() - started,
    "main_mb": hwm_kb(os.getpid()) / 1024,
    "worker_mb": max(workers.values(), default=0) / 1024,
}))
"""


def measure_import(path: Path, home: Path, source: Path | None = None) -> dict:
    """``IMPORT_CHILD``'s figures, with the code of the checkout at ``source`` if given."""
    env = None if source is None else {**os.environ, "PYTHONPATH": str(source)}
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_CHILD, str(path), str(home)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=source,
    )
    if proc.returncode != 0:
        return {"crash": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def tg_export(megabytes: int, *, one_line: bool) -> Callable[[Path], Path]:
    """A single-chat result.json of ordinary messages, laid out as Telegram Desktop writes it (one key a
    line, one-space indents), or all on one line."""

    def build(folder: Path) -> Path:
        from import_bench import SENDERS, WORDS

        rng = random.Random(7)
        weights = [1 / (i + 1) for i in range(len(WORDS))]
        indent, newline = (None, "") if one_line else (1, "\n")
        path = folder / "result.json"
        with path.open("w", encoding="utf-8") as fh:
            head = f'{{{newline} "name": "Bench",{newline} "type": "private_group",{newline} "id": 42,'
            head += f'{newline} "messages": [{newline}'
            fh.write(head)
            written, stamp, i = len(head), 1546329600, 0
            while written < megabytes * MB:
                stamp += rng.choice((10, 30, 60, 120, 600, 3600 * 5))
                sender = rng.randrange(len(SENDERS))
                text = " ".join(rng.choices(WORDS, weights, k=rng.randint(2, 18)))
                message = {"id": i + 1, "type": "message", "date": "2019-01-01T08:00:00"}
                message |= {"date_unixtime": str(stamp), "from": SENDERS[sender], "from_id": f"user{sender}"}
                message |= {"text": text, "text_entities": [{"type": "plain", "text": text}]}
                data = ("," + newline if i else "") + json.dumps(message, indent=indent, ensure_ascii=False)
                fh.write(data)
                written += len(data.encode())
                i += 1
            fh.write(f"{newline}]{newline}}}")
        return path

    return build


def wa_export(messages: int) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        from import_bench import generate

        path = folder / f"WhatsApp Chat with Bench {messages}.txt"
        generate(path, messages)
        return path

    return build


def memory_cases(telegram_mb: int, messages: int) -> list[tuple[str, Callable[[Path], Path]]]:
    one_line = min(74, telegram_mb)  # the size of the one-line export that issue 15 measured
    return [
        (f"Telegram result.json, {telegram_mb} MB", tg_export(telegram_mb, one_line=False)),
        (f"Telegram result.json, {one_line} MB on one line", tg_export(one_line, one_line=True)),
        (f"WhatsApp .txt, {messages:,} messages", wa_export(messages)),
    ]


def print_memory_figures(telegram_mb: int, messages: int) -> None:
    print("\npeak RSS of whole imports (refind import: archive and index; fresh child process each)")
    print(f"{'input':<40} {'size':>9} {'messages':>10} {'importer':>9} {'worker':>8} {'time':>8}")
    for name, build in memory_cases(telegram_mb, messages):
        with tempfile.TemporaryDirectory(prefix="refind-memory-") as tmp:
            path = build(Path(tmp))
            result = measure_import(path, Path(tmp) / "home")
            if "crash" not in result:
                from refind_cli.storage.archive import Archive

                with Archive.open(Path(tmp) / "home") as archive:
                    result["messages"] = archive.counts()["messages"]
            size = _size(path)
        if "crash" in result:
            print(f"{name:<40} {size / MB:>7.1f}MB  CRASH: {result['crash']}")
            continue
        print(
            f"{name:<40} {size / MB:>7.1f}MB {result['messages']:>10,} {result['main_mb']:>7.0f}MB "
            f"{result['worker_mb']:>6.0f}MB {result['seconds']:>7.1f}s",
            flush=True,
        )


# --- output ----------------------------------------------------------------------------------------


def build_in_child(index: int, folder: Path, telegram_mb: int) -> Path:
    proc = subprocess.run(
        [sys.executable, __file__, "--build", str(index), str(folder), "--telegram-mb", str(telegram_mb)],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(proc.stdout.strip())


def print_import_figures(telegram_mb: int) -> None:
    print("peak RSS per importer on hostile files (fresh child process each)")
    print(f"{'importer':<9} {'input':<36} {'size':>9} {'peak RSS':>9} {'time':>8}  outcome")
    for index, case in enumerate(cases(telegram_mb)):
        with tempfile.TemporaryDirectory(prefix="refind-hostile-") as tmp:
            path = build_in_child(index, Path(tmp), telegram_mb)
            size = _size(path)
            result = measure(case.importer, path)
        if "crash" in result:
            print(
                f"{case.importer:<9} {case.name:<36} {size / MB:>7.1f}MB {'-':>9} {'-':>8}  CRASH: {result['crash']}"
            )
            continue
        outcome = (
            f"{result['messages']:,} messages" if result["error"] is None else f"error: {result['error']}"
        )
        print(
            f"{case.importer:<9} {case.name:<36} {size / MB:>7.1f}MB {result['rss_mb']:>7.0f}MB "
            f"{result['seconds']:>7.2f}s  {outcome[:90]}",
            flush=True,
        )


def _size(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else 0


# --- huge turns, end to end ------------------------------------------------------------------------

# One command in a child of its own; the wrapper reports the child's peak RSS (RUSAGE_CHILDREN), its time and
# how much it printed, so neither the builder nor this process counts.
RUN = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, check=False)
print(json.dumps({
    "seconds": time.perf_counter() - started,
    "rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    "stdout_bytes": len(proc.stdout),
    "rc": proc.returncode,
    "stderr": proc.stderr.decode(errors="replace").strip().splitlines()[-1:],
}))
"""


def wa_one_huge_message(megabytes: int, abc_at: float = 0.5) -> Callable[[Path], Path]:
    """One message of ``megabytes``, the word "abc" at ``abc_at`` of it."""

    def build(folder: Path) -> Path:
        path = folder / "WhatsApp Chat with Jack.txt"
        words = "all work and no play makes jack a dull boy "
        lines = megabytes * MB // len(words)
        before = int(lines * abc_at)
        path.write_text(
            "01/02/2024, 11:00 - Jack: " + words * before + "abc " + words * (lines - before) + "\n"
        )
        return path

    build.__name__ = f"wa_one_{megabytes}mb_message"
    return build


def wa_one_sender_burst(count: int) -> Callable[[Path], Path]:
    """``count`` messages by one sender a second apart (iOS headers carry seconds); every 1000th says abc."""

    def build(folder: Path) -> Path:
        path = folder / "WhatsApp Chat - Jack.txt"
        with path.open("w") as fh:
            for i in range(count):
                t = 11 * 3600 + i
                day, t = divmod(t, 86_400)
                word = "abc" if i % 1000 == 0 else "lisbon"
                fh.write(
                    f"[{1 + day:02d}/02/2024, {t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}] Jack: "
                    f"message {i} about the flat in {word}\n"
                )
        return path

    build.__name__ = f"wa_{count}_one_sender_messages"
    return build


def huge_cases(megabytes: int, burst: int) -> list[tuple[str, Callable[[Path], Path]]]:
    return [
        (f"WhatsApp, one {megabytes}-MB message", wa_one_huge_message(megabytes)),
        (f"WhatsApp, {burst:,} messages by one sender 1 s apart", wa_one_sender_burst(burst)),
    ]


def run_measured(argv: list[str], source: Path) -> dict:
    # `python -m` puts the working folder first on the path, ahead of PYTHONPATH and an editable install.
    env = {**os.environ, "PYTHONPATH": str(source)}
    proc = subprocess.run(
        [sys.executable, "-c", RUN, *argv], capture_output=True, text=True, check=True, env=env, cwd=source
    )
    return dict(json.loads(proc.stdout))


def print_huge_figures(megabytes: int, burst: int, source: Path) -> None:
    print(f"refind import + search on huge turns (code from {source}; fresh child process each)")
    print(f"{'input':<48} {'command':<24} {'time':>8} {'peak RSS':>9} {'stdout':>10}  exit")
    refind = [sys.executable, "-m", "refind_cli"]
    for index, (name, _build) in enumerate(huge_cases(megabytes, burst)):
        with tempfile.TemporaryDirectory(prefix="refind-huge-") as tmp:
            path = Path(
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--build-huge",
                        str(index),
                        tmp,
                        "--huge-mb",
                        str(megabytes),
                        "--burst",
                        str(burst),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.strip()
            )
            home = ["--home", str(Path(tmp) / "home")]
            commands = {
                "import": [*home, "import", str(path)],
                "search abc -k 1": [*home, "search", "abc", "-k", "1"],
                "search abc -k 1 --json": [*home, "search", "abc", "-k", "1", "--json"],
            }
            for label, argv in commands.items():
                r = run_measured([*refind, *argv], source)
                print(
                    f"{name:<48} {label:<24} {r['seconds']:>7.2f}s {r['rss_mb']:>7.0f}MB "
                    f"{r['stdout_bytes']:>10,}  {r['rc']} {' '.join(r['stderr'])[:60]}",
                    flush=True,
                )


def print_fuzz_figures(summary_path: Path) -> None:
    print(f"\nfuzzing (from {summary_path})")
    if not summary_path.is_file():
        print("  no fuzz run recorded; run `python fuzz/run.py` first")
        return
    summary = json.loads(summary_path.read_text())
    print(f"  run finished {summary['finished']}")
    print(f"  {'target':<9} {'executions':>11} {'seconds':>8} {'exec/s':>7} {'findings':>9}")
    for target in summary["targets"]:
        seconds = target["seconds"] or 1
        print(
            f"  {target['target']:<9} {target['executions']:>11,} {target['seconds']:>8.0f} "
            f"{target['executions'] / seconds:>7.0f} {len(target['findings']):>9}"
        )
        distinct: dict[tuple[str, str], int] = {}
        for finding in target["findings"]:
            key = (finding["kind"].split(":")[0], finding["where"])
            distinct[key] = distinct.get(key, 0) + 1
        for (kind, where), times in distinct.items():
            print(f"      {kind} at {where or '?'} (x{times})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--telegram-mb", type=int, default=200, help="size of the big Telegram file")
    parser.add_argument("--fuzz-summary", type=Path, default=ROOT / "fuzz" / "out" / "summary.json")
    parser.add_argument("--fuzz-only", action="store_true", help="print only the fuzz figures")
    parser.add_argument("--huge-only", action="store_true", help="print only the huge-turn figures")
    parser.add_argument("--huge-mb", type=int, default=50, help="size of the one huge message")
    parser.add_argument("--burst", type=int, default=400_000, help="messages in the one-sender burst")
    parser.add_argument(
        "--source", type=Path, default=ROOT, help="checkout whose refind_cli the huge-turn figures run"
    )
    parser.add_argument("--memory", action="store_true", help="also measure whole imports (minutes)")
    parser.add_argument("--memory-only", action="store_true", help="print only the whole-import figures")
    parser.add_argument("--memory-telegram-mb", type=int, default=300)
    parser.add_argument("--memory-messages", type=int, default=1_000_000)
    parser.add_argument("--build", nargs=2, metavar=("CASE", "DIR"), help=argparse.SUPPRESS)
    parser.add_argument("--build-huge", nargs=2, metavar=("CASE", "DIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build:
        print(cases(args.telegram_mb)[int(args.build[0])].build(Path(args.build[1])))
        return
    if args.build_huge:
        print(huge_cases(args.huge_mb, args.burst)[int(args.build_huge[0])][1](Path(args.build_huge[1])))
        return
    if args.huge_only:
        print_huge_figures(args.huge_mb, args.burst, args.source.resolve())
        return
    if args.memory_only:
        print_memory_figures(args.memory_telegram_mb, args.memory_messages)
        return
    if not args.fuzz_only:
        print_import_figures(args.telegram_mb)
        print()
        print_huge_figures(args.huge_mb, args.burst, ROOT)
        if args.memory:
            print_memory_figures(args.memory_telegram_mb, args.memory_messages)
    print_fuzz_figures(args.fuzz_summary)


if __name__ == "__main__":
    main()
