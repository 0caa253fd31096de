"""Messenger import benchmark: a generated Messenger export of N messages (default 100,000, in files of
10,000 as Meta writes them, every string mojibake) beside a WhatsApp export of as many messages
(``import_bench.generate``), each read alone and imported end to end (`refind import`: parse, archive,
index), every phase in a fresh process; peak RSS is of the process and its import worker together.

    python bench/meta_bench.py [--messages 100000] [--workdir bench/out]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from import_bench import SENDERS, WORDS, format_child, generate, run_format_phase

PER_FILE = 10_000
# A share of the words with letters outside ASCII, so that most messages need their mojibake repaired.
ACCENTED = "caf\u00e9 gr\u00fc\u00df dzi\u0119kuj\u0119 cze\u015b\u0107 \u00f3timo anfitri\u00e3 \U0001f602 \u2764\ufe0f".split()


def mojibake(text: str) -> str:
    return text.encode("utf-8").decode("latin-1")


def generate_messenger(root: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    words = WORDS + ACCENTED
    weights = [1 / (i + 1) for i in range(len(WORDS))] + [0.05] * len(ACCENTED)
    thread = root / "your_facebook_activity" / "messages" / "inbox" / "bench_10150000000000000"
    thread.mkdir(parents=True)
    people = [mojibake(s.strip("\u202a\u202c")) for s in SENDERS[:3]] + [mojibake("Kasia Wi\u015bniewska")]
    t = 1_546_329_600_000  # 2019-01-01
    messages = []
    sender = people[0]
    for i in range(n):
        t += rng.choice((10, 30, 60, 120, 600, 3600 * 5)) * 1000 + rng.randrange(1000)
        if rng.random() < 0.45:
            sender = rng.choice(people)
        obj: dict = {"sender_name": sender, "timestamp_ms": t}
        if i % 500 == 0:
            obj["photos"] = [
                {"uri": f"{thread.relative_to(root)}/photos/{i}.jpg", "creation_timestamp": t // 1000}
            ]
        else:
            obj["content"] = mojibake(" ".join(rng.choices(words, weights, k=rng.randint(2, 18))))
        if i % 37 == 0:
            obj["reactions"] = [{"reaction": mojibake("\u2764"), "actor": rng.choice(people)}]
        obj["is_geoblocked_for_viewer"] = False
        obj["is_unsent_image_by_messenger_kid_parent"] = False
        messages.append(obj)
    newest_first = messages[::-1]
    for number, start in enumerate(range(0, n, PER_FILE), start=1):
        data = {
            "participants": [{"name": p} for p in people],
            "messages": newest_first[start : start + PER_FILE],
            "title": "Bench",
            "is_still_participant": True,
            "thread_path": "inbox/bench_10150000000000000",
            "magic_words": [],
        }
        (thread / f"message_{number}.json").write_text(json.dumps(data, indent=2), encoding="ascii")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--workdir", type=Path, default=Path(__file__).parent / "out")
    parser.add_argument("--child")
    parser.add_argument("--export", type=Path)
    parser.add_argument("--home", type=Path)
    parser.add_argument("--format")
    args = parser.parse_args()
    if args.child:
        format_child(args.child, args.format, args.export, args.home)
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    messenger = args.workdir / f"facebook-bench-{args.messages}"
    whatsapp = args.workdir / f"WhatsApp Chat with Bench {args.messages}.txt"
    if not messenger.exists():
        generate_messenger(messenger, args.messages)
    if not whatsapp.exists():
        generate(whatsapp, args.messages)
    for fmt, export in (("messenger", messenger), ("whatsapp", whatsapp)):
        for phase in ("parse", "e2e"):
            r = run_format_phase(__file__, phase, fmt, export, args.workdir / f"home-meta-{fmt}-{phase}")
            print(
                f"{fmt:<10} {phase:<6} {r['messages']:>8,} messages {r['messages'] / r['seconds']:>9,.0f} msg/s"
                f" {r['seconds']:>6.1f} s {r['rss_mb']:>6.0f} MB peak RSS",
                flush=True,
            )


if __name__ == "__main__":
    main()
