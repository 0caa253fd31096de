"""Files that are not chat exports, as a new user (or an attacker) hands them to `refind import`: no format's
sniff takes them, the import is one line on stderr and exit 2, and naming a format never ends in a
traceback. One table for every registered format, so that a new importer is checked against all of them."""

from __future__ import annotations

import io
import tarfile
import warnings
import zipfile
from datetime import UTC
from pathlib import Path

import pytest
from cli_runs import run
from samples import JONAS

from refind_cli import facade, importers
from refind_cli.errors import InputError
from refind_cli.storage.archive import Archive


def _zip(members: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return out.getvalue()


def _tar(members: dict[str, str], mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as tf:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tf.addfile(info, io.BytesIO(text.encode()))
    return out.getvalue()


NOT_EXPORTS: dict[str, bytes] = {
    "feed.xml": b'<?xml version="1.0"?>\n<rss version="2.0"><channel><title>News</title><item><title>Hi</title>'
    b"<pubDate>Fri, 19 Jan 2018 21:30:00 GMT</pubDate></item></channel></rss>\n",
    "atom.xml": b'<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>x'
    b"</title><entry><updated>2024-01-05T14:22:01Z</updated></entry></feed>\n",
    "novel.txt": b'CHAPTER ONE\n\nIt was the best of times, it was the worst of times.\n\n"Hello," she said.'
    b"\n\n10:30 the train left.\n21:30, Anna : the last line\n",
    "page.html": b"<!DOCTYPE html>\n<html><head><title>Blog</title></head><body><h1>Post</h1>"
    b"<p>2024/1/23 21:30 hello</p></body></html>\n",
    "conversations-string.json": b'{"conversations": "none"}',
    "conversations-number.json": b'{"conversations": 5}',
    "conversations-null.json": b'{"conversations": null}',
    "conversations-object.json": b'{"conversations": {"a": 1}}',
    "conversations-numbers.json": b'{"conversations": [1, 2]}',
    "conversations-strings.json": b'{"conversations": ["a"]}',
    "conversations-lists.json": b'{"conversations": [[]]}',
    "messages-string.json": b'{"messages": "nope"}',
    "empty-object.json": b"{}",
    "empty.zip": _zip({}),
    "notes.zip": _zip({"notes.txt": "hello world\n", "todo.md": "- milk\n"}),
    "notes.tgz": _tar({"notes/notes.txt": "hello world\n", "notes/todo.md": "- milk\n"}),
    "photos.tar": _tar({"IMG_0001.jpg": "\xff\xd8 not really"}, "w"),
    "notes-utf16.txt": "Some notes\r\n\r\n10:30 the train left.\r\n".encode("utf-16"),
    "contacts.csv": b"name,email,phone\nBob,bob@example.com,123\n",
    "bank.csv": b"Date,Amount,Description\n2024-01-05,12.50,Coffee\n",
    # KakaoTalk's three columns are read in any order and beside others (a spreadsheet's round trip), but
    # all three are its own.
    "almost-kakao.csv": b"Date,User,Text,Extra\n2024-01-05 14:22:01,Bob,hi,x\n",
    "table.md": b"# Notes\n\n| Date | Who | What |\n|---|---|---|\n| 2024-01-05 | Bob | hi |\n",
    "mail.eml": b"From: Alice <a@example.com>\nTo: Bob\nSubject: hi\nDate: Mon, 2 Jan 2006 15:04:05 -0700\n\nHi\n",
    "calendar.ics": b"BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nDTSTART:20240105T142201Z\nEND:VEVENT\n"
    b"END:VCALENDAR\n",
    "junk.bin": bytes(range(256)) * 8,
    "conversation-only.txt": b"Conversation: Bob\n\nWe talked about the weather.\n",
}


def _write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_bytes(NOT_EXPORTS[name])
    return path


@pytest.mark.parametrize("name", sorted(NOT_EXPORTS))
def test_no_format_takes_it_and_the_import_is_one_line_exit_2(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    with pytest.raises(InputError):
        importers.detect(path)
    r = run(tmp_path / "home", "import", str(path))
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"refind: error: {path}"), r.stderr
    # Nothing half-written: the home this import would have created is not left behind, empty.
    assert not (tmp_path / "home").exists()


def test_a_bad_file_leaves_a_home_it_did_not_create_as_it_was(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run(home, "import", str(JONAS)).exit_code == 0
    r = run(home, "import", str(_write(tmp_path, "novel.txt")))
    assert r.exit_code == 2, r.output
    assert (home / "archive.db").is_file() and (home / "index").is_dir()
    with Archive.open(home) as archive:
        assert len(list(archive.chats())) == 1


def test_a_home_another_import_filled_after_this_one_found_it_missing_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    assert run(home, "import", str(JONAS)).exit_code == 0
    # As if this import had looked before the other one created the home, then waited for its lock.
    monkeypatch.setattr(facade.os.path, "lexists", lambda path: False)
    assert run(home, "import", str(_write(tmp_path, "novel.txt"))).exit_code == 2
    with Archive.open(home) as archive:
        assert len(list(archive.chats())) == 1


def test_a_new_home_that_one_of_several_files_imported_into_is_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    r = run(home, "import", str(_write(tmp_path, "novel.txt")), str(JONAS))
    assert r.exit_code == 2, r.output
    with Archive.open(home) as archive:
        assert len(list(archive.chats())) == 1
    assert run(home, "search", "--json", "phone").exit_code == 0  # the index was built too


@pytest.mark.parametrize("name", sorted(NOT_EXPORTS))
def test_naming_any_format_is_an_input_error_or_nothing_never_a_crash(tmp_path: Path, name: str) -> None:
    """`--format X` on something that is not X: refused as X would refuse it, or read as an empty export
    where the format allows one (ChatGPT's ``[]``); no other exception, and never a message made up."""
    path = _write(tmp_path, name)
    for fmt in importers.names():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                read = sum(sum(1 for _ in chat.messages) for chat in importers.read_export(path, fmt, UTC))
            except InputError:
                continue
        assert read == 0, fmt


def test_a_tar_bomb_is_one_line_exit_2_and_named(tmp_path: Path, monkeypatch) -> None:
    from refind_cli.importers import container

    monkeypatch.setattr(container, "RATIO_FLOOR_BYTES", 1 << 16)
    path = tmp_path / "Takeout.tgz"
    path.write_bytes(_tar({f"Takeout/{n}.json": "\0" * (1 << 16) for n in range(40)}))
    r = run(tmp_path / "home", "import", str(path))
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"refind: error: {path}"), r.stderr
    assert "refusing a tar bomb" in lines[0]
