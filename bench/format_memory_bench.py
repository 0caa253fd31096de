"""Issue 26 item 2 ("peak memory of a 1M-message import under 250 MB whatever the messages' shape"), every
format: a generated export of N messages (default 1,000,000) of each format refind imports, the same chat
(``import_bench.chat_records``) in each format's shape (the generators of ``reimport_bench``, and a few more
here), imported with `refind import` into an empty home, a process of its own; beside it, in the same run, a
peer reading the same bytes in a process of its own: ``for line in f`` for a text file (lines, XML, HTML,
CSV), a plain JSON stream read (``ijson.parse``, every event) for a JSON file, each member of a zip or each
file of a folder read so.

For each process: wall, CPU (``wait4``: the process and the children it waited for, an import's worker) and
peak RSS (the sum of the process tree's RSS, sampled every 20 ms).
Prints one table row per format, and the load average beside it.

This is a script that prints figures, not a test.

The shapes that hurt a reader holding a chat whole are here too: ``slack-one``, ``teams-one`` and
``google-chat-one``, a single channel, chat or group holding all the messages; the same unzipped
(``-one-folder``: a folder's files are read from the disk, not a zip's members); many small chats
(``-many``: 10,000 of 100 messages); Messenger's thread of JSON parts zipped (``messenger-zip``).

    python bench/format_memory_bench.py [--messages 1000000] [--workdir bench/out] [--formats ...]
        [--keep]  (keep the generated exports, and reuse them)
        [--stop-mb MB]  (stop an import whose memory passes MB: its figure is then "over MB")
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reimport_bench as rb
from import_bench import SENDERS, _tree_rss_kb, chat_records, generate_line
from meta_bench import generate_messenger


def generate_signal(path: Path, n: int) -> None:
    """The chat as signal-export's ``chat.md`` in a folder named after the chat (Markdown's line-break
    spaces after every line, ``Me`` for the first sender)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for t, sender, text in chat_records(n + 1):
            who = "Me" if sender == SENDERS[0] else sender
            body = text.replace("\n", "  \n")
            fh.write(f"[{t:%Y-%m-%d %H:%M:%S}] {who}: {body}  \n")


def _runs(n: int, per: int) -> Iterator[tuple[int, list[tuple[datetime, str]]]]:
    """The chat's messages in runs of ``per`` (a conversation each), numbered: (time, text)."""
    run: list[tuple[datetime, str]] = []
    count = 0
    for t, _, text in chat_records(n + 1):
        run.append((t, text))
        if len(run) == per:
            yield count, run
            count, run = count + 1, []
    if run:
        yield count, run


def _iso(t: datetime) -> str:
    return t.replace(tzinfo=UTC).isoformat().replace("+00:00", "Z")


def generate_claude(path: Path, n: int, per: int = 50) -> None:
    """The chat as a Claude.ai ``conversations.json``: conversations of ``per`` messages, human and
    assistant in turn."""
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[")
        for c, run in _runs(n, per):
            messages = [
                {
                    "uuid": f"00000000-0000-4000-9000-{c * per + k:012d}",
                    "text": text,
                    "content": [
                        {
                            "start_timestamp": _iso(t),
                            "stop_timestamp": _iso(t),
                            "type": "text",
                            "text": text,
                            "citations": [],
                        }
                    ],
                    "sender": "human" if k % 2 == 0 else "assistant",
                    "created_at": _iso(t),
                    "updated_at": _iso(t),
                    "attachments": [],
                    "files": [],
                }
                for k, (t, text) in enumerate(run)
            ]
            conv = {
                "uuid": f"00000000-0000-4000-8000-{c:012d}",
                "name": f"Conversation {c}",
                "summary": "",
                "created_at": _iso(run[0][0]),
                "updated_at": _iso(run[-1][0]),
                "account": {"uuid": "f636b34f-7fb5-5f5e-934f-540b04f73f5b"},
                "chat_messages": messages,
            }
            fh.write(("" if c == 0 else ", ") + json.dumps(conv, ensure_ascii=False))
        fh.write("]\n")


def generate_grok(path: Path, n: int, per: int = 50) -> None:
    """The chat as Grok's ``prod-grok-backend.json``: conversations of ``per`` responses, human and
    assistant in turn, each answering the one before."""
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"conversations": [')
        for c, run in _runs(n, per):
            ident = f"conv-{c}"
            responses = []
            for k, (t, text) in enumerate(run):
                response: dict = {
                    "_id": f"{ident}-r{k}",
                    "conversation_id": ident,
                    "message": text,
                    "sender": "human" if k % 2 == 0 else "ASSISTANT",
                    "create_time": {
                        "$date": {"$numberLong": str(int(t.replace(tzinfo=UTC).timestamp() * 1000))}
                    },
                    "partial": False,
                }
                if k:
                    response["parent_response_id"] = f"{ident}-r{k - 1}"
                responses.append({"response": response})
            head = {
                "id": ident,
                "user_id": "bench",
                "create_time": _iso(run[0][0]),
                "modify_time": _iso(run[-1][0]),
                "title": f"Conversation {c}",
                "starred": False,
            }
            conv = {"conversation": head, "responses": responses}
            fh.write(("" if c == 0 else ", ") + json.dumps(conv, ensure_ascii=False))
        fh.write("]}\n")


def generate_instagram(root: Path, n: int) -> None:
    """Messenger's generated thread (``meta_bench``) under Instagram's folder name."""
    generate_messenger(root, n)
    (root / "your_facebook_activity").rename(root / "your_instagram_activity")


def _unzipped(make: Callable[[Path, int], None]) -> Callable[[Path, int], None]:
    """``make``'s zip unpacked into the folder ``path``, as a person unpacks a download before importing it."""

    def made(path: Path, n: int) -> None:
        zipped = path.with_name(path.name + ".zip")
        make(zipped, n)
        with zipfile.ZipFile(zipped) as zf:
            zf.extractall(path)
        zipped.unlink()

    return made


def _zipped(make: Callable[[Path, int], None]) -> Callable[[Path, int], None]:
    """``make``'s folder zipped into ``path``, as a download arrives (its top folder's contents at the root)."""

    def made(path: Path, n: int) -> None:
        folder = path.with_suffix("")
        make(folder, n)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for file in sorted(folder.rglob("*")):
                if file.is_file():
                    zf.write(file, file.relative_to(folder).as_posix())
        shutil.rmtree(folder)

    return made


# format: (the export's name in its folder, its generator): reimport_bench's, and those made here.
FORMATS: dict[str, tuple[str, Callable[[Path, int], None]]] = {
    **rb.FORMATS,
    "messenger": ("facebook-bench", generate_messenger),
    "instagram": ("instagram-bench", generate_instagram),
    "signal": ("Bench/chat.md", generate_signal),
    "line": ("[LINE] Chat with Bench.txt", generate_line),
    "claude": ("conversations.json", generate_claude),
    "grok": ("prod-grok-backend.json", generate_grok),
    # One channel, chat or group holding every message (a reader that holds a chat to sort or name it).
    "slack-one": ("Bench Slack export.zip", functools.partial(rb.generate_slack, channels=1)),
    "teams-one": ("teams-export.zip", functools.partial(rb.generate_teams, chats=1)),
    "google-chat-one": ("takeout-google-chat.zip", functools.partial(rb.generate_google_chat, chats=1)),
    # The same shapes unzipped: a folder's files are read from the disk, not a zip's members.
    "slack-one-folder": ("Bench Slack export", _unzipped(functools.partial(rb.generate_slack, channels=1))),
    "teams-one-folder": ("teams-export", _unzipped(functools.partial(rb.generate_teams, chats=1))),
    "google-chat-one-folder": (
        "takeout-google-chat",
        _unzipped(functools.partial(rb.generate_google_chat, chats=1)),
    ),
    # Many small chats: 10,000 of 100 messages each (what a reader keeps a chat has a count of chats).
    "slack-many": ("Bench Slack export.zip", functools.partial(rb.generate_slack, channels=10_000, run=100)),
    "teams-many": ("teams-export.zip", functools.partial(rb.generate_teams, chats=10_000, run=100)),
    "google-chat-many": (
        "takeout-google-chat.zip",
        functools.partial(rb.generate_google_chat, chats=10_000, run=100),
    ),
    "telegram-account-many": (
        "result.json",
        functools.partial(rb.generate_telegram_account, dialogs=10_000, run=100),
    ),
    # Messenger's thread of JSON parts (``meta_bench.PER_FILE`` messages each) as the download's zip.
    "messenger-zip": ("facebook-bench.zip", _zipped(generate_messenger)),
}


# --- the peer: the same bytes read plainly --------------------------------------------------------------


def _read_plainly(name: str, fh: IO[bytes]) -> int:
    """Lines of a text file, events of a JSON one; their count."""
    import ijson

    if name.endswith(".json"):
        return sum(1 for _ in ijson.parse(fh))
    return sum(1 for _ in fh)


def peer(export: Path) -> None:
    """In this (fresh) process: every file of ``export`` (a file, a zip's members, a folder's files) read
    plainly; prints what was counted."""
    count = 0
    if zipfile.is_zipfile(export):
        with zipfile.ZipFile(export) as zf:
            for info in zf.infolist():
                if not info.is_dir():
                    with zf.open(info) as fh:
                        count += _read_plainly(info.filename, fh)
    else:
        for path in sorted(export.rglob("*")) if export.is_dir() else [export]:
            if path.is_file():
                with path.open("rb") as fh:
                    count += _read_plainly(path.name, fh)
    print(count)


# --- measuring ----------------------------------------------------------------------------------------


class _Sampler(threading.Thread):
    """The largest total RSS of a process and its descendants, sampled every 20 ms."""

    def __init__(self, pid: int, stop_kb: int | None = None) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self.stop_kb = stop_kb  # past it the process (group) is stopped: its figure is "over"
        self.stopped = False
        self.done = threading.Event()

    def run(self) -> None:
        # Sampled before the first wait too: a peer that ends within 20 ms would otherwise have no figure.
        while True:
            self.peak_kb = max(self.peak_kb, _tree_rss_kb(self.pid))
            if self.stop_kb is not None and self.peak_kb > self.stop_kb and not self.stopped:
                self.stopped = True
                os.killpg(self.pid, 9)
            if self.done.wait(0.02):
                break


def measured(
    args: list[str], env: dict[str, str] | None = None, stop_mb: int | None = None, cwd: Path | None = None
) -> dict:
    """``args`` run as a process: its wall, CPU (its own and its waited-for children's), peak RSS in MB. Its
    output goes to temporary files, not pipes: an import that names 20,000 chats would fill a pipe and wait
    on it while this process waits for it to end."""
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=err, env=env, cwd=cwd, start_new_session=True)
        sampler = _Sampler(proc.pid, None if stop_mb is None else stop_mb << 10)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        sampler.done.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        printed, complaint = out.read(), err.read()
    if proc.returncode and not sampler.stopped:
        raise SystemExit(f"{args} failed:\n{complaint.decode(errors='replace')[-2000:]}")
    # Not ``ru_maxrss``: Linux carries a process's high-water mark across exec, so a child forked from
    # this process (which may have held a generated export) would report this process's size.
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak": sampler.peak_kb / 1024,
        "out": printed.decode(errors="replace")[-2000:],
        "load": os.getloadavg()[0],
        "stopped": sampler.stopped,
    }


def _size(path: Path) -> int:
    return (
        sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        if path.is_dir()
        else path.stat().st_size
    )


def survey(fmt: str, n: int, work: Path, keep: bool, tree: Path | None, stop_mb: int | None = None) -> dict:
    name, make = FORMATS[fmt]
    export = work / fmt / name
    done = work / fmt / "made"
    if not (keep and done.exists()):
        shutil.rmtree(work / fmt, ignore_errors=True)
        export.parent.mkdir(parents=True)
        make(export, n)
        done.write_text(str(n))
    home = work / fmt / "home"
    shutil.rmtree(home, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(tree)} if tree is not None else None
    plain = measured([sys.executable, __file__, "--peer", str(export)])
    # Run in ``tree``: ``python -m`` puts the working directory before PYTHONPATH.
    imported = measured(
        [sys.executable, "-m", "refind_cli", "--home", str(home), "import", "--tz", "UTC", str(export)],
        env,
        stop_mb,
        # In the tree's folder: ``python -m`` puts the working folder before PYTHONPATH.
        tree,
    )
    from refind_cli.storage.archive import Archive

    messages = 0
    if not imported["stopped"]:
        with Archive.open(home) as archive:
            messages = archive.counts()["messages"]
    shutil.rmtree(home, ignore_errors=True)
    return {"format": fmt, "messages": messages, "mb": _size(export) / 1e6, "import": imported, "peer": plain}


def _ratio(figure: float, peer: float) -> str:
    # On tiny test inputs a peer may end before a sample or a clock tick: no ratio rather than a division by 0.
    return f"{figure / peer:.1f}x" if peer else "n/a"


def row(r: dict) -> str:
    i, p = r["import"], r["peer"]
    over = "over " if i.get("stopped") else ""  # stopped there: its wall and CPU are up to then
    return (
        f"| {r['format']} | {r['messages']:,} | {r['mb']:.0f} | {i['wall']:.1f} | {i['cpu']:.1f} | "
        f"{over}{i['peak']:.0f} | {p['wall']:.1f} | {p['cpu']:.1f} | {p['peak']:.0f} | {_ratio(i['cpu'], p['cpu'])} | "
        f"{_ratio(i['peak'], p['peak'])} | {i['load']:.1f} |"
    )


HEADER = (
    "| format | messages stored | export MB | import wall s | import CPU s | import peak RSS MB | peer wall s |"
    " peer CPU s | peer peak RSS MB | CPU / peer | RSS / peer | load |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    parser.add_argument("--keep", action="store_true", help="keep the generated exports, and reuse them")
    parser.add_argument("--tree", type=Path, help="another tree's refind_cli (e.g. a git archive of main)")
    parser.add_argument("--stop-mb", type=int, help="stop an import whose memory passes this many MB")
    parser.add_argument("--peer", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.peer is not None:
        peer(args.peer)
        return
    work = args.workdir / "format-memory"
    print(HEADER, flush=True)
    for fmt in args.formats:
        r = survey(fmt, args.messages, work, args.keep, args.tree, args.stop_mb)
        print(row(r), flush=True)
        with (work / "figures.jsonl").open("a") as fh:
            fh.write(json.dumps({**r, "n": args.messages, "at": time.time()}) + "\n")


if __name__ == "__main__":
    main()
