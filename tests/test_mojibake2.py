"""Session 18 (mojibake2): text a person wrote is read as written. UTF-8 encoded twice (UTF-8 read as
Windows-1252 and saved again) is repaired only where the text proves it (every character beyond ASCII one of
UTF-8's bytes read in Windows-1252; ``container.TWICE_EVIDENCE`` where Latin-1's control characters stand for
some), told
from the same bytes however they are chunked (``container.TWICE_BYTES``, ``container.more_to_tell``).

Before, one pair of characters that happened to be UTF-8's bytes read in Windows-1252 (``"Â\\x80"``,
``"Éœ"``) was taken for a whole text encoded twice, and an ASCII start read in small chunks was told from
the first byte beyond it alone: hypothesis found both now and then in ``tests/test_phone.py`` and
``tests/test_tools_rewrite.py``."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from samples import JONAS
from test_resume_import import reimported

from refind_cli.errors import InputError
from refind_cli.importers import container, linelog

# Text as hypothesis writes it (no lone surrogate: no file holds one), or as it reads once encoded twice.
_WRITTEN = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
_TEXT = _WRITTEN | _WRITTEN.map(lambda t: t.encode(container.TWICE).decode())
_ASCII_START = st.sampled_from([0, container.ENCODING_BYTES - 3, container.ENCODING_BYTES + 200])
_CHUNK = st.integers(min_value=1, max_value=64) | st.sampled_from([1000, container.CHUNK])


def _first_written(text: str) -> str:
    """The text a text proves it was before it was encoded twice, or the text itself where it proves
    nothing: told by the codec alone, undoing it whole."""
    try:
        once = text.encode().decode(container.TWICE)
    except UnicodeDecodeError:
        return text  # a character that is no byte of UTF-8 in Windows-1252: written once
    beyond_first = len(once.encode()) - len(once)  # the bytes of its characters beyond their first
    latin1 = any("\x80" <= c <= "\x9f" for c in text)  # read as Latin-1, not Windows-1252
    return once if beyond_first >= (container.TWICE_EVIDENCE if latin1 else 1) else text


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


def _error(what: str, where: str | None) -> InputError:
    return InputError("x.json", what, where)


@settings(max_examples=40, deadline=None)
@given(text=_TEXT, ascii_start=_ASCII_START, chunk=_CHUNK)
@example(text="Â\x80", ascii_start=0, chunk=1)  # tests/test_phone.py's SMS body: read back as "\x80"
@example(text="á\x80\x80", ascii_start=0, chunk=1)  # ... read back as "က"
@example(text="Éœ", ascii_start=0, chunk=1000)  # tests/test_tools_rewrite.py: "ɜ" encoded twice
@example(text="Zoë: Ã© is how a broken page shows é", ascii_start=0, chunk=7)  # a stray: written once
@example(text="Grüße über".encode(container.TWICE).decode(), ascii_start=5000, chunk=1)  # told after 1 byte
@example(text="Grüße über".encode(container.TWICE).decode(), ascii_start=0, chunk=1)
def test_text_reads_as_written_unless_it_proves_it_was_encoded_twice_in_any_chunks(
    text: str, ascii_start: int, chunk: int
) -> None:
    whole = "a" * ascii_start + text
    data = whole.encode()
    expected = "a" * ascii_start + _first_written(text)
    assert "".join(container.decoded_chunks(_chunks(data, chunk), "x.txt")) == expected
    assert b"".join(container.utf8_chunks(_chunks(data, chunk), _error)).decode() == expected
    told: list[container.Encoding] = []
    passed = b"".join(container.telling(_chunks(data, chunk), told.append))
    assert passed == data and told == [container.text_encoding(data)]
    assert container.told_encoding(iter(_chunks(data, chunk)))[0] == told[0]


def test_one_pair_in_latin_1_is_text_as_written_and_in_windows_1252_proves_it() -> None:
    for written in ("Â\x80", "á\x80\x80", "x Â\x80 y"):
        assert container.twice_evidence(written.encode()) in (1, 2)
        assert container.text_encoding(written.encode()).codec == "utf-8"
    for twice, first in (("ÃŸ", "ß"), ("x Ã© y", "x é y"), ("â€“", "–"), ("Éœ", "ɜ")):
        assert container.decode_text(twice.encode(), "x.txt") == first
    for first in ("🎂", "Zoë Grüße", "é – é"):
        twice = first.encode(container.TWICE)
        assert container.twice_evidence(twice) >= container.TWICE_EVIDENCE
        assert container.decode_text(twice, "x.txt") == first
    # One character written once anywhere in the bytes that tell it is proof enough that it was not.
    assert container.twice_evidence("Grüße über".encode(container.TWICE) + " ß".encode()) is None


def test_the_evidence_is_read_from_the_same_bytes_whatever_comes_after() -> None:
    """Past ``TWICE_BYTES`` from the first byte beyond ASCII nothing changes what was told."""
    twice = ("über Grüße " * 100).encode(container.TWICE)
    start = b"{" * 100 + twice + b" " * container.TWICE_BYTES
    assert container.more_to_tell(start[: 100 + container.TWICE_BYTES - 1])
    assert not container.more_to_tell(start[: 100 + container.TWICE_BYTES])
    written_once = start + " ß".encode()
    assert container.text_encoding(written_once).codec == container.TWICE
    # Written once: told once the bytes that tell a code page are at hand, not read on for ``TWICE_BYTES``.
    once = b"{" * 5000 + "Grüße über".encode() + b" " * container.ENCODING_BYTES
    assert not container.more_to_tell(once) and container.text_encoding(once).codec == "utf-8"


@pytest.mark.parametrize("chunk", [1, 100, container.CHUNK])
def test_a_reading_says_its_text_was_utf8_as_its_decoding_told_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """A mark's offsets are the file's bytes only where the text was read as UTF-8: a file encoded twice
    is told so by its reading's chunks however small (before: by its first chunk alone)."""
    path = tmp_path / "chat.txt"
    path.write_bytes(("x" * 200 + "Grüße über".encode(container.TWICE).decode()).encode())
    monkeypatch.setattr(container, "CHUNK", chunk)
    counted = linelog.Counted(container.iter_file_chunks(path))
    assert b"".join(counted) == path.read_bytes()
    assert not counted.utf8
    assert container.file_encoding(path).codec == container.TWICE
    path.write_bytes(("x" * 200 + "Grüße über").encode())
    counted = linelog.Counted(container.iter_file_chunks(path))
    assert b"".join(counted) == path.read_bytes() and counted.utf8


def test_text_written_once_in_windows_1252_characters_is_read_as_written() -> None:
    """Each character of a text written once that stands for a byte of UTF-8 in Windows-1252."""
    lone = [chr(b) if b < 0x80 else bytes([b]).decode("cp1252", "ignore") for b in range(0x80, 0x100)]
    for c in filter(None, lone):
        data = f"{c} and more".encode()
        assert container.decode_text(data, "x.txt") == f"{c} and more"
    assert codecs.lookup(container.TWICE).name == container.TWICE


# --- a part of a file -----------------------------------------------------------------------------------------

_CAKE = "ðŸŽ‚ is how my old phone shows the cake"  # an emoji encoded twice, written so by a person


def test_bytes_appended_after_a_mark_are_read_in_the_encoding_the_file_was(tmp_path: Path) -> None:
    """The bytes after a WhatsApp chat's mark are read as the file's start told (UTF-8), not told on their
    own: before, an appended message that proved nothing but its own bytes was read as encoded twice
    ("🎂"). (The line logs' ``linelog.iter_text`` read them as UTF-8 already.)"""
    old = JONAS.read_bytes()
    line = f"26/06/2026, 19:35 - Maya: {_CAKE}\n"
    resumed, _ = reimported(tmp_path, JONAS.name, [old, old + line.encode()], len(old))
    assert any(_CAKE in repr(row) for row in resumed[1])


def test_a_file_encoded_twice_leaves_no_mark_and_is_read_whole_when_it_grows(tmp_path: Path) -> None:
    """Its bytes are not its text's: a grown file is read whole, in the encoding its start tells, so that
    one pair appended ("Ã©", nothing on its own) is read as first written too."""
    old = JONAS.read_text().encode(container.TWICE)
    new = old + "26/06/2026, 19:35 - Maya: café?\n".encode(container.TWICE)
    resumed, _ = reimported(tmp_path, JONAS.name, [old, new], None)
    assert any("café?" in repr(row) for row in resumed[1])
