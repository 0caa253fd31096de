"""Languages (issue 14): how well a chat's language is told, and how a query should meet chats in several.

Part 1, the language identifier (``refind_cli.language.detect``) beside py3langid (langid.py's model, 4.5 MB,
restricted to the same nine languages): accuracy on windows of consecutive messages of each test chat (the
eight native chats of ``tests/language_chats.py``, its English chat and a LoCoMo conversation), on each whole
chat, and on each foreign chat with every third message replaced by an English one (it should stay its own
language); and the time to tell one chat from its 3,000-word sample.

Part 2, queries over an archive holding all those chats at once (a German, a Spanish, ..., and two English
chats), each native query's answer rank under four ways of analysing the query:
- "per language": each language's analysis matches only its chats, matches merged by score, and the words
  that are stop words of the query's own language dropped from every analysis (what refind does);
- "per language, no query language": the same without dropping the query's function words;
- "one query": the union of every language's terms as one query over all chats;
- "English for all": every chat imported with --lang en (refind before issue 14).

    python bench/language_bench.py [--locomo ../shared/data/locomo_dev5.json]

A script that prints figures, not a test. LoCoMo is read from where it lies, never copied.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from language_chats import ENGLISH_CASE, ENGLISH_CHAT, LANGUAGES, Case, whatsapp_export  # noqa: E402

from refind_cli import language, search  # noqa: E402
from refind_cli.analysis import Analyzer  # noqa: E402
from refind_cli.facade import Home  # noqa: E402
from refind_cli.request import ImportOptions, SearchRequest  # noqa: E402

NINE = list(language.LANGUAGES)


def locomo_messages(path: Path) -> list[str]:
    """The first LoCoMo conversation's messages, in order."""
    conv = json.loads(path.read_text(encoding="utf-8"))[0]["conversation"]
    sessions = sorted(
        (int(k.split("_")[1]), v) for k, v in conv.items() if k.startswith("session_") and isinstance(v, list)
    )
    return [turn["text"] for _, turns in sessions for turn in turns]


def chat_messages(chat: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in chat.splitlines() if line.strip()]


def windows(messages: Sequence[str], words: int) -> Iterator[str]:
    """Consecutive messages joined until they hold at least ``words`` words; one window after another."""
    held: list[str] = []
    count = 0
    for message in messages:
        held.append(message)
        count += len(message.split())
        if count >= words:
            yield "\n".join(held)
            held, count = [], 0


def peer() -> Callable[[str], str] | None:
    try:
        import py3langid.langid as langid
    except ImportError:
        return None
    langid.set_languages(NINE)
    return lambda text: langid.classify(text)[0]


def identifier_part(locomo: Path | None) -> None:
    chats = {code: chat_messages(lang.chat) for code, lang in LANGUAGES.items()}
    english = chat_messages(ENGLISH_CHAT) + (locomo_messages(locomo) if locomo else [])
    chats["en"] = english
    theirs = peer()
    print("Part 1: telling a chat's language (accuracy; refind abstains as 'und' below 40 words;")
    print("'decided': its accuracy where it did not abstain)")
    print(f"{'text':<34} {'samples':>7} {'refind':>8} {'und':>5} {'decided':>8} {'py3langid':>10}")
    for size in (10, 20, 40, 80, 160):
        samples = [(code, w) for code, msgs in chats.items() for w in windows(msgs, size)]
        ours = [language.detect([w]) for _, w in samples]
        right = sum(o == code for o, (code, _) in zip(ours, samples, strict=True))
        und = sum(o == language.UNDETERMINED for o in ours)
        peer_right = sum(theirs(w) == code for code, w in samples) if theirs else None
        decided = f"{right / (len(samples) - und):.3f}" if und < len(samples) else ""
        print(
            f"{f'windows of >= {size} words':<34} {len(samples):>7} {right / len(samples):>8.3f} {und:>5}"
            f" {decided:>8} {'' if peer_right is None else f'{peer_right / len(samples):.3f}':>10}"
        )
    whole = [(code, "\n".join(msgs)) for code, msgs in chats.items()]
    mixed = [
        (code, "\n".join(english[i] if i % 3 == 2 else m for i, m in enumerate(msgs)))
        for code, msgs in chats.items()
        if code != "en"
    ]
    for label, samples in (("whole chats", whole), ("a third of the messages English", mixed)):
        right = sum(language.detect([t]) == code for code, t in samples)
        peer_right = sum(theirs(t) == code for code, t in samples) if theirs else None
        print(
            f"{label:<34} {len(samples):>7} {right / len(samples):>8.3f} {'':>5} {'':>8}"
            f" {'' if peer_right is None else f'{peer_right / len(samples):.3f}':>10}"
        )
    sample = "\n".join(english)
    runs = []
    for _ in range(20):
        t0 = time.perf_counter()
        language.detect([sample])
        runs.append(time.perf_counter() - t0)
    print(f"refind: {statistics.median(runs) * 1000:.2f} ms a chat (3,000-word sample), no model to load")
    if theirs:
        t0 = time.perf_counter()
        theirs(sample[:20_000])
        print(
            f"py3langid: {(time.perf_counter() - t0) * 1000:.2f} ms for the same text, after its model loaded"
        )


def build(home: Path, folder: Path, locomo: Path | None, lang: str | None) -> None:
    exports = [
        whatsapp_export(folder / f"WhatsApp Chat with {code}.txt", c.chat) for code, c in LANGUAGES.items()
    ]
    exports.append(whatsapp_export(folder / "WhatsApp Chat with English.txt", ENGLISH_CHAT))
    if locomo:
        # A day a session of 20 messages, two minutes apart.
        start = datetime(2023, 1, 1, 18, 0)
        lines = [
            f"{start + timedelta(days=i // 20, minutes=2 * (i % 20)):%d.%m.%y, %H:%M} - Caroline: {text}\n"
            for i, text in enumerate(m for m in locomo_messages(locomo) if "\n" not in m)
        ]
        path = folder / "WhatsApp Chat with LoCoMo.txt"
        path.write_text("".join(lines), encoding="utf-8")
        exports.append(path)
    with Home.open(home) as h:
        for result in h.import_files(exports, ImportOptions(lang=lang)):
            if result.error:
                raise SystemExit(result.error)


class UnionAnalyzer(Analyzer):
    """Every language's terms of a text, as one query."""

    def __init__(self, analyzers: Sequence[Analyzer]) -> None:
        super().__init__((), name="union")
        self.analyzers = analyzers

    def analyze(self, text: str, drop: Any = ()) -> list[str]:
        return list(dict.fromkeys(t for a in self.analyzers for t in a.analyze(text)))


def ranks(home: Path, cases: Sequence[Case]) -> list[int | None]:
    """The rank of each case's answer among the first ten hits (None: not there)."""
    out: list[int | None] = []
    with Home.open(home) as h:
        for case in cases:
            hits = h.search(SearchRequest(case.query, k=10)).hits
            out.append(next((i for i, hit in enumerate(hits, 1) if case.answer in hit.turn.text), None))
    return out


def summary(found: Sequence[int | None]) -> str:
    first = sum(r == 1 for r in found) / len(found)
    mrr = sum(1 / r for r in found if r) / len(found)
    return f"{first:>6.3f} {mrr:>6.3f}"


def query_part(locomo: Path | None) -> None:
    native = [case for lang in LANGUAGES.values() for case in lang.cases]
    cases = [*native, ENGLISH_CASE]
    work = Path(tempfile.mkdtemp(prefix="refind-langbench-"))
    build(work / "home", work, locomo, None)
    build(work / "home-en", work, locomo, "en")
    print(f"\nPart 2: {len(native)} native queries and 1 English one over one archive of all the chats")
    print(f"{'way':<36} {'first':>6} {'MRR':>6}   native only: first, MRR")
    groups = search.language_groups
    stopwords = search.query_language_stopwords

    def row(label: str, home: Path) -> None:
        found = ranks(home, cases)
        print(f"{label:<36} {summary(found)}   {summary(found[: len(native)])}")

    row("per language (refind)", work / "home")
    search.query_language_stopwords = lambda query, analyzers: frozenset()
    row("per language, no query language", work / "home")
    search.query_language_stopwords = stopwords

    def union(archive: Any, index: Any, chats: Any) -> list:
        return [(UnionAnalyzer([a for a, _ in groups(archive, index, chats)]), chats)]

    search.language_groups = union
    row("one query, every language's terms", work / "home")
    search.language_groups = groups
    row("English for all (before)", work / "home-en")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = ROOT.parent / "shared" / "data" / "locomo_dev5.json"
    ap.add_argument("--locomo", type=Path, default=default if default.exists() else None)
    args = ap.parse_args()
    identifier_part(args.locomo)
    query_part(args.locomo)


if __name__ == "__main__":
    main()
