"""The importer registry: a format added by registration alone, which paths an import takes (folders of
exports, FIFOs and devices, unreadable files)."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from datetime import UTC
from pathlib import Path

import pytest
import toy_importer
from cli_runs import refind
from samples import FAMILY, JONAS, SLACK, TELEGRAM
from typer.testing import CliRunner

import refind_cli.frontends.cli.imports  # noqa: F401  (registers the command)
from refind_cli import importers
from refind_cli.frontends.cli import app
from refind_cli.index.tantivy_backend import TantivyIndex as Index
from refind_cli.ingest import import_file
from refind_cli.method import search
from refind_cli.request import SearchRequest
from refind_cli.storage.archive import Archive

runner = CliRunner()

TOY = """TOYCHAT Kitchen helper
2026-03-01T10:00:00+00:00|me|how long do I boil an artichoke
2026-03-01T10:00:05+00:00|bot|about forty minutes, until a leaf pulls out easily
2026-03-01T10:01:00+00:00|me|and the dip
2026-03-01T10:01:04+00:00|bot|melted butter with lemon
"""


@pytest.fixture
def toy() -> Iterator[importers.Importer]:
    with importers.registered(toy_importer.IMPORTER) as importer:
        yield importer


def test_a_registered_format_imports_is_found_and_pairs_as_it_declares(tmp_path: Path, toy):
    export = tmp_path / "kitchen.toy"
    export.write_text(TOY, encoding="utf-8")
    home = tmp_path / "home"
    with Archive.open(home) as archive:
        result = import_file(archive, export, fmt="auto", tz=UTC)
        assert result.error is None and result.format == "toy"
        index = Index.open(home)
        index.sync(archive)
        found = search.search(archive, index, SearchRequest("artichoke"))
        assert found.hits and found.hits[0].chat.name == "Kitchen helper"
        # "exchange": each question and its answer are one turn, where bursts would make four.
        turns = [t.text for t in archive.iter_turns()]
    assert turns == [
        "me: how long do I boil an artichoke\nbot: about forty minutes, until a leaf pulls out easily",
        "me: and the dip\nbot: melted butter with lemon",
    ]


def test_a_registered_format_is_a_format_choice_and_listed_as_supported(tmp_path: Path, toy):
    export = tmp_path / "kitchen.toy"
    export.write_text(TOY, encoding="utf-8")
    r = runner.invoke(
        app, ["--home", str(tmp_path / "home"), "import", "--format", "toy", "--json", str(export)]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["files"][0]["chats"][0]["messages_added"] == 4
    notes = tmp_path / "notes.txt"
    notes.write_text("not a chat\n")
    r = runner.invoke(app, ["--home", str(tmp_path / "home"), "import", str(notes)])
    assert f"supported: {', '.join(importers.names())}" in r.stderr
    assert importers.names()[-1] == "toy"


def test_a_registration_ends_with_its_block():
    built_in = importers.names()
    with importers.registered(toy_importer.IMPORTER):
        assert importers.names()[-1] == "toy"
        with pytest.raises(ValueError, match="registered already"):
            importers.register(toy_importer.IMPORTER)
    assert importers.names() == built_in and "toy" not in built_in


def test_a_format_with_an_unknown_pairing_fails_on_first_use(tmp_path: Path):
    odd = importers.Importer("odd", toy_importer.__name__, takes=("file",), pairing="pairs")
    with importers.registered(odd), pytest.raises(ValueError, match="pairing"):
        odd.sniff(tmp_path)


# --- a folder of exports --------------------------------------------------------------------------------


def exports_folder(root: Path) -> Path:
    """What a user's ~/exports may hold: loose WhatsApp chats, a Telegram result.json, a Slack export folder,
    an unpacked WhatsApp export with its media, a Telegram export folder whose attachments include text."""
    root.mkdir()
    shutil.copy(JONAS, root)
    shutil.copy(FAMILY, root)
    shutil.copy(TELEGRAM, root / "result.json")
    shutil.copytree(SLACK, root / "work" / "slack-export-acme")
    unpacked = root / "WhatsApp Chat - Family"
    unpacked.mkdir()
    shutil.copy(JONAS, unpacked / "WhatsApp Chat with Jonas Becker.txt")
    (unpacked / "IMG-20260301-WA0001.jpg").write_bytes(b"\xff\xd8\xff\xe0" + bytes(500))
    (unpacked / "PTT-20260301-WA0002.opus").write_bytes(b"OggS" + bytes(500))
    (unpacked / "notes.txt").write_text("a shopping list, not a chat\n")
    (root / ".DS_Store").write_bytes(bytes(64))
    telegram = root / "ChatExport_2026-03-01"
    (telegram / "files").mkdir(parents=True)
    shutil.copy(TELEGRAM, telegram / "result.json")
    (telegram / "files" / "minutes.txt").write_text("an attachment, not an export\n")
    return root


def test_a_folder_of_exports_imports_each_and_passes_over_what_is_not_one(tmp_path: Path):
    root = exports_folder(tmp_path / "exports")
    r = runner.invoke(app, ["--home", str(tmp_path / "home"), "import", "--tz", "UTC", "--json", str(root)])
    files = json.loads(r.stdout)["files"]
    imported = {Path(f["path"]).relative_to(root).as_posix(): f["format"] for f in files if f["chats"]}
    assert imported == {
        "ChatExport_2026-03-01": "telegram",  # one export: its files/ are not looked into
        "WhatsApp Chat - Family.zip": "whatsapp",
        "WhatsApp Chat - Family/WhatsApp Chat with Jonas Becker.txt": "whatsapp",
        "WhatsApp Chat with Jonas Becker.txt": "whatsapp",
        "result.json": "telegram",
        "work/slack-export-acme": "slack",
    }
    # The one file named like an export that no importer recognises is passed over with a warning, as
    # Takeout's archive_browser.html is beside its chats; photos and voice notes are passed over silently.
    assert r.stderr.splitlines() == [
        f"refind: warning: {root}/WhatsApp Chat - Family/notes.txt: passed over: "
        "no importer recognises it as a chat export"
    ]
    assert [f["error"] for f in files] == [None] * len(files)
    assert r.exit_code == 0


def test_a_folder_that_holds_no_export_is_an_error_for_each_file_named_like_one(tmp_path: Path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "todo.txt").write_text("buy milk\n")
    (root / "index.html").write_text("<html></html>")
    r = runner.invoke(app, ["--home", str(tmp_path / "home"), "import", str(root)])
    assert r.exit_code == 2
    assert [line.split(": unknown export format")[0] for line in r.stderr.splitlines()] == [
        f"refind: error: {root}/index.html",
        f"refind: error: {root}/todo.txt",
    ]
    assert not (tmp_path / "home").exists()


def test_exports_in_a_folder_are_found_without_descending_into_exports(tmp_path: Path):
    root = exports_folder(tmp_path / "exports")
    (root / "result.json").unlink()
    found = [p.relative_to(root).as_posix() for p in importers.exports_in(root)]
    assert found == [
        "ChatExport_2026-03-01",
        "WhatsApp Chat - Family/WhatsApp Chat with Jonas Becker.txt",
        "WhatsApp Chat - Family/notes.txt",
        "WhatsApp Chat - Family.zip",
        "WhatsApp Chat with Jonas Becker.txt",
        "work/slack-export-acme",
    ]
    # An export named on the command line is itself, folder or not; so is a folder with nothing in it.
    assert list(importers.exports_in(SLACK)) == [SLACK]
    assert list(importers.exports_in(root / "ChatExport_2026-03-01")) == [root / "ChatExport_2026-03-01"]
    (tmp_path / "empty").mkdir()
    assert list(importers.exports_in(tmp_path / "empty")) == [tmp_path / "empty"]
    # With a format, only its exports are looked for.
    assert [p.name for p in importers.exports_in(root, "slack")] == [
        "WhatsApp Chat - Family.zip",
        "slack-export-acme",
    ]


# --- paths that are not regular files -------------------------------------------------------------------


def refind_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    """refind without the capabilities that let root read any file, so that permissions apply."""
    return refind(*args, timeout=60, preexec_fn=_drop_root_file_access if os.geteuid() == 0 else None)


def _drop_root_file_access() -> None:
    # PR_CAPBSET_DROP for CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: the program this child runs cannot
    # bypass file permissions, even as root.
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("fmt", ["auto", "whatsapp"])
def test_a_fifo_or_device_named_like_an_export_is_refused_before_reading(tmp_path: Path, fmt: str):
    fifo = tmp_path / "WhatsApp Chat with Nobody.txt"
    os.mkfifo(fifo)
    zero = tmp_path / "WhatsApp Chat - Zero.zip"
    zero.symlink_to("/dev/zero")
    home = str(tmp_path / "home")
    r = refind("--home", home, "import", "--tz", "UTC", "--format", fmt, str(fifo), str(zero), str(JONAS))
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        f"refind: error: {fifo}: is a FIFO (named pipe), not a regular file or folder",
        f"refind: error: {zero}: is a character device, not a regular file or folder",
    ]
    with Archive.open(Path(home)) as archive:
        assert [c.info.name for c in archive.chats()] == ["Jonas Becker"]


def test_an_unreadable_file_is_one_error_line_and_the_others_import(tmp_path: Path):
    locked = tmp_path / "WhatsApp Chat with Locked.txt"
    shutil.copy(JONAS, locked)
    locked.chmod(0)
    home = tmp_path / "home"
    r = refind_unprivileged("--home", str(home), "import", "--tz", "UTC", str(locked), str(FAMILY))
    assert r.returncode == 2
    assert r.stderr.splitlines() == [f"refind: error: {locked}: cannot read (Permission denied)"]
    with Archive.open(home) as archive:
        assert [c.info.name for c in archive.chats()] == ["Family"]
