"""Languages (issue 14): how a query should meet chats in several languages. (Telling a chat's language was
part 1 here; issue 21 replaced the identifier, and bench/language_identifiers.py compares the candidates.)

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
import sys
import tempfile
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from language_chats import ENGLISH_CASE, ENGLISH_CHAT, LANGUAGES, Case, whatsapp_export  # noqa: E402

from refind_cli.facade import Home  # noqa: E402
from refind_cli.method import search  # noqa: E402
from refind_cli.operations import ImportOptions  # noqa: E402
from refind_cli.request import SearchRequest  # noqa: E402
from refind_cli.text.analysis import Analyzer  # noqa: E402


def locomo_messages(path: Path) -> list[str]:
    """The first LoCoMo conversation's messages, in order."""
    conv = json.loads(path.read_text(encoding="utf-8"))[0]["conversation"]
    sessions = sorted(
        (int(k.split("_")[1]), v) for k, v in conv.items() if k.startswith("session_") and isinstance(v, list)
    )
    return [turn["text"] for _, turns in sessions for turn in turns]


def chat_messages(chat: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in chat.splitlines() if line.strip()]


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
    query_part(args.locomo)


if __name__ == "__main__":
    main()
