"""Does this tree's language telling give what an older tree's gave, on chats nobody tuned it on?

The chats of the language tests (tests/language_chats.py, tests/world_chats.py: 25 languages in 7 scripts, and
a German-English couple) and random mixtures of two of them (a second language at 10-50 % of the first's
messages, a fifth of them with 1-4 pasted texts of 1,000-60,000 symbols and no word), latest first as an
import reads them; each told by the older ``refind_cli/text/language.py`` given and by this tree's, in the
same run. Prints how many chats, how many were told otherwise (and the first few), and each tree's CPU
seconds. A change meant to leave the answers as they were (a faster ``detect``) must print 0.

    git show REV:refind_cli/text/language.py > /tmp/language_before.py
    python bench/detect_equivalence.py --before /tmp/language_before.py [--mixtures 600] [--seed 7]

This is a script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from language_chats import ENGLISH_CHAT, LANGUAGES  # noqa: E402
from world_chats import WORLDS, bilingual_chat, world_chat  # noqa: E402

from refind_cli.text import language  # noqa: E402


def texts(chat: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in chat.splitlines() if ": " in line]


def cases(mixtures: int, seed: int) -> list[tuple[str, list[str]]]:
    chats = {code: texts(lang.chat) for code, lang in LANGUAGES.items()}
    chats.update({code: texts(world_chat(w)) for code, w in WORLDS.items()})
    chats["en"] = texts(ENGLISH_CHAT)
    chats["de+en"] = texts(bilingual_chat(ENGLISH_CHAT))
    rnd = random.Random(seed)
    found = list(chats.items())
    codes = sorted(chats)
    for _ in range(mixtures):
        a, b = rnd.sample(codes, 2)
        share = rnd.choice([0.1, 0.2, 0.3, 0.5])
        n = rnd.randint(5, 120)
        mix = [rnd.choice(chats[a]) for _ in range(n)] + [rnd.choice(chats[b]) for _ in range(int(n * share))]
        rnd.shuffle(mix)
        if rnd.random() < 0.2:
            at = rnd.randrange(len(mix) + 1)
            mix[at:at] = ["!" * rnd.randint(1_000, 60_000)] * rnd.randint(1, 4)
        found.append((f"{a} with {b} at {share}", mix))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, required=True, help="an older refind_cli/text/language.py")
    parser.add_argument("--mixtures", type=int, default=600)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("language_before", args.before)
    assert spec is not None and spec.loader is not None
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    told = cases(args.mixtures, args.seed)
    other: list[tuple[str, str, str]] = []
    cpu = {"before": 0.0, "this tree": 0.0}
    for name, chat in told:
        start = time.process_time()
        was = before.detect(chat)
        cpu["before"] += time.process_time() - start
        start = time.process_time()
        now = language.detect(chat)
        cpu["this tree"] += time.process_time() - start
        if was != now:
            other.append((name, was, now))
    print(f"{len(told)} chats told by both trees; told otherwise: {len(other)} {other[:5]}")
    print(f"CPU: before {cpu['before']:.2f} s, this tree {cpu['this tree']:.2f} s")


if __name__ == "__main__":
    main()
