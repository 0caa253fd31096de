"""Every single-file export in sample_exports/, as the tools people use rewrite it: saved again with other
line ends or in UTF-16 (Windows Notepad, PowerShell's ``>``), a BOM added or lost, JSON pretty-printed or
escaped, zipped (at the root or in a folder) or put in a tarball. Each rewrite keeps everything an import
needs, so each must import as the original does: the same messages, read through the path ``refind import``
takes (``exports_in``, then ``read_export`` of each export found). The samples are found by listing the
folder, so a format added later is held to the same."""

from __future__ import annotations

import functools
import io
import json
import tarfile
import warnings
import zipfile
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

import pytest
from samples import SAMPLES

from refind_cli import importers
from refind_cli.errors import InputError, InputWarning
from refind_cli.importers import container
from refind_cli.ingest import import_file
from refind_cli.storage.archive import Archive


def _single_file_exports() -> list[Path]:
    """The sample files an importer recognises that are not archives: the single-file exports."""
    found = []
    for path in sorted(SAMPLES.iterdir()):
        if not path.is_file() or importers.path_kind(path) != "file":
            continue
        try:
            importers.detect(path)
        except InputError:
            continue  # the generator scripts and the README
        found.append(path)
    return found


EXPORTS = _single_file_exports()


def _text(data: bytes) -> str:
    return data.decode("utf-8-sig")


def _unix(data: bytes) -> str:
    return _text(data).replace("\r\n", "\n")


def _json(data: bytes, **options: object) -> str:
    return json.dumps(json.loads(_text(data)), **options)  # type: ignore[arg-type]


def _zip(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(name, data)
    return out.getvalue()


def _tgz(name: str, data: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tf:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return out.getvalue()


# Each rewrite: (the file's new name, its new bytes), from the original's name and bytes.
Rewrite = Callable[[str, bytes], tuple[str, bytes]]
TEXT_REWRITES: dict[str, Rewrite] = {
    "crlf": lambda n, d: (n, _unix(d).replace("\n", "\r\n").encode()),
    "cr-only": lambda n, d: (n, _unix(d).replace("\n", "\r").encode()),
    "lf-only": lambda n, d: (n, _unix(d).encode()),
    "bom-toggled": lambda n, d: (n, d[3:] if d.startswith(b"\xef\xbb\xbf") else b"\xef\xbb\xbf" + d),
    "utf-16-le-bom": lambda n, d: (n, b"\xff\xfe" + _text(d).encode("utf-16-le")),
    "utf-16-be-bom": lambda n, d: (n, b"\xfe\xff" + _text(d).encode("utf-16-be")),
    "utf-16-le-no-bom": lambda n, d: (n, _text(d).encode("utf-16-le")),
    "utf-32-bom": lambda n, d: (n, _text(d).encode("utf-32")),
    "no-final-newline": lambda n, d: (n, d.rstrip(b"\r\n")),
}
JSON_REWRITES: dict[str, Rewrite] = {
    "json-ascii": lambda n, d: (n, _json(d, ensure_ascii=True).encode()),
    "json-indent": lambda n, d: (n, _json(d, ensure_ascii=False, indent=4).encode()),
    "json-sorted": lambda n, d: (n, _json(d, ensure_ascii=False, sort_keys=True).encode()),
    "json-crlf": lambda n, d: (n, _json(d, ensure_ascii=False, indent=2).replace("\n", "\r\n").encode()),
}
PACKINGS: dict[str, Rewrite] = {
    "zipped": lambda n, d: (n.rsplit(".", 1)[0] + ".zip", _zip(n, d)),
    "zipped-in-a-folder": lambda n, d: ("export.zip", _zip(f"My export/{n}", d)),
    "tgz": lambda n, d: ("takeout.tgz", _tgz(f"Takeout/{n}", d)),
}


def _cases() -> list[tuple[Path, str]]:
    cases = []
    for path in EXPORTS:
        rewrites = [*TEXT_REWRITES, *PACKINGS]
        if path.suffix.lower() == ".json":
            rewrites += list(JSON_REWRITES)
        cases += [(path, rewrite) for rewrite in rewrites]
    return cases


@functools.cache
def _original(path: Path) -> list[tuple[str, str, str | None, str]]:
    return _messages(path)


def _messages(path: Path) -> list[tuple[str, str, str | None, str]]:
    """What an import of ``path`` reads: each chat's name with its messages' times, senders and texts."""
    read = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for export in importers.exports_in(path):
            for chat in importers.read_export(export, "auto", UTC):
                read += [(chat.chat.key, m.timestamp.isoformat(), m.sender, m.text) for m in chat.messages]
    return read


def test_the_samples_hold_single_file_exports_of_many_formats() -> None:
    assert len({importers.detect(p) for p in EXPORTS}) >= 8, EXPORTS


@pytest.mark.parametrize(("export", "rewrite"), _cases(), ids=lambda c: c.name if isinstance(c, Path) else c)
def test_a_rewritten_export_imports_as_the_original(tmp_path: Path, export: Path, rewrite: str) -> None:
    change = {**TEXT_REWRITES, **JSON_REWRITES, **PACKINGS}[rewrite]
    name, data = change(export.name, export.read_bytes())
    rewritten = tmp_path / name
    rewritten.write_bytes(data)
    original = _original(export)
    assert original
    assert _messages(rewritten) == original


def _packed_exports() -> list[Path]:
    """The sample exports that are folders or zips: each is tarred (or zipped) whole below."""
    return [p for p in sorted(SAMPLES.iterdir()) if importers.path_kind(p) in ("folder", "zip")]


def _files(export: Path) -> dict[str, bytes]:
    """An export's files by their names inside it: a folder's (the folder's name above them), or a zip's."""
    if export.is_dir():
        return {
            f"{export.name}/{f.relative_to(export).as_posix()}": f.read_bytes()
            for f in export.rglob("*")
            if f.is_file()
        }
    with zipfile.ZipFile(export) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist() if not i.is_dir()}


def _tarred(files: dict[str, bytes], mode: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as tf:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.mark.parametrize("export", _packed_exports(), ids=lambda p: p.name)
def test_a_folder_or_zip_export_tarred_or_zipped_again_imports_as_the_original(
    tmp_path: Path, export: Path
) -> None:
    files = _files(export)
    name = container.archive_stem(export.name) or export.name
    tgz = tmp_path / f"{name}.tar.gz"
    tgz.write_bytes(_tarred(files, "w:gz"))
    rezipped = tmp_path / "again" / f"{name}.zip"
    rezipped.parent.mkdir()
    rezipped.write_bytes(_zip_all(files))
    original = sorted(_original(export))
    assert original
    assert sorted(_messages(tgz)) == original
    assert sorted(_messages(rezipped)) == original


def _zip_all(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in sorted(files.items()):
            zf.writestr(name, data)
    return out.getvalue()


def test_a_chat_from_an_archive_is_the_chat_of_the_file_and_its_reimport_is_unchanged(tmp_path: Path) -> None:
    loose = SAMPLES / "Priya Nair.txt"
    packed = tmp_path / "takeout.tgz"
    packed.write_bytes(_tgz(f"Takeout/{loose.name}", loose.read_bytes()))
    zipped = tmp_path / "priya.zip"
    zipped.write_bytes(_zip(loose.name, loose.read_bytes()))
    with Archive.open(tmp_path / "home") as archive:
        first = import_file(archive, loose, tz=UTC)
        assert first.error is None and first.chats[0].messages_added == 6
        for path in (packed, zipped):
            [member] = importers.exports_in(path)
            assert member == path / ("Takeout/" if path == packed else "") / loose.name
            again = import_file(archive, member, tz=UTC)
            assert again.error is None, again.error
            # The same content under the same name: the same chat, and nothing to read again.
            assert again.unchanged_since is not None
            assert [c.chat_uid for c in again.chats] == [c.chat_uid for c in first.chats]
            reread = import_file(archive, member, tz=UTC, reread=True)
            assert [(c.chat_uid, c.messages_added, c.messages_skipped) for c in reread.chats] == [
                (first.chats[0].chat_uid, 0, 6)
            ]


def test_a_folder_walk_takes_the_exports_inside_its_archives(tmp_path: Path) -> None:
    priya, hangouts = SAMPLES / "Priya Nair.txt", SAMPLES / "Hangouts.json"
    (tmp_path / "priya.zip").write_bytes(_zip(priya.name, priya.read_bytes()))
    (tmp_path / "takeout-001.tgz").write_bytes(
        _tgz(f"Takeout/Hangouts/{hangouts.name}", hangouts.read_bytes())
    )
    (tmp_path / "photos.tar.xz").write_bytes(_tarred({"IMG_0001.jpg": b"\xff\xd8"}, "w:xz"))
    assert list(importers.exports_in(tmp_path)) == [
        tmp_path / "photos.tar.xz",  # named as an archive, holding no export: its import says so
        tmp_path / "priya.zip" / priya.name,
        tmp_path / "takeout-001.tgz",  # a Takeout archive Hangouts reads whole, as it reads its zip
    ]
    assert sorted(_messages(tmp_path / "priya.zip")) == sorted(_original(priya))
    assert sorted(_messages(tmp_path / "takeout-001.tgz")) == sorted(_original(hangouts))


def test_an_archive_inside_an_archive_is_read_as_the_archive_itself(tmp_path: Path) -> None:
    family = SAMPLES / "WhatsApp Chat - Family.zip"
    outer = tmp_path / "backup.zip"
    outer.write_bytes(_zip(family.name, family.read_bytes()))
    [inner] = importers.exports_in(outer)
    assert inner == outer / family.name
    assert importers.detect(inner) == "whatsapp"
    assert sorted(_messages(inner)) == sorted(_original(family))


def test_an_archive_of_several_exports_imports_each_and_one_format_asked_for_says_what_else_it_holds(
    tmp_path: Path,
) -> None:
    files = {**_files(SAMPLES / "claude-export"), **_files(SAMPLES / "grok-export")}
    both = tmp_path / "exports.zip"
    both.write_bytes(_zip_all(files))
    assert _chats(both) == {"claude", "grok"}
    with pytest.warns(InputWarning, match=r"this archive also holds grok, .*--format grok.*unpacked"):
        assert _chats(both, "claude") == {"claude"}


def _chats(path: Path, fmt: str = "auto") -> set[str]:
    return {
        chat.chat.source
        for export in importers.exports_in(path, fmt)
        for chat in importers.read_export(export, fmt, UTC)
    }
