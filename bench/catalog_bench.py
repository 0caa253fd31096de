"""Search in the languages of Django's translation catalogs (session 13): every language's chat of
``tests/catalog_chats.py`` written as a WhatsApp export, imported by ``refind import`` (each chat's language
told from its text, as an import does), and each needle searched for by ``refind search - --chat NAME -k 3
--jsonl`` in every form a person would type it; found when its message is among the three hits. The
command line end to end, as a user (or a test nobody here wrote) runs it.

    python bench/catalog_bench.py [--tree DIR] [--catalog core|admin|system-tune|system-held] [--mixed]
        [--any-word] [--misses] [--langs pl,ko]

``--catalog admin`` is the held-out probe (other sentences of the same languages); ``--catalog system-tune``
and ``system-held`` the two halves of the machine's own GNU and GNOME catalogs (``tests/system_catalog_chats.py``,
session 14: other sentences, more languages; ``--mixed`` reads Django's English, so it is left out there). ``--mixed`` also imports
each language's chat with English messages between its own (code-switching). ``--tree`` runs refind from
another checkout (``git archive main | tar -x -C DIR``): the peer measured in the same run. A script that
prints figures, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from catalog_chats import CatalogChat, catalogs, chat, forms, mixed  # noqa: E402
from cldr_chats import whatsapp_lines  # noqa: E402
from system_catalog_chats import system_chats  # noqa: E402


def refind(tree: Path, home: Path, *args: str, stdin: str = "") -> str:
    """stdout of ``python -m refind_cli`` run from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree), "REFIND_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "refind_cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"refind {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def cases(chats: dict[str, CatalogChat]) -> dict[str, list[tuple[str, str, int]]]:
    """Chat name -> its (form, query, index of the message it must find)."""
    out: dict[str, list[tuple[str, str, int]]] = {}
    for name, found in chats.items():
        out[name] = [
            (form, query, found.dated if form == "date" else at)
            for word, at in found.needles
            for form, query in forms(word, found).items()
            if form != "date" or at == found.needles[0][1]
        ]
    return out


def run(tree: Path, chats: dict[str, CatalogChat], misses: bool) -> dict[str, dict[str, Counter[str]]]:
    """Import ``chats`` with refind of ``tree``, search every case; counts by script, form, told language."""
    by: dict[str, dict[str, Counter[str]]] = {k: defaultdict(Counter) for k in ("script", "form", "lang")}
    with tempfile.TemporaryDirectory(prefix="refind-catalog-") as tmp:
        folder, home = Path(tmp) / "exports", Path(tmp) / "home"
        folder.mkdir()
        for name, found in chats.items():
            whatsapp_lines(folder / f"WhatsApp Chat with {name}.txt", list(found.messages))
        t0 = time.perf_counter()
        refind(tree, home, "import", str(folder))
        took = time.perf_counter() - t0
        listed = json.loads(refind(tree, home, "chats", "--json"))["chats"]
        told = {c["name"]: c["lang"] or "" for c in listed}
        t1 = time.perf_counter()
        for name, todo in cases(chats).items():
            found = chats[name]
            lines = refind(tree, home, "search", "-", "--chat", name, "-k", "3", "--jsonl",
                           stdin="".join(q + "\n" for _, q, _ in todo)).splitlines()  # fmt: skip
            answers = [json.loads(line) for line in lines if line.strip()]
            by_query = {a["query"]: a["results"] for a in answers}
            for form, query, at in todo:
                hits = by_query.get(query, [])
                hit = any(found.messages[at] in h["text"] for h in hits)
                key = "hit" if hit else "miss"
                lang = found.lang.split("_")[0]
                right = "told right" if told.get(name, "").split("+")[0] == lang else "told another"
                by["script"][found.script][key] += 1
                by["form"][form][key] += 1
                by["lang"][right][key] += 1
                if not hit and misses:
                    print(f"miss {name} ({told.get(name)}) {form}: {query!r} in {found.messages[at]!r}")
        print(f"tree {tree}: import {took:.1f} s, searches {time.perf_counter() - t1:.1f} s")
    return by


def rate(c: Counter[str]) -> str:
    n = c["hit"] + c["miss"]
    return f"{c['hit']}/{n} ({c['hit'] / n:.0%})" if n else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose refind_cli is run")
    ap.add_argument("--catalog", default="core", choices=("core", "admin", "system-tune", "system-held"))
    ap.add_argument("--mixed", action="store_true", help="also each language with English messages between")
    ap.add_argument("--misses", action="store_true", help="print every query not found")
    ap.add_argument("--any-word", action="store_true", help="needles any unique word, not the longest")
    ap.add_argument("--langs", default="", help="only these catalogs (folder names: pl,zh_Hant)")
    args = ap.parse_args()
    wanted = set(filter(None, args.langs.split(",")))
    if args.catalog.startswith("system-"):
        made = system_chats(args.catalog.split("-", 1)[1], not args.any_word)
        chats = {lang: c for lang, c in made.items() if not wanted or lang in wanted}
    else:
        chats = {
            lang: c
            for lang in catalogs(args.catalog)
            if (not wanted or lang in wanted)
            and (c := chat(lang, args.catalog, None, not args.any_word)) is not None
        }
    if args.mixed and not args.catalog.startswith("system-"):
        chats |= {f"{lang} mixed": mixed(c, args.catalog) for lang, c in list(chats.items())}
    by = run(args.tree.resolve(), chats, args.misses)
    print(f"catalog {args.catalog}: {len(chats)} chats, {len({c.lang for c in chats.values()})} languages")
    total: Counter[str] = Counter()
    for table, counts in by.items():
        print(f"\n{table} | found")
        for key in sorted(counts, key=lambda k: (-sum(counts[k].values()), k)):
            print(f"{key} | {rate(counts[key])}")
            if table == "form":
                total.update(counts[key])
    print(f"all | {rate(total)}")


if __name__ == "__main__":
    main()
