"""Import benchmark of a generated Hangouts.json and Gemini activity beside WhatsApp's, in the same run.

A Takeout ``Hangouts.json`` of N events (default 100,000; conversations of 500 events shaped like Takeout's,
segments and all), a Gemini ``MyActivity.json`` of N/2 entries (a prompt and its HTML reply each: N
messages) and a WhatsApp text export of N messages (import_bench.generate). For each: parsing alone (the
importer's read) and end to end (`refind import`: parse, archive and index), as messages/s and peak RSS,
every phase in a fresh process (import_bench.PeakSampler).

    python bench/google_import_bench.py [--messages 100000] [--workdir bench/out]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
# ruff: noqa: E402  (the imports below need the path above)

from import_bench import WORDS, format_child, run_format_phase
from import_bench import generate as generate_whatsapp

PER_CONVERSATION = 500
START_US = 1_400_000_000 * 1_000_000


def generate_hangouts(path: Path, n: int, seed: int = 7) -> None:
    """A Hangouts.json of ``n`` chat events, written one conversation at a time."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(WORDS))]
    t = START_US
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"conversations": [')
        for c in range((n + PER_CONVERSATION - 1) // PER_CONVERSATION):
            cid = f"Ugw{c:010d}AaABAQ"
            people = [str(100 + c), str(200 + c)]
            conv = {
                "conversation_id": {"id": cid},
                "conversation": {
                    "id": {"id": cid},
                    "type": "STICKY_ONE_TO_ONE",
                    "self_conversation_state": {
                        "self_read_state": {"participant_id": {"gaia_id": people[0]}}
                    },
                    "participant_data": [
                        {"id": {"gaia_id": g, "chat_id": g}, "fallback_name": f"Person {g}"} for g in people
                    ],
                },
            }
            events = []
            for i in range(min(PER_CONVERSATION, n - c * PER_CONVERSATION)):
                t += rng.choice((5, 20, 60, 600, 3600 * 20)) * 1_000_000
                words = rng.choices(WORDS, weights, k=rng.randint(3, 25))
                half = len(words) // 2
                segments = [
                    {"type": "TEXT", "text": " ".join(words[:half])},
                    {"type": "LINE_BREAK", "text": "\n"},
                    {"type": "TEXT", "text": " ".join(words[half:])},
                ]
                sender = people[i % 2]
                events.append(
                    {
                        "conversation_id": {"id": cid},
                        "sender_id": {"gaia_id": sender, "chat_id": sender},
                        "timestamp": str(t),
                        "self_event_state": {"user_id": {"gaia_id": people[0]}, "notification_level": "RING"},
                        "chat_message": {"message_content": {"segment": segments}},
                        "event_id": f"{cid}-{i:05d}",
                        "advances_sort_timestamp": True,
                        "event_otr": "ON_THE_RECORD",
                        "delivery_medium": {"medium_type": "BABEL_MEDIUM"},
                        "event_type": "REGULAR_CHAT_MESSAGE",
                    }
                )
            fh.write(("," if c else "") + json.dumps({"conversation": conv, "events": events}))
        fh.write("]}")


def generate_gemini(path: Path, n: int, seed: int = 7) -> None:
    """A MyActivity.json of ``n // 2`` prompts with their HTML replies, newest first as Takeout writes it."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(WORDS))]
    t = START_US // 1_000_000
    entries = []
    for _ in range(n // 2):
        t += rng.choice((20, 60, 300, 3600 * 5, 3600 * 30))
        prompt = " ".join(rng.choices(WORDS, weights, k=rng.randint(4, 25)))
        reply = "".join(
            f"<p>{' '.join(rng.choices(WORDS, weights, k=20))}</p>" for _ in range(rng.randint(1, 4))
        )
        entries.append(
            {
                "header": "Gemini Apps",
                "title": f"Prompted {prompt}",
                "time": f"{datetime.fromtimestamp(t, UTC):%Y-%m-%dT%H:%M:%S}.000Z",
                "products": ["Gemini Apps"],
                "activityControls": ["Gemini Apps Activity"],
                "safeHtmlItem": [{"html": reply}],
            }
        )
    path.write_text(json.dumps(entries[::-1]), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=100_000)
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
        "hangouts": (work / f"hangouts-{args.messages}.json", generate_hangouts),
        "gemini": (work / f"gemini-{args.messages}" / "MyActivity.json", generate_gemini),
        "whatsapp": (work / f"WhatsApp Chat with Bench {args.messages}.txt", generate_whatsapp),
    }
    for fmt, (export, generate) in exports.items():
        export.parent.mkdir(parents=True, exist_ok=True)
        if not export.exists():
            generate(export, args.messages)
        print(f"{fmt}: {export.name}, {export.stat().st_size / 1e6:.0f} MB, {args.messages:,} messages")
    figures = {}
    for fmt, (export, _) in exports.items():
        for phase in ("parse", "e2e"):
            r = run_format_phase(__file__, phase, fmt, export, work / f"home-{fmt}-{phase}")
            figures[(fmt, phase)] = r
            print(
                f"{fmt:<9} {phase:<6} {r['messages'] / r['seconds']:>10,.0f} msg/s {r['seconds']:>7.1f} s "
                f"{r['rss_mb']:>6.0f} MB peak RSS",
                flush=True,
            )
    for fmt in ("hangouts", "gemini"):
        for phase in ("parse", "e2e"):
            mine, peer = figures[(fmt, phase)], figures[("whatsapp", phase)]
            ratio = (mine["messages"] / mine["seconds"]) / (peer["messages"] / peer["seconds"])
            print(f"{fmt} / whatsapp {phase}: {ratio:.2f}x the messages per second")


if __name__ == "__main__":
    main()
