"""Issue 24, item 4 (sessions 10, 13, 14, 15): the peak RSS of importing one huge message, in the writing process
and in its worker, for the release before (``--base``) and this checkout, rounds interleaved with the import of
a one-line chat and of a chat as large of one-line messages (the baselines) in the same run.

    git archive main | tar -x -C /tmp/huge-base
    python bench/huge_import_figures.py --base /tmp/huge-base [--mb 50] [--rounds 2] [--only NAME ...]

The inputs: a one-line chat; a WhatsApp chat of ``--lines-mb`` MB of one-line messages (read by the worker);
WhatsApp and LINE chats whose last message is the huge one; the huge message between two short ones (the
worker reads on past it); the huge message as a pasted log of short lines in each line log (LINE, KakaoTalk,
signal-export, signalbackup-tools); a KakaoTalk CSV and a sigtop export whose message is one line or short
lines; a Discord data package's messages.csv likewise, and a KakaoTalk CSV message of 1 MB; the readers
that still hold such a message whole (``LEFT``, when named by ``--only``), each beside the same sample with a
1 KB message (session 15; Instagram's JSON, session 16). Each import runs in a fresh child
(``IMPORT_CHILD``: the importing process's VmHWM, and its worker's sampled every 20 ms) with ``PYTHONPATH``
set to the checkout it measures, into a fresh home; the worker is used for the huge inputs (over 4 MB), not
for the one-line chat.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_figures import MB, ROOT, measure_import
from huge_commands_figures import discord_package

WORDS = "all work and no play makes jack a dull boy "
# Session 15: the readers that held one huge message whole (sigtop's edited message and Meta's JSON hold it
# in a file since session 17), from a sample export with one message's text replaced (name: sample file, the
# text as written there, how a text of words is written in its place).
LEFT: dict[str, tuple[str, str, Callable[[str], str]]] = {
    "SMS XML": ("sms-20261004213000.xml", "Your code is 481516. Never share it.", str),  # a later row
    "SMS XML, first": ("sms-20261004213000.xml", "Can I borrow the big pot on Saturday?", str),
    "iMessage TXT": (
        "Priya Nair.txt",
        "The cake is in the office fridge, top shelf 🎂 don't tell anyone",
        str,
    ),
    "iMessage TXT, lines": (  # session 16: the message as a pasted log, lines of ~44 characters
        "Priya Nair.txt",
        "The cake is in the office fridge, top shelf 🎂 don't tell anyone",
        lambda text: text.replace("boy ", "boy\n"),
    ),
    "iMessage HTML": ("Lars Lindqvist.html", "The tomatoes are finally red 🍅 eleven today", str),
    "iMessage HTML, lines": (  # session 17: the message as a pasted log
        "Lars Lindqvist.html",
        "The tomatoes are finally red 🍅 eleven today",
        lambda text: text.replace("boy ", "boy\n"),
    ),
    "Hangouts JSON": ("Hangouts.json", "Is the flat in Weserstraße yours now?", str),
    "sigtop, edited": (
        "Noah Weber.txt",
        "| we're out of chairs 😅 can you bring three?",
        lambda text: "| " + text,
    ),
    "sigtop, quoted": ("Noah Weber.txt", "> From: Noah Weber (+4915209876543)", lambda text: "> " + text),
    # Session 18: the newest version's body as a pasted log, its lines written "|"-prefixed.
    "sigtop, edited, lines": (
        "Noah Weber.txt",
        "| we're out of chairs 😅 can you bring three?",
        lambda text: "| " + text.replace("boy ", "boy\n| "),
    ),
    # Session 16: Meta's exports are JSON only (no HTML reader): one message_N.json read whole.
    "Instagram JSON": (
        "instagram-maya.lindqvist-2026-10-05/your_instagram_activity/messages/inbox/"
        "kasia.wisniewska_17842938475610293/message_1.json",
        "umowa! (deal!)",
        str,
    ),
}


def inputs(folder: Path, megabytes: int, only: list[str], lines_mb: int) -> dict[str, Path]:
    body = WORDS * (megabytes * MB // len(WORDS))
    short = "".join(f"01/02/2024, 11:{i % 60:02d} - Ann: {WORDS}{i}\n" for i in range(1000))
    line_head = (
        "[LINE] Chat history with Jack\nSaved on: 2024/02/01 12:00\n\n2024/02/01(Thu)\n10:59\tAnn\thi\n"
    )
    texts = {
        "one line": ("wa", "01/02/2024, 10:59 - Ann: hi\n"),
        f"{lines_mb} MB of lines": ("wa", short * max(1, lines_mb * MB // len(short))),
        f"{megabytes} MB, last": ("wa", f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n"),
        f"{megabytes} MB, between": (
            "wa",
            f"01/02/2024, 10:59 - Ann: hi\n01/02/2024, 11:00 - Jack: {body}\n01/02/2024, 11:01 - Ann: ok\n",
        ),
        f"LINE {megabytes} MB, last": ("line", f"{line_head}11:00\tJack\t{body}\n"),
        f"LINE {megabytes} MB, between": ("line", f"{line_head}11:00\tJack\t{body}\n11:01\tAnn\tok\n"),
    }
    # Session 14: the message as a pasted log (short lines) in each line log, and in the record-based readers
    # (a KakaoTalk CSV, sigtop) as one line and as short lines.
    pasted = "\n".join(f"{WORDS}{i}" for i in range(megabytes * MB // (len(WORDS) + 7)))
    kakao_head = "KakaoTalk Chats with Jack\nDate Saved : May 29, 2018, 9:46 AM\n\nMonday, May 28, 2018\n"
    sigtop = "\n".join(
        f"From: {who}\nType: incoming\nSent: Mon, 28 May 2018 10:{i:02d}:00 +0000\n\n{text}\n"
        for i, (who, text) in enumerate([("Ann", "hi"), ("Jack", "{}"), ("Ann", "ok")])
    )
    texts |= {
        f"LINE {megabytes} MB of lines": ("line", f'{line_head}11:00\tJack\t"{pasted}"\n11:01\tAnn\tok\n'),
        f"KakaoTalk {megabytes} MB of lines": (
            "kakao",
            f"{kakao_head}May 28, 2018, 10:00 AM, Jack : {pasted}\nMay 28, 2018, 10:01 AM, Ann : ok\n",
        ),
        f"Signal {megabytes} MB of lines": (
            "signal",
            f"[2024-02-01 10:59] Ann: hi\n[2024-02-01 11:00] Jack: {pasted}\n",
        ),
        f"signalbackup {megabytes} MB of lines": (
            "signal",
            f"[Feb 01, 2024 10:59:00] <Ann> hi\n[Feb 01, 2024 11:00:00] <Jack> {pasted}\n",
        ),
        f"KakaoTalk CSV {megabytes} MB": ("csv", f'Date,User,Message\n2024-02-01 11:00:00,"Jack","{body}"\n'),
        f"KakaoTalk CSV {megabytes} MB of lines": (
            "csv",
            f'Date,User,Message\n2024-02-01 11:00:00,"Jack","{pasted}"\n2024-02-01 11:01:00,"Ann","ok"\n',
        ),
        f"sigtop {megabytes} MB": ("sigtop", "Conversation: Jack\n\n" + sigtop.replace("{}", body)),
        f"sigtop {megabytes} MB of lines": (
            "sigtop",
            "Conversation: Jack\n\n" + sigtop.replace("{}", pasted),
        ),
    }
    # Session 15: a Discord data package's messages.csv (quoted, its quotes doubled), one line or short lines;
    # a KakaoTalk CSV message between the csv module's field limit (128K) and a spill (1.2M).
    packages = {
        "Discord CSV 1 KB": WORDS.replace("no", '"no"') * 22,  # the peer: the same file with a 1 KB message
        f"Discord CSV {megabytes} MB": WORDS.replace("no", '"no"') * (megabytes * MB // (len(WORDS) + 4)),
        f"Discord CSV {megabytes} MB of lines": pasted.replace("no", '"no"'),
    }
    texts["KakaoTalk CSV 1 MB"] = (
        "csv",
        f'Date,User,Message\n2024-02-01 11:00:00,"Jack","{WORDS * (MB // len(WORDS))}"\n',
    )
    names = {
        "wa": "WhatsApp Chat with Jack.txt",
        "line": "[LINE] Chat with Jack.txt",
        "kakao": "KakaoTalk_Chats.txt",
        "signal": "chat.md",
        "csv": "KakaoTalk_Chat_Jack.csv",
        "sigtop": "Jack.txt",
    }
    paths = {}
    for i, (name, (fmt, text)) in enumerate(texts.items()):
        if only and name not in only:
            continue
        (folder / str(i)).mkdir()
        paths[name] = folder / str(i) / names[fmt]
        paths[name].write_text(text)
    for name, text in packages.items():
        if not only or name in only:
            (folder / name).mkdir()
            paths[name] = discord_package(folder / name, text)
    for left, (sample, written, write) in LEFT.items():
        for size, text in (("1 KB", WORDS * 23), (f"{megabytes} MB", body)):
            name = f"{left}, {size}"
            if name in only:  # named only: the two trees read them alike
                original = (ROOT / "sample_exports" / sample).read_text()
                paths[name] = folder / name / sample
                paths[name].parent.mkdir(parents=True)
                paths[name].write_text(original.replace(written, write(text), 1))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="checkout of the release before")
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", action="append", default=[], help="an input's name (repeatable)")
    parser.add_argument(
        "--lines-mb", type=int, default=8, help="the chat of one-line messages (over 4: the worker)"
    )
    args = parser.parse_args()
    checkouts = {"before": args.base.resolve(), "after": ROOT}
    print(f"load average {os.getloadavg()[0]:.1f} at start")
    # "both": the two peaks added, an upper bound of the process tree's (they need not fall at one moment).
    print(f"{'input':<22} {'code':<7} {'round':>5} {'time':>8} {'importer':>9} {'worker':>7} {'both':>7}")
    with tempfile.TemporaryDirectory(prefix="refind-huge-import-") as tmp:
        paths = inputs(Path(tmp), args.mb, args.only, args.lines_mb or min(args.mb, 8))
        for r in range(1, args.rounds + 1):
            for name, path in paths.items():
                for code, source in checkouts.items():
                    home = Path(tmp) / f"home-{r}-{code}-{path.parent.name}"
                    f = measure_import(path, home, source)
                    if "crash" in f:  # an input a release refuses (main: a CSV field over 128K characters)
                        print(f"{name:<22} {code:<7} {r:>5} refused: {f['crash']}", flush=True)
                        continue
                    print(
                        f"{name:<22} {code:<7} {r:>5} {f['seconds']:>7.1f}s {f['main_mb']:>7.0f}MB"
                        f" {f['worker_mb']:>5.0f}MB {f['main_mb'] + f['worker_mb']:>5.0f}MB",
                        flush=True,
                    )
    print(f"load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
