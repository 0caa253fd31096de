"""Start-up and statistics benchmark (issue 26): what a person feels on every call, each beside a peer run
in the same round.

Builds (or reuses) a home holding a generated WhatsApp export of N messages (bench/import_bench.py's
generator), then runs rounds, the commands interleaved in each round so that the machine's load falls on
all of them alike, and prints the median wall time of each and its ratio to its peer:

- ``refind --version`` against ``python -c pass`` (the same interpreter);
- a cold ``refind search dinner -k 5`` (a new process, page cache warm; also ``--json``) against
  ``grep -c dinner EXPORT`` (and ``rg -c`` where ripgrep is installed);
- ``refind chats`` against ``refind --version``;
- ``refind stats`` against ``refind --version`` (and its target, 1 s), and ``refind search dinner --timeline``
  against the plain search, in the system's zone and in Europe/Berlin (a zone with daylight saving time),
  given by ``--tz`` and as the system's zone (``TZ``).

Each command's CPU time (user + system, its median) is printed beside its wall time, and its ratio to the
peer's CPU: on a shared machine the wall time holds the waiting for a core too, and moves with the load.

A search that finds nothing (``zzzqqq``) is measured beside ``grep -c zzzqqq``; on a home holding one sample
chat, a search whose hits hold an emoji (``foreword``) beside one whose hits are ASCII (``bouldering``).

``--installed`` also runs ``python -c pass``, ``refind --version`` and the searches as a user's install has
them: this tree's wheel, built, and installed by pip into a venv of its own (this venv's pip, >= 25), the
dependencies reached by a ``.pth`` path to this venv's packages; and ``--version`` as installed by the older
pip this interpreter bundles, if it does (before 25, pip's console script imported ``re``). ``make venv``'s
editable install is a plain path in a ``.pth`` since session 18 (before, setuptools' finder loaded pathlib, re,
urllib.parse, ... at every start, in ``python -c pass`` too, which flattered ``--version``): the two should
now agree.

``--where`` also tells where a cold search's CPU goes, in its own process (medians of ``--rounds``, each run
apart): the interpreter and ``site`` before the first line of the program (the venv's ``.pth`` files, an
editable install's finder), the imports by whose modules they are (refind's own, the standard library's,
tantivy, apsw, PyStemmer, dateutil and six, the rest; each module's own time, not its imports'), the cyclic
collector, and the rest: opening the home, the index, the query, the output. CPU time, so that the share
holds under load; the import hook adds ~2 us an import. With ``--installed``, for the wheel's venv beside.

``--instructions`` also counts the instructions each refind command (and ``python -c pass``) executes, once
each under valgrind: a figure the load does not move, to tell changes of a few per cent apart.

``--left-log`` also measures a cold search on a copy of the home whose archive has a long write-ahead log
beside it, as a writer leaves it when it closes while a reader has the file open (a migration's VACUUM run
by a reader's upgrade left the whole archive there): every process's first query reads all of it again,
until a reader that finds the home free folds it in.

    python bench/startup_bench.py [--messages 1000000] [--rounds 7] [--workdir bench/out] [--left-log] [--where]
        [--installed] [--instructions] [--before DIR]

The load average before and after is printed with the figures: the machine may be shared.
"""

from __future__ import annotations

import argparse
import compileall
import ensurepip
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from import_bench import generate

# The console script's work, for a tree on PYTHONPATH (-P: not this folder's tree, which -c would put first).
ENTRY = "import sys; from refind_cli.frontends import cli; sys.exit(getattr(cli, 'run', cli.main)())"
LAUNCH = [sys.executable, "-P", "-c", ENTRY]


def refind(home: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "refind_cli", "--home", str(home), *args]


def build(workdir: Path, n: int) -> tuple[Path, Path]:
    export, home = workdir / f"startup-{n}.txt", workdir / f"startup-home-{n}"
    if not (home / "archive.db").exists():
        workdir.mkdir(parents=True, exist_ok=True)
        generate(export, n)
        subprocess.run(
            refind(home, "import", "--tz", "UTC", str(export)), check=True, stdout=subprocess.DEVNULL
        )
    return export, home


def with_left_log(home: Path, workdir: Path) -> Path:
    """A copy of ``home`` whose archive has a write-ahead log as long as the archive beside it: a reader holds
    the file open while a writer rewrites it (VACUUM) and closes, so the writer's close does not fold it in."""
    import apsw

    copy = workdir / "left-log-home"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(home, copy)
    path = copy / "archive.db"
    reader = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    reader.execute("SELECT count(*) FROM chats").fetchall()
    writer = apsw.Connection(str(path))
    writer.execute("VACUUM")
    writer.close()
    reader.close()
    return copy


def installed(workdir: Path) -> dict[str, Path]:
    """The bin folders of venvs that hold this tree as a user installs it: its wheel, built here, installed
    by this venv's pip (>= 25, the ``bench`` extra: its console script imports only ``sys`` and the entry
    point) and, as ``, pip X``, by the older pip this interpreter bundles (``ensurepip``; before 25, pip's
    script imported ``re`` to edit ``sys.argv[0]``). Each venv reaches this venv's packages, the
    dependencies, by a plain path ``.pth`` (no editable finder)."""
    root = Path(__file__).parent.parent
    source, wheels = workdir / "installed-source", workdir / "installed-wheel"
    for folder in (source, wheels, *workdir.glob("installed-venv*")):
        shutil.rmtree(folder, ignore_errors=True)
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, source)
    shutil.copytree(root / "refind_cli", source / "refind_cli", ignore=shutil.ignore_patterns("__pycache__"))
    quiet = ["--quiet", "--disable-pip-version-check", "--no-deps", "--no-index"]
    pip = [sys.executable, "-m", "pip"]
    # The build's warnings (setuptools' deprecations) would bury the figures: shown only if it fails.
    built = subprocess.run(
        [*pip, "wheel", *quiet, "--no-build-isolation", "-w", str(wheels), str(source)],
        capture_output=True,
        text=True,
    )
    if built.returncode:
        raise SystemExit(f"building the wheel failed:\n{built.stderr}")
    wheel = str(next(wheels.glob("*.whl")))
    site = next(Path(p) for p in sys.path if p.endswith("site-packages"))
    bins: dict[str, Path] = {}
    bundled = sorted((Path(ensurepip.__file__).parent / "_bundled").glob("pip-*.whl"))
    olds = {
        f", pip {w.name.split('-')[1]}": w for w in bundled if int(w.name.split("-")[1].split(".")[0]) < 25
    }
    for suffix in ("", *olds):
        venv = workdir / f"installed-venv{len(bins)}"
        subprocess.run(
            [sys.base_prefix + "/bin/python3", "-m", "venv", "--without-pip", str(venv)], check=True
        )
        python = str(venv / "bin" / "python")
        if suffix:  # the bundled pip, run from its wheel by the venv's own interpreter
            subprocess.run([python, f"{olds[suffix]}/pip", "install", *quiet, wheel], check=True)
        else:
            subprocess.run([*pip, "--python", python, "install", *quiet, wheel], check=True)
        lib = next((venv / "lib").glob("python3*")) / "site-packages"
        (lib / "dependencies.pth").write_text(f"{site}\n")
        bins[suffix] = venv / "bin"
    return bins


def sample_home(workdir: Path) -> Path:
    """A home holding one of the sample chats, whose messages have emoji in them."""
    home = workdir / "sample-home"
    if not (home / "archive.db").exists():
        chat = Path(__file__).parent.parent / "sample_exports" / "WhatsApp Chat with Jonas Becker.txt"
        subprocess.run(
            refind(home, "import", "--tz", "UTC", str(chat)), check=True, stdout=subprocess.DEVNULL
        )
    return home


# Run as the console script runs (``main`` and the quick path's end), timing in CPU: what ``site`` and the
# interpreter spent before it, each import's own time by its module's owner, the collector's time.
WHERE = """
import time
started = time.process_time()
import builtins, gc, os, sys
spent, stack, collecting = {}, [], [0.0, 0.0]
real = builtins.__import__
def timed(name, globals=None, locals=None, fromlist=(), level=0):
    before, collected_before = len(sys.modules), collecting[0]
    t = time.process_time()
    stack.append(0.0)
    try:
        return real(name, globals, locals, fromlist, level)
    finally:
        # The collector's runs inside count as the collector's.
        took = time.process_time() - t - (collecting[0] - collected_before)
        inner = stack.pop()
        if len(sys.modules) != before:
            top = (globals or {}).get("__package__", "") if level else name
            owner = OWNERS.get(top.partition(".")[0], "stdlib" if top.partition(".")[0] in sys.stdlib_module_names else "other")
            spent[owner] = spent.get(owner, 0.0) + took - inner
        if stack:
            stack[-1] += took
def collected(phase, info):
    if phase == "start":
        collecting[1] = time.process_time()
    else:
        collecting[0] += time.process_time() - collecting[1]
OWNERS = {"refind_cli": "refind_cli", "tantivy": "tantivy", "apsw": "apsw", "Stemmer": "PyStemmer",
          "snowballstemmer": "PyStemmer", "dateutil": "dateutil, six", "six": "dateutil, six"}
builtins.__import__ = timed
gc.callbacks.append(collected)
sys.argv = ["refind", *sys.argv[1:]]
def end(code):
    total = time.process_time() - started
    sys.stdout.flush()
    figures = {"interpreter and site": started, **spent, "collector": collecting[0]}
    figures["the rest: home, index, query, output"] = total - sum(spent.values()) - collecting[0]
    sys.stderr.write("WHERE " + repr(figures) + chr(10))
    os._exit(code)
from refind_cli.frontends.cli import main
main(end)
"""


def where(pythons: dict[str, tuple[str, dict[str, str] | None, Path]], rounds: int) -> None:
    """Where a cold ``refind search dinner -k 5``'s CPU goes in its own process, for each interpreter,
    environment and home (``--where``), the runs interleaved."""
    import ast

    runs: dict[str, list[dict[str, float]]] = {name: [] for name in pythons}
    for _ in range(rounds):
        for name, (python, env, home) in pythons.items():
            # -P: not the working folder's tree first (-c would put it there), but the one installed.
            done = subprocess.run(
                [python, "-P", "-c", WHERE, "--home", str(home), "search", "dinner", "-k", "5"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
            line = next(x for x in done.stderr.splitlines() if x.startswith("WHERE "))
            runs[name].append(ast.literal_eval(line.removeprefix("WHERE ")))
    print(f"where a cold `refind search dinner -k 5` spends its CPU (ms, medians of {rounds}):")
    parts = list(dict.fromkeys(k for figures in runs.values() for f in figures for k in f))
    width = max(len(name) for name in pythons) + 2
    print(f"{'':40}" + "".join(f"{name:>{width}}" for name in pythons))
    for part in [*parts, "total"]:
        cells = []
        for figures in runs.values():
            ms = statistics.median(sum(f.values()) if part == "total" else f.get(part, 0.0) for f in figures)
            cells.append(f"{ms * 1000:{width}.1f}")
        print(f"{part:40}" + "".join(cells))


def wall(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """The command's wall time and CPU time (user + system; getrusage, finer than os.times' 10 ms ticks)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # Into a pipe, as a person pipes it (GNU grep stops at the first match when it writes to /dev/null).
    subprocess.run(cmd, check=False, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    ap.add_argument("--only", help="comma-separated: startup,stats (default both)")
    ap.add_argument(
        "--left-log", action="store_true", help="also a search on a home with a write-ahead log left"
    )
    ap.add_argument(
        "--where", action="store_true", help="also where a cold search's CPU goes, in its own process"
    )
    ap.add_argument(
        "--installed", action="store_true", help="also the start-up commands as a wheel install runs them"
    )
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="also the instructions each refind command and its python -c pass execute (valgrind), once",
    )
    ap.add_argument(
        "--before",
        type=Path,
        help="a folder holding an older refind_cli (git archive BASE refind_cli | tar -x -C DIR): its refind"
        " commands run too, in the same rounds, marked (before)",
    )
    ap.add_argument(
        "--before-home",
        type=Path,
        help="with --before: the home its commands read (one that tree wrote; a newer schema may not be readable"
        " by it)",
    )
    args = ap.parse_args()
    export, home = build(args.workdir, args.messages)
    samples = sample_home(args.workdir)
    only = set((args.only or "startup,stats").split(","))
    # The console script as installed: `refind` next to this interpreter (python -m adds runpy's imports).
    exe = str(Path(sys.executable).with_name("refind"))
    commands: dict[str, list[str]] = {}
    pythons: dict[str, tuple[str, dict[str, str] | None, Path]] = {
        "editable venv": (sys.executable, None, home)
    }
    if "startup" in only:
        search = [exe, "--home", str(home), "search", "dinner", "-k", "5"]
        commands |= {
            "python -c pass": [sys.executable, "-c", "pass"],
            "refind --version": [exe, "--version"],
            "grep -c dinner": ["grep", "-c", "dinner", str(export)],
            **({"rg -c dinner": ["rg", "-c", "dinner", str(export)]} if shutil.which("rg") else {}),
            "refind search dinner -k 5": search,
            "refind search dinner -k 5 --json": [*search, "--json"],
            "grep -c zzzqqq": ["grep", "-c", "zzzqqq", str(export)],
            "refind search zzzqqq -k 5": [exe, "--home", str(home), "search", "zzzqqq", "-k", "5"],
            "refind chats": [exe, "--home", str(home), "chats"],
            # A hit with an emoji beside one without (a turn from the combining marks on was highlighted with
            # the regex module until session 12).
            "refind search bouldering (sample chat)": [exe, "--home", str(samples), "search", "bouldering"],
            "refind search foreword (sample chat, emoji)": [
                exe,
                "--home",
                str(samples),
                "search",
                "foreword",
            ],
        }
        if args.installed:
            for suffix, bin_ in installed(args.workdir).items():
                if not suffix:
                    pythons["installed wheel"] = (str(bin_ / "python"), None, home)
                commands |= {
                    f"{name} (installed{suffix})": [str(bin_ / cmd[0].rpartition("/")[2]), *cmd[1:]]
                    for name, cmd in commands.items()
                    if name in ("python -c pass", "refind --version")
                    or (not suffix and name.startswith("refind search") and "(" not in name)
                }
    if "stats" in only:
        search = [exe, "--home", str(home), "search", "dinner"]
        berlin = ["--tz", "Europe/Berlin"]
        commands |= {
            "refind --version": [exe, "--version"],
            "refind search dinner": search,
            "refind search dinner --timeline": [*search, "--timeline"],
            "refind search dinner --tz Berlin": [*search, *berlin],
            "refind search dinner --timeline --tz Berlin": [*search, "--timeline", *berlin],
            # Europe/Berlin as the system's zone (TZ), as most people run it: no --tz.
            "refind search dinner, TZ=Berlin": search,
            "refind search dinner --timeline, TZ=Berlin": [*search, "--timeline"],
            "refind stats": [exe, "--home", str(home), "stats", *berlin],
        }
    envs: dict[str, dict[str, str] | None] = dict.fromkeys(commands)
    for name in commands:
        if name.endswith(", TZ=Berlin"):
            envs[name] = {**os.environ, "TZ": "Europe/Berlin"}
    # Compiled once, as an install is (`make venv`): where bytecode writing is off (PYTHONDONTWRITEBYTECODE),
    # every run would compile the modules again.
    for tree in (Path(__file__).parent.parent / "refind_cli", args.before):
        if tree is not None:
            compileall.compile_dir(tree, quiet=1)
    if args.before is not None:
        before = {"PYTHONPATH": str(args.before)}
        # The installed script names this tree's entry point; the older tree's runs as its own script would
        # (``run`` where it has one, else ``main``).
        swap = {str(home): str(args.before_home or home)}
        for name, cmd in list(commands.items()):
            if name.startswith("refind") and "(installed" not in name:
                commands[f"{name} (before)"] = [*LAUNCH, *(swap.get(part, part) for part in cmd[1:])]
                envs[f"{name} (before)"] = {**(envs[name] or os.environ), **before}
    for name, cmd in commands.items():  # warm the page cache; a command that fails would time its failure
        done = subprocess.run(
            cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=envs[name]
        )
        if done.returncode not in (0, 1):
            raise SystemExit(f"{name}: exit status {done.returncode}\n{done.stderr.decode()}")
    load_before = os.getloadavg()
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.rounds):
        for name, cmd in commands.items():
            seconds, used = wall(cmd, envs[name])
            times[name].append(seconds)
            cpu[name].append(used)
    load_after = os.getloadavg()
    med = {name: statistics.median(ts) for name, ts in times.items()}
    med_cpu = {name: statistics.median(ts) for name, ts in cpu.items()}
    print(
        f"{args.messages:,} messages, {args.rounds} rounds interleaved, medians;"
        f" load average {load_before[0]:.1f} before, {load_after[0]:.1f} after, {os.cpu_count()} cores"
    )
    peers = {
        "refind --version (installed)": "python -c pass (installed)",
        "refind search foreword (sample chat, emoji)": "refind search bouldering (sample chat)",
        "refind search zzzqqq -k 5": "grep -c zzzqqq",
        "refind --version": "python -c pass",
        "refind search dinner -k 5": "grep -c dinner",
        "refind search dinner -k 5 --json": "grep -c dinner",
        "refind chats": "refind --version",
        "refind search dinner --timeline": "refind search dinner",
        "refind search dinner --timeline --tz Berlin": "refind search dinner --tz Berlin",
        "refind search dinner --timeline, TZ=Berlin": "refind search dinner, TZ=Berlin",
        "refind stats": "refind --version",
    }
    for name, m in med.items():
        peer = peers.get(name) or peers.get(name.removesuffix(" (before)").removesuffix(" (installed)"))
        if name.startswith("refind --version (installed, pip"):
            peer = name.replace("refind --version", "python -c pass")
        if name.endswith(" (before)") and f"{peer} (before)" in med:
            peer = f"{peer} (before)"
        ratio = (
            f"  {m / med[peer]:.2f}x {peer} (CPU {med_cpu[name] / med_cpu[peer]:.2f}x)" if peer in med else ""
        )
        if name.startswith("refind stats"):
            ratio += f"; {m:.2f}x the 1 s target"
        print(f"{name:50} {m * 1000:8.0f} ms (CPU {med_cpu[name] * 1000:6.0f} ms){ratio}")
    if args.where:
        if args.before is not None:
            before = {**os.environ, "PYTHONPATH": str(args.before)}
            pythons["editable venv (before)"] = (sys.executable, before, args.before_home or home)
        where(pythons, args.rounds)
    if args.instructions:
        instructions(commands, envs)
    if args.left_log:
        left_log(export, home, args, envs)


def instructions(commands: dict[str, list[str]], envs: dict[str, dict[str, str] | None]) -> None:
    """The user-space instructions each Python command executes (valgrind's cachegrind, no cache model): the
    same count whatever the load, where CPU time at load 20 moves by 10 %. Not for grep, whose time is
    mostly reading the file, not instructions."""
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed")
        return
    print("instructions executed (millions, one run each under valgrind):")
    for name, cmd in commands.items():
        if name.startswith(("refind", "python")):
            done = subprocess.run(
                ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *cmd],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                env=envs[name],
            )
            refs = next(line for line in done.stderr.splitlines() if " refs:" in line)
            print(f"{name:50} {int(refs.rpartition(':')[2].replace(',', '')) / 1e6:8.1f}")


def left_log(
    export: Path, home: Path, args: argparse.Namespace, envs: dict[str, dict[str, str] | None]
) -> None:
    """Cold searches on a home with a write-ahead log left beside its archive: this tree's first one (which
    folds the log in) and those after it; the --before tree's, on a copy of its own, each of which reads the
    log again. ``grep -c`` in the same rounds."""
    exe = str(Path(sys.executable).with_name("refind"))
    grep = ["grep", "-c", "dinner", str(export)]
    trees = {"": None} | ({" (before)": envs["refind search dinner -k 5 (before)"]} if args.before else {})
    copies = {suffix: with_left_log(home, args.workdir / f"left{i}") for i, suffix in enumerate(trees)}
    wal = {suffix: (copy / "archive.db-wal").stat().st_size for suffix, copy in copies.items()}
    times: dict[str, list[float]] = {}
    for i in range(args.rounds):
        for suffix, env in trees.items():
            name = "refind search dinner -k 5, log left" + (", first" if i == 0 else "") + suffix
            launch = LAUNCH if env is not None else [exe]
            cmd = [*launch, "--home", str(copies[suffix]), "search", "dinner", "-k", "5"]
            times.setdefault(name, []).append(wall(cmd, env)[0])
        times.setdefault("grep -c dinner", []).append(wall(grep)[0])
    grep_ms = statistics.median(times["grep -c dinner"]) * 1000
    print(f"write-ahead log left: {max(wal.values()) / 1e6:.0f} MB; grep -c dinner {grep_ms:.0f} ms")
    for name, ts in times.items():
        if name.startswith("refind"):
            m = statistics.median(ts) * 1000
            print(f"{name:50} {m:8.0f} ms  {m / grep_ms:.2f}x grep -c dinner")
    for suffix, copy in copies.items():
        log = copy / "archive.db-wal"
        print(f"log left after the rounds{suffix}: {log.stat().st_size / 1e6 if log.exists() else 0:.0f} MB")
        shutil.rmtree(copy.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
