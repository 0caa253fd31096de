"""A chat's messages told one by one stop early only where the answer cannot change: ``detect`` gives what
telling every long message would (the rule the module states: a second language kept at SECOND_SHARE of the
reliably told messages and at least SECOND_MIN of them), on mixtures it was not tuned on; and a text all in
ASCII is in its language's script wherever that language is written in Latin letters. Many chats are told by
two processes (``detect_each``) as one tells them, whether the second answers, dies or answers wrong; and an
import of an assistant's export of that many chats stores each its own language."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from cli_runs import run
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import SAMPLES

from refind_cli import processes
from refind_cli.text import language
from refind_cli.text.scripts_data import SCRIPTS

sys.path.insert(0, str(SAMPLES))
from generate_assistants import chatgpt_chain

# Messages CLD3 tells reliably, a few a language, and some it cannot (too short, digits, an emoji).
LINES = {
    "en": [
        "are you coming to the party tonight or not",
        "i left my keys at the office again, can you let me in",
        "the train was late so i missed the whole meeting",
    ],
    "de": [
        "kannst du mir bitte die nummer von deiner schwester schicken",
        "wir treffen uns morgen um acht vor dem kino",
        "der zug hatte wieder zwanzig minuten verspätung heute",
    ],
    "ru": [
        "ты сегодня придёшь на ужин или опять задержишься",
        "я забыл ключи на работе, открой мне дверь пожалуйста",
    ],
    "ja": [
        "明日の会議は何時からですか、資料はもう送りました",
        "今日は雨が降っているので傘を持って行ってください",
    ],
    "none": ["ok", "lol 😂", "12:30", "see you", "👍👍👍 🎉"],
}
ALL = [line for lines in LINES.values() for line in lines]


def every_message_told(texts: list[str]) -> str:
    """``detect`` as stated: the first language of the whole sample, then every long message told."""
    sample: list[str] = []
    words = 0
    for text in texts:
        sample.append(text[: language.SAMPLE_WORDS * language.WORD_CHARS])
        words += len(language._WORD.findall(sample[-1]))
        if words >= language.SAMPLE_WORDS:
            break
    if words < language.MIN_WORDS:
        return language.UNDETERMINED
    joined = "\n".join(sample)
    first = language.in_its_script(language.identify(joined)[0], joined)
    if first == language.UNDETERMINED:
        return first
    long_enough = [t for t in sample if len(language._WORD.findall(t)) >= language.MESSAGE_WORDS]
    told = Counter(
        language.in_its_script(code, t)
        for t in long_enough[: language.MESSAGES]
        for code, sure in [language.identify(t)]
        if sure
    )
    for code, n in told.most_common(2):
        if code != first:
            if n >= max(language.SECOND_MIN, language.SECOND_SHARE * sum(told.values())):
                return f"{first}{language.MIXED}{code}"
            break
    return first


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALL), max_size=40))
def test_detect_gives_what_telling_every_message_gives(texts: list[str]):
    assert language.detect(texts) == every_message_told(texts)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(LINES["en"]), min_size=1, max_size=30),
    st.lists(st.sampled_from(LINES["de"] + LINES["ru"]), max_size=12),
    st.randoms(use_true_random=False),
)
def test_a_second_language_found_wherever_its_messages_fall(main: list[str], other: list[str], rnd):
    texts = main + other
    rnd.shuffle(texts)
    assert language.detect(texts) == every_message_told(texts)


# Long texts without a word: what a chat of pasted symbols holds.
WORDLESS = ["!" * 20_000, "😀 " * 9_000, ". " * 30_000, "-" * 60_000]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(ALL + WORDLESS), max_size=20),
    st.lists(st.sampled_from(LINES["en"] + LINES["de"]), min_size=90, max_size=130),
    st.randoms(use_true_random=False),
)
def test_a_sample_past_what_is_read_holds_only_messages_told_one_by_one(
    start: list[str], rest: list[str], rnd
):
    rnd.shuffle(rest)
    texts = start + rest
    assert language.detect(texts) == every_message_told(texts)


def test_the_hundredth_message_told_one_by_one_still_counts_past_what_is_read():
    # German is 19 of the first 95 messages told one by one (a fifth: kept) and of the first 100 (not); the
    # sample's joined text is past what its telling reads well before.
    def cycled(lines: list[str], n: int) -> list[str]:
        return [lines[i % len(lines)] for i in range(n)]

    en, de = LINES["en"], LINES["de"]
    texts = cycled(en, 20) + ["!" * 20_000] * 3 + cycled(en, 56) + cycled(de, 19) + cycled(en, 55)
    assert every_message_told(texts[: 20 + 3 + 56 + 19]) == "en+de"
    assert language.detect(texts) == every_message_told(texts) == "en"


def test_a_chat_of_long_wordless_texts_is_not_held_whole():
    import tracemalloc

    def texts():
        for i in range(400):
            yield "!" * 40_000
            yield LINES["en"][i % 3]

    tracemalloc.start()
    try:
        told = language.detect(texts())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert told == every_message_told(list(texts()))
    assert peak < 2_000_000, peak  # before: every piece held, 16 MB


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_an_ascii_text_is_in_the_script_of_every_language_written_in_latin(text: str):
    for code in [c for c, scripts in SCRIPTS.items() if "Latn" in scripts.split()][::7]:
        assert language.in_its_script(code, text) == code


# Chats of every kind ``detect`` tells apart: each language, two at once, too little text.
CHATS = [
    LINES["en"] * 4,
    LINES["de"] * 5,
    LINES["ru"] * 6,
    LINES["ja"] * 6,
    LINES["en"] * 8 + LINES["de"] * 3,
    LINES["none"],
    [],
    LINES["de"] * 2 + LINES["none"] * 3,
] * 3


def told_each(chats: list[list[str]]) -> list[str]:
    return language.detect_each(len(chats), lambda i: iter(chats[i]))


def test_many_chats_told_by_two_processes_as_by_one(monkeypatch: pytest.MonkeyPatch):
    started: list[str] = []
    real = processes.python_child
    monkeypatch.setattr(
        processes, "python_child", lambda code, buffer: started.append(code) or real(code, buffer)
    )
    monkeypatch.setattr(language, "TWO_PROCESSES_FROM", 2)
    assert told_each(CHATS) == [language.detect(chat) for chat in CHATS]
    assert len(started) == 1  # the second process told its half
    assert told_each(CHATS[:1]) == [language.detect(CHATS[0])]  # one chat: no second process
    assert len(started) == 1


@pytest.mark.parametrize(
    "code",
    [
        "raise SystemExit(3)",  # gone before it reads a chat
        "import os, sys; sys.stdin.buffer.read(100); os._exit(1)",  # gone in the middle
        "import pickle, sys; sys.stdin.buffer.read(); sys.stdout.buffer.write(pickle.dumps(['en']))",  # too few
        "import sys; sys.stdin.buffer.read(); sys.stdout.buffer.write(b'not a pickle')",
    ],
)
def test_chats_a_failed_second_process_had_are_told_here(monkeypatch: pytest.MonkeyPatch, code: str):
    real = processes.python_child
    monkeypatch.setattr(processes, "python_child", lambda _code, buffer: real(code, buffer))
    monkeypatch.setattr(language, "TWO_PROCESSES_FROM", 2)
    assert told_each(CHATS) == [language.detect(chat) for chat in CHATS]


def test_the_second_process_fails_without_a_traceback():
    # Whatever stops it (here a sample it cannot read), it leaves the telling to its parent and says nothing.
    import pickle

    done = subprocess.run(
        [sys.executable, "-c", "from refind_cli.text.language import serve; serve()"],
        input=pickle.dumps((["text"], None)),
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (1, b"", b"")


def test_chats_met_after_the_second_process_died_are_told_here(monkeypatch: pytest.MonkeyPatch):
    children: list[subprocess.Popen[bytes]] = []
    real = processes.python_child

    def dying(code: str, buffer: int) -> subprocess.Popen[bytes]:
        children.append(real("import os, sys; sys.stdin.buffer.read(10); os._exit(1)", buffer))
        return children[-1]

    def texts_of(i: int) -> list[str]:
        if i == 4:
            children[-1].wait()  # it read the first chat and is gone: the next one sent finds no reader
        return CHATS[i]

    monkeypatch.setattr(processes, "python_child", dying)
    monkeypatch.setattr(language, "TWO_PROCESSES_FROM", 2)
    assert language.detect_each(len(CHATS), texts_of) == [language.detect(chat) for chat in CHATS]


def test_an_assistants_export_of_many_chats_stores_each_its_own_language(tmp_path: Path):
    texts = [LINES["en"] * 3, LINES["de"] * 3, LINES["ru"] * 3, LINES["en"] * 8 + LINES["de"] * 3]
    expected = [language.detect(t) for t in texts]
    assert len(set(expected)) == 4, expected
    n = language.TWO_PROCESSES_FROM + 1
    export = tmp_path / "conversations.json"
    export.write_text(
        json.dumps([chatgpt_chain(f"c{i}", texts[i % 4], 1.7e9 + i * 1000) for i in range(n)]),
        encoding="utf-8",
    )
    home = tmp_path / "home"
    assert run(home, "import", "--tz", "UTC", str(export)).exit_code == 0
    chats = json.loads(run(home, "chats", "--json").stdout)["chats"]
    assert len(chats) == n
    assert Counter(c["lang"] for c in chats) == Counter(expected[i % 4] for i in range(n))


def test_the_second_process_is_not_left_behind(monkeypatch: pytest.MonkeyPatch):
    children: list[subprocess.Popen[bytes]] = []
    real = processes.python_child
    monkeypatch.setattr(
        processes, "python_child", lambda code, buffer: children.append(real(code, buffer)) or children[-1]
    )
    monkeypatch.setattr(language, "TWO_PROCESSES_FROM", 2)

    def texts_of(i: int) -> list[str]:
        if i == 5:
            raise KeyboardInterrupt
        return CHATS[i]

    with pytest.raises(KeyboardInterrupt):
        language.detect_each(len(CHATS), texts_of)
    assert [child.returncode is not None for child in children] == [True]
