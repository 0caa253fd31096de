"""Archives that hold several exports: a folder of exports zipped (with or without the folder itself), the
exports folder as a tarball, archives inside archives. Each export in one is imported as it is loose: the
same formats, chats, counts, messages and messages on stderr; importing the archive again is "unchanged",
export by export. The archives are built from a listing of sample_exports/, so a sample added later is held
to the same. Then what an attacker would pack: archives nested without end, a folder in an archive that is
no export, the same export twice, names that climb out, a flood of entries."""

from __future__ import annotations

import io
import json
import tarfile
import time
import warnings
import zipfile
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

import pytest
from cli_runs import run
from samples import SAMPLES

from refind_cli import importers
from refind_cli.errors import InputError
from refind_cli.importers import container

TZ = ("--tz", "Europe/Berlin")


def _listing(folder: Path, prefix: str = "") -> dict[str, bytes]:
    """Every file below ``folder`` by its name from there (after ``prefix``), as a person's zip tool packs it."""
    return {
        prefix + p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return out.getvalue()


def _tar(files: dict[str, bytes], mode: str = "w:gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return out.getvalue()


# Each packing of sample_exports/: the archive's name, its bytes, and the folder in it the samples lie in.
Packing = Callable[[], tuple[str, bytes, str]]
PACKINGS: dict[str, Packing] = {
    "zip": lambda: ("all.zip", _zip(_listing(SAMPLES)), ""),
    "tgz-of-the-folder": lambda: ("exports.tgz", _tar(_listing(SAMPLES, "sample_exports/")), "sample_exports/"),
}


def _import(home: Path, path: Path) -> tuple[int, list[dict], list[str]]:
    r = run(home, "import", *TZ, "--json", str(path))
    return r.exit_code, json.loads(r.stdout)["files"], r.stderr.splitlines()


def _chats(files: list[dict]) -> list[tuple[object, ...]]:
    """What an import reported, without where: each chat's format, name and counts, and each error."""
    return sorted(
        [
            (f["format"], c["name"], c["messages_added"], c["messages_skipped"], c["sessions"], c["turns"])
            for f in files
            for c in f["chats"]
        ]
        + [("error", f["error"]) for f in files if f["error"]]
    )


def _tops(files: list[dict], root: Path) -> set[tuple[str, str]]:
    """Each export's first name below ``root`` (a sample's file or folder name), with its format."""
    return {(Path(f["path"]).relative_to(root).parts[0], f["format"]) for f in files}


def _messages(path: Path) -> list[tuple[str, str, str, str | None, str]]:
    """Every message the import path reads from ``path`` (``exports_in``, then ``read_export``)."""
    read = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for export in importers.exports_in(path):
            for chat in importers.read_export(export, "auto", UTC):
                read += [
                    (chat.chat.source, chat.chat.key, m.timestamp.isoformat(), m.sender, m.text)
                    for m in chat.messages
                ]
    return sorted(read, key=repr)


@pytest.fixture(scope="module")
def loose(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, list[dict], list[str]]:
    return _import(tmp_path_factory.mktemp("loose") / "home", SAMPLES)


@pytest.mark.parametrize("packing", PACKINGS)
def test_an_archive_of_every_sample_imports_each_export_as_it_imports_loose_and_again_unchanged(
    tmp_path: Path, packing: str, loose: tuple[int, list[dict], list[str]]
) -> None:
    name, data, inside = PACKINGS[packing]()
    archive = tmp_path / name
    archive.write_bytes(data)
    code, files, stderr = _import(tmp_path / "home", archive)
    loose_code, loose_files, loose_stderr = loose
    assert (code, _chats(files)) == (loose_code, _chats(loose_files))
    # Every sample the loose import took, each by the importer that took it (not one format for all).
    assert _tops(files, archive / inside) == _tops(loose_files, SAMPLES)
    assert len({f["format"] for f in files}) == len(importers.names())
    where = f"{archive / inside}".rstrip("/") + "/"
    assert [line.replace(where, f"{SAMPLES}/") for line in stderr] == loose_stderr
    assert _messages(archive) == _messages(SAMPLES)
    again = _import(tmp_path / "home", archive)
    assert again[0] == code
    assert [f["path"] for f in again[1] if not f["unchanged"]] == []


def test_a_folder_holding_archives_of_exports_and_loose_exports_takes_each(tmp_path: Path) -> None:
    priya, claude, grok = SAMPLES / "Priya Nair.txt", SAMPLES / "claude-export", SAMPLES / "grok-export"
    (tmp_path / "assistants.zip").write_bytes(
        _zip({**_listing(claude, "claude/"), **_listing(grok, "grok/")})
    )
    (tmp_path / priya.name).write_bytes(priya.read_bytes())
    (tmp_path / "slack.tgz").write_bytes(_tar(_listing(SAMPLES / "slack-export-acme", "acme/")))
    assert [
        (p.relative_to(tmp_path).as_posix(), importers.detect(p)) for p in importers.exports_in(tmp_path)
    ] == [
        (priya.name, "imessage"),
        ("assistants.zip/claude", "claude"),
        ("assistants.zip/grok", "grok"),
        ("slack.tgz", "slack"),  # one export: read whole, as a zip of it is
    ]


def test_a_zip_of_one_export_and_a_chat_beside_it_is_not_taken_for_the_one_export(tmp_path: Path) -> None:
    # Claude's sniff finds conversations.json at any depth, but the chat beside the export is not Claude's.
    priya = SAMPLES / "Priya Nair.txt"
    both = tmp_path / "both.zip"
    both.write_bytes(
        _zip(
            {**_listing(SAMPLES / "claude-export", "mine/claude/"), f"mine/{priya.name}": priya.read_bytes()}
        )
    )
    assert [(p.relative_to(both).as_posix(), importers.detect(p)) for p in importers.exports_in(both)] == [
        (f"mine/{priya.name}", "imessage"),
        ("mine/claude", "claude"),
    ]
