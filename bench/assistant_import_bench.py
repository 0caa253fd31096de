"""Import benchmark of a generated ChatGPT export beside WhatsApp's, in the same run on the same machine.

A ChatGPT ``conversations.json`` of N messages (default 100,000; conversations of 20 messages, each node shaped
like the app's, with metadata) and a WhatsApp text export of as many messages (import_bench.generate). For
each: parsing alone (the importer's read) and end to end (`refind import`: parse, archive and index), as
messages/s and peak RSS, every phase in a fresh process (sampled with import_bench.PeakSampler, so an import
worker process counts). ``--stream-mb`` also parses a ChatGPT file of about that many MB, to show that
reading it takes the same memory as a small one.

    python bench/assistant_import_bench.py [--messages 100000] [--stream-mb 300] [--workdir bench/out]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
# ruff: noqa: E402  (the imports below need the path above)

from import_bench import WORDS, format_child, run_format_phase
from import_bench import generate as generate_whatsapp

PER_CONVERSATION = 20


def generate_chatgpt(path: Path, n: int, seed: int = 7) -> None:
    """A conversations.json of ``n`` messages, written one conversation at a time."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(WORDS))]
    t = 1.6e9
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[")
        for c in range((n + PER_CONVERSATION - 1) // PER_CONVERSATION):
            cid = f"6a1b{c:08x}-0000-4000-8000-{c:012x}"
            root = f"{cid}-root"
            mapping: dict = {root: {"id": root, "message": None, "parent": None, "children": []}}
            parent, start = root, t
            for i in range(min(PER_CONVERSATION, n - c * PER_CONVERSATION)):
                nid = f"{cid}-{i:04d}"
                role = "user" if i % 2 == 0 else "assistant"
                t += rng.choice((5, 20, 60, 600, 3600 * 20))
                words = rng.choices(WORDS, weights, k=rng.randint(4, 25) * (1 if role == "user" else 4))
                mapping[nid] = {
                    "id": nid,
                    "message": {
                        "id": nid,
                        "author": {"role": role, "name": None, "metadata": {}},
                        "create_time": round(t + rng.random(), 6),
                        "update_time": None,
                        "content": {"content_type": "text", "parts": [" ".join(words)]},
                        "status": "finished_successfully",
                        "end_turn": role == "assistant" or None,
                        "weight": 1.0,
                        "metadata": {
                            "model_slug": "gpt-4o",
                            "request_id": f"{c:x}{i:x}",
                            "timestamp_": "absolute",
                        }
                        if role == "assistant"
                        else {"request_id": f"{c:x}{i:x}"},
                        "recipient": "all",
                        "channel": None,
                    },
                    "parent": parent,
                    "children": [],
                }
                mapping[parent]["children"].append(nid)
                parent = nid
            conv = {
                "title": " ".join(rng.choices(WORDS, weights, k=4)),
                "create_time": start,
                "update_time": t,
                "mapping": mapping,
                "moderation_results": [],
                "current_node": parent,
                "conversation_id": cid,
                "default_model_slug": "gpt-4o",
                "id": cid,
            }
            fh.write(("," if c else "") + json.dumps(conv, ensure_ascii=False))
        fh.write("]")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--stream-mb", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=HERE / "out")
    parser.add_argument("--child")
    parser.add_argument("--format")
    parser.add_argument("--export", type=Path)
    parser.add_argument("--home", type=Path)
    args = parser.parse_args()
    if args.child:
        format_child(args.child, args.format, args.export, args.home)
        return
    work = args.workdir
    work.mkdir(parents=True, exist_ok=True)
    exports = {
        "chatgpt": work / f"chatgpt-{args.messages}" / "conversations.json",
        "whatsapp": work / f"WhatsApp Chat with Bench {args.messages}.txt",
    }
    exports["chatgpt"].parent.mkdir(exist_ok=True)
    for fmt, export in exports.items():
        if not export.exists():
            (generate_chatgpt if fmt == "chatgpt" else generate_whatsapp)(export, args.messages)
        print(f"{fmt}: {export.name}, {export.stat().st_size / 1e6:.0f} MB, {args.messages:,} messages")
    for fmt, export in exports.items():
        for phase in ("parse", "e2e"):
            r = run_format_phase(__file__, phase, fmt, export, work / f"home-{fmt}-{phase}")
            print(
                f"{fmt:<9} {phase:<6} {r['messages'] / r['seconds']:>10,.0f} msg/s {r['seconds']:>7.1f} s "
                f"{r['rss_mb']:>6.0f} MB peak RSS"
            )
    if args.stream_mb:
        big = work / f"chatgpt-{args.stream_mb}mb" / "conversations.json"
        big.parent.mkdir(exist_ok=True)
        if not big.exists():
            # About 800 bytes of JSON a message in the generated shape.
            generate_chatgpt(big, args.stream_mb * 1_000_000 // 800)
        r = run_format_phase(__file__, "parse", "chatgpt", big, work / "home-stream")
        print(
            f"chatgpt parse of {big.stat().st_size / 1e6:.0f} MB: {r['messages']:,} messages, "
            f"{r['messages'] / r['seconds']:,.0f} msg/s, {r['rss_mb']:.0f} MB peak RSS"
        )


if __name__ == "__main__":
    main()
