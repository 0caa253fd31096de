"""Import benchmark: a generated WhatsApp export of N messages (default 1,000,000) through `refind import`.

Prints messages/s and peak RSS for: parsing alone, parse + archive, end to end (`refind import`: parse,
archive and index); and three peers, each a floor: SQLite inserting and committing the very rows an import
writes, built beforehand and held in memory; SQLite inserting only the message rows, into a table of the
same columns without any index (what any schema that keeps the messages and their raw lines must pay); and
raw tantivy indexing of the same texts with its native analyzer; and issue 26's peer, refind's own reader
inserting the same texts into SQLite FTS5 (the end-to-end import is held to within 2x of it).
Every phase runs in a fresh process so that its peak RSS is its own; for an import that reads the export
in a worker process, the peak is of the two together (sampled every 20 ms from /proc). This is a script
that prints figures, not a test.

    python bench/import_bench.py [--messages 1000000] [--workdir bench/out]
    python bench/import_bench.py --messages 100000 --languages en,de   # the same chat in English and German
    python bench/import_bench.py --messages 200000 --line   # LINE against WhatsApp, the same chat in each
    python bench/import_bench.py --messages 1000000 --base /tmp/base-tree   # this WhatsApp reader against another's
    python bench/import_bench.py --phases e2e,fts5,sqlite --rounds 3   # issue 26's ratios, interleaved, medians

``--base`` reads and imports the WhatsApp export by this tree and by another version's (a plain copy,
``git archive REV | tar -x -C DIR``, run through PYTHONPATH), interleaved, ``--rounds`` times: messages per
second and peak RSS of each, and this tree's best against the other's.
``--languages`` runs parse + archive and end to end only, once per language, on exports generated the same
way from each language's word list: what analysing a chat in its own language costs against English.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = (
    "the be to of and a in that have I it for not on with he as you do at this but his by from they we say her she "
    "or an will my one all would there their what so up out if about who get which go me when make can like time no "
    "just him know take people into year your good some could them see other than then now look only come its over "
    "think also back after use two how our work first well way even new want because any these give day most us "
    "dentist appointment flat move lease van keys lisbon flight airbnb sintra charger job interview offer hamburg "
    "coffee dinner tonight tomorrow weekend birthday cake train late sorry haha ok yes no maybe call later love "
    "groceries milk bread cheese wine beer football game movie series book doctor meeting deadline project report"
).split()
# The same mix in German: function words first (so the chat is told German), then chat vocabulary with
# the inflected forms a German chat has (Wohnung/Wohnungen, besichtigt/besichtigen).
WORDS_DE = (
    "der die das und ist nicht ich du er sie es wir ihr ein eine einen zu mit auf für von im in sind war habe "
    "hast hat haben auch aber noch schon so wie was wer wo wann ja nein doch mal nur dann wenn weil dass oder "
    "kann muss will bin mich dich mir dir uns euch kein gut heute morgen jetzt gleich nach bei über alles viel "
    "sehr gerade echt nichts geht machen Zahnarzt Termin Termine Wohnung Wohnungen Umzug Mietvertrag Transporter "
    "Schlüssel Lissabon Flug Ferienwohnung Ladegerät Vorstellungsgespräch Angebot Hamburg Kaffee Abendessen "
    "heute Abend Wochenende Geburtstag Kuchen Zug verspätet sorry haha okay vielleicht später anrufen Einkäufe "
    "Milch Brot Käse Wein Bier Fußball Spiel Film Serie Buch Arzt Besprechung Frist Projekt Bericht besichtigt "
    "besichtigen Kinder Kindergarten abholen Häuser Straße Samstag Sonntag Mädels Freunde Freundin gekauft"
).split()
WORDS_BY_LANG = {"en": WORDS, "de": WORDS_DE}
SENDERS = ["Maya Lindqvist", "Jonas Becker", "Aylin Demir", "\u202a+49 151 2345 6789\u202c"]


def chat_records(n: int, seed: int = 7, words: list[str] = WORDS) -> Iterator[tuple[datetime, str, str]]:
    """The generated chat's messages after its first: (local time, sender, text), the same for every format."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(words))]
    t = datetime(2019, 1, 1, 8, 0)
    sender = SENDERS[0]
    for i in range(n - 1):
        t += timedelta(seconds=rng.choice((10, 30, 60, 120, 600, 3600 * 5)))
        if rng.random() < 0.45:
            sender = rng.choice(SENDERS)
        text = " ".join(rng.choices(words, weights, k=rng.randint(2, 18)))
        if i % 97 == 0:
            text += "\n" + " ".join(rng.choices(words, weights, k=6))
        if i % 500 == 0:
            text = "<Media omitted>"
        yield t, sender, text


def generate(path: Path, n: int, seed: int = 7, words: list[str] = WORDS) -> None:
    with path.open("w", encoding="utf-8") as fh:
        fh.write(
            "01/01/2019, 08:00 - Messages and calls are end-to-end encrypted. No one outside of this chat, "
            "not even WhatsApp, can read or listen to them. Tap to learn more.\n"
        )
        for t, sender, text in chat_records(n, seed, words):
            fh.write(f"{t:%d/%m/%Y, %H:%M} - {sender}: {text}\n")


def generate_line(path: Path, n: int) -> None:
    """The same chat as ``generate``'s, as a LINE export: day lines, tabs, multi-line texts in quotes."""
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[LINE] Chat history with Bench\nSaved on: 1/1/2030, 10:00\n\nTue, 1/1/2019\n")
        fh.write("08:00\tMaya Lindqvist changed the group's profile picture.\n")
        day = datetime(2019, 1, 1).date()
        for t, sender, text in chat_records(n):
            if t.date() != day:
                day = t.date()
                fh.write(f"\n{t:%a}, {t.month}/{t.day}/{t.year}\n")
            text = "[Photo]" if text == "<Media omitted>" else f'"{text}"' if "\n" in text else text
            fh.write(f"{t:%H:%M}\t{sender}\t{text}\n")


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (Linux)."""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as fh:
            total = next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                total += _tree_rss_kb(int(child))
    except (OSError, ValueError):
        pass  # a process that ended while it was read
    return total


class PeakSampler(threading.Thread):
    """The largest total RSS of this process and its children (an import's worker), sampled every 20 ms."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak_kb = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            self.peak_kb = max(self.peak_kb, _tree_rss_kb(os.getpid()))


# A row as ``Archive.insert_messages`` takes it (as stored: its written time and rest held by its chat; its
# sender's name, ``{}``, read from the key stored).
_ROW = (
    "seq, chat_seq, uid, ts, local_time, {}, sender_id, text, kind, source_id, thread, reply_to, edited, raw,"
    " import_seq, own, raw_form"
)


def _written_rows(export: Path, home: Path) -> tuple[list[tuple], list]:
    """Every row an import of ``export`` writes (messages; sessions with their turns), read back into memory."""
    from collections import defaultdict

    from refind_cli.ingest import import_file
    from refind_cli.storage.archive import Archive, StoredSession
    from refind_cli.storage.database import sender_name, session_id_text

    with Archive.open(home) as source:
        import_file(source, export, fmt="whatsapp", tz=UTC)
        row = _ROW.format(sender_name("sender"))
        # A rest its chat holds is given back as the rest itself (what an import hands the archive).
        wide = {chat: source.chatwide(chat) for (chat,) in source.db.execute("SELECT seq FROM chats")}
        messages = [
            r if r[16] is None else (*r[:13], wide[r[1]].record_rest(r[13], r[16]), *r[14:])
            for r in source.db.execute(f"SELECT {row} FROM messages ORDER BY seq")
        ]
        turns = defaultdict(list)
        for session_seq, *turn in source.db.execute(
            "SELECT session_seq, ordinal, message_seqs FROM turns ORDER BY session_seq, ordinal"
        ):
            turns[session_seq].append(tuple(turn))
        sessions = [
            StoredSession(seq, sid, chat, thread, start, end, n_messages, signature, turns[seq])
            for seq, sid, chat, thread, start, end, n_messages, signature in source.db.execute(
                f"SELECT seq, {session_id_text('id')}, chat_seq, thread, start_ts, end_ts, n_messages, signature"
                " FROM sessions"
                " ORDER BY seq"
            )
        ]
    return messages, sessions


def _cpu_seconds() -> float:
    """CPU time of this process and its waited-for children (the import worker): the work a phase did,
    which other programs on the machine do not stretch as they stretch the wall clock."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def child(phase: str, export: Path, home: Path) -> None:
    """One phase in this (fresh) process; prints {"seconds", "cpu", "messages", "rss_mb"} as JSON."""

    sampler = PeakSampler()
    sampler.start()
    start, cpu = time.perf_counter(), _cpu_seconds()
    if phase == "parse":
        from refind_cli.importers import whatsapp

        count = sum(sum(1 for _ in chat.messages) for chat in whatsapp.read(export, tz=UTC))
    elif phase == "archive":
        from refind_cli.ingest import import_file
        from refind_cli.storage.archive import Archive

        with Archive.open(home) as archive:
            result = import_file(archive, export, fmt="whatsapp", tz=UTC)
        if result.error:
            raise SystemExit(result.error)
        count = sum(c.messages_added for c in result.chats)
    elif phase == "e2e":
        count = cli_import(home, export)
    elif phase == "sqlite":
        messages, sessions = _written_rows(export, home / "source")
        start, cpu = time.perf_counter(), _cpu_seconds()  # the floor: SQLite alone, rows already built
        from refind_cli.ingest.rows import BATCH
        from refind_cli.storage.archive import Archive

        with Archive.open(home / "floor") as archive, archive.transaction():
            # The chat the rows are of, as the import left it.
            archive.db.execute("ATTACH ? AS source", (str(home / "source" / "archive.db"),))
            archive.db.execute("INSERT INTO chats SELECT * FROM source.chats")
            for i in range(0, len(messages), BATCH):
                archive.insert_messages(messages[i : i + BATCH])
            for i in range(0, len(sessions), 2_000):
                archive.store_sessions(sessions[i : i + 2_000], replace=False)
        count = len(messages)
    elif phase == "sqlite-messages":
        messages, _sessions = _written_rows(export, home / "source")
        # Any schema's floor: the message rows alone, into a table without an index.
        start, cpu = time.perf_counter(), _cpu_seconds()
        from refind_cli.ingest.rows import BATCH
        from refind_cli.storage.archive import Archive

        with Archive.open(home / "floor") as archive:
            archive.db.execute(f"CREATE TABLE bare AS SELECT {_ROW.format('sender')} FROM messages WHERE 0")
            insert = f"INSERT INTO bare VALUES ({','.join('?' * len(messages[0]))})"
            with archive.transaction():
                for i in range(0, len(messages), BATCH):
                    archive.db.executemany(insert, messages[i : i + BATCH])
        count = len(messages)
    elif phase == "fts5":
        # Issue 26's peer: the same texts, read by refind's own reader, inserted into SQLite FTS5.
        import sqlite3

        from refind_cli.importers import whatsapp

        home.mkdir(parents=True)
        db = sqlite3.connect(home / "fts.db")
        db.execute("CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='porter unicode61')")
        with db:
            for chat in whatsapp.read(export, tz=UTC):
                db.executemany("INSERT INTO fts (text) VALUES (?)", ((m.text,) for m in chat.messages))
        count = db.execute("SELECT count(*) FROM fts").fetchone()[0]
    elif phase == "tantivy":
        import tantivy

        from refind_cli.importers import whatsapp

        texts = [m.text for chat in whatsapp.read(export, tz=UTC) for m in chat.messages]
        start, cpu = time.perf_counter(), _cpu_seconds()  # the limit: indexing alone, texts already in memory
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("text", tokenizer_name="en_stem", index_option="freq")
        index_dir = home / "tantivy"
        index_dir.mkdir(parents=True)
        index = tantivy.Index(builder.build(), path=str(index_dir))
        writer = index.writer(heap_size=256_000_000)
        for text in texts:
            writer.add_document(tantivy.Document(text=text))
        writer.commit()
        writer.wait_merging_threads()
        count = len(texts)
    else:
        raise SystemExit(f"unknown phase {phase}")
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    sampler.done.set()
    sampler.join()
    # A large import reads the export in a worker process: the peak is of both together (sampled), and never
    # below either one's own exact peak.
    rss_mb = (
        max(
            sampler.peak_kb,
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
        )
        / 1024
    )
    print(json.dumps({"seconds": seconds, "cpu": cpu, "messages": count, "rss_mb": rss_mb}))


def cli_import(home: Path, export: Path, *options: str) -> int:
    """``refind import`` run in this process, as a user runs it; the messages the archive holds after."""
    from refind_cli.storage.archive import Archive

    cli_run(home, export, *options)
    with Archive.open(home) as archive:
        return archive.counts()["messages"]


def cli_run(home: Path, export: Path, *options: str) -> None:
    """``refind import`` run in this process, as a user runs it."""
    from refind_cli.frontends.cli import main

    sys.argv = ["refind", "--home", str(home), "import", "--tz", "UTC", *options, str(export)]
    try:
        main()
    except SystemExit as exc:
        if exc.code:
            raise


PHASES = {
    "parse": "parse only (whatsapp.read)",
    "archive": "parse + archive",
    "e2e": "end to end: refind import (parse, archive, index)",
    "sqlite": "peer: SQLite alone, the same rows pre-built (the floor)",
    "sqlite-messages": "peer: SQLite alone, message rows only, no index",
    "tantivy": "raw tantivy indexing, native en_stem, same texts",
    "fts5": "peer: refind's reader + FTS5 insert of the texts",
}


def run_phase(phase: str, export: Path, home: Path, tree: Path | None = None) -> dict:
    """``child`` in a fresh process; with ``tree``, on that version's refind_cli."""
    shutil.rmtree(home, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(tree)} if tree is not None else None
    home.parent.mkdir(parents=True, exist_ok=True)
    # Run from the home's folder, not from a source tree: the import's worker is ``python -c``, which puts
    # its working folder first on sys.path, so started in this checkout an older tree's import would read
    # with this tree's worker (session 13's "--base fails at 1M": its protocol differed, the worker died).
    args = ["--child", phase, "--export", str(export.resolve()), "--home", str(home.resolve())]
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=home.parent,
    )
    if out.returncode:
        raise SystemExit(f"phase {phase} failed:\n{out.stderr[-2000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def format_child(phase: str, fmt: str, export: Path, home: Path) -> None:
    """One phase for any registered format, in this (fresh) process: ``parse`` reads the export with its
    importer; ``e2e`` runs ``refind import --format FMT``. Prints messages, seconds and peak RSS as JSON."""
    sampler = PeakSampler()
    sampler.start()
    start = time.perf_counter()
    cpu_start = _cpu_seconds()
    if phase == "parse":
        from refind_cli import importers

        count = sum(sum(1 for _ in chat.messages) for chat in importers.read_export(export, fmt, UTC))
    else:
        count = cli_import(home, export, "--format", fmt)
    seconds = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu_start
    sampler.done.set()
    sampler.join()
    rss_kb = max(
        sampler.peak_kb,
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "messages": count, "rss_mb": rss_kb / 1024}))


def run_format_phase(script: str, phase: str, fmt: str, export: Path, home: Path) -> dict:
    """``format_child`` in a fresh process started from ``script`` (which passes ``--child PHASE --format
    FMT --export PATH --home PATH`` to it); its figures."""
    shutil.rmtree(home, ignore_errors=True)
    args = ["--child", phase, "--format", fmt, "--export", str(export), "--home", str(home)]
    out = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{fmt} {phase} failed:\n{out.stderr[-2000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--child")
    parser.add_argument("--export", type=Path)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--languages", help="e.g. en,de: parse + archive and end to end per language")
    parser.add_argument("--line", action="store_true", help="LINE against WhatsApp, the same chat in each")
    parser.add_argument("--format")
    parser.add_argument("--base", type=Path, help="another version's tree: its WhatsApp import against this")
    parser.add_argument("--rounds", type=int, default=2, help="with --base or --phases: rounds interleaved")
    parser.add_argument(
        "--phases", help=f"e.g. e2e,fts5,sqlite: only these, --rounds times (of {','.join(PHASES)})"
    )
    args = parser.parse_args()
    if args.child and args.format:
        format_child(args.child, args.format, args.export, args.home)
        return
    if args.child:
        child(args.child, args.export, args.home)
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.languages:
        compare_languages(args.languages.split(","), args.messages, args.workdir)
        return
    if args.line:
        compare_line(args.messages, args.workdir)
        return
    export = args.workdir / f"WhatsApp Chat with Bench {args.messages}.txt"
    if args.base:
        compare_base(args.base, export, args.messages, args.rounds, args.workdir)
        return
    if not export.exists():
        t = time.perf_counter()
        generate(export, args.messages)
        print(
            f"generated {export.name}: {export.stat().st_size / 1e6:.0f} MB in {time.perf_counter() - t:.1f} s"
        )
    chosen = args.phases.split(",") if args.phases else list(PHASES)
    rounds = args.rounds if args.phases else 1
    load = os.getloadavg()[0]
    runs: dict[str, list[dict]] = {phase: [] for phase in chosen}
    for _ in range(rounds):
        for phase in chosen:
            r = run_phase(phase, export, args.workdir / f"home-{phase}")
            runs[phase].append(r)
            print(
                f"{PHASES[phase]:<56} {r['messages'] / r['seconds']:>10,.0f} msg/s {r['seconds']:>8.1f} s"
                f" {r['cpu']:>7.1f} s CPU {r['rss_mb']:>7.0f} MB peak RSS",
                flush=True,
            )
    print(f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after, {os.cpu_count()} cores")
    median = {
        phase: {key: statistics.median(r[key] for r in rs) for key in ("seconds", "cpu", "rss_mb")}
        for phase, rs in runs.items()
    }
    if "e2e" in median:
        for peer in ("fts5", "sqlite"):
            if peer in median:
                e2e, other = median["e2e"], median[peer]
                print(
                    f"end to end / {peer} (medians of {rounds}): wall {e2e['seconds'] / other['seconds']:.2f}x,"
                    f" CPU {e2e['cpu'] / other['cpu']:.2f}x"
                    + ("  (issue 26: within 2x)" if peer == "fts5" else "")
                )
    print(json.dumps(runs))


def best_rates(
    script: str, exports: dict[str, Path], rounds: int, homes: Path
) -> dict[tuple[str, str, str], float]:
    """Each export read alone (parse) and imported (e2e) by ``script``'s format child, in fresh processes,
    formats interleaved, ``rounds`` times, each run printed: the best messages per second per (format,
    phase, clock), clock ``wall`` (elapsed) or ``cpu`` (CPU seconds of the process and its worker)."""
    rates: dict[tuple[str, str, str], list[float]] = {}
    for _round in range(rounds):
        for phase in ("parse", "e2e"):
            for fmt, export in exports.items():
                r = run_format_phase(script, phase, fmt, export, Path(f"{homes}-{fmt}-{phase}"))
                rates.setdefault((fmt, phase, "wall"), []).append(r["messages"] / r["seconds"])
                rates.setdefault((fmt, phase, "cpu"), []).append(r["messages"] / r["cpu_seconds"])
                print(
                    f"{fmt:<9} {phase:<6} {r['messages']:>9,} msgs {r['messages'] / r['seconds']:>10,.0f} msg/s"
                    f" {r['seconds']:>7.2f} s ({r['cpu_seconds']:>6.2f} s CPU) {r['rss_mb']:>6.0f} MB peak RSS",
                    flush=True,
                )
    return {key: max(values) for key, values in rates.items()}


def compare_languages(langs: list[str], n: int, workdir: Path) -> None:
    """The same generated chat in each language, imported in turn, twice each (interleaved)."""
    exports = {}
    for lang in langs:
        exports[lang] = workdir / f"WhatsApp Chat with Bench {lang} {n}.txt"
        if not exports[lang].exists():
            generate(exports[lang], n, words=WORDS_BY_LANG[lang])
    results: dict[tuple[str, str], list[dict]] = {}
    for _round in range(2):
        for lang in langs:
            for phase in ("archive", "e2e"):
                r = run_phase(phase, exports[lang], workdir / f"home-{lang}-{phase}")
                results.setdefault((lang, phase), []).append(r)
                print(
                    f"{lang} {phase:<8} {r['messages'] / r['seconds']:>10,.0f} msg/s {r['seconds']:>7.1f} s"
                    f" {r['rss_mb']:>6.0f} MB peak RSS",
                    flush=True,
                )
    with_lang = workdir / f"home-{langs[-1]}-e2e"
    out = subprocess.run(
        [sys.executable, "-m", "refind_cli", "--home", str(with_lang), "chats", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    print(f"told language of the last import: {[c['lang'] for c in json.loads(out.stdout)['chats']]}")


def compare_base(base: Path, export: Path, n: int, rounds: int, workdir: Path) -> None:
    """The WhatsApp export read alone (parse) and imported (e2e) by the other tree and by this one, in fresh
    processes, interleaved, ``rounds`` times (which tree goes first alternates: on a loaded machine the
    second of a pair ran slower whichever it was); this tree's best messages per second against the
    other's, the median CPU time of each (the process and its worker; the load stretches it less than
    the wall clock), and the largest peak RSS of each."""
    if not export.exists():
        generate(export, n)
    trees = {"base": base.resolve(), "this": ROOT}
    runs: dict[tuple[str, str], list[dict]] = {}
    for turn in range(rounds):
        for phase in ("parse", "e2e"):
            for name, tree in list(trees.items())[:: 1 if turn % 2 == 0 else -1]:
                r = run_phase(phase, export, workdir / f"home-{name}-{phase}", tree)
                runs.setdefault((name, phase), []).append(r)
                print(
                    f"{name:<5} {phase:<6} {r['messages']:>9,} msgs {r['messages'] / r['seconds']:>10,.0f} msg/s"
                    f" {r['seconds']:>7.2f} s {r['cpu']:>6.2f} s CPU {r['rss_mb']:>6.0f} MB peak RSS",
                    flush=True,
                )
    for phase in ("parse", "e2e"):
        best = {name: max(r["messages"] / r["seconds"] for r in runs[(name, phase)]) for name in trees}
        cpu = {name: statistics.median(r["cpu"] for r in runs[(name, phase)]) for name in trees}
        peak = {name: max(r["rss_mb"] for r in runs[(name, phase)]) for name in trees}
        print(
            f"{phase}: this {best['this']:,.0f} msg/s, base {best['base']:,.0f} msg/s (best of {rounds}):"
            f" {best['this'] / best['base']:.2f}x; CPU (median) this {cpu['this']:.2f} s, base {cpu['base']:.2f} s:"
            f" {cpu['this'] / cpu['base']:.2f}x; peak RSS this {peak['this']:.0f} MB, base {peak['base']:.0f} MB"
        )


def compare_line(n: int, workdir: Path) -> None:
    """The same chat as a WhatsApp and as a LINE export, each read alone (parse) and imported (refind import),
    in fresh processes, interleaved, twice; LINE's messages per second against WhatsApp's."""
    exports = {
        "whatsapp": workdir / f"WhatsApp Chat with Bench {n}.txt",
        "line": workdir / f"[LINE] Bench {n}.txt",
    }
    if not exports["whatsapp"].exists():
        generate(exports["whatsapp"], n)
    if not exports["line"].exists():
        generate_line(exports["line"], n)
    best = best_rates(__file__, exports, 2, workdir / "home")
    for phase in ("parse", "e2e"):
        for clock in ("wall", "cpu"):
            line, whatsapp = best[("line", phase, clock)], best[("whatsapp", phase, clock)]
            print(
                f"{phase} ({clock}): LINE {line:,.0f} msg/s, WhatsApp {whatsapp:,.0f} msg/s (best of 2):"
                f" LINE at {line / whatsapp:.2f}x WhatsApp's speed"
            )


if __name__ == "__main__":
    main()
