"""Search in twenty languages (issue 21): each chat of ``tests/world_chats.py`` imported alone (its language
told from its text), its eight questions asked, and counted where the needle is among the first three hits;
the compounds' parts asked alone ("arzt") and counted where every needle holding them is among the first
three. Beside refind's analysis, the variants the issue asks to measure:

- no stemming for a language without a Snowball stemmer, or its words cut to 4, 5 or 6 letters;
- compound parts indexed or not (index size and import time of the twenty chats);
- every chat analysed as English (``--lang en``: what refind did for a language it did not list);
- a bilingual chat (German and English messages of the German chat and the English chat of
  ``tests/language_chats.py``, taking turns) with its language told per turn, or as one language.

    python bench/world_bench.py [--variants all|none]

A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from language_chats import whatsapp_export  # noqa: E402
from world_chats import ENGLISH_QUESTIONS, HELD_OUT, WORLDS, World, bilingual_chat, world_chat  # noqa: E402

from refind_cli.facade import Home  # noqa: E402
from refind_cli.operations import ImportOptions  # noqa: E402
from refind_cli.request import SearchRequest  # noqa: E402
from refind_cli.text import analysis  # noqa: E402


def found(home: Path, question: str, needles: tuple[str, ...]) -> bool:
    with Home.open(home) as h:
        hits = h.search(SearchRequest(question, k=3)).hits
    return all(any(n in hit.turn.text for hit in hits) for n in needles)


def imported(folder: Path, chat: str, lang: str | None) -> tuple[Path, float, str]:
    export = whatsapp_export(folder / "WhatsApp Chat with Family.txt", chat)
    home = folder / "home"
    t0 = time.perf_counter()
    with Home.open(home) as h:
        for result in h.import_files([export], ImportOptions(lang=lang)):
            if result.error:
                raise SystemExit(result.error)
        told = h.chats()[0].lang
    return home, time.perf_counter() - t0, told


def size(folder: Path) -> int:
    return sum(p.stat().st_size for p in (folder / "home").rglob("*") if p.is_file() and "index" in str(p))


def score(world: World, lang: str | None = None) -> tuple[int, int, str, int, float]:
    """(questions found in the top 3, compounds found, the told language, index bytes, import seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        home, took, told = imported(Path(tmp), world_chat(world), lang)
        right = sum(found(home, q, (needle,)) for needle, q, _ in world.cases)
        parts = sum(found(home, part, needles) for part, needles in world.compounds)
        return right, parts, told, size(Path(tmp)), took


@contextmanager
def configured(truncate: int | None = None, parts: int | None = None) -> Iterator[None]:
    saved = analysis.TRUNCATE, analysis.PARTS
    analysis.TRUNCATE = saved[0] if truncate is None else truncate
    analysis.PARTS = saved[1] if parts is None else parts
    analysis.analyzer_for.cache_clear()
    analysis.highlighter_for.cache_clear()
    try:
        yield
    finally:
        analysis.TRUNCATE, analysis.PARTS = saved
        analysis.analyzer_for.cache_clear()
        analysis.highlighter_for.cache_clear()


def table(
    label: str, codes: list[str], lang: str | None = None
) -> dict[str, tuple[int, int, str, int, float]]:
    rows = {code: score(WORLDS[code], lang) for code in codes}
    cells = " ".join(f"{code}{'*' if code in HELD_OUT else ''} {r[0]}" for code, r in rows.items())
    total = sum(r[0] for r in rows.values())
    print(f"{label:<34} {total:>3}/{8 * len(rows)}  {cells}")
    return rows


def bilingual() -> None:
    from language_chats import ENGLISH_CHAT

    chat = bilingual_chat(ENGLISH_CHAT)
    questions = [(needle, q) for needle, q, _ in WORLDS["de"].cases] + list(ENGLISH_QUESTIONS)
    for label, lang in (
        ("told per turn (refind)", None),
        ("as German only", "de"),
        ("as English only", "en"),
    ):
        with tempfile.TemporaryDirectory() as tmp:
            home, _, told = imported(Path(tmp), chat, lang)
            right = [found(home, q, (needle,)) for needle, q in questions]
            print(
                f"bilingual chat, {label:<24} told {told:<6} German {sum(right[:8])}/8, English"
                f" {sum(right[8:])}/{len(right) - 8}"
            )


def costs(rows: dict[str, tuple[int, int, str, int, float]]) -> None:
    """What the compounds found, and the index size and import time of the twenty chats."""
    print(
        "compounds found: "
        + ", ".join(f"{c} {r[1]}/{len(WORLDS[c].compounds)}" for c, r in rows.items() if WORLDS[c].compounds)
    )
    kb = sum(r[3] for r in rows.values()) / 1024
    secs = sum(r[4] for r in rows.values())
    print(f"index {kb:,.0f} KB, import {secs:.2f} s (the twenty chats)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variants", choices=("all", "none"), default="all")
    ap.add_argument("--languages", help="only these chats, e.g. de,uk (default: all twenty)")
    args = ap.parse_args()
    codes = args.languages.split(",") if args.languages else list(WORLDS)
    rows = table("refind", codes)
    print("told: " + ", ".join(f"{code}>{r[2]}" for code, r in rows.items() if r[2] != code))
    costs(rows)
    if args.variants == "none":
        return
    no_snowball = [c for c in codes if analysis.stemmer_name(c) is None]
    for n in (0, 4, 5, 6):
        with configured(truncate=n):
            table(f"no Snowball stemmer: cut to {n or 'no'} letters", no_snowball)
    with configured(parts=0):
        rows = table("no compound parts", codes)
    costs(rows)
    with configured(parts=5):
        table("compound parts of 5 letters", codes)
    table("every chat as English (--lang en)", codes, "en")
    bilingual()


if __name__ == "__main__":
    main()
