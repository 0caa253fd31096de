"""Search in twenty languages (issue 21), in the issue's shape: a WhatsApp family chat per language, eight
questions that name its messages in other inflected forms, among distractors that share one of their stems
(tests/world_chats.py). Every language with a Snowball stemmer finds at least 6 of 8 in the first three hits,
the others (their words cut to a prefix) at least 5 of 8; a compound's part alone finds the compounds; a
bilingual chat finds both languages' messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from language_chats import ENGLISH_CHAT, whatsapp_export
from world_chats import ENGLISH_QUESTIONS, WORLDS, bilingual_chat, world_chat

from refind_cli.facade import Home
from refind_cli.operations import ImportOptions
from refind_cli.request import SearchRequest
from refind_cli.text.analysis import stemmer_name


def home_with(folder: Path, chat: str) -> Path:
    export = whatsapp_export(folder / "WhatsApp Chat with Family.txt", chat)
    with Home.open(folder / "home") as home:
        assert all(r.error is None for r in home.import_files([export], ImportOptions()))
    return folder / "home"


def found(home: Path, question: str, needle: str) -> bool:
    with Home.open(home) as h:
        return any(needle in hit.turn.text for hit in h.search(SearchRequest(question, k=3)).hits)


@pytest.mark.parametrize("code", sorted(WORLDS))
def test_each_language_finds_its_messages_by_other_forms_of_their_words(code: str, tmp_path: Path) -> None:
    world = WORLDS[code]
    home = home_with(tmp_path, world_chat(world))
    with Home.open(home) as h:
        told = h.chats()[0].lang
    assert told == code or {told, code} == {"no", "nb"}
    right = sum(found(home, question, needle) for needle, question, _ in world.cases)
    assert right >= (6 if stemmer_name(code) else 5), f"{code}: {right}/8"
    for part, needles in world.compounds:
        for needle in needles:
            assert found(home, part, needle), (part, needle)


def test_a_bilingual_chat_finds_both_languages(tmp_path: Path) -> None:
    home = home_with(tmp_path, bilingual_chat(ENGLISH_CHAT))
    with Home.open(home) as h:
        assert h.chats()[0].lang == "de+en"
    german = sum(found(home, q, needle) for needle, q, _ in WORLDS["de"].cases)
    english = sum(found(home, q, needle) for needle, q in ENGLISH_QUESTIONS)
    assert german >= 6 and english == len(ENGLISH_QUESTIONS), (german, english)
