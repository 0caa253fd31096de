"""An export inside a zip of several (``x.zip/member``, as ``importers.exports_in`` hands each on) goes on
from where its last reading stopped as a loose file does: the ledger hashes the member's bytes, the reader
reads it from the mark on. After an append, an edit in the middle and a deletion the archive is exactly as a
full re-read of the new zip would leave it."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from test_resume_import import BERLIN, GROWING, archive_rows, both_ways, lines_of

from refind_cli.importers import exports_in
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive


def telegram_chat(n: int, edit: int | None = None, gone: int | None = None) -> bytes:
    messages = [
        {
            "id": i,
            "type": "message",
            "date": f"2024-02-01T10:{i // 60:02d}:{i % 60:02d}",
            "date_unixtime": str(1_706_781_600 + i),
            "from": "Mia",
            "from_id": "user5",
            "text": f"message {i}" + " (edited)" * (i == edit),
        }
        for i in range(n)
        if i != gone
    ]
    # Long enough to leave a mark between two messages (a read block ends before the last ones).
    for m in messages:
        m["text"] += " " + "padding " * 400
    return json.dumps(
        {"name": "Mia", "type": "personal_chat", "id": 5, "messages": messages}, indent=1
    ).encode()


def line_logs(change: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
    earlier, later = {}, {}
    for fmt in ("whatsapp", "line"):
        lines = lines_of(GROWING[fmt])
        cut = len(lines) * 2 // 3
        old = lines[:cut]
        new = list(lines)
        if change == "edit":  # a message's words, a third of the way in
            n = next(i for i in range(len(new) // 3, cut) if b"\t" in new[i] or b": " in new[i])
            new[n] = new[n].rstrip(b"\r\n") + b" (edited)" + new[n][len(new[n].rstrip(b"\r\n")) :]
        elif change == "deletion":
            del new[4]
        earlier[GROWING[fmt].name], later[GROWING[fmt].name] = b"".join(old), b"".join(new)
    return earlier, later


def zipped(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


@pytest.mark.parametrize("change", ["append", "edit", "deletion"])
def test_each_member_goes_on_from_its_mark_and_stores_what_a_full_reading_would(tmp_path: Path, change: str):
    earlier, later = line_logs(change)
    out, resumed_at = [], []
    for way in ("resume", "reread"):
        path = tmp_path / way / "chats.zip"
        path.parent.mkdir()
        with Archive.open(tmp_path / way / "home") as archive:
            for members, last in ((earlier, False), (later, True)):
                zipped(path, members)
                for member in exports_in(path):
                    result = import_file(archive, member, tz=BERLIN, reread=last and way == "reread")
                    assert result.error is None, result.error
                    if last and way == "resume":
                        resumed_at.append(result.resumed_at)
            out.append(archive_rows(archive))
    assert out[0] == out[1]
    assert len(resumed_at) == 2
    if change == "append":
        assert all(at is not None for at in resumed_at), resumed_at  # every member went on from its mark
    else:
        assert resumed_at == [None, None]  # changed before the mark: read whole


@pytest.mark.parametrize("change", ["append", "edit", "deletion"])
def test_a_zipped_telegram_chat_goes_on_from_its_mark_and_stores_what_a_full_reading_would(
    tmp_path: Path, change: str
):
    earlier = telegram_chat(60)
    later = telegram_chat(
        90, edit=10 if change == "edit" else None, gone=12 if change == "deletion" else None
    )
    made = tmp_path / "made.zip"
    versions = []
    for data in (earlier, later, telegram_chat(120)):
        zipped(made, {"ChatExport_2024-02-01/result.json": data})
        versions.append(made.read_bytes())
    resumed, reread, results = both_ways(tmp_path / "ways", "Telegram.zip", versions)
    assert resumed == reread
    if change == "append":
        assert results[1].resumed_at is not None and results[2].resumed_at is not None
    else:
        assert results[1].resumed_at is None  # changed before the mark: read whole
