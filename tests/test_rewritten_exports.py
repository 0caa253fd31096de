"""Exports that tools and people rewrite whole (``tests/rewrite_variants.py``): saved in another encoding or
with other line ends, re-serialised, re-saved by a spreadsheet, re-packed, renamed by a browser, zipped
together. A sample of the variants, one for each way of rewriting, the formats taken in turn, is held to the
rule there (the same messages in the same chats with the same identities, at most one warning line more);
``bench/ablation_probe.py --set rewrites`` runs all of them. The cases below are not from the samples: other
languages, code pages and layouts than the ones the fixes were made on."""

from __future__ import annotations

import json
import warnings
import zipfile
from datetime import UTC
from pathlib import Path

import pytest
from ablation_variants import Variant, check
from hypothesis import given
from hypothesis import strategies as st
from rewrite_variants import KINDS, variants

from refind_cli import importers
from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive


def _sample() -> list[Variant]:
    """One variant of each way of rewriting (kind and how), the formats taken in turn; of the XML attributes
    removed or nulled, those that keep what a message needs."""
    ways: dict[tuple[str, str], list[Variant]] = {}
    for v in variants():
        how = "" if v.kind in ("removed", "null", "two-exports") else v.place.rsplit(": ", 1)[-1]
        if v.kind == "renamed":  # the stem is the sample's
            how = how.rsplit(" (", 1)[-1]
        if not v.lossy:
            ways.setdefault((v.kind, how), []).append(v)
    return [found[n % len(found)] for n, (_, found) in enumerate(sorted(ways.items()))]


SAMPLE = _sample()


def _id(v: Variant) -> str:
    return f"{v.format}-{v.kind}-{v.place.rsplit(': ', 1)[-1]}"


def test_the_probe_covers_every_way_of_rewriting_and_most_formats() -> None:
    assert {v.kind for v in variants()} == set(KINDS) | {"removed", "null"}
    assert len({v.format for v in variants()}) >= 18
    assert len({v.format for v in SAMPLE}) >= 10


@pytest.mark.parametrize("variant", SAMPLE, ids=_id)
def test_a_rewritten_export_reads_as_the_original(tmp_path: Path, variant: Variant) -> None:
    assert check(variant, tmp_path) is None


# --- two exports of one format in one zip --------------------------------------------------------------


def _chat(*lines: str) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


def _zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def _claude(title: str, words: str) -> bytes:
    conversation = {
        "uuid": f"c-{title}",
        "name": title,
        "created_at": "2025-03-01T10:00:00Z",
        "updated_at": "2025-03-01T10:01:00Z",
        "chat_messages": [
            {
                "uuid": f"m-{title}",
                "sender": "human",
                "text": words,
                "content": [{"type": "text", "text": words}],
                "created_at": "2025-03-01T10:00:00Z",
            }
        ],
    }
    return json.dumps([conversation]).encode()


def test_two_exports_of_one_format_in_one_zip_are_both_read_and_once(tmp_path: Path) -> None:
    path = _zip(
        tmp_path / "both.zip",
        {
            "Chat with Aiyana.txt": _chat("03/01/2025, 09:00 - Aiyana: Hau kola, toníktuka he?"),
            "Chat with Tupaq.txt": _chat("03/01/2025, 09:05 - Tupaq: Allillanchu, imaynalla kachkanki?"),
            "older/conversations.json": _claude("Runasimi", "Imaynatataq rimanki?"),
            "newer/conversations.json": _claude("Lakota", "Taku eniciyapi he?"),
        },
    )
    found = list(importers.exports_in(path))
    assert len(found) == 4, found
    with Archive.open(tmp_path / "home") as archive:
        first = [import_file(archive, p, tz=UTC, worker=False) for p in found]
        again = [import_file(archive, p, tz=UTC, worker=False, reread=True) for p in found]
    assert [sum(c.messages_added for c in r.chats) for r in first] == [1, 1, 1, 1]
    assert sum(c.messages_added for r in again for c in r.chats) == 0


def test_one_meta_export_is_still_one_export(tmp_path: Path) -> None:
    thread = {
        "participants": [{"name": "Ngozi"}, {"name": "Me"}],
        "messages": [{"sender_name": "Ngozi", "timestamp_ms": 1740819600000, "content": "Ẹ káàárọ̀"}],
        "title": "Ngozi",
    }
    data = json.dumps(thread).encode()
    path = _zip(
        tmp_path / "facebook-x.zip",
        {
            "your_facebook_activity/messages/inbox/ngozi_1/message_1.json": data,
            "your_facebook_activity/messages/archived_threads/ngozi_2/message_1.json": data,
        },
    )
    assert list(importers.exports_in(path)) == [path]


def test_a_backup_row_without_its_body_is_kept_and_said_once(tmp_path: Path) -> None:
    rows = "".join(
        f'<sms address="+81 90 1234 567{n}" date="17408196{n}0000" type="1" contact_name="Haruto" />'
        for n in range(3)
    )
    path = tmp_path / "sms-20250301.xml"
    path.write_text(
        f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<smses count=\"3\">{rows}</smses>"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages = [m for chat in importers.read_export(path, "auto", UTC) for m in chat.messages]
    said = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert len(messages) == 3 and len(said) == 1 and "3 text messages have no body" in said[0]


# --- a file downloaded again ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stem", "name"),
    [
        ("WhatsApp Chat with Oyelaran (1)", "WhatsApp Chat with Oyelaran"),
        ("Mamá (12)", "Mamá"),
        ("(2)", "(2)"),
        ("Room (2024)", "Room (2024)"),  # a year, not a copy's number
        ("Room(1)", "Room(1)"),
    ],
)
def test_a_second_copys_mark_is_not_part_of_a_name(stem: str, name: str) -> None:
    assert container.unmarked(stem) == name


def test_a_chat_downloaded_again_is_the_same_chat(tmp_path: Path) -> None:
    text = _chat("03/01/2025, 09:00 - Ayşe: Günaydın!", "03/01/2025, 09:01 - Mehmet: Sana da!")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = tmp_path / "a" / "WhatsApp Chat with Ayşe.txt"
    second = tmp_path / "b" / "WhatsApp Chat with Ayşe (1).txt"
    first.write_bytes(text)
    second.write_bytes(text)
    with Archive.open(tmp_path / "home") as archive:
        one = import_file(archive, first, tz=UTC, worker=False)
        two = import_file(archive, second, tz=UTC, worker=False)
    assert sum(c.messages_added for c in one.chats) == 2
    assert sum(c.messages_added for c in two.chats) == 0


# --- legacy code pages ---------------------------------------------------------------------------------

_LINES = {
    # language: (a code page Windows writes it in, a chat line)
    "Czech": ("cp1250", "Ahoj, uvidíme se zítra v Brně? Určitě přijdu."),
    "Ukrainian": ("cp1251", "Привіт! Побачимося завтра біля вокзалу, гаразд?"),
    "Icelandic": ("cp1252", "Góðan daginn! Við sjáumst á morgun í Reykjavík."),
    "Hebrew": ("cp1255", "שלום! נתראה מחר בבוקר ליד התחנה."),
    "Korean": ("cp949", "내일 아침에 역 앞에서 만나요. 늦지 마세요!"),
    "Japanese": ("cp932", "明日の朝、駅の前で会いましょう。遅れないでね。"),
}


@pytest.mark.parametrize("language", sorted(_LINES))
def test_a_chat_saved_in_a_windows_code_page_is_read_as_written_with_one_warning(
    tmp_path: Path, language: str
) -> None:
    codec, line = _LINES[language]
    text = f"04/02/2025, 18:30 - Sam: {line}\n04/02/2025, 18:31 - Kim: {line[::-1]}\n"
    path = tmp_path / "WhatsApp Chat with Sam.txt"
    path.write_bytes(text.encode(codec))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (chat,) = importers.read_export(path, "auto", UTC)
        texts = [m.text for m in chat.messages]
    assert texts == [line, line[::-1]]
    said = [str(w.message) for w in caught if issubclass(w.category, InputWarning)]
    assert len(said) == 1 and "not UTF-8" in said[0] and "\n" not in said[0]


def test_json_is_held_to_utf8_and_damaged_utf8_is_an_error_naming_the_line() -> None:
    with pytest.raises(InputError, match="line 2"):
        container.decode_text(b"Zo\xc3\xab\nsch\xf6n", "chat.txt", legacy=True)  # UTF-8, then not
    assert container.text_encoding('{"name": "Zoë"}'.encode("latin-1")).legacy
    assert not container.text_encoding('{"name": "Zoë"}'.encode()).legacy
    assert container.decode_text('{"name": "Zoë"}'.encode(), "x.json") == '{"name": "Zoë"}'
    with pytest.raises(InputError, match="invalid UTF-8"):
        container.decode_text('{"name": "Zoë"}'.encode("latin-1"), "x.json")


@given(st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=200))
def test_ascii_and_utf8_text_is_never_taken_for_a_code_page(text: str) -> None:
    assert container.text_encoding(text.encode()).codec == "utf-8"
    assert container.text_encoding((text + " Łódź 😀").encode()).codec == "utf-8"


def test_a_binary_file_is_no_text_in_any_code_page() -> None:
    assert not container.text_encoding(b"\x01\x02\x80\x81\x90\x1b" * 50).legacy
