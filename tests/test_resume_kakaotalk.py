"""KakaoTalk's macOS CSV and its zipped phone exports go on from where the last import's reading stopped, as
its loose text does (``ingest.resume``): after an append the archive is exactly as a full re-read of the new
file would leave it, and after an edit or a deletion in the middle the file is read whole, to the same end."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_resume_import import BERLIN, both_ways

from refind_cli import importers
from refind_cli.errors import InputError

HEADER = b"Date,User,Message\n"


def record(i: int, edit: bool = False) -> bytes:
    text = f"message {i} about the move" + " (edited)" * edit
    if i % 7 == 3:  # a text with a line break and quotes, which spans lines inside its quotes
        text += '\nand a second line, "quoted"'
    quoted = text.replace('"', '""')
    sender = "민지" if i % 3 else "Maya"
    return (
        f'2025-07-{6 + i // 100:02d} {10 + i // 60 % 10:02d}:{i % 60:02d}:00,"{sender}","{quoted}"\n'.encode()
    )


def csv_file(n: int, edit: int | None = None, gone: int | None = None) -> bytes:
    return HEADER + b"".join(record(i, i == edit) for i in range(n) if i != gone)


@pytest.mark.parametrize("change", ["append", "edit", "deletion"])
def test_a_grown_csv_goes_on_from_its_mark_and_stores_what_a_full_reading_would(tmp_path: Path, change: str):
    later = csv_file(90, edit=20 if change == "edit" else None, gone=30 if change == "deletion" else None)
    versions = [csv_file(60), later, later + b"".join(record(i) for i in range(90, 120))]
    resumed, reread, results = both_ways(tmp_path, "KakaoTalk_Chat_Maya.csv", versions)
    assert resumed == reread
    if change == "append":
        assert results[1].resumed_at == len(versions[0])
        assert results[1].chats[0].messages_added == 30
    else:
        assert results[1].resumed_at is None  # changed before the mark: read whole
        assert results[1].chats[0].messages_added == (31 if change == "edit" else 30)
    # The next import goes on from the mark the one before left.
    assert results[2].resumed_at == len(later)


def test_a_csv_read_from_its_mark_yields_what_a_whole_reading_yields_after_it(tmp_path: Path):
    path = tmp_path / "KakaoTalk_Chat_Maya.csv"
    path.write_bytes(csv_file(40) + b"\n")  # a blank line at the end, counted
    [export] = importers.read_export(path, "kakaotalk", BERLIN)
    before = list(export.messages)
    assert export.end is not None
    mark = export.end()
    assert mark is not None and mark.offset == path.stat().st_size
    path.write_bytes(csv_file(40) + b"\n" + b"".join(record(i) for i in range(40, 50)))
    [whole] = importers.read_export(path, "kakaotalk", BERLIN)
    everything = list(whole.messages)
    [after] = importers.read_export(path, "kakaotalk", BERLIN, mark)
    assert before + list(after.messages) == everything
    assert after.end is not None and whole.end is not None and after.end() == whole.end()


def test_an_error_after_the_mark_names_its_line_as_a_whole_reading_does(tmp_path: Path):
    path = tmp_path / "KakaoTalk_Chat_Maya.csv"
    path.write_bytes(csv_file(10))
    [export] = importers.read_export(path, "kakaotalk", BERLIN)
    list(export.messages)
    assert export.end is not None
    mark = export.end()
    path.write_bytes(csv_file(10) + b'someday,"Maya","hi"\n')
    errors = []
    for after in (None, mark):
        [grown] = importers.read_export(path, "kakaotalk", BERLIN, after)
        with pytest.raises(InputError) as caught:
            list(grown.messages)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "line 13" in errors[0], errors
