"""Issue 24, item 4 (session 11): `forget --matching` reads a long text in pieces. Handed to the matching function
whole, a 50-MB message was loaded by SQLite, copied into Python and case-folded (180 MB for the command);
now a text over ``_PIECE_BYTES`` is read through blob I/O a piece at a time, folded piece by piece, with the
end of the last piece kept for a needle that a piece's end cuts. Python memory by tracemalloc."""

from __future__ import annotations

import tracemalloc
from datetime import UTC
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from refind_cli.ingest import import_file
from refind_cli.storage import queries
from refind_cli.storage.archive import Archive

MB = 1 << 20


def _archive_with(folder: Path, texts: list[str]) -> Archive:
    """An archive of a WhatsApp chat of ``texts``, a minute apart."""
    folder.mkdir()
    path = folder / "WhatsApp Chat with Jack.txt"
    path.write_text("".join(f"01/02/2024, 11:{i:02d} - Jack: {text}\n" for i, text in enumerate(texts)))
    archive = Archive.open(folder / "home")
    assert import_file(archive, path, tz=UTC).error is None
    return archive


def test_matching_a_huge_message_reads_it_in_pieces(tmp_path: Path):
    body = "all work and no play makes jack a dull boy " * (8 * MB // 43)
    archive = _archive_with(tmp_path / "in", ["hi", body + "Straße", "ok"])
    try:
        tracemalloc.start()
        try:
            found = archive.select_messages(matching="STRASSE")
            missed = archive.select_messages(matching="nowhere")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    finally:
        archive.close()
    assert [seq for seq, _, _ in found] == [2] and missed == []
    # Before: the text and its folded copy (2 times the message, beside SQLite's own copy).
    assert peak < len(body) / 4, f"{peak / len(body):.2f} times the message"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=st.text(st.sampled_from("aßSsİi\u0307ﬁé€𝄞 "), min_size=1, max_size=60),
    needle=st.text(st.sampled_from("aßSsİi\u0307ﬁé€𝄞"), min_size=1, max_size=4),
    piece=st.integers(1, 9),
)
def test_a_text_read_in_pieces_matches_as_read_whole(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    needle: str,
    piece: int,
):
    """Pieces of a few bytes cut characters of 2 to 4 bytes, and needles whose folding is longer than they
    are (ß: ss, İ: i̇, ﬁ: fi) cross the cuts."""
    monkeypatch.setattr(queries, "_PIECE_BYTES", piece)
    # "✓" is no byte of UTF-8 in Windows-1252: the chat proves it was written once, so a text such as
    # "é€€" (how "退" reads encoded twice) is read as written, not repaired (tests/test_mojibake2.py).
    archive = _archive_with(tmp_path_factory.mktemp("m") / "in", ["x ✓", text])
    try:
        found = [seq for seq, _, _ in archive.select_messages(matching=needle)]
    finally:
        archive.close()
    assert found == ([2] if needle.casefold() in text.casefold() else [])
