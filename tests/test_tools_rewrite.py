"""Session 15's held-out family of tools' rewrites (``unseen_variants.held_out_15``), one variant per tool,
and what was fixed after it was measured: UTF-8 encoded twice, a zip entry's Unicode Path field, names a
download or a share changed, a British spreadsheet's dates. ``bench/ablation_probe.py --set held-out-15``
reads every variant; ``bench/RESULTS.md`` ("Files other tools rewrite, session 15") has the counts."""

from __future__ import annotations

import struct
import zipfile
import zlib
from datetime import UTC
from pathlib import Path

import pytest
from cli_runs import refind
from hypothesis import given
from hypothesis import strategies as st
from unseen_variants import Unseen, _unicode_path, _zip, check, held_out_15, outcome

from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.importers import container

# Held out and still read otherwise than the original, each with the format it shows on and why (RESULTS,
# session 15): held to fail, so that a fix shows here.
KNOWN = {
    # The ids are gone: read without them, said in a warning (session 16; ``tests/test_ablation6.py``).
    "Gson through a Map (numbers as Java doubles)": ("discord-package", "the tool rounded 19-digit ids"),
    "Go through map[string]interface{} (keys sorted)": ("discord-package", "the tool rounded 19-digit ids"),
    "jq 1.6": ("discord-package", "the tool rounded 19-digit ids"),
}


def _one_per_tool() -> list[Unseen]:
    """One variant per tool's rewrite: the first of the family, or for a rewrite still read otherwise, the
    one of the format it shows on."""
    chosen: dict[str, Unseen] = {}
    for u in held_out_15():
        place = u.variant.place
        if place in KNOWN and u.variant.format != KNOWN[place][0]:
            continue
        chosen.setdefault(place, u)
    return list(chosen.values())


def test_the_family_covers_archivers_shares_json_libraries_sheets_and_editors() -> None:
    places = {u.variant.place for u in held_out_15()}
    assert len(places) >= 20
    assert len({u.variant.format for u in held_out_15()}) >= 15
    assert any(u.may_refuse for u in held_out_15()) and any(not u.may_refuse for u in held_out_15())


@pytest.mark.parametrize("unseen", _one_per_tool(), ids=lambda u: f"{u.variant.format}-{u.variant.place}")
def test_a_tools_rewrite_reads_as_the_original_or_is_refused_in_one_line(
    tmp_path: Path, unseen: Unseen
) -> None:
    wrong = check(unseen, tmp_path)
    if unseen.variant.place in KNOWN:
        assert wrong is not None, f"fixed: {KNOWN[unseen.variant.place][1]} (take it out of KNOWN)"
    else:
        assert wrong is None


# 7-Zip's volumes are joined since session 16 (``tests/test_ablation6.py``).
@pytest.mark.parametrize("place", ["a zip under a password (ZipCrypto)"])
def test_what_refind_cannot_open_is_refused_by_the_command_in_one_line(tmp_path: Path, place: str) -> None:
    (unseen,) = [u for u in held_out_15() if u.variant.place == place and u.variant.format == "chatgpt"]
    how, line = outcome(unseen, tmp_path / "probe")
    assert how == "refused", line
    path = unseen.variant.write(tmp_path / "cli")
    result = refind("--home", str(tmp_path / "home"), "import", str(path))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert path.name in result.stderr or any(p.name in result.stderr for p in path.rglob("*"))


def test_a_deflate64_zip_is_read(tmp_path: Path) -> None:
    """7-Zip's Deflate64, which zipfile has no decompressor for (``inflate64`` is)."""
    (unseen,) = [
        u for u in held_out_15() if u.variant.place == "7-Zip: Deflate64" and u.variant.format == "slack"
    ]
    assert outcome(unseen, tmp_path) == ("read", None)


# --- UTF-8 encoded twice ------------------------------------------------------------------------------------

_TEXT = "Grüße aus der Schliemannstraße – see you at 18:00 😂 «ok» € ‚quoted‘"


def test_utf8_encoded_twice_is_told_and_read_as_first_written() -> None:
    twice = _TEXT.encode(container.TWICE)
    assert twice.decode("utf-8") != _TEXT and "Ã" in twice.decode("utf-8")
    assert container.text_encoding(twice) == container.Encoding(container.TWICE, 0)
    assert container.decode_text(twice, "x.txt") == _TEXT
    assert container.text_encoding(b"\xef\xbb\xbf" + twice) == container.Encoding(container.TWICE, 3)


def test_text_encoded_twice_after_a_long_ascii_start_is_told(tmp_path: Path) -> None:
    """A JSON export's first kilobytes are often ASCII: the encoding is told from its first byte beyond."""
    head = '[{"id": "0000", "text": "plain"},\n' * 400  # 14 KB of ASCII
    data = (head + f'{{"id": "1", "text": "{_TEXT}"}}]').encode(container.TWICE)
    assert len(head) > container.ENCODING_BYTES
    assert container.text_encoding(data).codec == container.TWICE
    chunks = [data[i : i + 1000] for i in range(0, len(data), 1000)]
    joined = b"".join(container.utf8_chunks(chunks, lambda what, where: InputError("x.json", what, where)))
    assert joined.decode() == head + f'{{"id": "1", "text": "{_TEXT}"}}]'


@given(
    st.text(
        # Not "œ": it stands for a byte that goes on a UTF-8 character (0x9C), and a text whose letters beyond
        # ASCII are all such pairs ("Éœ") proves it was encoded twice (``tests/test_mojibake2.py``).
        alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzäöüßéèêàçñøåæÀÉÖÜ .,!?-0123456789"),
        min_size=1,
        max_size=300,
    )
)
def test_text_written_once_is_never_taken_for_text_encoded_twice(text: str) -> None:
    """Letters with accents are single characters of Windows-1252 followed by plain ones, which never make
    UTF-8: text a person wrote is read as it is."""
    assert container.text_encoding(text.encode()).codec == "utf-8"


@given(st.text(min_size=1, max_size=200).filter(lambda t: not t.isascii()))
def test_any_text_encoded_twice_reads_back(text: str) -> None:
    try:
        twice = text.encode(container.TWICE)
    except UnicodeEncodeError:  # a lone surrogate: no text a file holds
        return
    assert twice.decode(container.TWICE) == text


# --- zip names -----------------------------------------------------------------------------------------------


def test_a_name_in_the_unicode_path_field_is_the_entrys_name(tmp_path: Path) -> None:
    path = _zip(
        {"Chat 友子.txt": b"x"}, tmp_path / "a.zip", codec="cp437", flagged=False, extra=_unicode_path
    )
    with zipfile.ZipFile(path) as zf:
        assert [i.filename for i in zf.infolist()] == ["Chat ??.txt"]  # what zipfile alone reads
    assert [e.name for e in container.archive_files(path)] == ["Chat 友子.txt"]


def test_a_unicode_path_field_written_for_another_name_is_not_taken(tmp_path: Path) -> None:
    """A tool that renamed the entry since left the field of the old name: its CRC of the name tells."""

    def stale(name: str) -> bytes:
        body = b"\x01" + struct.pack("<I", zlib.crc32(b"old name.txt")) + "友子.txt".encode()
        return struct.pack("<HH", 0x7075, len(body)) + body

    path = _zip({"new name.txt": b"x"}, tmp_path / "a.zip", extra=stale)
    assert [e.name for e in container.archive_files(path)] == ["new name.txt"]


# --- names a download or a share changed -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stem", "told", "name"),
    [
        ("WhatsApp%20Chat%20with%20Ana", "", "WhatsApp Chat with Ana"),
        ("Chat%20mit%20Zo%C3%AB", "", "Chat mit Zoë"),
        ("100%zz", "", "100%zz"),  # no escape: left as it is
        ("Family-20261005T120000Z-001", "", "Family"),
        ("Family-20261005T120000Z-002 (1)", "", "Family"),
        ("Priya_Nair", "Me\nPriya Nair", "Priya Nair"),
        ("maya_l", "Me\nMaya L", "maya_l"),  # the chat's text names no "maya l": a name with _ keeps it
    ],
)
def test_a_name_as_it_was_before_a_download_or_a_share(stem: str, told: str, name: str) -> None:
    assert container.unmarked(stem, told) == name


# --- a British spreadsheet's dates -----------------------------------------------------------------------------


def _kakaotalk_csv(path: Path, stamps: list[str]) -> Path:
    path.write_text("Date,User,Message\n" + "".join(f"{s},Ana,message {n}\n" for n, s in enumerate(stamps)))
    return path


@pytest.mark.parametrize(
    ("stamps", "days"),
    [
        # British Excel: a later day above 12 tells the order of the first ones.
        (
            ["01/10/2026 19:02", "05/10/2026 10:00", "13/10/2026 09:00"],
            ["2026-10-01", "2026-10-05", "2026-10-13"],
        ),
        # none above 12: the day is the number that goes down when the month goes on (Pustur's rule)
        (
            ["30/09/2026 19:02", "01/10/2026 19:02", "02/10/2026 10:00"],
            ["2026-09-30", "2026-10-01", "2026-10-02"],
        ),
        (["11/10/2026 19:02", "12/10/2026 19:02"], ["2026-10-11", "2026-10-12"]),  # the day changes
        # American Excel, as before
        (
            ["10/1/2026 7:02 PM", "10/5/2026 10:00 AM", "10/13/2026 9:00 AM"],
            ["2026-10-01", "2026-10-05", "2026-10-13"],
        ),
        (["10/11/2026 19:02", "10/12/2026 19:02"], ["2026-10-11", "2026-10-12"]),
        (["1.10.2026 19:02:59", "2.10.2026 10:00:00"], ["2026-10-01", "2026-10-02"]),  # German
    ],
)
def test_a_spreadsheets_dates_are_read_in_the_order_the_file_tells(
    tmp_path: Path, stamps: list[str], days: list[str]
) -> None:
    (export,) = importers.read_export(
        _kakaotalk_csv(tmp_path / "KakaoTalk_Chat_Ana.csv", stamps), "auto", UTC
    )
    assert [m.timestamp.date().isoformat() for m in export.messages] == days
