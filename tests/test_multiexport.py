"""Archives that hold several exports: a folder of exports zipped (with or without the folder itself), the
exports folder as a tarball, archives inside archives. Each export in one is imported as it is loose: the
same formats, chats, counts, messages and messages on stderr; importing the archive again is "unchanged",
export by export. The archives are built from a listing of sample_exports/, so a sample added later is held
to the same. Then what an attacker would pack: archives nested without end, a folder in an archive that is
no export, the same export twice, names that climb out, a flood of entries."""

from __future__ import annotations

import json
import time
import warnings
import zipfile
from collections.abc import Callable
from datetime import UTC
from pathlib import Path

import pytest
from cli_runs import run
from samples import SAMPLES
from test_rewrites import _tarred as _tar
from test_rewrites import _zip_all as _zip

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


# Each packing of sample_exports/: the archive's name, its bytes, and the folder in it the samples lie in.
Packing = Callable[[], tuple[str, bytes, str]]
PACKINGS: dict[str, Packing] = {
    "zip": lambda: ("all.zip", _zip(_listing(SAMPLES)), ""),
    "tgz-of-the-folder": lambda: (
        "exports.tgz",
        _tar(_listing(SAMPLES, "sample_exports/"), "w:gz"),
        "sample_exports/",
    ),
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


def _messages(path: Path, but: str = "") -> list[tuple[str, str, str, str | None, str]]:
    """Every message the import path reads from ``path`` (``exports_in``, then ``read_export``), but from
    the exports named ``but``."""
    read = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for export in (e for e in importers.exports_in(path) if e.name != but):
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
    assert len(files) == len(loose_files)  # no export read in parts
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
    (tmp_path / "slack.tgz").write_bytes(_tar(_listing(SAMPLES / "slack-export-acme", "acme/"), "w:gz"))
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


# --- what an attacker packs ------------------------------------------------------------------------------


def _wrapped(levels: int, name: str, data: bytes) -> bytes:
    """``name`` zipped, then that zip zipped as ``inner.zip``, ``levels`` times."""
    data = _zip({name: data})
    for _ in range(levels):
        data = _zip({"inner.zip": data})
    return data


def test_archives_inside_archives_are_read_to_a_depth_and_deeper_ones_refused_in_one_line(
    tmp_path: Path,
) -> None:
    priya = SAMPLES / "Priya Nair.txt"
    for levels in range(container.MAX_NESTED + 1):
        outer = tmp_path / f"backup{levels}.zip"
        outer.write_bytes(_wrapped(levels, priya.name, priya.read_bytes()))
        [export] = importers.exports_in(outer)
        assert export == outer.joinpath(*["inner.zip"] * levels, priya.name)
        assert _messages(outer) == _messages(priya)
    # A tarball inside a zip is an archive inside an archive too.
    mixed = tmp_path / "mixed.zip"
    mixed.write_bytes(_zip({"takeout.tgz": _tar({f"Takeout/{priya.name}": priya.read_bytes()}, "w:gz")}))
    assert list(importers.exports_in(mixed)) == [mixed / "takeout.tgz" / "Takeout" / priya.name]
    too_deep = tmp_path / "quine.zip"
    too_deep.write_bytes(_wrapped(container.MAX_NESTED + 3, priya.name, priya.read_bytes()))
    started = time.monotonic()
    r = run(tmp_path / "home", "import", *TZ, str(too_deep))
    assert r.exit_code == 2
    [line] = r.stderr.splitlines()
    deepest = too_deep.joinpath(*["inner.zip"] * (container.MAX_NESTED + 1))
    assert line == (
        f"refind: error: {deepest}: is an archive inside {container.MAX_NESTED + 1} others, deeper than refind "
        f"reads ({container.MAX_NESTED}); unpack the outer one, then import this one"
    )
    assert time.monotonic() - started < 10


def test_the_same_export_twice_in_one_archive_adds_nothing_twice(tmp_path: Path) -> None:
    claude, grok, priya = (
        _listing(SAMPLES / "claude-export"),
        _listing(SAMPLES / "grok-export"),
        SAMPLES / "Priya Nair.txt",
    )
    archive = tmp_path / "twice.zip"
    archive.write_bytes(
        _zip(
            {
                **{f"claude-export/{n}": d for n, d in claude.items()},
                **{f"old/claude-export/{n}": d for n, d in claude.items()},
                **{f"grok-export/{n}": d for n, d in grok.items()},
                f"phone/{priya.name}": priya.read_bytes(),
                f"phone copy/{priya.name}": priya.read_bytes(),
            }
        )
    )
    assert [p.relative_to(archive).as_posix() for p in importers.exports_in(archive)] == [
        "claude-export",
        "grok-export",
        "old",
        f"phone/{priya.name}",
        f"phone copy/{priya.name}",
    ]
    code, files, stderr = _import(tmp_path / "home", archive)
    assert (code, stderr) == (0, [])
    added = [(f["format"], sum(c["messages_added"] for c in f["chats"]), f["unchanged"]) for f in files]
    assert added == [
        ("claude", 11, False),
        ("grok", 5, False),
        ("claude", 0, False),  # another folder's name: read again, nothing added
        ("imessage", 6, False),
        ("imessage", 0, True),  # the same file under the same name: not read again
    ]


def test_names_that_climb_out_or_lie_too_deep_are_passed_over(tmp_path: Path) -> None:
    priya, noah = SAMPLES / "Priya Nair.txt", SAMPLES / "Noah Weber.txt"
    archive = tmp_path / "odd.zip"
    deep = "/".join(["d"] * (container.MAX_FOLDERS + 1))
    archive.write_bytes(
        _zip(
            {
                f"x/../../{priya.name}": priya.read_bytes(),
                f"/abs/{priya.name}": priya.read_bytes(),
                f"{deep}/{priya.name}": priya.read_bytes(),
                f"ok\\{noah.name}": noah.read_bytes(),  # a Windows tool's separator
            }
        )
    )
    before = sorted(tmp_path.rglob("*"))
    assert list(importers.exports_in(archive)) == [archive / "ok" / noah.name]
    for climbing in (archive / "x" / ".." / ".." / priya.name, archive / ".." / archive.name):
        with pytest.raises(InputError, match="no such file in the archive"):
            importers.detect(climbing)
    code, files, _ = _import(tmp_path / "home", archive)
    assert code == 0 and [f["format"] for f in files] == ["signal"]
    assert sorted(p for p in tmp_path.rglob("*") if "home" not in p.parts) == before


def test_a_flood_of_entries_is_refused_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(container, "MAX_MEMBERS", 50)
    flood = tmp_path / "flood.zip"
    flood.write_bytes(_zip({f"{n}/chat.txt": b"" for n in range(51)}))
    r = run(tmp_path / "home", "import", *TZ, str(flood))
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [
        f"refind: error: {flood}: holds more than 50 entries; refusing a possible zip bomb"
    ]


def test_a_folder_nested_past_the_limit_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(container, "MAX_FOLDERS", 3)
    priya = SAMPLES / "Priya Nair.txt"
    shallow, deep = tmp_path / "a" / "b", tmp_path / "a" / "b" / "c" / "d"
    deep.mkdir(parents=True)
    (shallow / priya.name).write_bytes(priya.read_bytes())
    (deep / priya.name).write_bytes(priya.read_bytes())
    assert list(importers.exports_in(tmp_path)) == [shallow / priya.name]


def test_a_folder_in_an_archive_that_is_no_export_is_walked_as_it_is_loose(tmp_path: Path) -> None:
    tree = {
        **_listing(SAMPLES / "claude-export", "claude-export/"),
        **_listing(SAMPLES / "grok-export", "grok-export/"),
        "notes/todo.txt": b"buy milk\n",
        "notes/IMG_0001.jpg": b"\xff\xd8",
        "notes/old/plan.json": b'{"plan": 1}',
    }
    loose = tmp_path / "loose"
    for name, data in tree.items():
        (loose / name).parent.mkdir(parents=True, exist_ok=True)
        (loose / name).write_bytes(data)
    packed = tmp_path / "packed.zip"
    packed.write_bytes(_zip(tree))
    found = [p.relative_to(loose).as_posix() for p in importers.exports_in(loose)]
    assert [p.relative_to(packed).as_posix() for p in importers.exports_in(packed)] == found
    assert found == ["claude-export", "grok-export", "notes/old/plan.json", "notes/todo.txt"]


def test_a_takeout_zip_imports_every_product_as_the_unpacked_folder_does(tmp_path: Path) -> None:
    from test_google import _takeout

    path = _takeout(tmp_path)
    with zipfile.ZipFile(path) as zf:
        zf.extractall(tmp_path / "unpacked")
    found = [p.relative_to(path).as_posix() for p in importers.exports_in(path)]
    # Takeout's own index is named like an export (an .html), and reported as the unpacked folder's is.
    assert found == [
        "Takeout/Google Chat",
        "Takeout/Hangouts",
        "Takeout/My Activity",
        "Takeout/archive_browser.html",
    ]
    assert found[-1] in [
        p.relative_to(tmp_path / "unpacked").as_posix() for p in importers.exports_in(tmp_path / "unpacked")
    ]
    assert [importers.detect(path / f) for f in found[:3]] == ["google-chat", "hangouts", "gemini"]
    assert _messages(path / "Takeout", but="archive_browser.html") == _messages(
        tmp_path / "unpacked" / "Takeout", but="archive_browser.html"
    )


def test_importing_a_takeout_zip_passes_over_its_archive_browser_and_exits_0(tmp_path: Path) -> None:
    from test_google import _takeout

    path = _takeout(tmp_path)
    r = run(tmp_path / "home", "import", *TZ, "--json", str(path))
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[-1] == (
        f"refind: warning: {path}/Takeout/archive_browser.html: passed over: "
        "no importer recognises it as a chat export"
    )
    assert "error" not in r.stderr
    files = json.loads(r.stdout)["files"]
    assert sorted({f["format"] for f in files if f["chats"]}) == ["gemini", "google-chat", "hangouts"]
