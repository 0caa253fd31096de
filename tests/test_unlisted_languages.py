"""Search in the languages and scripts nobody listed (session 10), on chats generated at test time from CLDR's
data (``tests/cldr_chats.py``), not from a list of cases: one locale of each script Babel has (the first, in
order, with enough names), imported through the WhatsApp importer into one home, each chat's language told
from its text as an import tells it. ``bench/polyglot_bench.py`` runs every locale.

What must hold, in every script: a word found as written is found in every form a person types it (case,
decomposed, without the diacritics people leave out, without joiners, full-width, case-folded); the words as
written are found nearly always; emoji are found as typed (with a skin tone or without, with a variation
selector, a ZWJ sequence, a flag); the offline agent notes the message a question names.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cldr_chats import (
    EmojiCase,
    LocaleChat,
    emoji_cases,
    emoji_messages,
    locale_chat,
    locales,
    month_chat,
    names,
    variants,
    whatsapp_lines,
)

from refind_cli.facade import Home
from refind_cli.index.tantivy_backend import TantivyIndex
from refind_cli.operations import AskRequest, ImportOptions
from refind_cli.request import SearchRequest

# Locales whose months a date writes in another form than the name standing alone (a case, a glued
# preposition), of five scripts: the languages CLD3 tells (a language told wrong reads another's months).
MONTH_LOCALES = ("cs", "pl", "el", "he", "uk", "eu")


def sample() -> list[LocaleChat]:
    """The probe chat of the first locale of each script that has one."""
    chats: dict[str, LocaleChat] = {}
    for locale, script in locales().items():
        if script not in chats and (chat := locale_chat(locale)) is not None:
            chats[script] = chat
    return list(chats.values())


@dataclass(frozen=True)
class Probe:
    home: Home
    chats: list[LocaleChat]
    seqs: dict[str, int]  # chat name -> seq
    emoji: list[EmojiCase]
    emoji_chat: list[str]
    months: list[LocaleChat]

    def found(self, title: str, query: str, message: str) -> bool:
        hits = self.home.search(SearchRequest(query, k=3, chats=(self.seqs[title],))).hits
        return any(message in hit.turn.text for hit in hits)


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Probe]:
    folder = tmp_path_factory.mktemp("polyglot")
    chats = sample()
    cases = list(emoji_cases("test", 15))
    emoji_chat = emoji_messages(cases, names("en"))
    exports = [whatsapp_lines(folder / f"WhatsApp Chat with {c.locale}.txt", list(c.messages)) for c in chats]
    exports.append(whatsapp_lines(folder / "WhatsApp Chat with emoji.txt", emoji_chat))
    months = [c for locale in MONTH_LOCALES if (c := month_chat(locale)) is not None]
    exports += [
        whatsapp_lines(folder / f"WhatsApp Chat with months {c.locale}.txt", list(c.messages)) for c in months
    ]
    with Home.open(folder / "home") as h:
        assert all(r.error is None for r in h.import_files(exports, ImportOptions()))
        seqs = {c.info.name: c.info.seq for c in h.chats()}
        yield Probe(h, chats, seqs, cases, emoji_chat, months)


def test_the_sample_covers_the_scripts_cldr_writes(probe: Probe) -> None:
    scripts = {c.script for c in probe.chats}
    # Not a list of them: the scripts of Babel's locales that have enough names to make a chat of.
    assert len(scripts) >= 30 and {"Latn", "Arab", "Cyrl", "Deva", "Hans", "Ethi"} <= scripts


def test_every_form_a_person_types_finds_what_the_word_as_written_finds(probe: Probe) -> None:
    written = 0
    missed: list[str] = []
    for chat in probe.chats:
        for needle, at in chat.needles:
            if not probe.found(chat.locale, needle, chat.messages[at]):
                continue
            written += 1
            missed += [
                f"{chat.locale} {form} {query!r}"
                for form, query in variants(needle, chat).items()
                if not probe.found(chat.locale, query, chat.messages[at])
            ]
    assert not missed
    # As written, a word is found but where the language glues a word to it ("and" in Arabic and Hebrew).
    assert written >= 0.9 * sum(len(c.needles) for c in probe.chats)


def test_a_month_named_alone_finds_the_date_that_writes_it_in_another_form(probe: Probe) -> None:
    assert {c.locale for c in probe.months} == set(MONTH_LOCALES)
    missed = [
        (chat.locale, needle)
        for chat in probe.months
        for needle, at in chat.needles
        if not probe.found(f"months {chat.locale}", needle, chat.messages[at])
    ]
    # Polish "maja" ("of May") is also "mają" ("they have") typed without its ogonek: the month's
    # form wins over the stop word typed bare.
    assert missed == []


def test_emoji_are_found_as_typed(probe: Probe) -> None:
    missed = [
        (case.kind, case.typed)
        for case, message in zip(probe.emoji, probe.emoji_chat, strict=True)
        if not probe.found("emoji", case.typed, message)
    ]
    assert not missed


def test_the_offline_agent_notes_the_message_a_question_names(probe: Probe) -> None:
    noted = 0
    for chat in probe.chats:
        needle, at = chat.needles[0]
        asked = AskRequest(
            f"{needle}?", now=datetime(2024, 6, 1, tzinfo=UTC), tz=UTC, chats=(probe.seqs[chat.locale],)
        )
        notes = probe.home.ask(asked).notes
        noted += any(chat.messages[at] in t.text for n in notes for t in n.turns if t.id == n.hit_turn_id)
    assert noted >= 0.9 * len(probe.chats)


def test_an_index_of_the_last_analysis_is_rebuilt(
    probe: Probe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from refind_cli.index import tantivy_backend

    chat = probe.chats[0]
    export = whatsapp_lines(tmp_path / "WhatsApp Chat with x.txt", list(chat.messages))
    version = tantivy_backend.ANALYSIS_VERSION
    monkeypatch.setattr(tantivy_backend, "ANALYSIS_VERSION", version - 1)
    with Home.open(tmp_path / "home") as h:
        assert all(r.error is None for r in h.import_files([export], ImportOptions()))
    assert TantivyIndex.open(tmp_path / "home").generation is not None
    monkeypatch.setattr(tantivy_backend, "ANALYSIS_VERSION", version)
    assert TantivyIndex.open(tmp_path / "home").generation is None  # not reused: the next sync builds it anew
    needle, at = chat.needles[0]
    with Home.open(tmp_path / "home") as h:
        assert any(chat.messages[at] in hit.turn.text for hit in h.search(SearchRequest(needle, k=3)).hits)
