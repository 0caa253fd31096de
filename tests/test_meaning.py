"""The offline answer's reading of meaning (agent/meaning.py, issue 23): WordLlama's token vectors, read from
the wheel's own files with no network, weigh a sentence by what it means beside the words it shares; the
answer degrades to its words alone when the package is absent or its files do not load; only `ask` loads it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from refind_cli.agent import extractive, meaning
from refind_cli.agent.archive_ask import ask
from refind_cli.agent.events import Note
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.operations import AskRequest
from refind_cli.records import ChatInfo, Turn
from refind_cli.storage.archive import Archive
from refind_cli.text.analysis import DEFAULT_ANALYZER

CHAT = ChatInfo(1, "locomo", "c", "Caroline and Melanie", "group")
SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
DEMO_QUESTION = "when did I move the dentist appointment?"
MODEL_MODULES = ("refind_cli.agent.meaning", "wordllama", "safetensors", "tokenizers")


def turn(ordinal: int, speaker: str, text: str) -> Turn:
    at = SAID + timedelta(minutes=ordinal)
    return Turn(f"s1-{ordinal}", "s1", 1, 1, ordinal, at, at, speaker, text)


def first_quote(question: str, turns: list[Turn], model: meaning.Meaning | None) -> str:
    terms = frozenset(DEFAULT_ANALYZER.analyze(question))
    notes = [Note("s1", t.id, CHAT, (t,), "") for t in turns]
    reading = extractive.read(question, terms, notes, tz=UTC, meaning=model)
    best = extractive.rank(reading).best
    assert best is not None
    return best.sentence


# Each question shares no word with either sentence but the speaker's name (which every sentence of hers
# holds), so by words alone they tie and the earlier is quoted first; the later holds a word of the question
# in other words ("car": "vehicle", "picture": "photo").
TIES = [
    (
        "What car does Melanie drive now?",
        "We went hiking with the dogs on Sunday.",
        "The new vehicle is a red hatchback.",
    ),
    (
        "Which picture did Melanie like best?",
        "I went to the gym twice this week.",
        "That photo of the lake is my favourite.",
    ),
]


@pytest.mark.parametrize(("question", "earlier", "meant"), TIES)
def test_a_word_near_in_meaning_ranks_first_what_words_alone_tie(
    question: str, earlier: str, meant: str
) -> None:
    assert extractive.SCORING.reads_meaning
    turns = [turn(1, "Melanie", earlier), turn(2, "Melanie", meant)]
    assert first_quote(question, turns, None) == earlier
    assert first_quote(question, turns, meaning.load()) == meant


def test_meaning_loads_from_the_wheel_and_reads_related_words() -> None:
    model = meaning.load()
    assert model is not None and model.table.shape[1] == 256
    (kids,), (sunday,) = model.nearest(["kids"], [["children"], ["Sunday"]], extractive.SOFT_FROM)
    assert kids > 0.8 and sunday == 0.0
    assert model.nearest(["kids"], [[]], 0.0) == [[0.0]]
    assert model.known("What pets does she have?", DEFAULT_ANALYZER.stopwords) == 1.0
    assert model.known("מתי מאיה הזיזה את רופא השיניים?", ()) < 0.5


def test_a_question_the_model_cannot_read_leaves_the_ranking_to_words() -> None:
    # Words the vocabulary holds only in pieces (a made-up language) weigh the model by nothing.
    question = "Kvorka zentaliphu bresnovat?"
    turns = [turn(1, "Melanie", "We went hiking on Sunday."), turn(2, "Melanie", "Our dog keeps me busy.")]
    reading = extractive.read(
        question, frozenset(DEFAULT_ANALYZER.analyze(question)), [], tz=UTC, meaning=meaning.load()
    )
    assert reading.known == 0.0
    assert first_quote(question, turns, meaning.load()) == first_quote(question, turns, None)


def test_without_the_package_the_model_is_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(meaning, "PACKAGE", "refind_no_such_package")
    meaning.load.cache_clear()
    try:
        assert meaning.files() is None
        assert meaning.load() is None
    finally:
        meaning.load.cache_clear()


def broken_package(root: Path) -> Path:
    """A ``wordllama`` whose weights and tokenizer are not what they claim to be."""
    package = root / "wordllama"
    (package / "weights").mkdir(parents=True)
    (package / "tokenizers").mkdir()
    (package / "__init__.py").write_text("raise ImportError('importing the package is not how it is read')\n")
    (package / "weights" / "l2_supercat_256.safetensors").write_bytes(b"\x00" * 64)
    (package / "tokenizers" / "l2_supercat_tokenizer_config.json").write_text("{not json")
    return root


def test_files_that_do_not_load_leave_the_answer_to_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(broken_package(tmp_path)))
    meaning.load.cache_clear()
    try:
        assert meaning.files() is not None
        assert meaning.load() is None
    finally:
        meaning.load.cache_clear()


def demo_home(root: Path) -> Path:
    from samples import SAMPLES

    home = root / "home"
    with Archive.open(home) as archive:
        for path in sorted(SAMPLES.iterdir()):
            if path.suffix not in (".py", ".md"):
                assert import_error(archive, path) is None
        Index.open(home).sync(archive)
    return home


def import_error(archive: Archive, path: Path) -> str | None:
    from refind_cli.ingest import import_file

    return import_file(archive, path, tz=ZoneInfo("Europe/Berlin")).error


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_home(tmp_path_factory.mktemp("meaning"))


def demo_answer(home: Path) -> str:
    archive = Archive.open(home)
    try:
        index = Index.open(home)
        at = datetime(2026, 4, 20, 12, tzinfo=UTC)
        return ask(archive, index, AskRequest(DEMO_QUESTION, at, ZoneInfo("Europe/Berlin"))).answer
    finally:
        archive.close()


def test_ask_answers_without_the_package(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_model = demo_answer(home)
    monkeypatch.setattr(meaning, "PACKAGE", "refind_no_such_package")
    meaning.load.cache_clear()
    try:
        without = demo_answer(home)
    finally:
        meaning.load.cache_clear()
    assert without.splitlines()[0].startswith("8 April 2026 — Maya")
    assert with_model.splitlines()[0] == without.splitlines()[0]


def imported_by(*args: str, path: str = "") -> tuple[subprocess.CompletedProcess[str], set[str]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (path, os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "refind_cli", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    return done, set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \| +(\S+)$", done.stderr, re.MULTILINE))


def loaded(modules: set[str]) -> set[str]:
    return {m for m in modules if m.startswith(MODEL_MODULES)}


def test_only_the_offline_answer_loads_the_model(home: Path) -> None:
    done, modules = imported_by("--version")
    assert done.returncode == 0 and not loaded(modules)
    done, modules = imported_by("--home", str(home), "search", "dentist")
    assert done.returncode == 0 and not loaded(modules)
    done, modules = imported_by(
        "--home", str(home), "ask", "--offline", "--tz", "Europe/Berlin", DEMO_QUESTION
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("8 April 2026")
    assert "refind_cli.agent.meaning" in modules
    # Read by path: the package itself (its logging set-up, requests, pydantic) is never imported.
    assert "wordllama" not in modules


def test_ask_from_the_command_line_when_the_files_do_not_load(home: Path, tmp_path: Path) -> None:
    done, modules = imported_by(
        "--home",
        str(home),
        "ask",
        "--offline",
        "--tz",
        "Europe/Berlin",
        DEMO_QUESTION,
        path=str(broken_package(tmp_path)),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("8 April 2026")
    assert "refind_cli.agent.meaning" in modules and "Traceback" not in done.stderr


def test_the_scoring_without_soft_terms_is_the_lexical_one() -> None:
    lexical = replace(extractive.SCORING, soft=0.0)
    assert not lexical.reads_meaning
    question = TIES[0][0]
    turns = [turn(1, "Melanie", TIES[0][1]), turn(2, "Melanie", TIES[0][2])]
    terms = frozenset(DEFAULT_ANALYZER.analyze(question))
    notes = [Note("s1", t.id, CHAT, (t,), "") for t in turns]
    with_model = extractive.read(question, terms, notes, tz=UTC, meaning=meaning.load())
    without = extractive.read(question, terms, notes, tz=UTC)
    first = [extractive.rank(r, scoring=lexical).ranked for r in (with_model, without)]
    assert [(s.sentence, s.score) for s in first[0]] == [(s.sentence, s.score) for s in first[1]]
